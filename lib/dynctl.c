/* SPDX-License-Identifier: BSD-3-Clause
 * Dynamic shRing decision logic (docs/interfaces.md §4.3); the rules and the
 * interpretations they rest on are written down in rxb/dynctl.h. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rxb/dynctl.h"

/* Per-sample flags stored in the window ring. */
#define DYN_F_HIGH     0x1u
#define DYN_F_OVERLOAD 0x2u

const char *const rxb_dyn_mode_name[RXB_DYN_MODES] = {
	[RXB_DYN_PRIVATE] = "private",
	[RXB_DYN_SHARED] = "shared",
};

const char *const rxb_dyn_decision_name[RXB_DYN_DECISIONS] = {
	[RXB_DYN_STAY] = "stay",
	[RXB_DYN_TO_SHARED] = "to_shared",
	[RXB_DYN_TO_PRIVATE] = "to_private",
};

struct rxb_dynctl_config rxb_dynctl_config_default(void)
{
	struct rxb_dynctl_config cfg = {
		.tput_gbps_threshold = RXB_DYNCTL_DEFAULT_TPUT_GBPS,
		.mem_bw_gibps_threshold = RXB_DYNCTL_DEFAULT_MEM_BW_GIBPS,
		.window = RXB_DYNCTL_DEFAULT_WINDOW,
		.to_shared_num = 1,
		.to_shared_den = 2,
		.to_private_num = 7,
		.to_private_den = 8,
		.overload_stddev_over_median = RXB_DYNCTL_DEFAULT_OVERLOAD_RATIO,
		.sample_period = RXB_DYNCTL_DEFAULT_PERIOD_NS,
	};
	return cfg;
}

/* Written as !(v > 0) so that NaN fails too. */
static int dyn_check_positive(const char *field, double v, struct rxb_err *err)
{
	if (!(v > 0) || !isfinite(v)) {
		rxb_err_set(err, "dynctl.%s = %g: must be a finite number > 0", field, v);
		return -EINVAL;
	}
	return 0;
}

static int dyn_check_mode(enum rxb_dyn_mode mode, struct rxb_err *err)
{
	if ((unsigned)mode >= RXB_DYN_MODES) {
		rxb_err_set(err, "dynctl.mode = %d: must be %d (private) or %d (shared)", (int)mode,
			    RXB_DYN_PRIVATE, RXB_DYN_SHARED);
		return -EINVAL;
	}
	return 0;
}

int rxb_dynctl_config_validate(const struct rxb_dynctl_config *cfg, struct rxb_err *err)
{
	int rc;

	if (cfg == NULL) {
		rxb_err_set(err, "dynctl: config is NULL");
		return -EINVAL;
	}
	rc = dyn_check_positive("tput_gbps_threshold", cfg->tput_gbps_threshold, err);
	if (rc)
		return rc;
	rc = dyn_check_positive("mem_bw_gibps_threshold", cfg->mem_bw_gibps_threshold, err);
	if (rc)
		return rc;
	rc = dyn_check_positive("overload_stddev_over_median", cfg->overload_stddev_over_median,
				err);
	if (rc)
		return rc;
	if (cfg->window < 1 || cfg->window > RXB_DYNCTL_WINDOW_MAX) {
		rxb_err_set(err, "dynctl.window = %u: must be in [1, %u]", cfg->window,
			    RXB_DYNCTL_WINDOW_MAX);
		return -EINVAL;
	}
	/* Strict "more than": a fraction of 1 could never be exceeded. */
	if (cfg->to_shared_den == 0 || cfg->to_shared_num >= cfg->to_shared_den) {
		rxb_err_set(err,
			    "dynctl.to_shared_num/to_shared_den = %u/%u: must be a fraction in [0, "
			    "1) (the up-switch needs strictly more than it)",
			    cfg->to_shared_num, cfg->to_shared_den);
		return -EINVAL;
	}
	/* "At least": a fraction of 0 would always be met. */
	if (cfg->to_private_den == 0 || cfg->to_private_num == 0 ||
	    cfg->to_private_num > cfg->to_private_den) {
		rxb_err_set(err,
			    "dynctl.to_private_num/to_private_den = %u/%u: must be a fraction in "
			    "(0, 1] (the down-switch needs at least it)",
			    cfg->to_private_num, cfg->to_private_den);
		return -EINVAL;
	}
	if (cfg->sample_period == 0) {
		rxb_err_set(
			err,
			"dynctl.sample_period = 0: must be > 0 (10 ms in the caller's time unit)");
		return -EINVAL;
	}
	return 0;
}

