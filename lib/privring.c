/* SPDX-License-Identifier: BSD-3-Clause
 *
 * privRing: per-core Rx ring + completion ring. The software side takes no
 * lock and does no atomic read-modify-write: per batch it does one acquire
 * per CR entry (the done bit), one release to free CR entries and one release
 * doorbell.
 */
#include <errno.h>
#include <stdlib.h>

#include "ring.h"
#include "rxb/privring.h"

struct rxb_prq {
	struct rxb_descring rx;
	struct rxb_cr cr;
	/* Software-private producer state of the owning core. */
	struct {
		uint32_t tail;      /* next descriptor slot to post */
		uint32_t reclaimed; /* descriptors received back from the NIC */
	} sw RXB_CACHE_ALIGNED;
	struct rxb_nic_stats nic_stats RXB_CACHE_ALIGNED;
	struct rxb_sw_stats sw_stats;
};

struct rxb_privring {
	struct rxb_privring_config cfg;
	struct rxb_prq *q;
};

_Static_assert(offsetof(struct rxb_prq, sw) % RXB_CACHE_LINE == 0,
	       "software state must not share a line with NIC state");
_Static_assert(offsetof(struct rxb_prq, nic_stats) % RXB_CACHE_LINE == 0,
	       "NIC counters must not share a line with software state");

static int privring_validate(const struct rxb_privring_config *cfg, struct rxb_err *err)
{
	int rc;

	if (cfg->n_queues == 0 || cfg->n_queues > RXB_MAX_QUEUES) {
		rxb_err_set(err, "privring.n_queues = %u: must be in [1, %u]", cfg->n_queues,
			    RXB_MAX_QUEUES);
		return -EINVAL;
	}
	rc = rxb_check_ring_size("privring.ring_size", cfg->ring_size, err);
	if (rc == 0 && cfg->cr_size != 0)
		rc = rxb_check_ring_size("privring.cr_size", cfg->cr_size, err);
	if (rc == 0)
		rc = rxb_check_desc_prefetch("privring.desc_prefetch", cfg->desc_prefetch, err);
	return rc;
}

struct rxb_privring *rxb_privring_create(const struct rxb_privring_config *cfg, struct rxb_err *err)
{
	struct rxb_privring *pr;
	uint32_t cr_size, prefetch;
	size_t bytes;
	int rc;

	if (cfg == NULL) {
		rxb_err_set(err, "privring: the configuration is NULL");
		return rxb_fail_null(-EINVAL);
	}
	rc = privring_validate(cfg, err);
	if (rc != 0)
		return rxb_fail_null(rc);
	cr_size = cfg->cr_size ? cfg->cr_size : cfg->ring_size;
	prefetch = cfg->desc_prefetch ? cfg->desc_prefetch : RXB_DESC_PREFETCH_DEFAULT;
	pr = rxb_calloc(1, sizeof(*pr));
	if (pr == NULL)
		return rxb_fail_null(rxb_err_nomem(err, sizeof(*pr), "privring"));
	pr->cfg = *cfg;
	bytes = sizeof(*pr->q) * cfg->n_queues;
	pr->q = rxb_zalloc_aligned(bytes);
	if (pr->q == NULL) {
		rc = rxb_err_nomem(err, bytes, "privring: %u queues", cfg->n_queues);
		goto fail;
	}
	for (uint32_t i = 0; rc == 0 && i < cfg->n_queues; i++) {
		rc = rxb_descring_init(&pr->q[i].rx, cfg->ring_size, prefetch, "privring Rx ring",
				       err);
		if (rc == 0)
			rc = rxb_cr_init(&pr->q[i].cr, cr_size, sizeof(struct rxb_cr_entry),
					 "privring CR", err);
	}
	if (rc == 0)
		return pr;
fail:
	rxb_privring_destroy(pr);
	return rxb_fail_null(rc);
}

void rxb_privring_destroy(struct rxb_privring *pr)
{
	if (pr == NULL)
		return;
	for (uint32_t i = 0; pr->q != NULL && i < pr->cfg.n_queues; i++) {
		rxb_descring_fini(&pr->q[i].rx);
		rxb_cr_fini(&pr->q[i].cr);
	}
	rxb_free_aligned(pr->q);
	free(pr);
}

uint32_t rxb_privring_n_queues(const struct rxb_privring *pr)
{
	return pr->cfg.n_queues;
}

uint32_t rxb_privring_ring_size(const struct rxb_privring *pr)
{
	return pr->cfg.ring_size;
}

/* ------------------------------------------------------------- NIC side */

