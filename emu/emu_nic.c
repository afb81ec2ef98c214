/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The emulator lcore: the NIC of the design under test, in software.
 *
 * Every loop it (1) fetches posted descriptors from the design's virtual
 * rings (rxb_iface_nic_fetch) into the fill rings of the physical queues
 * they feed, stamping each buffer with its source ring; (2) polls the
 * physical queues, and for each packet restores the workers' mempool, takes
 * the port's RSS hash or computes it, steers by RETA, and delivers it from
 * its source ring (rxb_iface_deliver_from), checking the library used the
 * very buffer the packet is in; (3) gives buffers held back by a drop
 * ("holes") back to the physical queue once that is safe.
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

uint32_t emu_core_of(const struct emu *e, uint32_t hash, uint16_t dport, bool have_dport)
{
	/* KV: the NIC steers a request to its partition's core by destination
	 * port (a flow-director rule, as MICA uses), not by RSS. */
	if (e->kv_steer && have_dport && dport >= RXB_KV_UDP_PORT)
		return (uint32_t)(dport - RXB_KV_UDP_PORT) % e->n_dest;
	return rxb_reta_lookup(&e->reta, hash);
}

uint32_t emu_pq_of_core(const struct emu *e, uint32_t core, uint32_t dyn_set)
{
	switch (e->cfg->scn.arch.name) {
	case RXB_ARCH_SHRING:
	case RXB_ARCH_SHRING_LIST:
		return core / e->share;
	case RXB_ARCH_DYN_SHRING:
		return dyn_set == RXB_DYN_PRIVATE ? core : e->cores + core / e->share;
	case RXB_ARCH_RXBISECT:
		return (uint32_t)((uint64_t)core * e->n_pq / e->cores);
	case RXB_ARCH_SPOOL: /* "core" is a port here */
		return e->cfg->scn.arch.spool_mode == RXB_SPOOL_BASIC ? core % e->n_pq : core;
	default:
		return core;
	}
}

/* ------------------------------------------------------------ fetching */

unsigned emu_refill(struct emu *e, struct emu_pq *pq)
{
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

			m->pool = pq->vpool;
			emu_meta(m)->src = si;
			s->exp[s->tail++ & s->mask] = bufs[i];
		}
		if (got != 0 &&
		    rte_ring_sp_enqueue_bulk(pq->fill, (void **)bufs, got, NULL) != got)
			rxb_counter_add(&e->ns.mismatch, got); /* cannot happen: room was checked */
		room -= got;
		total += got;
	}
	pq->src_rr++;
	if (total != 0) {
		rxb_counter_add(&pq->fetched, total);
		rxb_counter_add(&e->ns.fetched, total);
	}
	return total;
}

/* ------------------------------------------------------------ dispatch */

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

