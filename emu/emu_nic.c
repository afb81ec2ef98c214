/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The emulator (NIC) lcores: the NIC of the design under test, in software.
 * Each serves its own block of physical queues (emu_nic_shard), and with
 * them their sources and destinations, which no other NIC lcore touches.
 *
 * Every loop a NIC lcore (1) fetches posted descriptors from the design's
 * virtual rings (rxb_iface_nic_fetch) into the fill rings of its physical
 * queues, stamping each buffer with its source ring; (2) polls its physical
 * queues, and per burst classifies every packet (restores the workers'
 * mempool, takes the port's RSS hash or computes it, steers by RETA), then
 * delivers the packets from their source rings, as one
 * rxb_iface_deliver_burst() while they sit in their sources' next buffers,
 * checking the library used the very buffer each packet is in; (3) gives
 * buffers held back by a drop ("holes") back to the physical queue once
 * that is safe.
 *
 * Virtual rings are the library's NIC-side sources (include/rxb/iface.h):
 * e->src[k] is source k, as emu_run.c adds them in the library's order
 * (privRing Rx rings; shared rings; dynamic shRing's Rx rings then shared
 * rings; Ax rings; spool queues). It never reads or writes packet bytes,
 * except the headers software RSS hashes when the port gave no hash.
 *
 * Buffer order. The library consumes the buffers of a virtual ring in the
 * order it handed them out; the physical queue returns them in the same
 * order (a FIFO). When the library drops a packet without consuming its
 * buffer (rxBisect: no Bx slot), that buffer stays the ring's next one in
 * the library but has already come back from the physical queue: it is a
 * "hole" in the emulator's hands. The next packet that arrives in a buffer
 * of that ring has its data area swapped with the hole's (buf_addr,
 * buf_iova and the metadata: pointers only), is delivered as the hole, and
 * its own buffer, now empty, becomes the hole. The ring is not fetched from
 * while it has holes; when none of its buffers is left in the physical
 * queue, the holes go back into the fill ring in order.
 */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_pause.h>

#include "emu_int.h"
#include "mbuf_rx.h"

/* ------------------------------------------------------------ fetching */

unsigned emu_refill(struct emu *e, struct emu_pq *pq)
{
	struct emu_nstats *ns = &e->nic[pq->nic].ns;
	rxb_buf_t bufs[EMU_FETCH_CHUNK];
	uint32_t room = rte_ring_free_count(pq->fill);
	unsigned total = 0;

	for (uint32_t k = 0; k < pq->src_n && room > 0; k++) {
		uint32_t si = pq->src_first + (pq->src_rr + k) % pq->src_n;
		struct emu_src *s = &e->src[si];
		unsigned want = RTE_MIN(room, EMU_FETCH_CHUNK), got;

		if (s->holes != 0)
			continue; /* until its holes are back in the physical queue */
		want = RTE_MIN(want, s->size - emu_src_out(s));
		if (want == 0)
			continue;
		got = rxb_iface_nic_fetch(e->iface, si, bufs, want);
		for (unsigned i = 0; i < got; i++) {
			struct rte_mbuf *m = (struct rte_mbuf *)(uintptr_t)bufs[i];

			if (e->pool_stamps)
				m->pool = pq->vpool;
			emu_meta(m)->src = si;
			s->exp[s->tail++ & s->mask] = bufs[i];
		}
		if (got != 0 && rte_ring_sp_enqueue_bulk(pq->fill, (void **)bufs, got, NULL) != got)
			rxb_counter_add(&ns->mismatch, got); /* cannot happen: room was checked */
		room -= got;
		total += got;
	}
	pq->src_rr++;
	if (total != 0) {
		rxb_counter_add(&pq->fetched, total);
		rxb_counter_add(&ns->fetched, total);
	}
	return total;
}

/* ------------------------------------------------------------ dispatch */

/* What a burst adds to the NIC lcore's counters, added once per burst: the
 * counters are shared lines the control thread reads, so one store each per
 * burst instead of one per packet. */
struct burst_cnt {
	uint64_t port_hash, sw_hash, fixups, dma_bytes, ws_distinct;
	uint64_t swaps, mismatch, dispatched;
};

