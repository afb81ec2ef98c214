/* SPDX-License-Identifier: BSD-3-Clause
 *
 * shRing: what both variants share (configuration, NIC side, receive path up
 * to the release, repost lock and doorbell, statistics, census frame) and
 * the RxArr variant. RxList is in shring_list.c. See include/rxb/shring.h
 * for the design, the sentinel rule and the memory-order argument.
 *
 * Per receive call a core does: one acquire per CR entry (done bit), one
 * release to free its CR entries, and then the design's own costs — RxArr:
 * one atomic OR per bitmap word touched, the lock, one atomic AND per run of
 * returned descriptors within a word, one release doorbell; RxList: the lock
 * and one release doorbell; batched RxList: the same, but only in a call that
 * completes a descriptor (received its last slot).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "shring_internal.h"

struct rxb_shring {
	struct rxb_shring_config cfg; /* cr_size, desc_prefetch and batch resolved */
	const struct shring_ops *ops;
	/* Destinations the unbatched delivery path serves: n_cores, or 0 when
	 * batched, so the range check every delivery does anyway also sends
	 * batched ones to their own path (no extra work per packet when not
	 * batched). */
	uint32_t plain_cores;
	uint32_t n_rings;
	struct rxb_shgroup *g; /* n_rings */
	struct rxb_shcore *c;  /* n_cores */
};

_Static_assert(offsetof(struct rxb_shgroup, nic) % RXB_CACHE_LINE == 0,
	       "NIC state must not share a line with the repost state");
_Static_assert(offsetof(struct rxb_shgroup, rep) % RXB_CACHE_LINE == 0,
	       "repost state (lock) must not share a line with NIC state");
_Static_assert(offsetof(struct rxb_shcore, nic_stats) % RXB_CACHE_LINE == 0,
	       "NIC counters must not share a line with the CR's software state");

/* ------------------------------------------------------- configuration */

/* Batched RxList: batch 0 or 1 is unbatched; more only with the list, a
 * power of two within RXB_SHRING_BATCH_MAX and ring_size × batch slots
 * within RXB_RING_MAX (also the largest CR: the default CR holds them all).
 * And ring_size > share_degree: each core of a group keeps its current
 * descriptor until every slot is filled, which for a core that gets no
 * more packets is never; the list hands out ring_size − 1 descriptors, so
 * with share_degree − 1 cores idle on theirs one is still left for the
 * core that has traffic, and it gets it back each time it has received
 * all its slots. */
static int shring_validate_batch(const struct rxb_shring_config *cfg, struct rxb_err *err)
{
	uint64_t slots = (uint64_t)cfg->ring_size * cfg->batch;

	if (cfg->batch <= 1)
		return 0;
	if (!rxb_is_pow2(cfg->batch) || cfg->batch > RXB_SHRING_BATCH_MAX) {
		rxb_err_set(err,
			    "shring.batch = %u: must be a power of two at most %u (0 or 1: "
			    "not batched)",
			    cfg->batch, RXB_SHRING_BATCH_MAX);
		return -EINVAL;
	}
	if (!cfg->list) {
		rxb_err_set(err,
			    "shring.batch = %u: batched descriptors need shring.list = true "
			    "(batched RxList)",
			    cfg->batch);
		return -EINVAL;
	}
	if (cfg->ring_size <= cfg->share_degree) {
		rxb_err_set(
			err,
			"shring.ring_size = %u: batched RxList needs more descriptors than "
			"shring.share_degree = %u (each core holds one until it is full; the list "
			"hands out ring_size - 1); allowed: a power of two above %u",
			cfg->ring_size, cfg->share_degree, cfg->share_degree);
		return -EINVAL;
	}
	if (slots > RXB_RING_MAX) {
		rxb_err_set(err,
			    "shring.batch = %u: shring.ring_size × shring.batch = %llu buffer "
			    "slots, must be at most %u",
			    cfg->batch, (unsigned long long)slots, RXB_RING_MAX);
		return -EINVAL;
	}
	return 0;
}

static int shring_validate(const struct rxb_shring_config *cfg, struct rxb_err *err)
{
	int rc;

	if (cfg->n_cores == 0 || cfg->n_cores > RXB_MAX_CORES) {
		rxb_err_set(err, "shring.n_cores = %u: must be in [1, %u]", cfg->n_cores,
			    RXB_MAX_CORES);
		return -EINVAL;
	}
	if (cfg->share_degree == 0) {
		rxb_err_set(err, "shring.share_degree = 0: must be at least 1 (cores per "
				 "shared ring)");
		return -EINVAL;
	}
	if (cfg->n_cores % cfg->share_degree != 0) {
		rxb_err_set(err, "shring.share_degree = %u: must divide shring.n_cores = %u",
			    cfg->share_degree, cfg->n_cores);
		return -EINVAL;
	}
	rc = rxb_check_ring_size("shring.ring_size", cfg->ring_size, err);
	if (rc == 0 && cfg->cr_size != 0)
		rc = rxb_check_ring_size("shring.cr_size", cfg->cr_size, err);
	if (rc == 0)
		rc = rxb_check_desc_prefetch("shring.desc_prefetch", cfg->desc_prefetch, err);
	return rc == 0 ? shring_validate_batch(cfg, err) : rc;
}

