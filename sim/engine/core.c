/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The cores of the simulator core (docs/simulator.md §2.5): each polls
 * its queue, pays the receive call, the shRing synchronisation and the
 * allocator, reads the burst's completions and headers, runs the network
 * function (nf.h) packet by packet, transmits into its Tx ring (tx.c),
 * frees what its Tx completions released, and polls again — in steps that each start within the horizon of the event clock
 * (the time rule, §1.1), yielding between them when it has run ahead.
 */
#include <math.h>

#include "alloc.h"
#include "core.h"
#include "engine_int.h"
#include "measure.h"
#include "nic.h" /* set-up: which NIC a core serves, its first core */
#include "rxb/shring.h"
#include "stats.h"
#include "tx.h"

#define ALLOC_RETRY_PS (1000ull * PS_PER_NS) /* a core refused by the allocator retries */

static inline uint64_t sw_read(const struct rxb_sw_stats *st, enum rxb_sw_counter c)
{
	return st ? rxb_counter_read(&st->c[c]) : 0;
}

/* The library's software counters of queue q that the costs follow. */
struct swsnap {
	uint64_t db, notices, afail, lock, ors, ret, entries;
};

/* The library's counters of queue q: *sw its software side (NULL for the
 * shRing designs), *shs its shared-ring side (shRing designs, dynamic
 * shRing; else NULL). The pointers stay valid for the interface's life. */
static void sw_stats_of(struct sim *s, uint32_t q, const struct rxb_sw_stats **swp,
			const struct rxb_sw_stats **shsp)
{
	const struct rxb_sw_stats *sw = rxb_iface_sw_stats(s->ifc, q), *shs = NULL;
	struct rxb_shring *sh = rxb_iface_shring(s->ifc);

	if (sh != NULL)
		shs = rxb_shring_sw_stats(sh, q);
	*swp = sw == shs ? NULL : sw; /* shRing: the interface's are the shared ring's */
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
	o->entries = sw_read(sw, RXB_SW_BX_ENTRIES);
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

		ps += sim_res_take(&s->mem, &s->lock[g], k->id, k->t + ps,
				   s->c.lock + (j == 0 ? dret : 0) * s->c.ret_desc, s->c.xfer,
				   &wait);
		if (s->mem.warm)
			s->sync_wait += wait;
	}
	k->t += ps;
	k->cost.sync += ps;
	an_charge(s, k, AN_SYNC, ps);
}

/* Core k waits until t (if later), the wait charged to comp. */
static void wait_until(struct sim *s, struct core *k, uint64_t t, unsigned comp)
{
	if (t > k->t) {
		an_charge(s, k, comp, t - k->t);
		k->t = t;
	}
}

enum { POLL_SLEPT = 0, POLL_BATCH, POLL_AGAIN, POLL_RETRY };
/* Where a core's loop is (struct core.ph): about to poll; the burst's
 * completion reads, header reads (wave k->j); packet k->i (step k->step);
 * the burst's free; the freed buffers' mbuf reads (wave k->j). */
enum { PH_POLL = 0, PH_CQ, PH_HDR, PH_PKT, PH_FREE, PH_MBQ };
/* Where packet k->i is (struct core.step): waiting for its completion to
 * be visible; in its network function (struct core.nf: the next step);
 * at its target reads, then its transmit. */
enum { PK_ARRIVE = 0, PK_NF, PK_OUT };

/* A poll that received nothing: retry shortly when the allocator refused
 * (packets wait for buffers), else try the next queue (spool) or sleep. */
static int poll_empty(struct sim *s, struct core *k, uint64_t afail)
{
	bool refused = afail != k->sw_afail;

	k->sw_afail = afail;
	if (refused) {
		if (s->mem.warm)
			k->alloc_fail_polls++;
		k->t += ALLOC_RETRY_PS;
		an_charge(s, k, AN_ALLOC_RETRY, ALLOC_RETRY_PS);
		return POLL_RETRY;
	}
	if (s->arch == RXB_ARCH_SPOOL && ++k->qempty < k->nq)
		return POLL_AGAIN; /* try the next queue */
	k->qempty = 0;
	if (s->mem.warm)
		k->empty_polls++;
	k->state = CS_SLEEP;
	k->sleeping_since_poll = true;
	return POLL_SLEPT;
}

