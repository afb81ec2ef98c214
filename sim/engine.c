/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The simulator core: see engine.h for the event structure and
 * docs/simulator.md for every mechanism and parameter.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"
#include "overload.h"
#include "rxb/privring.h"
#include "rxb/shring.h"
#include "rxb/spool.h"

#define HUGE_ALIGN (2ull << 20)
#define HORIZON_PS (1000ull * PS_PER_NS)     /* core may run 1 µs ahead of the event clock */
#define OCC_PERIOD_PS (10000ull * PS_PER_NS) /* ring occupancy sampled every 10 µs */
#define ALLOC_RETRY_PS (1000ull * PS_PER_NS) /* a core refused by the allocator retries */
#define IVAL_SCRATCH 4096u

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t cyc_ps(const struct sim_cfg *c, double cycles)
{
	return (uint64_t)llround(cycles * 1000.0 / c->freq_ghz);
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz);

	if (p == NULL) {
		fprintf(stderr, "error: out of memory (%zu x %zu bytes)\n", n, sz);
		exit(RXB_EXIT_NOMEM);
	}
	return p;
}

/* Schedule the event (type, arg): every source has one slot, holding at
 * most one pending event. */
static inline void push(struct sim *s, uint64_t t, uint32_t type, uint32_t arg)
{
	sim_evq_set(&s->evq, s->slot_base[type] + arg, t);
}

/* ------------------------------------------------------------ memory */

/* An access issued more than the horizon ahead of the event clock: the
 * time rule broken. Every step checks its start against the horizon
 * (docs/simulator.md §1.1), a network function's too (one dependent access
 * or one wave a step), so nothing should come here: counted for the tests
 * (lead_over and max_ahead_ps stay 0) and fatal in debug builds. Out of
 * line: the check costs the hot path one comparison. */
static __attribute__((noinline, cold)) void over_horizon(struct sim *s, uint64_t t)
{
	s->lead_over++;
	if (t - s->now > s->max_ahead_ps)
		s->max_ahead_ps = t - s->now;
#ifdef RXB_DEBUG
	fprintf(stderr, "sim: memory access at %llu ps, %llu ps ahead of the event clock "
		"(horizon %llu ps): a step was not checked against the horizon\n",
		(unsigned long long)t, (unsigned long long)(t - s->now),
		(unsigned long long)s->horizon_ps);
	abort();
#endif
}

/* Independent accesses, at most mlp outstanding: returns the stall (ps).
 * Wave by wave, each at the time it is issued (t, then t + the waves
 * before it): its traffic counts in the DRAM window of that time and its
 * misses see that window's latency. */
static uint64_t sim_mem_par(struct sim *s, uint64_t t, const struct acc *a, unsigned n)
{
	uint32_t mlp = s->cfg->scn.system.mlp;
	uint64_t total = 0;

	for (unsigned j0 = 0; j0 < n; j0 += mlp) {
		unsigned end = n - j0 < mlp ? n : j0 + mlp;
		uint64_t tw = t + total, wmax = 0, rd = 0, wr = 0, dlat;

		if (tw > s->lim)
			over_horizon(s, tw);
		sim_dram_account(&s->dram, tw, 0, 0); /* close finished windows first */
		dlat = sim_dram_latency_ps(&s->dram);
		for (unsigned j = j0; j < end; j++) {
			uint64_t lat;

			if (a[j].cls == ACC_FIXED) {
				lat = a[j].addr;
			} else {
				uint32_t f = sim_llc_access(&s->llc, a[j].cls,
							    (enum sim_llc_op)a[j].op, a[j].addr);
				uint64_t miss = (f & SIM_LLC_HIT) ^ 1;

				/* selects, not branches: the outcome is random */
				lat = miss ? dlat : s->c.llc_hit;
				s->dram_lat_sum += dlat & -miss;
				s->dram_lat_n += miss;
				rd += f / SIM_LLC_DRAM_RD & 1;
				wr += f / SIM_LLC_DRAM_WR & 1;
			}
			wmax = lat > wmax ? lat : wmax;
		}
		sim_dram_add(&s->dram, rd * SIM_LLC_LINE, wr * SIM_LLC_LINE);
		total += wmax;
	}
	return total;
}

/* One access (a dependent step of a chain): its latency (ps), with its
 * DRAM traffic accounted at time t (sim_mem_par of one access). */
static inline uint64_t sim_mem_one(struct sim *s, uint64_t t, unsigned cls, enum sim_llc_op op,
				   uint64_t addr)
{
	uint64_t lat, miss, dlat;
	uint32_t f;

	if (t > s->lim)
		over_horizon(s, t);
	sim_dram_account(&s->dram, t, 0, 0); /* close finished windows first */
	dlat = sim_dram_latency_ps(&s->dram);
	f = sim_llc_access(&s->llc, cls, op, addr);
	/* Selects, not branches: hit or miss is random. Adding zero bytes to
	 * the window is a no-op (its windows are closed up to t already). */
	miss = (f & SIM_LLC_HIT) ^ 1;
	lat = miss ? dlat : s->c.llc_hit;
	s->dram_lat_sum += dlat & -miss;
	s->dram_lat_n += miss;
	sim_dram_add(&s->dram, (f / SIM_LLC_DRAM_RD & 1) * SIM_LLC_LINE,
		     (f / SIM_LLC_DRAM_WR & 1) * SIM_LLC_LINE);
	return lat;
}

/* A core, hog or the emulator starts a step that touches a shared resource
 * (memory, a lock, the library's rings) at its local time t (for the
 * statistic max_lead_ps, taken when the event clock moves). */
static inline void sim_note_step(struct sim *s, uint64_t t)
{
	s->step_hi = t > s->step_hi ? t : s->step_hi;
}

/* Address of the memory of buffer handle b (pool base + b × buffer bytes;
 * the emulator's pointer swaps remap it). */
static inline uint64_t sim_buf_addr(const struct sim *s, rxb_buf_t b)
{
	if (s->addr_of)
		return s->addr_of[b];
	return s->pool_base + b * (uint64_t)s->cfg->scn.arch.buffer_bytes;
}

/* The event clock moves to t: the lead of the steps made since it last
 * moved is known (max_lead_ps). Steps start at or after the event clock,
 * so step_hi >= now. */
static inline void set_now(struct sim *s, uint64_t t)
{
	uint64_t l = s->step_hi - s->now;

	s->max_lead_ps = l > s->max_lead_ps ? l : s->max_lead_ps;
	s->step_hi = t;
	s->now = t;
	s->lim = t + s->horizon_ps;
}

/* ---------------------------------------------------------- steering */

static inline uint32_t pkt_hash(const struct sim *s, const struct sim_pkt *p)
{
	if (p->l3 == 0)
		return 0; /* not IP: the NIC computes no hash (RETA entry 0) */
	if (p->proto == 6 || p->proto == 17 || p->proto == 132)
		return rxb_rss_ipv4_l4(&s->rss, p->sip, p->dip, p->sport, p->dport);
	return rxb_rss_ipv4(&s->rss, p->sip, p->dip);
}

/* Queue of a hash within a NIC: a core of the NIC, or a representor port. */
static inline uint32_t steer_local(const struct sim *s, const struct nic *n, uint32_t h)
{
	if (s->arch == RXB_ARCH_SPOOL)
		return (uint32_t)(((uint64_t)h * s->cfg->scn.arch.spool_ports) >> 32);
	return rxb_reta_lookup(&n->reta, h);
}

static uint32_t gen_queue_of(void *ctx, const struct sim_pkt *p)
{
	const struct nic *n = ctx;

	return steer_local(n->s, n, pkt_hash(n->s, p));
}

static inline uint32_t flow_id(const struct sim_pkt *p)
{
	uint64_t a = ((uint64_t)p->sip << 32) | p->dip;
	uint64_t b = ((uint64_t)p->sport << 24) | ((uint64_t)p->dport << 8) | p->proto;

	return (uint32_t)(sim_mix64(a ^ sim_mix64(b + 0x1234567ull)) >> 32);
}

/* Checksum of the offered 5-tuples (order-independent sum; the Python
 * tests recompute it): Σ mix64((sip << 32 | dip) ^ mix64(sport << 24 |
 * dport << 8 | proto)) mod 2^64. */
static inline uint64_t tuple_sum(const struct sim_pkt *p)
{
	uint64_t a = ((uint64_t)p->sip << 32) | p->dip;
	uint64_t b = ((uint64_t)p->sport << 24) | ((uint64_t)p->dport << 8) | p->proto;

	return sim_mix64(a ^ sim_mix64(b));
}

/* Which reception ring's CQ memory a destination's entries go to. */
static inline uint32_t cq_ring(const struct sim *s, uint32_t dest)
{
	return s->arch == RXB_ARCH_SPOOL ? rxb_spool_queue_of(rxb_iface_spool(s->ifc), dest) : dest;
}

/* x mod n for an x that is usually already below n (no division then). */
static inline uint32_t mod_small(uint32_t x, uint32_t n)
{
	return x < n ? x : x % n;
}

static inline uint32_t ring_core(const struct sim *s, uint32_t dest)
{
	return mod_small(cq_ring(s, dest), s->ncores);
}

/* Address of the next entry of a completion ring whose position (mod
 * cq_entries) is *pos, which advances. */
static inline uint64_t cq_next(const struct sim *s, uint64_t base, uint64_t *pos)
{
	uint64_t a = base + *pos * (uint64_t)s->cfg->cqe_bytes;

	if (++*pos == s->cq_entries)
		*pos = 0;
	return a;
}

static inline uint64_t cq_ring_base(const struct sim *s, uint32_t ring)
{
	return s->cq_base + ring * s->cq_ring_bytes;
}

static inline uint64_t tlp_bytes(const struct sim *s, uint64_t payload)
{
	uint64_t mps = s->cfg->mps_bytes;

	return payload + (payload + mps - 1) / mps * s->cfg->tlp_overhead_bytes;
}

/* tlp_bytes of a packet's DMA (the last size seen is remembered). */
static inline uint64_t tlp_data(struct sim *s, uint32_t dma)
{
	if (dma != s->tlp_memo_len) {
		s->tlp_memo_len = dma;
		s->tlp_memo = tlp_bytes(s, dma);
	}
	return s->tlp_memo;
}

/* llround(x) for 0 <= x < 2^63: x − trunc(x) is exact, so this rounds
 * half away from zero exactly as llround does. */
