/* SPDX-License-Identifier: BSD-3-Clause
 * Functional tests of the two-level buffer allocator (rxb/pool.h): cache
 * order, refill and flush thresholds with the exact counters they move,
 * exhaustion, all-or-nothing get, cross-core frees, invalid and double
 * frees, configuration errors, and a randomized run against a model. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rxb/pool.h"

static struct rxb_pool *make_pool(uint32_t n_bufs, uint32_t n_cores, uint32_t cache_size)
{
	struct rxb_pool_config cfg = rxb_pool_config_default();
	struct rxb_err err = { 0 };
	struct rxb_pool *pool;

	cfg.n_bufs = n_bufs;
	cfg.n_cores = n_cores;
	cfg.cache_size = cache_size;
	pool = rxb_pool_create(&cfg, &err);
	if (pool == NULL) {
		fprintf(stderr, "rxb_pool_create: %s\n", err.msg);
		exit(2);
	}
	return pool;
}

static struct rxb_pool_core_stats stats_of(const struct rxb_pool *pool, uint32_t core)
{
	struct rxb_pool_core_stats s;

	if (rxb_pool_stats(pool, core, &s) != 0)
		memset(&s, 0xff, sizeof(s));
	return s;
}

static uint64_t shared_len(const struct rxb_pool *pool)
{
	uint64_t n = rxb_pool_free_count(pool);
	uint32_t c;

	for (c = 0; c < pool->cfg.n_cores; c++)
		n -= rxb_pool_cached(pool, c);
	return n;
}

/* Every buffer is free or held by the test, exactly once. */
static void check_conserved(const struct rxb_pool *pool, uint64_t held)
{
	struct rxb_err err = { 0 };
	int rc = rxb_pool_check(pool, &err);

	if (rc)
		fprintf(stderr, "rxb_pool_check: %s\n", err.msg);
	CHECK_EQ(rc, 0);
	CHECK_EQ(rxb_pool_free_count(pool) + held, pool->cfg.n_bufs);
}

static void test_default_config(void)
{
	struct rxb_pool_config cfg = rxb_pool_config_default();
	struct rxb_pool *pool;

	CHECK_EQ(rxb_pool_config_check(&cfg, NULL), 0);
	CHECK_EQ(cfg.flush_factor_pct, 150);
	pool = rxb_pool_create(&cfg, NULL);
	CHECK(pool != NULL);
	if (pool == NULL)
		return;
	CHECK_EQ(rxb_pool_cached(pool, 0), 0);
	check_conserved(pool, 0);
	CHECK(strcmp(rxb_pool_stat_name[RXB_POOL_STAT_empty], "empty") == 0);
	CHECK(strcmp(rxb_pool_stat_name[RXB_POOL_STAT_cross_core_free], "cross_core_free") == 0);
	rxb_pool_destroy(pool);
	rxb_pool_destroy(NULL);
}

static void test_bad_config(void)
{
	static const struct {
		const char *field;
		uint32_t n_bufs, n_cores, cache_size, pct, buf_size;
	} bad[] = {
		{ "pool.n_bufs = 0", 0, 1, 0, 150, 2048 },
		{ "pool.n_cores = 0", 64, 0, 8, 150, 2048 },
		{ "pool.n_cores = 1025", 64, RXB_MAX_CORES + 1, 8, 150, 2048 },
		{ "pool.cache_size = 65", 64, 1, 65, 150, 2048 },
		{ "pool.flush_factor_pct = 99", 64, 1, 8, 99, 2048 },
		{ "pool.buf_size = 0", 64, 1, 8, 150, 0 },
	};
	struct rxb_err err;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rxb_pool_config cfg = {
			bad[i].n_bufs, bad[i].n_cores,  bad[i].cache_size,
			bad[i].pct,    bad[i].buf_size,
		};

		err.msg[0] = 0;
		CHECK_EQ(rxb_pool_config_check(&cfg, &err), -EINVAL);
		if (strstr(err.msg, bad[i].field) == NULL)
			fprintf(stderr, "message '%s' lacks '%s'\n", err.msg, bad[i].field);
		CHECK(strstr(err.msg, bad[i].field) != NULL);
		err.msg[0] = 0;
		errno = 0;
		CHECK(rxb_pool_create(&cfg, &err) == NULL);
		CHECK_EQ(errno, EINVAL);
		CHECK(strstr(err.msg, bad[i].field) != NULL);
	}
	CHECK_EQ(rxb_pool_config_check(NULL, &err), -EINVAL);
	CHECK(strstr(err.msg, "NULL") != NULL);
}

