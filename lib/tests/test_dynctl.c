/* SPDX-License-Identifier: BSD-3-Clause
 * Dynamic shRing controller (docs/interfaces.md §4.3): thresholds, window,
 * overload rules, pending switches, the core-overload helper, config
 * validation, and a randomized comparison of the O(1) running counts with a
 * naive recount over the window. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rxb/dynctl.h"

/* Relative to the reference thresholds 170 Gbps and 25 GiB/s. */
static const struct rxb_dynctl_sample HIGH = { 200.0, 30.0, 0 };
static const struct rxb_dynctl_sample LOW = { 100.0, 10.0, 0 };
/* Each exceeds only one threshold: still low (not above *both*). */
static const struct rxb_dynctl_sample LOW_TPUT_ONLY = { 200.0, 10.0, 0 };
static const struct rxb_dynctl_sample LOW_MEM_ONLY = { 100.0, 30.0, 0 };
/* Exactly at the thresholds: "exceed" is strict, so low. */
static const struct rxb_dynctl_sample AT_THRESHOLD = { 170.0, 25.0, 0 };
static const struct rxb_dynctl_sample HIGH_OVERLOAD = { 200.0, 30.0, 2 };

static void init_ref(struct rxb_dynctl *dc, enum rxb_dyn_mode mode)
{
	struct rxb_err err = { 0 };

	CHECK_EQ(rxb_dynctl_init(dc, NULL, mode, &err), 0);
	CHECK_EQ(rxb_dynctl_mode(dc), mode);
}

/* Feed n copies of s, checking that all but the last answer STAY; returns
 * the last answer. */
static enum rxb_dyn_decision feed(struct rxb_dynctl *dc, const struct rxb_dynctl_sample *s, int n)
{
	enum rxb_dyn_decision d = RXB_DYN_STAY;

	for (int i = 0; i < n; i++) {
		if (d != RXB_DYN_STAY) {
			fprintf(stderr, "  early decision %s at %d/%d: %s\n",
				rxb_dyn_decision_name[d], i, n, rxb_dynctl_reason(dc));
			CHECK(0);
		}
		d = rxb_dynctl_update(dc, s);
	}
	return d;
}

static void test_config(void)
{
	struct rxb_dynctl_config def = rxb_dynctl_config_default(), c;
	struct rxb_dynctl dc;
	struct rxb_err err;

	CHECK(def.tput_gbps_threshold == 170.0);
	CHECK(def.mem_bw_gibps_threshold == 25.0);
	CHECK_EQ(def.window, 16);
	CHECK_EQ(def.to_shared_num * 2, def.to_shared_den);
	CHECK_EQ(def.to_private_num * 8, def.to_private_den * 7);
	CHECK(def.overload_stddev_over_median == 32.0);
	CHECK_EQ(def.sample_period, 10000000);
	CHECK_EQ(rxb_dynctl_config_validate(&def, NULL), 0);

#define BAD(field_assign, name)                                                     \
	do {                                                                        \
		c = def;                                                            \
		field_assign;                                                       \
		strcpy(err.msg, "");                                                \
		CHECK_EQ(rxb_dynctl_config_validate(&c, &err), -EINVAL);            \
		CHECK(strstr(err.msg, name) != NULL);                               \
		CHECK_EQ(rxb_dynctl_init(&dc, &c, RXB_DYN_PRIVATE, NULL), -EINVAL); \
	} while (0)

	BAD(c.window = 0, "dynctl.window = 0");
	BAD(c.window = RXB_DYNCTL_WINDOW_MAX + 1, "dynctl.window = 1025");
	BAD(c.tput_gbps_threshold = 0, "dynctl.tput_gbps_threshold");
	BAD(c.tput_gbps_threshold = -1, "dynctl.tput_gbps_threshold");
	BAD(c.tput_gbps_threshold = NAN, "dynctl.tput_gbps_threshold");
	BAD(c.mem_bw_gibps_threshold = INFINITY, "dynctl.mem_bw_gibps_threshold");
	BAD(c.overload_stddev_over_median = 0, "dynctl.overload_stddev_over_median");
	BAD(c.to_shared_den = 0, "dynctl.to_shared_num/to_shared_den = 1/0");
	BAD(c.to_shared_num = c.to_shared_den, "dynctl.to_shared_num/to_shared_den = 2/2");
	BAD(c.to_private_num = 0, "dynctl.to_private_num/to_private_den = 0/8");
	BAD(c.to_private_num = 9, "dynctl.to_private_num/to_private_den = 9/8");
	BAD(c.to_private_den = 0, "dynctl.to_private_num/to_private_den = 7/0");
	BAD(c.sample_period = 0, "dynctl.sample_period");
#undef BAD
	CHECK(strstr(err.msg, "sample_period") != NULL);

	/* Boundaries that are allowed. */
	c = def;
	c.window = 1;
	c.to_shared_num = 0;
	c.to_private_num = c.to_private_den;
	CHECK_EQ(rxb_dynctl_config_validate(&c, NULL), 0);
	c.window = RXB_DYNCTL_WINDOW_MAX;
	CHECK_EQ(rxb_dynctl_config_validate(&c, NULL), 0);

	strcpy(err.msg, "");
	CHECK_EQ(rxb_dynctl_init(&dc, &def, (enum rxb_dyn_mode)2, &err), -EINVAL);
	CHECK(strstr(err.msg, "dynctl.mode = 2") != NULL);
	CHECK_EQ(rxb_dynctl_init(&dc, &def, RXB_DYN_SHARED, &err), 0);
	CHECK_EQ(rxb_dynctl_set_mode(&dc, (enum rxb_dyn_mode)7), -EINVAL);
	CHECK_EQ(rxb_dynctl_reset(&dc, (enum rxb_dyn_mode)7), -EINVAL);
	CHECK_EQ(rxb_dynctl_mode(&dc), RXB_DYN_SHARED);
}

