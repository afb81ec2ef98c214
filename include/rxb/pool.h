/* SPDX-License-Identifier: BSD-3-Clause
 *
 * rxb/pool.h — the library's two-level buffer allocator (docs/interfaces.md §7, §9).
 *
 * Shape, as in DPDK's rte_mempool and Linux's page_pool:
 *   - A shared pool: a stack of handles behind one mutex, touched only in
 *     bulk (a refill or a flush), never per object.
 *   - A per-core cache: a stack, hottest handle out first. `get` pops from
 *     it and, when it is short, refills it in one bulk move from the shared
 *     pool; `put` pushes onto it and, once it holds more than the flush
 *     threshold, moves its coldest handles back in one bulk move until
 *     cache_size remain.
 *
 * Buffers are handles 0 .. n_bufs-1. The allocator never touches buffer
 * memory; rxb_pool_buf_addr() gives the modelled address of a handle.
 *
 * Who may call what (the concurrency rules; nothing else is promised):
 *   - rxb_pool_get/put (and the rxb_allocator endpoint) for core c: only the
 *     thread that plays core c. A buffer may be freed on a core other than
 *     the one that allocated it, provided it was handed over with the usual
 *     release/acquire publication (any ring does that).
 *   - rxb_pool_stats: any thread, any time (relaxed counters, one writer).
 *   - rxb_pool_free_count, rxb_pool_for_each_free, rxb_pool_check: only at
 *     a quiescent point (no get/put running, and the threads that ran them
 *     joined or otherwise synchronized with the caller).
 *   - rxb_pool_create/destroy: one thread, with no other call in progress.
 */
#ifndef RXB_POOL_H
#define RXB_POOL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "rxb/common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rxb_pool_config {
	uint32_t n_bufs;           /* handles 0 .. n_bufs-1 */
	uint32_t n_cores;          /* per-core caches, 1 .. RXB_MAX_CORES */
	uint32_t cache_size;       /* handles a cache keeps after a refill or a
	                            * flush; 0 disables caching (every get and
	                            * put goes to the shared pool in bulk) */
	uint32_t flush_factor_pct; /* flush when a cache holds more than
	                            * cache_size * pct / 100; default 150, the
	                            * 1.5 × DPDK uses */
	uint32_t buf_size;         /* bytes per buffer, for rxb_pool_buf_addr */
};

/* 8192 buffers of 2 KiB, one core, a cache of 256, flush at 150 %. */
struct rxb_pool_config rxb_pool_config_default(void);

/* Validate a configuration without building anything: 0, or -EINVAL with a
 * message naming the field (`pool.n_bufs`, `pool.n_cores`, ...). */
int rxb_pool_config_check(const struct rxb_pool_config *cfg, struct rxb_err *err);

/* Per-core events, one writer (the core's thread) each, named after what
 * happened as page_pool's are. Counts are objects unless they say calls or
 * bulk moves. The simulator charges allocator cycles from
 * alloc_refill/free_flush (per bulk move) and objs_from_shared/objs_to_shared
 * (per object moved). */
#define RXB_POOL_STATS(X)                                                           \
	X(alloc)            /* objects handed out by get */                         \
	X(alloc_fast)       /* ... of which by a get served from the cache alone */ \
	X(alloc_refill)     /* bulk refills from the shared pool (lock taken) */    \
	X(objs_from_shared) /* objects moved shared pool -> cache or caller */      \
	X(empty)            /* get calls refused: the pool could not supply n */    \
	X(free)             /* objects accepted by put */                           \
	X(free_flush)       /* bulk flushes to the shared pool (lock taken) */      \
	X(objs_to_shared)   /* objects moved cache or caller -> shared pool */      \
	X(cross_core_free)  /* objects freed here that another core allocated */    \
	X(invalid_free)     /* handles put refused and dropped: >= n_bufs, or \
	                     * more frees than buffers exist (double free) */