/* The limits themselves are accepted. */
static void test_config_limits(void)
{
	struct rxb_pool_config cfg = { 64, RXB_MAX_CORES, 64, 100, 1 };
	struct rxb_pool *pool;

	CHECK_EQ(rxb_pool_config_check(&cfg, NULL), 0);
	pool = rxb_pool_create(&cfg, NULL);
	CHECK(pool != NULL);
	if (pool) {
		CHECK_EQ(pool->caches[RXB_MAX_CORES - 1].flush_thresh, 64);
		check_conserved(pool, 0);
		rxb_pool_destroy(pool);
	}
	cfg.cache_size = 0;
	cfg.flush_factor_pct = 1000000; /* threshold 0 whatever the factor */
	CHECK_EQ(rxb_pool_config_check(&cfg, NULL), 0);
	cfg.cache_size = 64; /* 640000 % of 64, capped at n_bufs */
	pool = rxb_pool_create(&cfg, NULL);
	CHECK(pool != NULL);
	if (pool) {
		CHECK_EQ(pool->caches[0].flush_thresh, 64);
		rxb_pool_destroy(pool);
	}
}

/* A fresh pool refills shortfall + cache_size and hands out 0, 1, 2, ... */
static void test_refill_counters(void)
{
	struct rxb_pool *pool = make_pool(64, 1, 8);
	struct rxb_pool_core_stats s;
	rxb_buf_t b[16];

	CHECK_EQ(rxb_pool_get(pool, 0, b, 3), 3);
	CHECK_EQ(b[0], 0);
	CHECK_EQ(b[1], 1);
	CHECK_EQ(b[2], 2);
	s = stats_of(pool, 0);
	CHECK_EQ(s.alloc, 3);
	CHECK_EQ(s.alloc_fast, 0);
	CHECK_EQ(s.alloc_refill, 1);
	CHECK_EQ(s.objs_from_shared, 3 + 8);
	CHECK_EQ(rxb_pool_cached(pool, 0), 8);
	CHECK_EQ(shared_len(pool), 64 - 11);

	/* Exactly what the cache holds: served from it, no refill. */
	CHECK_EQ(rxb_pool_get(pool, 0, b, 8), 8);
	CHECK_EQ(b[0], 3);
	CHECK_EQ(b[7], 10);
	s = stats_of(pool, 0);
	CHECK_EQ(s.alloc, 11);
	CHECK_EQ(s.alloc_fast, 8);
	CHECK_EQ(s.alloc_refill, 1);
	CHECK_EQ(s.objs_from_shared, 11);
	CHECK_EQ(rxb_pool_cached(pool, 0), 0);

	/* One more: a second refill of 1 + 8. */
	CHECK_EQ(rxb_pool_get(pool, 0, b, 1), 1);
	CHECK_EQ(b[0], 11);
	s = stats_of(pool, 0);
	CHECK_EQ(s.alloc_refill, 2);
	CHECK_EQ(s.objs_from_shared, 20);
	CHECK_EQ(rxb_pool_cached(pool, 0), 8);
	CHECK_EQ(s.empty, 0);
	CHECK_EQ(s.free_flush + s.objs_to_shared + s.free, 0);
	check_conserved(pool, 12);
	rxb_pool_destroy(pool);
}

