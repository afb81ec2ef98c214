/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The simulator's model of the emulator (arch.emulated, docs/simulator.md
 * §2.4) — not the emulator itself, which is emu/. The physical NIC writes
 * a packet into the next free buffer of its physical queue; the emulator
 * core visits the queues round-robin in bursts, with calibrated costs,
 * delivers to the virtual rings and swaps buffer pointers, so buffer
 * memory cycles through both. A packet whose virtual ring has no buffer
 * for it waits in its physical queue (docs/evaluation.md §2.1): an overloaded
 * emulated design queues through both rings and drops only at a full
 * physical one. A packet whose destination's reception ring is full is
 * dropped by the library, as emu/ drops it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core.h"
#include "dma.h"
#include "emu_model.h"
#include "engine_int.h"
#include "nic.h"
#include "rxb/shape.h"
#include "stats.h"

/* A physical completion wakes the sleeping emulator core at t. */
static void emumodel_wake(struct sim *s, uint64_t t)
{
	if (!s->emu.sleeping)
		return;
	s->emu.sleeping = false;
	push(s, t > s->emu.t ? t : s->emu.t, EV_EMUCORE, 0);
}

/* The sources that serve dest (shape.h). Dynamic shRing: its private
 * set's, the only one the model gives physical queues. */
static struct rxb_src_range src_range(const struct sim *s, uint32_t dest)
{
	struct rxb_src_range r;

	if (rxb_iface_srcs_of(s->ifc, dest, RXB_DYN_PRIVATE, &r) != 0) {
		fprintf(stderr, "internal error: rxb_iface_srcs_of(dest %u) failed\n", dest);
		exit(1);
	}
	return r;
}

/* Emulated NIC: the physical NIC writes the packet (its RSS hash h, flow
 * fid, destination dest) into the next free buffer of its physical queue,
 * where it waits for the emulator core. A queue without a free buffer is
 * full (every buffer holds a packet the emulator has not taken): the
 * physical NIC drops, cause pipeline — the only drop of the emulated
 * design while the virtual rings are merely full (docs/simulator.md §2.4). */
void emumodel_packet(struct sim *s, struct nic *n, const struct sim_pkt *p, uint64_t t, uint32_t h,
		     uint32_t fid, uint32_t order, uint32_t dest, bool cohort)
{
	struct emumodel *e = &s->emu;
	struct emumodel_pq *f = &e->pq[e->pq_of_dest[dest]];
	uint32_t pq = (uint32_t)(f - e->pq), dma = p->len - SIM_ETH_FCS;
	struct emumodel_pkt *ep;
	uint64_t pa, vis, cnt;

	if (f->n == 0) {
		rxb_iface_drop_pipeline(s->ifc, dest);
		count_drop(s, dest, RXB_DROP_PIPELINE, cohort);
		s->pipeline_phys += cohort;
		return;
	}
	pa = f->a[f->head];
	f->head = (f->head + 1) % f->cap;
	f->n--;
	cnt = s->cq_w[s->nrings + pq];
	vis = dma_complete(s, n, t, pa + s->cfg->scn.arch.headroom_bytes, dma, NULL, 0, 1,
			   s->pcq_base + pq * s->cq_ring_bytes, &cnt);
	s->cq_w[s->nrings + pq] = cnt;
	ws_mark(s, (pa - s->pool_base) / sim_buf_stride(s));
	ep = &f->pkt[(f->pkt_head + f->pkts) % f->cap];
	f->pkts++;
	e->n++;
	if (s->mem.warm && f->pkts > e->occ_max)
		e->occ_max = f->pkts;
	ep->arr = t;
	ep->vis = vis;
	ep->paddr = pa;
	ep->flow = fid;
	ep->order = order;
	ep->key = p->key;
	ep->hash = h;
	ep->dest = dest;
	ep->len = (uint16_t)p->len;
	ep->nic = (uint8_t)n->id;
	ep->cls = p->cls;
	emumodel_wake(s, vis);
}

/* A free physical buffer back into its queue. */
static void buf_put(struct emumodel_pq *f, uint64_t a)
{
	f->a[(f->head + f->n) % f->cap] = a;
	f->n++;
}

enum room { ROOM, WAIT, REFUSE };

/* What the virtual rings do with a packet for dest now (asked before the
 * emulator takes it off its physical queue: a refused rxb_iface_deliver is
 * a drop the library counts, so a packet that must wait cannot be offered).
 * WAIT when the design has no buffer for it (no_rx_desc, no_ax_buf): the
 * real emulator's physical queues only hold buffers it fetched from the
 * virtual rings (emu/emu_nic.c), so there the physical queue runs dry and
 * the physical NIC drops, here the packet stays. REFUSE when its reception
 * ring is full (cr_full, no_bx_slot): emu/ hands the packet to the library,
 * which drops it, and goes on — waiting instead would hold every other
 * core's packets behind it in a shared physical queue (shRing, rxBisect). */
static enum room virtual_room(struct sim *s, uint32_t dest)
{
	enum rxb_drop_cause cause;
	int rc = rxb_iface_nic_room(s->ifc, dest, &cause);

