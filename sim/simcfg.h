/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/simcfg.h — the engine's view of the config JSON of
 * docs/engine-contract.md §3, parsed and checked once (jansson), plus the
 * calibration file (sim/calibration/default.json, compiled in; a config key
 * "calibration" — an object of the same shape or an absolute path — may
 * replace it).
 *
 * Every contract key is required with its type; a missing key or a wrong
 * type is a configuration error (exit 2 with "error: <key>: <why>").
 * Engine extension keys (optional, documented in docs/simulator.md) have a
 * fallback: workload.lpm_table_mib, workload.lb_table_entries,
 * profile.nic.buffer_kib, profile.pcie.dma_write_ns, profile.pcie.mps_bytes,
 * profile.pcie.tlp_overhead_bytes, profile.cpu.xsocket_ns.
 */
#ifndef SIM_SIMCFG_H
#define SIM_SIMCFG_H

#include <stdbool.h>
#include <stdint.h>

#include "rxb/iface.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SIMCFG_MAX_NICS 64u
#define SIMCFG_MAX_LIST 1024u

enum sim_pattern { PAT_CONSTANT, PAT_POISSON, PAT_ONOFF, PAT_TARGET, PAT_TRACE };
enum sim_nf { NF_L3FWD, NF_NAT, NF_LB, NF_SYNTHETIC, NF_KVS, NF_COUNTER, NF_COUNT };
enum sim_payload { PAY_UNTOUCHED, PAY_READ, PAY_WRITTEN };
enum sim_hog { HOG_NONE, HOG_STREAM, HOG_PAGERANK };
enum sim_assoc { ASSOC_ALL, ASSOC_PER_NIC, ASSOC_GROUPS };

/* Software cycle costs (sim/calibration/default.json "cycles"). */
struct sim_calib {
	double rx_per_pkt[RXB_ARCHS];
	double rx_per_call;
	double empty_poll;
	double doorbell;
	double alloc_per_obj;
	double alloc_bulk;
	double alloc_per_obj_shared;
	double lock;
	double bitmap_or;
	double return_per_desc;
	double tx_per_pkt;
	double emu_per_pkt[RXB_ARCHS];
	double emu_per_batch;
	char origin[512];
	char machine[128];
	char date[48];
};

struct sim_cfg {
	/* arch */
	enum rxb_arch arch;
	char arch_name[32];
	uint32_t rx_size, ax_size, bx_size, cr_size, share_degree, groups, batch;
	uint32_t rxlist_batch;   /* batched RxList: buffer slots per descriptor (1: not batched) */
	uint32_t buffer_bytes, headroom_bytes, alloc_cache, pool_buffers;
	uint32_t spool_ports, spool_low, spool_high, dyn_window;
	enum rxb_spool_mode spool_mode;
	enum rxb_ax_policy ax_policy;
	enum sim_assoc association;
	bool emulated, coalesce;
	double coalesce_timeout_ns, dyn_sample_ms, dyn_tput_gbps, dyn_membw_gibps;
	double dyn_overload_factor;
	/* system */
	uint32_t cores, nics, ddio_ways, cat_ways, mlp, hog_instances;
	uint32_t cores_per_nic[SIMCFG_MAX_NICS];
	uint32_t n_stalled, n_slow;
	uint32_t stalled[SIMCFG_MAX_LIST], slow[SIMCFG_MAX_LIST];
	double stall_at_ms, stall_for_ms, slow_extra_ns;
	enum sim_hog hog;
	/* traffic */
	enum sim_pattern pattern;
	double rate_gbps, target_share, target_rate_gbps, burst_duty, pcap_speedup, zipf_s;
	uint32_t packet_bytes, target_packet_bytes, target_core, burst_packets, flows;
	bool zipf;
	char pcap[4096];
	/* workload */
	enum sim_nf nf;
	enum sim_payload payload;
	uint32_t reads, target_reads, lb_backends, kvs_key_bytes, kvs_value_bytes;
	uint32_t counter_slots;
	uint64_t nat_flows, kvs_keys, lb_table_entries;
	double buffer_mib, compute_ns, kvs_put_share, lpm_table_mib;
	/* run */
	double duration_ms, warmup_ms, sample_ms;
	uint64_t seed;
	bool check_invariants;
	uint32_t llc_sample_shift;
	/* profile */
	char profile_name[64];
	double freq_ghz, llc_mib, dram_idle_ns, dram_efficiency, dram_service_ns, dram_rho_max;
	double pcie_gbps, dma_read_ns, dma_write_ns, link_gbps, nic_buffer_kib, xsocket_ns;
	uint32_t cpu_mlp, l2_kib, l2_latency_cycles, llc_ways, llc_line, llc_latency_cycles;
	uint32_t dram_channels, dram_dimm_mts, dram_cpu_max_mts, dram_bus_bytes;
	uint32_t mps_bytes, tlp_overhead_bytes;
	uint32_t desc_bytes, cqe_bytes, desc_prefetch, reta_size;
	bool llc_inclusive;
	/* derived */
	uint32_t nic_of_core[RXB_MAX_CORES];
	/* calibration */
	struct sim_calib cal;
};

/* Parse the config file at `path`. 0, or -EINVAL with a message naming the
 * key in err (the caller prints "error: ..." and exits 2). */
int simcfg_load(struct sim_cfg *cfg, const char *path, struct rxb_err *err);
/* Same from a JSON text (tests). */
int simcfg_parse(struct sim_cfg *cfg, const char *text, struct rxb_err *err);

/* Parse a calibration document (the shape of sim/calibration/default.json)
 * from a JSON text. 0, or -EINVAL with a message. */
int simcfg_parse_calibration(struct sim_calib *cal, const char *text, struct rxb_err *err);

/* The compiled-in default calibration (sim/calibration/default.json). */
extern const char sim_default_calibration_json[];

#ifdef __cplusplus
}
#endif
#endif /* SIM_SIMCFG_H */