/* The last handle freed is the first handed out. */
static void test_lifo(void)
{
	struct rxb_pool *pool = make_pool(64, 1, 8);
	rxb_buf_t b[4], c[4];

	CHECK_EQ(rxb_pool_get(pool, 0, b, 4), 4); /* 0..3, cache keeps 4..11 */
	rxb_pool_put(pool, 0, b, 4);              /* 12 cached: no flush yet */
	CHECK_EQ(stats_of(pool, 0).free_flush, 0);
	CHECK_EQ(rxb_pool_get(pool, 0, c, 1), 1);
	CHECK_EQ(c[0], 3);
	CHECK_EQ(rxb_pool_get(pool, 0, c, 3), 3);
	CHECK_EQ(c[0], 2);
	CHECK_EQ(c[1], 1);
	CHECK_EQ(c[2], 0);
	CHECK_EQ(rxb_pool_get(pool, 0, c, 1), 1);
	CHECK_EQ(c[0], 4);
	CHECK_EQ(stats_of(pool, 0).alloc_fast, 5);
	check_conserved(pool, 5);
	rxb_pool_destroy(pool);
}

/* cache 8 at 150 %: 12 cached is fine, the 13th flushes the 5 coldest. */
static void test_flush_threshold(void)
{
	struct rxb_pool *pool = make_pool(64, 1, 8);
	struct rxb_pool_core_stats s;
	rxb_buf_t a[24], b[8];
	int i;

	CHECK_EQ(rxb_pool_get(pool, 0, a, 24), 24);
	CHECK_EQ(rxb_pool_get(pool, 0, b, 8), 8); /* empties the cache */
	CHECK_EQ(rxb_pool_cached(pool, 0), 0);
	CHECK_EQ(pool->caches[0].flush_thresh, 12);

	rxb_pool_put(pool, 0, a, 12);
	s = stats_of(pool, 0);
	CHECK_EQ(s.free, 12);
	CHECK_EQ(s.free_flush, 0);
	CHECK_EQ(s.objs_to_shared, 0);
	CHECK_EQ(rxb_pool_cached(pool, 0), 12);

	rxb_pool_put(pool, 0, &a[12], 1);
	s = stats_of(pool, 0);
	CHECK_EQ(s.free, 13);
	CHECK_EQ(s.free_flush, 1);
	CHECK_EQ(s.objs_to_shared, 5);
	CHECK_EQ(rxb_pool_cached(pool, 0), 8);
	check_conserved(pool, 24 + 8 - 13);

	/* The hottest 8 stayed, hottest first... */
	CHECK_EQ(rxb_pool_get(pool, 0, b, 8), 8);
	for (i = 0; i < 8; i++)
		CHECK_EQ(b[i], a[12 - i]);
	/* ...and the coldest went to the shared stack, a[4] on top. */
	CHECK_EQ(rxb_pool_get(pool, 0, b, 1), 1);
	CHECK_EQ(b[0], a[4]);
	CHECK_EQ(stats_of(pool, 0).alloc_refill, 2);
	rxb_pool_destroy(pool);
}

/* A put far larger than the cache: one flush, the hottest cache_size kept. */
static void test_flush_big_put(void)
{
	struct rxb_pool *pool = make_pool(64, 1, 8);
	struct rxb_pool_core_stats s;
	rxb_buf_t a[32], b[8];
	int i;

	CHECK_EQ(rxb_pool_get(pool, 0, a, 32), 32);
	CHECK_EQ(rxb_pool_get(pool, 0, b, 5), 5); /* cache 8 -> 3 */
	rxb_pool_put(pool, 0, a, 20);             /* 3 + 20: 15 go */
	s = stats_of(pool, 0);
	CHECK_EQ(s.free, 20);
	CHECK_EQ(s.free_flush, 1);
	CHECK_EQ(s.objs_to_shared, 15);
	CHECK_EQ(rxb_pool_cached(pool, 0), 8);
	CHECK_EQ(rxb_pool_get(pool, 0, b, 8), 8);
	for (i = 0; i < 8; i++)
		CHECK_EQ(b[i], a[19 - i]);
	/* Still 12 of a held, and 5 of the first b; b's 8 are held again. */
	check_conserved(pool, 12 + 5 + 8);
	rxb_pool_destroy(pool);
}

