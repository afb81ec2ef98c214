/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Two-level buffer allocator: shared stack + per-core stacks (docs/interfaces.md §7).
 * The fast paths (cache hit) are inline in rxb/pool.h; this file holds the
 * slow paths (refill, flush, invalid handles), set-up and the census.
 *
 * Why a pthread mutex guards the shared stack and not a spinlock: the lock
 * is taken once per bulk move (a refill of ~cache_size handles or a flush),
 * never per object, so what it costs uncontended (one atomic RMW to take,
 * one to release, the same as a spinlock) is amortized over the batch. What
 * differs is contention with more threads than CPUs (the emulator on a small
 * machine, CI, TSan): a preempted spinlock holder makes every waiter burn its
 * whole time slice, a mutex waiter sleeps. And TSan understands it natively.
 *
 * The owner array: owner[h] is the core that last allocated h, written by
 * that core in get and read by the core that frees h in put. The two never
 * race in a well-formed program: h goes from the allocating core to the
 * freeing core through some hand-off (an Rx ring, a Bx ring, a queue)
 * whose release store / acquire load already orders the owner store before
 * the owner load, and the next allocation of h comes after the free through
 * this core's cache or the shared mutex. The entries are relaxed atomics
 * anyway: they cost a plain load/store on every target we care about, and a
 * caller whose hand-off is broken then gets a wrong cross_core_free count
 * instead of undefined behaviour.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "rxb/pool.h"

/* Sentinel in owner[] for a handle no core has allocated yet. */
#define RXB_POOL_NO_OWNER UINT16_MAX

_Static_assert(RXB_MAX_CORES < RXB_POOL_NO_OWNER, "a core must fit in owner[]");
/* No false sharing between cores: each cache starts on a line and fills
 * whole lines, so caches[c] and caches[c + 1] never share one. */
_Static_assert(_Alignof(struct rxb_pool_cache) == RXB_CACHE_LINE, "cache alignment");
_Static_assert(sizeof(struct rxb_pool_cache) % RXB_CACHE_LINE == 0, "cache size");
/* Everything the fast path reads or writes besides objs[] and owner[]
 * (state, and the alloc/alloc_fast/free counters it bumps) sits in the
 * first line. */
_Static_assert(offsetof(struct rxb_pool_cache, pool) + sizeof(void *) <= RXB_CACHE_LINE,
	       "fast-path state in the first cache line");
/* The shared level does not share a line with the read-mostly fields. */
_Static_assert(offsetof(struct rxb_pool, shared) % RXB_CACHE_LINE == 0, "shared line");

/* A cache's objs[] is rounded up to whole lines for the same reason. */
#define RXB_POOL_OBJS_PER_LINE (RXB_CACHE_LINE / sizeof(rxb_buf_t))

const char *const rxb_pool_stat_name[RXB_POOL_N_STATS] = {
#define RXB_POOL_STAT_NAME(name) [RXB_POOL_STAT_##name] = #name,
	RXB_POOL_STATS(RXB_POOL_STAT_NAME)
#undef RXB_POOL_STAT_NAME
};

struct rxb_pool_config rxb_pool_config_default(void)
{
	return (struct rxb_pool_config){
		.n_bufs = 8192,
		.n_cores = 1,
		.cache_size = 256,
		.flush_factor_pct = 150,
		.buf_size = 2048,
	};
}

