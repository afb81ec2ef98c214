/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/models/dram.h — DRAM bandwidth accounting and loaded latency.
 *
 * Bandwidth: the caller reports the bytes each LLC miss reads and each
 * writeback writes (sim_dram_account); they are summed over fixed windows
 * of simulated time, giving read/write GiB/s per window and overall.
 *
 * Latency: a mechanistic queue at the memory controllers.
 *   - Peak bandwidth B_peak = channels × MT/s × 8 B; the memory runs at the
 *     lower of the DIMMs' rating and the CPU's supported speed.
 *   - Sustainable bandwidth B = efficiency × B_peak of a read-only load
 *     (refresh and bank conflicts make the peak unreachable).
 *   - Mixed traffic loses bandwidth to read/write bus turnarounds: a window
 *     whose write share is w = wr / (rd + wr) can sustain
 *     C(w) = B / (1 + write_penalty · w), i.e. a written byte occupies the
 *     bus as long as 1 + write_penalty read bytes. The reference penalty
 *     puts C(0.5) at 0.885 B (Intel MLC, 1:1 read:write on a Cascade Lake
 *     Xeon); 0 is a read-only-calibrated memory that ignores the mix.
 *   - Below saturation, the queueing delay of an M/D/1 queue with utilisation
 *     ρ = demand / C(w) = (rd + (1 + write_penalty) · wr) / B:
 *     latency = t_idle + t_service · ρ / (2 (1 − ρ)), the Pollaczek–Khinchine
 *     mean wait for deterministic service. ρ in this term is capped at
 *     rho_max, where the stochastic term is already large.
 *   - At and above saturation, what the memory could not serve in a window
 *     carries over (a fluid queue, in read-equivalent bytes: a written byte
 *     counts 1 + write_penalty), and every access waits behind it:
 *     + backlog / B. This is what throttles cores that demand more than the
 *     memory can give: their misses take longer, so they issue fewer.
 * The latency used during a window is computed from the previous window
 * (causal: the queue a request meets was built by earlier requests).
 *
 * Time order: accesses come in time order to within cfg.late_ps (the
 * simulator's horizon); an older one is counted as late (and aborts debug
 * builds); the simulator steps every core so that none is ever issued ahead
 * of the others by more than that (docs/simulator.md §1.1).
 *
 * Times are in picoseconds (the simulator's unit). Single-threaded.
 */
#ifndef SIM_DRAM_H
#define SIM_DRAM_H

#include <stdint.h>

#include "rxb/common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sim_dram_cfg {
	uint32_t channels;    /* populated memory channels */
	uint32_t dimm_mts;    /* DIMM rating, MT/s */
	uint32_t cpu_max_mts; /* CPU's highest supported speed, MT/s; 0 = no limit */
	uint32_t bus_bytes;   /* data bytes per transfer per channel (8 for DDR4) */
	double efficiency;    /* sustainable fraction of peak, (0, 1] */
	double idle_ns;       /* unloaded load-to-use latency of a DRAM access */
	double service_ns;    /* effective service time of the M/D/1 queue */
	double rho_max;       /* cap of ρ in the M/D/1 term, (0, 1) */
	double write_penalty; /* k of C(w) = B / (1 + k·w), w the window's write
			       * share; [0, 4]; 0 = bandwidth independent of the
			       * mix. Callers that fill the struct field by field
			       * must set it (reference: 0.2599) */
	uint64_t window_ps;   /* accounting window */
	uint64_t late_ps;     /* order tolerance: an access older than the current
			       * window's start by more than this is counted as
			       * late (a time-order bug of the caller) */
};

/* The reference server: Xeon Silver 4216 with 4 × 16 GiB DDR4-2933 DIMMs on
 * 4 of its 6 channels, running at the CPU's 2400 MT/s (see
 * docs/simulator-models.md for each value and its source). */
void sim_dram_cfg_reference(struct sim_dram_cfg *cfg);

struct sim_dram {
	struct sim_dram_cfg cfg;
	uint32_t mts;            /* effective transfer rate */
	double peak_Bps;         /* bytes per second, theoretical */
	double sust_Bps;         /* bytes per second, sustainable */
	double win_capacity;     /* bytes per window at sust_Bps */
	uint64_t win_start;      /* current window: [win_start, win_start + window) */
	uint64_t win_rd, win_wr; /* bytes in the current window */
	double backlog;          /* bytes not yet served at the last window end */
	uint64_t lat_ps;         /* latency for accesses in the current window */
	/* statistics */
	uint64_t rd_bytes, wr_bytes;
	uint64_t windows;          /* closed windows */
	uint64_t last_rd, last_wr; /* bytes of the last closed window */
	double last_util;          /* demand / capacity of the last closed window's mix */
	double last_cap_Bps;       /* capacity C(w) of the last closed window's mix */
	double peak_win_Bps;       /* highest demand of any closed window */
	double peak_util;          /* highest demand / capacity of any closed window */
	/* time order of the accesses (see sim_dram_account) */
	uint64_t early;      /* accesses before the current window (counted in it) */
	uint64_t late;       /* of those, older than its start by more than late_ps */
	uint64_t max_age_ps; /* largest (window start - access time) seen */
};