/* One receive call of core k: POLL_BATCH with a batch to process,
 * POLL_SLEPT when the core went to sleep, POLL_AGAIN to poll its next queue
 * (spool), POLL_RETRY to retry at k->t (the allocator refused). */
static int poll(struct sim *s, struct core *k)
{
	const struct sim_cfg *cfg = s->cfg;
	uint32_t q = k->id;
	uint64_t t = k->t, rx, db, notices, afail, lock, ors, ret, entries, only;
	unsigned n;

	if (s->arch == RXB_ARCH_SPOOL) {
		if (k->nq == 0) { /* more cores than queues: this one has none */
			k->state = CS_SLEEP;
			return POLL_SLEPT;
		}
		q = k->id + k->qnext * s->ncores;
		k->qnext = (k->qnext + 1) % k->nq;
	}
	record_interval(k, t);
	k->sleeping_since_poll = false;
	k->last_poll = t;
	if (s->mem.warm) {
		uint32_t o = ring_occupancy(s, q);

		if (o > s->occ_poll_max)
			s->occ_poll_max = o;
		k->polls++;
	}
	sim_note_step(&s->mem, t);
	n = rxb_iface_rx(s->ifc, q, k->pk, cfg->scn.arch.batch, t);
	if (s->arch == RXB_ARCH_SPOOL) {
		/* per-queue counters: no deltas kept per queue; doorbells charged
		 * per non-empty poll */
		db = k->sw_db + (n ? 1 : 0);
		notices = afail = lock = ors = ret = entries = 0;
	} else {
		/* sw_snap's counters, through the pointers it would look up */
		db = sw_read(k->sw, RXB_SW_DOORBELLS) + sw_read(k->shs, RXB_SW_DOORBELLS);
		notices = sw_read(k->sw, RXB_SW_NOTICES);
		afail = sw_read(k->sw, RXB_SW_ALLOC_FAIL) + sw_read(k->shs, RXB_SW_ALLOC_FAIL);
		lock = sw_read(k->shs, RXB_SW_LOCK_ACQUIRES);
		ors = sw_read(k->shs, RXB_SW_BITMAP_ORS);
		ret = sw_read(k->shs, RXB_SW_RETURNED);
		entries = sw_read(k->sw, RXB_SW_BX_ENTRIES);
	}
	/* rxBisect: the Bx entries that carried only a consumption notice
	 * (the others carried the n packets). Each is read as a packet's
	 * completion is, and acted on for half a packet's cycles. */
	only = entries - k->sw_entries > n ? entries - k->sw_entries - n : 0;
	rx = n ? s->c.rx_call + n * s->c.rx_pkt : s->c.empty_poll;
	rx += only * s->c.rx_pkt / 2;
	an_charge(s, k, n ? AN_RX_CALL : AN_EMPTY_POLL, rx);
	an_charge(s, k, AN_DOORBELL, (db - k->sw_db) * s->c.doorbell);
	rx += (db - k->sw_db) * s->c.doorbell;
	k->t += rx;
	k->cost.rx += rx;
	if (lock != k->sw_lock || ors != k->sw_ors)
		charge_sync(s, k, q, lock - k->sw_lock, ors - k->sw_ors, ret - k->sw_ret);
	/* A call that received nothing and acted on no notice took no buffer. */
	if (n || notices != k->sw_notices || afail != k->sw_afail)
		alloc_charge(s, k);
	k->sw_db = db;
	k->sw_notices = notices;
	k->sw_lock = lock;
	k->sw_ors = ors;
	k->sw_ret = ret;
	k->sw_entries = entries;
	k->cq_only += only;
	/* A call that read only notices is a batch without packets: its
	 * entries are read now. If the allocator refused it, the retry
	 * reads them. */
	if (n == 0 && (k->cq_only == 0 || afail != k->sw_afail))
		return poll_empty(s, k, afail);
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
	if (n != 0)
		wait_until(s, k, s->pinfo[k->pk[0].buf].vis, AN_DMA_WAIT);
	return POLL_BATCH;
}

