/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/engine/overload.h — the dynamic-shRing overload rule (docs/interfaces.md §4.3,
 * rxb_dynctl_core_overloaded) over a core's receive-call intervals kept as a
 * histogram.
 *
 * Why a histogram: a core that keeps receiving makes a call every batch,
 * tens of thousands of calls per 10 ms sample at small batches, and the
 * sample period has no upper bound; a log-linear histogram (values within
 * 0.4 %) holds any number of intervals in fixed memory. (Which intervals are
 * recorded — not a sleeping core's idle time — is record_interval's rule,
 * sim/engine/measure.c.) The rule is then evaluated on the bucket values:
 * with few intervals by expanding them into an array and calling the
 * library's rxb_dynctl_core_overloaded(), with many by the same arithmetic
 * on (value, count) pairs (population standard deviation, median with the
 * even-count mean of the two middle values, median taken as at least 1).
 * test_sim_overload checks that both give the same answers.
 */
#ifndef SIM_OVERLOAD_H
#define SIM_OVERLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "hist.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The value a bucket stands for (its midpoint, rounded down). */
static inline uint64_t sim_hist_bucket_value(uint32_t i)
{
	return rxb_hist_bucket_low(i) + (rxb_hist_bucket_width(i) - 1) / 2;
}

/* 1 overloaded, 0 not, -EINVAL for a bad ratio. Expands into scratch
 * (scratch_cap values) and calls the library when h->n <= scratch_cap. */
int sim_overloaded(const struct rxb_hist *h, double ratio, uint64_t *scratch, size_t scratch_cap);
/* The weighted evaluation alone (tests). */
int sim_overloaded_weighted(const struct rxb_hist *h, double ratio);

#ifdef __cplusplus
}
#endif
#endif /* SIM_OVERLOAD_H */