/* The counters of consecutive deliveries to one queue, added to the queue's
 * counters once per run instead of once per packet: in a burst steered to
 * few cores, most packets follow one to the same queue. */
struct prq_run {
	struct rxb_prq *q;
	uint64_t offered, delivered, desc_reads, desc_fetched;
};

static void prq_run_flush(struct prq_run *run)
{
	struct rxb_nic_stats *s;

	if (run->offered == 0)
		return;
	s = &run->q->nic_stats;
	rxb_nic_count(s, RXB_NIC_OFFERED, run->offered);
	rxb_nic_count(s, RXB_NIC_DELIVERED, run->delivered);
	rxb_nic_count(s, RXB_NIC_CMPL_WRITES, run->delivered); /* one entry per packet */
	rxb_nic_count(s, RXB_NIC_DESC_READS, run->desc_reads);
	rxb_nic_count(s, RXB_NIC_DESC_FETCHED, run->desc_fetched);
	run->offered = run->delivered = run->desc_reads = run->desc_fetched = 0;
}

/* A drop of a packet to dest after `reads` descriptor reads: returns 1, as
 * the deliver entries. The run's counts go in first, so a drop is never
 * counted before the packet was offered. */
static int prq_drop(struct prq_run *run, struct rxb_delivery *d, uint32_t dest, uint16_t reads,
		    enum rxb_drop_cause cause)
{
	prq_run_flush(run);
	rxb_delivery_start(d, dest);
	d->desc_reads = reads;
	rxb_nic_drop(&run->q->nic_stats, d, cause);
	return 1;
}

/* One packet of rxb_privring_nic_deliver(_burst), counted in run. Inline:
 * the burst is a loop around it. The delivery record is written once, at
 * the end (not started and then amended: 4 stores a packet fewer). */
static inline __attribute__((always_inline)) int prq_deliver(struct rxb_privring *pr,
							     const struct rxb_rx_meta *meta,
							     struct rxb_delivery *d,
							     struct prq_run *run)
{
	const uint32_t dest = meta->dest;
	struct rxb_prq *q;
	uint16_t reads = 0;
	rxb_buf_t buf;
	uint32_t slot, fetched;
	bool ready;

	if (dest >= pr->cfg.n_queues)
		return rxb_delivery_refuse(d, dest);
	q = &pr->q[dest];
	if (q != run->q) {
		prq_run_flush(run);
		run->q = q;
	}
	run->offered++;
	fetched = q->rx.nic.fetched;
	ready = rxb_descring_nic_ready(&q->rx, &reads);
	run->desc_reads += reads;
	run->desc_fetched += q->rx.nic.fetched - fetched; /* what those reads brought in */
	if (!ready)
		return prq_drop(run, d, dest, reads, RXB_DROP_NO_RX_DESC);
	if (!rxb_cr_nic_has_room(&q->cr))
		return prq_drop(run, d, dest, reads, RXB_DROP_CR_FULL);
	slot = rxb_descring_nic_take(&q->rx, &buf);
	rxb_nic_write_payload(meta, buf);
	rxb_cr_nic_write(&q->cr, slot, meta->len, meta->hash);
	*d = (struct rxb_delivery){ .drop = -1,
				    .ring = dest,
				    .src_ring = dest,
				    .src_index = slot,
				    .buf = buf,
				    .notify_ring = RXB_NONE,
				    .desc_reads = reads,
				    .cmpl_writes = 1 };
	run->delivered++;
	return 0;
}

int rxb_privring_nic_deliver(struct rxb_privring *pr, const struct rxb_rx_meta *meta,
			     struct rxb_delivery *d)
{
	struct prq_run run = { 0 };
	int rc = prq_deliver(pr, meta, d, &run);

	prq_run_flush(&run);
	return rc;
}

unsigned rxb_privring_nic_deliver_burst(struct rxb_privring *pr, const uint32_t *rings,
					const struct rxb_rx_meta *metas, unsigned n,
					struct rxb_delivery *d, bool stop_on_drop)
{
	struct prq_run run = { 0 };
	unsigned k = 0;

	while (k < n && rxb_burst_next(rings != NULL && rings[k] != metas[k].dest
					       ? rxb_delivery_refuse(&d[k], metas[k].dest)
					       : prq_deliver(pr, &metas[k], &d[k], &run),
				       stop_on_drop, &k))
		;
	prq_run_flush(&run);
	return k;
}