/* The next completion entry of the batch's ring, in the order the NIC
 * wrote them: the ring's own read position, as the NIC keeps a write
 * position per ring (a spool core polls several queues). */
static void completion_read(struct sim *s, struct core *k, struct acc *a)
{
	uint32_t ring = cq_ring(s, k->q);

	a->comp = AN_CQE;
	if (s->cfg->scn.arch.emulated) {
		/* the emulator's virtual completions, across the socket */
		a->cls = ACC_FIXED;
		a->addr = s->c.xsocket;
		return;
	}
	a->cls = (uint8_t)s->cls_cqrd;
	a->addr = cq_next(s, cq_ring_base(s, ring), &s->cq_r[ring]);
}

/* Access idx of the current memory phase:
 *   PH_CQ   the receive call: per packet its completion entry (read) and
 *           its mbuf's first line (written by the driver: pkt_len, ol_flags,
 *           hash...), rxBisect's entries with only a notice (read), then
 *           the allocator's mbuf touches of the call (k->mbq: the reposted
 *           buffers' first lines, written);
 *   PH_HDR  the application, per packet: the frame's first line, the
 *           header (fetched for writing when the NF rewrites it);
 *   PH_MBQ  after the burst's free: the freed mbufs' second lines (read).
 * The application's read of the mbuf's first line (the driver wrote it in
 * this burst's receive call, on this core) and the free's (the freeing
 * core read it when it took the packet) are L2 hits overlapped with the
 * access beside them in the same wave, which takes at least as long: they
 * add no time and are not issued. Packet lines go through the core's
 * packet class, mbuf lines through their own (engine.h: cls_mbrx,
 * cls_mbal). */
static void phase_acc(struct sim *s, struct core *k, unsigned idx, struct acc *a)
{
	a->cls = (uint8_t)k->cls_pkt;
	a->op = SIM_LLC_RD;
	if (k->ph == PH_HDR) {
		a->addr = sim_frame_addr(s, k->pk[idx].buf);
		a->op = s->nf.hdr_write ? SIM_LLC_WR : SIM_LLC_RD;
		a->comp = AN_HDR;
	} else if (k->ph == PH_MBQ || idx >= 2 * k->n + k->cq_only) {
		uint64_t e = k->mbq[k->ph == PH_MBQ ? idx : idx - 2 * k->n - k->cq_only];

		a->cls = (uint8_t)s->cls_mbal;
		a->addr = e & ~(uint64_t)MBQ_WR;
		a->op = (uint8_t)(e & MBQ_WR);
		a->comp = a->op == SIM_LLC_WR ? AN_MBUF_ALLOC : AN_MBUF_FREE;
	} else if (idx & 1 && idx < 2 * k->n) {
		a->cls = (uint8_t)s->cls_mbrx;
		a->addr = sim_mbuf_line(s, k->pk[idx / 2].buf, 0);
		a->op = SIM_LLC_WR;
		a->comp = AN_MBUF_RX;
	} else {
		completion_read(s, k, a);
	}
}

/* The memory phases of a burst (phase_acc), one wave (at most system.mlp
 * independent accesses) at a time: the receive call's (rx), then the
 * application's prologue (DPDK applications prefetch the burst's headers:
 * app), or after the free the freed mbufs' (alloc). A wave starts only
 * within the horizon; false when the core must yield first (its clock is
 * past `limit`). */