static void test_names(void)
{
	CHECK(strcmp(rxb_dyn_mode_name[RXB_DYN_PRIVATE], "private") == 0);
	CHECK(strcmp(rxb_dyn_mode_name[RXB_DYN_SHARED], "shared") == 0);
	CHECK(strcmp(rxb_dyn_decision_name[RXB_DYN_STAY], "stay") == 0);
	CHECK(strcmp(rxb_dyn_decision_name[RXB_DYN_TO_SHARED], "to_shared") == 0);
	CHECK(strcmp(rxb_dyn_decision_name[RXB_DYN_TO_PRIVATE], "to_private") == 0);
}

/* No load-level decision before 16 samples, even if all are high. */
static void test_window_not_full(void)
{
	struct rxb_dynctl dc;

	init_ref(&dc, RXB_DYN_PRIVATE);
	CHECK_EQ(rxb_dynctl_reason_code(&dc), RXB_DYN_R_NONE);
	for (int i = 1; i < 16; i++) {
		CHECK_EQ(rxb_dynctl_update(&dc, &HIGH), RXB_DYN_STAY);
		CHECK_EQ(rxb_dynctl_reason_code(&dc), RXB_DYN_R_FILLING);
	}
	CHECK(strcmp(rxb_dynctl_reason(&dc), "window 15/16: no decision until it is full") == 0);
	CHECK_EQ(rxb_dynctl_update(&dc, &HIGH), RXB_DYN_TO_SHARED);

	/* In shared, all low but one short of a full window: still STAY. */
	init_ref(&dc, RXB_DYN_SHARED);
	CHECK_EQ(feed(&dc, &LOW, 15), RXB_DYN_STAY);
	CHECK_EQ(rxb_dynctl_reason_code(&dc), RXB_DYN_R_FILLING);
	CHECK_EQ(rxb_dynctl_update(&dc, &LOW), RXB_DYN_TO_PRIVATE);
}

/* More than half high: 9/16 switches up, 8/16 does not. */
static void test_up_threshold(void)
{
	struct rxb_dynctl dc;

	init_ref(&dc, RXB_DYN_PRIVATE);
	feed(&dc, &LOW, 7);
	CHECK_EQ(feed(&dc, &HIGH, 9), RXB_DYN_TO_SHARED);
	CHECK_EQ(rxb_dynctl_reason_code(&dc), RXB_DYN_R_HIGH);
	CHECK(strcmp(rxb_dynctl_reason(&dc),
		     "9/16 samples above 170 Gbps and 25 GiB/s (need 9): to shared") == 0);
	CHECK_EQ(rxb_dynctl_pending(&dc), RXB_DYN_TO_SHARED);
	CHECK_EQ(rxb_dynctl_mode(&dc), RXB_DYN_PRIVATE);
	CHECK_EQ(rxb_counter_read(&dc.stats.decided_to_shared), 1);

	init_ref(&dc, RXB_DYN_PRIVATE);
	feed(&dc, &LOW, 4);
	feed(&dc, &HIGH, 4);
	feed(&dc, &LOW, 4);
	CHECK_EQ(feed(&dc, &HIGH, 4), RXB_DYN_STAY);
	CHECK_EQ(rxb_dynctl_reason_code(&dc), RXB_DYN_R_NOT_HIGH);
	CHECK(strcmp(rxb_dynctl_reason(&dc),
		     "8/16 samples above 170 Gbps and 25 GiB/s (need 9): stay private") == 0);
	CHECK_EQ(rxb_dynctl_pending(&dc), RXB_DYN_STAY);

	/* Samples above only one threshold, or exactly at both, are not high. */
	init_ref(&dc, RXB_DYN_PRIVATE);
	feed(&dc, &LOW_TPUT_ONLY, 3);
	feed(&dc, &LOW_MEM_ONLY, 3);
	feed(&dc, &AT_THRESHOLD, 2);
	CHECK_EQ(feed(&dc, &HIGH, 8), RXB_DYN_STAY);
	CHECK_EQ(rxb_dynctl_reason_code(&dc), RXB_DYN_R_NOT_HIGH);
	/* A NaN measurement never argues for sharing: it replaces a low
	 * sample and the count stays at 8; a high one then makes 9. */
	struct rxb_dynctl_sample nan_s = { 200.0, NAN, 0 };
	CHECK_EQ(rxb_dynctl_update(&dc, &nan_s), RXB_DYN_STAY);
	nan_s.tput_gbps = NAN;
	nan_s.mem_bw_gibps = 30.0;
	CHECK_EQ(rxb_dynctl_update(&dc, &nan_s), RXB_DYN_STAY);
	CHECK_EQ(rxb_dynctl_reason_code(&dc), RXB_DYN_R_NOT_HIGH);
	CHECK_EQ(rxb_dynctl_update(&dc, &HIGH), RXB_DYN_TO_SHARED);
}

