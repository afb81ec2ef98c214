/* SPDX-License-Identifier: BSD-3-Clause
 *
 * rxb/dynctl.h — the decision logic of dynamic shRing (docs/interfaces.md §4.3):
 * a controller that tells the caller when to move a group of cores from
 * privRing to shRing and back, as a pure, deterministic function of the
 * samples it is fed.
 *
 * Division of labour. Every sample period (10 ms in the reference setup)
 * the caller measures throughput, memory bandwidth and, per core, the
 * intervals between receive calls; it turns the intervals into a count of
 * overloaded cores with rxb_dynctl_core_overloaded() and passes one
 * struct rxb_dynctl_sample to rxb_dynctl_update(). The controller never
 * reads a clock and never allocates: its window lives inside the struct.
 * When it answers TO_SHARED or TO_PRIVATE the caller re-points RSS, drains
 * the old rings and then confirms with rxb_dynctl_set_mode(); until then the
 * switch is *pending* and every update answers STAY.
 *
 * The rules, with the interpretations this implementation chose where the
 * design (docs/interfaces.md, dynamic shRing) leaves room:
 *   - A sample is *high* when it exceeds both thresholds (strictly:
 *     tput_gbps > tput_gbps_threshold and mem_bw_gibps >
 *     mem_bw_gibps_threshold). A sample is *low* when it is not high: "below
 *     the thresholds" is read as the complement of the switch-up predicate,
 *     so every sample is exactly one of the two and there is no dead band
 *     between them. A NaN measurement compares false, so it makes the
 *     sample low: a broken measurement never argues for sharing.
 *   - Load-level decisions are made only once the window is full: a
 *     half-empty window says too little about the load.
 *   - privRing -> shRing when strictly more than to_shared_num/den of the
 *     window is high (reference: more than 1/2, i.e. at least 9 of 16) and
 *     no sample in the window saw an overloaded core. Overload blocks the
 *     up-switch for as long as it stays in the window, not just while it
 *     lasts: sharing a ring with a core that stalled 100 ms ago invites the
 *     head-of-line blocking shRing suffers from (§4.1).
 *   - shRing -> privRing when at least to_private_num/den of the window is
 *     low (reference: 7/8, i.e. at least 14 of 16), or *immediately* when the
 *     current sample reports an overloaded core, even with a window that is
 *     not full. The window rule is about the load level; overload is a
 *     safety rule, because under shRing one slow core makes the NIC drop
 *     packets meant for the healthy ones.
 *   - After a switch the window is cleared: samples taken in the old mode
 *     say nothing about the new one (shRing changes memory bandwidth by
 *     design). A new decision therefore needs a full new window, which also
 *     gives hysteresis: at most one load-level switch per `window` samples.
 *   - While a switch is pending, samples are counted (stats.samples,
 *     stats.pending_samples) but not added to the window: during the drain
 *     traffic is split between both ring sets and describes neither mode.
 *
 * Threads: one thread (the control loop) calls everything but the stats,
 * which any thread may read with rxb_counter_read() (common.h).
 */
#ifndef RXB_DYNCTL_H
#define RXB_DYNCTL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rxb/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RXB_DYNCTL_WINDOW_MAX 1024u

/* Reference values (docs/interfaces.md §4.3). */
#define RXB_DYNCTL_DEFAULT_TPUT_GBPS      170.0
#define RXB_DYNCTL_DEFAULT_MEM_BW_GIBPS   25.0
#define RXB_DYNCTL_DEFAULT_WINDOW         16u
#define RXB_DYNCTL_DEFAULT_OVERLOAD_RATIO 32.0
#define RXB_DYNCTL_DEFAULT_PERIOD_NS      10000000ull /* 10 ms */