static void burst_cnt_flush(struct emu_nstats *ns, const struct burst_cnt *c)
{
	rxb_counter_add(&ns->port_hash, c->port_hash);
	rxb_counter_add(&ns->sw_hash, c->sw_hash);
	rxb_counter_add(&ns->steer_fixups, c->fixups);
	rxb_counter_add(&ns->dma_bytes, c->dma_bytes);
	rxb_counter_add(&ns->ws_distinct, c->ws_distinct);
	rxb_counter_add(&ns->swaps, c->swaps);
	rxb_counter_add(&ns->mismatch, c->mismatch);
	rxb_counter_add(&ns->dispatched, c->dispatched);
}

/* Give hole h the packet m carries (pointers and metadata only); m gets
 * h's empty data area. Both come from the same mempool, so the areas have
 * the same size. */
static void swap_area(struct rte_mbuf *h, struct rte_mbuf *m)
{
	void *addr = h->buf_addr;
	rte_iova_t iova = h->buf_iova;
	struct emu_meta *mh = emu_meta(h), *mm = emu_meta(m);

	h->buf_addr = m->buf_addr;
	h->buf_iova = m->buf_iova;
	m->buf_addr = addr;
	m->buf_iova = iova;
	h->data_off = m->data_off;
	h->data_len = m->data_len;
	h->pkt_len = m->pkt_len;
	h->port = m->port;
	h->ol_flags = m->ol_flags;
	h->packet_type = m->packet_type;
	h->hash = m->hash;
	h->vlan_tci = m->vlan_tci;
	h->tx_offload = m->tx_offload;
	mh->t_arr = mm->t_arr;
	mh->epoch = mm->epoch;
}

/* Whether m's destination comes from the hash its port reported (the
 * generator's, a NIC's RSS offload), which reads no byte of the frame;
 * else software RSS hashes the frame's headers. KV steering reads the
 * key. */
static inline bool port_hash_usable(const struct emu *e, const struct rte_mbuf *m)
{
	return e->port_rss && (m->ol_flags & RTE_MBUF_F_RX_RSS_HASH);
}

/* The destination of packet m (RSS, RETA, KV steering), kept within the
 * destinations the buffers of queue pq may serve. */
static uint32_t steer(struct emu *e, struct emu_pq *pq, struct rte_mbuf *m, bool spool,
		      uint32_t *hash, struct burst_cnt *c)
{
	uint16_t dport = 0;
	bool have_dport = false;
	uint32_t core;

	if (port_hash_usable(e, m)) {
		*hash = m->hash.rss;
		c->port_hash++;
	} else {
		*hash = rxb_rss_frame(&e->rss, rte_pktmbuf_mtod(m, const uint8_t *),
				      rte_pktmbuf_data_len(m), &dport);
		have_dport = true;
		c->sw_hash++;
	}
	core = emu_core_of(e, emu_port_of(e, m, *hash), *hash, dport, have_dport);
	if (spool) {
		/* spool: core is the packet's port (spread over the ports, as
		 * the generator steered it); it must belong to this queue. */
		uint32_t q = (uint32_t)(pq - e->pq);

		if (emu_pq_of_core(e, core, 0) != q) {
			uint32_t per = (e->n_dest - q + e->n_pq - 1) / e->n_pq;

			core = e->cfg->scn.arch.spool_mode == RXB_SPOOL_BASIC
				       ? q + (*hash % per) * e->n_pq
				       : q;
			c->fixups++;
		}
	} else if (core - pq->core_first >= pq->core_n) {
		/* The port steered differently from our RETA (a real NIC's own
		 * RSS): pick among the cores this queue's buffers may serve. */
		core = pq->core_first + *hash % pq->core_n;
		c->fixups++;
	}
	return core;
}

/* Everything about packet m that does not depend on other packets' fate:
 * its source, destination and delivery metadata. False: m is not a buffer
 * the emulator handed out (counted, skipped). */
static bool classify(struct emu *e, struct emu_pq *pq, struct rte_mbuf *m, uint64_t now,
		     uint32_t epoch, bool spool, struct rxb_rx_meta *meta, uint32_t *src,
		     struct burst_cnt *c)
{
	struct emu_meta *mt = emu_meta(m);
	uint32_t hash, dest, len = rte_pktmbuf_pkt_len(m);