/* At least 7/8 low: 14/16 switches back, 13/16 does not. */
static void test_down_threshold(void)
{
	struct rxb_dynctl dc;

	init_ref(&dc, RXB_DYN_SHARED);
	feed(&dc, &HIGH, 2);
	feed(&dc, &LOW, 5);
	feed(&dc, &LOW_TPUT_ONLY, 5);
	CHECK_EQ(feed(&dc, &LOW_MEM_ONLY, 4), RXB_DYN_TO_PRIVATE);
	CHECK_EQ(rxb_dynctl_reason_code(&dc), RXB_DYN_R_LOW);
	CHECK(strcmp(rxb_dynctl_reason(&dc),
		     "14/16 samples not above 170 Gbps and 25 GiB/s (need 14): to private") == 0);
	CHECK_EQ(rxb_counter_read(&dc.stats.decided_to_private), 1);
	CHECK_EQ(rxb_counter_read(&dc.stats.overload_to_private), 0);

	init_ref(&dc, RXB_DYN_SHARED);
	feed(&dc, &LOW, 7);
	feed(&dc, &HIGH, 3);
	CHECK_EQ(feed(&dc, &LOW, 6), RXB_DYN_STAY);
	CHECK_EQ(rxb_dynctl_reason_code(&dc), RXB_DYN_R_NOT_LOW);
	CHECK(strstr(rxb_dynctl_reason(&dc), "13/16 samples not above") != NULL);
	/* The next low sample pushes out a low one: still 13. Then the
	 * oldest highs leave one by one: 14 at the fourth sample. */
	CHECK_EQ(feed(&dc, &LOW, 7), RXB_DYN_STAY);
	CHECK_EQ(rxb_dynctl_update(&dc, &LOW), RXB_DYN_TO_PRIVATE);
}

static void test_overload(void)
{
	struct rxb_dynctl dc;

	/* Private: an overloaded sample blocks the up-switch for as long as
	 * it is in the window, though every sample is high. */
	init_ref(&dc, RXB_DYN_PRIVATE);
	CHECK_EQ(rxb_dynctl_update(&dc, &HIGH_OVERLOAD), RXB_DYN_STAY);
	CHECK_EQ(feed(&dc, &HIGH, 15), RXB_DYN_STAY);
	CHECK_EQ(rxb_dynctl_reason_code(&dc), RXB_DYN_R_OVERLOAD_SEEN);
	CHECK(strcmp(rxb_dynctl_reason(&dc),
		     "1/16 samples saw an overloaded core: shared blocked") == 0);
	CHECK_EQ(rxb_dynctl_update(&dc, &HIGH), RXB_DYN_TO_SHARED);

	/* Private: overload never forces anything there. */
	init_ref(&dc, RXB_DYN_PRIVATE);
	CHECK_EQ(feed(&dc, &HIGH_OVERLOAD, 40), RXB_DYN_STAY);
	CHECK_EQ(rxb_dynctl_mode(&dc), RXB_DYN_PRIVATE);

	/* Shared: overload in the current sample forces the down-switch at
	 * once, window full or not, even with all samples high. */
	init_ref(&dc, RXB_DYN_SHARED);
	CHECK_EQ(feed(&dc, &HIGH, 3), RXB_DYN_STAY);
	CHECK_EQ(rxb_dynctl_update(&dc, &HIGH_OVERLOAD), RXB_DYN_TO_PRIVATE);
	CHECK_EQ(rxb_dynctl_reason_code(&dc), RXB_DYN_R_OVERLOAD_NOW);
	CHECK(strcmp(rxb_dynctl_reason(&dc), "2 core(s) overloaded in this sample: to private") ==
	      0);
	CHECK_EQ(rxb_counter_read(&dc.stats.overload_to_private), 1);
	CHECK_EQ(rxb_counter_read(&dc.stats.decided_to_private), 1);

	init_ref(&dc, RXB_DYN_SHARED);
	CHECK_EQ(feed(&dc, &HIGH, 100), RXB_DYN_STAY);
	CHECK_EQ(rxb_dynctl_update(&dc, &HIGH_OVERLOAD), RXB_DYN_TO_PRIVATE);
}