int rxb_pool_config_check(const struct rxb_pool_config *cfg, struct rxb_err *err)
{
	if (cfg == NULL) {
		rxb_err_set(err, "pool: configuration is NULL");
		return -EINVAL;
	}
	if (cfg->n_bufs == 0) {
		rxb_err_set(err, "pool.n_bufs = 0: must be at least 1");
		return -EINVAL;
	}
	if (cfg->n_cores == 0 || cfg->n_cores > RXB_MAX_CORES) {
		rxb_err_set(err, "pool.n_cores = %u: must be in [1, %u]", cfg->n_cores,
			    RXB_MAX_CORES);
		return -EINVAL;
	}
	if (cfg->cache_size > cfg->n_bufs) {
		rxb_err_set(err, "pool.cache_size = %u: must be at most pool.n_bufs (%u)",
			    cfg->cache_size, cfg->n_bufs);
		return -EINVAL;
	}
	if (cfg->flush_factor_pct < 100) {
		rxb_err_set(err,
			    "pool.flush_factor_pct = %u: must be at least 100 (a cache "
			    "flushes above cache_size * pct / 100)",
			    cfg->flush_factor_pct);
		return -EINVAL;
	}
	if (cfg->buf_size == 0) {
		rxb_err_set(err, "pool.buf_size = 0: must be at least 1");
		return -EINVAL;
	}
	return 0;
}

/* cache_size * pct / 100, capped at n_bufs: a cache can never legitimately
 * hold more than every buffer, so a higher threshold would only be memory
 * for objs[] that no correct program fills. */
static uint32_t rxb_pool_flush_thresh(const struct rxb_pool_config *cfg)
{
	uint64_t t = (uint64_t)cfg->cache_size * cfg->flush_factor_pct / 100;

	return t < cfg->n_bufs ? (uint32_t)t : cfg->n_bufs;
}

/* a * b bytes, or 0 when that does not fit a size_t. */
static size_t rxb_pool_bytes(uint64_t a, uint64_t b)
{
	if (b && a > SIZE_MAX / b)
		return 0;
	return (size_t)(a * b);
}

/* Whole cache lines, zeroed; at least one line (a pool without caches
 * still gets an objs block to point into). */
static void *rxb_pool_alloc_lines(size_t bytes)
{
	return rxb_zalloc_aligned(bytes ? bytes : RXB_CACHE_LINE);
}

/* Free what a pool under construction holds (free(NULL) is a no-op). */
static void rxb_pool_free_parts(struct rxb_pool *pool)
{
	free(pool->caches);
	free(pool->owner);
	free(pool->shared.stack);
	free(pool->objs_block);
	free(pool);
}

/* Allocate the pool's arrays: 0, or -ENOMEM with a message naming the one
 * that failed. */
static int rxb_pool_alloc_parts(struct rxb_pool *pool, uint32_t cap, struct rxb_err *err)
{
	const struct rxb_pool_config *cfg = &pool->cfg;
	size_t cache_bytes = rxb_pool_bytes(cfg->n_cores, sizeof(struct rxb_pool_cache));
	size_t owner_bytes = rxb_pool_bytes(cfg->n_bufs, sizeof(_Atomic uint16_t));
	size_t stack_bytes = rxb_pool_bytes(cfg->n_bufs, sizeof(rxb_buf_t));
	size_t objs_bytes = rxb_pool_bytes((uint64_t)cfg->n_cores * cap, sizeof(rxb_buf_t));

	if (!cache_bytes || !owner_bytes || !stack_bytes || (cap && !objs_bytes))
		return rxb_err_nomem(err, SIZE_MAX,
				     "pool of %u buffers and %u caches: more "
				     "than the address space",
				     cfg->n_bufs, cfg->n_cores);
	pool->caches = rxb_pool_alloc_lines(cache_bytes);
	if (pool->caches == NULL)
		return rxb_err_nomem(err, cache_bytes, "pool: %u per-core caches", cfg->n_cores);
	pool->owner = rxb_malloc(owner_bytes);
	if (pool->owner == NULL)
		return rxb_err_nomem(err, owner_bytes, "pool: owners of %u buffers", cfg->n_bufs);
	pool->shared.stack = rxb_malloc(stack_bytes);
	if (pool->shared.stack == NULL)
		return rxb_err_nomem(err, stack_bytes, "pool: shared stack of %u buffers",
				     cfg->n_bufs);
	pool->objs_block = rxb_pool_alloc_lines(objs_bytes);
	if (pool->objs_block == NULL)
		return rxb_err_nomem(err, objs_bytes, "pool: %u cache stacks of %u handles",
				     cfg->n_cores, cap);
	return 0;
}