struct rxb_dynctl_config {
	double tput_gbps_threshold;    /* > 0, finite; 170 */
	double mem_bw_gibps_threshold; /* > 0, finite; 25 */
	uint32_t window;               /* samples, 1..RXB_DYNCTL_WINDOW_MAX; 16 */
	/* Up-switch when high samples > window * num / den. The comparison is
	 * strict ("more than half"), so the fraction must lie in [0, 1): at 1
	 * the switch could never happen; 0 means "any one high sample". */
	uint32_t to_shared_num, to_shared_den; /* 1/2 */
	/* Down-switch when low samples >= window * num / den ("7/8 of the
	 * samples"), so the fraction must lie in (0, 1]: at 0 the controller
	 * would leave shRing on every full window. */
	uint32_t to_private_num, to_private_den; /* 7/8 */
	double overload_stddev_over_median;      /* > 0, finite; 32 */
	/* Sample period in the caller's time unit. Informative only (reports,
	 * converting the window to a duration): the controller counts samples,
	 * not time. Must be non-zero so a zeroed config is caught. */
	uint64_t sample_period; /* RXB_DYNCTL_DEFAULT_PERIOD_NS */
};

/* The reference configuration above (sample_period in nanoseconds). */
struct rxb_dynctl_config rxb_dynctl_config_default(void);

/* Returns 0, or -EINVAL with a message naming the offending field
 * ("dynctl.window = 0: must be in [1, 1024]"). */
int rxb_dynctl_config_validate(const struct rxb_dynctl_config *cfg, struct rxb_err *err);

/* Is a core overloaded, judging by the intervals between its receive calls
 * over one sample period? Rule (§4.3): population standard deviation of the
 * intervals > ratio * their median (median of an even count: mean of the
 * two middle values). Returns 1 or 0, or -EINVAL when ratio is not a finite
 * positive number or intervals is NULL with n > 0.
 *
 * Edge cases, chosen so that only evidence of a stall reports overload:
 *   - n < 2: not overloaded. One interval has no spread; zero intervals
 *     means the core made at most one receive call in the period, which the
 *     caller must catch another way (a wedged core is not a spread problem).
 *   - median 0 (more than half the calls came within one tick of the
 *     previous one: the clock is coarser than the poll loop). Taken
 *     literally the rule would flag any non-zero interval, so a core that
 *     spins idle would be "overloaded" by clock granularity. The median is
 *     therefore taken as at least one time unit: a measured 0 means "less
 *     than one tick", and 1 is the largest value it can stand for, so the
 *     rule stays conservative yet still catches a real stall (99 zeros and
 *     one interval of 1000: stddev ~99.5 > 32). With median >= 1 this is
 *     exactly the reference rule.
 * Cost O(n) passes: no copy and no allocation; the median is found by
 * bisection on the value range (at most 65 passes over the array). */
int rxb_dynctl_core_overloaded(const uint64_t *intervals, size_t n, double ratio);

/* The intervals between one core's receive calls, as a real engine logs
 * them for rxb_dynctl_core_overloaded(): the core notes each call, the
 * controller's thread reads the latest RXB_DYNCTL_IVL_LOG of them once
 * per sample period. One writer, one reader. */
#define RXB_DYNCTL_IVL_LOG 256u

struct rxb_dynctl_ivl {
	_Atomic uint64_t ivl[RXB_DYNCTL_IVL_LOG];
	_Atomic uint64_t n; /* intervals logged */
	uint64_t last;      /* writer: time of the previous call (0: none) */
	uint64_t read;      /* reader: n at its last look */
};

/* The core: a receive call at `now`. */
static inline void rxb_dynctl_ivl_note(struct rxb_dynctl_ivl *l, uint64_t now)
{
	uint64_t k = atomic_load_explicit(&l->n, memory_order_relaxed);

	if (l->last != 0) {
		atomic_store_explicit(&l->ivl[k % RXB_DYNCTL_IVL_LOG], now - l->last,
				      memory_order_relaxed);
		/* release: pairs with the acquire in rxb_dynctl_ivl_overloaded();
		 * the interval is written before it is counted. */
		atomic_store_explicit(&l->n, k + 1, memory_order_release);
	}
	l->last = now;
}

