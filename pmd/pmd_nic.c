/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The NIC of net_rxbisect and its two bursts.
 *
 * NIC thread (a service, or a dedicated lcore): take frames from the wire,
 * hash them (Toeplitz over the frame, rxb_rss_frame), steer by the RETA to
 * a destination core = Rx queue, and deliver through the library, which
 * takes a buffer by the design's rules (privRing: that queue's Rx ring;
 * shRing: its group's ring; rxBisect: the linked Ax, else one of the
 * association set by ax_policy) and calls dma_write() before it publishes
 * the entry: the frame is copied into the application's mbuf there. The
 * wire frame is then freed, so the wire keeps only its own ring's buffers.
 *
 * Rx burst on queue q = the design's software receive for core q: it
 * returns the mbufs the NIC filled and refills the rings from the queue's
 * mempool (the allocator below). The application frees the mbufs itself,
 * so the library is told they are released.
 */
#include <errno.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_pause.h>

#include "pmd.h"

/* ------------------------------------------------------------ allocator */

/* Core q's allocator: mbufs of queue q's mempool, reset (refcnt 1, one
 * segment), as a NIC driver re-arms descriptors. All or nothing, as the
 * library's allocator contract says (it asks for less when refused). */
static unsigned alloc_get(void *ctx, rxb_buf_t *bufs, unsigned n)
{
	struct pmd_rxq *rq = ctx;

	RTE_BUILD_BUG_ON(sizeof(rxb_buf_t) != sizeof(struct rte_mbuf *));
	if (rte_pktmbuf_alloc_bulk(rq->mp, (struct rte_mbuf **)bufs, n) == 0)
		return n;
	rxb_counter_add(&rq->alloc_fail, 1);
	return 0;
}

/* Each mbuf goes back to its own pool (a buffer of queue r's Ax may have
 * been delivered to queue q's Bx). */
static void alloc_put(void *ctx, const rxb_buf_t *bufs, unsigned n)
{
	(void)ctx;
	rte_pktmbuf_free_bulk((struct rte_mbuf **)(uintptr_t)bufs, n);
}

void pmd_allocator(struct pmd_rxq *rq, struct rxb_allocator *out)
{
	out->ctx = rq;
	out->get = alloc_get;
	out->put = alloc_put;
}

/* ------------------------------------------------------------ NIC */

struct dma {
	const struct rte_mbuf *frame;
	uint32_t hash;
	uint16_t port;
};

/* The library took `buf` for the frame: write it there (N). The entry that
 * hands buf to software is published after this returns, with release
 * order (lib/ring.h rxb_cr_nic_write, lib/rxbisect.c bx_write): the bytes
 * and fields below are visible to the receiving core's acquire. */
static void dma_write(void *arg, rxb_buf_t buf)
{
	const struct dma *d = arg;
	struct rte_mbuf *m = (struct rte_mbuf *)(uintptr_t)buf;
	uint32_t len = rte_pktmbuf_pkt_len(d->frame);
	void *dst = rte_pktmbuf_mtod(m, void *);
	const void *src = rte_pktmbuf_read(d->frame, 0, len, dst);

	if (src != dst)
		rte_memcpy(dst, src, len);
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	m->port = d->port;
	m->ol_flags = RTE_MBUF_F_RX_RSS_HASH;
	m->hash.rss = d->hash;
	m->packet_type = RTE_PTYPE_UNKNOWN;
}

static void deliver_frame(struct pmd *p, const struct rte_mbuf *f, uint64_t now)
{
	struct dma d = { .frame = f, .port = p->port_id };
	uint32_t len = rte_pktmbuf_pkt_len(f);
	uint16_t dport;
	struct rxb_rx_meta meta = { .len = len, .now = now, .write = dma_write, .write_arg = &d };
	struct rxb_delivery del;

	/* The frame is parsed from its first segment (headers sit there). */
	d.hash = p->l4 ? rxb_rss_frame(&p->rss, rte_pktmbuf_mtod(f, const uint8_t *),
				       rte_pktmbuf_data_len(f), &dport) :
			 rxb_rss_frame_l3(&p->rss, rte_pktmbuf_mtod(f, const uint8_t *),
					  rte_pktmbuf_data_len(f));
	meta.hash = d.hash;
	/* relaxed: a RETA entry is one 16-bit word; C updates entries while
	 * traffic flows, as a NIC's table is updated live. */
	meta.dest = __atomic_load_n(&p->reta.queue[d.hash & p->reta.mask], __ATOMIC_RELAXED);
	rxb_counter_add(&p->ns.wire_pkts, 1);
	rxb_counter_add(&p->ns.wire_bytes, len);
	if (len > p->max_frame) {
		/* Larger than the buffers: the NIC's MTU check drops it. */
		rxb_counter_add(&p->ns.oversize, 1);
		rxb_iface_drop_pipeline(p->iface, meta.dest);
		return;
	}
	rxb_iface_deliver(p->iface, &meta, &del);
}

static double ms_since_start(const struct pmd *p, uint64_t now)
{
	return (double)(now - p->t_start) * 1e3 / (double)p->hz;
}