static inline uint64_t round_pos(double x)
{
	uint64_t r = (uint64_t)x;

	return r + (x - (double)r >= 0.5);
}

static inline void ws_mark(struct sim *s, uint64_t slot)
{
	uint64_t bit = 1ull << (slot & 63);

	if (slot < s->ws_slots && !(s->ws_bits[slot >> 6] & bit)) {
		s->ws_bits[slot >> 6] |= bit;
		s->ws_count++;
	}
}

static inline void count_drop(struct sim *s, uint32_t dest, unsigned cause, bool cohort)
{
	s->cur.drops++;
	if (!cohort)
		return;
	s->dropped[cause]++;
	s->dst[dest].drops[cause]++;
}

/* ------------------------------------------------------------- cores */

static void wake(struct sim *s, uint32_t c, uint64_t t)
{
	struct core *k = &s->core[c];

	if (k->state != CS_SLEEP)
		return;
	k->state = CS_SCHED;
	push(s, t > k->t ? t : k->t, EV_CORE, c);
}

static void emu_wake(struct sim *s, uint64_t t)
{
	if (s->emu.state != CS_SLEEP)
		return;
	s->emu.state = CS_SCHED;
	push(s, t > s->emu.t ? t : s->emu.t, EV_EMU, 0);
}

/* Descriptors fetched so far for a destination (both ring sets of a
 * dynamic shRing, so the count only grows). */
static uint64_t dest_fetched(struct sim *s, uint32_t dest)
{
	if (s->arch == RXB_ARCH_DYN_SHRING)
		return rxb_counter_read(&rxb_privring_nic_stats(rxb_iface_privring(s->ifc), dest)
						 ->c[RXB_NIC_DESC_FETCHED]) +
		       rxb_counter_read(&rxb_shring_nic_stats(rxb_iface_shring(s->ifc), dest)
						 ->c[RXB_NIC_DESC_FETCHED]);
	return rxb_counter_read(&rxb_iface_nic_stats(s->ifc, dest)->c[RXB_NIC_DESC_FETCHED]);
}

/* A completed delivery: the data and completion DMA writes through PCIe
 * and the LLC; returns when the completion is visible to the core. */
static uint64_t dma_complete(struct sim *s, struct nic *n, uint64_t t, uint64_t addr,
			     uint32_t dma, const uint32_t *rings, unsigned nring, unsigned nc,
			     unsigned desc_reads, uint64_t fetched, uint64_t cq_base_override,
			     uint64_t *cq_counter)
{
	const struct sim_cfg *cfg = s->cfg;
	struct sim_llc_range r = { 0 };
	uint64_t wr_lines, up, down, start, vis, dlat;
	bool missed, ddio = cfg->scn.system.ddio_ways > 0;

	if (ddio) {
		sim_llc_access_range(&s->llc, n->cls_wr, SIM_LLC_WR, addr, dma, &r);
		wr_lines = r.dram_wr;
		missed = r.hits < r.lines;
	} else {
		wr_lines = sim_llc_dma_write_noalloc(&s->llc, addr, dma);
		missed = true;
	}
	for (unsigned j = 0; j < nc; j++) {
		uint64_t ca;

		if (cq_counter) {
			ca = cq_next(s, cq_base_override, cq_counter);
		} else {
			uint32_t ring = cq_ring(s, rings[j < nring ? j : 0]);

			ca = cq_next(s, cq_ring_base(s, ring), &s->cq_w[ring]);
		}
		if (ddio)
			wr_lines += (sim_llc_access(&s->llc, s->cls_cq, SIM_LLC_WR, ca) &
				     SIM_LLC_DRAM_WR) != 0;
		else
			wr_lines += sim_llc_dma_write_noalloc(&s->llc, ca, cfg->cqe_bytes);
	}
	sim_dram_account(&s->dram, t, 0, wr_lines * SIM_LLC_LINE);
	dlat = sim_dram_latency_ps(&s->dram);
	/* PCIe, NIC -> host: data and completion writes, descriptor read
	 * requests (a header each); host -> NIC: the descriptors read. */
	up = tlp_data(s, dma) + nc * s->tlp_cqe + (uint64_t)desc_reads * cfg->tlp_overhead_bytes;
	down = fetched * cfg->desc_bytes + (uint64_t)desc_reads * cfg->tlp_overhead_bytes;
	start = n->up_free > t ? n->up_free : t;
	if (up != s->up_memo) {
		s->up_memo = up;
		s->up_memo_ps = round_pos((double)up * s->c.pcie_ps_per_byte);
	}
	n->up_free = start + s->up_memo_ps;
	/* The completion is visible once the data and the completion have
	 * crossed PCIe and the DMA latency has passed; a write that missed the
	 * LLC (or any write with DDIO off) waits for DRAM as well. Posted
	 * writes are ordered, so completions of one NIC appear in order. */
	vis = n->up_free + s->c.dma_write + (missed ? dlat : 0);
	if (vis < n->last_vis)
		vis = n->last_vis;
	n->last_vis = vis;
	if (s->warm) {
		n->up_bytes += up;
		n->down_bytes += down;
	}
	s->cur.nic_wr += r.lines;
	s->cur.nic_hit += r.hits;
	return vis;
}

static void deliver_done(struct sim *s, const struct rxb_delivery *d, uint64_t vis,
			 uint64_t arr, uint32_t flow, uint32_t key, uint32_t len, uint8_t nic,
			 uint8_t cls, uint32_t dest)
{
	struct pinfo *pi = &s->pinfo[d->buf];

	pi->arr = arr;
	pi->vis = vis;
	pi->flow = flow;
	pi->key = key;
	pi->dest = dest;
	pi->len = (uint16_t)len;
	pi->nic = nic;
	pi->cls = cls;
	wake(s, ring_core(s, d->ring), vis);
	if (d->notify_ring != RXB_NONE)
		wake(s, ring_core(s, d->notify_ring), vis);
}

/* Emulated NIC: the physical NIC writes into the next buffer of the
 * packet's physical queue and the emulator core takes it from there. */
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

static void emu_phys_packet(struct sim *s, struct nic *n, const struct sim_pkt *p, uint64_t t,
			    uint32_t h, uint32_t fid, uint32_t dest, bool cohort)
{
	struct emu *e = &s->emu;
	uint32_t pq = phys_queue(s, dest), dma = p->len - SIM_ETH_FCS;
	struct addr_fifo *f = &e->pq[pq];
	struct emu_pkt *ep;
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
	emu_wake(s, vis);
}

static void addr_fifo_put(struct addr_fifo *f, uint64_t a)
{
	f->a[(f->head + f->n) % f->cap] = a;
	f->n++;
}

/* RSS hash and flow identity of a packet: memoized per generated flow id
 * (a trace's packets carry no id: computed every time). */
static inline void pkt_ids(struct sim *s, struct nic *n, const struct sim_pkt *p, uint32_t *h,
			   uint32_t *fid)
{
	uint32_t id = p->flow;
	struct sim_pkt full;

	if (n->memo == NULL || id >= n->nmemo) {
		if (n->gen.cfg.lazy_tuple) { /* the generator left the tuple to us */
			full = *p;
			sim_flow_tuple(n->gen.tuple_seed, id, p->proto, &full);
			p = &full;
		}
		*h = pkt_hash(s, p);
		*fid = flow_id(p);
		return;
	}
	if (!(n->hvalid[id >> 6] >> (id & 63) & 1)) {
		if (n->gen.cfg.lazy_tuple) {
			full = *p;
			sim_flow_tuple(n->gen.tuple_seed, id, p->proto, &full);
			p = &full;
		}
		n->memo[id].h = pkt_hash(s, p);
		n->memo[id].fid = flow_id(p);
		n->hvalid[id >> 6] |= 1ull << (id & 63);
	}
	*h = n->memo[id].h;
	*fid = n->memo[id].fid;
}

/* The NIC receives a packet at time t. */
static void nic_packet(struct sim *s, struct nic *n, const struct sim_pkt *p, uint64_t t)
{
	const struct sim_cfg *cfg = s->cfg;
	uint32_t h, fid, dma = p->len - SIM_ETH_FCS;
	uint32_t dest;
	bool cohort = t >= s->warm_ps;
	struct rxb_rx_meta m = { .len = dma, .now = t };
	struct rxb_delivery d;
	uint64_t start, backlog, fetched, vis;
	uint32_t rings[2];
	int rc;

	pkt_ids(s, n, p, &h, &fid);
	dest = steer_local(s, n, h) + (s->arch == RXB_ARCH_SPOOL ? 0 : n->first_core);
	m.hash = h;
	m.dest = dest;

	s->arrivals_total++;
	if (s->pcap)
		s->trace_sum += tuple_sum(p);
	s->cur.arrivals++;
	if (cohort) {
		s->offered++;
		s->offered_wire_bytes += sim_wire_bytes(p->len);
		s->dst[dest].offered++;
	}
	/* The on-NIC packet buffer holds what waits for PCIe. */
	start = n->up_free > t ? n->up_free : t;
	backlog = start > t ? (uint64_t)((double)(start - t) / s->c.pcie_ps_per_byte) : 0;
	if (backlog + dma > s->nicbuf_bytes) {
		rxb_iface_drop_pipeline(s->ifc, dest);
		count_drop(s, dest, RXB_DROP_PIPELINE, cohort);
		s->pipeline_nicbuf += cohort;
		return;
	}
	if (cfg->scn.arch.emulated) {
		emu_phys_packet(s, n, p, t, h, fid, dest, cohort);
		return;
	}
	rc = rxb_iface_deliver(s->ifc, &m, &d);
	if (rc < 0) {
		fprintf(stderr, "error: rxb_iface_deliver(dest %u) failed: %d\n", dest, rc);
		exit(1);
	}
	if (rc == 1) {
		count_drop(s, dest, (unsigned)d.drop, cohort);
		return;
	}
	rings[0] = d.ring;
	rings[1] = d.notify_ring;
	fetched = 0;
	if (d.desc_reads) { /* descriptors this delivery's fetch brought in */
		uint64_t f = dest_fetched(s, dest);

		fetched = f - s->fetched_seen[dest];
		s->fetched_seen[dest] = f;
	}
	vis = dma_complete(s, n, t, sim_buf_addr(s, d.buf) + cfg->scn.arch.headroom_bytes, dma, rings,
			   d.notify_ring != RXB_NONE ? 2 : 1, d.cmpl_writes ? d.cmpl_writes : 1,
			   d.desc_reads, fetched, 0, NULL);
	ws_mark(s, d.buf);
	deliver_done(s, &d, vis, t, fid, p->key, p->len, (uint8_t)n->id, p->cls, dest);
}