static int shring_alloc(struct rxb_shring *sh, struct rxb_err *err)
{
	const struct rxb_shring_config *cfg = &sh->cfg;
	size_t g_bytes = sizeof(*sh->g) * sh->n_rings, c_bytes = sizeof(*sh->c) * cfg->n_cores;
	int rc = 0;

	sh->g = rxb_zalloc_aligned(g_bytes);
	if (sh->g == NULL)
		return rxb_err_nomem(err, g_bytes, "shring: %u shared rings", sh->n_rings);
	sh->c = rxb_zalloc_aligned(c_bytes);
	if (sh->c == NULL)
		return rxb_err_nomem(err, c_bytes, "shring: %u cores", cfg->n_cores);
	for (uint32_t r = 0; rc == 0 && r < sh->n_rings; r++) {
		struct rxb_shgroup *g = &sh->g[r];

		g->first_core = r * cfg->share_degree;
		g->rep.last = RXB_NONE;
		g->batch = cfg->batch;
		g->batch_shift = (uint32_t)__builtin_ctz(cfg->batch);
		rc = rxb_descring_init(&g->rx, cfg->ring_size, cfg->desc_prefetch,
				       "shring shared ring", err);
		if (rc == 0)
			rc = sh->ops->init(g, err);
	}
	for (uint32_t c = 0; rc == 0 && c < cfg->n_cores; c++) {
		sh->c[c].cur.desc = RXB_NONE;
		sh->c[c].cur.fill = cfg->batch; /* no current descriptor */
		rc = rxb_cr_init(&sh->c[c].cr, cfg->cr_size, sizeof(struct rxb_cr_entry),
				 "shring CR", err);
	}
	return rc;
}

struct rxb_shring *rxb_shring_create(const struct rxb_shring_config *cfg, struct rxb_err *err)
{
	struct rxb_shring *sh;
	int rc;

	if (cfg == NULL) {
		rxb_err_set(err, "shring: the configuration is NULL");
		return rxb_fail_null(-EINVAL);
	}
	rc = shring_validate(cfg, err);
	if (rc != 0)
		return rxb_fail_null(rc);
	sh = rxb_calloc(1, sizeof(*sh));
	if (sh == NULL)
		return rxb_fail_null(rxb_err_nomem(err, sizeof(*sh), "shring"));
	sh->cfg = *cfg;
	if (sh->cfg.batch == 0)
		sh->cfg.batch = 1;
	/* A CR that holds every packet the ring can: it never fills by default. */
	if (sh->cfg.cr_size == 0)
		sh->cfg.cr_size = cfg->ring_size * sh->cfg.batch;
	if (sh->cfg.desc_prefetch == 0)
		sh->cfg.desc_prefetch = RXB_DESC_PREFETCH_DEFAULT < cfg->ring_size
						? RXB_DESC_PREFETCH_DEFAULT
						: cfg->ring_size;
	sh->ops = !cfg->list          ? &rxb_shring_arr_ops
		  : sh->cfg.batch > 1 ? &rxb_shring_batch_ops
				      : &rxb_shring_list_ops;
	sh->plain_cores = sh->cfg.batch > 1 ? 0 : cfg->n_cores;
	sh->n_rings = cfg->n_cores / cfg->share_degree;
	rc = shring_alloc(sh, err);
	if (rc == 0)
		return sh;
	rxb_shring_destroy(sh);
	return rxb_fail_null(rc);
}

void rxb_shring_destroy(struct rxb_shring *sh)
{
	if (sh == NULL)
		return;
	for (uint32_t r = 0; sh->g != NULL && r < sh->n_rings; r++) {
		sh->ops->fini(&sh->g[r]);
		rxb_descring_fini(&sh->g[r].rx);
	}
	for (uint32_t c = 0; sh->c != NULL && c < sh->cfg.n_cores; c++)
		rxb_cr_fini(&sh->c[c].cr);
	rxb_free_aligned(sh->g);
	rxb_free_aligned(sh->c);
	free(sh);
}

uint32_t rxb_shring_n_rings(const struct rxb_shring *sh)
{
	return sh->n_rings;
}

uint32_t rxb_shring_ring_of(const struct rxb_shring *sh, uint32_t core)
{
	return core / sh->cfg.share_degree;
}

uint32_t rxb_shring_ring_size(const struct rxb_shring *sh)
{
	return sh->cfg.ring_size;
}

uint32_t rxb_shring_ring_slots(const struct rxb_shring *sh)
{
	return shring_n_slots(&sh->g[0]);
}

static struct rxb_shgroup *group_of(struct rxb_shring *sh, uint32_t core)
{
	return &sh->g[core / sh->cfg.share_degree];
}

/* ------------------------------------------------------------- NIC side */

/* The NIC path is inlined wherever it is used: the unbatched delivery then
 * compiles to what it was before the batched variant existed (which is a
 * second instance of it, out of line, not branches inside it). */
#define NIC_INLINE static inline __attribute__((always_inline))

/* Prefetch up to n descriptors, counting the ring-wide fetch statistics. */
NIC_INLINE uint32_t nic_fetch(struct rxb_shring *sh, struct rxb_shgroup *g, uint32_t n,
			      uint16_t *reads)
{
	uint16_t before = *reads;
	uint32_t got = sh->ops->nic_fetch(g, n, reads);

	rxb_counter_add(&g->nic.reads, (uint16_t)(*reads - before));
	rxb_counter_add(&g->nic.fetched, got);
	return got;
}

/* Is there a descriptor for the next packet? Prefetches a batch when the
 * NIC's cache is empty, as NICs read descriptors in bursts. */
NIC_INLINE bool nic_ready(struct rxb_shring *sh, struct rxb_shgroup *g, uint16_t *reads)
{
	if (g->rx.nic.fetched != rxb_relaxed_load(&g->rx.nic.head))
		return true;
	return nic_fetch(sh, g, g->rx.nic.prefetch, reads) != 0;
}

