/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The simulator's model of the emulator (arch.emulated, docs/simulator.md
 * §2.4) — not the emulator itself, which is emu/. The physical NIC writes
 * a packet into the next buffer of its physical queue; the emulator core,
 * a FIFO server with calibrated costs, delivers it to the virtual rings
 * and swaps buffer pointers, so buffer memory cycles through both.
 */
#include <stdio.h>
#include <stdlib.h>

#include "engine_int.h"

/* A physical completion wakes the sleeping emulator core at t. */
static void emumodel_wake(struct sim *s, uint64_t t)
{
	if (s->emu.state != CS_SLEEP)
		return;
	s->emu.state = CS_SCHED;
	push(s, t > s->emu.t ? t : s->emu.t, EV_EMUCORE, 0);
}

/* The physical queue a destination's packets land in: per core, per
 * shared ring, or per rxBisect association set. */
static uint32_t phys_queue(const struct sim *s, uint32_t dest)
{
	switch (s->arch) {
	case RXB_ARCH_SHRING:
	case RXB_ARCH_SHRING_LIST:
		return dest / s->cfg->scn.arch.share_degree;
	case RXB_ARCH_RXBISECT: /* the physical queue of dest's association set */
		return dest / (s->cfg->scn.system.cores / rxb_scn_assoc_groups(&s->cfg->scn));
	default:
		return dest;
	}
}

/* Emulated NIC: the physical NIC writes the packet (its RSS hash h, flow
 * fid, destination dest) into the next buffer of its physical queue and
 * the emulator core takes it from there. */
void emumodel_packet(struct sim *s, struct nic *n, const struct sim_pkt *p, uint64_t t,
		     uint32_t h, uint32_t fid, uint32_t dest, bool cohort)
{
	struct emumodel *e = &s->emu;
	uint32_t pq = phys_queue(s, dest), dma = p->len - SIM_ETH_FCS;
	struct addr_fifo *f = &e->pq[pq];
	struct emumodel_pkt *ep;
	uint64_t pa, vis, cnt;

	if (f->n == 0 || e->n == e->cap) { /* emulator behind: physical ring empty */
		rxb_iface_drop_pipeline(s->ifc, dest);
		count_drop(s, dest, RXB_DROP_PIPELINE, cohort);
		s->pipeline_phys += cohort;
		return;
	}
	pa = f->a[f->head];
	f->head = (f->head + 1) % f->cap;
	f->n--;
	cnt = s->cq_w[s->nrings + pq];
	vis = dma_complete(s, n, t, pa + s->cfg->scn.arch.headroom_bytes, dma, NULL, 0, 1, 0, 0,
			   s->pcq_base + pq * s->cq_ring_bytes, &cnt);
	s->cq_w[s->nrings + pq] = cnt;
	ws_mark(s, (pa - s->pool_base) / s->cfg->scn.arch.buffer_bytes);
	ep = &e->fifo[(e->head + e->n) % e->cap];
	e->n++;
	ep->arr = t;
	ep->vis = vis;
	ep->paddr = pa;
	ep->flow = fid;
	ep->key = p->key;
	ep->hash = h;
	ep->dest = dest;
	ep->pq = pq;
	ep->len = (uint16_t)p->len;
	ep->nic = (uint8_t)n->id;
	ep->cls = p->cls;
	emumodel_wake(s, vis);
}

/* A free physical buffer back into its queue. */
static void addr_fifo_put(struct addr_fifo *f, uint64_t a)
{
	f->a[(f->head + f->n) % f->cap] = a;
	f->n++;
}

/* The emulator core from time `now`: a FIFO server that delivers each
 * packet to the virtual rings once its physical completion is visible and
 * its cost paid, within the horizon; asleep when its FIFO is empty. */