static void test_pending(void)
{
	struct rxb_dynctl dc;
	struct rxb_err err = { 0 };

	init_ref(&dc, RXB_DYN_PRIVATE);
	CHECK_EQ(feed(&dc, &HIGH, 16), RXB_DYN_TO_SHARED);
	/* Until the caller confirms, every answer is STAY, whatever comes in,
	 * overload included, and the mode is still the old one. */
	CHECK_EQ(feed(&dc, &HIGH, 20), RXB_DYN_STAY);
	CHECK_EQ(feed(&dc, &HIGH_OVERLOAD, 3), RXB_DYN_STAY);
	CHECK_EQ(rxb_dynctl_reason_code(&dc), RXB_DYN_R_PENDING);
	CHECK(strstr(rxb_dynctl_reason(&dc), "to_shared pending") != NULL);
	CHECK_EQ(rxb_dynctl_mode(&dc), RXB_DYN_PRIVATE);
	CHECK_EQ(rxb_dynctl_pending(&dc), RXB_DYN_TO_SHARED);
	CHECK_EQ(rxb_counter_read(&dc.stats.pending_samples), 23);
	CHECK_EQ(rxb_counter_read(&dc.stats.samples), 39);
	CHECK_EQ(rxb_counter_read(&dc.stats.decided_to_shared), 1);
	CHECK_EQ(rxb_dynctl_check(&dc, &err), 0);

	/* Drain done: confirm. The window starts empty in the new mode. */
	CHECK_EQ(rxb_dynctl_set_mode(&dc, RXB_DYN_SHARED), 0);
	CHECK_EQ(rxb_dynctl_mode(&dc), RXB_DYN_SHARED);
	CHECK_EQ(rxb_dynctl_pending(&dc), RXB_DYN_STAY);
	CHECK_EQ(rxb_counter_read(&dc.stats.switched_to_shared), 1);
	CHECK_EQ(feed(&dc, &LOW, 15), RXB_DYN_STAY);
	CHECK_EQ(rxb_dynctl_reason_code(&dc), RXB_DYN_R_FILLING);
	CHECK_EQ(rxb_dynctl_update(&dc, &LOW), RXB_DYN_TO_PRIVATE);

	/* Cancel: confirming the current mode keeps the window, so the same
	 * decision comes again with the next sample. */
	CHECK_EQ(rxb_dynctl_set_mode(&dc, RXB_DYN_SHARED), 0);
	CHECK_EQ(rxb_counter_read(&dc.stats.cancelled), 1);
	CHECK_EQ(rxb_dynctl_pending(&dc), RXB_DYN_STAY);
	CHECK_EQ(rxb_dynctl_update(&dc, &LOW), RXB_DYN_TO_PRIVATE);
	CHECK_EQ(rxb_dynctl_set_mode(&dc, RXB_DYN_PRIVATE), 0);
	CHECK_EQ(rxb_counter_read(&dc.stats.switched_to_private), 1);
	CHECK_EQ(rxb_counter_read(&dc.stats.decided_to_private), 2);
	/* Setting the current mode with nothing pending changes nothing. */
	CHECK_EQ(rxb_dynctl_set_mode(&dc, RXB_DYN_PRIVATE), 0);
	CHECK_EQ(rxb_counter_read(&dc.stats.cancelled), 1);

	/* A switch the caller makes on its own also clears the window. */
	init_ref(&dc, RXB_DYN_PRIVATE);
	feed(&dc, &HIGH, 10);
	CHECK_EQ(rxb_dynctl_set_mode(&dc, RXB_DYN_SHARED), 0);
	CHECK_EQ(rxb_dynctl_set_mode(&dc, RXB_DYN_PRIVATE), 0);
	CHECK_EQ(feed(&dc, &HIGH, 15), RXB_DYN_STAY);
	CHECK_EQ(rxb_dynctl_reason_code(&dc), RXB_DYN_R_FILLING);
	CHECK_EQ(rxb_dynctl_update(&dc, &HIGH), RXB_DYN_TO_SHARED);

	/* Reset: back to a fresh controller in the given mode. */
	CHECK_EQ(rxb_dynctl_reset(&dc, RXB_DYN_SHARED), 0);
	CHECK_EQ(rxb_dynctl_mode(&dc), RXB_DYN_SHARED);
	CHECK_EQ(rxb_dynctl_pending(&dc), RXB_DYN_STAY);
	CHECK_EQ(rxb_counter_read(&dc.stats.samples), 0);
	CHECK_EQ(rxb_counter_read(&dc.stats.switched_to_shared), 0);
	CHECK_EQ(rxb_dynctl_reason_code(&dc), RXB_DYN_R_NONE);
	CHECK_EQ(feed(&dc, &LOW, 16), RXB_DYN_TO_PRIVATE);
}

