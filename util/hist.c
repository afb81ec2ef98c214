/* SPDX-License-Identifier: BSD-3-Clause
 * Log-linear histogram: see hist.h (shared by the simulator and the emulator). */
#include <math.h>
#include <string.h>

#include "hist.h"

void rxb_hist_reset(struct rxb_hist *h)
{
	memset(h, 0, sizeof(*h));
}

uint64_t rxb_hist_bucket_low(uint32_t i)
{
	uint32_t e = i >> RXB_HIST_SUB, m = i & ((1u << RXB_HIST_SUB) - 1);

	if (e == 0)
		return m;
	e += RXB_HIST_SUB - 1; /* the power of two of this bucket */
	return (1ull << e) | ((uint64_t)m << (e - RXB_HIST_SUB));
}

uint64_t rxb_hist_bucket_width(uint32_t i)
{
	uint32_t e = i >> RXB_HIST_SUB;

	return e == 0 ? 1 : 1ull << (e - 1);
}

double rxb_hist_quantile(const struct rxb_hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (h->n == 0)
		return 0.0;
	if (q < 0)
		q = 0;
	if (q > 1)
		q = 1;
	rank = (uint64_t)ceil(q * (double)h->n);
	if (rank < 1)
		rank = 1;
	for (uint32_t i = 0; i < RXB_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank) {
			double mid = (double)rxb_hist_bucket_low(i) +
				     (double)(rxb_hist_bucket_width(i) - 1) / 2.0;

			return mid > (double)h->max ? (double)h->max : mid;
		}
	}
	return (double)h->max;
}

double rxb_hist_mean(const struct rxb_hist *h)
{
	return h->n ? h->sum / (double)h->n : 0.0;
}

void rxb_hist_merge(struct rxb_hist *into, const struct rxb_hist *from)
{
	into->n += from->n;
	into->sum += from->sum;
	if (from->max > into->max)
		into->max = from->max;
	for (uint32_t i = 0; i < RXB_HIST_BUCKETS; i++)
		into->b[i] += from->b[i];
}
