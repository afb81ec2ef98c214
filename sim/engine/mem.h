/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/engine/mem.h — the memory-access path of the simulator core, its leaf
 * module: the caches and DRAM as one memory system (struct sim_mem), a
 * core's, hog's or the emulator's accesses through it (sim_mem_one,
 * sim_mem_par), the event clock with the horizon every access is checked
 * against (the time rule, docs/simulator.md §1.1), and set-up allocation.
 * It knows nothing of the mechanisms above it (NICs, cores, rings): they
 * pass the accessor's L2, LLC class and anatomy.
 */
#ifndef SIM_MEM_H
#define SIM_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "anatomy.h"
#include "dram.h"
#include "l2.h"
#include "llc.h"

#define PS_PER_NS 1000ull
#define PS_PER_MS 1000000000ull

/* One memory access of a core: the line at addr through the LLC as class
 * cls, or, with cls == ACC_FIXED (the engine's own accesses), a fixed
 * latency: addr holds the latency in ps. */
struct acc {
	uint64_t addr;
	uint8_t cls;
	uint8_t op;   /* enum sim_llc_op */
	uint8_t comp; /* enum an_comp (anatomy.h): what the stall is charged to */
};
#define ACC_MAX   256u /* most accesses of one step (and of an NF's wave group) */
#define ACC_FIXED 255u

/* The memory system, the event clock and the time rule's statistics. */
struct sim_mem {
	struct sim_llc llc;
	struct sim_l2 l2; /* the cores' and hogs' L2s (llc.inclusive = false) */
	struct sim_dram dram;
	uint64_t llc_hit, l2_hit; /* hit latencies, ps */
	uint32_t mlp;             /* most independent accesses outstanding (a wave) */
	bool warm;                /* the measured interval has begun: the anatomy counts */
	uint64_t now;             /* the event clock */
	uint64_t horizon_ps;      /* how far a step may start ahead of it */
	uint64_t lim;             /* now + horizon_ps */
	/* Time order over the whole run: the largest lead of a core's, hog's
	 * or the emulator's local time over the event clock at the start of a
	 * step touching a shared resource (never more than horizon_ps); how
	 * many memory accesses came more than horizon_ps ahead and the largest
	 * lead of those — a broken rule: both stay 0 (every step checks before
	 * it starts; debug builds abort). */
	uint64_t max_lead_ps, lead_over, max_ahead_ps;
	uint64_t step_hi; /* latest step start since the clock last moved (>= now) */
	uint64_t dram_lat_sum, dram_lat_n; /* DRAM latency of the cores' misses (after warm-up) */
};

/* calloc that exits with RXB_EXIT_NOMEM (set-up only). */
void *sim_xcalloc(size_t n, size_t sz);

static inline uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

/* An access issued more than the horizon ahead of the event clock: the
 * time rule broken. Every step checks its start against the horizon
 * (docs/simulator.md §1.1), a network function's too (one dependent access
 * or one wave a step), so nothing should come here: counted for the tests
 * (lead_over and max_ahead_ps stay 0) and fatal in debug builds. Out of
 * line: the check costs the hot path one comparison. */
__attribute__((cold)) void sim_over_horizon(struct sim_mem *m, uint64_t t);

/* Independent accesses, at most mlp outstanding: returns the stall (ps).
 * Wave by wave, each at the time it is issued (t, then t + the waves
 * before it): its traffic counts in the DRAM window of that time and its
 * misses see that window's latency. Out of line: inlined into the core's
 * loop it cost more instructions per packet than the call. */
uint64_t sim_mem_par(struct sim_mem *m, uint64_t t, uint32_t l2, const struct acc *a, unsigned n,
		     struct anat *an);

/* An access of comp served at level f (sim_llc_core_access's flags, or a
 * fixed latency: the LLC's level) in lat ps, after the warm-up. */
static inline void an_access(const struct sim_mem *m, struct anat *an, unsigned comp, uint32_t f,
			     bool fixed, uint64_t lat)
{
	unsigned lvl = fixed || (f & (SIM_LLC_HIT | SIM_LLC_L2)) == SIM_LLC_HIT ? AN_LLC
		       : f & SIM_LLC_L2                                         ? AN_L2
										: AN_DRAM;

	if (!m->warm || an == NULL)
		return;
	an->n[comp]++;
	an->lvl[comp][lvl]++;
	an->lat_ps[comp] += lat;
}