	if (e->pool_stamps)
		m->pool = e->wpool;
	*src = mt->src;
	if (*src >= e->n_src) {
		c->mismatch++;
		return false;
	}
	if (mt->epoch != epoch) {
		mt->epoch = epoch;
		c->ws_distinct++;
	}
	dest = steer(e, pq, m, spool, &hash, c);
	*meta = (struct rxb_rx_meta){ .len = len, .hash = hash, .dest = dest, .now = now };
	if (e->stamp_arr)
		mt->t_arr = now;
	c->dma_bytes += len;
	return true;
}

/* After the library handled a packet in buffer `use` of source s. */
static void settle(struct emu_nic *nic, struct emu_src *s, struct rte_mbuf *use,
		   const struct rxb_delivery *d, struct burst_cnt *c)
{
	if (d->buf != RXB_BUF_NONE) {
		/* Consumed: the library must have used the buffer the packet is in. */
		c->mismatch += d->buf != (rxb_buf_t)(uintptr_t)use;
		s->head++;
		return;
	}
	/* Dropped before consuming: the buffer (or, after a swap, the packet's
	 * own one, now empty) becomes the ring's last hole. */
	s->holes++;
	nic->holes_pending = true;
	if (s->holes > rxb_counter_read(&nic->ns.holes_max))
		atomic_store_explicit(&nic->ns.holes_max, s->holes, memory_order_relaxed);
}

/* One packet whose buffer is not its source's next (holes, or a PMD that
 * reordered buffers): delivered alone, as the hole it fills. */
static void deliver_one(struct emu_nic *nic, struct rte_mbuf *m, uint32_t si,
			const struct rxb_rx_meta *meta, struct burst_cnt *c)
{
	struct emu *e = nic->e;
	struct emu_src *s = &e->src[si];
	struct rte_mbuf *h = (struct rte_mbuf *)(uintptr_t)s->exp[s->head & s->mask], *use = m;
	struct rxb_delivery d;

	if (h != m) {
		if (s->holes == 0 ||
		    (struct rte_mbuf *)(uintptr_t)s->exp[(s->head + s->holes) & s->mask] != m) {
			c->mismatch++; /* the PMD reordered buffers */
		} else {
			swap_area(h, m);
			use = h;
			c->swaps++;
		}
	}
	/* From the ring the buffer came from. Dynamic shRing: the first packet
	 * of the set E switched to (applied_mode) also switches the library's
	 * NIC, which publishes it to the cores. */
	c->dispatched++;
	if (rxb_iface_deliver_from(e->iface, si, meta, &d) < 0) {
		c->mismatch++;
		return;
	}
	settle(nic, s, use, &d, c);
}

/* How many of the packets from the first on are each in their source's
 * next buffer, counting the ones before them as consumed (s->staged): a
 * burst of them needs no swap. Leaves s->staged set for unstage(). */
static unsigned stage(struct emu *e, struct rte_mbuf **pk, const uint32_t *src, unsigned n)
{
	unsigned k;

	for (k = 0; k < n; k++) {
		struct emu_src *s = &e->src[src[k]];

		if (s->holes != 0 ||
		    (struct rte_mbuf *)(uintptr_t)s->exp[(s->head + s->staged) & s->mask] != pk[k])
			break;
		s->staged++;
	}
	return k;
}

static void unstage(struct emu *e, const uint32_t *src, unsigned n)
{
	for (unsigned k = 0; k < n; k++)
		e->src[src[k]].staged = 0;
}

/* Deliver n classified packets in order: runs of packets in their
 * sources' next buffers as one burst (the common case), stopping after a
 * drop since it leaves a hole the next packets of that source must fill;
 * any other packet alone. While none of this lcore's sources has a hole
 * (holes_pending clear: a hole sets it), every packet is in its source's
 * next buffer unless the PMD reordered them, which settle() counts as a
 * mismatch: the rest of the burst is then one run, without staging. */