/* A get larger than the cache, with something cached already. */
static void test_get_big(void)
{
	struct rxb_pool *pool = make_pool(64, 1, 8);
	struct rxb_pool_core_stats s;
	rxb_buf_t a[40], b[8];
	int i, j;

	CHECK_EQ(rxb_pool_get(pool, 0, b, 3), 3); /* cache 8 -> 5 after refill */
	CHECK_EQ(rxb_pool_cached(pool, 0), 8);
	CHECK_EQ(rxb_pool_get(pool, 0, b, 3), 3);
	CHECK_EQ(rxb_pool_cached(pool, 0), 5);
	CHECK_EQ(rxb_pool_get(pool, 0, a, 40), 40);
	s = stats_of(pool, 0);
	CHECK_EQ(s.alloc_refill, 2);
	CHECK_EQ(s.objs_from_shared, 11 + 35 + 8);
	CHECK_EQ(rxb_pool_cached(pool, 0), 8);
	for (i = 0; i < 40; i++)
		for (j = 0; j < i; j++)
			CHECK(a[i] != a[j]);
	check_conserved(pool, 46);
	rxb_pool_destroy(pool);
}

/* cache_size 0: no cache, every call is one bulk move to or from shared. */
static void test_cache_size_zero(void)
{
	struct rxb_pool *pool = make_pool(16, 1, 0);
	struct rxb_pool_core_stats s;
	rxb_buf_t b[5];

	CHECK_EQ(rxb_pool_get(pool, 0, b, 5), 5);
	rxb_pool_put(pool, 0, b, 5);
	s = stats_of(pool, 0);
	CHECK_EQ(s.alloc_refill, 1);
	CHECK_EQ(s.objs_from_shared, 5);
	CHECK_EQ(s.free_flush, 1);
	CHECK_EQ(s.objs_to_shared, 5);
	CHECK_EQ(rxb_pool_cached(pool, 0), 0);
	CHECK_EQ(rxb_pool_get(pool, 0, b, 1), 1);
	CHECK_EQ(b[0], 4); /* the shared stack is LIFO too */
	check_conserved(pool, 1);
	rxb_pool_destroy(pool);
}

static void test_exhaustion(void)
{
	struct rxb_pool *pool = make_pool(16, 1, 4);
	struct rxb_pool_core_stats s;
	rxb_buf_t a[17], b[2] = { 777, 777 };

	/* All 16: the shared pool covers the shortfall but not shortfall +
	 * cache_size, so only the shortfall moves. */
	CHECK_EQ(rxb_pool_get(pool, 0, a, 16), 16);
	CHECK_EQ(stats_of(pool, 0).objs_from_shared, 16);
	CHECK_EQ(rxb_pool_cached(pool, 0), 0);
	CHECK_EQ(rxb_pool_get(pool, 0, b, 1), 0);
	CHECK_EQ(b[0], 777);
	s = stats_of(pool, 0);
	CHECK_EQ(s.empty, 1);
	CHECK_EQ(s.alloc, 16);
	CHECK_EQ(s.alloc_refill, 1);
	check_conserved(pool, 16);

	rxb_pool_put(pool, 0, a, 16);
	check_conserved(pool, 0);
	CHECK_EQ(rxb_pool_cached(pool, 0), 4);
	/* More than exist: refused without touching anything. */
	CHECK_EQ(rxb_pool_get(pool, 0, a, 17), 0);
	CHECK_EQ(stats_of(pool, 0).empty, 2);
	CHECK_EQ(rxb_pool_cached(pool, 0), 4);
	CHECK_EQ(shared_len(pool), 12);
	check_conserved(pool, 0);
	/* And the pool still works. */
	CHECK_EQ(rxb_pool_get(pool, 0, a, 16), 16);
	check_conserved(pool, 16);
	rxb_pool_destroy(pool);
}

