/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/engine/hist.h — log-linear histogram of non-negative integers (latencies in
 * picoseconds, waits), as HdrHistogram lays it out: values below 2^SUB go
 * to exact buckets; above, each power of two [2^e, 2^(e+1)) is cut into
 * 2^SUB equal sub-buckets. With SUB = 7 a bucket is at most 1/128 of its
 * value wide, so a percentile read at the bucket's midpoint is within
 * 0.4 % of the exact order statistic. The mean is exact (a running sum).
 * Fixed size (57 × 128 buckets of 8 B = 58 KiB), no allocation after init.
 */
#ifndef SIM_HIST_H
#define SIM_HIST_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SIM_HIST_SUB 7u
#define SIM_HIST_BUCKETS ((64u - SIM_HIST_SUB + 1u) << SIM_HIST_SUB)

struct sim_hist {
	uint64_t n;
	double sum;
	uint64_t max;
	uint64_t b[SIM_HIST_BUCKETS];
};

static inline uint32_t sim_hist_bucket(uint64_t v)
{
	uint32_t e;

	if (v < (1ull << SIM_HIST_SUB))
		return (uint32_t)v;
	e = 63u - (uint32_t)__builtin_clzll(v); /* 2^e <= v < 2^(e+1), e >= SUB */
	return ((e - SIM_HIST_SUB + 1u) << SIM_HIST_SUB) |
	       (uint32_t)((v >> (e - SIM_HIST_SUB)) & ((1u << SIM_HIST_SUB) - 1));
}

static inline void sim_hist_add_n(struct sim_hist *h, uint64_t v, uint64_t n)
{
	h->n += n;
	h->sum += (double)v * (double)n;
	if (v > h->max)
		h->max = v;
	h->b[sim_hist_bucket(v)] += n;
}

static inline void sim_hist_add(struct sim_hist *h, uint64_t v)
{
	sim_hist_add_n(h, v, 1);
}

void sim_hist_reset(struct sim_hist *h);
/* Lowest value of bucket i and its width. */
uint64_t sim_hist_bucket_low(uint32_t i);
uint64_t sim_hist_bucket_width(uint32_t i);
/* The q-quantile (0 <= q <= 1): the midpoint of the bucket holding the
 * ceil(q·n)-th smallest value (at least the smallest; at most max). 0 when
 * empty. */
double sim_hist_quantile(const struct sim_hist *h, double q);
double sim_hist_mean(const struct sim_hist *h);
void sim_hist_merge(struct sim_hist *into, const struct sim_hist *from);

#ifdef __cplusplus
}
#endif
#endif /* SIM_HIST_H */
