/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/engine/measure.h — the measurements (sim/engine/measure.c, docs/simulator.md §2.8,
 * §2.9): per-destination and per-ring counts, time series, dynamic-shRing
 * samples, the coalescing timer, warm-up, invariants.
 */
#ifndef SIM_MEASURE_H
#define SIM_MEASURE_H

#include <stdint.h>
#include "rxb/shring.h"

struct dest_stats { /* per destination ring / port, packets arrived after warm-up */
	uint64_t offered, delivered;
	uint64_t drops[RXB_DROP_CAUSES];
};

struct ring_occ { /* per reception ring: periodic samples after warm-up */
	double sum;
	uint64_t n, max;
};

struct series_pt {
	double t_ms;
	uint64_t arrivals, departures, drops, wire_bits, dram_bytes;
	double lat_sum;
	uint64_t lat_n;
	double occ_sum;
	uint64_t occ_n;
	uint64_t ws_bufs, in_use;
	int mode;
	double nic_wr, nic_hit; /* DDIO lines and hits in the window */
};

struct dyn_pt {
	double t_ms, tput_gbps, membw_gibps;
	uint32_t overloaded;
	int decision, mode;
};

struct sim;
struct core;

/* Descriptor-return waits of every shared ring over the measured interval:
 * the library's histograms and totals minus those at warm-up's end. */
void sim_desc_waits(const struct sim *s, struct rxb_shring_wait *out);
void record_interval(struct core *k, uint64_t t);
void check_invariants(struct sim *s);
void snapshot_desc_waits(struct sim *s);
void ev_occ(struct sim *s, uint64_t now);
void ev_sample(struct sim *s, uint64_t now);
void ev_dyn(struct sim *s, uint64_t now);
void ev_tick(struct sim *s, uint64_t now);
void ev_warmup(struct sim *s);

/* Stats writers (report.c calls them in the result object's order). */
struct json_t;
void measure_stats_traffic(const struct sim *s, struct json_t *m, double T);
void measure_stats_rings(const struct sim *s, struct json_t *m);
void measure_stats_checks(const struct sim *s, struct json_t *m);
void measure_stats_invariants(const struct sim *s, struct json_t *m);
struct json_t *measure_stats_per_ring(const struct sim *s);
struct json_t *measure_stats_shared_rings(const struct sim *s);
struct json_t *measure_stats_series(const struct sim *s);
struct json_t *measure_stats_dyn(const struct sim *s);
struct json_t *measure_stats_spool(const struct sim *s);

#endif /* SIM_MEASURE_H */