static void ev_emu(struct sim *s, uint64_t now)
{
	struct emu *e = &s->emu;
	uint64_t limit = now + s->horizon_ps;

	if (e->t < now)
		e->t = now;
	e->state = CS_SCHED;
	while (e->n) {
		struct emu_pkt *ep = &e->fifo[e->head];
		struct rxb_rx_meta m = { .len = ep->len - SIM_ETH_FCS, .hash = ep->hash,
					 .dest = ep->dest };
		struct rxb_delivery d;
		uint64_t cost = s->c.emu_pkt + (e->in_batch == 0 ? s->c.emu_batch : 0);
		int rc;

		if (ep->vis > e->t) {
			if (ep->vis > limit) {
				push(s, ep->vis, EV_EMU, 0);
				return;
			}
			e->t = ep->vis;
		}
		/* The time rule: the delivery (after this packet's cost) must
		 * fall within the horizon; else resume there. */
		if (e->t + cost > limit && e->t > now) {
			push(s, e->t, EV_EMU, 0);
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

/* Take lock `r` at t0 for `hold` (plus a line transfer when another core
 * held it last): returns the time spent, waiting included; *wait gets the
 * wait. A hold that fits entirely before the latest recorded one does not
 * wait for it (cores' clocks may be up to the horizon apart). */
static uint64_t res_take(struct sim *s, struct res *r, uint32_t core, uint64_t t0, uint64_t hold,
			 uint64_t *wait)
{
	uint64_t startt;

	sim_note_step(s, t0);
	hold += r->last != core ? s->c.xfer : 0;
	startt = (t0 + hold <= r->from || t0 >= r->to) ? t0 : r->to;
	if (startt >= r->to) {
		r->from = startt;
		r->to = startt + hold;
	}
	r->last = core;
	*wait = startt - t0;
	return *wait + hold;
}

/* Allocator cycles from the pool's counters: objects through the cache,
 * bulk moves under the shared pool's lock (a contended resource). */
static void charge_alloc(struct sim *s, struct core *k)
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

		ps += res_take(s, &s->plock, k->id, k->t + ps,
			       bulk * s->c.alloc_bulk + shobj * s->c.alloc_shobj, &wait);
		if (s->warm)
			s->plock_wait += wait;
	}
	k->t += ps;
	k->cost.alloc += ps;
}

static inline uint64_t sw_read(const struct rxb_sw_stats *st, enum rxb_sw_counter c)
{
	return st ? rxb_counter_read(&st->c[c]) : 0;
}

/* The library's software counters of queue q that the costs follow. */
struct swsnap {
	uint64_t db, notices, afail, lock, ors, ret;
};

/* The library's counters of queue q: *sw its software side (NULL for the
 * shRing designs), *shs its shared-ring side (shRing designs, dynamic
 * shRing; else NULL). The pointers stay valid for the interface's life. */
static void sw_stats_of(struct sim *s, uint32_t q, const struct rxb_sw_stats **swp,
			const struct rxb_sw_stats **shsp)
{
	const struct rxb_sw_stats *sw = rxb_iface_sw_stats(s->ifc, q), *shs = NULL;

	if (s->arch == RXB_ARCH_DYN_SHRING)
		shs = rxb_shring_sw_stats(rxb_iface_shring(s->ifc), q);
	else if (s->arch == RXB_ARCH_SHRING || s->arch == RXB_ARCH_SHRING_LIST)
		shs = sw, sw = NULL;
	*swp = sw;
	*shsp = shs;
}

static void sw_snap(struct sim *s, uint32_t q, struct swsnap *o)
{
	const struct rxb_sw_stats *sw, *shs;

	sw_stats_of(s, q, &sw, &shs);
	o->db = sw_read(sw, RXB_SW_DOORBELLS) + sw_read(shs, RXB_SW_DOORBELLS);
	o->notices = sw_read(sw, RXB_SW_NOTICES);
	o->afail = sw_read(sw, RXB_SW_ALLOC_FAIL) + sw_read(shs, RXB_SW_ALLOC_FAIL);
	o->lock = sw_read(shs, RXB_SW_LOCK_ACQUIRES);
	o->ors = sw_read(shs, RXB_SW_BITMAP_ORS);
	o->ret = sw_read(shs, RXB_SW_RETURNED);
}

/* Receive-call intervals for the dynamic shRing overload rule. A core that
 * slept since its last (empty) poll would have polled every empty_poll. */
static void record_interval(struct sim *s, struct core *k, uint64_t t)
{
	uint64_t span = t - k->last_poll;

	if (k->ivals == NULL)
		return;
	if (k->sleeping_since_poll) {
		uint64_t e = s->c.empty_poll ? s->c.empty_poll : 1, kk = span / e;

		if (kk >= 1)
			sim_hist_add_n(k->ivals, span / kk / PS_PER_NS, kk);
		else
			sim_hist_add(k->ivals, span / PS_PER_NS);
	} else {
		sim_hist_add(k->ivals, span / PS_PER_NS);
	}
}

static uint32_t ring_occupancy(struct sim *s, uint32_t r)
{
	if (s->arch == RXB_ARCH_SPOOL)
		return rxb_spool_occupancy(rxb_iface_spool(s->ifc), r);
	return rxb_iface_occupancy(s->ifc, r);
}

/* shRing synchronisation of one receive call, by mechanism: the bitmap
 * ORs (a line another core wrote last must come over first) and the
 * group's repost lock held for the return pass. */
static void charge_sync(struct sim *s, struct core *k, uint32_t q, uint64_t dlock, uint64_t dors,
			uint64_t dret)
{
	uint32_t g = q / s->cfg->scn.arch.share_degree;
	uint64_t ps = 0;

	for (uint64_t j = 0; j < dors; j++) {
		ps += s->c.bitmap_or + (s->bmp_last[g] != k->id ? s->c.xfer : 0);
		s->bmp_last[g] = k->id;
	}
	for (uint64_t j = 0; j < dlock; j++) {
		uint64_t wait;

		ps += res_take(s, &s->lock[g], k->id, k->t + ps,
			       s->c.lock + (j == 0 ? dret : 0) * s->c.ret_desc, &wait);
		if (s->warm)
			s->sync_wait += wait;
	}
	k->t += ps;
	k->cost.sync += ps;
}

/* Descriptor-return waits are read from the library's own histograms (its
 * clock is ps) twice: here at the start of the measured interval, and by the
 * report at the end (sim_desc_waits). */
static void snapshot_desc_waits(struct sim *s)
{
	for (uint32_t g = 0; g < s->nsh; g++)
		rxb_shring_wait_stats(rxb_iface_shring(s->ifc), g, &s->sh_w0[g]);
}

void sim_desc_waits(const struct sim *s, struct rxb_shring_wait *out)
{
	memset(out, 0, sizeof(*out));
	for (uint32_t g = 0; g < s->nsh; g++) {
		struct rxb_shring_wait w;

		rxb_shring_wait_stats(rxb_iface_shring(s->ifc), g, &w);
		out->returned += w.returned - s->sh_w0[g].returned;
		out->wait_sum += w.wait_sum - s->sh_w0[g].wait_sum;
		if (w.wait_max > out->wait_max)
			out->wait_max = w.wait_max; /* over the whole run: a cap only */
		for (unsigned b = 0; b < RXB_SHRING_WAIT_BUCKETS; b++)
			out->hist[b] += w.hist[b] - s->sh_w0[g].hist[b];
	}
}

enum { POLL_SLEPT = 0, POLL_BATCH, POLL_AGAIN, POLL_RETRY };
/* Where a core's loop is (struct core.ph): about to poll; the burst's
 * completion reads, header reads (wave k->j); packet k->i (step k->step);
 * the burst's free. */
enum { PH_POLL = 0, PH_CQ, PH_HDR, PH_PKT, PH_FREE };
/* Where packet k->i is (struct core.step): waiting for its completion to
 * be visible; in its network function (struct core.nf: the next step);
 * at its target reads, then its transmit. */
enum { PK_ARRIVE = 0, PK_NF, PK_OUT };

/* One receive call of core k: POLL_BATCH with a batch to process,
 * POLL_SLEPT when the core went to sleep, POLL_AGAIN to poll its next queue
 * (spool), POLL_RETRY to retry at k->t (the allocator refused). */
static int poll(struct sim *s, struct core *k)
{
	const struct sim_cfg *cfg = s->cfg;
	uint32_t q = k->id;
	uint64_t t = k->t, rx, db, notices, afail, lock, ors, ret;
	unsigned n;

	if (s->arch == RXB_ARCH_SPOOL) {
		if (k->nq == 0) { /* more cores than queues: this one has none */
			k->state = CS_SLEEP;
			return POLL_SLEPT;
		}
		q = k->id + k->qnext * s->ncores;
		k->qnext = (k->qnext + 1) % k->nq;
	}
	record_interval(s, k, t);
	k->sleeping_since_poll = false;
	k->last_poll = t;
	if (s->warm) {
		uint32_t o = ring_occupancy(s, q);

		if (o > s->occ_poll_max)
			s->occ_poll_max = o;
		k->polls++;
	}
	sim_note_step(s, t);
	n = rxb_iface_rx(s->ifc, q, k->pk, cfg->scn.arch.batch, t);
	if (s->arch == RXB_ARCH_SPOOL) {
		/* per-queue counters: no deltas kept per queue; doorbells charged
		 * per non-empty poll */
		db = k->sw_db + (n ? 1 : 0);
		notices = afail = lock = ors = ret = 0;
	} else {
		/* sw_snap's counters, through the pointers it would look up */
		db = sw_read(k->sw, RXB_SW_DOORBELLS) + sw_read(k->shs, RXB_SW_DOORBELLS);
		notices = sw_read(k->sw, RXB_SW_NOTICES);
		afail = sw_read(k->sw, RXB_SW_ALLOC_FAIL) + sw_read(k->shs, RXB_SW_ALLOC_FAIL);
		lock = sw_read(k->shs, RXB_SW_LOCK_ACQUIRES);
		ors = sw_read(k->shs, RXB_SW_BITMAP_ORS);
		ret = sw_read(k->shs, RXB_SW_RETURNED);
	}
	rx = n ? s->c.rx_call + n * s->c.rx_pkt : s->c.empty_poll;
	if (notices - k->sw_notices > n) /* consumption-only Bx entries */
		rx += (notices - k->sw_notices - n) * s->c.rx_pkt / 2;
	rx += (db - k->sw_db) * s->c.doorbell;
	k->t += rx;
	k->cost.rx += rx;
	if (lock != k->sw_lock || ors != k->sw_ors)
		charge_sync(s, k, q, lock - k->sw_lock, ors - k->sw_ors, ret - k->sw_ret);
	/* A call that received nothing and acted on no notice took no buffer. */
	if (n || notices != k->sw_notices || afail != k->sw_afail)
		charge_alloc(s, k);
	k->sw_db = db;
	k->sw_notices = notices;
	k->sw_lock = lock;
	k->sw_ors = ors;
	k->sw_ret = ret;
	if (n == 0) {
		bool refused = afail != k->sw_afail;

		k->sw_afail = afail;
		if (refused) { /* packets wait for buffers: try again shortly */
			if (s->warm)
				k->alloc_fail_polls++;
			k->t += ALLOC_RETRY_PS;
			return POLL_RETRY;
		}
		if (s->arch == RXB_ARCH_SPOOL && ++k->qempty < k->nq)
			return POLL_AGAIN; /* try the next queue */
		k->qempty = 0;
		if (s->warm)
			k->empty_polls++;
		k->state = CS_SLEEP;
		k->sleeping_since_poll = true;
		return POLL_SLEPT;
	}
	k->sw_afail = afail;
	k->qempty = 0;
	k->n = n;
	k->i = 0;
	k->j = 0;
	k->step = PK_ARRIVE;
	k->q = q;
	k->ph = PH_CQ;
	/* Entries the library returned before their DMA latency had passed
	 * are waited for (the core would have spun on them). */
	if (s->pinfo[k->pk[0].buf].vis > k->t)
		k->t = s->pinfo[k->pk[0].buf].vis;
	return POLL_BATCH;
}

/* The burst's memory prologue, one wave (at most system.mlp independent
 * reads) at a time: the completion entries (read in the receive call: rx),
 * then the headers (prefetched for the whole burst, as DPDK applications
 * do: app). A wave starts only within the horizon; false when the core
 * must yield first (its clock is past `limit`). */
static bool burst_reads(struct sim *s, struct core *k, uint64_t limit)
{
	const struct sim_cfg *cfg = s->cfg;
	uint32_t mlp = cfg->scn.system.mlp;
	struct acc a[RXB_BURST_MAX];

	while (k->ph != PH_PKT) {
		bool cq = k->ph == PH_CQ;
		unsigned m = k->n - k->j < mlp ? k->n - k->j : mlp;
		uint64_t l;

		if (k->t > limit)
			return false;
		sim_note_step(s, k->t);
		if (m == 1 && !(cq && cfg->scn.arch.emulated)) {
			/* one access: sim_mem_par of one, without the array */
			uint64_t addr = cq ? cq_next(s, cq_ring_base(s, cq_ring(s, k->q)), &k->cq_r) :
					     sim_buf_addr(s, k->pk[k->j].buf) +
						     cfg->scn.arch.headroom_bytes;

			l = sim_mem_one(s, k->t, k->cls_pkt, SIM_LLC_RD, addr);
		} else {
			for (unsigned j = 0; j < m; j++) {
				if (cq && cfg->scn.arch.emulated) {
					/* the emulator's virtual completions, across the socket */
					a[j].cls = ACC_FIXED;
					a[j].addr = s->c.xsocket;
					continue;
				}
				a[j].cls = (uint8_t)k->cls_pkt;
				a[j].op = SIM_LLC_RD;
				a[j].addr = cq ? cq_next(s, cq_ring_base(s, cq_ring(s, k->q)), &k->cq_r) :
						 sim_buf_addr(s, k->pk[k->j + j].buf) +
							 cfg->scn.arch.headroom_bytes;
			}
			l = sim_mem_par(s, k->t, a, m);
		}
		k->t += l;
		if (cq)
			k->cost.rx += l;
		else
			k->cost.app += l;
		k->j += m;
		if (k->j == k->n) {
			k->j = 0;
			k->ph = cq ? PH_HDR : PH_PKT;
		}
	}
	return true;
}

/* Transmit: the NIC reads the packet by DMA (LLC or DRAM), PCIe
 * host -> NIC; the core pays the descriptor write. */
static void transmit(struct sim *s, struct core *k, rxb_buf_t b, const struct pinfo *pi)
{
	struct sim_llc_range r = { 0 };
	uint32_t dma = pi->len - SIM_ETH_FCS;

	k->t += s->c.tx_pkt;
	k->cost.app += s->c.tx_pkt;
	sim_note_step(s, k->t);
	sim_llc_access_range(&s->llc, s->cls_tx, SIM_LLC_RD, sim_buf_addr(s, b) +
			     s->cfg->scn.arch.headroom_bytes, dma, &r);
	if (r.dram_rd)
		sim_dram_account(&s->dram, k->t, (uint64_t)r.dram_rd * SIM_LLC_LINE, 0);
	if (s->warm)
		s->nic[pi->nic].down_bytes += tlp_data(s, dma);
}

static void finish_packet(struct sim *s, struct core *k, const struct rxb_pkt *pk,
			  const struct pinfo *pi)
{
	uint64_t lat;

	transmit(s, k, pk->buf, pi);
	lat = k->t - pi->arr;
	if (pi->arr >= s->warm_ps) {
		s->delivered++;
		s->dst[pi->dest].delivered++;
		sim_hist_add(&s->lat, lat);
	}
	if (s->warm) {
		s->departures++;
		s->dep_wire_bytes += sim_wire_bytes(pi->len);
		k->pkts++;
		k->wire_bytes += sim_wire_bytes(pi->len);
		k->lat_sum += (double)lat;
		k->lat_n++;
	}
	s->dyn_dep_bits += 8ull * sim_wire_bytes(pi->len);
	s->cur.departures++;
	s->cur.wire_bits += 8ull * sim_wire_bytes(pi->len);
	s->cur.lat_sum += (double)lat;
	s->cur.lat_n++;
}

/* The network function on packet k->i, one step at a time (nf.h: a
 * dependent access, or a wave of at most system.mlp independent ones),
 * then its compute. Each step starts within the horizon like any other:
 * a chain of dependent misses at a loaded DRAM takes microseconds, and
 * issued in one go its later accesses would reach the LLC and the DRAM
 * windows that far out of time order. false when it must yield first;
 * core.nf keeps which step comes next. */
static bool nf_steps(struct sim *s, struct core *k, uint64_t limit)
{
	struct acc a[ACC_MAX];
	uint64_t l;

	while (!nf_done(&s->nf, &k->nf)) {
		uint64_t priv;
		unsigned n;

		if (k->t > limit)
			return false;
		sim_note_step(s, k->t);
		n = nf_step(&s->nf, &k->nf, &k->rng, a, &priv);
		if (n == 1) /* sim_mem_par of one, without the loop (NF accesses are lines) */
			l = sim_mem_one(s, k->t, a[0].cls, (enum sim_llc_op)a[0].op, a[0].addr);
		else
			l = n ? sim_mem_par(s, k->t, a, n) : 0;
		l += priv;
		k->t += l;
		k->cost.app += l;
	}
	l = s->c.nf_compute + s->c.compute_extra + (k->slow ? s->c.slow_extra : 0);
	k->t += l;
	k->cost.app += l;
	return true;
}

/* Packet k->i of the batch, in steps that each start within the horizon:
 * the network function's (after waiting for the completion's visibility:
 * nf_steps), each target read, the transmit. false when it yielded before a step. */
static bool packet_step(struct sim *s, struct core *k, uint64_t limit)
{
	const struct rxb_pkt *pk = &k->pk[k->i];
	const struct pinfo *pi = &s->pinfo[pk->buf];

	switch (k->step) {
	case PK_ARRIVE:
		if (pi->vis > k->t) {
			k->t = pi->vis;
			if (k->t > limit)
				return false;
		}
		nf_begin(&s->nf, &k->nf, k->id, k->cls_pkt, &k->rng, pi->flow, pi->key, pi->len,
			 sim_buf_addr(s, pk->buf) + s->cfg->scn.arch.headroom_bytes);
		k->step = PK_NF;
		/* fall through */
	case PK_NF:
		if (!nf_steps(s, k, limit))
			return false;
		k->tr_left = k->target ? s->cfg->scn.workload.target_reads : 0;
		k->step = PK_OUT;
		/* fall through */
	default: /* PK_OUT */
		break;
	}
	while (k->tr_left) {
		struct acc r;
		uint64_t l;

		if (k->t > limit)
			return false;
		sim_note_step(s, k->t);
		r = nf_target_read(&s->nf, &k->rng);
		l = sim_mem_one(s, k->t, r.cls, (enum sim_llc_op)r.op, r.addr);
		k->t += l;
		k->cost.app += l;
		k->tr_left--;
	}
	/* the transmit's DMA read follows the descriptor write (tx_pkt) */
	if (k->t + s->c.tx_pkt > limit && k->t > s->now)
		return false;
	finish_packet(s, k, pk, pi);
	k->i++;
	k->step = PK_ARRIVE;
	return true;
}

/* Earliest event but the one at the top of the queue (the running
 * core's). */
static inline uint64_t next_other(const struct sim *s)
{
	return sim_evq_next_other(&s->evq);
}

/* Core k's loop from time `now`. Returns when it must wait for other
 * events: the time to resume at, or UINT64_MAX when it sleeps (a delivery
 * wakes it) or is stalled for good. */
static uint64_t ev_core(struct sim *s, struct core *k, uint64_t now)
{
	uint64_t limit = now + s->horizon_ps;

	if (k->t < now)
		k->t = now;
	k->state = CS_SCHED;
	if (k->t >= k->stall_from && k->t < k->stall_to) {
		/* A stalled core makes no receive call: its next interval runs
		 * from the stall's start (virtual empty polls before it). */
		if (k->sleeping_since_poll && k->stall_from > k->last_poll) {
			record_interval(s, k, k->stall_from);
			k->last_poll = k->stall_from;
		}
		k->sleeping_since_poll = false;
		if (k->stall_to == UINT64_MAX) {
			k->state = CS_STALLED;
			return UINT64_MAX;
		}
		k->t = k->stall_to;
		return k->t;
	}
	/* The time rule (docs/simulator.md): every step that touches a shared
	 * resource starts at a local time within the horizon; past it, the
	 * core yields and resumes there once the event clock has caught up. */
	for (;;) {
		int rc;

		switch (k->ph) {
		case PH_CQ:
		case PH_HDR:
			if (!burst_reads(s, k, limit))
				return k->t;
			continue;
		case PH_PKT:
			while (k->i < k->n) {
				if (k->t > limit || !packet_step(s, k, limit))
					return k->t;
			}
			k->ph = PH_FREE;
			/* fall through */
		case PH_FREE: {
			unsigned nd = k->n;
			rxb_buf_t bufs[RXB_BURST_MAX];

			/* the pool's lock, if a flush takes it, comes after the
			 * objects' cycles: those too within the horizon */
			if (k->t + nd * s->c.alloc_obj > limit && k->t > now)
				return k->t;
			for (unsigned j = 0; j < nd; j++)
				bufs[j] = k->pk[j].buf;
			k->n = k->i = 0;
			k->ph = PH_POLL;
			sim_note_step(s, k->t);
			rxb_iface_free(s->ifc, k->q, bufs, nd);
			charge_alloc(s, k);
		}
			/* fall through */
		default: /* PH_POLL */
			break;
		}
		if (k->t > now) {
			/* Poll at the exact time the loop gets there: at once when
			 * no other event comes first (this core's own entry, still at
			 * the top of the queue, is at `now`), else after them. */
			if (next_other(s) <= k->t)
				return k->t;
			now = k->t;
			set_now(s, now); /* no other event before: the event clock is here */
			limit = now + s->horizon_ps;
		}
		rc = poll(s, k);
		if (rc == POLL_SLEPT)
			return UINT64_MAX;
		if (rc == POLL_RETRY)
			return k->t;
	}
}

/* ------------------------------------------------------------- hogs */

static void ev_hog(struct sim *s, uint32_t h, uint64_t now)
{
	struct hog *g = &s->hog[h];
	uint64_t limit = now + s->horizon_ps, third = g->lines / 3;
	struct acc a[64];
	unsigned m = s->cfg->scn.system.mlp < 64 ? s->cfg->scn.system.mlp : 64;

	if (g->t < now)
		g->t = now;
	while (g->t <= limit) {
		for (unsigned j = 0; j < m; j++) {
			a[j].cls = (uint8_t)s->cls_hog;
			if (s->cfg->scn.system.hog == RXB_HOG_STREAM) {
				/* triad a[i] = b[i] + s * c[i]: read b, read c, write a */
				uint64_t which = g->pos % 3, line = (g->pos / 3) % third;

				a[j].addr = g->base + (which * third + line) * SIM_LLC_LINE;
				a[j].op = which == 2 ? SIM_LLC_WR : SIM_LLC_RD;
				g->pos++;
			} else {
				a[j].addr = g->base + sim_rng_below(&g->rng, g->lines) * SIM_LLC_LINE;
				a[j].op = SIM_LLC_RD;
			}
		}
		{ /* the DRAM latency statistics are the cores' */
			uint64_t ls = s->dram_lat_sum, ln = s->dram_lat_n;

			sim_note_step(s, g->t);
			g->t += sim_mem_par(s, g->t, a, m);
			s->dram_lat_sum = ls;
			s->dram_lat_n = ln;
		}
		if (s->warm)
			g->accesses += m;
	}
	push(s, g->t, EV_HOG, h);
}

/* ------------------------------------------------------ measurements */

static void check_invariants(struct sim *s)
{
	struct rxb_err e = { 0 };
	struct rxb_census c;
	uint64_t unprocessed = 0;

	s->checks++;
	if (!s->packets_ok || !s->buffers_ok)
		return;
	/* One full check (it sorts every handle): packet conservation and the
	 * designs' internal invariants, then buffer conservation and "no buffer
	 * in two places". Its message says which failed. */
	if (rxb_iface_check(s->ifc, s->pool, &e) != 0) {
		if (strstr(e.msg, "packet") != NULL)
			s->packets_ok = false;
		else
			s->buffers_ok = false;
		snprintf(s->inv_msg, sizeof(s->inv_msg), "%s", e.msg);
		return;
	}
	/* The engine's own books against the library's census. */
	rxb_iface_census(s->ifc, &c, &e);
	for (uint32_t i = 0; i < s->ncores; i++)
		unprocessed += s->core[i].n - s->core[i].i;
	if (s->arrivals_total != c.offered + s->emu.n) {
		s->packets_ok = false;
		snprintf(s->inv_msg, sizeof(s->inv_msg),
			 "engine: %llu packets arrived but the interface was offered %llu (+%u in "
			 "the emulator)", (unsigned long long)s->arrivals_total,
			 (unsigned long long)c.offered, s->emu.n);
	}
	(void)unprocessed;
}

static void ev_occ(struct sim *s, uint64_t now)
{
	for (uint32_t r = 0; r < s->nrings; r++) {
		uint32_t o = ring_occupancy(s, r);

		s->cur.occ_sum += o;
		s->cur.occ_n++;
		if (s->warm) {
			s->occ[r].sum += o;
			s->occ[r].n++;
			if (o > s->occ[r].max)
				s->occ[r].max = o;
		}
	}
	if (s->warm) {
		uint64_t in_use = s->pool->cfg.n_bufs - rxb_pool_free_count(s->pool);

		if (in_use > s->in_use_max)
			s->in_use_max = in_use;
	}
	if (now + s->occ_ps < s->end_ps)
		push(s, now + s->occ_ps, EV_OCC, 0);
}

static void ev_sample(struct sim *s, uint64_t now)
{
	struct sim_dram_stats ds;
	struct series_pt *p;
	uint64_t window_start = now - s->sample_ps;

	if (s->nser == s->cap_ser) {
		s->cap_ser = s->cap_ser ? 2 * s->cap_ser : 64;
		s->ser = realloc(s->ser, s->cap_ser * sizeof(*s->ser));
		if (s->ser == NULL) {
			fprintf(stderr, "error: out of memory\n");
			exit(1);
		}
	}
	sim_dram_stats(&s->dram, now, &ds);
	p = &s->ser[s->nser++];
	*p = s->cur;
	p->t_ms = (double)now / PS_PER_MS;
	p->dram_bytes = ds.rd_bytes + ds.wr_bytes - s->cur.dram_bytes;
	p->ws_bufs = s->ws_count;
	p->in_use = s->pool->cfg.n_bufs - rxb_pool_free_count(s->pool);
	p->mode = s->arch == RXB_ARCH_DYN_SHRING ? (int)rxb_iface_dyn_mode(s->ifc) : -1;
	if (window_start >= s->warm_ps && s->warm) {
		s->ws_sum += (double)s->ws_count;
		s->ws_windows++;
	}
	memset(&s->cur, 0, sizeof(s->cur));
	s->cur.dram_bytes = ds.rd_bytes + ds.wr_bytes; /* baseline of the next window */
	memset(s->ws_bits, 0, ((s->ws_slots + 63) / 64) * sizeof(uint64_t));
	s->ws_count = 0;
	if (s->cfg->scn.run.check_invariants)
		check_invariants(s);
	if (now + s->sample_ps <= s->end_ps)
		push(s, now + s->sample_ps, EV_SAMPLE, 0);
}

static void ev_dyn(struct sim *s, uint64_t now)
{
	const struct sim_cfg *cfg = s->cfg;
	double period_s = cfg->scn.arch.dyn_sample_ms * 1e-3;
	struct sim_dram_stats ds;
	struct rxb_dynctl_sample smp = { 0 };
	struct dyn_pt *p;
	uint64_t dram;
	enum rxb_dyn_decision dec;

	sim_dram_stats(&s->dram, now, &ds);
	dram = ds.rd_bytes + ds.wr_bytes;
	smp.tput_gbps = (double)s->dyn_dep_bits / period_s / 1e9;
	smp.mem_bw_gibps = (double)(dram - s->dyn_dram_bytes) / period_s / (double)(1ull << 30);
	for (uint32_t c = 0; c < s->ncores; c++) {
		struct core *k = &s->core[c];

		if (k->state == CS_SLEEP && k->sleeping_since_poll && now > k->last_poll) {
			/* virtual empty polls up to now */
			record_interval(s, k, now);
			k->last_poll = now;
		}
		/* The rule needs two intervals; a core that made at most one
		 * receive call in the period while packets wait for it is wedged
		 * (stalled), which the library leaves to the caller to catch. */
		if (sim_overloaded(k->ivals, cfg->scn.arch.dyn_overload_factor, s->ival_scratch,
				   IVAL_SCRATCH) == 1 ||
		    (k->ivals->n < 2 && rxb_iface_occupancy(s->ifc, c) > 0))
			smp.overloaded_cores++;
		sim_hist_reset(k->ivals);
	}
	dec = rxb_iface_dyn_sample(s->ifc, &smp);
	if (s->ndyn == s->cap_dyn) {
		s->cap_dyn = s->cap_dyn ? 2 * s->cap_dyn : 64;
		s->dyn = realloc(s->dyn, s->cap_dyn * sizeof(*s->dyn));
		if (s->dyn == NULL) {
			fprintf(stderr, "error: out of memory\n");
			exit(1);
		}
	}
	p = &s->dyn[s->ndyn++];
	p->t_ms = (double)now / PS_PER_MS;
	p->tput_gbps = smp.tput_gbps;
	p->membw_gibps = smp.mem_bw_gibps;
	p->overloaded = smp.overloaded_cores;
	p->decision = (int)dec;
	p->mode = (int)rxb_iface_dyn_mode(s->ifc);
	s->dyn_dep_bits = 0;
	s->dyn_dram_bytes = dram;
	if (now + (uint64_t)(cfg->scn.arch.dyn_sample_ms * PS_PER_MS) <= s->end_ps)
		push(s, now + (uint64_t)llround(cfg->scn.arch.dyn_sample_ms * PS_PER_MS), EV_DYN, 0);
}

static void ev_tick(struct sim *s, uint64_t now)
{
	uint64_t period = (uint64_t)llround(s->cfg->scn.arch.coalesce_timeout_ns * PS_PER_NS / 2);

	if (rxb_iface_tick(s->ifc, now) != 0) {
		for (uint32_t c = 0; c < s->ncores; c++)
			if (s->core[c].state == CS_SLEEP && rxb_iface_occupancy(s->ifc, c) > 0)
				wake(s, c, now);
	}
	if (period == 0)
		period = 1;
	if (now + period < s->end_ps)
		push(s, now + period, EV_TICK, 0);
}

static void ev_warmup(struct sim *s)
{
	struct sim_dram_stats ds;

	s->warm = true;
	sim_llc_reset_stats(&s->llc);
	sim_dram_stats(&s->dram, s->now, &ds);
	s->dram_rd0 = ds.rd_bytes;
	s->dram_wr0 = ds.wr_bytes;
	s->dram_lat_sum = s->dram_lat_n = 0;
	{
		struct rxb_pool_core_stats st;

		rxb_pool_stats(s->pool, RXB_NONE, &st);
		s->pool_empty0 = st.empty;
	}
	for (uint32_t c = 0; c < s->ncores; c++) {
		struct core *k = &s->core[c];

		memset(&k->cost, 0, sizeof(k->cost));
	}
	snapshot_desc_waits(s);
}

/* ------------------------------------------------------------- setup */

static int setup_llc(struct sim *s, struct rxb_err *err)
{
	const struct sim_cfg *cfg = s->cfg;
	struct sim_llc_cfg lc;
	uint32_t all, ddio, cat;
	char name[24];
	int rc;

	sim_llc_cfg_reference(&lc);
	lc.size_bytes = (uint64_t)llround(cfg->llc_mib * (double)(1u << 20));
	lc.ways = cfg->llc_ways;
	lc.sample_shift = cfg->scn.run.llc_sample_shift;
	lc.seed = sim_mix64(cfg->scn.run.seed ^ 0x11c);
	lc.migrate_io_lines = !cfg->llc_inclusive;
	rc = sim_llc_init(&s->llc, &lc, err);
	if (rc)
		return rc;
	all = sim_llc_ways(0, cfg->llc_ways);
	ddio = cfg->scn.system.ddio_ways ? sim_llc_ways(cfg->llc_ways - cfg->scn.system.ddio_ways, cfg->scn.system.ddio_ways) : all;
	cat = cfg->scn.system.cat_ways ? sim_llc_ways(0, cfg->scn.system.cat_ways) : 0;
	s->mask_cpu = all & ~cat;
#define ADD(var, nm, mask, io)                                                 \
	do {                                                                   \
		rc = sim_llc_add_class(&s->llc, nm, mask, io, err);            \
		if (rc < 0)                                                    \
			return rc;                                             \
		var = (unsigned)rc;                                            \
	} while (0)
	for (uint32_t n = 0; n < cfg->scn.system.nics; n++) {
		if (n < 4) {
			snprintf(name, sizeof(name), "nic%u", n);
			ADD(s->nic[n].cls_wr, name, ddio, 1);
		} else {
			s->nic[n].cls_wr = s->nic[n % 4].cls_wr;
		}
	}
	ADD(s->cls_cq, "cqe", ddio, 1);
	ADD(s->cls_tx, "tx", ddio, 1);
	ADD(s->cls_hog, "hog", s->mask_cpu, 0);
	ADD(s->nf.cls_main, "nf_main", cat ? cat : s->mask_cpu, 0);
	ADD(s->nf.cls_aux, "nf_aux", s->mask_cpu, 0);
	ADD(s->nf.cls_tgt, "nf_target", s->mask_cpu, 0);
	s->ncls_pkt = SIM_LLC_MAX_CLASSES - s->llc.nclasses;
	if (s->ncls_pkt > s->ncores)
		s->ncls_pkt = s->ncores;
	for (uint32_t c = 0; c < s->ncores; c++) {
		if (c < s->ncls_pkt) {
			snprintf(name, sizeof(name), "pkt%u", c);
			ADD(s->core[c].cls_pkt, name, s->mask_cpu, 0);
		} else {
			s->core[c].cls_pkt = s->core[c % s->ncls_pkt].cls_pkt;
		}
	}
#undef ADD
	return 0;
}

static int setup_iface(struct sim *s, struct rxb_err *err)
{
	const struct sim_cfg *cfg = s->cfg;
	struct rxb_pool_config pc = {
		.n_bufs = cfg->scn.arch.pool_buffers,
		.n_cores = cfg->scn.system.cores,
		.cache_size = cfg->scn.arch.alloc_cache,
		.flush_factor_pct = 150,
		.buf_size = cfg->scn.arch.buffer_bytes,
	};
	struct rxb_iface_config ic;

	s->pool = rxb_pool_create(&pc, err);
	if (s->pool == NULL)
		return err->code;
	s->allocs = xcalloc(cfg->scn.system.cores, sizeof(*s->allocs));
	for (uint32_t c = 0; c < cfg->scn.system.cores; c++)
		s->allocs[c] = rxb_pool_allocator(s->pool, c);
	rxb_scn_iface_config(&cfg->scn, cfg->desc_prefetch, (double)PS_PER_NS, &ic);
	s->ifc = rxb_iface_create(&ic, s->allocs, err);
	if (s->ifc == NULL)
		return err->code;
	s->arch = cfg->scn.arch.name;
	s->ndests = rxb_iface_n_dests(s->ifc);
	s->nrings = cfg->scn.arch.name == RXB_ARCH_SPOOL ? rxb_iface_n_cores(s->ifc) : cfg->scn.system.cores;
	if (rxb_iface_shring(s->ifc))
		s->nsh = rxb_shring_n_rings(rxb_iface_shring(s->ifc));
	return 0;
}

static int setup_nics(struct sim *s, struct rxb_err *err)
{
	const struct sim_cfg *cfg = s->cfg;
	uint32_t first = 0;
	int rc;

	for (uint32_t i = 0; i < cfg->scn.system.nics; i++) {
		struct nic *n = &s->nic[i];
		struct sim_traffic_cfg tc;

		n->s = s;
		n->id = i;
		n->first_core = first;
		n->ncores = cfg->scn.system.cores_per_nic.v[i];
		first += n->ncores;
		rc = rxb_reta_init(&n->reta, cfg->reta_size, n->ncores, err);
		if (rc)
			return rc;
		if (cfg->scn.traffic.pattern == RXB_PATTERN_TRACE)
			continue;
		sim_traffic_cfg_default(&tc);
		tc.seed = sim_mix64(cfg->scn.run.seed * 0x9e3779b97f4a7c15ull + 0x100 + i);
		tc.nic = i;
		tc.line_bps = (uint64_t)llround(cfg->link_gbps * 1e9);
		tc.start_ps = 0;
		tc.stop_ps = s->end_ps;
		tc.main.rate_bps = (uint64_t)llround(cfg->scn.traffic.rate_gbps * 1e9);
		tc.main.arrival = cfg->scn.traffic.pattern == RXB_PATTERN_POISSON ? SIM_ARRIVAL_POISSON :
				  cfg->scn.traffic.pattern == RXB_PATTERN_ONOFF ? SIM_ARRIVAL_ONOFF : SIM_ARRIVAL_CONST;
		tc.main.burst_pkts = cfg->scn.traffic.burst_packets;
		tc.main.duty = cfg->scn.traffic.pattern == RXB_PATTERN_ONOFF ? cfg->scn.traffic.burst_duty : 1.0;
		sim_size_fixed(&tc.main.size, cfg->scn.traffic.packet_bytes);
		tc.main.flows = cfg->scn.traffic.flows;
		tc.main.flow_pop = cfg->scn.traffic.key_dist == RXB_KEY_DIST_ZIPF &&
				   cfg->scn.workload.nf != RXB_NF_KIND_KVS ? SIM_POP_ZIPF : SIM_POP_UNIFORM;
		tc.main.flow_zipf_s = cfg->scn.traffic.zipf_s;
		tc.nqueues = s->arch == RXB_ARCH_SPOOL ? cfg->scn.arch.spool_ports : n->ncores;
		tc.queue_of = gen_queue_of;
		tc.queue_ctx = n;
		if (cfg->scn.workload.nf == RXB_NF_KIND_KVS) {
			tc.keys = cfg->scn.workload.kvs_keys;
			tc.key_pop = cfg->scn.traffic.key_dist == RXB_KEY_DIST_ZIPF ? SIM_POP_ZIPF : SIM_POP_UNIFORM;
			tc.key_zipf_s = cfg->scn.traffic.zipf_s;
			tc.key_steer = 1;
		}
		if (cfg->scn.traffic.pattern == RXB_PATTERN_TARGET) {
			tc.target_queue = (int32_t)cfg->scn.traffic.target_core;
			tc.target_share = cfg->scn.traffic.target_rate_gbps > 0 ? 0.0 : cfg->scn.traffic.target_share;
			tc.target.rate_bps = (uint64_t)llround(cfg->scn.traffic.target_rate_gbps * 1e9);
			tc.target.arrival = SIM_ARRIVAL_CONST;
			sim_size_fixed(&tc.target.size, cfg->scn.traffic.target_packet_bytes ?
							       cfg->scn.traffic.target_packet_bytes :
							       cfg->scn.traffic.packet_bytes);
		}
		/* flow ids stay below a few times traffic.flows (steering pools) */
		n->nmemo = cfg->scn.traffic.flows < (1u << 22) ? 4 * cfg->scn.traffic.flows + 64 : 0;
		/* With the per-flow memo, the 5-tuple is only needed the first
		 * time a flow is seen: the generator leaves it to pkt_ids. */
		tc.lazy_tuple = n->nmemo > 0;
		rc = sim_traffic_init(&n->gen, &tc, err);
		if (rc)
			return rc;
		n->gen_ok = true;
		if (n->nmemo) {
			n->memo = xcalloc(n->nmemo, sizeof(*n->memo));
			n->hvalid = xcalloc((n->nmemo + 63) / 64, sizeof(*n->hvalid));
		}
	}
	if (cfg->scn.traffic.pattern == RXB_PATTERN_TRACE) {
		rc = sim_pcap_open(&s->pcap, cfg->scn.traffic.pcap, 0, err);
		if (rc)
			return rc;
	}
	return 0;
}

static void setup_cores(struct sim *s)
{
	const struct sim_cfg *cfg = s->cfg;

	for (uint32_t c = 0; c < s->ncores; c++) {
		struct core *k = &s->core[c];
		const struct nic *n = &s->nic[cfg->nic_of_core[c]];

		k->id = c;
		k->nic = n->id;
		sim_rng_seed(&k->rng, cfg->scn.run.seed, 0x5000 + c);
		k->state = CS_SLEEP;
		k->sleeping_since_poll = true;
		k->stall_from = k->stall_to = UINT64_MAX;
		for (uint32_t j = 0; j < cfg->scn.system.stalled_cores.n; j++) {
			if (cfg->scn.system.stalled_cores.v[j] == c) {
				k->stall_from = (uint64_t)llround(cfg->scn.system.stall_at_ms * PS_PER_MS);
				k->stall_to = cfg->scn.system.stall_for_ms > 0 ?
						      k->stall_from +
							      (uint64_t)llround(cfg->scn.system.stall_for_ms *
										PS_PER_MS) :
						      UINT64_MAX;
			}
		}
		for (uint32_t j = 0; j < cfg->scn.system.slow_cores.n; j++)
			k->slow |= cfg->scn.system.slow_cores.v[j] == c;
		k->target = cfg->scn.traffic.pattern == RXB_PATTERN_TARGET && c == n->first_core + cfg->scn.traffic.target_core;
		if (s->arch == RXB_ARCH_SPOOL)
			k->nq = c < s->nrings ? (s->nrings - c + s->ncores - 1) / s->ncores : 0;
		else
			k->nq = 1;
		rxb_pool_stats(s->pool, c, &k->ps);
		if (cfg->scn.arch.name == RXB_ARCH_DYN_SHRING)
			k->ivals = xcalloc(1, sizeof(*k->ivals));
	}
	/* Library counters after priming are the baseline of the deltas. */
	for (uint32_t c = 0; c < s->ncores && s->arch != RXB_ARCH_SPOOL; c++) {
		struct core *k = &s->core[c];
		struct swsnap w;

		sw_stats_of(s, c, &k->sw, &k->shs);
		sw_snap(s, c, &w);
		k->sw_db = w.db;
		k->sw_notices = w.notices;
		k->sw_afail = w.afail;
		k->sw_lock = w.lock;
		k->sw_ors = w.ors;
		k->sw_ret = w.ret;
	}
}

/* Physical queues of the emulator and the memory behind them. */
static uint64_t emu_phys_slots(const struct sim *s, uint32_t *npq, uint32_t *cap)
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
	return (uint64_t)*npq * *cap;
}