/* The controller's thread: did this core look overloaded since the last
 * look? A core with no receive call in the whole period is wedged: yes. */
static inline bool rxb_dynctl_ivl_overloaded(struct rxb_dynctl_ivl *l, double ratio)
{
	uint64_t buf[RXB_DYNCTL_IVL_LOG];
	/* acquire: pairs with the release in rxb_dynctl_ivl_note() */
	uint64_t n = atomic_load_explicit(&l->n, memory_order_acquire);
	uint64_t k = n - l->read < RXB_DYNCTL_IVL_LOG ? n - l->read : RXB_DYNCTL_IVL_LOG;

	for (uint64_t i = 0; i < k; i++)
		buf[i] = atomic_load_explicit(&l->ivl[(n - k + i) % RXB_DYNCTL_IVL_LOG],
					      memory_order_relaxed);
	l->read = n;
	return k == 0 || rxb_dynctl_core_overloaded(buf, k, ratio) == 1;
}

/* One sample period as the caller measured it. */
struct rxb_dynctl_sample {
	/* The load the group's ports received from the link, not what its
	 * cores delivered: a load privRing cannot carry delivers less than it
	 * receives, and it is the load the up-switch is for. */
	double tput_gbps;
	double mem_bw_gibps;       /* memory bandwidth */
	uint32_t overloaded_cores; /* cores for which rxb_dynctl_core_overloaded() said 1 */
};

enum rxb_dyn_mode { RXB_DYN_PRIVATE = 0, RXB_DYN_SHARED, RXB_DYN_MODES };
enum rxb_dyn_decision {
	RXB_DYN_STAY = 0,
	RXB_DYN_TO_SHARED,
	RXB_DYN_TO_PRIVATE,
	RXB_DYN_DECISIONS
};

/* Stable names for reports: "private", "shared"; "stay", "to_shared",
 * "to_private". */
extern const char *const rxb_dyn_mode_name[RXB_DYN_MODES];
extern const char *const rxb_dyn_decision_name[RXB_DYN_DECISIONS];

/* Why the last update decided what it did (rxb_dynctl_reason() has the
 * sentence with the numbers). */
enum rxb_dyn_reason {
	RXB_DYN_R_NONE = 0,      /* no update since init/reset/set_mode */
	RXB_DYN_R_PENDING,       /* STAY: a switch waits for set_mode */
	RXB_DYN_R_FILLING,       /* STAY: window not full yet */
	RXB_DYN_R_HIGH,          /* TO_SHARED: enough high samples */
	RXB_DYN_R_NOT_HIGH,      /* STAY in private: too few high samples */
	RXB_DYN_R_OVERLOAD_SEEN, /* STAY in private: overload in the window */
	RXB_DYN_R_LOW,           /* TO_PRIVATE: enough low samples */
	RXB_DYN_R_NOT_LOW,       /* STAY in shared: too few low samples */
	RXB_DYN_R_OVERLOAD_NOW,  /* TO_PRIVATE: overloaded core in this sample */
};

/* Counters named after events; one writer (the control loop). */
struct rxb_dynctl_stats {
	rxb_counter_t samples;             /* rxb_dynctl_update() calls */
	rxb_counter_t pending_samples;     /* ... of which arrived while pending */
	rxb_counter_t decided_to_shared;   /* TO_SHARED answers */
	rxb_counter_t decided_to_private;  /* TO_PRIVATE answers (both rules) */
	rxb_counter_t overload_to_private; /* ... of which forced by overload */
	rxb_counter_t switched_to_shared;  /* set_mode() that changed the mode */
	rxb_counter_t switched_to_private;
	rxb_counter_t cancelled; /* set_mode() that kept the mode while
					     * a switch was pending */
};

