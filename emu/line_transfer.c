/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A cache line bounced between two lcores (line_transfer.h).
 */
#define _GNU_SOURCE /* rte_cpuset_t is a cpu_set_t */
#include "line_transfer.h"

#include <math.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#define ROUND_TRIPS 200000u
#define MAX_MS      100u /* a partner CPU busy with another process would stretch it */
#define STOP        UINT64_MAX

/* The bounced line: the main lcore writes odd values, the partner even
 * ones, and STOP ends the partner. Alone on its line so only the bounce
 * moves it. */
static struct {
	_Atomic uint64_t turn __rte_cache_aligned; /* aligned and padded to a line */
} bounce;
_Static_assert(sizeof(bounce) == RTE_CACHE_LINE_SIZE, "the bounced line is alone on its line");

/* Spin until the line holds v (false: it holds STOP). Without rte_pause():
 * a pause costs as much as a transfer on some CPUs, and would be counted. */
static bool wait_for(uint64_t v)
{
	uint64_t t;

	/* acquire: pairs with the other side's release in hand_over() */
	while ((t = atomic_load_explicit(&bounce.turn, memory_order_acquire)) != v)
		if (t == STOP)
			return false;
	return true;
}

static void hand_over(uint64_t v)
{
	atomic_store_explicit(&bounce.turn, v, memory_order_release);
}

static int partner_main(void *arg)
{
	(void)arg;
	for (uint64_t i = 1; wait_for(i); i += 2)
		hand_over(i + 1);
	return 0;
}

static bool shares_cpu(unsigned a, unsigned b)
{
	rte_cpuset_t ca = rte_lcore_cpuset(a), cb = rte_lcore_cpuset(b), both;

	CPU_AND(&both, &ca, &cb);
	return CPU_COUNT(&both) != 0;
}

unsigned emu_other_cpu_lcore(void)
{
	unsigned main_lc = rte_get_main_lcore(), partner = RTE_MAX_LCORE, lc;

	RTE_LCORE_FOREACH_WORKER(lc)
	if (!shares_cpu(main_lc, lc))
		partner = lc;
	return partner;
}

double emu_line_transfer_cycles(void)
{
	unsigned partner = emu_other_cpu_lcore();
	uint64_t t0, t1, i, deadline;

	if (partner == RTE_MAX_LCORE)
		return NAN;
	atomic_store_explicit(&bounce.turn, 0, memory_order_relaxed);
	if (rte_eal_remote_launch(partner_main, NULL, partner) != 0)
		return NAN;
	t0 = rte_rdtsc();
	deadline = t0 + rte_get_tsc_hz() / 1000 * MAX_MS;
	for (i = 0; i < 2ull * ROUND_TRIPS && rte_rdtsc() < deadline; i += 2) {
		wait_for(i);
		hand_over(i + 1);
	}
	wait_for(i); /* the partner's answer to the last hand-over */
	t1 = rte_rdtsc();
	hand_over(STOP);
	rte_eal_wait_lcore(partner);
	return (double)(t1 - t0) / (double)i;
}
