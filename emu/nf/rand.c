/* SPDX-License-Identifier: BSD-3-Clause
 * Zipf sampler by rejection-inversion; the helper functions follow the
 * numerically careful formulation of Apache Commons RNG
 * (RejectionInversionZipfSampler), which stays exact near s = 1 where the
 * textbook (x^(1-s) - 1) / (1 - s) divides zero by zero. */
#include <errno.h>
#include <math.h>

#include "rand.h"

/* log1p(x) / x, continuous at 0. */
static double helper1(double x)
{
	if (fabs(x) > 1e-8)
		return log1p(x) / x;
	return 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x));
}

/* expm1(x) / x, continuous at 0. */
static double helper2(double x)
{
	if (fabs(x) > 1e-8)
		return expm1(x) / x;
	return 1 + x * 0.5 * (1 + x * (1.0 / 3) * (1 + 0.25 * x));
}

/* h(x) = x^-s, the (unnormalised) density of the continuous envelope. */
static double zh(const struct rxb_zipf *z, double x)
{
	return exp(-z->s * log(x));
}

/* H(x) = integral of h = (x^(1-s) - 1) / (1 - s), or log(x) when s = 1. */
static double zH(const struct rxb_zipf *z, double x)
{
	double lx = log(x);

	return helper2((1 - z->s) * lx) * lx;
}

static double zH_inv(const struct rxb_zipf *z, double x)
{
	double t = x * (1 - z->s);

	if (t < -1)
		t = -1; /* rounding guard: the true value is never below -1 */
	return exp(helper1(t) * x);
}

int rxb_zipf_init(struct rxb_zipf *z, uint64_t n, double s)
{
	if (n == 0 || !(s >= 0))
		return -EINVAL;
	z->n = n;
	z->s = s;
	z->h_x1 = zH(z, 1.5) - 1;
	z->h_n = zH(z, (double)n + 0.5);
	z->sv = 2 - zH_inv(z, zH(z, 2.5) - zh(z, 2));
	return 0;
}

uint64_t rxb_zipf_sample(const struct rxb_zipf *z, struct rxb_rng *r)
{
	if (z->s == 0)
		return 1 + rxb_rng_below(r, z->n);
	for (;;) {
		double u = z->h_n + rxb_rng_double(r) * (z->h_x1 - z->h_n);
		double x = zH_inv(z, u);
		double kd = floor(x + 0.5);
		uint64_t k;

		if (kd < 1)
			kd = 1;
		else if (kd > (double)z->n)
			kd = (double)z->n;
		k = (uint64_t)kd;
		/* Accept at once inside the squeeze, else test against the
		 * envelope; the expected number of rounds is close to 1. */
		if (kd - x <= z->sv || u >= zH(z, kd + 0.5) - zh(z, kd))
			return k;
	}
}