/* Consume the prefetched descriptor at the NIC's head; returns its index. */
NIC_INLINE uint32_t nic_take(struct rxb_shring *sh, struct rxb_shgroup *g)
{
	uint32_t head = rxb_relaxed_load(&g->rx.nic.head);
	uint32_t slot = sh->ops->nic_slot(g, head);

	rxb_relaxed_store(&g->rx.nic.head, head + 1);
	return slot;
}

/* One delivery to core meta->dest (in range), specialized by the constant
 * `batched`. Unbatched, every packet takes the descriptor at the NIC's
 * head. Batched, only a packet whose core has no current descriptor with a
 * free slot takes one (it becomes the core's current descriptor); the
 * packet goes to the current descriptor's next slot. */
NIC_INLINE int nic_deliver(struct rxb_shring *sh, const struct rxb_rx_meta *meta,
			   struct rxb_delivery *d, const bool batched)
{
	struct rxb_shcore *c = &sh->c[meta->dest];
	struct rxb_shgroup *g = group_of(sh, meta->dest);
	uint32_t fetched = g->rx.nic.fetched;
	bool take = !batched || c->cur.fill == g->batch;

	rxb_nic_count(&c->nic_stats, RXB_NIC_OFFERED, 1);
	if (take && !nic_ready(sh, g, &d->desc_reads)) {
		rxb_nic_drop(&c->nic_stats, d, RXB_DROP_NO_RX_DESC);
	} else if (!rxb_cr_nic_has_room(&c->cr)) {
		rxb_nic_drop(&c->nic_stats, d, RXB_DROP_CR_FULL);
	} else {
		d->src_ring = rxb_shring_ring_of(sh, meta->dest);
		d->src_index = take ? nic_take(sh, g) : RXB_NONE;
		if (batched) {
			if (take) {
				c->cur.desc = d->src_index;
				c->cur.fill = 0;
			}
			d->src_index = c->cur.desc << g->batch_shift | c->cur.fill++;
		}
		d->buf = g->rx.desc[d->src_index];
		rxb_nic_write_payload(meta, d->buf);
		rxb_cr_nic_write(&c->cr, d->src_index, meta->len, meta->hash);
		d->cmpl_writes = 1;
		rxb_nic_count(&c->nic_stats, RXB_NIC_DELIVERED, 1);
		rxb_nic_count(&c->nic_stats, RXB_NIC_CMPL_WRITES, 1);
	}
	rxb_nic_count(&c->nic_stats, RXB_NIC_DESC_READS, d->desc_reads);
	rxb_nic_count(&c->nic_stats, RXB_NIC_DESC_FETCHED, g->rx.nic.fetched - fetched);
	return d->drop >= 0;
}

/* Batched, or a destination out of range. Out of line (a tail call), so
 * the unbatched copy in rxb_shring_nic_deliver() compiles as if alone. */
static __attribute__((noinline)) int batch_deliver(struct rxb_shring *sh,
						   const struct rxb_rx_meta *meta,
						   struct rxb_delivery *d)
{
	rxb_delivery_start(d, meta->dest);
	if (meta->dest >= sh->cfg.n_cores)
		return -EINVAL;
	return nic_deliver(sh, meta, d, true);
}

/* rxb_shring_nic_deliver, inline in its burst. */
NIC_INLINE int shring_deliver(struct rxb_shring *sh, const struct rxb_rx_meta *meta,
			      struct rxb_delivery *d)
{
	/* plain_cores is 0 when batched: the range check sends those out. */
	if (meta->dest >= sh->plain_cores)
		return batch_deliver(sh, meta, d);
	rxb_delivery_start(d, meta->dest);
	return nic_deliver(sh, meta, d, false);
}

int rxb_shring_nic_deliver(struct rxb_shring *sh, const struct rxb_rx_meta *meta,
			   struct rxb_delivery *d)
{
	return shring_deliver(sh, meta, d);
}

/* May a packet to core dest take a buffer of shared ring r? r must be the
 * ring of dest's group, tested without a division (r below the rings, so
 * r × share does not wrap). */
NIC_INLINE bool ring_serves(const struct rxb_shring *sh, uint32_t r, uint32_t dest)
{
	return r < sh->n_rings && dest - r * sh->cfg.share_degree < sh->cfg.share_degree;
}

unsigned rxb_shring_nic_deliver_burst(struct rxb_shring *sh, const uint32_t *rings,
				      const struct rxb_rx_meta *metas, unsigned n,
				      struct rxb_delivery *d, bool stop_on_drop)
{
	unsigned k = 0;

	while (k < n && rxb_burst_next(rings != NULL && !ring_serves(sh, rings[k], metas[k].dest)
					       ? rxb_delivery_refuse(&d[k], metas[k].dest)
					       : shring_deliver(sh, &metas[k], &d[k]),
				       stop_on_drop, &k))
		;
	return k;
}

bool rxb_shring_nic_room(struct rxb_shring *sh, uint32_t dest, enum rxb_drop_cause *cause)
{
	struct rxb_shcore *c = &sh->c[dest];
	struct rxb_shgroup *g = group_of(sh, dest);
	/* As nic_deliver: batched, a core with a slot left in its current
	 * descriptor needs no new one. */
	bool take = c->cur.fill == g->batch;

	if (take && g->rx.nic.fetched == rxb_relaxed_load(&g->rx.nic.head) &&
	    !sh->ops->nic_fetchable(g))
		return rxb_nic_no_room(cause, RXB_DROP_NO_RX_DESC);
	if (!rxb_cr_nic_has_room(&c->cr))
		return rxb_nic_no_room(cause, RXB_DROP_CR_FULL);
	return true;
}