	if (rc < 0) {
		fprintf(stderr, "internal error: rxb_iface_nic_room(dest %u) failed: %d\n", dest,
			rc);
		exit(1);
	}
	if (rc == 0)
		return ROOM;
	return cause == RXB_DROP_NO_RX_DESC || cause == RXB_DROP_NO_AX_BUF ? WAIT : REFUSE;
}

/* The head packet of f through the virtual rings at the emulator's clock:
 * delivered and its buffer swapped, or dropped with the library's cause
 * (virtual_room said REFUSE) and its buffer back in the physical queue. */
static void deliver_head(struct sim *s, struct emumodel_pq *f)
{
	struct emumodel *e = &s->emu;
	struct emumodel_pkt *ep = &f->pkt[f->pkt_head];
	struct rxb_rx_meta m = {
		.len = ep->len - SIM_ETH_FCS, .hash = ep->hash, .dest = ep->dest, .now = e->t
	};
	struct rxb_delivery d;
	int rc;

	sim_note_step(&s->mem, e->t);
	rc = rxb_iface_deliver(s->ifc, &m, &d);
	if (rc < 0) {
		fprintf(stderr, "error: rxb_iface_deliver(dest %u) failed: %d\n", ep->dest, rc);
		exit(1);
	}
	if (rc == 1) {
		count_drop(s, ep->dest, (unsigned)d.drop, ep->arr >= s->warm_ps);
		buf_put(f, ep->paddr);
	} else {
		/* Pointer swap: the handle the virtual ring gave now names the
		 * memory holding the packet; its empty memory refills the
		 * physical queue. */
		buf_put(f, s->addr_of[d.buf]);
		s->addr_of[d.buf] = ep->paddr;
		deliver_done(s, &d, e->t, ep->arr, ep->flow, ep->order, ep->key, ep->len, ep->nic,
			     ep->cls, ep->dest);
	}
	f->pkt_head = (f->pkt_head + 1) % f->cap;
	f->pkts--;
	e->n--;
}

/* The emulator's time for a step of `cost` ps: busy (after warm-up). */
static void spend(struct sim *s, uint64_t cost)
{
	s->emu.t += cost;
	if (s->mem.warm)
		s->emu.busy += cost;
}

enum visit { V_EMPTY, V_SERVED, V_BLOCKED, V_YIELD };

/* One visit of the emulator core to physical queue f, as the emulator's
 * loop polls each of its queues in turn (emu/emu_nic.c, poll_queue): a
 * burst of up to arch.batch packets whose completions are visible, the
 * burst costing emu_batch (poll + doorbell) and each packet emu_pkt. The
 * burst ends at a packet that must wait (virtual_room): it stays at the
 * head of f (its buffer stays taken) until a later visit. A poll that finds
 * only such a packet is a retry: emu_batch, busy. Every step starts within
 * the horizon (docs/simulator.md §1.1), else V_YIELD at the emulator's
 * clock, resumed by the next call (in_burst keeps the burst's count).
 * *next_vis: the earliest completion not yet visible. */
static enum visit visit(struct sim *s, struct emumodel_pq *f, uint64_t now, uint64_t limit,
			uint64_t *next_vis)
{
	struct emumodel *e = &s->emu;

	while (e->in_burst < s->cfg->scn.arch.batch && f->pkts) {
		struct emumodel_pkt *ep = &f->pkt[f->pkt_head];
		uint64_t poll = e->in_burst == 0 ? s->c.emu_batch : 0;

		if (ep->vis > e->t) {
			*next_vis = ep->vis < *next_vis ? ep->vis : *next_vis;
			break;
		}
		if (e->t + poll + s->c.emu_pkt > limit && e->t > now)
			return V_YIELD;
		if (virtual_room(s, ep->dest) == WAIT) {
			if (s->mem.warm)
				e->retries++;
			if (e->in_burst)
				break;
			spend(s, poll);
			return V_BLOCKED;
		}
		spend(s, poll + s->c.emu_pkt);
		if (s->mem.warm)
			e->pkts++;
		e->in_burst++;
		deliver_head(s, f);
	}
	return e->in_burst ? V_SERVED : V_EMPTY;
}

/* The emulator core from time `now`: passes over its physical queues
 * (visit). A pass that delivers nothing ends the call: with a packet
 * blocked by its virtual ring, the core spins — it polls again one loop
 * period (loop_ps) after the pass began, one event per period however
 * long the rings stay full; with packets whose completions are not yet
 * visible, it waits for the first; with none, it sleeps until
 * emumodel_packet wakes it. */