struct rxb_pool *rxb_pool_create(const struct rxb_pool_config *cfg, struct rxb_err *err)
{
	struct rxb_pool *pool;
	uint32_t thresh, cap, c, i;
	int rc;

	rc = rxb_pool_config_check(cfg, err);
	if (rc)
		return rxb_fail_null(rc);
	thresh = rxb_pool_flush_thresh(cfg);
	cap = (uint32_t)((thresh + RXB_POOL_OBJS_PER_LINE - 1) / RXB_POOL_OBJS_PER_LINE *
			 RXB_POOL_OBJS_PER_LINE);

	pool = rxb_pool_alloc_lines(sizeof(*pool));
	if (pool == NULL)
		return rxb_fail_null(rxb_err_nomem(err, sizeof(*pool), "pool"));
	pool->cfg = *cfg;
	rc = rxb_pool_alloc_parts(pool, cap, err);
	if (rc == 0) {
		rc = -pthread_mutex_init(&pool->shared.lock, NULL);
		if (rc != 0)
			rxb_err_fail(err, rc, "pool: cannot initialize the shared pool's mutex: %s",
				     strerror(-rc));
	}
	if (rc != 0) {
		rxb_pool_free_parts(pool);
		return rxb_fail_null(rc);
	}

	for (i = 0; i < cfg->n_bufs; i++) {
		atomic_init(&pool->owner[i], RXB_POOL_NO_OWNER);
		/* Handle 0 on top, so a fresh pool hands out 0, 1, 2, ... */
		pool->shared.stack[i] = cfg->n_bufs - 1 - i;
	}
	pool->shared.len = cfg->n_bufs;

	for (c = 0; c < cfg->n_cores; c++) {
		struct rxb_pool_cache *cache = &pool->caches[c];

		cache->size = cfg->cache_size;
		cache->flush_thresh = thresh;
		cache->n_bufs = cfg->n_bufs;
		cache->core = c;
		cache->objs = pool->objs_block + (size_t)c * cap;
		cache->owner = pool->owner;
		cache->pool = pool;
		/* The counters are zero (rxb_pool_alloc_lines zeroes); atomic_init
		 * keeps the C11 rules about initializing atomics honest. */
#define RXB_POOL_STAT_INIT(name) atomic_init(&cache->ctr.name, 0);
		RXB_POOL_STATS(RXB_POOL_STAT_INIT)
#undef RXB_POOL_STAT_INIT
	}
	return pool;
}

void rxb_pool_destroy(struct rxb_pool *pool)
{
	if (pool == NULL)
		return;
	pthread_mutex_destroy(&pool->shared.lock);
	rxb_pool_free_parts(pool);
}

/*
 * Refill: the cache holds len < n. Conceptually move the top `take` handles
 * of the shared stack onto the cache, order kept (the shared top becomes the
 * cache top), then pop n as the fast path does. `take` is, as in DPDK's
 * rte_mempool_do_generic_get, the shortfall plus cache_size, so that the
 * cache holds exactly cache_size afterwards. When the shared pool has less
 * than that but still covers the shortfall we take only the shortfall and
 * leave the cache empty: in a nearly exhausted pool this core must not hoard
 * what other cores are about to ask for. (DPDK's fallback takes all n from
 * the ring and leaves the cache alone, moving more than needed.)
 *
 * Nothing is copied twice and objs[] never grows past cache_size: the caller
 * gets its handles straight from the shared stack and the cache, and only
 * the part that stays cached is written into objs[].
 */