static bool burst_reads(struct sim *s, struct core *k, uint64_t limit)
{
	uint32_t mlp = s->cfg->scn.system.mlp;
	struct acc a[RXB_BURST_MAX];

	while (k->ph == PH_CQ || k->ph == PH_HDR || k->ph == PH_MBQ) {
		unsigned total = k->ph == PH_MBQ  ? k->mbq_n
				 : k->ph == PH_CQ ? 2 * k->n + k->cq_only + k->mbq_n
						  : k->n;
		unsigned m = total - k->j < mlp ? total - k->j : mlp;
		uint64_t l;

		if (m > RXB_BURST_MAX)
			m = RXB_BURST_MAX;
		/* the driver's loop overlaps the completions and mbuf writes of
		 * system.rx_cqe_wave packets (mlx5's vector path: 4 a loop,
		 * prefetching only the next 4 completions; docs/workloads.md) */
		if (k->ph == PH_CQ && m > 2 * s->cfg->scn.system.rx_cqe_wave)
			m = 2 * s->cfg->scn.system.rx_cqe_wave;
		if (k->t > limit)
			return false;
		sim_note_step(&s->mem, k->t);
		for (unsigned j = 0; j < m; j++)
			phase_acc(s, k, k->j + j, &a[j]);
		l = m ? sim_mem_par(&s->mem, k->t, k->id, a, m, &k->an) : 0;
		k->t += l;
		if (k->ph == PH_CQ)
			k->cost.rx += l;
		else if (k->ph == PH_HDR)
			k->cost.app += l;
		else
			k->cost.alloc += l;
		k->j += m;
		if (k->j == total) {
			k->j = 0;
			if (k->ph != PH_HDR)
				k->mbq_n = 0; /* the allocator's touches are issued */
			if (k->ph == PH_CQ)
				k->cq_only = 0; /* and the notices' entries */
			k->ph = k->ph == PH_CQ ? PH_HDR : k->ph == PH_HDR ? PH_PKT : PH_POLL;
		}
	}
	return true;
}

static void finish_packet(struct sim *s, struct core *k, const struct rxb_pkt *pk,
			  const struct pinfo *pi)
{
	uint64_t lat;

	tx_packet(s, k, pk->buf, k->q, pi->len, pi->nic);
	lat = k->t - pi->arr;
	if (pi->arr >= s->warm_ps) {
		s->delivered++;
		s->dst[pi->dest].delivered++;
		rxb_hist_add(&s->lat, lat);
	}
	if (s->mem.warm) {
		s->departures++;
		s->dep_wire_bytes += sim_wire_bytes(pi->len);
		k->pkts++;
		k->wire_bytes += sim_wire_bytes(pi->len);
		k->lat_sum += (double)lat;
		k->lat_n++;
	}
	s->cur.departures++;
	s->cur.wire_bits += 8ull * sim_wire_bytes(pi->len);
	s->cur.lat_sum += (double)lat;
	s->cur.lat_n++;
}

/* A packet's compute time: the NF's cycles and workload.compute_ns, times
 * a lognormal factor of mean 1 and coefficient of variation
 * system.service_cv (no two packets cost the same: mispredictions, TLB and
 * front-end misses), plus slow_extra on slow cores. */
static uint64_t compute_time(struct sim *s, struct core *k)
{
	double sigma = s->c.service_sigma;
	uint64_t l = s->c.nf_compute + s->c.compute_extra;

	if (sigma > 0)
		l = (uint64_t)((double)l * sim_rng_lognormal(&k->vrng, -sigma * sigma / 2, sigma));
	return l + (k->slow ? s->c.slow_extra : 0);
}

/* The core's next timer interrupt or rare pause after *next (ps). */
static void next_pause(struct sim *s, struct core *k, uint64_t *next)
{
	if (next == &k->tick_next)
		*next = s->c.tick_period == UINT64_MAX ? UINT64_MAX : *next + s->c.tick_period;
	else
		*next += (uint64_t)sim_rng_exp(&k->vrng, s->c.pause_gap) + 1;
}

/* The core at time t, after the interruptions that are not its work: the
 * scheduler tick (periodic) and rare long pauses (Poisson). Reaching t
 * inside one, it resumes at the end; the ones it slept through cost
 * nothing. Returns the time it goes on at. */