int sim_dram_init(struct sim_dram *d, const struct sim_dram_cfg *cfg, struct rxb_err *err);

/* Close the windows that end at or before `now`. */
void sim_dram_advance(struct sim_dram *d, uint64_t now_ps);

/* An access outside the current window: a later one closes the windows
 * before it (sim_dram_advance), an earlier one is sim_dram_early's. */
void sim_dram_outside(struct sim_dram *d, uint64_t now_ps);

/* An access at a time before the current window: it counts in the current
 * window. Callers keep their accesses in time order to within late_ps
 * (the simulator's horizon); an older one is a bug of the caller: counted
 * in `late`, and fatal in debug builds (RXB_DEBUG). */
void sim_dram_early(struct sim_dram *d, uint64_t now_ps);

/* Record DRAM traffic at time now. Accesses arrive in time order to within
 * cfg.late_ps: a later time closes the windows before it, an earlier one
 * counts in the current window. */
static inline void sim_dram_account(struct sim_dram *d, uint64_t now_ps, uint64_t rd_bytes,
				    uint64_t wr_bytes)
{
	/* one unsigned comparison: before the window wraps round to "far" */
	if (now_ps - d->win_start >= d->cfg.window_ps)
		sim_dram_outside(d, now_ps);
	d->win_rd += rd_bytes;
	d->win_wr += wr_bytes;
}

/* Add traffic to the current window, for a caller that has just called
 * sim_dram_account (or sim_dram_advance) with the same time. */
static inline void sim_dram_add(struct sim_dram *d, uint64_t rd_bytes, uint64_t wr_bytes)
{
	d->win_rd += rd_bytes;
	d->win_wr += wr_bytes;
}

/* Latency of a DRAM access issued now (after sim_dram_account/advance). */
static inline uint64_t sim_dram_latency_ps(const struct sim_dram *d)
{
	return d->lat_ps;
}

/* The loaded-latency curve without backlog: latency (ns) at utilisation ρ
 * of the sustainable bandwidth. Monotone, = idle_ns at ρ = 0. */
double sim_dram_latency_ns_at(const struct sim_dram_cfg *cfg, double rho);

/* Theoretical and sustainable (read-only) bandwidth of a configuration,
 * bytes/s. */
double sim_dram_peak_Bps(const struct sim_dram_cfg *cfg);
double sim_dram_sustainable_Bps(const struct sim_dram_cfg *cfg);
/* Sustainable bandwidth of traffic whose write share (written bytes / all
 * bytes) is write_share, clamped to [0, 1]: B / (1 + write_penalty · w).
 * = sim_dram_sustainable_Bps at w = 0; non-increasing in w. */
double sim_dram_capacity_Bps(const struct sim_dram_cfg *cfg, double write_share);

struct sim_dram_stats {
	uint64_t rd_bytes, wr_bytes; /* totals, including the open window */
	double mean_gibps;           /* (rd + wr) / elapsed, GiB/s */
	double rd_gibps, wr_gibps;   /* means, GiB/s */
	double last_gibps;           /* last closed window, GiB/s */
	double peak_gibps;           /* busiest closed window, GiB/s */
	double last_util;            /* last closed window: demand / capacity of its mix */
	double peak_util;            /* busiest closed window: demand / capacity */
	double last_cap_gibps;       /* capacity of the last closed window's mix, GiB/s
				       * (the read-only one when it was empty) */
	double last_write_share;     /* its written bytes / all bytes (0 when empty) */
	double backlog_bytes;        /* read-equivalent bytes (a written byte counts
				       * 1 + write_penalty) */
	uint64_t windows;
	uint64_t late; /* accesses out of time order by more than late_ps */
};

/* elapsed_ps: the simulated time the totals cover. */
void sim_dram_stats(const struct sim_dram *d, uint64_t elapsed_ps, struct sim_dram_stats *st);

#ifdef __cplusplus
}
#endif
#endif /* SIM_DRAM_H */