/* The window slides: old samples stop counting. */
static void test_sliding_window(void)
{
	struct rxb_dynctl dc;
	struct rxb_err err = { 0 };

	/* A burst of 8 high, then many low: if the burst were remembered, the
	 * first new high would make 9 and switch. It takes 9 new ones. */
	init_ref(&dc, RXB_DYN_PRIVATE);
	feed(&dc, &HIGH, 8);
	CHECK_EQ(feed(&dc, &LOW, 100), RXB_DYN_STAY);
	CHECK_EQ(feed(&dc, &HIGH, 8), RXB_DYN_STAY);
	CHECK_EQ(rxb_dynctl_update(&dc, &HIGH), RXB_DYN_TO_SHARED);
	CHECK_EQ(rxb_dynctl_check(&dc, &err), 0);

	/* In shared, a long high period, then low: the switch comes exactly
	 * with the 14th low sample. */
	init_ref(&dc, RXB_DYN_SHARED);
	CHECK_EQ(feed(&dc, &HIGH, 50), RXB_DYN_STAY);
	CHECK_EQ(rxb_dynctl_reason_code(&dc), RXB_DYN_R_NOT_LOW);
	CHECK_EQ(feed(&dc, &LOW, 13), RXB_DYN_STAY);
	CHECK_EQ(rxb_dynctl_update(&dc, &LOW), RXB_DYN_TO_PRIVATE);
}

/* Other windows and fractions map onto the right sample counts. */
static void test_other_config(void)
{
	struct rxb_dynctl_config c = rxb_dynctl_config_default();
	struct rxb_dynctl dc;

	/* Window 1, "more than 0": every high sample switches. */
	c.window = 1;
	c.to_shared_num = 0;
	c.to_private_num = 1;
	c.to_private_den = 1;
	CHECK_EQ(rxb_dynctl_init(&dc, &c, RXB_DYN_PRIVATE, NULL), 0);
	CHECK_EQ(rxb_dynctl_update(&dc, &LOW), RXB_DYN_STAY);
	CHECK_EQ(rxb_dynctl_update(&dc, &HIGH), RXB_DYN_TO_SHARED);
	CHECK_EQ(rxb_dynctl_set_mode(&dc, RXB_DYN_SHARED), 0);
	CHECK_EQ(rxb_dynctl_update(&dc, &HIGH), RXB_DYN_STAY);
	CHECK_EQ(rxb_dynctl_update(&dc, &LOW), RXB_DYN_TO_PRIVATE);

	/* Window 10, more than 2/3 (7 of 10), at least 3/4 low (8 of 10). */
	c.window = 10;
	c.to_shared_num = 2;
	c.to_shared_den = 3;
	c.to_private_num = 3;
	c.to_private_den = 4;
	CHECK_EQ(rxb_dynctl_init(&dc, &c, RXB_DYN_PRIVATE, NULL), 0);
	CHECK_EQ(dc.need_high, 7);
	CHECK_EQ(dc.need_low, 8);
	feed(&dc, &LOW, 4);
	CHECK_EQ(feed(&dc, &HIGH, 6), RXB_DYN_STAY);
	CHECK_EQ(rxb_dynctl_update(&dc, &HIGH), RXB_DYN_TO_SHARED);
	CHECK_EQ(rxb_dynctl_set_mode(&dc, RXB_DYN_SHARED), 0);
	feed(&dc, &HIGH, 3);
	CHECK_EQ(feed(&dc, &LOW, 7), RXB_DYN_STAY);
	CHECK_EQ(rxb_dynctl_update(&dc, &LOW), RXB_DYN_TO_PRIVATE);

	/* The largest window fills and decides like the small one. */
	c = rxb_dynctl_config_default();
	c.window = RXB_DYNCTL_WINDOW_MAX;
	CHECK_EQ(rxb_dynctl_init(&dc, &c, RXB_DYN_PRIVATE, NULL), 0);
	feed(&dc, &LOW, 511);
	CHECK_EQ(feed(&dc, &HIGH, 512), RXB_DYN_STAY);
	CHECK_EQ(rxb_dynctl_update(&dc, &HIGH), RXB_DYN_TO_SHARED);
}