static uint64_t after_pauses(struct sim *s, struct core *k, uint64_t t)
{
	for (;;) {
		uint64_t *next = k->tick_next <= k->pause_next ? &k->tick_next : &k->pause_next;
		uint64_t end = *next + (next == &k->tick_next ? s->c.tick : s->c.pause);

		if (*next > t)
			return t;
		if (end > t) {
			if (s->mem.warm)
				k->paused += end - t;
			t = end;
		}
		next_pause(s, k, next);
	}
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
		sim_note_step(&s->mem, k->t);
		n = nf_step(&s->nf, &k->nf, &k->rng, a, &priv);
		if (n == 1) /* sim_mem_par of one, without the loop (NF accesses are lines) */
			l = sim_mem_one(&s->mem, k->t, k->id, a[0].cls, (enum sim_llc_op)a[0].op,
					a[0].addr, &k->an, a[0].comp);
		else
			l = n ? sim_mem_par(&s->mem, k->t, k->id, a, n, &k->an) : 0;
		an_charge(s, k, k->nf.priv_comp, priv);
		l += priv;
		k->t += l;
		k->cost.app += l;
	}
	l = compute_time(s, k);
	an_charge(s, k, AN_COMPUTE, l);
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
		wait_until(s, k, pi->vis, AN_DMA_WAIT);
		if (k->t >= k->tick_next || k->t >= k->pause_next)
			wait_until(s, k, after_pauses(s, k, k->t), AN_PAUSE);
		if (k->t > limit)
			return false;
		nf_begin(&s->nf, &k->nf, k->id, k->nic, k->cls_pkt, &k->rng, pi->flow, pi->order,
			 pi->key, pi->len, sim_frame_addr(s, pk->buf),
			 sim_mbuf_line(s, pk->buf, 2));
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
		sim_note_step(&s->mem, k->t);
		r = nf_target_read(&s->nf, &k->rng);
		l = sim_mem_one(&s->mem, k->t, k->id, r.cls, (enum sim_llc_op)r.op, r.addr, &k->an,
				r.comp);
		k->t += l;
		k->cost.app += l;
		k->tr_left--;
	}
	/* a full Tx ring: wait for its oldest completion, which is known once
	 * the NIC has read that packet; until then, yield and look again */
	wait_until(s, k, tx_room_at(s, k), AN_TX_FULL_WAIT);
	if (!tx_has_room(k))
		return false;
	/* the transmit's DMA read follows the descriptor write (tx_pkt) */
	if (k->t + s->c.tx_pkt > limit && k->t > s->mem.now)
		return false;
	finish_packet(s, k, pk, pi);
	k->i++;
	k->step = PK_ARRIVE;
	return true;
}

static uint64_t run_loop(struct sim *s, struct core *k, uint64_t now);

/* Core k's loop from time `now`. Returns when it must wait for other
 * events: the time to resume at, or UINT64_MAX when it sleeps (a delivery
 * wakes it) or is stalled for good. Its busy time is measured here, apart
 * from the anatomy's charges (anatomy.h). */
uint64_t ev_core(struct sim *s, struct core *k, uint64_t now)
{
	uint64_t from, next;

	if (k->t < now)
		k->t = now;
	k->state = CS_SCHED;
	if (k->t >= k->stall_from && k->t < k->stall_to) {
		/* A stalled core makes no receive call: its next interval runs
		 * from the stall's start if it was asleep (idle time makes no
		 * interval, measure.c), else from its last call. */
		if (k->sleeping_since_poll && k->stall_from > k->last_poll)
			k->last_poll = k->stall_from;
		k->sleeping_since_poll = false;
		if (k->stall_to == UINT64_MAX) {
			k->state = CS_STALLED;
			return UINT64_MAX;
		}
		k->t = k->stall_to;
		return k->t;
	}
	from = k->t;
	next = run_loop(s, k, now);
	if (s->mem.warm)
		k->busy += k->t - from;
	return next;
}