void ev_emucore(struct sim *s, uint64_t now)
{
	struct emumodel *e = &s->emu;
	uint64_t limit = now + s->mem.horizon_ps;

	if (e->t < now)
		e->t = now;
	e->sleeping = false;
	for (;;) {
		uint64_t start = e->t, next_vis = UINT64_MAX;
		bool served = false, blocked = false;

		for (uint32_t k = 0; k < e->npq; k++) {
			enum visit v = visit(s, &e->pq[e->rr], now, limit, &next_vis);

			if (v == V_YIELD) {
				push(s, e->t, EV_EMUCORE, 0);
				return;
			}
			served |= v == V_SERVED;
			blocked |= v == V_BLOCKED;
			e->in_burst = 0;
			e->rr = (e->rr + 1) % e->npq;
		}
		if (served)
			continue;
		if (blocked) {
			if (e->t < start + e->loop_ps)
				e->t = start + e->loop_ps;
			push(s, e->t, EV_EMUCORE, 0);
			return;
		}
		if (next_vis == UINT64_MAX) {
			e->sleeping = true;
			return;
		}
		if (next_vis > limit) {
			push(s, next_vis, EV_EMUCORE, 0);
			return;
		}
		e->t = next_vis;
	}
}

/* The physical queue of each destination (one per range of sources that
 * serve it: per core, per shared ring, or per rxBisect association set),
 * how many there are (*npq) and how many buffers each holds (*cap): as many
 * as the range's sources have descriptors together (rxBisect: the set's Ax
 * rings). A batched RxList descriptor counts once, whatever its buffer
 * slots. The scenario makes every range as large (share degree and
 * association groups divide the cores). */
static void phys_queues(struct sim *s, uint32_t *npq, uint32_t *cap)
{
	struct rxb_iface_config ic;
	struct rxb_iface_shape sh;
	struct rxb_err err;

	rxb_scn_iface_config(&s->cfg->scn, 0, 1.0, &ic);
	if (rxb_iface_shape(&ic, &sh, &err) != 0) {
		fprintf(stderr, "internal error: the emulator's physical queues: %s\n", err.msg);
		exit(1);
	}
	s->emu.pq_of_dest = sim_xcalloc(sh.n_dests, sizeof(*s->emu.pq_of_dest));
	*npq = 0;
	for (uint32_t dest = 0; dest < sh.n_dests; dest++) {
		s->emu.pq_of_dest[dest] = src_range(s, dest).group;
		if (s->emu.pq_of_dest[dest] >= *npq)
			*npq = s->emu.pq_of_dest[dest] + 1;
	}
	*cap = src_range(s, 0).n * (sh.src_buffers / (ic.rxlist_slots ? ic.rxlist_slots : 1));
}

uint64_t emumodel_setup(struct sim *s, uint64_t extra_base)
{
	const struct sim_cfg *cfg = s->cfg;
	struct emumodel *e = &s->emu;
	uint32_t cap;
	uint64_t slot = 0;

	e->sleeping = true;
	phys_queues(s, &e->npq, &cap);
	e->fifo = sim_xcalloc((size_t)e->npq * cap, sizeof(*e->fifo));
	e->pq = sim_xcalloc(e->npq, sizeof(*e->pq));
	for (uint32_t q = 0; q < e->npq; q++) {
		struct emumodel_pq *f = &e->pq[q];

		f->cap = cap;
		f->pkt = e->fifo + (uint64_t)q * cap;
		f->a = sim_xcalloc(f->cap, sizeof(*f->a));
		for (uint32_t j = 0; j < f->cap; j++, slot++)
			f->a[j] = extra_base + slot * sim_buf_stride(s) + sim_buf_offset(s);
		f->n = f->cap;
	}
	/* The retry interval: one pass of the emulator's loop over its queues
	 * when every poll finds nothing it can deliver. An empty poll is
	 * charged as the calibrated per-burst cost (emu_per_batch: physical
	 * poll + doorbell; an upper bound for a poll that returns nothing);
	 * at least 1 ns, so a zero calibration cannot spin without time. */
	e->loop_ps = (uint64_t)e->npq * s->c.emu_batch;
	if (e->loop_ps < 1000)
		e->loop_ps = 1000;
	s->addr_of = sim_xcalloc(cfg->scn.arch.pool_buffers, sizeof(*s->addr_of));
	for (uint32_t b = 0; b < cfg->scn.arch.pool_buffers; b++)
		s->addr_of[b] = s->pool_base + (uint64_t)b * sim_buf_stride(s) + sim_buf_offset(s);
	return slot;
}

/* ------------------------------------------------------------ stats */

/* "emulator" (arch.emulated only): its core's load, its physical queues. */
void emumodel_stats(const struct sim *s, json_t *m, double T)
{
	const struct emumodel *e = &s->emu;

	if (!s->cfg->scn.arch.emulated)
		return;
	/* every physical queue has the same depth */
	jset(m, "emulator",
	     json_pack("{s:o,s:I,s:o,s:I,s:I,s:I}", "busy_fraction",
		       jfrac((double)e->busy / (T * 1e12)), "packets", (json_int_t)e->pkts,
		       "ns_per_packet", jnum((double)s->c.emu_pkt / 1e3), "physical_occupancy_max",
		       (json_int_t)e->occ_max, "physical_queue_depth", (json_int_t)e->pq[0].cap,
		       "retries", (json_int_t)e->retries));
}

/* Buffers the physical queues hold now (their share of the working set). */
uint64_t emumodel_posted(const struct sim *s)
{
	uint64_t posted = 0;

	for (uint32_t q = 0; q < s->emu.npq; q++)
		posted += s->emu.pq[q].n;
	return posted;
}