unsigned rxb_shring_nic_fetch(struct rxb_shring *sh, uint32_t ring, rxb_buf_t *bufs, unsigned n)
{
	struct rxb_shgroup *g = &sh->g[ring];
	struct rxb_nic_stats *s = &sh->c[g->first_core].nic_stats;
	uint32_t first = g->rx.nic.fetched;
	unsigned got = 0;

	n >>= g->batch_shift; /* batched: whole descriptors */
	/* In chunks, so one chunk's read count fits the uint16_t. */
	while (got < n) {
		uint32_t chunk = n - got < RXB_DESC_PREFETCH_MAX ? n - got : RXB_DESC_PREFETCH_MAX;
		uint16_t reads = 0;
		uint32_t k = nic_fetch(sh, g, chunk, &reads);

		rxb_nic_count(s, RXB_NIC_DESC_READS, reads);
		rxb_nic_count(s, RXB_NIC_DESC_FETCHED, k);
		got += k;
		if (k < chunk)
			break;
	}
	if (got != 0)
		sh->ops->nic_copy(g, first, got, bufs);
	return got << g->batch_shift;
}

/* --------------------------------------------------------------- set-up */

unsigned rxb_shring_prime(struct rxb_shring *sh, uint32_t ring, const struct rxb_allocator *alloc)
{
	struct rxb_shgroup *g = &sh->g[ring];
	uint32_t size = g->rx.size, slots = shring_n_slots(g);

	if (g->primed != 0)
		return 0;
	for (uint32_t i = 0; i < slots; i += RXB_BURST_MAX) {
		unsigned n = slots - i < RXB_BURST_MAX ? slots - i : RXB_BURST_MAX;

		if (alloc->get(alloc->ctx, &g->rx.desc[i], n) != n) {
			/* All or nothing: a ring-ordered ring cannot run with
			 * holes, so give back what was taken. */
			alloc->put(alloc->ctx, g->rx.desc, i);
			for (uint32_t k = 0; k < i; k++)
				g->rx.desc[k] = RXB_BUF_NONE;
			rxb_sw_count(&sh->c[g->first_core].sw_stats, RXB_SW_ALLOC_FAIL, 1);
			return 0;
		}
	}
	sh->ops->prime(g);
	g->primed = size;
	g->rep.tail = size;
	rxb_descring_doorbell(&g->rx, size);
	return size;
}

/* -------------------------------------------------------- software side */

/* Read up to n done CR entries: the packets and their descriptors. */
static unsigned sw_peek(struct rxb_shcore *c, struct rxb_shgroup *g, struct rxb_pkt *out,
			uint32_t *slots, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		const struct rxb_cr_entry *e = rxb_cr_sw_peek(&c->cr, i);

		if (e == NULL)
			break;
		/* desc[] was last written by whichever core re-armed this
		 * descriptor; the chain release OR → lock holder's AND →
		 * doorbell → NIC → this entry's done bit orders it. */
		slots[i] = e->index;
		out[i].buf = g->rx.desc[e->index];
		out[i].len = e->len;
		out[i].hash = e->hash;
	}
	return i;
}

unsigned rxb_shring_rx_burst(struct rxb_shring *sh, uint32_t core, struct rxb_pkt *out, unsigned n,
			     const struct rxb_allocator *alloc, uint64_t now)
{
	struct rxb_shcore *c = &sh->c[core];
	struct rxb_shgroup *g = group_of(sh, core);
	rxb_buf_t fresh[RXB_BURST_MAX];
	uint32_t slots[RXB_BURST_MAX];
	unsigned got;

	if (n > RXB_BURST_MAX)
		n = RXB_BURST_MAX;
	got = sw_peek(c, g, out, slots, n);
	if (got != 0) {
		unsigned armed = rxb_alloc_get_upto(alloc, fresh, got);

		if (armed != got)
			rxb_sw_count(&c->sw_stats, RXB_SW_ALLOC_FAIL, 1);
		got = armed; /* the first `armed` of those peeked */
	}
	rxb_sw_count(&c->sw_stats, RXB_SW_POLLS, 1);
	if (got == 0) {
		rxb_sw_count(&c->sw_stats, RXB_SW_EMPTY_POLLS, 1);
		return 0;
	}
	/* Re-arm in place: the NIC is done with these descriptors and nobody
	 * else touches them until they are released below. */
	for (unsigned i = 0; i < got; i++)
		g->rx.desc[slots[i]] = fresh[i];
	rxb_cr_sw_publish(&c->cr, got);
	rxb_sw_count(&c->sw_stats, RXB_SW_RECEIVED, got);
	rxb_sw_count(&c->sw_stats, RXB_SW_POSTED, got);
	sh->ops->release(g, &c->sw_stats, slots, got, now);
	return got;
}

void rxb_shring_free(struct rxb_shring *sh, uint32_t core, const struct rxb_allocator *alloc,
		     const rxb_buf_t *bufs, unsigned n)
{
	rxb_sw_free(&sh->c[core].sw_stats, alloc, bufs, n);
}

/* ------------------------------------------------ repost lock, doorbell */

void shring_lock(struct rxb_shgroup *g, struct rxb_sw_stats *s)
{
	rxb_spin_lock(&g->rep.lock);
	rxb_sw_count(s, RXB_SW_LOCK_ACQUIRES, 1);
}

static void counter_max(rxb_counter_t *c, uint64_t v)
{
	if (v > rxb_counter_read(c))
		atomic_store_explicit(c, v, memory_order_relaxed);
}

