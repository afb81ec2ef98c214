/* SPDX-License-Identifier: BSD-3-Clause
 * PRNG: determinism, independence of streams, uniform / bounded /
 * exponential moments, Zipf frequencies against the exact distribution. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "check.h"
#include "rng.h"

static void test_determinism(void)
{
	struct sim_rng a, b, c;
	int same = 1, diff = 0;

	sim_rng_seed(&a, 123, 7);
	sim_rng_seed(&b, 123, 7);
	sim_rng_seed(&c, 123, 8);
	for (int i = 0; i < 1000; i++) {
		uint64_t x = sim_rng_next(&a), y = sim_rng_next(&b), z = sim_rng_next(&c);

		same &= x == y;
		diff += x != z;
	}
	CHECK(same);
	CHECK(diff > 990);
	/* Seed 0 is a valid seed (splitmix fills the state). */
	sim_rng_seed(&a, 0, 0);
	CHECK(sim_rng_next(&a) != 0 || sim_rng_next(&a) != 0);
}

static void test_uniform_below_exp(void)
{
	struct sim_rng r;
	enum { N = 2000000 };
	double sum = 0.0, esum = 0.0, e2 = 0.0;
	uint64_t cnt[7] = { 0 };
	int in_range = 1;

	sim_rng_seed(&r, 9, 0);
	for (int i = 0; i < N; i++) {
		double u = sim_rng_uniform(&r), e = sim_rng_exp(&r, 3.0);
		uint64_t k = sim_rng_below(&r, 7);

		in_range &= u >= 0.0 && u < 1.0 && k < 7 && e >= 0.0;
		sum += u;
		esum += e;
		e2 += e * e;
		cnt[k]++;
	}
	CHECK(in_range);
	CHECK(fabs(sum / N - 0.5) < 0.001);
	CHECK(fabs(esum / N - 3.0) < 0.01 * 3.0);
	/* Exponential: variance = mean^2. */
	CHECK(fabs((e2 / N - (esum / N) * (esum / N)) / 9.0 - 1.0) < 0.02);
	for (int k = 0; k < 7; k++)
		CHECK(fabs((double)cnt[k] / N - 1.0 / 7) < 0.002);
	CHECK_EQ(sim_rng_below(&r, 1), 0);
	CHECK_EQ(sim_rng_below(&r, 0), 0);
	/* A bound just above 2^63: half the 64-bit values are rejected, the
	 * result must still be in range. */
	for (int i = 0; i < 1000; i++)
		CHECK(sim_rng_below(&r, (1ull << 63) + 1) <= (1ull << 63));
}

static void zipf_case(uint64_t n, double s, int draws)
{
	struct sim_zipf z;
	struct sim_rng r;
	uint64_t c1 = 0, c2 = 0, c10 = 0, out = 0;
	double p1, p2, p10;

	CHECK_EQ(sim_zipf_init(&z, n, s, NULL), 0);
	sim_rng_seed(&r, 5, (uint64_t)(s * 100));
	for (int i = 0; i < draws; i++) {
		uint64_t k = sim_zipf_draw(&z, &r);

		out += k < 1 || k > n;
		c1 += k == 1;
		c2 += k == 2;
		c10 += k == 10;
	}
	p1 = sim_zipf_pmf(&z, 1);
	p2 = sim_zipf_pmf(&z, 2);
	p10 = sim_zipf_pmf(&z, 10);
	printf("  zipf n=%llu s=%.2f: P(1) %.5f vs %.5f, P(2) %.5f vs %.5f, P(10) %.5f vs %.5f\n",
	       (unsigned long long)n, s, (double)c1 / draws, p1, (double)c2 / draws, p2,
	       (double)c10 / draws, p10);
	CHECK_EQ(out, 0);
	/* Within 5 standard deviations of the binomial count. */
	CHECK(fabs((double)c1 - p1 * draws) < 5 * sqrt(draws * p1 * (1 - p1)) + 1);
	CHECK(fabs((double)c2 - p2 * draws) < 5 * sqrt(draws * p2 * (1 - p2)) + 1);
	CHECK(fabs((double)c10 - p10 * draws) < 5 * sqrt(draws * p10 * (1 - p10)) + 1);
}

static void test_zipf(void)
{
	zipf_case(1000, 0.99, 2000000);
	zipf_case(10000000, 0.99, 2000000);
	zipf_case(100, 1.0, 1000000);
	zipf_case(50, 0.0, 1000000);
	zipf_case(1000, 1.5, 1000000);
}

static void test_zipf_errors(void)
{
	struct sim_zipf z;
	struct rxb_err err;

	CHECK_EQ(sim_zipf_init(&z, 0, 1.0, &err), -EINVAL);
	CHECK(strstr(err.msg, "zipf.n") != NULL);
	CHECK_EQ(sim_zipf_init(&z, 10, -0.5, &err), -EINVAL);
	CHECK(strstr(err.msg, "zipf.s") != NULL);
}

static void test_pareto_lognormal(void)
{
	struct sim_rng r;
	enum { N = 1000000 };
	uint64_t above = 0, below_med = 0;

	sim_rng_seed(&r, 11, 0);
	for (int i = 0; i < N; i++) {
		/* P(X > 10) = (1 / 10)^1.2 = 0.0631 */
		above += sim_rng_pareto(&r, 1.2, 1.0) > 10.0;
		below_med += sim_rng_lognormal(&r, log(1000.0), 1.5) < 1000.0;
	}
	CHECK(fabs((double)above / N - pow(0.1, 1.2)) < 0.002);
	CHECK(fabs((double)below_med / N - 0.5) < 0.002);
}

int main(void)
{
	RUN(test_determinism);
	RUN(test_uniform_below_exp);
	RUN(test_zipf);
	RUN(test_zipf_errors);
	RUN(test_pareto_lognormal);
	return check_summary();
}
