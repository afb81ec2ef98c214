/* SPDX-License-Identifier: BSD-3-Clause
 *
 * util/hist.h — the latency histogram of both engines: the simulator's
 * latencies in picoseconds and poll intervals in nanoseconds, the
 * emulator's latencies in TSC cycles. One layout, so a p99 means the same
 * precision whichever engine reports it.
 *
 * Log-linear, as HdrHistogram lays it out: values below 2^RXB_HIST_SUB go
 * to exact buckets; above, each power of two [2^e, 2^(e+1)) is cut into
 * 2^RXB_HIST_SUB equal sub-buckets, so a bucket is at most 1/2^RXB_HIST_SUB
 * of its values wide.
 *
 * Error bound: a quantile is read at its bucket's midpoint, so it is within
 * exact / 2^(RXB_HIST_SUB + 1) = exact / 256 (0.39 %) of the exact order
 * statistic `exact`, and exact below 2^RXB_HIST_SUB. The mean is exact (a
 * running sum), and so is the maximum.
 *
 * Fixed size (57 x 128 buckets of 8 B = 58 KiB), no allocation. Not
 * thread-safe: one histogram per thread, merged by whoever reads them.
 */
#ifndef RXB_UTIL_HIST_H
#define RXB_UTIL_HIST_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RXB_HIST_SUB     7u
#define RXB_HIST_BUCKETS ((64u - RXB_HIST_SUB + 1u) << RXB_HIST_SUB)

struct rxb_hist {
	uint64_t n;
	double sum;
	uint64_t max;
	uint64_t b[RXB_HIST_BUCKETS];
};

static inline uint32_t rxb_hist_bucket(uint64_t v)
{
	uint32_t e;

	if (v < (1ull << RXB_HIST_SUB))
		return (uint32_t)v;
	e = 63u - (uint32_t)__builtin_clzll(v); /* 2^e <= v < 2^(e+1), e >= SUB */
	return ((e - RXB_HIST_SUB + 1u) << RXB_HIST_SUB) |
	       (uint32_t)((v >> (e - RXB_HIST_SUB)) & ((1u << RXB_HIST_SUB) - 1));
}

/* Record value v n times. */
static inline void rxb_hist_add_n(struct rxb_hist *h, uint64_t v, uint64_t n)
{
	h->n += n;
	h->sum += (double)v * (double)n;
	if (v > h->max)
		h->max = v;
	h->b[rxb_hist_bucket(v)] += n;
}

static inline void rxb_hist_add(struct rxb_hist *h, uint64_t v)
{
	rxb_hist_add_n(h, v, 1);
}

void rxb_hist_reset(struct rxb_hist *h);
/* Lowest value of bucket i and its width. */
uint64_t rxb_hist_bucket_low(uint32_t i);
uint64_t rxb_hist_bucket_width(uint32_t i);
/* The q-quantile (0 <= q <= 1): the midpoint of the bucket holding the
 * ceil(q·n)-th smallest value (at least the smallest; at most max). 0 when
 * empty. */
double rxb_hist_quantile(const struct rxb_hist *h, double q);
double rxb_hist_mean(const struct rxb_hist *h);
void rxb_hist_merge(struct rxb_hist *into, const struct rxb_hist *from);

#ifdef __cplusplus
}
#endif
#endif /* RXB_UTIL_HIST_H */
