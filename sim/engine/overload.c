/* SPDX-License-Identifier: BSD-3-Clause
 * The overload rule over a histogram of intervals: see overload.h. */
#include <errno.h>
#include <math.h>

#include "overload.h"
#include "rxb/dynctl.h"

/* The k-th smallest value (1-based) of the histogram. */
static uint64_t kth(const struct rxb_hist *h, uint64_t k)
{
	uint64_t seen = 0;

	for (uint32_t i = 0; i < RXB_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= k)
			return sim_hist_bucket_value(i);
	}
	return 0;
}

int sim_overloaded_weighted(const struct rxb_hist *h, double ratio)
{
	double sum = 0, mean, var = 0, median, bound;
	uint64_t a, b;

	if (!(ratio > 0) || !isfinite(ratio))
		return -EINVAL;
	if (h->n < 2)
		return 0;
	for (uint32_t i = 0; i < RXB_HIST_BUCKETS; i++)
		if (h->b[i])
			sum += (double)sim_hist_bucket_value(i) * (double)h->b[i];
	mean = sum / (double)h->n;
	for (uint32_t i = 0; i < RXB_HIST_BUCKETS; i++) {
		if (h->b[i]) {
			double d = (double)sim_hist_bucket_value(i) - mean;

			var += d * d * (double)h->b[i];
		}
	}
	var /= (double)h->n;
	a = kth(h, (h->n + 1) / 2);
	b = h->n % 2 == 0 ? kth(h, h->n / 2 + 1) : a;
	median = (double)a + ((double)b - (double)a) / 2;
	if (median < 1)
		median = 1;
	bound = ratio * median;
	return var > bound * bound;
}

int sim_overloaded(const struct rxb_hist *h, double ratio, uint64_t *scratch, size_t scratch_cap)
{
	size_t n = 0;

	if (h->n > scratch_cap || scratch == NULL)
		return sim_overloaded_weighted(h, ratio);
	for (uint32_t i = 0; i < RXB_HIST_BUCKETS; i++)
		for (uint64_t k = 0; k < h->b[i]; k++)
			scratch[n++] = sim_hist_bucket_value(i);
	return rxb_dynctl_core_overloaded(scratch, n, ratio);
}