/* get is all or nothing: a short pool hands out nothing and moves nothing. */
static void test_all_or_nothing(void)
{
	struct rxb_pool *pool = make_pool(16, 2, 4);
	rxb_buf_t held[16], b[16];
	uint64_t from;

	CHECK_EQ(rxb_pool_get(pool, 1, held, 6), 6); /* core 1 takes 10, keeps 4 */
	CHECK_EQ(rxb_pool_get(pool, 0, b, 2), 2);    /* core 0 takes 6 */
	CHECK_EQ(rxb_pool_cached(pool, 0), 4);
	CHECK_EQ(shared_len(pool), 0);
	rxb_pool_put(pool, 0, b, 2);    /* cache 6: at threshold */
	rxb_pool_put(pool, 1, held, 6); /* core 1 flushes 6 */
	CHECK_EQ(rxb_pool_cached(pool, 0), 6);
	CHECK_EQ(rxb_pool_cached(pool, 1), 4);
	CHECK_EQ(shared_len(pool), 6);

	/* Core 0 can reach 6 cached + 6 shared = 12, not core 1's 4. */
	from = stats_of(pool, 0).objs_from_shared;
	CHECK_EQ(rxb_pool_get(pool, 0, b, 13), 0);
	CHECK_EQ(stats_of(pool, 0).empty, 1);
	CHECK_EQ(rxb_pool_cached(pool, 0), 6);
	CHECK_EQ(shared_len(pool), 6);
	/* 9: shortfall 3 is covered, shortfall + cache_size 7 is not. */
	CHECK_EQ(rxb_pool_get(pool, 0, b, 9), 9);
	CHECK_EQ(stats_of(pool, 0).objs_from_shared - from, 3);
	CHECK_EQ(rxb_pool_cached(pool, 0), 0);
	CHECK_EQ(shared_len(pool), 3);
	CHECK_EQ(rxb_pool_get(pool, 0, held, 4), 0);
	CHECK_EQ(rxb_pool_get(pool, 0, held, 3), 3);
	CHECK_EQ(stats_of(pool, 0).empty, 2);
	check_conserved(pool, 12);
	rxb_pool_destroy(pool);
}

struct seen {
	unsigned char *mark;
	uint64_t n, dups;
};

static void see(rxb_buf_t h, void *arg)
{
	struct seen *s = arg;

	s->dups += s->mark[h]++ != 0;
	s->n++;
}

static void test_cross_core(void)
{
	struct rxb_pool *pool = make_pool(64, 2, 8);
	struct seen seen = { calloc(64, 1), 0, 0 };
	rxb_buf_t a[20], b[5];

	CHECK_EQ(rxb_pool_get(pool, 0, a, 20), 20);
	rxb_pool_put(pool, 1, a, 20); /* flush path */
	CHECK_EQ(stats_of(pool, 1).free, 20);
	CHECK_EQ(stats_of(pool, 1).cross_core_free, 20);
	CHECK_EQ(stats_of(pool, 0).cross_core_free, 0);

	/* Allocated and freed on core 1: not cross-core. */
	CHECK_EQ(rxb_pool_get(pool, 1, b, 5), 5);
	rxb_pool_put(pool, 1, b, 5);
	CHECK_EQ(stats_of(pool, 1).cross_core_free, 20);

	/* Core 1 allocates a's old handles, core 0 frees them (fast path). */
	CHECK_EQ(rxb_pool_get(pool, 1, b, 3), 3);
	rxb_pool_put(pool, 0, b, 3);
	CHECK_EQ(stats_of(pool, 0).cross_core_free, 3);
	CHECK_EQ(stats_of(pool, 0).free_flush, 0);
	CHECK_EQ(stats_of(pool, RXB_NONE).cross_core_free, 23);
	CHECK_EQ(stats_of(pool, RXB_NONE).free, 28);
	CHECK_EQ(stats_of(pool, RXB_NONE).alloc, 28);

	check_conserved(pool, 0);
	CHECK_EQ(rxb_pool_for_each_free(pool, see, &seen), 0);
	CHECK_EQ(seen.n, 64);
	CHECK_EQ(seen.dups, 0);
	CHECK_EQ(rxb_pool_for_each_free(pool, NULL, NULL), -EINVAL);
	free(seen.mark);
	rxb_pool_destroy(pool);
}

static void test_stats_api(void)
{
	struct rxb_pool *pool = make_pool(64, 3, 8);
	struct rxb_pool_core_stats s;
	rxb_buf_t b[4];

	CHECK_EQ(rxb_pool_get(pool, 0, b, 1), 1);
	CHECK_EQ(rxb_pool_get(pool, 2, b, 4), 4);
	CHECK_EQ(rxb_pool_stats(pool, 3, &s), -EINVAL);
	CHECK_EQ(rxb_pool_stats(pool, RXB_NONE, &s), 0);
	CHECK_EQ(s.alloc, 5);
	CHECK_EQ(s.alloc_refill, 2);
	CHECK_EQ(s.objs_from_shared, 9 + 12);
	CHECK_EQ(stats_of(pool, 1).alloc, 0);
	rxb_pool_destroy(pool);
}