static void setup_emu(struct sim *s, uint64_t extra_base)
{
	const struct sim_cfg *cfg = s->cfg;
	struct emu *e = &s->emu;
	uint32_t cap;
	uint64_t slot = 0;

	e->state = CS_SLEEP;
	emu_phys_slots(s, &e->npq, &cap);
	e->pq = xcalloc(e->npq, sizeof(*e->pq));
	for (uint32_t q = 0; q < e->npq; q++) {
		struct addr_fifo *f = &e->pq[q];

		f->cap = cap;
		f->a = xcalloc(f->cap, sizeof(*f->a));
		for (uint32_t j = 0; j < f->cap; j++, slot++)
			f->a[j] = extra_base + slot * cfg->scn.arch.buffer_bytes;
		f->n = f->cap;
		e->cap += f->cap;
	}
	e->fifo = xcalloc(e->cap, sizeof(*e->fifo));
	s->addr_of = xcalloc(cfg->scn.arch.pool_buffers, sizeof(*s->addr_of));
	for (uint32_t b = 0; b < cfg->scn.arch.pool_buffers; b++)
		s->addr_of[b] = s->pool_base + (uint64_t)b * cfg->scn.arch.buffer_bytes;
}

int sim_init(struct sim *s, struct sim_cfg *cfg, struct rxb_err *err)
{
	uint64_t next, extra = 0;
	struct sim_dram_cfg dc;
	uint32_t npq = 0, pqcap = 0;
	int rc;

	memset(s, 0, sizeof(*s));
	s->cfg = cfg;
	s->ncores = cfg->scn.system.cores;
	s->packets_ok = s->buffers_ok = true;
	s->end_ps = (uint64_t)llround(cfg->scn.run.duration_ms * PS_PER_MS);
	s->warm_ps = (uint64_t)llround(cfg->scn.run.warmup_ms * PS_PER_MS);
	s->sample_ps = (uint64_t)llround(cfg->scn.run.sample_ms * PS_PER_MS);
	s->occ_ps = s->sample_ps < OCC_PERIOD_PS ? s->sample_ps : OCC_PERIOD_PS;
	s->horizon_ps = HORIZON_PS;
	if (s->sample_ps == 0)
		s->sample_ps = 1;
	/* costs */
	s->c.rx_call = cyc_ps(cfg, cfg->cal.rx_per_call);
	s->c.rx_pkt = cyc_ps(cfg, cfg->cal.rx_per_pkt[cfg->scn.arch.name]);
	s->c.empty_poll = cyc_ps(cfg, cfg->cal.empty_poll);
	s->c.doorbell = cyc_ps(cfg, cfg->cal.doorbell);
	s->c.alloc_obj = cyc_ps(cfg, cfg->cal.alloc_per_obj);
	s->c.alloc_bulk = cyc_ps(cfg, cfg->cal.alloc_bulk);
	s->c.alloc_shobj = cyc_ps(cfg, cfg->cal.alloc_per_obj_shared);
	s->c.lock = cyc_ps(cfg, cfg->cal.lock);
	s->c.bitmap_or = cyc_ps(cfg, cfg->cal.bitmap_or);
	s->c.ret_desc = cyc_ps(cfg, cfg->cal.return_per_desc);
	s->c.tx_pkt = cyc_ps(cfg, cfg->cal.tx_per_pkt);
	s->c.emu_pkt = cyc_ps(cfg, cfg->cal.emu_per_pkt[cfg->scn.arch.name]);
	s->c.emu_batch = cyc_ps(cfg, cfg->cal.emu_per_batch);
	s->c.llc_hit = cyc_ps(cfg, cfg->llc_latency_cycles);
	s->c.xfer = s->c.llc_hit; /* a line another core modified: via the LLC/snoop filter */
	s->c.l2_hit = cyc_ps(cfg, cfg->l2_latency_cycles);
	s->c.dma_write = (uint64_t)llround(cfg->dma_write_ns * PS_PER_NS);
	s->c.xsocket = (uint64_t)llround(cfg->xsocket_ns * PS_PER_NS);
	s->c.nf_compute = cyc_ps(cfg, nf_compute_cycles(cfg->scn.workload.nf));
	s->c.compute_extra = (uint64_t)llround(cfg->scn.workload.compute_ns * PS_PER_NS);
	s->c.slow_extra = (uint64_t)llround(cfg->scn.system.slow_extra_ns * PS_PER_NS);
	s->c.pcie_ps_per_byte = 8000.0 / cfg->pcie_gbps;
	s->nicbuf_bytes = (uint64_t)(cfg->nic_buffer_kib * 1024.0);
	s->tlp_memo_len = UINT32_MAX;
	s->up_memo = UINT64_MAX;

	s->nic = xcalloc(cfg->scn.system.nics, sizeof(*s->nic));
	s->core = xcalloc(s->ncores, sizeof(*s->core));
	{ /* event queue slots: one per source */
		static const uint8_t types[] = { EV_ARRIVAL, EV_TRACE, EV_CORE, EV_EMU, EV_HOG,
						 EV_OCC, EV_SAMPLE, EV_DYN, EV_TICK, EV_WARMUP,
						 EV_END };
		uint32_t nslots = 0;

		for (unsigned i = 0; i < sizeof(types); i++) {
			uint32_t n = types[i] == EV_ARRIVAL ? cfg->scn.system.nics :
				     types[i] == EV_CORE ? s->ncores :
				     types[i] == EV_HOG ? cfg->scn.system.hog_instances : 1;

			s->slot_base[types[i]] = nslots;
			nslots += n;
		}
		rc = sim_evq_init(&s->evq, nslots, err);
		if (rc)
			return rc;
		s->slot_type = xcalloc(nslots, sizeof(*s->slot_type));
		s->slot_arg = xcalloc(nslots, sizeof(*s->slot_arg));
		for (unsigned i = 0; i < sizeof(types); i++) {
			uint32_t b = s->slot_base[types[i]];
			uint32_t e = i + 1 < sizeof(types) ? s->slot_base[types[i + 1]] : nslots;

			for (uint32_t j = b; j < e; j++) {
				s->slot_type[j] = types[i];
				s->slot_arg[j] = j - b;
			}
		}
	}
	rc = setup_llc(s, err);
	if (rc)
		return rc;
	dc.channels = cfg->dram_channels;
	dc.dimm_mts = cfg->dram_dimm_mts;
	dc.cpu_max_mts = cfg->dram_cpu_max_mts;
	dc.bus_bytes = cfg->dram_bus_bytes;
	dc.efficiency = cfg->dram_efficiency;
	dc.idle_ns = cfg->dram_idle_ns;
	dc.service_ns = cfg->dram_service_ns;
	dc.rho_max = cfg->dram_rho_max;
	dc.window_ps = 1000ull * PS_PER_NS;
	dc.late_ps = s->horizon_ps; /* shared resources see accesses within the horizon */
	rc = sim_dram_init(&s->dram, &dc, err);
	if (rc)
		return rc;
	rc = rxb_rss_init(&s->rss, rxb_rss_default_key, RXB_RSS_KEY_LEN, err);
	if (rc)
		return rc;
	rc = setup_iface(s, err);
	if (rc)
		return rc;
	/* Address map: 2 MiB-aligned regions (hugepages), starting at 4 GiB. */
	s->pool_base = 4ull << 30;
	next = align_up(s->pool_base + (uint64_t)cfg->scn.arch.pool_buffers * cfg->scn.arch.buffer_bytes, HUGE_ALIGN);
	if (cfg->scn.arch.emulated) {
		extra = emu_phys_slots(s, &npq, &pqcap);
		setup_emu(s, next);
		next = align_up(next + extra * cfg->scn.arch.buffer_bytes, HUGE_ALIGN);
	}
	s->ws_slots = cfg->scn.arch.pool_buffers + extra;
	s->ws_bits = xcalloc((s->ws_slots + 63) / 64, sizeof(uint64_t));
	s->cq_entries = cfg->scn.arch.name == RXB_ARCH_RXBISECT ? cfg->scn.arch.bx_size :
			cfg->scn.arch.name == RXB_ARCH_SPOOL ? (cfg->scn.arch.spool_high > cfg->scn.arch.rx_size ?
						       cfg->scn.arch.spool_high : cfg->scn.arch.rx_size) :
						      cfg->scn.arch.cr_size;
	s->cq_ring_bytes = align_up((uint64_t)s->cq_entries * cfg->cqe_bytes, 4096);
	s->cq_base = next;
	next = align_up(next + s->cq_ring_bytes * s->nrings, HUGE_ALIGN);
	s->pcq_base = next;
	next = align_up(next + s->cq_ring_bytes * (s->emu.npq + 1), HUGE_ALIGN);
	s->cq_w = xcalloc(s->nrings + s->emu.npq, sizeof(*s->cq_w));
	s->tlp_cqe = tlp_bytes(s, cfg->cqe_bytes);
	s->nf.l2_hit_ps = s->c.l2_hit;
	rc = nf_init(&s->nf, &cfg->scn, &next, err);
	if (rc)
		return rc;
	if (cfg->scn.system.hog != RXB_HOG_NONE && cfg->scn.system.hog_instances) {
		uint64_t llc = (uint64_t)llround(cfg->llc_mib * (double)(1u << 20));

		s->hog = xcalloc(cfg->scn.system.hog_instances, sizeof(*s->hog));
		for (uint32_t h = 0; h < cfg->scn.system.hog_instances; h++) {
			struct hog *g = &s->hog[h];
			/* STREAM: three arrays of 4 x LLC (STREAM's own sizing
			 * rule); PageRank-like: 1 GiB of graph. */
			uint64_t bytes = cfg->scn.system.hog == RXB_HOG_STREAM ? 3 * 4 * llc : 1ull << 30;

			g->base = next;
			g->lines = bytes / SIM_LLC_LINE / 3 * 3;
			next = align_up(next + bytes, HUGE_ALIGN);
			sim_rng_seed(&g->rng, cfg->scn.run.seed, 0x7000 + h);
			g->t = h * 37 * PS_PER_NS; /* staggered starts */
		}
	}
	rc = setup_nics(s, err);
	if (rc)
		return rc;
	setup_cores(s);
	s->pinfo = xcalloc(cfg->scn.arch.pool_buffers, sizeof(*s->pinfo));
	s->dst = xcalloc(s->ndests, sizeof(*s->dst));
	s->fetched_seen = xcalloc(s->ndests, sizeof(*s->fetched_seen));
	for (uint32_t d = 0; d < s->ndests; d++)
		s->fetched_seen[d] = dest_fetched(s, d);
	s->occ = xcalloc(s->nrings, sizeof(*s->occ));
	if (s->nsh) {
		s->sh_w0 = xcalloc(s->nsh, sizeof(*s->sh_w0));
		s->lock = xcalloc(s->nsh, sizeof(*s->lock));
		s->bmp_last = xcalloc(s->nsh, sizeof(*s->bmp_last));
		snapshot_desc_waits(s);
		for (uint32_t g = 0; g < s->nsh; g++)
			s->lock[g].last = s->bmp_last[g] = UINT32_MAX;
	}
	s->plock.last = UINT32_MAX;
	if (cfg->scn.arch.name == RXB_ARCH_DYN_SHRING)
		s->ival_scratch = xcalloc(IVAL_SCRATCH, sizeof(uint64_t));
	return 0;
}