enum rxb_pool_stat {
#define RXB_POOL_STAT_ENUM(name) RXB_POOL_STAT_##name,
	RXB_POOL_STATS(RXB_POOL_STAT_ENUM)
#undef RXB_POOL_STAT_ENUM
		RXB_POOL_N_STATS
};

/* "alloc", "alloc_fast", ... in enum order, for reports and bindings. */
extern const char *const rxb_pool_stat_name[RXB_POOL_N_STATS];

/* A snapshot, plain numbers. */
struct rxb_pool_core_stats {
#define RXB_POOL_STAT_U64(name) uint64_t name;
	RXB_POOL_STATS(RXB_POOL_STAT_U64)
#undef RXB_POOL_STAT_U64
};

/* The live counters inside each cache. */
struct rxb_pool_counters {
#define RXB_POOL_STAT_COUNTER(name) rxb_counter_t name;
	RXB_POOL_STATS(RXB_POOL_STAT_COUNTER)
#undef RXB_POOL_STAT_COUNTER
};

/*
 * The structures below are private. They are in the header only so that
 * the fast path can be inlined; use the functions.
 */

/* One core's cache. Aligned to, and a whole number of, cache lines, so two
 * cores' caches never share a line: every field is written by its owner
 * only, and a neighbour writing its own len must not steal ours. The
 * fields the fast path reads sit in the first line (checked in pool.c). */
struct rxb_pool_cache {
	uint32_t len;          /* handles in objs; top is objs[len - 1] */
	uint32_t size;         /* cache_size */
	uint32_t flush_thresh; /* flush when len would exceed this */
	uint32_t n_bufs;       /* copy, so the fast path stays on this line */
	uint32_t core;
	rxb_buf_t *objs;         /* capacity flush_thresh, owner-only */
	_Atomic uint16_t *owner; /* the pool's owner array (see pool.c) */
	struct rxb_pool *pool;
	struct rxb_pool_counters ctr;
} RXB_CACHE_ALIGNED;

/* The shared level, on its own line: every refill and flush of every core
 * writes it, and the caches' lines must not bounce with it. */
struct rxb_pool_shared {
	pthread_mutex_t lock;
	uint32_t len;     /* guarded by lock; top is stack[len - 1] */
	rxb_buf_t *stack; /* capacity n_bufs, guarded by lock */
} RXB_CACHE_ALIGNED;

struct rxb_pool {
	/* Read-only after rxb_pool_create. */
	struct rxb_pool_cache *caches; /* n_cores of them */
	_Atomic uint16_t *owner;       /* n_bufs entries */
	rxb_buf_t *objs_block;         /* backing store of every cache's objs */
	struct rxb_pool_config cfg;
	struct rxb_pool_shared shared;
};

/* Build a pool with every handle in the shared pool and empty caches (as
 * DPDK starts), handle 0 on top. NULL on failure with errno and err set
 * (common.h): -EINVAL naming the field, -ENOMEM naming the array. */
struct rxb_pool *rxb_pool_create(const struct rxb_pool_config *cfg, struct rxb_err *err);
void rxb_pool_destroy(struct rxb_pool *pool);

/* Out-of-line slow paths; call rxb_pool_get/put instead. */
unsigned rxb_pool_get_slow(struct rxb_pool_cache *c, rxb_buf_t *bufs, unsigned n);
void rxb_pool_put_slow(struct rxb_pool_cache *c, const rxb_buf_t *bufs, unsigned n);

/*
 * Allocate n buffers on `core`, all or nothing (like rte_mempool_get_bulk):
 * returns n with bufs[0..n) filled, hottest first, or 0 with nothing handed
 * out and `empty` counted when the pool cannot supply n. n == 0 returns 0.
 * `core` must be < n_cores (not checked here: this is the fast path).
 */