static void deliver_all(struct emu_nic *nic, struct rte_mbuf **pk, const uint32_t *src,
			const struct rxb_rx_meta *meta, unsigned n, struct burst_cnt *c)
{
	struct emu *e = nic->e;
	struct rxb_delivery d[EMU_BURST];

	for (unsigned k = 0; k < n;) {
		bool staged = nic->holes_pending;
		unsigned run = staged ? stage(e, pk + k, src + k, n - k) : n - k, got;

		if (run == 0) {
			deliver_one(nic, pk[k], src[k], &meta[k], c);
			k++;
			continue;
		}
		got = rxb_iface_deliver_burst(e->iface, src + k, meta + k, run, d,
					      RXB_BURST_STOP_ON_DROP);
		if (staged)
			unstage(e, src + k, run);
		for (unsigned j = 0; j < got; j++)
			settle(nic, &e->src[src[k + j]], pk[k + j], &d[j], c);
		c->dispatched += got;
		if (got < run && (got == 0 || d[got - 1].drop < 0)) {
			c->mismatch++; /* refused: not a source of its destination */
			c->dispatched++;
			got++;
		}
		k += got;
	}
}

/* Holes of source i go back to its physical queue once none of its buffers
 * is left there: they then come back first, in the library's order.
 * Returns whether holes remain. */
static bool return_src_holes(struct emu *e, uint32_t i, struct emu_nstats *ns)
{
	struct emu_src *s = &e->src[i];
	struct emu_pq *pq = &e->pq[s->pq];
	void *bufs[EMU_FETCH_CHUNK];

	if (s->holes == 0)
		return false;
	if (emu_src_out(s) != s->holes)
		return true;
	for (uint32_t k = 0; k < s->holes;) {
		unsigned n = RTE_MIN(s->holes - k, EMU_FETCH_CHUNK);

		for (unsigned j = 0; j < n; j++) {
			struct rte_mbuf *m = (struct rte_mbuf *)(uintptr_t)
						     s->exp[(s->head + k + j) & s->mask];

			if (e->pool_stamps)
				m->pool = pq->vpool;
			bufs[j] = m;
		}
		if (rte_ring_sp_enqueue_bulk(pq->fill, bufs, n, NULL) != n)
			rxb_counter_add(&ns->mismatch, n);
		k += n;
	}
	s->holes = 0;
	return false;
}

/* The holes of this NIC lcore's sources. */
static bool return_holes(struct emu_nic *nic)
{
	struct emu *e = nic->e;
	bool left = false;

	for (uint32_t q = nic->pq_first; q < nic->pq_first + nic->pq_n; q++) {
		const struct emu_pq *pq = &e->pq[q];

		for (uint32_t i = pq->src_first; i < pq->src_first + pq->src_n; i++) {
			uint32_t before = e->src[i].holes;
			bool l = return_src_holes(e, i, &nic->ns);

			if (before != 0 && !l)
				rxb_counter_add(&nic->ns.hole_returns, 1);
			left = left || l;
		}
	}
	return left;
}

/* Is anything still inside this lcore's physical side (filled, not yet
 * dispatched)? */
static bool physical_busy(struct emu_nic *nic, uint32_t only_set, bool by_set)
{
	struct emu *e = nic->e;

	for (uint32_t q = nic->pq_first; q < nic->pq_first + nic->pq_n; q++) {
		if (by_set && e->pq[q].set != only_set)
			continue;
		if (e->pq[q].wire != NULL && rte_ring_count(e->pq[q].wire) != 0)
			return true;
	}
	return false;
}

/* Packets handled this far ahead are prefetched: a line another CPU wrote
 * takes longer to arrive (about 150-190 cycles on the 16-core server) than
 * classify() spends on 4 packets. */
#define EMU_PREFETCH_AHEAD 8u

/* Prefetch what classify() reads of an mbuf: its header (written by the
 * generator, a NIC's PMD), its private line (the source refill() stamped,
 * often out of this lcore's L2 by now) and, for software RSS only, the
 * packet headers. The frame's first line was last written on another CPU
 * and is read next by the worker: fetching it here when the port's hash is
 * used would move it to this lcore for nothing, once per packet. (The test
 * reads the mbuf's first line, which finding the frame reads anyway.) */
static inline void prefetch_pkt(const struct emu *e, struct rte_mbuf *m)
{
	rte_prefetch0(m);
	rte_prefetch0(emu_meta(m));
	if (!port_hash_usable(e, m))
		rte_prefetch0(rte_pktmbuf_mtod(m, void *));
}