/* Number of intervals <= v. */
static size_t dyn_count_le(const uint64_t *x, size_t n, uint64_t v)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		c += x[i] <= v;
	return c;
}

/* k-th smallest (1-based) of x[0..n) whose values lie in [lo, hi]: the
 * smallest v with count(x <= v) >= k, found by bisection on the values.
 * Trades at most 64 read-only passes for not copying or sorting the
 * caller's array. */
static uint64_t dyn_kth(const uint64_t *x, size_t n, size_t k, uint64_t lo, uint64_t hi)
{
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (dyn_count_le(x, n, mid) >= k)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

int rxb_dynctl_core_overloaded(const uint64_t *intervals, size_t n, double ratio)
{
	uint64_t lo = UINT64_MAX, hi = 0, a, b;
	double sum = 0, mean, var = 0, median, bound;
	size_t i;

	if (!(ratio > 0) || !isfinite(ratio) || (intervals == NULL && n > 0))
		return -EINVAL;
	if (n < 2)
		return 0;

	for (i = 0; i < n; i++) {
		lo = intervals[i] < lo ? intervals[i] : lo;
		hi = intervals[i] > hi ? intervals[i] : hi;
		sum += (double)intervals[i];
	}
	a = dyn_kth(intervals, n, (n + 1) / 2, lo, hi);
	b = a;
	if (n % 2 == 0 && dyn_count_le(intervals, n, a) < n / 2 + 1) {
		/* The upper middle value is the smallest one above a. */
		b = UINT64_MAX;
		for (i = 0; i < n; i++)
			if (intervals[i] > a && intervals[i] < b)
				b = intervals[i];
	}
	median = (double)a + ((double)b - (double)a) / 2;

	/* Two passes (mean, then squared deviations) rather than sum of
	 * squares minus square of sum, which cancels badly when the spread is
	 * small next to the values (TSC intervals of ~1e6 cycles). */
	mean = sum / (double)n;
	for (i = 0; i < n; i++) {
		double d = (double)intervals[i] - mean;

		var += d * d;
	}
	var /= (double)n;

	/* See the header: a median of 0 stands for "under one tick". */
	if (median < 1)
		median = 1;
	/* stddev > ratio * median, squared to avoid sqrt (both sides >= 0). */
	bound = ratio * median;
	return var > bound * bound;
}

static void dyn_clear_window(struct rxb_dynctl *dc)
{
	dc->head = 0;
	dc->fill = 0;
	dc->n_high = 0;
	dc->n_overload = 0;
}

static void dyn_set_reason(struct rxb_dynctl *dc, enum rxb_dyn_reason r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void dyn_set_reason(struct rxb_dynctl *dc, enum rxb_dyn_reason r, const char *fmt, ...)
{
	va_list ap;

	dc->reason = r;
	va_start(ap, fmt);
	vsnprintf(dc->reason_msg, sizeof(dc->reason_msg), fmt, ap);
	va_end(ap);
}

int rxb_dynctl_reset(struct rxb_dynctl *dc, enum rxb_dyn_mode mode)
{
	struct rxb_dynctl_stats *st = &dc->stats;

	if (dyn_check_mode(mode, NULL))
		return -EINVAL;
	dyn_clear_window(dc);
	dc->mode = mode;
	dc->pending = RXB_DYN_STAY;
	dyn_set_reason(dc, RXB_DYN_R_NONE, "no sample yet");
	/* Stores, not memset: a reader may be loading them right now. */
	atomic_store_explicit(&st->samples, 0, memory_order_relaxed);
	atomic_store_explicit(&st->pending_samples, 0, memory_order_relaxed);
	atomic_store_explicit(&st->decided_to_shared, 0, memory_order_relaxed);
	atomic_store_explicit(&st->decided_to_private, 0, memory_order_relaxed);
	atomic_store_explicit(&st->overload_to_private, 0, memory_order_relaxed);
	atomic_store_explicit(&st->switched_to_shared, 0, memory_order_relaxed);
	atomic_store_explicit(&st->switched_to_private, 0, memory_order_relaxed);
	atomic_store_explicit(&st->cancelled, 0, memory_order_relaxed);
	return 0;
}

int rxb_dynctl_init(struct rxb_dynctl *dc, const struct rxb_dynctl_config *cfg,
		    enum rxb_dyn_mode mode, struct rxb_err *err)
{
	struct rxb_dynctl_config def = rxb_dynctl_config_default();
	uint64_t w;
	int rc;

	if (cfg == NULL)
		cfg = &def;
	rc = rxb_dynctl_config_validate(cfg, err);
	if (rc)
		return rc;
	rc = dyn_check_mode(mode, err);
	if (rc)
		return rc;
	memset(dc, 0, sizeof(*dc));
	dc->cfg = *cfg;
	/* Turn the fractions into sample counts once, in integers, so the
	 * per-update test is one comparison and 9/16 vs 8/16 is exact.
	 * high > w*num/den  <=>  high >= floor(w*num/den) + 1;
	 * low >= w*num/den  <=>  low >= ceil(w*num/den).
	 * 64-bit products: w <= 1024 and num < 2^32 cannot overflow. */
	w = cfg->window;
	dc->need_high = (uint32_t)(w * cfg->to_shared_num / cfg->to_shared_den + 1);
	dc->need_low = (uint32_t)((w * cfg->to_private_num + cfg->to_private_den - 1) /
				  cfg->to_private_den);
	return rxb_dynctl_reset(dc, mode);
}

/* Add one sample's flags, evicting the oldest when the window is full. */
static void dyn_push(struct rxb_dynctl *dc, unsigned f)
{
	if (dc->fill == dc->cfg.window) {
		unsigned old = dc->flags[dc->head];

		dc->n_high -= !!(old & DYN_F_HIGH);
		dc->n_overload -= !!(old & DYN_F_OVERLOAD);
	} else {
		dc->fill++;
	}
	dc->flags[dc->head] = (uint8_t)f;
	dc->n_high += !!(f & DYN_F_HIGH);
	dc->n_overload += !!(f & DYN_F_OVERLOAD);
	if (++dc->head == dc->cfg.window)
		dc->head = 0;
}

static enum rxb_dyn_decision dyn_decide(struct rxb_dynctl *dc, enum rxb_dyn_decision d)
{
	dc->pending = d;
	if (d == RXB_DYN_TO_SHARED)
		rxb_counter_add(&dc->stats.decided_to_shared, 1);
	else
		rxb_counter_add(&dc->stats.decided_to_private, 1);
	return d;
}

enum rxb_dyn_decision rxb_dynctl_update(struct rxb_dynctl *dc, const struct rxb_dynctl_sample *s)
{
	const struct rxb_dynctl_config *cfg = &dc->cfg;
	uint32_t w = cfg->window;
	unsigned f = 0;

	rxb_counter_add(&dc->stats.samples, 1);
	if (dc->pending != RXB_DYN_STAY) {
		rxb_counter_add(&dc->stats.pending_samples, 1);
		dyn_set_reason(dc, RXB_DYN_R_PENDING,
			       "switch %s pending: waiting for rxb_dynctl_set_mode()",
			       rxb_dyn_decision_name[dc->pending]);
		return RXB_DYN_STAY;
	}

	/* NaN compares false: the sample is then low (see the header). */
	if (s->tput_gbps > cfg->tput_gbps_threshold &&
	    s->mem_bw_gibps > cfg->mem_bw_gibps_threshold)
		f |= DYN_F_HIGH;
	if (s->overloaded_cores > 0)
		f |= DYN_F_OVERLOAD;
	dyn_push(dc, f);

	if (dc->mode == RXB_DYN_SHARED && (f & DYN_F_OVERLOAD)) {
		/* Safety rule: no waiting for a full window. */
		rxb_counter_add(&dc->stats.overload_to_private, 1);
		dyn_set_reason(dc, RXB_DYN_R_OVERLOAD_NOW,
			       "%u core(s) overloaded in this sample: to private",
			       s->overloaded_cores);
		return dyn_decide(dc, RXB_DYN_TO_PRIVATE);
	}
	if (dc->fill < w) {
		dyn_set_reason(dc, RXB_DYN_R_FILLING, "window %u/%u: no decision until it is full",
			       dc->fill, w);
		return RXB_DYN_STAY;
	}

	if (dc->mode == RXB_DYN_PRIVATE) {
		if (dc->n_overload > 0) {
			dyn_set_reason(dc, RXB_DYN_R_OVERLOAD_SEEN,
				       "%u/%u samples saw an overloaded core: shared blocked",
				       dc->n_overload, w);
			return RXB_DYN_STAY;
		}
		if (dc->n_high >= dc->need_high) {
			dyn_set_reason(
				dc, RXB_DYN_R_HIGH,
				"%u/%u samples above %g Gbps and %g GiB/s (need %u): to shared",
				dc->n_high, w, cfg->tput_gbps_threshold,
				cfg->mem_bw_gibps_threshold, dc->need_high);
			return dyn_decide(dc, RXB_DYN_TO_SHARED);
		}
		dyn_set_reason(dc, RXB_DYN_R_NOT_HIGH,
			       "%u/%u samples above %g Gbps and %g GiB/s (need %u): stay private",
			       dc->n_high, w, cfg->tput_gbps_threshold, cfg->mem_bw_gibps_threshold,
			       dc->need_high);
		return RXB_DYN_STAY;
	}

	if (w - dc->n_high >= dc->need_low) {
		dyn_set_reason(dc, RXB_DYN_R_LOW,
			       "%u/%u samples not above %g Gbps and %g GiB/s (need %u): to private",
			       w - dc->n_high, w, cfg->tput_gbps_threshold,
			       cfg->mem_bw_gibps_threshold, dc->need_low);
		return dyn_decide(dc, RXB_DYN_TO_PRIVATE);
	}
	dyn_set_reason(dc, RXB_DYN_R_NOT_LOW,
		       "%u/%u samples not above %g Gbps and %g GiB/s (need %u): stay shared",
		       w - dc->n_high, w, cfg->tput_gbps_threshold, cfg->mem_bw_gibps_threshold,
		       dc->need_low);
	return RXB_DYN_STAY;
}

int rxb_dynctl_set_mode(struct rxb_dynctl *dc, enum rxb_dyn_mode mode)
{
	if (dyn_check_mode(mode, NULL))
		return -EINVAL;
	if (mode == dc->mode) {
		if (dc->pending != RXB_DYN_STAY) {
			rxb_counter_add(&dc->stats.cancelled, 1);
			dc->pending = RXB_DYN_STAY;
		}
		return 0;
	}
	/* Samples from the old mode say nothing about the new one. */
	dyn_clear_window(dc);
	dc->mode = mode;
	dc->pending = RXB_DYN_STAY;
	dyn_set_reason(dc, RXB_DYN_R_NONE, "switched to %s: window cleared",
		       rxb_dyn_mode_name[mode]);
	if (mode == RXB_DYN_SHARED)
		rxb_counter_add(&dc->stats.switched_to_shared, 1);
	else
		rxb_counter_add(&dc->stats.switched_to_private, 1);
	return 0;
}

enum rxb_dyn_mode rxb_dynctl_mode(const struct rxb_dynctl *dc)
{
	return dc->mode;
}

enum rxb_dyn_decision rxb_dynctl_pending(const struct rxb_dynctl *dc)
{
	return dc->pending;
}

enum rxb_dyn_reason rxb_dynctl_reason_code(const struct rxb_dynctl *dc)
{
	return dc->reason;
}

const char *rxb_dynctl_reason(const struct rxb_dynctl *dc)
{
	return dc->reason_msg;
}

int rxb_dynctl_check(const struct rxb_dynctl *dc, struct rxb_err *err)
{
	uint32_t w = dc->cfg.window, high = 0, ovl = 0, i, slot;

	if (dc->fill > w || dc->head >= w || (dc->fill < w && dc->head != dc->fill)) {
		return rxb_err_fail(err, -RXB_E_INVARIANT,
				    "dynctl: window fill %u head %u inconsistent with window %u",
				    dc->fill, dc->head, w);
	}
	/* The fill samples end just before head. */
	for (i = 0; i < dc->fill; i++) {
		slot = (dc->head + w - 1 - i) % w;
		high += !!(dc->flags[slot] & DYN_F_HIGH);
		ovl += !!(dc->flags[slot] & DYN_F_OVERLOAD);
	}
	if (high != dc->n_high || ovl != dc->n_overload)
		return rxb_err_fail(err, -RXB_E_INVARIANT,
				    "dynctl: running counts high %u overload %u, recount %u %u",
				    dc->n_high, dc->n_overload, high, ovl);
	if (dc->pending != RXB_DYN_STAY &&
	    !(dc->pending == RXB_DYN_TO_SHARED && dc->mode == RXB_DYN_PRIVATE) &&
	    !(dc->pending == RXB_DYN_TO_PRIVATE && dc->mode == RXB_DYN_SHARED)) {
		return rxb_err_fail(err, -RXB_E_INVARIANT,
				    "dynctl: pending %d does not leave mode %s", (int)dc->pending,
				    rxb_dyn_mode_name[dc->mode]);
	}
	return 0;
}
