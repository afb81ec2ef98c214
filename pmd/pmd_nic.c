/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The NIC of net_rxbisect and its two bursts.
 *
 * NIC thread (a service, or a dedicated lcore): take frames from the wire,
 * hash them (the wire's hash when it computes ours, a net_null frame's flow
 * hash, else Toeplitz over the frame, rxb_rss_frame), steer by the RETA to
 * a destination core = Rx queue, and deliver through the library, which
 * takes a buffer by the design's rules (privRing: that queue's Rx ring;
 * shRing: its group's ring; rxBisect: the linked Ax, else one of the
 * association set by ax_policy) and calls dma_write() before it publishes
 * the entry. A frame of the wire's own mempool is copied into the buffer
 * (the DMA write) and freed with the burst: the wire's mbufs never leave
 * the NIC thread, and the NIC touches no line of the buffer's mbuf, which
 * belongs to the core that posted it. A frame in a mbuf of the application
 * (a wire that loops its transmits back) moves by pointer: dma_write()
 * parks it in the taken buffer and the receive hands it out instead.
 *
 * Rx burst on queue q = the design's software receive for core q: it
 * returns the mbufs the NIC filled, their fields set from the entries, and
 * refills the rings from the queue's mempool (the allocator below). The
 * application frees the mbufs itself, so the library is told they are
 * released.
 */
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_prefetch.h>
#include <rte_pause.h>

#include "pmd.h"

/* A pass or call done, published with release order. One writer at a time
 * (the thread running the pass, the lcore polling the queue), so a store of
 * the next value does it: no locked read-modify-write on every call. */
static inline void count_release(_Atomic uint64_t *c)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
			      memory_order_release);
}

/* ------------------------------------------------------------ frames by pointer */

/* A frame in a mbuf the application can take (any pool but the wire's own)
 * is not copied: the NIC parks its pointer in a field of the buffer the
 * design took for it, and the receive hands the frame out in that buffer's
 * place. The buffer, still empty, re-arms the rings. The field is NULL in
 * every buffer that carries no frame (set so when a buffer leaves the
 * mempool or hands its frame out). */
static int frame_field = -1;

int pmd_nic_init(struct rxb_err *err)
{
	static const struct rte_mbuf_dynfield desc = {
		.name = "rxb_pmd_frame",
		.size = sizeof(struct rte_mbuf *),
		.align = __alignof__(struct rte_mbuf *),
	};

	frame_field = rte_mbuf_dynfield_register(&desc);
	if (frame_field < 0)
		return rxb_err_fail(err, -rte_errno, "cannot register the mbuf field %s: %s",
				    desc.name, rte_strerror(rte_errno));
	return 0;
}

static struct rte_mbuf **frame_of(struct rte_mbuf *buf)
{
	return RTE_MBUF_DYNFIELD(buf, frame_field, struct rte_mbuf **);
}

/* ------------------------------------------------------------ allocator */

/* Core q's allocator: its spare buffers first, then mbufs of queue q's
 * mempool, reset (refcnt 1, one segment), as a NIC driver re-arms
 * descriptors. All or nothing, as the library's allocator contract says
 * (it asks for less when refused). */
static unsigned alloc_get(void *ctx, rxb_buf_t *bufs, unsigned n)
{
	struct pmd_rxq *rq = ctx;
	struct rte_mbuf **m = (struct rte_mbuf **)bufs;
	unsigned spare = RTE_MIN(n, rq->n_spare);

	RTE_BUILD_BUG_ON(sizeof(rxb_buf_t) != sizeof(struct rte_mbuf *));
	if (spare < n) {
		if (rte_pktmbuf_alloc_bulk(rq->mp, m + spare, n - spare) != 0) {
			rxb_counter_add(&rq->alloc_fail, 1);
			return 0;
		}
		for (unsigned i = spare; i < n; i++)
			*frame_of(m[i]) = NULL;
	}
	rq->n_spare -= spare;
	memcpy(m, &rq->spare[rq->n_spare], spare * sizeof(*m));
	return n;
}