static void test_core_overloaded_edges(void)
{
	uint64_t one[1] = { 5 }, flat[8], two[2] = { 0, 2 }, four[4] = { 10, 1, 5, 7 };
	uint64_t zeros[100] = { 0 };

	/* Bad arguments. */
	CHECK_EQ(rxb_dynctl_core_overloaded(one, 1, 0), -EINVAL);
	CHECK_EQ(rxb_dynctl_core_overloaded(one, 1, -1), -EINVAL);
	CHECK_EQ(rxb_dynctl_core_overloaded(one, 1, NAN), -EINVAL);
	CHECK_EQ(rxb_dynctl_core_overloaded(one, 1, INFINITY), -EINVAL);
	CHECK_EQ(rxb_dynctl_core_overloaded(NULL, 3, 32), -EINVAL);

	/* Too few intervals: no spread, no overload. */
	CHECK_EQ(rxb_dynctl_core_overloaded(NULL, 0, 32), 0);
	CHECK_EQ(rxb_dynctl_core_overloaded(one, 1, 32), 0);
	CHECK_EQ(rxb_dynctl_core_overloaded(one, 1, 1e-9), 0);

	/* No spread at all. */
	for (int i = 0; i < 8; i++)
		flat[i] = 1000;
	CHECK_EQ(rxb_dynctl_core_overloaded(flat, 8, 1e-9), 0);

	/* The comparison is strict: {0, 2} has median 1 and stddev exactly 1. */
	CHECK_EQ(rxb_dynctl_core_overloaded(two, 2, 1.0), 0);
	CHECK_EQ(rxb_dynctl_core_overloaded(two, 2, 0.99), 1);

	/* Even count, unsorted: median (5 + 7) / 2 = 6, stddev 3.269, so the
	 * ratio is 0.5449. A median of 5 or 7 would flip one of these. */
	CHECK_EQ(rxb_dynctl_core_overloaded(four, 4, 0.54), 1);
	CHECK_EQ(rxb_dynctl_core_overloaded(four, 4, 0.55), 0);
	/* Odd count: median 5 of {10, 1, 5}: stddev 3.68, ratio 0.736. */
	CHECK_EQ(rxb_dynctl_core_overloaded(four, 3, 0.73), 1);
	CHECK_EQ(rxb_dynctl_core_overloaded(four, 3, 0.74), 0);

	/* Median 0 counts as one tick: granularity noise is not overload... */
	zeros[99] = 1;
	CHECK_EQ(rxb_dynctl_core_overloaded(zeros, 100, 32), 0);
	/* ...a real stall is (stddev 99.5 > 32 x 1)... */
	zeros[99] = 1000;
	CHECK_EQ(rxb_dynctl_core_overloaded(zeros, 100, 32), 1);
	/* ...and a small one is not (stddev 9.95 < 32). */
	zeros[99] = 100;
	CHECK_EQ(rxb_dynctl_core_overloaded(zeros, 100, 32), 0);

	/* Extreme values do not overflow the arithmetic. */
	uint64_t big[3] = { UINT64_MAX, UINT64_MAX, UINT64_MAX - 1 };
	CHECK_EQ(rxb_dynctl_core_overloaded(big, 3, 32), 0);
	uint64_t wide[4] = { 0, 0, 0, UINT64_MAX };
	CHECK_EQ(rxb_dynctl_core_overloaded(wide, 4, 32), 1);
}

/* Regular polling with stalls, TSC-like values (~1e6 cycles, jitter 1%). */
static void test_core_overloaded_real(void)
{
	static uint64_t x[1000];
	int i;

	for (i = 0; i < 1000; i++)
		x[i] = 1000000 + (uint64_t)(i * 7919 % 20001) - 10000;
	CHECK_EQ(rxb_dynctl_core_overloaded(x, 1000, 32), 0);
	/* Jitter alone is far from the rule, even at a ratio of 0.01. */
	CHECK_EQ(rxb_dynctl_core_overloaded(x, 1000, 0.01), 0);

	/* A few 100x stalls: stddev ~7 x median. The reference rule wants far
	 * more spread than that, so this core is *not* overloaded... */
	for (i = 0; i < 5; i++)
		x[i * 200 + 3] = 100000000;
	CHECK_EQ(rxb_dynctl_core_overloaded(x, 1000, 32), 0);
	CHECK_EQ(rxb_dynctl_core_overloaded(x, 1000, 6.5), 1);
	/* ...a few 10000x stalls are (stddev ~700 x median)... */
	for (i = 0; i < 5; i++)
		x[i * 200 + 3] = 10000000000ull;
	CHECK_EQ(rxb_dynctl_core_overloaded(x, 1000, 32), 1);
	/* ...and so is one in five calls stalling 100x (stddev ~40 x median). */
	for (i = 0; i < 1000; i++)
		x[i] = 1000000 + (uint64_t)(i * 7919 % 20001) - 10000;
	for (i = 0; i < 200; i++)
		x[i * 5 + 1] = 100000000;
	CHECK_EQ(rxb_dynctl_core_overloaded(x, 1000, 32), 1);
}

/* Deterministic PRNG (xorshift64*), so a failure reproduces. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static uint32_t rng_below(uint32_t n)
{
	return (uint32_t)(rng() % n);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The helper against a sort-based reference, same formula otherwise. */