/* Out-of-range handles are dropped and counted, in both put paths. */
static void test_invalid_free(void)
{
	struct rxb_pool *pool = make_pool(16, 1, 8);
	struct rxb_pool_core_stats s;
	rxb_buf_t a[11], b[5], c[14];
	int i;

	/* 11 of 16: shortfall only, the cache stays empty. */
	CHECK_EQ(rxb_pool_get(pool, 0, a, 11), 11);
	CHECK_EQ(rxb_pool_cached(pool, 0), 0);
	b[0] = a[0];
	b[1] = 16;
	b[2] = a[1];
	b[3] = RXB_BUF_NONE;
	b[4] = a[2];
	rxb_pool_put(pool, 0, b, 5); /* fits the cache: fast path */
	s = stats_of(pool, 0);
	CHECK_EQ(s.free, 3);
	CHECK_EQ(s.invalid_free, 2);
	CHECK_EQ(s.free_flush, 0);
	check_conserved(pool, 8);

	/* 13 held and a bad one in the middle: a run that fits, then a run
	 * that flushes. */
	CHECK_EQ(rxb_pool_get(pool, 0, c, 5), 5);
	CHECK_EQ(rxb_pool_cached(pool, 0), 0);
	for (i = 0; i < 8; i++)
		c[i + 5] = a[i + 3];
	c[13] = c[6];
	c[6] = 1000;
	rxb_pool_put(pool, 0, c, 14);
	s = stats_of(pool, 0);
	CHECK_EQ(s.free, 16);
	CHECK_EQ(s.invalid_free, 3);
	CHECK_EQ(s.free_flush, 1);
	check_conserved(pool, 0);
	rxb_pool_destroy(pool);
}

/* Fault injection: double frees must be caught by the census and must
 * never write past the shared stack (ASan checks the latter). */
static void test_double_free(void)
{
	struct rxb_pool *pool = make_pool(16, 1, 4);
	struct rxb_err err = { 0 };
	rxb_buf_t b[2], same[40];
	char want[64];
	int i;

	CHECK_EQ(rxb_pool_get(pool, 0, b, 2), 2);
	rxb_pool_put(pool, 0, b, 1);
	rxb_pool_put(pool, 0, b, 1);
	CHECK_EQ(rxb_pool_check(pool, &err), -RXB_E_INVARIANT);
	snprintf(want, sizeof(want), "handle %llu is free twice", (unsigned long long)b[0]);
	CHECK(strstr(err.msg, want) != NULL);
	CHECK(strstr(err.msg, "core 0's cache") != NULL);
	rxb_pool_destroy(pool);

	/* A full pool freed into again and again: the excess is dropped. */
	pool = make_pool(8, 1, 2);
	for (i = 0; i < 40; i++)
		same[i] = (rxb_buf_t)(i % 8);
	rxb_pool_put(pool, 0, same, 40);
	for (i = 0; i < 10; i++)
		rxb_pool_put(pool, 0, same, 3);
	CHECK(shared_len(pool) <= 8);
	CHECK(rxb_pool_cached(pool, 0) <= 3);
	CHECK(stats_of(pool, 0).invalid_free > 0);
	CHECK_EQ(rxb_pool_check(pool, &err), -RXB_E_INVARIANT);
	CHECK(strstr(err.msg, "free twice") != NULL);
	rxb_pool_destroy(pool);
}

static void test_allocator_endpoint(void)
{
	struct rxb_pool *pool = make_pool(64, 2, 8);
	struct rxb_allocator ep = rxb_pool_allocator(pool, 1);
	rxb_buf_t b[5];

	CHECK(ep.get != NULL && ep.put != NULL);
	if (ep.get == NULL || ep.put == NULL)
		return;
	CHECK_EQ(ep.get(ep.ctx, b, 5), 5);
	CHECK_EQ(stats_of(pool, 1).alloc, 5);
	CHECK_EQ(stats_of(pool, 0).alloc, 0);
	ep.put(ep.ctx, b, 5);
	CHECK_EQ(stats_of(pool, 1).free, 5);
	CHECK_EQ(ep.get(ep.ctx, b, 65), 0);
	CHECK_EQ(stats_of(pool, 1).empty, 1);
	check_conserved(pool, 0);
	ep = rxb_pool_allocator(pool, 2);
	CHECK(ep.get == NULL && ep.put == NULL && ep.ctx == NULL);
	rxb_pool_destroy(pool);
}