/* Each mbuf goes back to its own pool (a buffer of queue r's Ax may have
 * been delivered to queue q's Bx), with the frame it still carries (the
 * census gives back buffers of unread entries). */
static void alloc_put(void *ctx, const rxb_buf_t *bufs, unsigned n)
{
	struct rte_mbuf **m = (struct rte_mbuf **)(uintptr_t)bufs;

	(void)ctx;
	for (unsigned i = 0; i < n; i++) {
		rte_pktmbuf_free(*frame_of(m[i]));
		*frame_of(m[i]) = NULL;
	}
	rte_pktmbuf_free_bulk(m, n);
}

void pmd_allocator(struct pmd_rxq *rq, struct rxb_allocator *out)
{
	out->ctx = rq;
	out->get = alloc_get;
	out->put = alloc_put;
}

void pmd_rxq_free_spares(struct pmd_rxq *rq)
{
	rte_pktmbuf_free_bulk(rq->spare, rq->n_spare);
	rq->n_spare = 0;
}

/* ------------------------------------------------------------ NIC */

/* What the DMA write puts in the buffer: a wire's frame, or a frame the NIC
 * makes of a net_null flow. */
struct dma {
	const struct pmd *p;
	struct rte_mbuf *frame;           /* the wire's, or NULL: */
	const struct pmd_wire_flow *flow; /* a frame of this flow */
	bool by_pointer;                  /* the frame goes to software in its own mbuf */
};

/* Where buffer m's frame goes: its data room past the headroom. Like a
 * NIC, which writes to the address its descriptor holds, the NIC does not
 * read the mbuf (its lines belong to the core that posted it) when every
 * queue's mempool puts the room at one offset (pmd_ethdev.c buf_data_off). */
static void *buf_data(const struct pmd *p, struct rte_mbuf *m)
{
	if (likely(p->buf_data_off != 0))
		return (char *)m + p->buf_data_off;
	return rte_pktmbuf_mtod(m, void *);
}

/* The library took `buf` for the frame: write it there (N). The entry that
 * hands buf to software is published after this returns, with release
 * order (lib/ring.h rxb_cr_nic_write, lib/rxbisect.c bx_write): the bytes
 * and the parked pointer are visible to the receiving core's acquire. The
 * mbuf's fields are the receive's to fill from the entry (take_frame), as
 * a driver fills them from a NIC's completion. */
static void dma_write(void *arg, rxb_buf_t buf)
{
	const struct dma *d = arg;
	struct rte_mbuf *m = (struct rte_mbuf *)(uintptr_t)buf;
	uint32_t len;
	void *dst;
	const void *src;

	if (d->flow != NULL) {
		pmd_wire_null_write(d->p, d->flow, buf_data(d->p, m));
		return;
	}
	if (pmd_wire_by_pointer(d->p)) {
		struct rte_mbuf **parked = frame_of(m);

		if (unlikely(*parked != NULL)) {
			/* A buffer the design recycled after dropping its
			 * packet (an empty mempool) still carries that
			 * packet's frame. */
			rte_pktmbuf_free(*parked);
			*parked = NULL;
		}
		if (d->by_pointer) {
			*parked = d->frame;
			return;
		}
	}
	len = rte_pktmbuf_pkt_len(d->frame);
	dst = buf_data(d->p, m);
	src = rte_pktmbuf_read(d->frame, 0, len, dst);
	if (src != dst)
		rte_memcpy(dst, src, len);
}

/* The wire's own hash when it computes ours (same key and fields: the
 * application may have changed the L4 choice since the wire's start), else
 * the Toeplitz hash over the frame's first segment (headers sit there). */