static inline unsigned rxb_pool_get(struct rxb_pool *pool, uint32_t core, rxb_buf_t *bufs,
				    unsigned n)
{
	struct rxb_pool_cache *c = &pool->caches[core];
	unsigned i;

	if (__builtin_expect(n > c->len, 0))
		return rxb_pool_get_slow(c, bufs, n);
	for (i = 0; i < n; i++) {
		rxb_buf_t h = c->objs[--c->len];

		bufs[i] = h;
		/* Relaxed: the owner entry is only a tag for counting. The
		 * core that frees h reads it after receiving h through the
		 * caller's own release/acquire hand-off, which orders this
		 * store before that load (see pool.c). */
		atomic_store_explicit(&c->owner[h], (uint16_t)c->core, memory_order_relaxed);
	}
	rxb_counter_add(&c->ctr.alloc, n);
	rxb_counter_add(&c->ctr.alloc_fast, n);
	return n;
}

/*
 * Free n buffers on `core`; always succeeds. Handles out of range are
 * dropped and counted as invalid_free rather than corrupting the pool.
 */
static inline void rxb_pool_put(struct rxb_pool *pool, uint32_t core, const rxb_buf_t *bufs,
				unsigned n)
{
	struct rxb_pool_cache *c = &pool->caches[core];
	uint64_t cross = 0;
	unsigned i;

	/* len <= flush_thresh always holds, so this cannot wrap. */
	if (__builtin_expect(n > c->flush_thresh - c->len, 0)) {
		rxb_pool_put_slow(c, bufs, n);
		return;
	}
	for (i = 0; i < n; i++) {
		rxb_buf_t h = bufs[i];

		if (__builtin_expect(h >= c->n_bufs, 0))
			break; /* the slow path drops and counts it */
		/* Relaxed: pairs with the store in rxb_pool_get through the
		 * caller's hand-off of h (see there). */
		cross += atomic_load_explicit(&c->owner[h], memory_order_relaxed) != c->core;
		c->objs[c->len++] = h;
	}
	rxb_counter_add(&c->ctr.free, i);
	rxb_counter_add(&c->ctr.cross_core_free, cross);
	if (i < n)
		rxb_pool_put_slow(c, bufs + i, n - i);
}

/* Handles in core's cache right now (owner thread, or quiescent). */
static inline uint32_t rxb_pool_cached(const struct rxb_pool *pool, uint32_t core)
{
	return pool->caches[core].len;
}

/* Modelled address of handle h when the buffers start at `base`. */
static inline uint64_t rxb_pool_buf_addr(const struct rxb_pool *pool, rxb_buf_t h, uint64_t base)
{
	return base + h * (uint64_t)pool->cfg.buf_size;
}

/* The rxb_allocator endpoint of `core` (its ctx is that core's cache).
 * A core >= n_cores gives an endpoint with get == put == NULL. */
struct rxb_allocator rxb_pool_allocator(struct rxb_pool *pool, uint32_t core);

/* Snapshot of core's counters, or of their sum over all cores when core is
 * RXB_NONE. 0, or -EINVAL for a core out of range. Any thread, any time. */
int rxb_pool_stats(const struct rxb_pool *pool, uint32_t core, struct rxb_pool_core_stats *out);

/* Census (quiescent point only): handles in the shared pool and all caches. */
uint64_t rxb_pool_free_count(const struct rxb_pool *pool);

/* Call fn(handle, arg) for every free handle, shared pool first, then each
 * cache. fn must not call into the pool. 0, or -EINVAL for a NULL fn. */
int rxb_pool_for_each_free(const struct rxb_pool *pool, void (*fn)(rxb_buf_t h, void *arg),
			   void *arg);

/* Debug check (quiescent point only): every free handle is < n_bufs, none
 * is free twice, every cache is within its threshold. 0; -RXB_E_INVARIANT
 * with a message naming the handle and both places it was found; -ENOMEM. */
int rxb_pool_check(const struct rxb_pool *pool, struct rxb_err *err);

#ifdef __cplusplus
}
#endif
#endif /* RXB_POOL_H */
