/* SPDX-License-Identifier: BSD-3-Clause
 * The engine's event queue (winner tree over one slot per source) against
 * sim_heap with lazy cancellation, the order it replaced: the same events
 * pop in the same order — time order, schedule order among equal times —
 * under random schedules, reschedules and removals; "the earliest event
 * but the top one" is the second smallest; errors. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "evq.h"
#include "heap.h"
#include "rng.h"

/* Random operations on both queues; the heap cancels lazily (an event is
 * live when its data equals the slot's current generation). */
static void run_against_heap(uint32_t nslots, uint64_t trange, uint64_t seed)
{
	struct sim_evq q;
	struct sim_heap h;
	struct sim_rng r;
	struct sim_event e;
	uint64_t *gen = calloc(nslots, sizeof(*gen));
	uint8_t *live = calloc(nslots, 1);
	uint64_t *cur = calloc(nslots, sizeof(*cur)); /* each live slot's time */
	uint64_t now = 0, pops = 0;

	CHECK_EQ(sim_evq_init(&q, nslots, NULL), 0);
	CHECK_EQ(sim_heap_init(&h, 16, NULL), 0);
	sim_rng_seed(&r, seed, nslots);
	for (uint32_t s = 0; s < nslots; s++) {
		uint64_t t = sim_rng_below(&r, trange);

		sim_evq_set(&q, s, t);
		CHECK_EQ(sim_heap_push(&h, t, 0, s, ++gen[s]), 0);
		live[s] = 1;
		cur[s] = t;
	}
	for (uint32_t step = 0; step < 200000; step++) {
		int32_t top = sim_evq_top(&q);
		uint64_t second = UINT64_MAX;

		/* the heap's earliest live event */
		while (sim_heap_peek(&h) && sim_heap_peek(&h)->data != gen[sim_heap_peek(&h)->arg])
			sim_heap_pop(&h, &e);
		if (top < 0) { /* empty: both agree, then start again */
			uint32_t s = (uint32_t)sim_rng_below(&r, nslots);

			CHECK(sim_heap_peek(&h) == NULL);
			sim_evq_set(&q, s, now);
			CHECK_EQ(sim_heap_push(&h, now, 0, s, ++gen[s]), 0);
			live[s] = 1;
			cur[s] = now;
			continue;
		}
		CHECK(sim_heap_peek(&h) != NULL);
		if (sim_heap_peek(&h) == NULL)
			break;
		CHECK_EQ(top, sim_heap_peek(&h)->arg);
		CHECK_EQ(sim_evq_top_time(&q), sim_heap_peek(&h)->t);
		CHECK(sim_evq_top_time(&q) >= now);
		now = sim_evq_top_time(&q);
		for (uint32_t s = 0; s < nslots; s++) /* brute-force second smallest */
			if (live[s] && s != (uint32_t)top && cur[s] < second)
				second = cur[s];
		CHECK_EQ(sim_evq_next_other(&q), second);
		pops++;
		/* handle the top: reschedule it (now or later), remove it, and
		 * touch another slot */
		switch (sim_rng_below(&r, 4)) {
		case 0:
			sim_evq_clear(&q, (uint32_t)top);
			gen[top]++;
			live[top] = 0;
			break;
		default: {
			uint64_t t = now + sim_rng_below(&r, trange);

			sim_evq_set(&q, (uint32_t)top, t);
			CHECK_EQ(sim_heap_push(&h, t, 0, (uint32_t)top, ++gen[top]), 0);
			cur[top] = t;
		}
		}
		if (sim_rng_below(&r, 2)) {
			uint32_t s = (uint32_t)sim_rng_below(&r, nslots);
			uint64_t t = now + sim_rng_below(&r, trange);

			sim_evq_set(&q, s, t);
			CHECK_EQ(sim_heap_push(&h, t, 0, s, ++gen[s]), 0);
			live[s] = 1;
			cur[s] = t;
		}
	}
	CHECK(pops > 1000);
	sim_evq_free(&q);
	sim_heap_free(&h);
	free(gen);
	free(live);
	free(cur);
}

static void test_same_order_as_heap(void)
{
	run_against_heap(26, 1000, 1); /* the reference engine's slot count */
	run_against_heap(3, 4, 2);     /* many ties */
	run_against_heap(64, 1, 3);    /* every event at the same time: FIFO only */
	run_against_heap(1, 100, 4);
	run_against_heap(100, 1ull << 40, 5);
}

static void test_empty_and_errors(void)
{
	struct sim_evq q;
	struct rxb_err err = { 0 };

	CHECK_EQ(sim_evq_init(&q, 5, NULL), 0);
	CHECK_EQ(sim_evq_top(&q), -1);
	sim_evq_set(&q, 4, 7);
	CHECK_EQ(sim_evq_top(&q), 4);
	CHECK_EQ(sim_evq_next_other(&q), UINT64_MAX);
	sim_evq_set(&q, 2, 7); /* same time, scheduled later */
	CHECK_EQ(sim_evq_top(&q), 4);
	CHECK_EQ(sim_evq_next_other(&q), 7);
	sim_evq_set(&q, 4, 7); /* rescheduled: now after slot 2 */
	CHECK_EQ(sim_evq_top(&q), 2);
	sim_evq_clear(&q, 2);
	sim_evq_clear(&q, 4);
	CHECK_EQ(sim_evq_top(&q), -1);
	CHECK_EQ(sim_evq_scheduled(&q), 3);
	sim_evq_free(&q);
	CHECK(sim_evq_init(&q, 0, &err) < 0);
	CHECK(strstr(err.msg, "slots") != NULL);
}

int main(void)
{
	RUN(test_same_order_as_heap);
	RUN(test_empty_and_errors);
	return check_summary();
}