void shring_wait_account(struct rxb_shgroup *g, uint64_t n, uint64_t sum, uint64_t max,
			 uint64_t held)
{
	struct shring_wait_ctr *w = &g->rep.wait;

	/* Plain load + store (rxb_counter_t): the lock makes us the only
	 * writer and orders us after the previous holder. */
	rxb_counter_add(&w->returned, n);
	rxb_counter_add(&w->wait_sum, sum);
	counter_max(&w->wait_max, max);
	counter_max(&w->held_back_max, held);
}

void shring_publish_unlock(struct rxb_shgroup *g, struct rxb_sw_stats *s, uint32_t tail)
{
	if (tail != g->rep.tail) {
		rxb_sw_count(s, RXB_SW_RETURNED, tail - g->rep.tail);
		rxb_sw_count(s, RXB_SW_DOORBELLS, 1);
		g->rep.tail = tail;
		/* release (in rxb_descring_doorbell): pairs with the NIC's
		 * acquire in rxb_descring_nic_unfetched(); every descriptor
		 * (and RxList link) behind this posted count is visible. */
		rxb_descring_doorbell(&g->rx, tail);
	}
	rxb_spin_unlock(&g->rep.lock);
}

/* ------------------------------------------------------------------ RxArr */

#define WORD_BITS 64u

static int arr_init(struct rxb_shgroup *g, struct rxb_err *err)
{
	uint32_t words = (g->rx.size + WORD_BITS - 1) / WORD_BITS;
	size_t bitmap_bytes = sizeof(*g->bitmap) * words;
	size_t time_bytes = sizeof(*g->rel_time) * g->rx.size;

	g->bitmap = rxb_zalloc_aligned(bitmap_bytes);
	if (g->bitmap == NULL)
		return rxb_err_nomem(err, bitmap_bytes, "shring release bitmap of %u descriptors",
				     g->rx.size);
	g->rel_time = rxb_zalloc_aligned(time_bytes);
	if (g->rel_time == NULL)
		return rxb_err_nomem(err, time_bytes, "shring release times of %u descriptors",
				     g->rx.size);
	return 0;
}

static void arr_fini(struct rxb_shgroup *g)
{
	rxb_free_aligned(g->bitmap);
	rxb_free_aligned(g->rel_time);
}

static uint32_t arr_nic_fetch(struct rxb_shgroup *g, uint32_t n, uint16_t *reads)
{
	return rxb_descring_nic_fetch(&g->rx, n, reads);
}

static bool arr_nic_fetchable(struct rxb_shgroup *g)
{
	return rxb_descring_nic_unfetched(&g->rx, 1) != 0;
}

static uint32_t arr_nic_slot(const struct rxb_shgroup *g, uint32_t pos)
{
	return pos & g->rx.mask;
}

static void arr_nic_copy(const struct rxb_shgroup *g, uint32_t pos, uint32_t n, rxb_buf_t *bufs)
{
	for (uint32_t i = 0; i < n; i++)
		bufs[i] = g->rx.desc[arr_nic_slot(g, pos + i)];
}

static void arr_prime(struct rxb_shgroup *g)
{
	(void)g; /* ring order needs nothing beyond the filled slots */
}

/* Set `bits` in bitmap word w: one atomic OR. */
static unsigned arr_set_bits(struct rxb_shgroup *g, uint32_t w, uint64_t bits)
{
	if (bits == 0)
		return 0;
	/* release: pairs with the acquire fetch_and in arr_take_run(); the
	 * fresh buffers and release times written before this OR are visible
	 * to whichever core returns these descriptors. */
	atomic_fetch_or_explicit(&g->bitmap[w], bits, memory_order_release);
	return 1;
}

/* Lock holder: return the run of released descriptors that starts at
 * posted count t (its slot is the return index: t − ring size), within one
 * bitmap word. Returns the run's length, adding its waits to *sum / *max. */
static uint32_t arr_take_run(struct rxb_shgroup *g, struct rxb_sw_stats *s, uint32_t t,
			     uint64_t now, uint64_t *sum, uint64_t *max)
{
	uint32_t slot = t & g->rx.mask, w = slot / WORD_BITS, b = slot % WORD_BITS;
	/* relaxed: only locates the run. Only the lock holder clears bits, so
	 * the bits seen set here are still set at the fetch_and below. */
	uint64_t word = atomic_load_explicit(&g->bitmap[w], memory_order_relaxed);
	uint64_t unset = ~(word >> b); /* b > 0 shifts in zeros: never all ones */
	uint32_t run = unset ? (uint32_t)__builtin_ctzll(unset) : WORD_BITS;
	uint64_t m, old;

	if (run == 0)
		return 0;
	m = (run == WORD_BITS ? ~0ull : (1ull << run) - 1) << b;
	/* acquire: pairs with the release fetch_or in arr_set_bits() of every
	 * core that set one of these bits (every write to a bitmap word is a
	 * read-modify-write, so the value read is in each OR's release
	 * sequence): their re-armed buffers and release times are visible,
	 * and so, through our doorbell release, to the NIC. No release half
	 * is needed: nothing published after this clear is read through it. */
	old = atomic_fetch_and_explicit(&g->bitmap[w], ~m, memory_order_acquire);
	if ((old & m) != m)
		rxb_sw_count(s, RXB_SW_ORDER_ERRORS, 1); /* a bit vanished: a bug */
	for (uint32_t i = 0; i < run; i++) {
		uint64_t rel = g->rel_time[slot + i];
		uint64_t wait = now > rel ? now - rel : 0; /* cores' clocks may differ */

		*sum += wait;
		if (wait > *max)
			*max = wait;
		/* Lock holder: the only writer (see shring_wait_account). */
		rxb_counter_add(&g->rep.wait.hist[rxb_wait_bucket(wait)], 1);
	}
	return run;
}

