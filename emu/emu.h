/* SPDX-License-Identifier: BSD-3-Clause
 *
 * emu.h — the DPDK software NIC ("emulator") of rxbisect (docs/evaluation.md §1).
 *
 * One run: a traffic source feeds an ethdev port's physical Rx queues; an
 * emulator lcore plays the NIC of the design under test — it hands the
 * physical queues buffers fetched from the design's virtual rings, takes the
 * packets the port received, computes RSS and delivers them into the virtual
 * rings with the ring library's NIC verbs; worker lcores receive through the
 * library, run a network function on the packet bytes and transmit on an
 * output port. With arch.emulated = false (privRing, small privRing) the
 * workers poll the physical queues themselves (native baseline).
 *
 * The configuration vocabulary is the scenario vocabulary of `rxb sim`
 * (docs/engine-contract.md §3.1) where it applies, plus emu.* keys; see
 * docs/emulator.md. Threads: rxb_emu_run() is called on the EAL main lcore
 * after rte_eal_init() and launches every other lcore itself.
 */
#ifndef RXB_EMU_H
#define RXB_EMU_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rxb/common.h"
#include "rxb/dynctl.h"
#include "rxb/iface.h"
#include "scenario.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RXB_EMU_MAX_WORKERS 64u
#define RXB_EMU_PATH_MAX    512u

/* The steps of a NIC lcore's loop, in the order it runs them, that the
 * emulation cost is split into: fetching posted descriptors from the
 * design's rings into the physical queues (refill), the source's receive
 * (taking frames off the wire), RSS and steering (classify), the library's
 * NIC verbs (deliver), and the rest of the loop (other: drop holes,
 * counters, time keeping). */
enum rxb_emu_stage {
	RXB_EMU_STAGE_REFILL,
	RXB_EMU_STAGE_RECEIVE,
	RXB_EMU_STAGE_CLASSIFY,
	RXB_EMU_STAGE_DELIVER,
	RXB_EMU_STAGE_OTHER,
	RXB_EMU_STAGES
};
/* Their names in result records. */
extern const char *const rxb_emu_stage_name[RXB_EMU_STAGES];

enum rxb_emu_out {
	RXB_EMU_OUT_NULL = 0, /* net_null: transmitted packets are freed */
	RXB_EMU_OUT_PCAP,     /* net_pcap writing out_pcap */
	RXB_EMU_OUT_PORT,     /* back out of the input port (real NIC) */
	RXB_EMU_OUT_RING,     /* an rte_ring the caller passes (in-process tests) */
};

struct rxb_emu_cfg {
	/* the scenario: every key of scenario/tables/scenario_keys.toml, at the
	 * emulator's defaults unless set; "auto" resolved by rxb_emu_cfg_check */
	struct rxb_scn scn;

	/* emu.out, parsed */
	enum rxb_emu_out out;
	char out_pcap[RXB_EMU_PATH_MAX];
	struct rte_ring *out_ring; /* RXB_EMU_OUT_RING: multi-producer ring */
	/* Called once the run is over and checked, before its mempool goes:
	 * the place to inspect (and free) what the output ring holds. */
	void (*out_done)(struct rte_ring *r, void *arg);
	void *out_arg;
};

/* Defaults that run on a 2-CPU laptop (docs/emulator.md). */
void rxb_emu_cfg_defaults(struct rxb_emu_cfg *c);

/* Apply one --set key=value. 0; 1 for a key that exists in the scenario
 * vocabulary but has no effect here (the caller warns); -EINVAL with a
 * message "key = value: why; allowed: what" in err. */
int rxb_emu_cfg_set(struct rxb_emu_cfg *c, const char *key, const char *value, struct rxb_err *err);

/* Resolve "auto" (rxb_scn_resolve_arch), then check the cross-key rules and
 * what this machine/build can do. 0 or -EINVAL. */
int rxb_emu_cfg_check(struct rxb_emu_cfg *c, struct rxb_err *err);

/* Every key with its allowed values, one per line (for --help). */
void rxb_emu_cfg_print_keys(FILE *f);

/* Physical Rx queues the run needs (one per library source; rxBisect: one
 * per association set); 0 when the design's shape is invalid, which
 * rxb_emu_cfg_check() rejects. */
uint32_t rxb_emu_phys_queues(const struct rxb_emu_cfg *c);
/* lcores the run needs beyond the main one: workers + emulator + source. */
uint32_t rxb_emu_lcores_needed(const struct rxb_emu_cfg *c);
/* Generator lcores per NIC port ("slices", each feeding part of the port's
 * physical queues): emu.gen_lcores / system.nics when the lcores outnumber
 * the ports, else 1 (an lcore plays whole ports). */
uint32_t rxb_emu_gen_slices(const struct rxb_emu_cfg *c);

/* ---- results ---- */

struct rxb_emu_ring_res { /* per destination (CR / Bx; spool: port) */
	uint64_t offered, delivered, drops[RXB_DROP_CAUSES];
	uint64_t occ_max;
	double occ_mean;
	/* spool: buffers posted to the port's queue (shared by its ports in
	 * basic mode), sampled every millisecond; × buffer bytes = memory */
	uint64_t posted_max;
	double posted_mean;
};