/* Whether t cycles of this lcore were all its own: shorter than 200 µs,
 * while a preemption takes a scheduler slice of milliseconds and a loop of
 * this lcore microseconds. What is longer measures the scheduler. */
static inline bool unpreempted(const struct emu *e, uint64_t t)
{
	return t < e->hz / 5000;
}

/* Every packet of a burst of n waited in E's hands for t cycles, from just
 * before it was taken off the wire to its burst's last completion. Bursts
 * a preemption stretched are left out, as in the loaded cycles. */
static void held(struct emu_nic *nic, uint64_t t, unsigned n)
{
	if (!unpreempted(nic->e, t))
		return;
	rxb_counter_add(&nic->ns.held_cyc, t * n);
	rxb_counter_add(&nic->ns.held_pkts, n);
}

/* emu.source = null: what net_null's receive would do, here — the next
 * `want` buffers of the physical queue (all or none, as its allocation)
 * made frames of the configured size from the input port (the mbufs' first
 * lines only: rxb_mbuf_rx_reset) — without its locked add to a statistics
 * counter per burst, which waits for every store this lcore has in flight
 * to the lines the workers read. */
static unsigned null_burst(struct emu *e, struct emu_pq *pq, struct rte_mbuf **pkts, unsigned want)
{
	uint16_t len = emu_frame_len(e->cfg);

	if (emu_pq_take(pq, pkts, want) != 0)
		return 0;
	for (unsigned i = 0; i < want; i++) {
		rxb_mbuf_rx_reset(pkts[i]);
		pkts[i]->data_len = len;
		pkts[i]->pkt_len = len;
		pkts[i]->port = e->in_port;
	}
	return want;
}

/* Dispatch the n packets a poll of pq gave, from TSC t1: classify each,
 * then deliver them; adds the cycles of the two steps to stage[] and
 * returns the TSC when the last delivery was done. Everything a packet
 * costs the NIC lcore past its receive is in here (bench/emu_callgrind.sh
 * counts its instructions). */
static __attribute__((noinline)) uint64_t dispatch_burst(struct emu_nic *nic, struct emu_pq *pq,
							 struct rte_mbuf **pkts, unsigned n,
							 uint64_t now, uint32_t epoch, bool spool,
							 uint64_t t1, uint64_t *stage)
{
	struct emu *e = nic->e;
	struct rxb_rx_meta meta[EMU_BURST];
	uint32_t src[EMU_BURST];
	struct burst_cnt c = { 0 };
	unsigned nv = 0;
	uint64_t t2, t3;

	for (unsigned i = 0; i < RTE_MIN(n, EMU_PREFETCH_AHEAD); i++)
		prefetch_pkt(e, pkts[i]);
	for (unsigned i = 0; i < n; i++) {
		if (i + EMU_PREFETCH_AHEAD < n)
			prefetch_pkt(e, pkts[i + EMU_PREFETCH_AHEAD]);
		if (classify(e, pq, pkts[i], now, epoch, spool, &meta[nv], &src[nv], &c))
			pkts[nv++] = pkts[i];
	}
	t2 = rte_rdtsc();
	deliver_all(nic, pkts, src, meta, nv, &c);
	t3 = rte_rdtsc();
	stage[RXB_EMU_STAGE_CLASSIFY] += t2 - t1;
	stage[RXB_EMU_STAGE_DELIVER] += t3 - t2;
	burst_cnt_flush(&nic->ns, &c);
	return t3;
}

/* Poll physical queue pq once and dispatch what it gave; adds the cycles
 * of its receive, classify and deliver steps to stage[]. */