/* ev_core's loop, for a core that is not stalled. */
static uint64_t run_loop(struct sim *s, struct core *k, uint64_t now)
{
	uint64_t limit = now + s->mem.horizon_ps;

	/* The time rule (docs/simulator.md): every step that touches a shared
	 * resource starts at a local time within the horizon; past it, the
	 * core yields and resumes there once the event clock has caught up. */
	for (;;) {
		int rc;

		switch (k->ph) {
		case PH_CQ:
		case PH_HDR:
		case PH_MBQ:
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
		case PH_FREE:
			/* The burst's buffers went to the Tx ring; the ones whose
			 * completions are in go back to the pool, a batch at a time.
			 * The pool's lock, if a flush takes it, comes after the
			 * objects' cycles: those too within the horizon. */
			if (k->t + RXB_BURST_MAX * s->c.alloc_obj > limit && k->t > now)
				return k->t;
			k->n = k->i = 0;
			k->ph = PH_POLL;
			tx_reap(s, k, TX_FREE_THRESH);
			if (k->mbq_n) { /* the freed mbufs' lines, then poll */
				k->ph = PH_MBQ;
				k->j = 0;
				continue;
			}
			/* fall through */
		default: /* PH_POLL */
			break;
		}
		if (k->t >= k->tick_next || k->t >= k->pause_next) /* then poll where it ends */
			wait_until(s, k, after_pauses(s, k, k->t), AN_PAUSE);
		if (k->t > now) {
			/* Poll at the exact time the loop gets there: at once when
			 * no other event comes first (this core's own entry, still at
			 * the top of the queue, is at `now`), else after them. */
			if (next_other(s) <= k->t)
				return k->t;
			now = k->t;
			sim_mem_set_now(&s->mem,
					now); /* no other event before: the event clock is here */
			limit = now + s->mem.horizon_ps;
		}
		rc = poll(s, k);
		if (rc == POLL_SLEPT)
			return UINT64_MAX;
		if (rc == POLL_RETRY)
			return k->t;
	}
}

/* Each core's identity, generator, faults (stall, slow), target role,
 * spool queues, and the library counters its costs are deltas of. */
void core_setup(struct sim *s)
{
	const struct sim_cfg *cfg = s->cfg;

	for (uint32_t c = 0; c < s->ncores; c++) {
		struct core *k = &s->core[c];
		const struct nic *n = &s->nic[cfg->nic_of_core[c]];

		k->id = c;
		k->nic = n->id;
		sim_rng_seed(&k->rng, cfg->scn.run.seed, 0x5000 + c);
		sim_rng_seed(&k->vrng, cfg->scn.run.seed, 0x6000 + c);
		/* ticks at a phase of their own per core; pauses a Poisson process */
		k->tick_next = s->c.tick_period == UINT64_MAX
				       ? UINT64_MAX
				       : sim_rng_below(&k->vrng, s->c.tick_period);
		k->pause_next = s->c.pause_gap > 0 ? 0 : UINT64_MAX;
		if (s->c.pause_gap > 0)
			next_pause(s, k, &k->pause_next);
		k->state = CS_SLEEP;
		k->sleeping_since_poll = true;
		k->stall_from = k->stall_to = UINT64_MAX;
		for (uint32_t j = 0; j < cfg->scn.system.stalled_cores.n; j++) {
			if (cfg->scn.system.stalled_cores.v[j] == c) {
				k->stall_from = (uint64_t)llround(cfg->scn.system.stall_at_ms *
								  PS_PER_MS);
				k->stall_to =
					cfg->scn.system.stall_for_ms > 0
						? k->stall_from +
							  (uint64_t)llround(
								  cfg->scn.system.stall_for_ms *
								  PS_PER_MS)
						: UINT64_MAX;
			}
		}
		for (uint32_t j = 0; j < cfg->scn.system.slow_cores.n; j++)
			k->slow |= cfg->scn.system.slow_cores.v[j] == c;
		k->target = cfg->scn.traffic.pattern == RXB_PATTERN_TARGET &&
			    c == n->first_core + cfg->scn.traffic.target_core;
		if (s->arch == RXB_ARCH_SPOOL)
			k->nq = c < s->nrings ? (s->nrings - c + s->ncores - 1) / s->ncores : 0;
		else
			k->nq = 1;
		rxb_pool_stats(s->pool, c, &k->ps);
		k->mbq_n = 0; /* the priming's buffers were posted before the run */
		if (cfg->scn.arch.name == RXB_ARCH_DYN_SHRING)
			k->ivals = sim_xcalloc(1, sizeof(*k->ivals));
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
		k->sw_entries = w.entries;
	}
}