unsigned rxb_pool_get_slow(struct rxb_pool_cache *c, rxb_buf_t *bufs, unsigned n)
{
	struct rxb_pool_shared *sh = &c->pool->shared;
	uint64_t len = c->len;
	uint64_t shortfall = n - len; /* > 0: the fast path sent us here */
	uint64_t take, total, keep;
	const rxb_buf_t *src;
	unsigned i;

	if (n > c->n_bufs)
		goto empty; /* can never be met; do not even take the lock */
	pthread_mutex_lock(&sh->lock);
	if (sh->len >= shortfall + c->size) {
		take = shortfall + c->size;
	} else if (sh->len >= shortfall) {
		take = shortfall;
	} else {
		pthread_mutex_unlock(&sh->lock);
		goto empty;
	}
	/* The combined stack is objs[0..len) followed by src[0..take); its
	 * top n go to the caller (hottest first), the rest stays cached. */
	src = sh->stack + sh->len - take;
	total = len + take;
	keep = total - n;
	for (i = 0; i < n && total - 1 - i >= len; i++)
		bufs[i] = src[total - 1 - i - len];
	if (keep > len)
		memcpy(c->objs + len, src, (keep - len) * sizeof(*src));
	sh->len -= (uint32_t)take;
	pthread_mutex_unlock(&sh->lock);

	/* The rest of the request comes from the old cache contents, which
	 * only this thread touches. */
	for (; i < n; i++)
		bufs[i] = c->objs[total - 1 - i];
	c->len = (uint32_t)keep;
	for (i = 0; i < n; i++)
		/* Relaxed: see rxb_pool_get in the header. */
		atomic_store_explicit(&c->owner[bufs[i]], (uint16_t)c->core, memory_order_relaxed);
	rxb_counter_add(&c->ctr.alloc, n);
	rxb_counter_add(&c->ctr.alloc_refill, 1);
	rxb_counter_add(&c->ctr.objs_from_shared, take);
	return n;

empty:
	rxb_counter_add(&c->ctr.empty, 1);
	return 0;
}

/*
 * Flush: bufs[0..n) are valid handles and pushing them would take the cache
 * past its threshold. The sequence objs[0..len) ++ bufs[0..n) runs from
 * coldest to hottest; its coldest (len + n - cache_size) go to the shared
 * stack in one bulk move and the hottest cache_size stay, so a flush keeps
 * the cache warm. (DPDK 22.11 flushes the top instead, i.e. the buffers just
 * freed and hottest in the CPU cache; it saves a memmove of the kept part,
 * which here is out of the lock and at most cache_size handles.)
 */
static void rxb_pool_flush(struct rxb_pool_cache *c, const rxb_buf_t *bufs, unsigned n)
{
	struct rxb_pool_shared *sh = &c->pool->shared;
	uint64_t len = c->len;
	uint64_t excess = len + n - c->size;
	uint64_t from_cache = excess < len ? excess : len;
	uint64_t from_bufs = excess - from_cache;
	uint64_t cross = 0, room, push_cache, push_bufs;
	unsigned i;

	for (i = 0; i < n; i++)
		/* Relaxed: see rxb_pool_put in the header. */
		cross += atomic_load_explicit(&c->owner[bufs[i]], memory_order_relaxed) != c->core;

	pthread_mutex_lock(&sh->lock);
	/* More handles than the pool has can only come from a double free;
	 * drop what does not fit rather than write past the stack. */
	room = c->n_bufs - sh->len;
	push_cache = from_cache < room ? from_cache : room;
	push_bufs = from_bufs < room - push_cache ? from_bufs : room - push_cache;
	memcpy(sh->stack + sh->len, c->objs, push_cache * sizeof(rxb_buf_t));
	memcpy(sh->stack + sh->len + push_cache, bufs, push_bufs * sizeof(rxb_buf_t));
	sh->len += (uint32_t)(push_cache + push_bufs);
	pthread_mutex_unlock(&sh->lock);

	if (from_bufs == 0) {
		memmove(c->objs, c->objs + from_cache, (len - from_cache) * sizeof(rxb_buf_t));
		memcpy(c->objs + len - from_cache, bufs, (size_t)n * sizeof(rxb_buf_t));
	} else {
		memcpy(c->objs, bufs + from_bufs, (n - from_bufs) * sizeof(rxb_buf_t));
	}
	c->len = c->size;

	rxb_counter_add(&c->ctr.free, n - (excess - push_cache - push_bufs));
	rxb_counter_add(&c->ctr.invalid_free, excess - push_cache - push_bufs);
	rxb_counter_add(&c->ctr.cross_core_free, cross);
	rxb_counter_add(&c->ctr.free_flush, 1);
	rxb_counter_add(&c->ctr.objs_to_shared, push_cache + push_bufs);
}