static void test_core_overloaded_random(void)
{
	static uint64_t x[257], sorted[257];
	int disagree = 0, overloaded = 0;

	for (int t = 0; t < 20000; t++) {
		size_t n = 2 + rng_below(256), i;
		uint64_t scale = 1ull << rng_below(40);
		double ratio = 0.05 + (double)rng_below(4000) / 100.0;
		double mean = 0, var = 0, median, bound;

		/* Per trial: how often calls stall, by how much, and how
		 * often an interval is below one tick (0). */
		uint32_t p_stall = rng_below(40), stall = 1 + rng_below(300);
		uint32_t p_zero = rng_below(4) ? 0 : rng_below(100);

		for (i = 0; i < n; i++) {
			x[i] = scale + rng() % (scale / 8 + 1);
			if (rng_below(100) < p_stall)
				x[i] *= stall;
			else if (rng_below(100) < p_zero)
				x[i] = 0;
		}
		memcpy(sorted, x, n * sizeof(*x));
		qsort(sorted, n, sizeof(*x), cmp_u64);
		median = (double)sorted[(n - 1) / 2] +
			 ((double)sorted[n / 2] - (double)sorted[(n - 1) / 2]) / 2;
		for (i = 0; i < n; i++)
			mean += (double)x[i];
		mean /= (double)n;
		for (i = 0; i < n; i++)
			var += ((double)x[i] - mean) * ((double)x[i] - mean);
		var /= (double)n;
		bound = ratio * (median < 1 ? 1 : median);
		int want = var > bound * bound;
		int got = rxb_dynctl_core_overloaded(x, n, ratio);

		overloaded += want;
		if (got != want && disagree++ < 5)
			fprintf(stderr, "  n %zu ratio %g: got %d want %d\n", n, ratio, got, want);
	}
	CHECK_EQ(disagree, 0);
	printf("     random: %d of 20000 overloaded\n", overloaded);
	/* Both outcomes were exercised. */
	CHECK(overloaded > 1000 && overloaded < 19000);
}

/* Naive model: every sample that entered the window since the last clear,
 * recounted over the last `window` of them at each step, with the rules
 * applied from the config fractions directly. */
struct naive {
	struct rxb_dynctl_config cfg;
	uint8_t *high, *ovl;
	size_t len, start; /* history since the last clear is [start, len) */
	enum rxb_dyn_mode mode;
	enum rxb_dyn_decision pending;
};

static enum rxb_dyn_decision naive_update(struct naive *m, const struct rxb_dynctl_sample *s)
{
	const struct rxb_dynctl_config *c = &m->cfg;
	uint64_t w = c->window, fill, high = 0, ovl = 0, low;
	size_t i, from;

	if (m->pending != RXB_DYN_STAY)
		return RXB_DYN_STAY;
	m->high[m->len] = s->tput_gbps > c->tput_gbps_threshold &&
			  s->mem_bw_gibps > c->mem_bw_gibps_threshold;
	m->ovl[m->len] = s->overloaded_cores != 0;
	m->len++;
	if (m->mode == RXB_DYN_SHARED && m->ovl[m->len - 1])
		return m->pending = RXB_DYN_TO_PRIVATE;
	fill = m->len - m->start;
	if (fill < w)
		return RXB_DYN_STAY;
	from = m->len - w;
	for (i = from; i < m->len; i++) {
		high += m->high[i];
		ovl += m->ovl[i];
	}
	low = w - high;
	if (m->mode == RXB_DYN_PRIVATE) {
		if (ovl == 0 && high * c->to_shared_den > w * c->to_shared_num)
			return m->pending = RXB_DYN_TO_SHARED;
		return RXB_DYN_STAY;
	}
	if (low * c->to_private_den >= w * c->to_private_num)
		return m->pending = RXB_DYN_TO_PRIVATE;
	return RXB_DYN_STAY;
}

static void naive_set_mode(struct naive *m, enum rxb_dyn_mode mode)
{
	if (mode != m->mode)
		m->start = m->len;
	m->mode = mode;
	m->pending = RXB_DYN_STAY;
}

