/* SPDX-License-Identifier: BSD-3-Clause
 * The overload rule over a histogram (sim/engine/overload.h) gives the same answer
 * as the library's rxb_dynctl_core_overloaded() on the expanded intervals,
 * on random interval mixes (idle polls, batches, stalls) and on the edge
 * cases (n < 2, median 0, a single stall among many polls). */
#include <errno.h>
#include <stdlib.h>

#include "check.h"
#include "overload.h"
#include "rng.h"
#include "rxb/dynctl.h"

#define CAP 20000

static uint64_t arr[CAP];

static int expanded(const struct rxb_hist *h, double ratio)
{
	size_t n = 0;

	for (uint32_t i = 0; i < RXB_HIST_BUCKETS; i++)
		for (uint64_t k = 0; k < h->b[i]; k++)
			arr[n++] = sim_hist_bucket_value(i);
	return rxb_dynctl_core_overloaded(arr, n, ratio);
}

static void test_random_mixes(void)
{
	static struct rxb_hist h;
	struct sim_rng r;
	int mism = 0, over = 0, trials = 400;

	sim_rng_seed(&r, 3, 9);
	for (int t = 0; t < trials; t++) {
		uint64_t n = 2 + sim_rng_below(&r, CAP - 2);
		double p_stall = sim_rng_uniform(&r) * 0.002, p_batch = sim_rng_uniform(&r) * 0.3;

		rxb_hist_reset(&h);
		for (uint64_t i = 0; i < n; i++) {
			double u = sim_rng_uniform(&r);
			uint64_t v = u < p_stall             ? 100000 + sim_rng_below(&r, 5000000)
				     : u < p_stall + p_batch ? 2000 + sim_rng_below(&r, 8000)
							     : 9 + sim_rng_below(&r, 3);

			rxb_hist_add(&h, v);
		}
		int a = sim_overloaded_weighted(&h, 32.0), b = expanded(&h, 32.0);

		mism += a != b;
		over += a;
	}
	CHECK(mism == 0);
	CHECK(over > 0 && over < trials); /* both answers occur */
}

static void test_edges(void)
{
	static struct rxb_hist h;
	static uint64_t scratch[4096];

	rxb_hist_reset(&h);
	CHECK(sim_overloaded(&h, 32.0, scratch, 256) == 0); /* no interval */
	rxb_hist_add(&h, 1000000);
	CHECK(sim_overloaded(&h, 32.0, scratch, 256) == 0); /* one interval */
	rxb_hist_reset(&h);
	rxb_hist_add_n(&h, 0, 99); /* median 0 → taken as 1 */
	rxb_hist_add(&h, 1000);
	CHECK(sim_overloaded(&h, 32.0, scratch, 256) == 1);
	CHECK(sim_overloaded_weighted(&h, 32.0) == 1);
	rxb_hist_reset(&h);
	rxb_hist_add_n(&h, 10, 100000);                     /* 100 000 idle polls ... */
	rxb_hist_add(&h, 2000000);                          /* ... and one 2 ms stall */
	CHECK(sim_overloaded(&h, 32.0, scratch, 256) == 1); /* weighted path */
	rxb_hist_reset(&h);
	rxb_hist_add_n(&h, 10, 100);                         /* a busy core: polls */
	rxb_hist_add_n(&h, 3000, 100);                       /* between batches */
	CHECK(sim_overloaded(&h, 32.0, scratch, 2000) == 0); /* library path */
	CHECK(sim_overloaded(&h, -1.0, scratch, 2000) == -EINVAL);
}

int main(void)
{
	RUN(test_random_mixes);
	RUN(test_edges);
	return check_summary();
}
