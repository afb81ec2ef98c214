/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/engine/simcfg.h — the engine's view of the config JSON of
 * docs/engine-contract.md §3, parsed and checked once (jansson), plus the
 * calibration file (sim/calibration/default.json, compiled in; a config key
 * "calibration" — an object of the same shape or an absolute path — may
 * replace it).
 *
 * Every contract key is required with its type; a missing key or a wrong
 * type is a configuration error (exit 2 with "error: <key>: <why>"). The
 * one optional key is the top-level "calibration" above.
 */
#ifndef SIM_SIMCFG_H
#define SIM_SIMCFG_H

#include <stdbool.h>
#include <stdint.h>

#include "rxb/iface.h"
#include "scenario.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A calibration document: its software cycle costs ("cycles", one field per key of
 * scenario/tables/calibration_keys.toml) and where they come from. */
struct sim_calib {
	struct rxb_calib_cycles cycles;
	char origin[512];
	char machine[128];
	char date[48];
};

struct sim_cfg {
	/* the scenario: every key of scenario/tables/scenario_keys.toml */
	struct rxb_scn scn;
	/* profile */
	char profile_name[64];
	double freq_ghz, llc_mib, dram_idle_ns, dram_efficiency, dram_service_ns, dram_rho_max;
	double dram_write_penalty;
	uint32_t l2_ways;
	double pcie_gbps, dma_read_ns, dma_read_ns_per_byte, dma_write_ns, link_gbps,
		nic_buffer_kib, xsocket_ns;
	uint32_t cores_per_socket, nics; /* what the scenario's cores and NICs must fit */
	uint32_t cpu_mlp, l2_kib, l2_latency_cycles, llc_ways, llc_line, llc_latency_cycles;
	uint32_t dram_channels, dram_dimm_mts, dram_cpu_max_mts, dram_bus_bytes;
	uint32_t mps_bytes, tlp_overhead_bytes;
	uint32_t desc_bytes, cqe_bytes, desc_prefetch, reta_size, dma_read_slots, mrrs_bytes;
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
