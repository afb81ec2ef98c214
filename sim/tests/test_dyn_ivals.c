/* SPDX-License-Identifier: BSD-3-Clause
 * The receive-call intervals the simulator gives the dynamic-shRing overload
 * rule (record_interval, sim/engine/measure.c): a core that keeps up, polling busy
 * batches between sleeps, is not overloaded however long it sleeps; a core
 * that stops polling while it has work is. Each call below does the
 * bookkeeping of a receive call in sim/engine/core.c's poll(). */
#include <stdlib.h>

#include "check.h"
#include "core.h"
#include "measure.h"
#include "overload.h"
#include "rxb/dynctl.h"

#define NS 1000ull /* ps */

static uint64_t scratch[4096];

/* Core k's receive call at t; an empty one puts the core to sleep. */
static void receive_call(struct core *k, uint64_t t, bool empty)
{
	record_interval(k, t);
	k->last_poll = t;
	k->sleeping_since_poll = empty;
}

static int overloaded(const struct core *k)
{
	return sim_overloaded(k->ivals, RXB_DYNCTL_DEFAULT_OVERLOAD_RATIO, scratch, 4096);
}

static struct sim *new_sim(struct core *k)
{
	struct sim *s = calloc(1, sizeof(*s));

	s->c.empty_poll = 9 * NS; /* the reference profile's 20 cycles */
	k->ivals = calloc(1, sizeof(*k->ivals));
	k->sleeping_since_poll = true; /* cores start asleep (core_setup) */
	return s;
}

/* 200 wake-ups a period, each a batch of 1..4 packets of 1 us and an empty
 * call, then 20 us asleep: the sleeps are no intervals, and the batches'
 * spread is far below 32 x their median. With the sleep counted as
 * empty-poll-long intervals the median was 9 ns and this core overloaded. */
static void test_idle_time_is_no_interval(void)
{
	struct core k = { 0 };
	struct sim *s = new_sim(&k);
	uint64_t t = 0;

	for (unsigned i = 0; i < 200; i++) {
		receive_call(&k, t, false); /* woken by a delivery */
		t += (1 + i % 4) * 1000 * NS;
		receive_call(&k, t, true);
		t += 20000 * NS;
	}
	CHECK_EQ(k.ivals->n, 200); /* one per empty call: wake-up to it */
	CHECK_EQ(overloaded(&k), 0);
	free(k.ivals);
	free(s);
}

/* The same core, busy, then 2 ms without a receive call while it has work:
 * one long interval among microsecond ones. */
static void test_a_stall_is_overload(void)
{
	struct core k = { 0 };
	struct sim *s = new_sim(&k);
	uint64_t t = 0;

	for (unsigned i = 0; i < 200; i++) {
		receive_call(&k, t, false);
		t += (1 + i % 4) * 1000 * NS;
	}
	CHECK_EQ(overloaded(&k), 0);
	receive_call(&k, t + 2000000 * NS, false);
	CHECK_EQ(overloaded(&k), 1);
	free(k.ivals);
	free(s);
}

int main(void)
{
	RUN(test_idle_time_is_no_interval);
	RUN(test_a_stall_is_overload);
	return check_summary();
}