bool rxb_privring_nic_room(struct rxb_privring *pr, uint32_t q, enum rxb_drop_cause *cause)
{
	struct rxb_prq *pq = &pr->q[q];

	/* The checks of rxb_privring_nic_deliver, in its order, without its
	 * prefetch: a descriptor prefetched or posted, then a CR entry. */
	if (rxb_descring_nic_avail(&pq->rx, false) == 0)
		return rxb_nic_no_room(cause, RXB_DROP_NO_RX_DESC);
	if (!rxb_cr_nic_has_room(&pq->cr))
		return rxb_nic_no_room(cause, RXB_DROP_CR_FULL);
	return true;
}

unsigned rxb_privring_nic_fetch(struct rxb_privring *pr, uint32_t q, rxb_buf_t *bufs, unsigned n)
{
	struct rxb_prq *pq = &pr->q[q];
	uint32_t first = pq->rx.nic.fetched;
	uint16_t reads = 0;
	unsigned got = rxb_descring_nic_fetch(&pq->rx, n, &reads);

	for (unsigned i = 0; i < got; i++)
		bufs[i] = pq->rx.desc[(first + i) & pq->rx.mask];
	rxb_nic_count(&pq->nic_stats, RXB_NIC_DESC_READS, reads);
	rxb_nic_count(&pq->nic_stats, RXB_NIC_DESC_FETCHED, got);
	return got;
}

/* -------------------------------------------------------- software side */

/* Read up to n done CR entries into out without consuming them. */
static unsigned prq_peek(struct rxb_prq *q, struct rxb_pkt *out, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		const struct rxb_cr_entry *e = rxb_cr_sw_peek(&q->cr, i);

		if (e == NULL)
			break;
		/* The NIC uses descriptors in ring order, so entry i names the
		 * (reclaimed + i)-th descriptor; anything else is a NIC bug. */
		if (e->index != ((q->sw.reclaimed + i) & q->rx.mask)) {
			RXB_DEBUG_CHECK(0, "privring: completion out of ring order");
			rxb_sw_count(&q->sw_stats, RXB_SW_ORDER_ERRORS, 1);
		}
		out[i].buf = q->rx.desc[e->index];
		out[i].len = e->len;
		out[i].hash = e->hash;
	}
	return i;
}

/* Consume n peeked entries: the descriptors are back in software's hands. */
static void prq_consume(struct rxb_prq *q, unsigned n)
{
	rxb_cr_sw_publish(&q->cr, n);
	q->sw.reclaimed += n;
	rxb_sw_count(&q->sw_stats, RXB_SW_RECEIVED, n);
}

/* Write n fresh buffers into the descriptors after the tail; the NIC sees
 * them at the next doorbell. */
static void prq_write(struct rxb_prq *q, const rxb_buf_t *fresh, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		q->rx.desc[(q->sw.tail + i) & q->rx.mask] = fresh[i];
	q->sw.tail += n;
	rxb_sw_count(&q->sw_stats, RXB_SW_POSTED, n);
}

static void prq_doorbell(struct rxb_prq *q)
{
	rxb_descring_doorbell(&q->rx, q->sw.tail);
	rxb_sw_count(&q->sw_stats, RXB_SW_DOORBELLS, 1);
}

/* Write fresh buffers at the tail and ring the doorbell once. */
static void prq_post(struct rxb_prq *q, const rxb_buf_t *fresh, unsigned n)
{
	prq_write(q, fresh, n);
	prq_doorbell(q);
}

static void prq_count_poll(struct rxb_prq *q, unsigned got)
{
	rxb_sw_count(&q->sw_stats, RXB_SW_POLLS, 1);
	if (got == 0)
		rxb_sw_count(&q->sw_stats, RXB_SW_EMPTY_POLLS, 1);
}

unsigned rxb_privring_rx_burst(struct rxb_privring *pr, uint32_t q, struct rxb_pkt *out, unsigned n,
			       const struct rxb_allocator *alloc)
{
	struct rxb_prq *pq = &pr->q[q];
	rxb_buf_t fresh[RXB_BURST_MAX];
	unsigned got;

	if (n > RXB_BURST_MAX)
		n = RXB_BURST_MAX;
	got = prq_peek(pq, out, n);
	if (got != 0) {
		unsigned armed = rxb_alloc_get_upto(alloc, fresh, got);

		if (armed != got)
			rxb_sw_count(&pq->sw_stats, RXB_SW_ALLOC_FAIL, 1);
		got = armed; /* the first `armed` of those peeked */
	}
	if (got != 0) {
		prq_consume(pq, got);
		prq_post(pq, fresh, got);
	}
	prq_count_poll(pq, got);
	return got;
}