/* Lock holder, after a return pass stopped at posted count t: released
 * descriptors left behind the unreleased one at the return index. They are
 * the set bits of positions [t − size + 1, head). Statistic only: head is
 * read relaxed, and bits set meanwhile may or may not be counted. */
static uint32_t arr_held_back(struct rxb_shgroup *g, uint32_t t)
{
	uint32_t left = rxb_relaxed_load(&g->rx.nic.head) - (t - g->primed);
	uint32_t slot = (t + 1) & g->rx.mask, held = 0;

	if (left <= 1 || left > g->rx.size)
		return 0;
	for (left -= 1; left != 0;) {
		uint32_t b = slot % WORD_BITS, k = WORD_BITS - b;
		uint64_t word = atomic_load_explicit(&g->bitmap[slot / WORD_BITS],
						     memory_order_relaxed) >>
				b;

		if (k > left)
			k = left;
		if (k > g->rx.size - slot)
			k = g->rx.size - slot; /* rings smaller than a word */
		if (k < WORD_BITS)
			word &= (1ull << k) - 1;
		held += (uint32_t)__builtin_popcountll(word);
		left -= k;
		slot = (slot + k) & g->rx.mask;
	}
	return held;
}

/* Lock holder: return every released descriptor from the return index on,
 * run by run, then ring the doorbell once. */
static void arr_return(struct rxb_shgroup *g, struct rxb_sw_stats *s, uint64_t now)
{
	uint64_t sum = 0, max = 0;
	uint32_t t, run;

	shring_lock(g, s);
	for (t = g->rep.tail; (run = arr_take_run(g, s, t, now, &sum, &max)) != 0;)
		t += run;
	shring_wait_account(g, t - g->rep.tail, sum, max, arr_held_back(g, t));
	shring_publish_unlock(g, s, t);
}

/* Mark the batch released: one atomic OR per bitmap word. A core's CR names
 * descriptors in ring order and a batch spans less than the ring, so its
 * slots rise with at most one wrap back to low slots; runs in the first
 * word are held until the end, so a batch that wraps into its first word
 * still ORs it once: exactly one OR per word touched. */
static void arr_release(struct rxb_shgroup *g, struct rxb_sw_stats *s, const uint32_t *slots,
			unsigned n, uint64_t now)
{
	uint32_t w0 = slots[0] / WORD_BITS, w = w0;
	uint64_t bits0 = 0, bits = 0;
	unsigned ors = 0;

	for (unsigned i = 0; i < n; i++) {
		g->rel_time[slots[i]] = now;
		if (slots[i] / WORD_BITS != w) {
			if (w == w0)
				bits0 |= bits;
			else
				ors += arr_set_bits(g, w, bits);
			w = slots[i] / WORD_BITS;
			bits = 0;
		}
		bits |= 1ull << (slots[i] % WORD_BITS);
	}
	if (w == w0)
		bits0 |= bits;
	else
		ors += arr_set_bits(g, w, bits);
	ors += arr_set_bits(g, w0, bits0);
	rxb_sw_count(s, RXB_SW_BITMAP_ORS, ors);
	arr_return(g, s, now);
}

/* RxArr: the posted and prefetched descriptors lie in ring order at
 * [head, posted count); the released ones are the set bits. */
static int arr_census(struct rxb_shgroup *g, struct shring_census *sc)
{
	uint32_t head = rxb_relaxed_load(&g->rx.nic.head), fetched = g->rx.nic.fetched;
	int rc = 0;

	for (uint32_t p = head; rc == 0 && p != g->rep.tail; p++)
		rc = shring_census_mark(g, sc, p & g->rx.mask,
					p - head < fetched - head ? SHRING_ROLE_NIC_HELD
								  : SHRING_ROLE_POSTED);
	for (uint32_t w = 0; rc == 0 && w * WORD_BITS < g->rx.size; w++) {
		uint64_t word = atomic_load_explicit(&g->bitmap[w], memory_order_relaxed);

		for (; rc == 0 && word != 0; word &= word - 1)
			rc = shring_census_mark(g, sc,
						w * WORD_BITS + (uint32_t)__builtin_ctzll(word),
						SHRING_ROLE_RELEASED);
	}
	return rc;
}

const struct shring_ops rxb_shring_arr_ops = {
	.name = "shring",
	.init = arr_init,
	.fini = arr_fini,
	.nic_fetch = arr_nic_fetch,
	.nic_fetchable = arr_nic_fetchable,
	.nic_slot = arr_nic_slot,
	.nic_copy = arr_nic_copy,
	.prime = arr_prime,
	.release = arr_release,
	.census = arr_census,
};

/* --------------------------------------------------------- observability */

const struct rxb_nic_stats *rxb_shring_nic_stats(const struct rxb_shring *sh, uint32_t core)
{
	return &sh->c[core].nic_stats;
}

const struct rxb_sw_stats *rxb_shring_sw_stats(const struct rxb_shring *sh, uint32_t core)
{
	return &sh->c[core].sw_stats;
}

struct rxb_cr *rxb_shring_cr(struct rxb_shring *sh, uint32_t core)
{
	return &sh->c[core].cr;
}

uint32_t rxb_shring_occupancy(struct rxb_shring *sh, uint32_t core)
{
	return rxb_cr_occupancy(rxb_shring_cr(sh, core));
}