static uint32_t frame_hash(const struct pmd *p, const struct rte_mbuf *f)
{
	const uint8_t *data = rte_pktmbuf_mtod(f, const uint8_t *);
	/* relaxed: pairs with nothing; the flag alone (pmd.h) */
	bool l4 = atomic_load_explicit(&p->l4, memory_order_relaxed);
	uint16_t dport;

	if (p->wire_rss && p->wire_rss_l4 == l4 && (f->ol_flags & RTE_MBUF_F_RX_RSS_HASH))
		return f->hash.rss;
	if (l4)
		return rxb_rss_frame(&p->rss, data, rte_pktmbuf_data_len(f), &dport);
	return rxb_rss_frame_l3(&p->rss, data, rte_pktmbuf_data_len(f));
}

/* Steer a frame of len bytes and RSS hash `hash` (N): its delivery's meta,
 * whose DMA write is d. False when the NIC drops it before the design
 * (larger than the buffers, or for a destination of another NIC thread). */
static bool steer(struct pmd_nic *nic, uint32_t len, uint32_t hash, uint64_t now,
		  struct rxb_rx_meta *meta, struct dma *d)
{
	struct pmd *p = nic->p;

	*meta = (struct rxb_rx_meta){
		.len = len, .hash = hash, .now = now, .write = dma_write, .write_arg = d
	};
	/* relaxed: a RETA entry is one 16-bit word; C updates entries while
	 * traffic flows, as a NIC's table is updated live. */
	meta->dest = __atomic_load_n(&p->reta.queue[hash & p->reta.mask], __ATOMIC_RELAXED);
	rxb_counter_add(&nic->ns.wire_pkts, 1);
	rxb_counter_add(&nic->ns.wire_bytes, len);
	if (p->n_nics > 1 && pmd_nic_owner(p, meta->dest) != nic->id) {
		/* Not this thread's destination (the RETA changed under the
		 * flows): dropped before the design, whose counters for that
		 * destination belong to its owner. */
		rxb_counter_add(&nic->ns.misrouted, 1);
		return false;
	}
	if (len > p->max_frame) {
		/* Larger than the buffers: the NIC's MTU check drops it. */
		rxb_counter_add(&nic->ns.oversize, 1);
		rxb_iface_drop_pipeline(p->iface, meta->dest);
		return false;
	}
	return true;
}

/* Deliver m steered frames with one library call, in order (N): how many
 * it handled (every destination exists, the RETA's entries are checked:
 * all m); del[k].drop says which the design dropped. */
static unsigned deliver(struct pmd_nic *nic, const struct rxb_rx_meta *meta, uint16_t m,
			struct rxb_delivery *del)
{
	return m != 0 ? rxb_iface_deliver_burst(nic->p->iface, NULL, meta, m, del, 0) : 0;
}

/* A wire burst (N): each frame hashed and steered (its first data line
 * prefetched a few frames ahead), then delivered. The frames the wire keeps
 * — copied, dropped, not this thread's — are freed together; those passed
 * by pointer are software's now. Adds the cycles of its classify, deliver
 * and free steps to step[]. */
#define PMD_PREFETCH_AHEAD 4u

static void deliver_frames(struct pmd_nic *nic, struct rte_mbuf **f, uint16_t n, uint64_t now,
			   uint64_t *step)
{
	struct pmd *p = nic->p;
	struct rxb_rx_meta meta[PMD_WIRE_BURST];
	struct dma dma[PMD_WIRE_BURST];
	struct rxb_delivery del[PMD_WIRE_BURST];
	struct rte_mbuf *done[PMD_WIRE_BURST];
	uint16_t m = 0, n_done = 0;
	unsigned handled;
	uint64_t t0 = rte_rdtsc(), t1, t2;

	for (uint16_t i = 0; i < RTE_MIN(n, PMD_PREFETCH_AHEAD); i++)
		rte_prefetch0(rte_pktmbuf_mtod(f[i], void *));
	for (uint16_t i = 0; i < n; i++) {
		if (i + PMD_PREFETCH_AHEAD < n)
			rte_prefetch0(rte_pktmbuf_mtod(f[i + PMD_PREFETCH_AHEAD], void *));
		dma[m] = (struct dma){ .p = p,
				       .frame = f[i],
				       .by_pointer = pmd_wire_by_pointer(p) &&
						     f[i]->pool != p->wire_pool };
		if (steer(nic, rte_pktmbuf_pkt_len(f[i]), frame_hash(p, f[i]), now, &meta[m],
			  &dma[m]))
			m++;
		else
			done[n_done++] = f[i];
	}
	t1 = rte_rdtsc();
	handled = deliver(nic, meta, m, del);
	t2 = rte_rdtsc();
	for (uint16_t k = 0; k < m; k++)
		if (k >= handled || del[k].drop >= 0 || !dma[k].by_pointer)
			done[n_done++] = dma[k].frame;
	if (n_done != 0)
		rte_pktmbuf_free_bulk(done, n_done);
	step[PMD_STEP_CLASSIFY] += t1 - t0;
	step[PMD_STEP_DELIVER] += t2 - t1;
	step[PMD_STEP_FREE] += rte_rdtsc() - t2;
}