static unsigned poll_queue(struct emu_nic *nic, struct emu_pq *pq, uint64_t now, uint32_t epoch,
			   bool spool, uint64_t *stage)
{
	struct emu *e = nic->e;
	struct rte_mbuf *pkts[EMU_BURST];
	unsigned want = EMU_BURST, n;
	uint64_t t0, t1;

	if (e->pmd_allocates) {
		/* Ask for no more than there are buffers: net_null fails a burst
		 * it cannot fill, net_pcap loses the packet it read. The source
		 * is therefore flow-controlled (like Ethernet PAUSE). */
		want = RTE_MIN(want, emu_pq_avail(pq));
		if (want == 0 || atomic_load_explicit(&pq->eof, memory_order_relaxed))
			return 0;
	}
	t0 = rte_rdtsc();
	n = e->cfg->scn.emu.source == RXB_EMU_SOURCE_NULL
		    ? null_burst(e, pq, pkts, want)
		    : rte_eth_rx_burst(e->in_port, pq->qid, pkts, (uint16_t)want);
	if (e->cfg->scn.emu.source == RXB_EMU_SOURCE_PCAP && n < want)
		atomic_store_explicit(&pq->eof, true, memory_order_relaxed);
	if (n == 0)
		return 0;
	t1 = rte_rdtsc();
	stage[RXB_EMU_STAGE_RECEIVE] += t1 - t0;
	held(nic, dispatch_burst(nic, pq, pkts, n, now, epoch, spool, t1, stage) - t0, n);
	rxb_counter_add(&pq->received, n);
	return n;
}

/* Queues q of this lcore in [pq_first, pq_first + pq_n). */
static unsigned refill_all(struct emu_nic *nic)
{
	unsigned work = 0;

	for (uint32_t q = nic->pq_first; q < nic->pq_first + nic->pq_n; q++)
		work += emu_refill(nic->e, &nic->e->pq[q]);
	return work;
}

static unsigned poll_all(struct emu_nic *nic, uint64_t now, uint32_t epoch, bool dyn, bool spool,
			 uint64_t *stage)
{
	struct emu *e = nic->e;
	unsigned pkts = 0;

	for (uint32_t q = nic->pq_first; q < nic->pq_first + nic->pq_n; q++) {
		if (dyn && e->pq[q].set != e->applied_mode)
			continue; /* not steered to; drained before the switch */
		pkts += poll_queue(nic, &e->pq[q], now, epoch, spool, stage);
	}
	return pkts;
}

/* Dynamic shRing (one NIC lcore): move to the set the generator steers to
 * once nothing of the old set is left in the physical side. */
static void dyn_follow(struct emu_nic *nic)
{
	struct emu *e = nic->e;
	/* acquire: pairs with the release in emu_gen_main(); its last enqueue
	 * to the old set is visible, and so is the switch the controller
	 * requested in the library (ctl_mode). */
	uint32_t gm = atomic_load_explicit(&e->gen_mode, memory_order_acquire);

	if (gm != e->applied_mode && !physical_busy(nic, e->applied_mode, true)) {
		e->applied_mode = gm;
		rxb_counter_add(&nic->ns.mode_switches, 1);
	}
}

/* A new working-set window: keep the last one's count if it was the most. */
static void ws_window(struct emu_nic *nic)
{
	uint64_t dist = rxb_counter_read(&nic->ns.ws_distinct);

	if (dist > rxb_counter_read(&nic->ns.ws_max))
		atomic_store_explicit(&nic->ns.ws_max, dist, memory_order_relaxed);
	atomic_store_explicit(&nic->ns.ws_distinct, 0, memory_order_relaxed);
}

/* Time accounting of one loop from `last` to `t`, whose measured steps
 * took stage[] of it. */
static void account(struct emu_nic *nic, uint64_t last, uint64_t t, unsigned work, unsigned pkts,
		    const uint64_t *stage, uint64_t *idle_polls)
{
	struct emu_nstats *ns = &nic->ns;

	rxb_counter_add(&ns->loops, 1);
	if (work == 0) {
		rxb_counter_add(&ns->idle_cyc, t - last);
		rxb_counter_add(&ns->idle_loops, 1);
		(*idle_polls)++;
		return;
	}
	rxb_counter_add(&ns->busy_cyc, t - last);
	/* Full-burst loops that were not preempted: the emulator's own cost
	 * per packet. */
	if (pkts >= EMU_BURST / 2 && unpreempted(nic->e, t - last)) {
		rxb_counter_add(&ns->full_cyc, t - last);
		rxb_counter_add(&ns->full_pkts, pkts);
		for (int s = 0; s < RXB_EMU_STAGE_OTHER; s++)
			rxb_counter_add(&ns->stage_cyc[s], stage[s]);
	}
	*idle_polls = 0;
}

/* relaxed: a trace that ran dry only ends the control loop; the packets it
 * gave are handed over with emu_done. Any NIC lcore may notice. */
