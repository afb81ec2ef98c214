/* SPDX-License-Identifier: BSD-3-Clause
 * Log-linear histogram: see hist.h. */
#include <math.h>
#include <string.h>

#include "hist.h"

void sim_hist_reset(struct sim_hist *h)
{
	memset(h, 0, sizeof(*h));
}

uint64_t sim_hist_bucket_low(uint32_t i)
{
	uint32_t e = i >> SIM_HIST_SUB, m = i & ((1u << SIM_HIST_SUB) - 1);

	if (e == 0)
		return m;
	e += SIM_HIST_SUB - 1; /* the power of two of this bucket */
	return (1ull << e) | ((uint64_t)m << (e - SIM_HIST_SUB));
}

uint64_t sim_hist_bucket_width(uint32_t i)
{
	uint32_t e = i >> SIM_HIST_SUB;

	return e == 0 ? 1 : 1ull << (e - 1);
}

double sim_hist_quantile(const struct sim_hist *h, double q)
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
	for (uint32_t i = 0; i < SIM_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank) {
			double mid = (double)sim_hist_bucket_low(i) +
				     (double)(sim_hist_bucket_width(i) - 1) / 2.0;

			return mid > (double)h->max ? (double)h->max : mid;
		}
	}
	return (double)h->max;
}

double sim_hist_mean(const struct sim_hist *h)
{
	return h->n ? h->sum / (double)h->n : 0.0;
}

void sim_hist_merge(struct sim_hist *into, const struct sim_hist *from)
{
	into->n += from->n;
	into->sum += from->sum;
	if (from->max > into->max)
		into->max = from->max;
	for (uint32_t i = 0; i < SIM_HIST_BUCKETS; i++)
		into->b[i] += from->b[i];
}