/* spool: steering picks a port, which must be one this queue serves. */
static void dispatch(struct emu *e, struct emu_pq *pq, struct rte_mbuf *m, uint64_t now,
		     uint32_t epoch, bool spool)
{
	struct emu_meta *mt = emu_meta(m);
	uint32_t si = mt->src, hash, core;
	struct rxb_rx_meta meta = { 0 };
	struct rxb_delivery d;
	struct emu_src *s;
	struct rte_mbuf *h, *use = m;
	uint16_t dport = 0;
	bool have_dport = false;
	int rc;

	m->pool = e->wpool;
	if (si >= e->n_src) {
		rxb_counter_add(&e->ns.mismatch, 1); /* not a buffer we handed out */
		return;
	}
	s = &e->src[si];
	if (mt->epoch != epoch) {
		mt->epoch = epoch;
		rxb_counter_add(&e->ns.ws_distinct, 1);
	}
	if (e->cfg->scn.emu.rss == RXB_EMU_RSS_PORT && (m->ol_flags & RTE_MBUF_F_RX_RSS_HASH) &&
	    !e->kv_steer) {
		hash = m->hash.rss;
		rxb_counter_add(&e->ns.port_hash, 1);
	} else {
		hash = rxb_rss_frame(&e->rss, rte_pktmbuf_mtod(m, const uint8_t *),
				      rte_pktmbuf_data_len(m), &dport);
		have_dport = true;
		rxb_counter_add(&e->ns.sw_hash, 1);
	}
	core = emu_core_of(e, hash, dport, have_dport);
	if (spool) {
		/* spool: core is the packet's port (RETA over the ports, as the
		 * generator steered it); it must belong to this queue. */
		uint32_t q = (uint32_t)(pq - e->pq);

		if (emu_pq_of_core(e, core, 0) != q) {
			uint32_t per = (e->n_dest - q + e->n_pq - 1) / e->n_pq;

			core = e->cfg->scn.arch.spool_mode == RXB_SPOOL_BASIC ? q + (hash % per) * e->n_pq : q;
			rxb_counter_add(&e->ns.steer_fixups, 1);
		}
	} else if (core - pq->core_first >= pq->core_n) {
		/* The port steered differently from our RETA (a real NIC's own
		 * RSS): pick among the cores this queue's buffers may serve. */
		core = pq->core_first + hash % pq->core_n;
		rxb_counter_add(&e->ns.steer_fixups, 1);
	}
	if (e->cfg->scn.emu.source != RXB_EMU_SOURCE_GEN)
		mt->t_arr = now;
	rxb_counter_add(&e->ns.dma_bytes, rte_pktmbuf_pkt_len(m));

	h = (struct rte_mbuf *)(uintptr_t)s->exp[s->head & s->mask];
	if (h != m) {
		if (s->holes == 0 ||
		    (struct rte_mbuf *)(uintptr_t)s->exp[(s->head + s->holes) & s->mask] != m) {
			rxb_counter_add(&e->ns.mismatch, 1); /* the PMD reordered buffers */
		} else {
			swap_area(h, m);
			use = h;
			rxb_counter_add(&e->ns.swaps, 1);
		}
	}
	meta.len = rte_pktmbuf_pkt_len(use);
	meta.hash = hash;
	meta.dest = core;
	meta.now = now;
	/* From the ring the buffer came from. Dynamic shRing: the first packet
	 * of the set E switched to (applied_mode) also switches the library's
	 * NIC, which publishes it to the cores. */
	rc = rxb_iface_deliver_from(e->iface, si, &meta, &d);
	rxb_counter_add(&e->ns.dispatched, 1);
	if (rc < 0) {
		rxb_counter_add(&e->ns.mismatch, 1);
		return;
	}
	if (d.buf != RXB_BUF_NONE) {
		/* Consumed: the library must have used the buffer the packet is in. */
		if (d.buf != (rxb_buf_t)(uintptr_t)use)
			rxb_counter_add(&e->ns.mismatch, 1);
		s->head++;
	} else {
		/* Dropped before consuming: the buffer (or, after a swap, the
		 * packet's own one, now empty) becomes the ring's last hole. */
		s->holes++;
		e->holes_pending = true;
		if (s->holes > rxb_counter_read(&e->ns.holes_max))
			atomic_store_explicit(&e->ns.holes_max, s->holes, memory_order_relaxed);
	}
}

/* Holes go back to the physical queue once none of their ring's buffers is
 * left there: they then come back first, in the library's order. */
static bool return_holes(struct emu *e)
{
	bool left = false;

	for (uint32_t i = 0; i < e->n_src; i++) {
		struct emu_src *s = &e->src[i];
		struct emu_pq *pq;
		void *bufs[EMU_FETCH_CHUNK];

		if (s->holes == 0)
			continue;
		if (emu_src_out(s) != s->holes) {
			left = true;
			continue;
		}
		pq = &e->pq[s->pq];
		for (uint32_t k = 0; k < s->holes;) {
			unsigned n = RTE_MIN(s->holes - k, EMU_FETCH_CHUNK);

			for (unsigned j = 0; j < n; j++) {
				struct rte_mbuf *m =
					(struct rte_mbuf *)(uintptr_t)s->exp[(s->head + k + j) & s->mask];

				m->pool = pq->vpool;
				bufs[j] = m;
			}
			if (rte_ring_sp_enqueue_bulk(pq->fill, bufs, n, NULL) != n)
				rxb_counter_add(&e->ns.mismatch, n);
			k += n;
		}
		s->holes = 0;
		rxb_counter_add(&e->ns.hole_returns, 1);
	}
	return left;
}

/* Is anything still inside the physical side (filled, not yet dispatched)? */
static bool physical_busy(struct emu *e, uint32_t only_set, bool by_set)
{
	for (uint32_t q = 0; q < e->n_pq; q++) {
		if (by_set && e->pq[q].set != only_set)
			continue;
		if (e->pq[q].wire != NULL && rte_ring_count(e->pq[q].wire) != 0)
			return true;
	}
	return false;
}

static unsigned poll_queue(struct emu *e, struct emu_pq *pq, uint64_t now, uint32_t epoch,
			   bool spool)
{
	struct rte_mbuf *pkts[EMU_BURST];
	unsigned want = EMU_BURST, n;

	if (e->pmd_allocates) {
		/* Ask for no more than there are buffers: net_null fails a burst
		 * it cannot fill, net_pcap loses the packet it read. The source
		 * is therefore flow-controlled (like Ethernet PAUSE). */
		want = RTE_MIN(want, emu_pq_avail(pq));
		if (want == 0 || atomic_load_explicit(&pq->eof, memory_order_relaxed))
			return 0;
	}
	n = rte_eth_rx_burst(e->in_port, pq->qid, pkts, (uint16_t)want);
	if (e->cfg->scn.emu.source == RXB_EMU_SOURCE_PCAP && n < want)
		atomic_store_explicit(&pq->eof, true, memory_order_relaxed);
	for (unsigned i = 0; i < n; i++) {
		if (i + 1 < n)
			rte_prefetch0(pkts[i + 1]);
		dispatch(e, pq, pkts[i], now, epoch, spool);
	}
	if (n != 0)
		rxb_counter_add(&pq->received, n);
	return n;
}