static void note_pcap_end(struct emu *e)
{
	bool all = true;

	if (e->cfg->scn.emu.source != RXB_EMU_SOURCE_PCAP ||
	    atomic_load_explicit(&e->src_done, memory_order_relaxed))
		return;
	for (uint32_t q = 0; q < e->n_pq; q++)
		all = all && atomic_load_explicit(&e->pq[q].eof, memory_order_relaxed);
	if (all)
		atomic_store_explicit(&e->src_done, 1, memory_order_relaxed);
}

static bool should_stop(struct emu_nic *nic, uint64_t idle_polls)
{
	struct emu *e = nic->e;

	if (atomic_load_explicit(&e->quit, memory_order_relaxed))
		return true;
	/* acquire: pairs with the release in rxb_emu_run()'s drain; the
	 * source's last packets are visible, so empty wire rings stay empty. */
	return atomic_load_explicit(&e->emu_stop, memory_order_acquire) &&
	       !physical_busy(nic, 0, false) &&
	       (e->cfg->scn.emu.source != RXB_EMU_SOURCE_PORT || idle_polls > 1000);
}

int emu_nic_main(void *arg)
{
	struct emu_nic *nic = arg;
	struct emu *e = nic->e;
	const bool dyn = e->cfg->scn.arch.name == RXB_ARCH_DYN_SHRING;
	const bool spool = e->cfg->scn.arch.name == RXB_ARCH_SPOOL;
	const bool coalesce = e->cfg->scn.arch.coalesce &&
			      e->cfg->scn.arch.name == RXB_ARCH_RXBISECT;
	uint32_t epoch = atomic_load_explicit(&e->ws_epoch, memory_order_relaxed);
	uint64_t last = rte_rdtsc(), idle_polls = 0;

	do {
		uint64_t now = rte_rdtsc(), t, stage[RXB_EMU_STAGE_OTHER] = { 0 };
		unsigned work, pkts;
		uint32_t ep = atomic_load_explicit(&e->ws_epoch, memory_order_relaxed);

		if (ep != epoch) {
			ws_window(nic);
			epoch = ep;
		}
		work = refill_all(nic);
		stage[RXB_EMU_STAGE_REFILL] = rte_rdtsc() - now;
		pkts = poll_all(nic, now, epoch, dyn, spool, stage);
		work += pkts;
		if (dyn)
			dyn_follow(nic);
		if (nic->holes_pending)
			nic->holes_pending = return_holes(nic);
		if (coalesce) /* one NIC lcore (emu_nic_shard) */
			work += rxb_iface_tick(e->iface, now);
		t = rte_rdtsc();
		account(nic, last, t, work, pkts, stage, &idle_polls);
		last = t;
		note_pcap_end(e);
	} while (!should_stop(nic, idle_polls));
	/* Coalesced notices still held: write them now, so the owners refill
	 * and the workers drain them before they stop. */
	if (coalesce)
		rxb_iface_tick(e->iface, UINT64_MAX);
	/* release: pairs with the acquires in emu_nics_done() (emu_worker.c's
	 * drained(), emu_run.c's all_done()); this lcore's deliveries and held
	 * notices are in the rings, so a worker that sees every NIC lcore done
	 * and an empty ring is drained, and the counters are final. */
	atomic_fetch_add_explicit(&e->emu_done, 1, memory_order_release);
	return 0;
}

/* Contiguous blocks of physical queues, as even as they divide. A queue's
 * sources and destinations are its own (dynamic shRing, whose core c has a
 * private and a shared queue, runs on one lcore: rxb_emu_cfg_check). */
void emu_nic_shard(struct emu *e)
{
	for (uint32_t j = 0; j < e->n_nic; j++) {
		struct emu_nic *nic = &e->nic[j];
		uint32_t first = (uint32_t)((uint64_t)j * e->n_pq / e->n_nic);

		nic->e = e;
		nic->id = j;
		nic->pq_first = first;
		nic->pq_n = (uint32_t)((uint64_t)(j + 1) * e->n_pq / e->n_nic) - first;
		for (uint32_t q = first; q < first + nic->pq_n; q++)
			e->pq[q].nic = j;
	}
}
