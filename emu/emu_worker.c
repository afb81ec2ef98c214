/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Worker lcores: receive (through the ring library, or straight from a
 * physical queue for the native baselines), run the network function on the
 * packet bytes, transmit, give back what was not sent. Cycles are split into
 * receive (the library's receive call minus the allocator time inside it),
 * allocator (mempool get/put, timed in the endpoint) and application (the
 * NF, transmit, the latency bookkeeping); polls that return nothing are idle.
 */
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_pause.h>

#include "emu_int.h"
#include "nf/pkt.h"

/* ---------------------------------------------------------- allocator */

static unsigned alloc_get(void *ctx, rxb_buf_t *bufs, unsigned n)
{
	struct emu_alloc *a = ctx;
	uint64_t t = rte_rdtsc();
	int rc = rte_mempool_get_bulk(a->mp, (void **)bufs, n);

	a->cyc += rte_rdtsc() - t;
	if (rc != 0) {
		a->fails++;
		return 0;
	}
	return n;
}

static void alloc_put(void *ctx, const rxb_buf_t *bufs, unsigned n)
{
	struct emu_alloc *a = ctx;
	uint64_t t = rte_rdtsc();

	rte_mempool_put_bulk(a->mp, (void *const *)bufs, n);
	a->cyc += rte_rdtsc() - t;
}

void emu_alloc_endpoint(struct emu_alloc *a, struct rxb_allocator *out)
{
	out->get = alloc_get;
	out->put = alloc_put;
	out->ctx = a;
}

/* ---------------------------------------------------------- the loop */

static bool stalled(const struct emu_worker *w, uint64_t now)
{
	return w->stall_from != 0 && now >= w->stall_from &&
	       (w->stall_to == 0 || now < w->stall_to);
}

/* Has everything meant for this worker arrived and been taken? sp: the
 * spool the worker polls queues of, or NULL. */
static bool drained(struct emu *e, struct emu_worker *w, struct rxb_spool *sp)
{
	/* emu_nics_done(), acquire: pairs with the release at the end of
	 * each emu_nic_main(); the emulator's last deliveries are in the rings,
	 * so an empty ring stays empty. src_done, acquire: pairs with the
	 * release at the end of emu_gen_main(); the generator's last enqueue
	 * to the wire ring is visible. */
	if (sp != NULL) { /* spool: the queues q = id, id + workers, ... */
		if (!emu_nics_done(e))
			return false;
		for (uint32_t q = w->id; q < e->n_pq; q += e->cores)
			if (rxb_spool_occupancy(sp, q) != 0)
				return false;
		return true;
	}
	if (e->cfg->scn.arch.emulated)
		return emu_nics_done(e) && rxb_iface_occupancy(e->iface, w->id) == 0;
	if (!atomic_load_explicit(&e->src_done, memory_order_acquire))
		return false;
	if (e->pq[w->id].wire != NULL)
		return rte_ring_count(e->pq[w->id].wire) == 0;
	return e->cfg->scn.emu.source != RXB_EMU_SOURCE_PCAP ||
	       atomic_load_explicit(&e->pq[w->id].eof, memory_order_relaxed);
}

static void record_latency(struct emu *e, struct emu_worker *w, struct rte_mbuf **mb, unsigned n,
			   uint64_t now)
{
	for (unsigned i = 0; i < n; i++) {
		uint64_t t;

		if (e->cfg->scn.emu.source == RXB_EMU_SOURCE_GEN)
			t = rxb_stamp_read_mbuf(mb[i]);
		else if (e->cfg->scn.arch.emulated)
			t = emu_meta(mb[i])->t_arr;
		else
			t = 0;
		if (t != 0 && t <= now)
			rxb_hist_add(&w->lat, now - t);
	}
}

/* What a worker's loop decides once per run, and where it is in its spool
 * queues. Only this file's inline steps take its address, so the compiler
 * may keep it in registers. */
struct wloop {
	struct emu *e;
	struct emu_worker *w;
	/* spool: this worker polls queues q with q % workers == id, in turn
	 * (rxb_iface_rx(i, q) uses allocator q % workers: this worker's); the
	 * spool itself for its queue-level queries. NULL otherwise. */
	struct rxb_spool *sp;
	uint32_t nq, qi; /* spool: queues this worker polls, polls so far */
	unsigned batch;
	bool native, dyn, pcap, sink;
};

/* One burst's packets; apart from struct wloop, as the library and DPDK
 * write them through pointers. */
struct wburst {
	struct rxb_pkt pkts[RXB_BURST_MAX];
	struct rte_mbuf *mb[RXB_BURST_MAX];
	rxb_buf_t fr[RXB_BURST_MAX];
	uint64_t bytes; /* of the packets received */
};

static void wloop_init(struct wloop *l, struct emu_worker *w)
{
	const struct rxb_emu_cfg *cfg = w->e->cfg;
	struct emu *e = w->e;

	l->e = e;
	l->w = w;
	l->sp = e->iface != NULL ? rxb_iface_spool(e->iface) : NULL;
	l->nq = l->sp == NULL ? 1 : e->n_pq > w->id ? (e->n_pq - 1 - w->id) / e->cores + 1 : 0;
	l->qi = 0;
	l->batch = cfg->scn.arch.batch;
	l->native = !cfg->scn.arch.emulated;
	/* a dynamic controller (dynamic shRing) learns the receive intervals */
	l->dyn = e->iface != NULL && rxb_iface_dynctl(e->iface) != NULL;
	l->pcap = cfg->scn.emu.source == RXB_EMU_SOURCE_PCAP;
	l->sink = cfg->scn.emu.sink;
}

/* A new warm-up epoch: start the latency histogram again. */
static inline void note_warmup(struct emu *e, struct emu_worker *w)
{
	/* relaxed: M only asks for a reset; no data comes with it */
	uint64_t wm = atomic_load_explicit(&e->warm, memory_order_relaxed);

	if (wm != w->warm_seen) {
		rxb_hist_reset(&w->lat);
		w->warm_seen = wm;
	}
}

/* Receive a burst into b->mb: from the physical queue (native) or through
 * the library from *rq, the library's core (spool: the queue) polled now. */
static inline unsigned poll_burst(struct wloop *l, struct wburst *b, uint64_t t0, uint32_t *rq)
{
	struct emu *e = l->e;
	uint32_t id = l->w->id;
	unsigned n;

	*rq = id;
	if (l->sp != NULL) {
		if (l->nq == 0)
			return 0;
		*rq = id + (l->qi++ % l->nq) * e->cores;
	}
	b->bytes = 0;
	if (l->native) {
		n = rte_eth_rx_burst(e->in_port, e->pq[id].qid, b->mb, (uint16_t)l->batch);
		if (l->pcap && n < l->batch)
			atomic_store_explicit(&e->pq[id].eof, true, memory_order_relaxed);
		for (unsigned i = 0; i < n; i++)
			b->bytes += rte_pktmbuf_pkt_len(b->mb[i]);
		return n;
	}
	n = rxb_iface_rx(e->iface, *rq, b->pkts, l->batch, t0);
	/* Lengths from the entries, as a driver reads its completions: a
	 * worker that does not look at a packet (sink) leaves its mbuf's
	 * lines to the NIC lcore, which writes them on every lap. */
	for (unsigned i = 0; i < n; i++) {
		b->mb[i] = (struct rte_mbuf *)(uintptr_t)b->pkts[i].buf;
		b->bytes += b->pkts[i].len;
	}
	if (l->sp != NULL) /* relaxed: a standalone figure M samples */
		atomic_store_explicit(&e->qposted[*rq], rxb_spool_posted(l->sp, *rq),
				      memory_order_relaxed);
	return n;
}

/* Send the kept packets; returns how many the Tx queue took. */
static inline unsigned transmit(struct emu *e, struct emu_worker *w, struct rte_mbuf **mb,
				unsigned kept)
{
	unsigned sent;

	if (kept == 0)
		return 0;
	if (w->txlock != NULL)
		rte_spinlock_lock(w->txlock);
	sent = rte_eth_tx_burst(e->out_port, w->txq, mb, (uint16_t)kept);
	if (w->txlock != NULL)
		rte_spinlock_unlock(w->txlock);
	return sent;
}

/* Give back what was not sent, b->mb[sent..n), through the allocator
 * endpoint (native: straight to the mempool); returns the allocator cycles
 * it took. */
static inline uint64_t give_back(struct wloop *l, struct wburst *b, uint32_t rq, unsigned n,
				 unsigned sent)
{
	struct emu_worker *w = l->w;
	unsigned nfree = n - sent;
	uint64_t a1 = w->alloc.cyc, tf;

	if (nfree == 0)
		return 0;
	if (!l->native) {
		for (unsigned i = 0; i < nfree; i++)
			b->fr[i] = (rxb_buf_t)(uintptr_t)b->mb[sent + i];
		rxb_iface_free(l->e->iface, rq, b->fr, nfree);
		return w->alloc.cyc - a1;
	}
	tf = rte_rdtsc();
	rte_pktmbuf_free_bulk(b->mb + sent, nfree);
	return rte_rdtsc() - tf;
}

/* A received burst of n packets from rq: the NF, the extra compute, the
 * latencies, transmit and give back; then its counters. t1: the receive
 * call's end; a0: allocator cycles before it. */
static inline void run_burst(struct wloop *l, struct wburst *b, uint32_t rq, unsigned n,
			     uint64_t t1, uint64_t a0)
{
	struct emu_worker *w = l->w;
	uint64_t bytes = b->bytes, a1, free_cyc;
	unsigned kept, sent;

	rxb_counter_add(&w->st.received, n);
	kept = l->sink ? 0 : rxb_nf_process(w->nf, b->mb, (uint16_t)n);
	if (w->extra_cyc != 0) {
		uint64_t until = rte_rdtsc() + w->extra_cyc * n;

		while (rte_rdtsc() < until)
			rte_pause();
	}
	record_latency(l->e, w, b->mb, kept, rte_rdtsc());
	sent = transmit(l->e, w, b->mb, kept);
	/* The Tx path frees what it sent, the rest is given back: the
	 * library's census balances either way. */
	if (!l->native && sent != 0)
		rxb_iface_note_released(l->e->iface, rq, sent);
	a1 = w->alloc.cyc;
	free_cyc = give_back(l, b, rq, n, sent);
	rxb_counter_add(&w->st.cyc_alloc, (a1 - a0) + free_cyc);
	rxb_counter_add(&w->st.cyc_app, (rte_rdtsc() - t1) - free_cyc);
	rxb_counter_add(&w->st.processed, n);
	rxb_counter_add(&w->st.tx, sent);
	rxb_counter_add(&w->st.nf_drops, n - kept); /* sink: all of them */
	rxb_counter_add(&w->st.tx_drops, kept - sent);
	rxb_counter_add(&w->st.bytes, bytes);
	rxb_counter_add(&w->st.wire_bytes, bytes + 24ull * n);
}

int emu_worker_main(void *arg)
{
	struct emu_worker *w = arg;
	struct emu *e = w->e;
	struct wburst b;
	struct wloop l;

	wloop_init(&l, w);
	for (;;) {
		uint64_t t0 = rte_rdtsc(), t1, a0;
		/* acquire: pairs with the release in rxb_emu_run()'s drain;
		 * src_done and the source's last packets are visible. */
		bool draining = atomic_load_explicit(&e->drain, memory_order_acquire);
		uint32_t rq;
		unsigned n;

		if (atomic_load_explicit(&e->quit, memory_order_relaxed))
			break;
		if (!draining && stalled(w, t0)) {
			usleep(200); /* a stalled core: it polls nothing and frees its CPU */
			continue;
		}
		note_warmup(e, w);
		a0 = w->alloc.cyc;
		n = poll_burst(&l, &b, t0, &rq);
		t1 = rte_rdtsc();
		if (l.dyn)
			rxb_dynctl_ivl_note(&w->ivl, t0);
		rxb_counter_add(&w->st.polls, 1);
		if (n == 0) {
			rxb_counter_add(&w->st.empty_polls, 1);
			rxb_counter_add(&w->st.cyc_idle, t1 - t0);
			if (draining && drained(e, w, l.sp))
				break;
			continue;
		}
		rxb_counter_add(&w->st.cyc_rx, (t1 - t0) - (w->alloc.cyc - a0));
		run_burst(&l, &b, rq, n, t1, a0);
	}
	rxb_counter_add(&w->st.alloc_fail, w->alloc.fails);
	/* release: pairs with the acquire in all_done() (emu_run.c); the
	 * worker's counters are final. */
	atomic_store_explicit(&w->done, 1, memory_order_release);
	return 0;
}