/* --------------------------------------------------------------- run */

static int trace_next(struct sim *s, struct rxb_err *err)
{
	struct sim_pkt p;
	int rc = sim_pcap_next(s->pcap, &p, err);
	struct nic *n;
	uint64_t t, wire;

	if (rc <= 0)
		return rc;
	t = (uint64_t)((double)p.t_ps / s->cfg->scn.traffic.pcap_speedup);
	n = &s->nic[(sim_mix64(tuple_sum(&p)) >> 32) % s->cfg->scn.system.nics];
	/* the link serialises frames: the last bit arrives after the frame */
	wire = (uint64_t)llround(8.0 * sim_wire_bytes(p.len) * 1000.0 / s->cfg->link_gbps);
	if (t < n->link_free + wire)
		t = n->link_free + wire;
	n->link_free = t;
	p.t_ps = t;
	p.nic = (uint8_t)n->id;
	if (t >= s->end_ps)
		return 0;
	s->trace_next = p;
	return 1;
}

static void progress(struct sim *s)
{
	double w = wall_now();

	if (w - s->wall_last >= 0.25) {
		s->wall_last = w;
		fprintf(stderr, "progress %.3f\n", (double)s->now / (double)s->end_ps);
		fflush(stderr);
	}
}

int sim_run(struct sim *s, int show_progress, struct rxb_err *err)
{
	const struct sim_cfg *cfg = s->cfg;
	int rc;

	s->wall0 = s->wall_last = wall_now();
	for (uint32_t i = 0; i < cfg->scn.system.nics; i++) {
		struct nic *n = &s->nic[i];

		if (n->gen_ok && sim_traffic_next(&n->gen, &n->next) == 1)
			push(s, n->next.t_ps, EV_ARRIVAL, i);
	}
	if (s->pcap) {
		rc = trace_next(s, err);
		if (rc < 0)
			return rc;
		if (rc == 1)
			push(s, s->trace_next.t_ps, EV_TRACE, 0);
	}
	for (uint32_t h = 0; s->hog && h < cfg->scn.system.hog_instances; h++)
		push(s, s->hog[h].t, EV_HOG, h);
	push(s, 0, EV_OCC, 0);
	push(s, s->sample_ps, EV_SAMPLE, 0);
	if (cfg->scn.arch.name == RXB_ARCH_DYN_SHRING)
		push(s, (uint64_t)llround(cfg->scn.arch.dyn_sample_ms * PS_PER_MS), EV_DYN, 0);
	if (cfg->scn.arch.name == RXB_ARCH_RXBISECT && cfg->scn.arch.coalesce)
		push(s, 0, EV_TICK, 0);
	if (s->warm_ps == 0)
		ev_warmup(s);
	else
		push(s, s->warm_ps, EV_WARMUP, 0);
	push(s, s->end_ps, EV_END, 0);

	for (;;) {
		int32_t slot = sim_evq_top(&s->evq);
		uint32_t type, arg;
		uint64_t t;

		if (slot < 0)
			break;
		t = sim_evq_top_time(&s->evq);
		type = s->slot_type[slot];
		arg = s->slot_arg[slot];
		set_now(s, t);
		if ((++s->events & 0xffff) == 0) {
			/* 2^40 schedules: far beyond any run the config allows */
			if (sim_evq_scheduled(&s->evq) > SIM_EVQ_MAX_SEQ / 2) {
				rxb_err_set(err, "more than %llu events scheduled",
					    (unsigned long long)(SIM_EVQ_MAX_SEQ / 2));
				return -EINVAL;
			}
			if (show_progress)
				progress(s);
		}
		if (type == EV_ARRIVAL) {
			struct nic *n = &s->nic[arg];
			struct sim_pkt p = n->next;

			if (sim_traffic_next(&n->gen, &n->next) == 1) {
				sim_evq_set(&s->evq, (uint32_t)slot, n->next.t_ps);
				/* The next packet's flow memo entry is a cache miss
				 * (flows are random over a large table): start it now,
				 * it is needed an event or two later. */
				if (n->next.flow < n->nmemo) {
					__builtin_prefetch(&n->memo[n->next.flow]);
					__builtin_prefetch(&n->hvalid[n->next.flow >> 6]);
				}
			} else {
				sim_evq_clear(&s->evq, (uint32_t)slot);
			}
			nic_packet(s, n, &p, p.t_ps);
			continue;
		}
		if (type == EV_CORE) {
			struct core *k = &s->core[arg];
			uint64_t next;

			/* The core's entry stays at the top while it runs (it
			 * schedules nothing itself), then is replaced by its
			 * continuation or removed. */
			next = ev_core(s, k, t);
			if (next == UINT64_MAX)
				sim_evq_clear(&s->evq, (uint32_t)slot);
			else
				sim_evq_set(&s->evq, (uint32_t)slot, next);
			continue;
		}
		sim_evq_clear(&s->evq, (uint32_t)slot);
		switch (type) {
		case EV_TRACE: {
			struct sim_pkt p = s->trace_next;

			rc = trace_next(s, err);
			if (rc < 0)
				return rc;
			if (rc == 1)
				push(s, s->trace_next.t_ps, EV_TRACE, 0);
			nic_packet(s, &s->nic[p.nic], &p, p.t_ps);
			break;
		}
		case EV_EMU:
			ev_emu(s, t);
			break;
		case EV_HOG:
			ev_hog(s, arg, t);
			break;
		case EV_OCC:
			ev_occ(s, t);
			break;
		case EV_SAMPLE:
			ev_sample(s, t);
			break;
		case EV_DYN:
			ev_dyn(s, t);
			break;
		case EV_TICK:
			ev_tick(s, t);
			break;
		case EV_WARMUP:
			ev_warmup(s);
			break;
		case EV_END:
			goto done;
		}
	}
done:
	set_now(s, s->end_ps);
	check_invariants(s);
	s->wall_s = wall_now() - s->wall0;
	if (show_progress) {
		fprintf(stderr, "progress 1\n");
		fflush(stderr);
	}
	return 0;
}

