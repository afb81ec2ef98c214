/* SPDX-License-Identifier: BSD-3-Clause
 * The shared latency histogram (hist.h): exact small values, bucket
 * boundaries, quantiles within the header's bound (exact / 2^(SUB + 1)) of
 * the exact order statistic on known distributions, exact mean, merge. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "hist.h"
#include "rng.h"

#define NV 100000

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_buckets(void)
{
	/* every value lies in [low, low + width) of its bucket */
	for (uint64_t v = 0; v < 5000000; v += 1 + v / 50) {
		uint32_t b = rxb_hist_bucket(v);

		CHECK(b < RXB_HIST_BUCKETS);
		CHECK(rxb_hist_bucket_low(b) <= v &&
		      v < rxb_hist_bucket_low(b) + rxb_hist_bucket_width(b));
	}
	CHECK(rxb_hist_bucket(UINT64_MAX) < RXB_HIST_BUCKETS);
	for (uint64_t v = 0; v < (1u << RXB_HIST_SUB); v++)
		CHECK(rxb_hist_bucket_width(rxb_hist_bucket(v)) == 1);
}

enum dist { LOGNORMAL, EXPONENTIAL, PARETO, UNIFORM_SMALL };

static uint64_t draw(struct sim_rng *r, enum dist d)
{
	switch (d) {
	case LOGNORMAL:
		return (uint64_t)sim_rng_lognormal(r, 13.0, 1.5); /* ~µs in ps, heavy tail */
	case EXPONENTIAL:
		return (uint64_t)sim_rng_exp(r, 2500.0); /* cycles of a queue wait */
	case PARETO:
		return (uint64_t)sim_rng_pareto(r, 1.2, 1e6);
	default:
		return sim_rng_below(r, 100); /* below 2^SUB: exact buckets */
	}
}

/* Every percentile of NV draws of d within the header's bound. */
static void check_dist(enum dist d)
{
	static struct rxb_hist h;
	static uint64_t v[NV];
	const double bound = 1.0 / (double)(2u << RXB_HIST_SUB);
	struct sim_rng r;
	double sum = 0;

	sim_rng_seed(&r, 7, 1 + d);
	rxb_hist_reset(&h);
	for (int i = 0; i < NV; i++) {
		v[i] = draw(&r, d);
		rxb_hist_add(&h, v[i]);
		sum += (double)v[i];
	}
	qsort(v, NV, sizeof(v[0]), cmp_u64);
	CHECK(fabs(rxb_hist_mean(&h) - sum / NV) <= 1e-9 * sum / NV);
	for (int pc = 1; pc <= 1000; pc++) {
		double q = pc / 1000.0, exact = (double)v[(size_t)ceil(q * NV) - 1];
		double got = rxb_hist_quantile(&h, q);

		CHECK(fabs(got - exact) <= exact * bound);
		if (d == UNIFORM_SMALL)
			CHECK(got == exact);
	}
	CHECK(h.max == v[NV - 1]);
	CHECK(rxb_hist_quantile(&h, 1.0) <= (double)h.max);
}

static void test_quantiles(void)
{
	check_dist(LOGNORMAL);
	check_dist(EXPONENTIAL);
	check_dist(PARETO);
	check_dist(UNIFORM_SMALL);
}

static void test_merge_and_empty(void)
{
	static struct rxb_hist a, b;

	rxb_hist_reset(&a);
	rxb_hist_reset(&b);
	CHECK(rxb_hist_quantile(&a, 0.5) == 0.0);
	CHECK(rxb_hist_mean(&a) == 0.0);
	rxb_hist_add_n(&a, 10, 3);
	rxb_hist_add(&b, 1000);
	rxb_hist_merge(&a, &b);
	CHECK(a.n == 4);
	CHECK(a.max == 1000);
	CHECK(rxb_hist_quantile(&a, 0.75) == 10.0);
	CHECK(fabs(rxb_hist_quantile(&a, 1.0) - 1000) <= 1000 / 256.0);
}

int main(void)
{
	RUN(test_buckets);
	RUN(test_quantiles);
	RUN(test_merge_and_empty);
	return check_summary();
}
