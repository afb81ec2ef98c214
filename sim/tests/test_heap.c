/* SPDX-License-Identifier: BSD-3-Clause
 * Event queue: time order, FIFO among equal times, pop_push, growth,
 * determinism. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "heap.h"
#include "rng.h"

static void test_order_and_ties(void)
{
	struct sim_heap h;
	struct sim_event e, prev = { 0 };
	struct sim_rng r;
	uint32_t n = 0;

	CHECK_EQ(sim_heap_init(&h, 1, NULL), 0); /* grows from 1 */
	sim_rng_seed(&r, 1, 0);
	for (uint32_t i = 0; i < 100000; i++)
		CHECK_EQ(sim_heap_push(&h, sim_rng_below(&r, 1000), 0, i, 0), 0);
	CHECK_EQ(sim_heap_size(&h), 100000);
	CHECK(sim_heap_peek(&h)->t == 0);
	while (sim_heap_pop(&h, &e)) {
		if (n++) {
			CHECK(e.t >= prev.t);
			/* Equal times pop in push order. */
			if (e.t == prev.t)
				CHECK(e.seq > prev.seq && e.arg > prev.arg);
		}
		prev = e;
	}
	CHECK_EQ(n, 100000);
	CHECK(sim_heap_peek(&h) == NULL);
	CHECK_EQ(sim_heap_pop(&h, &e), 0);
	sim_heap_free(&h);
}

/* A simulation-like pattern: pop an event, schedule its successor. The
 * pop_push shortcut must give exactly what pop + push gives. */
static uint64_t run(int fused, uint64_t *trace, int n)
{
	struct sim_heap h;
	struct sim_rng r;
	struct sim_event e = { 0 };
	uint64_t sum = 0;

	sim_heap_init(&h, 16, NULL);
	sim_rng_seed(&r, 42, 0);
	for (uint32_t i = 0; i < 64; i++)
		sim_heap_push(&h, sim_rng_below(&r, 100), i % 3, i, i);
	for (int k = 0; k < n; k++) {
		uint64_t dt = sim_rng_below(&r, 50);

		if (fused) {
			uint64_t t = sim_heap_peek(&h)->t + dt;
			uint32_t arg = sim_heap_peek(&h)->arg;

			sim_heap_pop_push(&h, &e, t, 1, arg, (uint64_t)k);
		} else {
			sim_heap_pop(&h, &e);
			sim_heap_push(&h, e.t + dt, 1, e.arg, (uint64_t)k);
		}
		trace[k] = e.t * 1000003u + e.arg;
		sum += trace[k];
	}
	sim_heap_free(&h);
	return sum;
}

static void test_pop_push_and_determinism(void)
{
	enum { N = 200000 };
	uint64_t *a = malloc(N * sizeof(*a)), *b = malloc(N * sizeof(*b)),
		 *c = malloc(N * sizeof(*c));

	run(0, a, N);
	run(1, b, N);
	run(1, c, N);
	CHECK(memcmp(a, b, N * sizeof(*a)) == 0);
	CHECK(memcmp(b, c, N * sizeof(*b)) == 0);
	free(a);
	free(b);
	free(c);
}

static void test_clear_keeps_fifo(void)
{
	struct sim_heap h;
	struct sim_event e1, e2;

	sim_heap_init(&h, 4, NULL);
	sim_heap_push(&h, 5, 0, 1, 0);
	sim_heap_clear(&h);
	CHECK_EQ(sim_heap_size(&h), 0);
	sim_heap_push(&h, 7, 0, 2, 0);
	sim_heap_push(&h, 7, 0, 3, 0);
	sim_heap_pop(&h, &e1);
	sim_heap_pop(&h, &e2);
	CHECK_EQ(e1.arg, 2);
	CHECK_EQ(e2.arg, 3);
	sim_heap_free(&h);
}

int main(void)
{
	RUN(test_order_and_ties);
	RUN(test_pop_push_and_determinism);
	RUN(test_clear_keeps_fifo);
	return check_summary();
}
