/* SPDX-License-Identifier: BSD-3-Clause
 * Shared helpers for the C tests: a pool with per-core allocators, and a
 * deterministic PRNG. Header-only so every test stays one file. */
#ifndef RXB_TEST_HARNESS_H
#define RXB_TEST_HARNESS_H
#include <stdio.h>
#include <stdlib.h>

#include "rxb/pool.h"

struct test_pool {
	struct rxb_pool *pool;
	struct rxb_allocator alloc[64];
};

/* A pool of n_bufs buffers for n_cores cores (≤ 64), cache 32. */
static inline int test_pool_init(struct test_pool *tp, uint32_t n_bufs, uint32_t n_cores)
{
	struct rxb_pool_config pc = rxb_pool_config_default();
	struct rxb_err err;

	pc.n_bufs = n_bufs;
	pc.n_cores = n_cores;
	pc.cache_size = 32;
	tp->pool = rxb_pool_create(&pc, &err);
	if (tp->pool == NULL) {
		fprintf(stderr, "pool: %s\n", err.msg);
		return -1;
	}
	for (uint32_t c = 0; c < n_cores; c++)
		tp->alloc[c] = rxb_pool_allocator(tp->pool, c);
	return 0;
}

static inline void test_pool_fini(struct test_pool *tp)
{
	rxb_pool_destroy(tp->pool);
}

/* xorshift64*: deterministic, good enough for test schedules. */
static inline uint64_t test_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1Dull;
}

static inline uint32_t test_rand_below(uint64_t *s, uint32_t n)
{
	return (uint32_t)(test_rand(s) % n);
}
#endif