/* The put that does not fit the cache, or holds an invalid handle: split
 * bufs into runs of valid handles, drop (and count) each invalid one, and
 * push each run through the fast path or a flush. */
void rxb_pool_put_slow(struct rxb_pool_cache *c, const rxb_buf_t *bufs, unsigned n)
{
	while (n > 0) {
		unsigned run = 0;

		while (run < n && bufs[run] < c->n_bufs)
			run++;
		/* The same test as rxb_pool_put's: a run that passes it takes
		 * the fast path there and never comes back here. */
		if (run > c->flush_thresh - c->len)
			rxb_pool_flush(c, bufs, run);
		else if (run > 0)
			rxb_pool_put(c->pool, c->core, bufs, run);
		if (run == n)
			break;
		rxb_counter_add(&c->ctr.invalid_free, 1);
		bufs += run + 1;
		n -= run + 1;
	}
}

static unsigned rxb_pool_endpoint_get(void *ctx, rxb_buf_t *bufs, unsigned n)
{
	struct rxb_pool_cache *c = ctx;

	return rxb_pool_get(c->pool, c->core, bufs, n);
}

static void rxb_pool_endpoint_put(void *ctx, const rxb_buf_t *bufs, unsigned n)
{
	struct rxb_pool_cache *c = ctx;

	rxb_pool_put(c->pool, c->core, bufs, n);
}

struct rxb_allocator rxb_pool_allocator(struct rxb_pool *pool, uint32_t core)
{
	if (pool == NULL || core >= pool->cfg.n_cores)
		return (struct rxb_allocator){ NULL, NULL, NULL };
	return (struct rxb_allocator){
		.get = rxb_pool_endpoint_get,
		.put = rxb_pool_endpoint_put,
		.ctx = &pool->caches[core],
	};
}

int rxb_pool_stats(const struct rxb_pool *pool, uint32_t core, struct rxb_pool_core_stats *out)
{
	uint32_t first = core, last = core, c;

	if (core == RXB_NONE) {
		first = 0;
		last = pool->cfg.n_cores - 1;
	} else if (core >= pool->cfg.n_cores) {
		return -EINVAL;
	}
	memset(out, 0, sizeof(*out));
	for (c = first; c <= last; c++) {
		const struct rxb_pool_counters *ctr = &pool->caches[c].ctr;

#define RXB_POOL_STAT_SUM(name) out->name += rxb_counter_read(&ctr->name);
		RXB_POOL_STATS(RXB_POOL_STAT_SUM)
#undef RXB_POOL_STAT_SUM
	}
	return 0;
}

uint64_t rxb_pool_free_count(const struct rxb_pool *pool)
{
	uint64_t n = pool->shared.len;
	uint32_t c;

	for (c = 0; c < pool->cfg.n_cores; c++)
		n += pool->caches[c].len;
	return n;
}

/* Every free handle with where it is: a core, or n_cores for the shared
 * pool. No lock: the census runs at a quiescent point by contract. */
static void rxb_pool_walk(const struct rxb_pool *pool,
			  void (*fn)(rxb_buf_t h, uint32_t where, void *arg), void *arg)
{
	uint32_t c, i;

	for (i = 0; i < pool->shared.len; i++)
		fn(pool->shared.stack[i], pool->cfg.n_cores, arg);
	for (c = 0; c < pool->cfg.n_cores; c++)
		for (i = 0; i < pool->caches[c].len; i++)
			fn(pool->caches[c].objs[i], c, arg);
}