/* ------------------------------------------------------------ stats */

static double ps_to_cycles(const struct sim *s, double ps)
{
	return ps * s->cfg->freq_ghz / 1000.0;
}

json_t *core_cycles_json(const struct sim *s, const struct ccost *c, uint64_t pkts)
{
	json_t *o = json_object();
	double n = (double)pkts;
	uint64_t total = c->rx + c->sync + c->alloc + c->app;

	if (pkts == 0) {
		jset(o, "rx", json_null());
		jset(o, "sync", json_null());
		jset(o, "alloc", json_null());
		jset(o, "app", json_null());
		jset(o, "total", json_null());
		return o;
	}
	jset(o, "rx", jnum(ps_to_cycles(s, (double)c->rx) / n));
	jset(o, "sync", jnum(ps_to_cycles(s, (double)c->sync) / n));
	jset(o, "alloc", jnum(ps_to_cycles(s, (double)c->alloc) / n));
	jset(o, "app", jnum(ps_to_cycles(s, (double)c->app) / n));
	jset(o, "total", jnum(ps_to_cycles(s, (double)total) / n));
	return o;
}

json_t *core_stats_per_core(const struct sim *s, double T)
{
	json_t *arr = json_array();

	for (uint32_t c = 0; c < s->ncores; c++) {
		const struct core *k = &s->core[c];
		json_t *o = json_object();
		uint64_t drops[RXB_DROP_CAUSES] = { 0 }, offered = 0, total;

		for (uint32_t d = 0; d < s->ndests; d++) {
			if (s->arch == RXB_ARCH_SPOOL
				    ? rxb_spool_queue_of(rxb_iface_spool(s->ifc), d) % s->ncores !=
					      c
				    : d != c)
				continue;
			offered += s->dst[d].offered;
			for (int x = 0; x < RXB_DROP_CAUSES; x++)
				drops[x] += s->dst[d].drops[x];
		}
		total = k->cost.rx + k->cost.sync + k->cost.alloc + k->cost.app;
		jset(o, "core", jcount(c));
		jset(o, "nic", jcount(k->nic));
		jset(o, "offered", jcount(offered));
		jset(o, "delivered", jcount(k->pkts));
		jset(o, "throughput_gbps", jnum(8.0 * (double)k->wire_bytes / T / 1e9));
		jset(o, "drops_by_cause", jdrops(drops));
		jset(o, "cycles_per_packet", core_cycles_json(s, &k->cost, k->pkts));
		jset(o, "alloc_cycle_share",
		     total ? jfrac((double)k->cost.alloc / (double)total) : json_null());
		jset(o, "busy_fraction", jfrac((double)total / (T * 1e12)));
		jset(o, "paused_fraction", jfrac((double)k->paused / (T * 1e12)));
		jset(o, "tx_full_waits", jcount(k->tx_full_waits));
		jset(o, "tx_ring_mean",
		     s->occ_samples ? jnum((double)k->tx_occ_sum / (double)s->occ_samples)
				    : json_null());
		jset(o, "latency_us_mean",
		     k->lat_n ? jnum(k->lat_sum / (double)k->lat_n / 1e6) : json_null());
		jset(o, "polls", jcount(k->polls));
		jset(o, "empty_polls", jcount(k->empty_polls));
		jset(o, "alloc_refused_polls", jcount(k->alloc_fail_polls));
		jset(o, "slow", json_boolean(k->slow));
		jset(o, "stalls", json_boolean(k->stall_from != UINT64_MAX));
		jset(o, "target", json_boolean(k->target));
		json_array_append_new(arr, o);
	}
	return arr;
}

/* The cores' cycles summed. */
void core_cost_total(const struct sim *s, struct ccost *tot)
{
	*tot = (struct ccost){ 0 };
	for (uint32_t c = 0; c < s->ncores; c++) {
		tot->rx += s->core[c].cost.rx;
		tot->sync += s->core[c].cost.sync;
		tot->alloc += s->core[c].cost.alloc;
		tot->app += s->core[c].cost.app;
	}
}