/* The latency (ps) of a core access with outcome f (sim_llc_core_access)
 * while DRAM answers in dlat: L2 hit, LLC hit or the DRAM's; a miss counts
 * in the mean DRAM latency. Selects, not branches: the outcome is random. */
static inline uint64_t access_latency(struct sim_mem *m, uint32_t f, uint64_t dlat)
{
	uint64_t miss = (f & SIM_LLC_HIT) ^ 1;

	m->dram_lat_sum += dlat & -miss;
	m->dram_lat_n += miss;
	return miss ? dlat : f & SIM_LLC_L2 ? m->l2_hit : m->llc_hit;
}

/* One access (a dependent step of a chain): its latency (ps), with its
 * DRAM traffic accounted at time t (sim_mem_par of one access). `l2` is
 * the accessor's L2 (the core's id; a hog's is ncores + its index): an L2
 * hit costs cpu.l2_latency_cycles and reaches neither the LLC nor DRAM,
 * a miss goes on as llc.h says (sim_llc_core_access). */
static inline uint64_t sim_mem_one(struct sim_mem *m, uint64_t t, uint32_t l2, unsigned cls,
				   enum sim_llc_op op, uint64_t addr, struct anat *an,
				   unsigned comp)
{
	uint64_t lat, dlat;
	uint32_t f;

	if (t > m->lim)
		sim_over_horizon(m, t);
	sim_dram_account(&m->dram, t, 0, 0); /* close finished windows first */
	dlat = sim_dram_latency_ps(&m->dram);
	f = sim_llc_core_access(&m->llc, l2, cls, op, addr);
	lat = access_latency(m, f, dlat);
	an_access(m, an, comp, f, false, lat);
	if (an && m->warm)
		an->ps[comp] += lat;
	/* Adding zero bytes to the window is a no-op (its windows are closed
	 * up to t already). */
	sim_dram_add(&m->dram, (f / SIM_LLC_DRAM_RD & 1) * SIM_LLC_LINE,
		     (f / SIM_LLC_DRAM_WR & 1) * SIM_LLC_LINE);
	return lat;
}

/* A core, hog or the emulator starts a step that touches a shared resource
 * (memory, a lock, the library's rings) at its local time t (for the
 * statistic max_lead_ps, taken when the event clock moves). */
static inline void sim_note_step(struct sim_mem *m, uint64_t t)
{
	m->step_hi = t > m->step_hi ? t : m->step_hi;
}

/* The event clock moves to t: the lead of the steps made since it last
 * moved is known (max_lead_ps). Steps start at or after the event clock,
 * so step_hi >= now. */
static inline void sim_mem_set_now(struct sim_mem *m, uint64_t t)
{
	uint64_t l = m->step_hi - m->now;

	m->max_lead_ps = l > m->max_lead_ps ? l : m->max_lead_ps;
	m->step_hi = t;
	m->now = t;
	m->lim = t + m->horizon_ps;
}

/* A lock as a resource: the latest hold interval [from, to) and its holder.
 * A core arriving at t waits until `to` unless its whole hold fits before
 * `from` (cores' local clocks run up to the horizon apart, so a later event
 * may come from an earlier time). */
struct res {
	uint64_t from, to;
	uint32_t last;
};

/* Take lock `r` at t0 for `hold` (plus a line transfer, xfer, when another
 * holder held it last): returns the time spent, waiting included; *wait
 * gets the wait. A hold that fits entirely before the latest recorded one
 * does not wait for it. */
static inline uint64_t sim_res_take(struct sim_mem *m, struct res *r, uint32_t who, uint64_t t0,
				    uint64_t hold, uint64_t xfer, uint64_t *wait)
{
	uint64_t startt;

	sim_note_step(m, t0);
	hold += r->last != who ? xfer : 0;
	startt = (t0 + hold <= r->from || t0 >= r->to) ? t0 : r->to;
	if (startt >= r->to) {
		r->from = startt;
		r->to = startt + hold;
	}
	r->last = who;
	*wait = startt - t0;
	return *wait + hold;
}

#endif /* SIM_MEM_H */
