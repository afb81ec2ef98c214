/* SPDX-License-Identifier: BSD-3-Clause
 * Log-linear histogram: exact small values, bucket boundaries, quantiles
 * within half a bucket (< 0.4 %) of the exact order statistic, exact mean,
 * merge. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "hist.h"
#include "rng.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_buckets(void)
{
	/* every value lies in [low, low + width) of its bucket */
	for (uint64_t v = 0; v < 5000000; v += 1 + v / 50) {
		uint32_t b = sim_hist_bucket(v);

		CHECK(b < SIM_HIST_BUCKETS);
		CHECK(sim_hist_bucket_low(b) <= v && v < sim_hist_bucket_low(b) + sim_hist_bucket_width(b));
	}
	CHECK(sim_hist_bucket(UINT64_MAX) < SIM_HIST_BUCKETS);
	for (uint64_t v = 0; v < 128; v++)
		CHECK(sim_hist_bucket_width(sim_hist_bucket(v)) == 1);
}

static void test_quantiles(void)
{
	static struct sim_hist h;
	static uint64_t v[100000];
	struct sim_rng r;
	double sum = 0;

	sim_rng_seed(&r, 7, 1);
	sim_hist_reset(&h);
	for (int i = 0; i < 100000; i++) {
		v[i] = (uint64_t)sim_rng_lognormal(&r, 13.0, 1.5); /* ~µs in ps, heavy tail */
		sim_hist_add(&h, v[i]);
		sum += (double)v[i];
	}
	qsort(v, 100000, sizeof(v[0]), cmp_u64);
	CHECK(fabs(sim_hist_mean(&h) - sum / 100000) < 1e-6 * sum / 100000);
	for (double q = 0.01; q < 1.0; q += 0.01) {
		double exact = (double)v[(size_t)ceil(q * 100000) - 1];

		CHECK(fabs(sim_hist_quantile(&h, q) - exact) <= exact / 256 + 1);
	}
	CHECK(sim_hist_quantile(&h, 1.0) <= (double)h.max);
	CHECK(h.max == v[99999]);
}

static void test_merge_and_empty(void)
{
	static struct sim_hist a, b;

	sim_hist_reset(&a);
	sim_hist_reset(&b);
	CHECK(sim_hist_quantile(&a, 0.5) == 0.0);
	CHECK(sim_hist_mean(&a) == 0.0);
	sim_hist_add_n(&a, 10, 3);
	sim_hist_add(&b, 1000);
	sim_hist_merge(&a, &b);
	CHECK(a.n == 4);
	CHECK(a.max == 1000);
	CHECK(sim_hist_quantile(&a, 0.75) == 10.0);
	CHECK(fabs(sim_hist_quantile(&a, 1.0) - 1000) <= 1000 / 256.0 + 1);
}

int main(void)
{
	RUN(test_buckets);
	RUN(test_quantiles);
	RUN(test_merge_and_empty);
	return check_summary();
}