/* The fault_link_down schedule: the wire is set down, then up (N). */
static void link_fault(struct pmd *p, uint64_t now)
{
	double ms = ms_since_start(p, now);

	if (!p->fault_link_applied && ms >= p->cfg.link_down_at_ms) {
		p->fault_link_applied = true;
		if (rte_eth_dev_set_link_down(p->wire) != 0)
			PMD_LOG(WARNING, "fault_link_down: %s cannot be set down", p->cfg.port);
	}
	if (p->fault_link_applied && !p->fault_link_restored && p->cfg.link_down_for_ms > 0 &&
	    ms >= p->cfg.link_down_at_ms + p->cfg.link_down_for_ms) {
		p->fault_link_restored = true;
		rte_eth_dev_set_link_up(p->wire);
	}
}

/* The wire's link, read every millisecond (a register read on a real NIC):
 * while it is down nothing is received, as on a NIC whose cable is out. */
static bool wire_link_up(struct pmd *p, uint64_t now)
{
	struct rte_eth_link l;

	if (now < p->next_link_check)
		return p->link_up;
	p->next_link_check = now + p->hz / 1000;
	if (p->cfg.link_down_at_ms >= 0)
		link_fault(p, now);
	if (rte_eth_link_get_nowait(p->wire, &l) != 0)
		return p->link_up;
	if (p->link_up && l.link_status == RTE_ETH_LINK_DOWN)
		rxb_counter_add(&p->ns.link_down_events, 1);
	p->link_up = l.link_status == RTE_ETH_LINK_UP;
	return p->link_up;
}

/* Dynamic shRing: one controller sample per dyn_sample_ms (N). Throughput
 * is what the wire delivered; memory bandwidth has no counter here, so the
 * DMA write rate stands in for it (as in rxb-emu without resctrl); a core
 * is overloaded when its receive calls slowed down (dynctl.h) or stopped. */
static void dyn_step(struct pmd *p, uint64_t now)
{
	uint64_t period, bytes;
	struct rxb_dynctl_sample s = { 0 };
	enum rxb_dyn_decision dec;
	double dt;

	if (now < p->next_dyn)
		return; /* every pass but one per period */
	period = (uint64_t)(p->cfg.scn.arch.dyn_sample_ms * 1e-3 * (double)p->hz);
	dt = (double)period / (double)p->hz;
	bytes = rxb_counter_read(&p->ns.wire_bytes);
	p->next_dyn = now + period;
	s.tput_gbps = (double)(bytes - p->dyn_bytes_seen) * 8 / dt / 1e9;
	s.mem_bw_gibps = (double)(bytes - p->dyn_bytes_seen) / dt / 1073741824.0;
	p->dyn_bytes_seen = bytes;
	for (uint16_t q = 0; q < p->dev->data->nb_rx_queues; q++)
		s.overloaded_cores += rxb_dynctl_ivl_overloaded(
			&((struct pmd_rxq *)p->dev->data->rx_queues[q])->ivl,
			p->cfg.scn.arch.dyn_overload_factor);
	dec = rxb_iface_dyn_sample(p->iface, &s);
	if (dec != RXB_DYN_STAY)
		rxb_counter_add(&p->ns.dyn_switches, 1);
}

/* One pass of the NIC. A service callback: 0 when it did work, -EAGAIN
 * when idle (rte_service statistics count only the former as busy). */
int32_t pmd_nic_service(void *arg)
{
	struct pmd *p = arg;
	struct rte_mbuf *f[PMD_WIRE_BURST];
	uint64_t now = rte_rdtsc();
	unsigned work = 0;

	/* acquire: pairs with the release in dev_start() (pmd_ethdev.c); the
	 * iface and queues it built are visible. */
	if (!atomic_load_explicit(&p->nic_on, memory_order_acquire)) {
		/* release: even a pass that found the port stopped ends before
		 * the stop's acquire (quiesce_nic) */
		atomic_fetch_add_explicit(&p->nic_passes, 1, memory_order_release);
		return -EAGAIN;
	}
	/* acquire: pairs with the release below, of the previous pass */
	(void)atomic_load_explicit(&p->nic_passes, memory_order_acquire);
	if (wire_link_up(p, now)) {
		for (uint16_t q = 0; q < p->wire_rxqs; q++) {
			uint16_t n = rte_eth_rx_burst(p->wire, q, f, PMD_WIRE_BURST);

			if (p->wire_flows != NULL)
				pmd_wire_null_flows(p, f, n);
			for (uint16_t i = 0; i < n; i++)
				deliver_frame(p, f[i], now);
			if (n != 0)
				rte_pktmbuf_free_bulk(f, n);
			work += n;
		}
	}
	if (p->cfg.scn.arch.coalesce)
		work += rxb_iface_tick(p->iface, now);
	if (p->cfg.scn.arch.name == RXB_ARCH_DYN_SHRING)
		dyn_step(p, now);
	rxb_counter_add(work != 0 ? &p->ns.busy_polls : &p->ns.idle_polls, 1);
	/* release: pairs with the acquires at the next pass's start and in
	 * quiesce_nic() (pmd_ethdev.c) */
	atomic_fetch_add_explicit(&p->nic_passes, 1, memory_order_release);
	return work != 0 ? 0 : -EAGAIN;
}