struct rxb_emu_worker_res {
	uint64_t received, processed, tx, nf_drops, tx_drops, polls, empty_polls;
	uint64_t bytes;
	uint64_t cyc_rx, cyc_alloc, cyc_app, cyc_idle;
	uint64_t alloc_fail;
	/* lb, nat: flows its NF learned before the clock (emu.learn_flows),
	 * and the new flows it inserted in the run */
	uint64_t flows_learned, nf_inserts;
};

struct rxb_emu_result {
	/* conservation (totals over the whole run, drain included) */
	uint64_t offered, delivered, in_flight;
	uint64_t drops[RXB_DROP_CAUSES];
	uint64_t nf_drops, tx_packets, tx_drops;
	bool packets_ok, buffers_ok;
	char packets_msg[256], buffers_msg[256];
	uint64_t pool_size, pool_in_use_end, out_ring_held;

	/* rates over the measured interval (warm-up excluded, drain excluded) */
	double measured_s;
	double offered_gbps, throughput_gbps, throughput_mpps;
	double drop_rate;

	/* latency, µs (NaN when no packet was timed) */
	uint64_t lat_samples;
	double lat_mean, lat_p50, lat_p99, lat_p999, lat_max;

	double occ_mean;
	uint64_t occ_max;
	double cpp_rx, cpp_alloc, cpp_app, cpp_total; /* cycles per processed packet */
	double alloc_cycle_share;

	/* emulator core */
	uint64_t emu_dispatched, emu_fetched, emu_loops, emu_idle_loops;
	uint64_t emu_busy_cycles, emu_idle_cycles;
	uint64_t emu_mismatch, emu_swaps, emu_hole_returns, emu_holes_max;
	uint64_t emu_sw_hash, emu_port_hash, emu_steer_fixups;
	double emu_mpps, emu_idle_share, emu_cycles_per_pkt;
	double emu_loaded_cycles_per_pkt; /* over loops that dispatched >= 16 packets */
	/* The emulation cost (what hardware would not add): NIC lcores, the
	 * NIC-side cycles per packet of one of them at full bursts (the
	 * loaded figure), and the mean time a packet spends in a NIC lcore's
	 * hands, from its burst leaving the wire to the burst's last completion. */
	uint32_t emu_nic_lcores;
	double emu_held_ns;
	uint64_t emu_loaded_pkts;
	/* Where those loaded cycles go, per packet: emu_stage_name order. */
	double emu_stage_cyc_per_pkt[RXB_EMU_STAGES];
	uint64_t phys_slots, virt_slots; /* buffers the rings can hold */
	uint64_t dma_bytes;              /* frame bytes the source wrote into buffers */
	double dma_write_gibps;          /* the same over the measured interval, GiB/s */
	double mem_bw_gibps;             /* resctrl MBM, machine-wide; NaN without it */

	/* source */
	uint64_t gen_late, gen_nombuf_drops, gen_pipeline_drops;
	uint64_t gen_lcore_offered_min, gen_lcore_offered_max; /* over generator lcores */
	uint64_t port_imissed, port_rx_nombuf;

	uint64_t in_use_max; /* mempool buffers out, sampled max */
	uint64_t emu_ws_max; /* distinct buffers filled in a window */
	bool has_desc_wait;  /* shRing: descriptor-return wait */
	double desc_wait_us_mean, desc_wait_us_max;

	/* dynamic shRing */
	uint64_t mode_switches, mode_switches_confirmed;
	char dyn_mode_end[16];

	uint32_t n_rings, n_workers;
	struct rxb_emu_ring_res ring[RXB_EMU_MAX_WORKERS];
	struct rxb_emu_worker_res worker[RXB_EMU_MAX_WORKERS];
	double wall_s;
	uint64_t tsc_hz;
};

/* Run one experiment. Returns 0 when the run completed (whatever the
 * conservation checks said: see res), or a negative errno with a message
 * (set-up failure). Requires the EAL to be initialised with at least
 * rxb_emu_lcores_needed() worker lcores. Resolves c's "auto" values first
 * (rxb_emu_cfg_check). May be called again for another run. */
int rxb_emu_run(struct rxb_emu_cfg *c, struct rxb_emu_result *res, struct rxb_err *err);

/* The result record of docs/evaluation.md §4 on one line:
 * {"experiment": "emu", "arch", "params", "metrics", ...}. */
void rxb_emu_print_json(FILE *f, const struct rxb_emu_cfg *c, const struct rxb_emu_result *r);

/* Benchmark mode (`rxb-emu --bench`): emulator dispatch rate per interface
 * with a net_null source and software RSS, and the workers' receive cost
 * per interface; one JSON object on f. */
int rxb_emu_bench(const struct rxb_emu_cfg *base, double ms, FILE *f, struct rxb_err *err);

#ifdef __cplusplus
}
#endif
#endif /* RXB_EMU_H */