/* A burst of a net_null wire (N). net_null writes no bytes and makes each
 * frame in a mbuf only for the NIC to free it: the NIC makes the frame
 * itself, in the buffer the design takes, as a NIC's DMA writes what comes
 * off the wire. Each frame is of the next flow this thread owns, with that
 * flow's hash (computed at start, as a wire that hashes with our key
 * reports it) and the wire's frame length. Adds the cycles of its classify
 * and deliver steps to step[]; it has no receive nor free. */
static void deliver_null(struct pmd_nic *nic, uint16_t n, uint64_t now, uint64_t *step)
{
	struct pmd *p = nic->p;
	struct rxb_rx_meta meta[PMD_WIRE_BURST];
	struct dma dma[PMD_WIRE_BURST];
	struct rxb_delivery del[PMD_WIRE_BURST];
	uint16_t m = 0;
	uint64_t t0 = rte_rdtsc(), t1;
	/* relaxed: the flag alone (pmd.h); one read for the burst */
	bool l4 = atomic_load_explicit(&p->l4, memory_order_relaxed);

	for (uint16_t i = 0; i < n; i++) {
		const struct pmd_wire_flow *wf = pmd_wire_null_next(nic);

		dma[m] = (struct dma){ .p = p, .flow = wf };
		if (steer(nic, p->null_frame_len, l4 ? wf->hash_l4 : wf->hash_l3, now, &meta[m],
			  &dma[m]))
			m++;
	}
	t1 = rte_rdtsc();
	deliver(nic, meta, m, del);
	step[PMD_STEP_CLASSIFY] += t1 - t0;
	step[PMD_STEP_DELIVER] += rte_rdtsc() - t1;
}

static double ms_since_start(const struct pmd *p, uint64_t now)
{
	return (double)(now - p->t_start) * 1e3 / (double)p->hz;
}

/* The fault_link_down schedule: the wire is set down, then up (N0). */
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

/* The wire's link, read every millisecond by each NIC thread (a register
 * read on a real NIC): while it is down nothing is received, as on a NIC
 * whose cable is out. Thread 0 applies the fault and counts the events. */
static bool wire_link_up(struct pmd_nic *nic, uint64_t now)
{
	struct pmd *p = nic->p;
	struct rte_eth_link l;

	if (now < nic->next_link_check)
		return nic->link_up;
	nic->next_link_check = now + p->hz / 1000;
	if (nic->id == 0 && p->cfg.link_down_at_ms >= 0)
		link_fault(p, now);
	if (rte_eth_link_get_nowait(p->wire, &l) != 0)
		return nic->link_up;
	if (nic->id == 0 && nic->link_up && l.link_status == RTE_ETH_LINK_DOWN)
		rxb_counter_add(&nic->ns.link_down_events, 1);
	nic->link_up = l.link_status == RTE_ETH_LINK_UP;
	return nic->link_up;
}