static void test_buf_addr(void)
{
	struct rxb_pool *pool = make_pool(64, 1, 8);

	CHECK_EQ(rxb_pool_buf_addr(pool, 0, 0x1000), 0x1000);
	CHECK_EQ(rxb_pool_buf_addr(pool, 3, 0x1000), 0x1000 + 3 * 2048);
	rxb_pool_destroy(pool);
}

/* Random gets and puts on random cores against a model: get succeeds iff
 * the core's cache plus the shared pool hold n, never hands out a held
 * buffer, and the counters account for every move. */
static void test_random_model(void)
{
	enum { N = 200, CORES = 3, STEPS = 20000 };
	struct rxb_pool *pool = make_pool(N, CORES, 16);
	struct rxb_pool_core_stats s;
	rxb_buf_t held[N], b[48];
	unsigned char is_held[N] = { 0 };
	uint64_t n_held = 0, cached;
	uint32_t rnd = 12345, c;
	int step;

	for (step = 0; step < STEPS; step++) {
		unsigned core, n, i, got;

		rnd = rnd * 1103515245u + 12345u;
		core = (rnd >> 8) % CORES;
		n = 1 + (rnd >> 16) % 48;
		if ((rnd >> 29) & 1) {
			uint64_t avail = rxb_pool_cached(pool, core) + shared_len(pool);

			got = rxb_pool_get(pool, core, b, n);
			CHECK_EQ(got, n <= avail ? n : 0);
			for (i = 0; i < got; i++) {
				CHECK(b[i] < N && !is_held[b[i]]);
				if (b[i] < N && !is_held[b[i]]) {
					is_held[b[i]] = 1;
					held[n_held++] = b[i];
				}
			}
		} else {
			if (n > n_held)
				n = (unsigned)n_held;
			/* Free n random held buffers. */
			for (i = 0; i < n; i++) {
				uint64_t k;

				rnd = rnd * 1103515245u + 12345u;
				k = (rnd >> 8) % n_held;
				b[i] = held[k];
				held[k] = held[--n_held];
				is_held[b[i]] = 0;
			}
			rxb_pool_put(pool, core, b, n);
		}
		CHECK_EQ(rxb_pool_free_count(pool) + n_held, N);
		if (step % 97 == 0)
			check_conserved(pool, n_held);
	}
	CHECK_EQ(rxb_pool_stats(pool, RXB_NONE, &s), 0);
	cached = 0;
	for (c = 0; c < CORES; c++)
		cached += rxb_pool_cached(pool, c);
	CHECK_EQ(s.alloc - s.free, n_held);
	/* What left the shared pool is cached or held. */
	CHECK_EQ(s.objs_from_shared - s.objs_to_shared, cached + n_held);
	CHECK_EQ(s.alloc_fast <= s.alloc, 1);
	CHECK(s.empty > 0 && s.free_flush > 0 && s.cross_core_free > 0);
	CHECK_EQ(s.invalid_free, 0);
	check_conserved(pool, n_held);
	rxb_pool_destroy(pool);
}

int main(void)
{
	RUN(test_default_config);
	RUN(test_bad_config);
	RUN(test_config_limits);
	RUN(test_refill_counters);
	RUN(test_lifo);
	RUN(test_flush_threshold);
	RUN(test_flush_big_put);
	RUN(test_get_big);
	RUN(test_cache_size_zero);
	RUN(test_exhaustion);
	RUN(test_all_or_nothing);
	RUN(test_cross_core);
	RUN(test_stats_api);
	RUN(test_invalid_free);
	RUN(test_double_free);
	RUN(test_allocator_endpoint);
	RUN(test_buf_addr);
	RUN(test_random_model);
	return check_summary();
}