/* Controller state. Plain memory the caller owns (about 1.3 KiB); set up
 * with rxb_dynctl_init(), no teardown needed. Fields are private: use the
 * functions below. */
struct rxb_dynctl {
	struct rxb_dynctl_config cfg;
	uint32_t need_high; /* high samples that trigger TO_SHARED, 1..window */
	uint32_t need_low;  /* low samples that trigger TO_PRIVATE, 1..window */

	/* The window: one flag byte per sample (what the decisions need, not
	 * the raw sample: the thresholds are fixed, so the classification is
	 * too). Ring of cfg.window slots, `head` is the next to write, `fill`
	 * how many hold a sample. The two counts are kept in step with the
	 * ring on every push, which makes an update O(1). */
	uint8_t flags[RXB_DYNCTL_WINDOW_MAX];
	uint32_t head;
	uint32_t fill;
	uint32_t n_high;     /* samples in the window that are high */
	uint32_t n_overload; /* samples in the window with an overloaded core */

	enum rxb_dyn_mode mode;        /* confirmed mode */
	enum rxb_dyn_decision pending; /* switch reported, not confirmed; or STAY */

	enum rxb_dyn_reason reason; /* of the last update */
	char reason_msg[160];

	struct rxb_dynctl_stats stats;
};

/* Start in `mode` with an empty window and zero counters. cfg NULL means
 * rxb_dynctl_config_default(). Returns 0 or -EINVAL (config, or a mode out
 * of range, named in err). */
int rxb_dynctl_init(struct rxb_dynctl *dc, const struct rxb_dynctl_config *cfg,
		    enum rxb_dyn_mode mode, struct rxb_err *err);

/* Back to the state rxb_dynctl_init() left, in `mode`, keeping the config
 * (counters zeroed, window empty, nothing pending). Returns 0 or -EINVAL for
 * a mode out of range. */
int rxb_dynctl_reset(struct rxb_dynctl *dc, enum rxb_dyn_mode mode);

/* Feed one sample; O(1), no allocation. Returns the decision (see the rules
 * at the top). After TO_SHARED or TO_PRIVATE the switch is pending and
 * further calls answer STAY until rxb_dynctl_set_mode(). */
enum rxb_dyn_decision rxb_dynctl_update(struct rxb_dynctl *dc, const struct rxb_dynctl_sample *s);

/* The caller reports the mode it now runs in:
 *   - a different mode (the drain after a decision completed, or a switch
 *     the caller made on its own): the mode changes, the window is cleared,
 *     nothing is pending any more;
 *   - the same mode: a pending switch is cancelled (the caller could not or
 *     would not switch); the window is kept, since its samples still
 *     describe this mode, so the next update may decide the same again.
 * Returns 0 or -EINVAL for a mode out of range. */
int rxb_dynctl_set_mode(struct rxb_dynctl *dc, enum rxb_dyn_mode mode);

/* The confirmed mode (not the pending one). */
enum rxb_dyn_mode rxb_dynctl_mode(const struct rxb_dynctl *dc);

/* The pending decision, or RXB_DYN_STAY when nothing is pending. */
enum rxb_dyn_decision rxb_dynctl_pending(const struct rxb_dynctl *dc);

/* The last update's reason, as a code and as a sentence with the numbers,
 * e.g. "9/16 samples above 170 Gbps and 25 GiB/s (need 9): to shared".
 * The string lives in dc and changes with the next call. */
enum rxb_dyn_reason rxb_dynctl_reason_code(const struct rxb_dynctl *dc);
const char *rxb_dynctl_reason(const struct rxb_dynctl *dc);

/* Invariant check (quiescent point): recount the window from its ring and
 * compare with the running counts and bounds. Returns 0 or -RXB_E_INVARIANT
 * with a message saying what disagrees. */
int rxb_dynctl_check(const struct rxb_dynctl *dc, struct rxb_err *err);

#ifdef __cplusplus
}
#endif
#endif /* RXB_DYNCTL_H */