int emu_nic_main(void *arg)
{
	struct emu *e = arg;
	const bool dyn = e->cfg->scn.arch.name == RXB_ARCH_DYN_SHRING;
	const bool spool = e->cfg->scn.arch.name == RXB_ARCH_SPOOL;
	const bool coalesce = e->cfg->scn.arch.coalesce &&
			      e->cfg->scn.arch.name == RXB_ARCH_RXBISECT;
	uint32_t epoch = atomic_load_explicit(&e->ws_epoch, memory_order_relaxed);
	uint64_t last = rte_rdtsc(), idle_polls = 0;

	for (;;) {
		uint64_t now = rte_rdtsc(), t;
		unsigned work = 0, pkts = 0;
		uint32_t ep = atomic_load_explicit(&e->ws_epoch, memory_order_relaxed);

		if (ep != epoch) {
			uint64_t dist = rxb_counter_read(&e->ns.ws_distinct);

			if (dist > rxb_counter_read(&e->ns.ws_max))
				atomic_store_explicit(&e->ns.ws_max, dist, memory_order_relaxed);
			atomic_store_explicit(&e->ns.ws_distinct, 0, memory_order_relaxed);
			epoch = ep;
		}
		for (uint32_t q = 0; q < e->n_pq; q++)
			work += emu_refill(e, &e->pq[q]);
		for (uint32_t q = 0; q < e->n_pq; q++) {
			if (dyn && e->pq[q].set != e->applied_mode)
				continue; /* not steered to; drained before the switch */
			pkts += poll_queue(e, &e->pq[q], now, epoch, spool);
		}
		work += pkts;
		if (dyn) {
			/* acquire: pairs with the release in emu_gen_main(); its
			 * last enqueue to the old set is visible, and so is the
			 * switch the controller requested in the library (ctl_mode). */
			uint32_t gm = atomic_load_explicit(&e->gen_mode, memory_order_acquire);

			if (gm != e->applied_mode && !physical_busy(e, e->applied_mode, true)) {
				e->applied_mode = gm;
				rxb_counter_add(&e->ns.mode_switches, 1);
			}
		}
		if (e->holes_pending)
			e->holes_pending = return_holes(e);
		if (coalesce)
			work += rxb_iface_tick(e->iface, now);

		t = rte_rdtsc();
		rxb_counter_add(&e->ns.loops, 1);
		if (work != 0) {
			rxb_counter_add(&e->ns.busy_cyc, t - last);
			/* Full-burst loops that were not preempted (a scheduler
			 * slice is milliseconds; such a loop takes microseconds):
			 * the emulator's own cost per packet. */
			if (pkts >= EMU_BURST / 2 && t - last < e->hz / 5000) {
				rxb_counter_add(&e->ns.full_cyc, t - last);
				rxb_counter_add(&e->ns.full_pkts, pkts);
			}
			idle_polls = 0;
		} else {
			rxb_counter_add(&e->ns.idle_cyc, t - last);
			rxb_counter_add(&e->ns.idle_loops, 1);
			idle_polls++;
		}
		last = t;

		/* relaxed: a trace that ran dry only ends the control loop; the
		 * packets it gave are handed over with emu_done */
		if (e->cfg->scn.emu.source == RXB_EMU_SOURCE_PCAP &&
		    !atomic_load_explicit(&e->src_done, memory_order_relaxed)) {
			bool all = true;

			for (uint32_t q = 0; q < e->n_pq; q++)
				all = all && atomic_load_explicit(&e->pq[q].eof, memory_order_relaxed);
			if (all)
				atomic_store_explicit(&e->src_done, 1, memory_order_relaxed);
		}
		if (atomic_load_explicit(&e->quit, memory_order_relaxed))
			break;
		/* acquire: pairs with the release in rxb_emu_run()'s drain; the
		 * source's last packets are visible, so empty wire rings stay empty. */
		if (atomic_load_explicit(&e->emu_stop, memory_order_acquire) &&
		    !physical_busy(e, 0, false) &&
		    (e->cfg->scn.emu.source != RXB_EMU_SOURCE_PORT || idle_polls > 1000))
			break;
	}
	/* Coalesced notices still held: write them now, so the owners refill
	 * and the workers drain them before they stop. */
	if (coalesce)
		rxb_iface_tick(e->iface, UINT64_MAX);
	/* release: pairs with the acquires in drained() (emu_worker.c) and
	 * all_done() (emu_run.c); every delivery and held notice is in the
	 * rings, so a worker that sees emu_done and an empty ring is drained,
	 * and the counters are final. */
	atomic_store_explicit(&e->emu_done, 1, memory_order_release);
	return 0;
}