/* Dynamic shRing: one controller sample per dyn_sample_ms (N0, the only
 * NIC thread of such a port). Throughput
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
	bytes = rxb_counter_read(&p->nic[0].ns.wire_bytes);
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
		rxb_counter_add(&p->nic[0].ns.dyn_switches, 1);
}

/* The port-wide work of a pass (N0). */
static unsigned port_work(struct pmd *p, uint64_t now)
{
	unsigned work = 0;

	if (p->cfg.scn.arch.coalesce)
		work += rxb_iface_tick(p->iface, now);
	if (p->cfg.scn.arch.name == RXB_ARCH_DYN_SHRING)
		dyn_step(p, now);
	return work;
}

/* A pass from `start` that handled pkts wire frames, whose steps took
 * step[] of it: counted as the NIC's own cost when it handled at least
 * half a burst and was not preempted (a scheduler slice is milliseconds,
 * such a pass microseconds), as the emulator's full-burst loops are. */
static void account_pass(struct pmd_nic *nic, uint64_t start, unsigned pkts, const uint64_t *step)
{
	uint64_t t = rte_rdtsc() - start;

	if (pkts < PMD_WIRE_BURST / 2 || t >= nic->p->hz / 5000)
		return;
	rxb_counter_add(&nic->ns.full_cyc, t);
	rxb_counter_add(&nic->ns.full_pkts, pkts);
	for (int s = 0; s < PMD_N_STEPS; s++)
		rxb_counter_add(&nic->ns.step_cyc[s], step[s]);
}

/* One pass of NIC thread `arg` over its wire queues. A service callback: 0
 * when it did work, -EAGAIN when idle (rte_service statistics count only
 * the former as busy). */
int32_t pmd_nic_service(void *arg)
{
	struct pmd_nic *nic = arg;
	struct pmd *p = nic->p;
	struct rte_mbuf *f[PMD_WIRE_BURST];
	uint64_t now = rte_rdtsc(), step[PMD_N_STEPS] = { 0 };
	unsigned work = 0, pkts;

	/* relaxed: quiesce_nic() reads it only seconds after the stop cleared
	 * nic_on; a pass that enters after that finds nic_on clear and touches
	 * nothing the stop frees */
	atomic_store_explicit(&nic->in_pass, true, memory_order_relaxed);
	/* acquire: pairs with the release in dev_start() (pmd_ethdev.c); the
	 * iface and queues it built are visible. */
	if (!atomic_load_explicit(&p->nic_on, memory_order_acquire)) {
		/* release: pairs with the acquire in quiesce_nic(); before the
		 * pass count's release, which the stop's acquire then covers */
		atomic_store_explicit(&nic->in_pass, false, memory_order_release);
		/* release: even a pass that found the port stopped ends before
		 * the stop's acquire (quiesce_nic) */
		count_release(&nic->passes);
		return -EAGAIN;
	}
	/* acquire: pairs with the release below, of the previous pass */
	(void)atomic_load_explicit(&nic->passes, memory_order_acquire);
	if (wire_link_up(nic, now)) {
		for (uint16_t q = nic->id; q < p->wire_rxqs; q += p->n_nics) {
			uint16_t n = PMD_WIRE_BURST;

			if (p->null_frame_len != 0) {
				deliver_null(nic, n, now, step);
			} else {
				uint64_t t = rte_rdtsc();

				n = rte_eth_rx_burst(p->wire, q, f, n);
				step[PMD_STEP_RECEIVE] += rte_rdtsc() - t;
				deliver_frames(nic, f, n, now, step);
			}
			work += n;
		}
	}
	pkts = work;
	if (nic->id == 0)
		work += port_work(p, now);
	account_pass(nic, now, pkts, step);
	rxb_counter_add(work != 0 ? &nic->ns.busy_polls : &nic->ns.idle_polls, 1);
	/* release: pairs with the acquire in quiesce_nic(); before the pass
	 * count's release, the pass's last write to what the close frees */
	atomic_store_explicit(&nic->in_pass, false, memory_order_release);
	/* release: pairs with the acquires at the next pass's start and in
	 * quiesce_nic() (pmd_ethdev.c) */
	count_release(&nic->passes);
	return work != 0 ? 0 : -EAGAIN;
}

