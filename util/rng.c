/* SPDX-License-Identifier: BSD-3-Clause
 * Zipf sampling by rejection-inversion (see rng.h). The helper functions
 * follow Hörmann & Derflinger's formulation as written in Apache Commons
 * RNG's RejectionInversionZipfSampler, whose series expansions keep the
 * integral of x^−s accurate when s is close to 1.
 */
#include <errno.h>
#include <math.h>

#include "rng.h"

/* log1p(x) / x, accurate near 0. */
static double helper1(double x)
{
	if (fabs(x) > 1e-8)
		return log1p(x) / x;
	return 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
}

/* expm1(x) / x, accurate near 0. */
static double helper2(double x)
{
	if (fabs(x) > 1e-8)
		return expm1(x) / x;
	return 1.0 + x * 0.5 * (1.0 + x * (1.0 / 3.0) * (1.0 + 0.25 * x));
}

/* h(x) = x^−s */
static double zipf_h(double s, double x)
{
	return exp(-s * log(x));
}

/* H(x) = ∫ h = (x^(1−s) − 1) / (1 − s), or log(x) when s = 1. */
static double zipf_hint(double s, double x)
{
	double lx = log(x);

	return helper2((1.0 - s) * lx) * lx;
}

static double zipf_hint_inv(double s, double x)
{
	double t = x * (1.0 - s);

	if (t < -1.0)
		t = -1.0; /* rounding guard: the domain of the inverse ends here */
	return exp(helper1(t) * x);
}

int sim_zipf_init(struct sim_zipf *z, uint64_t n, double s, struct rxb_err *err)
{
	if (n == 0 || n > (1ull << 53)) {
		rxb_err_set(err, "zipf.n = %llu: must be in [1, 2^53]", (unsigned long long)n);
		return -EINVAL;
	}
	if (!(s >= 0.0 && s <= SIM_ZIPF_S_MAX)) {
		rxb_err_set(err, "zipf.s = %g: must be in [0, %g]", s, SIM_ZIPF_S_MAX);
		return -EINVAL;
	}
	z->n = n;
	z->s = s;
	z->h_x1 = zipf_hint(s, 1.5) - 1.0;
	z->h_n = zipf_hint(s, (double)n + 0.5);
	z->accept = 2.0 - zipf_hint_inv(s, zipf_hint(s, 2.5) - zipf_h(s, 2.0));
	return 0;
}

uint64_t sim_zipf_draw(const struct sim_zipf *z, struct sim_rng *r)
{
	if (z->s == 0.0)
		return 1 + sim_rng_below(r, z->n);
	for (;;) {
		/* u is uniform in (H(1.5) − 1, H(n + 0.5)]: inverting H maps it
		 * onto a continuous hat whose area per integer k dominates k^−s. */
		double u = z->h_n + sim_rng_uniform(r) * (z->h_x1 - z->h_n);
		double x = zipf_hint_inv(z->s, u);
		uint64_t k = (uint64_t)(x + 0.5);

		if (k < 1)
			k = 1;
		else if (k > z->n)
			k = z->n;
		/* Squeeze first (no transcendental call), then the exact test. */
		if ((double)k - x <= z->accept ||
		    u >= zipf_hint(z->s, (double)k + 0.5) - zipf_h(z->s, (double)k))
			return k;
	}
}

double sim_zipf_pmf(const struct sim_zipf *z, uint64_t k)
{
	double norm = 0.0;

	if (k < 1 || k > z->n)
		return 0.0;
	/* Sum small terms first for accuracy. */
	for (uint64_t i = z->n; i >= 1; i--)
		norm += pow((double)i, -z->s);
	return pow((double)k, -z->s) / norm;
}
