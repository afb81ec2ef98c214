/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/engine/core.h — the polling cores (sim/engine/core.c, docs/simulator.md §2.5):
 * each core's state, its run-to-completion loop, and what the other
 * mechanisms may do to a core: wake it, charge its anatomy.
 */
#ifndef SIM_CORE_H
#define SIM_CORE_H

#include <stdbool.h>
#include <stdint.h>

#include "anatomy.h"
#include "engine_int.h"
#include "hist.h"
#include "nf.h"
#include "rng.h"
#include "rxb/iface.h"
#include "rxb/pool.h"
#include "tx.h"

enum core_state { CS_SLEEP = 0, CS_SCHED, CS_STALLED };

struct ccost { /* per-core cycle accounting, in ps */
	uint64_t rx, sync, alloc, app;
};

/* The mbuf lines the allocator path touches (core.c): the receive call's
 * refill writes each new buffer's first mbuf line, a free reads both;
 * queued by the allocator tap (alloc.c) and issued by the core. An entry
 * is the line's address | MBQ_WR for a write. */
#define MBQ_MAX 256u
#define MBQ_WR  1u

struct core {
	uint32_t id, nic;
	uint64_t t;            /* local time */
	uint64_t mbq[MBQ_MAX]; /* pending mbuf line accesses: address | MBQ_* */
	unsigned mbq_n;
	enum core_state state;
	/* batch in progress: phase (core.c PH_*), packets, next packet, its
	 * step (core.c PK_*), next entry of the burst's completion / header
	 * reads */
	struct rxb_pkt pk[RXB_BURST_MAX];
	unsigned ph, n, i, step, j;
	unsigned cq_only; /* rxBisect: entries with only a notice, to read in PH_CQ */
	struct nf_pkt nf; /* packet i in the network function: its next step */
	uint32_t tr_left; /* target reads left for packet i */
	uint32_t q;       /* queue of the batch (spool) */
	/* spool: queues q0, q0 + cores, ...; round-robin position */
	uint32_t nq, qnext, qempty;
	unsigned cls_pkt; /* LLC class of its packet and CQE reads */
	struct sim_rng rng;
	struct sim_rng vrng;            /* variability: service times, pauses (own stream) */
	uint64_t tick_next, pause_next; /* next timer interrupt, next rare pause */
	bool slow, target;
	uint64_t stall_from, stall_to; /* [from, to); to = UINT64_MAX: forever */
	uint64_t last_poll, sleep_at;
	bool sleeping_since_poll;
	/* last seen library counters, for deltas */
	struct rxb_pool_core_stats ps;
	uint64_t sw_db, sw_lock, sw_ors, sw_ret, sw_notices, sw_afail, sw_entries;
	/* measurements after warm-up */
	struct ccost cost;
	uint64_t busy;      /* ps not asleep or stalled, after the warm-up (the
				      * anatomy's check: measured apart from it) */
	uint64_t busy_from; /* when the current busy span began */
	struct anat an;     /* where its time went, after the warm-up */
	uint64_t pkts, wire_bytes, polls, empty_polls, alloc_fail_polls;
	uint64_t paused; /* ps taken by ticks and pauses */
	struct txq tx;
	uint64_t tx_full_waits; /* transmits that waited for a Tx slot (after warm-up) */
	uint64_t tx_occ_sum;    /* Tx ring entries, summed over ev_occ samples (after warm-up) */
	double lat_sum;
	uint64_t lat_n;
	struct rxb_hist *ivals; /* dyn_shring: receive-call intervals (ns) */
	/* the library's counters of its queue (not spool), read after each call */
	const struct rxb_sw_stats *sw, *shs;
};

/* Each core's queues, LLC class, generators and variability. */
void core_setup(struct sim *s);
/* Core k's loop from its local time: returns when it resumes next
 * (UINT64_MAX: it sleeps until woken). */
uint64_t ev_core(struct sim *s, struct core *k, uint64_t now);

/* Stats: the cores' cycles summed; cycles per packet by kind; "per_core". */
struct json_t;
void core_cost_total(const struct sim *s, struct ccost *tot);
struct json_t *core_cycles_json(const struct sim *s, const struct ccost *c, uint64_t pkts);
struct json_t *core_stats_per_core(const struct sim *s, double T);

/* The anatomy (anatomy.h) of core k after the warm-up: ps charged to comp. */
static inline void an_charge(struct sim *s, struct core *k, unsigned comp, uint64_t ps)
{
	if (s->mem.warm)
		k->an.ps[comp] += ps;
}

/* A delivery (or the coalescing timer) wakes a sleeping core at t. */
static inline void wake(struct sim *s, uint32_t c, uint64_t t)
{
	struct core *k = &s->core[c];

	if (k->state != CS_SLEEP)
		return;
	k->state = CS_SCHED;
	push(s, t > k->t ? t : k->t, EV_CORE, c);
}

#endif /* SIM_CORE_H */
