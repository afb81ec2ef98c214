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

int emu_worker_main(void *arg)
{
	struct emu_worker *w = arg;
	struct emu *e = w->e;
	const struct rxb_emu_cfg *cfg = e->cfg;
	const bool native = !cfg->scn.arch.emulated,
		   dyn = cfg->scn.arch.name == RXB_ARCH_DYN_SHRING;
	const unsigned batch = cfg->scn.arch.batch;
	struct rxb_pkt pkts[RXB_BURST_MAX];
	struct rte_mbuf *mb[RXB_BURST_MAX];
	rxb_buf_t fr[RXB_BURST_MAX];
	/* spool: this worker polls queues q with q % workers == id, in turn
	 * (rxb_iface_rx(i, q) uses allocator q % workers: this worker's); the
	 * spool itself for its queue-level queries */
	struct rxb_spool *sp = e->iface != NULL ? rxb_iface_spool(e->iface) : NULL;
	const bool spool = sp != NULL;
	const uint32_t nq = !spool ? 1 : e->n_pq > w->id ? (e->n_pq - 1 - w->id) / e->cores + 1 : 0;
	uint32_t qi = 0;

	for (;;) {
		uint64_t t0 = rte_rdtsc(), t1, t2, t3, a0, a1, wm, bytes = 0, free_cyc = 0;
		unsigned n, kept, sent, nfree;
		/* acquire: pairs with the release in rxb_emu_run()'s drain;
		 * src_done and the source's last packets are visible. */
		bool draining = atomic_load_explicit(&e->drain, memory_order_acquire);

		if (atomic_load_explicit(&e->quit, memory_order_relaxed))
			break;
		if (!draining && stalled(w, t0)) {
			usleep(200); /* a stalled core: it polls nothing and frees its CPU */
			continue;
		}
		wm = atomic_load_explicit(&e->warm, memory_order_relaxed);
		if (wm != w->warm_seen) {
			rxb_hist_reset(&w->lat);
			w->warm_seen = wm;
		}
		a0 = w->alloc.cyc;
		uint32_t rq = w->id; /* the library's core (spool: queue) polled now */

		if (spool) {
			rq = w->id + (nq ? qi++ % nq : 0) * e->cores;
			if (nq == 0) {
				n = 0;
				goto polled;
			}
		}
		if (native) {
			n = rte_eth_rx_burst(e->in_port, e->pq[w->id].qid, mb, (uint16_t)batch);
			if (cfg->scn.emu.source == RXB_EMU_SOURCE_PCAP && n < batch)
				atomic_store_explicit(&e->pq[w->id].eof, true,
						      memory_order_relaxed);
		} else {
			n = rxb_iface_rx(e->iface, rq, pkts, batch, t0);
			for (unsigned i = 0; i < n; i++)
				mb[i] = (struct rte_mbuf *)(uintptr_t)pkts[i].buf;
			if (spool)
				atomic_store_explicit(&e->qposted[rq], rxb_spool_posted(sp, rq),
						      memory_order_relaxed);
		}
	polled:
		t1 = rte_rdtsc();
		if (dyn)
			rxb_dynctl_ivl_note(&w->ivl, t0);
		rxb_counter_add(&w->st.polls, 1);
		if (n == 0) {
			rxb_counter_add(&w->st.empty_polls, 1);
			rxb_counter_add(&w->st.cyc_idle, t1 - t0);
			if (draining && drained(e, w, sp))
				break;
			continue;
		}
		rxb_counter_add(&w->st.cyc_rx, (t1 - t0) - (w->alloc.cyc - a0));
		rxb_counter_add(&w->st.received, n);
		for (unsigned i = 0; i < n; i++)
			bytes += rte_pktmbuf_pkt_len(mb[i]);

		kept = cfg->scn.emu.sink ? 0 : rxb_nf_process(w->nf, mb, (uint16_t)n);
		if (w->extra_cyc != 0) {
			uint64_t until = rte_rdtsc() + w->extra_cyc * n;

			while (rte_rdtsc() < until)
				rte_pause();
		}
		t2 = rte_rdtsc();
		record_latency(e, w, mb, kept, t2);

		sent = 0;
		if (kept != 0) {
			if (w->txlock != NULL)
				rte_spinlock_lock(w->txlock);
			sent = rte_eth_tx_burst(e->out_port, w->txq, mb, (uint16_t)kept);
			if (w->txlock != NULL)
				rte_spinlock_unlock(w->txlock);
		}
		/* The Tx path frees what it sent; the rest goes back through the
		 * allocator endpoint, so the census balances either way. */
		if (!native && sent != 0)
			rxb_iface_note_released(e->iface, rq, sent);
		nfree = n - sent;
		a1 = w->alloc.cyc;
		if (nfree != 0) {
			if (native) {
				uint64_t tf = rte_rdtsc();

				rte_pktmbuf_free_bulk(mb + sent, nfree);
				free_cyc = rte_rdtsc() - tf;
			} else {
				for (unsigned i = 0; i < nfree; i++)
					fr[i] = (rxb_buf_t)(uintptr_t)mb[sent + i];
				rxb_iface_free(e->iface, rq, fr, nfree);
				free_cyc = w->alloc.cyc - a1;
			}
		}
		t3 = rte_rdtsc();
		rxb_counter_add(&w->st.cyc_alloc, (a1 - a0) + free_cyc);
		rxb_counter_add(&w->st.cyc_app, (t3 - t1) - free_cyc);
		rxb_counter_add(&w->st.processed, n);
		rxb_counter_add(&w->st.tx, sent);
		rxb_counter_add(&w->st.nf_drops, n - kept); /* sink: all of them */
		rxb_counter_add(&w->st.tx_drops, kept - sent);
		rxb_counter_add(&w->st.bytes, bytes);
		rxb_counter_add(&w->st.wire_bytes, bytes + 24ull * n);
		(void)t2;
	}
	rxb_counter_add(&w->st.alloc_fail, w->alloc.fails);
	/* release: pairs with the acquire in all_done() (emu_run.c); the
	 * worker's counters are final. */
	atomic_store_explicit(&w->done, 1, memory_order_release);
	return 0;
}