/* nic_cpu=N: the same passes on a thread of its own until stopped. Not an
 * EAL lcore: an application that waits for all its lcores
 * (rte_eal_mp_wait_lcore) would wait for it for ever. */
void *pmd_nic_thread_main(void *arg)
{
	struct pmd *p = arg;

	/* acquire: pairs with the release in quiesce_nic() */
	while (!atomic_load_explicit(&p->nic_quit, memory_order_acquire))
		if (pmd_nic_service(p) != 0)
			rte_pause();
	return NULL;
}

/* Frames queued in the wire may be the application's own mbufs (net_ring
 * loops its transmits back): free them. A wire that makes frames on demand
 * (net_null) never runs dry, hence the bound: more than any ring holds. */
#define PMD_DRAIN_MAX (1u << 16)

void pmd_nic_drain_wire(struct pmd *p)
{
	struct rte_mbuf *f[PMD_WIRE_BURST];

	for (uint16_t q = 0; q < p->wire_rxqs; q++) {
		uint32_t total = 0;
		uint16_t n;

		while (total < PMD_DRAIN_MAX &&
		       (n = rte_eth_rx_burst(p->wire, q, f, PMD_WIRE_BURST)) != 0) {
			rte_pktmbuf_free_bulk(f, n);
			total += n;
		}
	}
}

/* ------------------------------------------------------------ bursts */

static bool stalled(const struct pmd_rxq *rq, const struct pmd *p, uint64_t now)
{
	double ms;

	if (p->cfg.stall_queue != rq->qid)
		return false;
	ms = ms_since_start(p, now);
	return ms >= p->cfg.stall_at_ms &&
	       (p->cfg.stall_for_ms < 0 || ms < p->cfg.stall_at_ms + p->cfg.stall_for_ms);
}

uint16_t pmd_rx_burst(void *queue, struct rte_mbuf **pkts, uint16_t n)
{
	struct pmd_rxq *rq = queue;
	struct pmd *p = rq->p;
	struct rxb_pkt pk[RXB_BURST_MAX];
	uint64_t now = rte_rdtsc(), bytes = 0;
	unsigned got;

	/* acquire: pairs with the release in dev_start() (pmd_ethdev.c). A
	 * stopped port receives nothing (its rings were given back). */
	if (!atomic_load_explicit(&p->nic_on, memory_order_acquire)) {
		/* release: as at the end below */
		atomic_fetch_add_explicit(&rq->calls, 1, memory_order_release);
		return 0;
	}
	if (stalled(rq, p, now)) {
		rxb_counter_add(&rq->stalled_polls, 1);
		/* release: as at the end below */
		atomic_fetch_add_explicit(&rq->calls, 1, memory_order_release);
		return 0;
	}
	if (p->cfg.scn.arch.name == RXB_ARCH_DYN_SHRING)
		rxb_dynctl_ivl_note(&rq->ivl, now);
	got = rxb_iface_rx(p->iface, rq->qid, pk, RTE_MIN(n, RXB_BURST_MAX), now);
	for (unsigned i = 0; i < got; i++) {
		pkts[i] = (struct rte_mbuf *)(uintptr_t)pk[i].buf;
		bytes += pk[i].len;
	}
	if (got != 0) {
		/* The application frees them (to their own pools). */
		rxb_iface_note_released(p->iface, rq->qid, got);
		rxb_counter_add(&rq->bytes, bytes);
	}
	/* release: pairs with the acquire in quiesce_queues() (pmd_ethdev.c) */
	atomic_fetch_add_explicit(&rq->calls, 1, memory_order_release);
	return (uint16_t)got;
}

uint16_t pmd_tx_burst(void *queue, struct rte_mbuf **pkts, uint16_t n)
{
	struct pmd_txq *tq = queue;
	uint64_t bytes = 0;
	uint16_t sent;

	/* Counted before: the wire may free what it sent at once. */
	for (uint16_t i = 0; i < n; i++)
		bytes += rte_pktmbuf_pkt_len(pkts[i]);
	if (tq->lock != NULL)
		rte_spinlock_lock(tq->lock);
	sent = rte_eth_tx_burst(tq->p->wire, tq->wire_q, pkts, n);
	if (tq->lock != NULL)
		rte_spinlock_unlock(tq->lock);
	for (uint16_t i = sent; i < n; i++) /* still the caller's */
		bytes -= rte_pktmbuf_pkt_len(pkts[i]);
	rxb_counter_add(&tq->pkts, sent);
	rxb_counter_add(&tq->bytes, bytes);
	/* release: pairs with the acquire in quiesce_queues() (pmd_ethdev.c) */
	atomic_fetch_add_explicit(&tq->calls, 1, memory_order_release);
	return sent;
}