int32_t rxb_shring_ring_occupancy_raw(struct rxb_shring *sh, uint32_t ring)
{
	struct rxb_shgroup *g = &sh->g[ring];
	/* acquire: pairs with the doorbell release; the NIC had consumed every
	 * descriptor that store returned, so the head read next is at least
	 * the returned count and the difference cannot go negative. */
	uint32_t returned = atomic_load_explicit(&g->rx.db.tail, memory_order_acquire) - g->primed;

	return (int32_t)(rxb_relaxed_load(&g->rx.nic.head) - returned);
}

uint32_t rxb_shring_ring_occupancy(struct rxb_shring *sh, uint32_t ring)
{
	int32_t used = rxb_shring_ring_occupancy_raw(sh, ring);

	/* Above the size: descriptors returned after the first load were
	 * consumed again before the second; the ring never held more. */
	if (used < 0)
		return 0;
	return (uint32_t)used < sh->g[ring].rx.size ? (uint32_t)used : sh->g[ring].rx.size;
}

void rxb_shring_wait_stats(const struct rxb_shring *sh, uint32_t ring, struct rxb_shring_wait *out)
{
	const struct shring_wait_ctr *w = &sh->g[ring].rep.wait;

	out->returned = rxb_counter_read(&w->returned);
	out->wait_sum = rxb_counter_read(&w->wait_sum);
	out->wait_max = rxb_counter_read(&w->wait_max);
	out->held_back_max = rxb_counter_read(&w->held_back_max);
	for (unsigned b = 0; b < RXB_SHRING_WAIT_BUCKETS; b++)
		out->hist[b] = rxb_counter_read(&w->hist[b]);
}

uint64_t rxb_shring_wait_quantile(const struct rxb_shring_wait *w, double q)
{
	uint64_t total = 0, seen = 0, rank;

	for (unsigned b = 0; b < RXB_SHRING_WAIT_BUCKETS; b++)
		total += w->hist[b];
	if (total == 0)
		return 0;
	if (!(q > 0)) /* q <= 0 or NaN: converting it to an integer would be undefined */
		q = 0;
	rank = (uint64_t)((q < 1 ? q : 1) * (double)total + 0.5);
	rank = rank < 1 ? 1 : rank > total ? total : rank;
	for (unsigned b = 0; b < RXB_SHRING_WAIT_BUCKETS; b++) {
		seen += w->hist[b];
		if (seen >= rank) {
			uint64_t top = b + 1 < RXB_SHRING_WAIT_BUCKETS
					       ? rxb_wait_bucket_low(b + 1) - 1
					       : UINT64_MAX;

			return top < w->wait_max ? top : w->wait_max;
		}
	}
	return w->wait_max;
}

void rxb_shring_fetch_stats(const struct rxb_shring *sh, uint32_t ring,
			    struct rxb_shring_fetch *out)
{
	out->reads = rxb_counter_read(&sh->g[ring].nic.reads);
	out->fetched = rxb_counter_read(&sh->g[ring].nic.fetched);
}

/* ----------------------------------------------------------------- census */

static const char *const role_name[SHRING_ROLES] = {
	[SHRING_ROLE_POSTED] = "posted",
	[SHRING_ROLE_NIC_HELD] = "prefetched by the NIC",
	[SHRING_ROLE_UNREAD] = "named by an unread CR entry",
	[SHRING_ROLE_RELEASED] = "released and not returned",
	[SHRING_ROLE_CURRENT] = "an unfilled slot of a core's current descriptor",
};

int shring_census_mark(struct rxb_shgroup *g, struct shring_census *sc, uint32_t slot,
		       enum shring_role role)
{
	uint32_t n = shring_n_slots(g);

	if (slot >= n || sc->role[slot] != SHRING_ROLE_NONE)
		return rxb_err_fail(sc->err, -RXB_E_INVARIANT, "shring ring %u: %s %u is %s%s%s",
				    sc->ring, g->batch > 1 ? "buffer slot" : "descriptor", slot,
				    role_name[role], slot < n ? " and also " : " (out of range)",
				    slot < n ? role_name[sc->role[slot]] : "");
	sc->role[slot] = (uint8_t)role;
	sc->n[role]++;
	sc->c->posted += role == SHRING_ROLE_POSTED || role == SHRING_ROLE_RELEASED;
	sc->c->nic_held += role == SHRING_ROLE_NIC_HELD || role == SHRING_ROLE_CURRENT;
	sc->c->in_entries += role == SHRING_ROLE_UNREAD;
	if (sc->bufs != NULL && rxb_buflist_push(sc->bufs, g->rx.desc[slot], sc->err) != 0)
		return -ENOMEM;
	return 0;
}

int shring_census_mark_slots(struct rxb_shgroup *g, struct shring_census *sc, uint32_t x,
			     uint32_t from, uint32_t to, enum shring_role role)
{
	int rc = 0;

	for (uint32_t k = from; rc == 0 && k < to; k++)
		rc = shring_census_mark(g, sc, x << g->batch_shift | k, role);
	return rc;
}

/* Unread entries of core c's CR: each names a descriptor holding a packet. */
static int cr_census(struct rxb_shring *sh, uint32_t core, struct rxb_shgroup *g,
		     struct shring_census *sc)
{
	struct rxb_cr *cr = &sh->c[core].cr;
	uint32_t prod = rxb_relaxed_load(&cr->nic.prod);
	int rc = 0;