struct rxb_pool_visit {
	void (*fn)(rxb_buf_t h, void *arg);
	void *arg;
};

static void rxb_pool_visit_one(rxb_buf_t h, uint32_t where, void *arg)
{
	struct rxb_pool_visit *v = arg;

	(void)where; /* the public visitor is told the handle only */
	v->fn(h, v->arg);
}

int rxb_pool_for_each_free(const struct rxb_pool *pool, void (*fn)(rxb_buf_t h, void *arg),
			   void *arg)
{
	struct rxb_pool_visit v = { fn, arg };

	if (fn == NULL)
		return -EINVAL;
	rxb_pool_walk(pool, rxb_pool_visit_one, &v);
	return 0;
}

struct rxb_pool_census {
	const struct rxb_pool *pool;
	uint32_t *where; /* per handle: RXB_NONE, a core, or n_cores */
	struct rxb_err *err;
	int rc;
};

static void rxb_pool_place(const struct rxb_pool *pool, uint32_t where, char *buf, size_t len)
{
	if (where == pool->cfg.n_cores)
		snprintf(buf, len, "the shared pool");
	else
		snprintf(buf, len, "core %u's cache", where);
}

static void rxb_pool_census_one(rxb_buf_t h, uint32_t where, void *arg)
{
	struct rxb_pool_census *cs = arg;
	char here[48], there[48];

	if (cs->rc)
		return; /* report the first problem only */
	rxb_pool_place(cs->pool, where, here, sizeof(here));
	if (h >= cs->pool->cfg.n_bufs) {
		cs->rc = rxb_err_fail(cs->err, -RXB_E_INVARIANT,
				      "pool: free handle %llu in %s is out of range "
				      "(pool.n_bufs = %u)",
				      (unsigned long long)h, here, cs->pool->cfg.n_bufs);
		return;
	}
	if (cs->where[h] != RXB_NONE) {
		rxb_pool_place(cs->pool, cs->where[h], there, sizeof(there));
		cs->rc = rxb_err_fail(cs->err, -RXB_E_INVARIANT,
				      "pool: handle %llu is free twice, in %s and in %s",
				      (unsigned long long)h, there, here);
		return;
	}
	cs->where[h] = where;
}

int rxb_pool_check(const struct rxb_pool *pool, struct rxb_err *err)
{
	struct rxb_pool_census cs = { pool, NULL, err, 0 };
	size_t where_bytes;
	uint32_t c, i;

	for (c = 0; c < pool->cfg.n_cores; c++) {
		const struct rxb_pool_cache *cache = &pool->caches[c];

		if (cache->len > cache->flush_thresh)
			return rxb_err_fail(err, -RXB_E_INVARIANT,
					    "pool: core %u's cache holds %u handles, above its "
					    "flush threshold %u",
					    c, cache->len, cache->flush_thresh);
	}
	if (pool->shared.len > pool->cfg.n_bufs)
		return rxb_err_fail(err, -RXB_E_INVARIANT,
				    "pool: shared pool holds %u handles, more than "
				    "pool.n_bufs = %u",
				    pool->shared.len, pool->cfg.n_bufs);
	where_bytes = rxb_pool_bytes(pool->cfg.n_bufs, sizeof(*cs.where));
	cs.where = rxb_malloc(where_bytes);
	if (cs.where == NULL)
		return rxb_err_nomem(err, where_bytes, "pool check: places of %u buffers",
				     pool->cfg.n_bufs);
	for (i = 0; i < pool->cfg.n_bufs; i++)
		cs.where[i] = RXB_NONE;
	rxb_pool_walk(pool, rxb_pool_census_one, &cs);
	free(cs.where);
	return cs.rc;
}