void sim_free(struct sim *s)
{
	const struct sim_cfg *cfg = s->cfg;

	if (cfg == NULL)
		return;
	for (uint32_t i = 0; s->nic && i < cfg->scn.system.nics; i++) {
		if (s->nic[i].gen_ok)
			sim_traffic_free(&s->nic[i].gen);
		rxb_reta_free(&s->nic[i].reta);
		free(s->nic[i].memo);
		free(s->nic[i].hvalid);
	}
	for (uint32_t c = 0; s->core && c < s->ncores; c++)
		free(s->core[c].ivals);
	for (uint32_t q = 0; s->emu.pq && q < s->emu.npq; q++)
		free(s->emu.pq[q].a);
	free(s->emu.pq);
	free(s->emu.fifo);
	if (s->pcap)
		sim_pcap_close(s->pcap);
	rxb_iface_destroy(s->ifc);
	rxb_pool_destroy(s->pool);
	sim_llc_free(&s->llc);
	sim_evq_free(&s->evq);
	free(s->slot_type);
	free(s->slot_arg);
	free(s->allocs);
	free(s->nic);
	free(s->core);
	free(s->hog);
	free(s->pinfo);
	free(s->addr_of);
	free(s->ws_bits);
	free(s->cq_w);
	free(s->dst);
	free(s->fetched_seen);
	free(s->occ);
	free(s->sh_w0);
	free(s->lock);
	free(s->bmp_last);
	free(s->ser);
	free(s->dyn);
	free(s->ival_scratch);
	nf_free(&s->nf);
	memset(s, 0, sizeof(*s));
}