void ev_emucore(struct sim *s, uint64_t now)
{
	struct emumodel *e = &s->emu;
	uint64_t limit = now + s->horizon_ps;

	if (e->t < now)
		e->t = now;
	e->state = CS_SCHED;
	while (e->n) {
		struct emumodel_pkt *ep = &e->fifo[e->head];
		struct rxb_rx_meta m = { .len = ep->len - SIM_ETH_FCS, .hash = ep->hash,
					 .dest = ep->dest };
		struct rxb_delivery d;
		uint64_t cost = s->c.emu_pkt + (e->in_batch == 0 ? s->c.emu_batch : 0);
		int rc;

		if (ep->vis > e->t) {
			if (ep->vis > limit) {
				push(s, ep->vis, EV_EMUCORE, 0);
				return;
			}
			e->t = ep->vis;
		}
		/* The time rule: the delivery (after this packet's cost) must
		 * fall within the horizon; else resume there. */
		if (e->t + cost > limit && e->t > now) {
			push(s, e->t, EV_EMUCORE, 0);
			return;
		}
		e->in_batch = (e->in_batch + 1) % s->cfg->scn.arch.batch;
		e->t += cost;
		if (s->warm) {
			e->busy += cost;
			e->pkts++;
		}
		m.now = e->t;
		sim_note_step(s, e->t);
		rc = rxb_iface_deliver(s->ifc, &m, &d);
		if (rc < 0) {
			fprintf(stderr, "error: rxb_iface_deliver(dest %u) failed: %d\n", ep->dest, rc);
			exit(1);
		}
		if (rc == 1) {
			count_drop(s, ep->dest, (unsigned)d.drop, ep->arr >= s->warm_ps);
			addr_fifo_put(&e->pq[ep->pq], ep->paddr);
		} else {
			/* Pointer swap: the handle the virtual ring gave now names
			 * the memory holding the packet; its empty memory refills
			 * the physical queue. */
			addr_fifo_put(&e->pq[ep->pq], s->addr_of[d.buf]);
			s->addr_of[d.buf] = ep->paddr;
			deliver_done(s, &d, e->t, ep->arr, ep->flow, ep->key, ep->len, ep->nic,
				     ep->cls, ep->dest);
		}
		e->head = (e->head + 1) % e->cap;
		e->n--;
	}
	e->in_batch = 0;
	e->state = CS_SLEEP;
}

/* How many physical queues (*npq) of how many buffers (*cap) the emulator
 * has. */
static void phys_queues(const struct sim *s, uint32_t *npq, uint32_t *cap)
{
	const struct sim_cfg *cfg = s->cfg;

	switch (s->arch) {
	case RXB_ARCH_SHRING:
	case RXB_ARCH_SHRING_LIST:
		*npq = cfg->scn.system.cores / cfg->scn.arch.share_degree;
		*cap = cfg->scn.arch.rx_size;
		break;
	case RXB_ARCH_RXBISECT:
		/* as the emulator: one shared physical queue per association set,
		 * as deep as the set's Ax rings together */
		*npq = rxb_scn_assoc_groups(&cfg->scn);
		*cap = cfg->scn.system.cores / *npq * cfg->scn.arch.ax_size;
		break;
	default:
		*npq = cfg->scn.system.cores;
		*cap = cfg->scn.arch.rx_size;
	}
}

/* The physical queues, filled ahead of time with an extra region of
 * buffers from extra_base on, and the handle -> memory table the pointer
 * swaps rewrite. Returns the number of extra buffers. */
uint64_t emumodel_setup(struct sim *s, uint64_t extra_base)
{
	const struct sim_cfg *cfg = s->cfg;
	struct emumodel *e = &s->emu;
	uint32_t cap;
	uint64_t slot = 0;

	e->state = CS_SLEEP;
	phys_queues(s, &e->npq, &cap);
	e->pq = sim_xcalloc(e->npq, sizeof(*e->pq));
	for (uint32_t q = 0; q < e->npq; q++) {
		struct addr_fifo *f = &e->pq[q];

		f->cap = cap;
		f->a = sim_xcalloc(f->cap, sizeof(*f->a));
		for (uint32_t j = 0; j < f->cap; j++, slot++)
			f->a[j] = extra_base + slot * cfg->scn.arch.buffer_bytes;
		f->n = f->cap;
		e->cap += f->cap;
	}
	e->fifo = sim_xcalloc(e->cap, sizeof(*e->fifo));
	s->addr_of = sim_xcalloc(cfg->scn.arch.pool_buffers, sizeof(*s->addr_of));
	for (uint32_t b = 0; b < cfg->scn.arch.pool_buffers; b++)
		s->addr_of[b] = s->pool_base + (uint64_t)b * cfg->scn.arch.buffer_bytes;
	return slot;
}