/* nic_cpu=N: the same passes on a thread of its own until stopped. Not an
 * EAL lcore: an application that waits for all its lcores
 * (rte_eal_mp_wait_lcore) would wait for it for ever. */
void *pmd_nic_thread_main(void *arg)
{
	struct pmd_nic *nic = arg;

	/* acquire: pairs with the release in quiesce_nic() */
	while (!atomic_load_explicit(&nic->p->nic_quit, memory_order_acquire))
		if (pmd_nic_service(nic) != 0)
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

/* The mbuf to give the application for received entry pk (Q): the frame
 * its buffer carries by pointer, the buffer becoming a spare; else the
 * buffer (the frame was copied into it). Its fields come from the entry,
 * as a driver fills them from a completion, on lines this core owns. */
static struct rte_mbuf *take_frame(struct pmd_rxq *rq, const struct rxb_pkt *pk)
{
	struct rte_mbuf *buf = (struct rte_mbuf *)(uintptr_t)pk->buf;
	struct rte_mbuf *f = pmd_wire_by_pointer(rq->p) ? *frame_of(buf) : NULL;

	if (f == NULL) {
		f = buf;
		f->data_len = (uint16_t)pk->len;
		f->pkt_len = pk->len;
	} else {
		*frame_of(buf) = NULL;
		if (rq->n_spare < PMD_SPARES)
			rq->spare[rq->n_spare++] = buf;
		else
			rte_pktmbuf_free(buf);
	}
	f->port = rq->p->port_id;
	/* (a frame by pointer may be a clone or an external buffer: its
	 * free reads those flags) */
	f->ol_flags = (f->ol_flags & (RTE_MBUF_F_EXTERNAL | RTE_MBUF_F_INDIRECT)) |
		      RTE_MBUF_F_RX_RSS_HASH;
	f->hash.rss = pk->hash;
	f->packet_type = RTE_PTYPE_UNKNOWN;
	return f;
}

uint16_t pmd_rx_burst(void *queue, struct rte_mbuf **pkts, uint16_t n)
{
	struct pmd_rxq *rq = queue;
	struct pmd *p = rq->p;
	struct rxb_pkt pk[RXB_BURST_MAX];
	/* The clock only where it is read (a TSC read can trap in a VM and
	 * then costs more than the rest of an empty poll). */
	uint64_t now = p->rx_clock ? rte_rdtsc() : 0, bytes = 0;
	unsigned got;

	/* acquire: pairs with the release in dev_start() (pmd_ethdev.c). A
	 * stopped port receives nothing (its rings were given back). */
	if (!atomic_load_explicit(&p->nic_on, memory_order_acquire)) {
		/* release: as at the end below */
		count_release(&rq->calls);
		return 0;
	}
	if (stalled(rq, p, now)) {
		rxb_counter_add(&rq->stalled_polls, 1);
		/* release: as at the end below */
		count_release(&rq->calls);
		return 0;
	}
	if (p->cfg.scn.arch.name == RXB_ARCH_DYN_SHRING)
		rxb_dynctl_ivl_note(&rq->ivl, now);
	got = rxb_iface_rx(p->iface, rq->qid, pk, RTE_MIN(n, RXB_BURST_MAX), now);
	for (unsigned i = 0; i < got; i++) {
		pkts[i] = take_frame(rq, &pk[i]);
		bytes += pk[i].len;
	}
	if (got != 0) {
		/* The application frees them (to their own pools). */
		rxb_iface_note_released(p->iface, rq->qid, got);
		rxb_counter_add(&rq->bytes, bytes);
	}
	/* release: pairs with the acquire in quiesce_queues() (pmd_ethdev.c) */
	count_release(&rq->calls);
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
	count_release(&tq->calls);
	return sent;
}