static void test_random_vs_naive(void)
{
	enum { N = 100000 };
	struct rxb_dynctl dc;
	struct naive m;
	struct rxb_err err = { 0 };
	uint64_t decisions[RXB_DYN_DECISIONS] = { 0 }, mismatches = 0, bad_checks = 0;
	uint32_t p_high = 50, p_ovl = 2, wait = 0;

	memset(&m, 0, sizeof(m));
	m.high = calloc(N, 1);
	m.ovl = calloc(N, 1);
	CHECK(m.high != NULL && m.ovl != NULL);
	if (m.high == NULL || m.ovl == NULL)
		return;

	for (int i = 0; i < N; i++) {
		struct rxb_dynctl_sample s;
		enum rxb_dyn_decision got, want;

		/* A new random config every 10000 samples. */
		if (i % 10000 == 0) {
			struct rxb_dynctl_config c = rxb_dynctl_config_default();

			if (i) {
				c.window = 1 + rng_below(i < 50000 ? 40 : RXB_DYNCTL_WINDOW_MAX);
				c.to_shared_den = 1 + rng_below(16);
				c.to_shared_num = rng_below(c.to_shared_den);
				c.to_private_den = 1 + rng_below(16);
				c.to_private_num = 1 + rng_below(c.to_private_den);
			}
			CHECK_EQ(rxb_dynctl_init(&dc, &c, RXB_DYN_PRIVATE, &err), 0);
			m.cfg = c;
			m.start = m.len;
			m.mode = RXB_DYN_PRIVATE;
			m.pending = RXB_DYN_STAY;
		}
		/* Load phases: the share of high samples drifts. */
		if (rng_below(500) == 0)
			p_high = rng_below(101);
		if (rng_below(500) == 0)
			p_ovl = rng_below(4) ? 0 : rng_below(10);
		s.tput_gbps = rng_below(100) < p_high ? 171 + rng_below(200) : rng_below(340);
		s.mem_bw_gibps = rng_below(100) < p_high ? 26 + rng_below(30) : rng_below(50);
		if (rng_below(1000) == 0)
			s.mem_bw_gibps = NAN;
		s.overloaded_cores = rng_below(100) < p_ovl ? 1 + rng_below(4) : 0;

		got = rxb_dynctl_update(&dc, &s);
		want = naive_update(&m, &s);
		decisions[got]++;
		if (got != want && mismatches++ < 5)
			fprintf(stderr, "  sample %d: got %s want %s (%s)\n", i,
				rxb_dyn_decision_name[got], rxb_dyn_decision_name[want],
				rxb_dynctl_reason(&dc));
		if (rxb_dynctl_check(&dc, &err) && bad_checks++ < 5)
			fprintf(stderr, "  sample %d: %s\n", i, err.msg);

		/* The caller drains for a few samples, then confirms; now and
		 * then it cancels instead. */
		if (got != RXB_DYN_STAY)
			wait = 1 + rng_below(4);
		if (wait && --wait == 0) {
			enum rxb_dyn_mode to = rxb_dynctl_pending(&dc) == RXB_DYN_TO_SHARED
						       ? RXB_DYN_SHARED
						       : RXB_DYN_PRIVATE;

			if (rng_below(10) == 0)
				to = rxb_dynctl_mode(&dc);
			CHECK_EQ(rxb_dynctl_set_mode(&dc, to), 0);
			naive_set_mode(&m, to);
		}
		if (rxb_dynctl_mode(&dc) != m.mode)
			mismatches++;
	}
	CHECK_EQ(mismatches, 0);
	CHECK_EQ(bad_checks, 0);
	/* The run went through all kinds of decisions many times. */
	CHECK(decisions[RXB_DYN_TO_SHARED] > 100);
	CHECK(decisions[RXB_DYN_TO_PRIVATE] > 100);
	CHECK(rxb_counter_read(&dc.stats.overload_to_private) +
		      rxb_counter_read(&dc.stats.decided_to_private) >
	      0);
	printf("     random: %llu stay, %llu to_shared, %llu to_private\n",
	       (unsigned long long)decisions[RXB_DYN_STAY],
	       (unsigned long long)decisions[RXB_DYN_TO_SHARED],
	       (unsigned long long)decisions[RXB_DYN_TO_PRIVATE]);
	free(m.high);
	free(m.ovl);
}

/* The invariant check catches a corrupted running count. */
static void test_check_detects(void)
{
	struct rxb_dynctl dc;
	struct rxb_err err = { 0 };

	init_ref(&dc, RXB_DYN_PRIVATE);
	feed(&dc, &LOW, 20);
	CHECK_EQ(feed(&dc, &HIGH, 5), RXB_DYN_STAY);
	CHECK_EQ(rxb_dynctl_check(&dc, &err), 0);
	CHECK_EQ(dc.n_high, 5);
	dc.n_high--;
	CHECK_EQ(rxb_dynctl_check(&dc, &err), -RXB_E_INVARIANT);
	CHECK(strstr(err.msg, "running counts") != NULL);
}

int main(void)
{
	RUN(test_config);
	RUN(test_names);
	RUN(test_window_not_full);
	RUN(test_up_threshold);
	RUN(test_down_threshold);
	RUN(test_overload);
	RUN(test_pending);
	RUN(test_sliding_window);
	RUN(test_other_config);
	RUN(test_core_overloaded_edges);
	RUN(test_core_overloaded_real);
	RUN(test_core_overloaded_random);
	RUN(test_random_vs_naive);
	RUN(test_check_detects);
	return check_summary();
}
