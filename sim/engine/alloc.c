/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The buffer allocator as the cores pay for it (docs/simulator.md §2.5):
 * each core's allocator is the pool's, observed (the mbuf lines a DPDK
 * driver touches when it takes or returns a buffer), and its cycles follow
 * the pool's counters, bulk moves under the shared pool's lock.
 */
#include "alloc.h"
#include "core.h"
#include "engine_int.h"

/* The allocator as the library sees it: the pool's, observed so that the
 * core can touch the mbufs as a DPDK driver does (docs/simulator.md §2.5,
 * "Packet memory"): a buffer the receive call takes to repost gets its
 * first mbuf line written (rearm_data; buf_iova read for the descriptor:
 * the same line), a freed one has both lines read (refcnt and pool in line
 * 0 — which the application read when it took the packet: an L2 hit that
 * overlaps with line 1's read —, next in line 1: rte_pktmbuf_prefree_seg,
 * rte_mempool_put). */
static void tap_touch(struct alloc_tap *a, rxb_buf_t b, unsigned line, unsigned how)
{
	struct core *k = &a->s->core[a->core];

	if (k->mbq_n == MBQ_MAX)
		return; /* beyond what a burst can touch: not issued */
	k->mbq[k->mbq_n++] = sim_mbuf_line(a->s, b, line) | how;
}

static unsigned tap_get(void *ctx, rxb_buf_t *bufs, unsigned n)
{
	struct alloc_tap *a = ctx;
	unsigned got = a->pool.get(a->pool.ctx, bufs, n);

	for (unsigned j = 0; j < got; j++)
		tap_touch(a, bufs[j], 0, MBQ_WR);
	return got;
}

static void tap_put(void *ctx, const rxb_buf_t *bufs, unsigned n)
{
	struct alloc_tap *a = ctx;

	for (unsigned j = 0; j < n; j++) {
		tap_touch(a, bufs[j], 1, 0); /* line 0: hot (core.c phase_acc) */
	}
	a->pool.put(a->pool.ctx, bufs, n);
}

void alloc_setup(struct sim *s)
{
	uint32_t n = s->cfg->scn.system.cores;

	s->allocs = sim_xcalloc(n, sizeof(*s->allocs));
	s->tap = sim_xcalloc(n, sizeof(*s->tap));
	for (uint32_t c = 0; c < n; c++) {
		s->tap[c] = (struct alloc_tap){ rxb_pool_allocator(s->pool, c), s, c };
		s->allocs[c] = (struct rxb_allocator){ tap_get, tap_put, &s->tap[c] };
	}
}

/* Allocator cycles from the pool's counters: objects through the cache,
 * bulk moves under the shared pool's lock (a contended resource). */
void alloc_charge(struct sim *s, struct core *k)
{
	struct rxb_pool_core_stats st;
	uint64_t objs, bulk, shobj, ps;

	rxb_pool_stats(s->pool, k->id, &st);
	objs = (st.alloc - k->ps.alloc) + (st.free - k->ps.free);
	bulk = (st.alloc_refill - k->ps.alloc_refill) + (st.free_flush - k->ps.free_flush) +
	       (st.empty - k->ps.empty);
	shobj = (st.objs_from_shared - k->ps.objs_from_shared) +
		(st.objs_to_shared - k->ps.objs_to_shared);
	k->ps = st;
	ps = objs * s->c.alloc_obj;
	if (bulk) {
		uint64_t wait;

		ps += sim_res_take(&s->mem, &s->plock, k->id, k->t + ps,
				   bulk * s->c.alloc_bulk + shobj * s->c.alloc_shobj, s->c.xfer,
				   &wait);
		if (s->mem.warm)
			s->plock_wait += wait;
	}
	k->t += ps;
	k->cost.alloc += ps;
	an_charge(s, k, AN_ALLOC, ps);
}