	if (prod - cr->sw.cons > cr->size)
		return rxb_err_fail(sc->err, -RXB_E_INVARIANT,
				    "shring core %u: CR producer %u and consumer %u are "
				    "inconsistent",
				    core, prod, cr->sw.cons);
	for (uint32_t i = cr->sw.cons; rc == 0 && i != prod; i++) {
		const struct rxb_cr_entry *e = (const struct rxb_cr_entry *)cr->ent +
					       (i & cr->mask);

		rc = shring_census_mark(g, sc, e->index, SHRING_ROLE_UNREAD);
	}
	return rc;
}

static void core_census_counters(const struct rxb_shcore *c, struct rxb_census *cs)
{
	const struct rxb_sw_stats *sw = &c->sw_stats;

	cs->offered += rxb_counter_read(&c->nic_stats.c[RXB_NIC_OFFERED]);
	cs->delivered += rxb_counter_read(&c->nic_stats.c[RXB_NIC_DELIVERED]);
	cs->dropped += rxb_nic_drops(&c->nic_stats);
	cs->received += rxb_counter_read(&sw->c[RXB_SW_RECEIVED]);
	cs->app_held += rxb_counter_read(&sw->c[RXB_SW_RECEIVED]) -
			rxb_counter_read(&sw->c[RXB_SW_FREED]);
}

/* Indices of a shared ring: head ≤ fetched ≤ posted count, within a ring. */
static int group_check_indices(struct rxb_shring *sh, uint32_t ring, struct shring_census *sc)
{
	struct rxb_shgroup *g = &sh->g[ring];
	uint32_t head = rxb_relaxed_load(&g->rx.nic.head), fetched = g->rx.nic.fetched;
	uint32_t tail = g->rep.tail, db = rxb_relaxed_load(&g->rx.db.tail);

	if (db == tail && tail - head <= g->rx.size && fetched - head <= tail - head)
		return 0;
	return rxb_err_fail(sc->err, -RXB_E_INVARIANT,
			    "%s ring %u: doorbell %u, posted count %u, NIC fetched %u and "
			    "head %u are inconsistent",
			    sh->ops->name, ring, db, tail, fetched, head);
}

/* Every descriptor (batched: buffer slot) is in exactly one place (the
 * marks), and the NIC has consumed exactly the descriptors whose slots
 * unread CR entries name, or are released and not yet returned (RxArr;
 * batched: received slots of an incomplete descriptor), or are unfilled in
 * a core's current descriptor (batched). */
static int group_check_totals(struct rxb_shring *sh, uint32_t ring, struct shring_census *sc)
{
	struct rxb_shgroup *g = &sh->g[ring];
	uint32_t consumed = rxb_relaxed_load(&g->rx.nic.head) - (g->rep.tail - g->primed);
	uint32_t total = 0, taken = sc->n[SHRING_ROLE_UNREAD] + sc->n[SHRING_ROLE_RELEASED] +
				    sc->n[SHRING_ROLE_CURRENT];

	for (int r = 0; r < SHRING_ROLES; r++)
		total += sc->n[r];
	if (total != g->primed << g->batch_shift)
		return rxb_err_fail(
			sc->err, -RXB_E_INVARIANT,
			"%s ring %u: %u of its %u buffer slots accounted for "
			"(posted %u, in the NIC %u, unread %u, released %u, current %u)",
			sh->ops->name, ring, total, g->primed << g->batch_shift,
			sc->n[SHRING_ROLE_POSTED], sc->n[SHRING_ROLE_NIC_HELD],
			sc->n[SHRING_ROLE_UNREAD], sc->n[SHRING_ROLE_RELEASED],
			sc->n[SHRING_ROLE_CURRENT]);
	if (consumed << g->batch_shift != taken)
		return rxb_err_fail(
			sc->err, -RXB_E_INVARIANT,
			"%s ring %u: %u descriptors of %u slots consumed and not "
			"returned, but %u unread CR entries + %u released + %u unfilled current",
			sh->ops->name, ring, consumed, g->batch, sc->n[SHRING_ROLE_UNREAD],
			sc->n[SHRING_ROLE_RELEASED], sc->n[SHRING_ROLE_CURRENT]);
	return 0;
}

/* One shared ring and its group's CRs. */
static int group_census(struct rxb_shring *sh, uint32_t ring, struct shring_census *sc)
{
	struct rxb_shgroup *g = &sh->g[ring];
	int rc = group_check_indices(sh, ring, sc);

	memset(sc->role, 0, shring_n_slots(g));
	memset(sc->n, 0, sizeof(sc->n));
	sc->ring = ring;
	sc->cores = &sh->c[g->first_core];
	sc->n_cores = sh->cfg.share_degree;
	for (uint32_t k = 0; rc == 0 && k < sh->cfg.share_degree; k++)
		rc = cr_census(sh, g->first_core + k, g, sc);
	if (rc == 0)
		rc = sh->ops->census(g, sc);
	return rc == 0 ? group_check_totals(sh, ring, sc) : rc;
}

int rxb_shring_census(struct rxb_shring *sh, struct rxb_census *c, struct rxb_buflist *bufs,
		      struct rxb_err *err)
{
	size_t slots = (size_t)sh->cfg.ring_size * sh->cfg.batch;
	struct shring_census sc = { .c = c, .bufs = bufs, .err = err };
	int rc = 0;

	sc.role = rxb_malloc(slots);
	if (sc.role == NULL)
		return rxb_err_nomem(err, slots, "shring census of %zu buffer slots", slots);
	for (uint32_t r = 0; rc == 0 && r < sh->n_rings; r++)
		rc = group_census(sh, r, &sc);
	for (uint32_t k = 0; rc == 0 && k < sh->cfg.n_cores; k++)
		core_census_counters(&sh->c[k], c);
	free(sc.role);
	return rc;
}