unsigned rxb_privring_rx_take(struct rxb_privring *pr, uint32_t q, struct rxb_pkt *out, unsigned n)
{
	struct rxb_prq *pq = &pr->q[q];
	unsigned got = prq_peek(pq, out, n);

	if (got != 0)
		prq_consume(pq, got);
	prq_count_poll(pq, got);
	return got;
}

uint32_t rxb_privring_posted(const struct rxb_privring *pr, uint32_t q)
{
	return pr->q[q].sw.tail - pr->q[q].sw.reclaimed;
}

unsigned rxb_privring_post(struct rxb_privring *pr, uint32_t q, const struct rxb_allocator *alloc,
			   unsigned n)
{
	struct rxb_prq *pq = &pr->q[q];
	uint32_t room = pq->rx.size - rxb_privring_posted(pr, q);
	rxb_buf_t fresh[RXB_BURST_MAX];
	unsigned done = 0;

	if (n > room)
		n = room;
	/* As much as the pool gives, not all or nothing per chunk: a short
	 * pool would otherwise leave a drained queue with no descriptor. */
	while (done < n) {
		unsigned want = n - done < RXB_BURST_MAX ? n - done : RXB_BURST_MAX;
		unsigned got = rxb_alloc_get_upto(alloc, fresh, want);

		prq_write(pq, fresh, got);
		done += got;
		if (got == 0)
			break;
	}
	if (done < n)
		rxb_sw_count(&pq->sw_stats, RXB_SW_ALLOC_FAIL, 1);
	if (done != 0)
		prq_doorbell(pq);
	return done;
}

void rxb_privring_free(struct rxb_privring *pr, uint32_t q, const struct rxb_allocator *alloc,
		       const rxb_buf_t *bufs, unsigned n)
{
	rxb_sw_free(&pr->q[q].sw_stats, alloc, bufs, n);
}

/* --------------------------------------------------------- observability */

const struct rxb_nic_stats *rxb_privring_nic_stats(const struct rxb_privring *pr, uint32_t q)
{
	return &pr->q[q].nic_stats;
}

const struct rxb_sw_stats *rxb_privring_sw_stats(const struct rxb_privring *pr, uint32_t q)
{
	return &pr->q[q].sw_stats;
}

struct rxb_cr *rxb_privring_cr(struct rxb_privring *pr, uint32_t q)
{
	return &pr->q[q].cr;
}

uint32_t rxb_privring_occupancy(struct rxb_privring *pr, uint32_t q)
{
	return rxb_cr_occupancy(rxb_privring_cr(pr, q));
}

int rxb_privring_census(struct rxb_privring *pr, uint32_t q, struct rxb_census *c,
			struct rxb_buflist *bufs, struct rxb_err *err)
{
	struct rxb_prq *pq = &pr->q[q];
	uint32_t head = rxb_relaxed_load(&pq->rx.nic.head);
	uint32_t tail = rxb_relaxed_load(&pq->rx.db.tail);
	uint32_t written = rxb_relaxed_load(&pq->cr.nic.prod) - pq->cr.sw.cons;
	const struct rxb_nic_stats *ns = &pq->nic_stats;

	/* Every descriptor the NIC consumed and software has not reclaimed
	 * must be named by exactly one unread CR entry. */
	if (tail != pq->sw.tail || head - pq->sw.reclaimed != written ||
	    tail - head > pq->rx.size) {
		return rxb_err_fail(err, -RXB_E_INVARIANT,
				    "privring queue %u: tail %u (posted %u) head %u reclaimed %u "
				    "unread entries %u are inconsistent",
				    q, tail, pq->sw.tail, head, pq->sw.reclaimed, written);
	}
	c->posted += tail - pq->rx.nic.fetched;
	c->nic_held += pq->rx.nic.fetched - head;
	c->in_entries += written;
	c->offered += rxb_counter_read(&ns->c[RXB_NIC_OFFERED]);
	c->delivered += rxb_counter_read(&ns->c[RXB_NIC_DELIVERED]);
	c->dropped += rxb_nic_drops(ns);
	c->received += rxb_counter_read(&pq->sw_stats.c[RXB_SW_RECEIVED]);
	c->app_held += rxb_counter_read(&pq->sw_stats.c[RXB_SW_RECEIVED]) -
		       rxb_counter_read(&pq->sw_stats.c[RXB_SW_FREED]);
	for (uint32_t i = pq->sw.reclaimed; bufs != NULL && i != tail; i++)
		if (rxb_buflist_push(bufs, pq->rx.desc[i & pq->rx.mask], err) != 0)
			return -ENOMEM;
	return 0;
}
