/* SPDX-License-Identifier: BSD-3-Clause
 *
 * bench_rings — per-packet cost of each software receive path, in the style
 * of DPDK's ring_perf_autotest (cycles per operation over many iterations).
 *
 * What is timed: ONLY the software side of one core — receive bursts of 32
 * (the design's own rx function, which reposts fresh buffers taken from the
 * core's rxb_pool cache) and the free of each burst back to the same cache
 * (the design's own free function), over a round of 128 packets. What is
 * not timed: the NIC side (the library's software model of the hardware),
 * which puts a round of packets into the core's ring just before the timed
 * region. Ticks are the TSC (CLOCK_MONOTONIC elsewhere), converted to ns
 * with a CLOCK_MONOTONIC measurement around a 50 ms loop; the cost of an
 * empty timed region is subtracted per round; rounds longer than
 * --outlier-us (the thread lost its CPU) are left out and counted.
 *
 * Two threads (rows NAME_2threads): two core threads on two CPUs of the
 * affinity mask (choose_cpus: not CPU 0 when others are free, distinct
 * physical cores when the topology says so; the JSON names them), each
 * playing the NIC for itself (one at a time) and receiving its own rounds,
 * so that what the design shares between cores (RxArr: ring, bitmap, repost
 * lock, doorbell) is really shared while the timed path stays the same.
 *
 * Functions used by default (--api design): rxb_privring_rx_burst / _free,
 * rxb_bisect_rx / _free, rxb_shring_rx_burst / _free (RxArr and RxList),
 * with the rxb_allocator endpoint of rxb_pool (rxb_pool_allocator()).
 * With --api iface the same designs are built with rxb_iface_create() and
 * driven through rxb_iface_rx / rxb_iface_free (and the NIC side through
 * rxb_iface_deliver): what the generic layer's dispatch adds per packet.
 * See bench/README.md for the method, its reasons and its limits.
 *
 * Usage: bench_rings [--reps N] [--ms T] [--round K] [--outlier-us U]
 *                    [--json PATH] [--only NAME] [--rounds N] [--no-threads]
 *                    [--api design|iface]
 *   --only NAME   run one configuration (privring, rxbisect, shring_arr,
 *                 shring_list, or NAME_2threads)
 *   --rounds N    run a fixed number of rounds once, no warm-up, no timing
 *                 report (for valgrind --tool=callgrind
 *                 --toggle-collect=rx_round_NAME, or rx_round_iface_NAME
 *                 with --api iface)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rxb/iface.h"
#include "rxb/pool.h"
#include "rxb/privring.h"
#include "rxb/rxbisect.h"
#include "rxb/shring.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_TSC 1
#else
#define HAVE_TSC 0
#endif

#ifndef RXB_BENCH_BUILD_TYPE
#define RXB_BENCH_BUILD_TYPE "unknown"
#endif

#define BURST       32u /* packets per receive call, as a DPDK driver polls */
#define MAX_THREADS 2u
#define RING_SIZE   1024u /* privRing Rx ring and CR, shRing ring, Bx ring */
#define AX_SIZE     128u  /* rxBisect Ax ring */
#define POOL_BUFS   8192u
#define POOL_CACHE  256u /* DPDK's usual per-lcore cache; flush at 1.5x */

/* ------------------------------------------------------------- clocks */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Ticks around a timed region: the TSC where there is one (fenced so the
 * region's instructions stay inside), CLOCK_MONOTONIC ns elsewhere. Ticks
 * are turned into ns with the ratio measured over the whole run (a
 * clock_gettime pair around the large loop). */
static inline uint64_t tick_begin(void)
{
#if HAVE_TSC
	_mm_lfence();
	return __rdtsc();
#else
	return now_ns();
#endif
}

static inline uint64_t tick_end(void)
{
#if HAVE_TSC
	unsigned aux;
	uint64_t t = __rdtscp(&aux);

	_mm_lfence();
	return t;
#else
	return now_ns();
#endif
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* What the clocks cost and mean, measured once at start. */
static struct {
	uint64_t overhead;  /* ticks of an empty timed region, subtracted per round */
	double ns_per_tick; /* from CLOCK_MONOTONIC around a 50 ms busy loop */
	uint64_t outlier;   /* a timed region longer than this was interrupted */
} clk;

static void clock_calibrate(uint64_t outlier_us)
{
	enum { N = 10001 };
	static uint64_t d[N];
	uint64_t t0 = now_ns(), k0 = tick_begin(), t1;

	for (int i = 0; i < N; i++) {
		uint64_t k = tick_begin();

		d[i] = tick_end() - k;
	}
	qsort(d, N, sizeof(d[0]), cmp_u64);
	clk.overhead = d[N / 2];
	while ((t1 = now_ns()) - t0 < 50000000ull)
		;
	clk.ns_per_tick = (double)(t1 - t0) / (double)(tick_end() - k0);
	clk.outlier = (uint64_t)((double)outlier_us * 1000.0 / clk.ns_per_tick);
}

/* ------------------------------------------------------------- the rig */

enum arch { A_PRIVRING, A_RXBISECT, A_SHRING_ARR, A_SHRING_LIST, N_ARCH };
static const char *const arch_name[N_ARCH] = {
	"privring",
	"rxbisect",
	"shring_arr",
	"shring_list",
};

/* One interface under test, its pool and one allocator endpoint per core. */
struct rig {
	enum arch arch;
	unsigned n_cores;
	struct rxb_pool *pool;
	struct rxb_privring *pr;
	struct rxb_bisect *bs;
	struct rxb_shring *sh;
	struct rxb_iface *ifc; /* --api iface: the design behind rxb_iface_* */
	struct rxb_allocator alloc[MAX_THREADS];
	/* The NIC side is called by one thread at a time (rxb/common.h); with
	 * two core threads, whichever plays the NIC holds this flag. */
	_Atomic unsigned nic_busy;
};

/* Take the NIC role if nobody has it; never waits (see wait_for_round).
 * acquire: pairs with the release in nic_release(); the previous player's
 * writes to NIC state are visible to us. */
static bool nic_try_acquire(struct rig *r)
{
	return atomic_load_explicit(&r->nic_busy, memory_order_relaxed) == 0 &&
	       atomic_exchange_explicit(&r->nic_busy, 1, memory_order_acquire) == 0;
}

static void nic_release(struct rig *r)
{
	atomic_store_explicit(&r->nic_busy, 0, memory_order_release);
}

/* --api iface: the same rings as rig_create_rings(), built and primed by
 * rxb_iface_create() (which posts what rig_prime() posts). */
static int rig_create_iface(struct rig *r, struct rxb_err *err)
{
	static const enum rxb_arch iface_arch[N_ARCH] = {
		[A_PRIVRING] = RXB_ARCH_PRIVRING,
		[A_RXBISECT] = RXB_ARCH_RXBISECT,
		[A_SHRING_ARR] = RXB_ARCH_SHRING,
		[A_SHRING_LIST] = RXB_ARCH_SHRING_LIST,
	};
	struct rxb_iface_config c = {
		.arch = iface_arch[r->arch],
		.n_cores = r->n_cores,
		.rx_size = RING_SIZE,
		.share_degree = r->n_cores,
		.ax_size = AX_SIZE,
		.bx_size = RING_SIZE,
		.enforce_vendor_min = true,
	};

	r->ifc = rxb_iface_create(&c, r->alloc, err);
	return r->ifc ? 0 : -1;
}

static int rig_create_rings(struct rig *r, struct rxb_err *err)
{
	switch (r->arch) {
	case A_PRIVRING: {
		struct rxb_privring_config c = { .n_queues = r->n_cores, .ring_size = RING_SIZE };

		r->pr = rxb_privring_create(&c, err);
		return r->pr ? 0 : -1;
	}
	case A_RXBISECT: {
		struct rxb_bisect_config c = {
			.n_ax = r->n_cores,
			.n_bx = r->n_cores,
			.ax_size = AX_SIZE,
			.bx_size = RING_SIZE,
			.enforce_vendor_min = true,
		};

		r->bs = rxb_bisect_create(&c, err);
		return r->bs ? 0 : -1;
	}
	default: {
		/* One ring shared by every core of the run. */
		struct rxb_shring_config c = {
			.n_cores = r->n_cores,
			.share_degree = r->n_cores,
			.ring_size = RING_SIZE,
			.list = r->arch == A_SHRING_LIST,
		};

		r->sh = rxb_shring_create(&c, err);
		return r->sh ? 0 : -1;
	}
	}
}

/* Post the starting buffers, as a driver does at queue start. */
static int rig_prime(struct rig *r)
{
	for (unsigned c = 0; c < r->n_cores; c++) {
		unsigned want, got;

		switch (r->arch) {
		case A_PRIVRING:
			want = RING_SIZE;
			got = rxb_privring_post(r->pr, c, &r->alloc[c], RING_SIZE);
			break;
		case A_RXBISECT:
			want = AX_SIZE;
			got = rxb_bisect_prime(r->bs, c, &r->alloc[c]);
			break;
		default:
			if (c != 0)
				continue;
			want = RING_SIZE;
			got = rxb_shring_prime(r->sh, 0, &r->alloc[0]);
			break;
		}
		if (got != want) {
			fprintf(stderr, "bench: %s core %u: primed %u of %u buffers\n",
				arch_name[r->arch], c, got, want);
			return -1;
		}
	}
	return 0;
}

static void rig_destroy(struct rig *r)
{
	rxb_iface_destroy(r->ifc);
	rxb_privring_destroy(r->pr);
	rxb_bisect_destroy(r->bs);
	rxb_shring_destroy(r->sh);
	rxb_pool_destroy(r->pool);
}

static int rig_create(struct rig *r, enum arch arch, unsigned n_cores, bool iface)
{
	struct rxb_pool_config pc = rxb_pool_config_default();
	struct rxb_err err = { 0 };

	memset(r, 0, sizeof(*r));
	r->arch = arch;
	r->n_cores = n_cores;
	pc.n_bufs = POOL_BUFS;
	pc.n_cores = n_cores;
	pc.cache_size = POOL_CACHE;
	r->pool = rxb_pool_create(&pc, &err);
	for (unsigned c = 0; r->pool != NULL && c < n_cores; c++)
		r->alloc[c] = rxb_pool_allocator(r->pool, c);
	if (r->pool == NULL ||
	    (iface ? rig_create_iface(r, &err) : rig_create_rings(r, &err)) != 0) {
		fprintf(stderr, "bench: %s: %s\n", arch_name[arch], err.msg);
		rig_destroy(r);
		return -1;
	}
	if (!iface && rig_prime(r) != 0) {
		rig_destroy(r);
		return -1;
	}
	return 0;
}

/* Entries in core's completion / Bx ring not yet read. */
static unsigned rig_backlog(struct rig *r, unsigned core)
{
	if (r->ifc != NULL)
		return rxb_iface_occupancy(r->ifc, core);
	switch (r->arch) {
	case A_PRIVRING:
		return rxb_privring_occupancy(r->pr, core);
	case A_RXBISECT:
		return rxb_bisect_occupancy(r->bs, core);
	default:
		return rxb_shring_occupancy(r->sh, core);
	}
}

/* NIC side (not timed): top core's ring up to n unread packets, stopping
 * at the first drop (setting *dropped). Returns the packets delivered. Each
 * core thread plays the NIC for itself, so a core's completion entries are
 * written on its own CPU, as in the single-thread runs. */
static unsigned nic_deliver(struct rig *r, unsigned core, unsigned n, uint64_t now, bool *dropped)
{
	unsigned backlog = rig_backlog(r, core), i;
	struct rxb_rx_meta m = { .len = 64, .dest = core, .now = now };
	struct rxb_delivery d;

	for (i = 0; backlog + i < n; i++) {
		int rc;

		m.hash = 0x9e3779b9u * (i + 1);
		switch (r->ifc != NULL ? N_ARCH : r->arch) {
		case A_PRIVRING:
			rc = rxb_privring_nic_deliver(r->pr, &m, &d);
			break;
		case A_RXBISECT:
			rc = rxb_bisect_nic_deliver(r->bs, &m, &d);
			break;
		case A_SHRING_ARR:
		case A_SHRING_LIST:
			rc = rxb_shring_nic_deliver(r->sh, &m, &d);
			break;
		default: /* --api iface */
			rc = rxb_iface_deliver(r->ifc, &m, &d);
			break;
		}
		if (rc != 0) {
			*dropped = true;
			break;
		}
	}
	return i;
}

/* ------------------------------------------------- the timed receive path */

/* One core's run. */
struct core_run {
	struct rig *rig;
	unsigned core;
	unsigned round;         /* packets the NIC delivers per round */
	uint64_t deadline_ns;   /* stop after this (timed mode) */
	pthread_barrier_t *end; /* threads: everyone stopped delivering */
	uint64_t max_rounds;    /* or after this many rounds (fixed mode) */
	uint64_t now;           /* ticks at the start of this round: shRing's
	                        * clock for its descriptor-wait statistics */
	/* results: ticks net of the timer overhead, over the rounds kept */
	uint64_t rx_ticks, nic_ticks, pkts, nic_pkts, rounds, short_rounds;
	uint64_t dry_steps; /* NIC turns that could deliver nothing */
	uint64_t excluded;  /* rounds whose timed region was interrupted */
};

/* Ticks of one timed region net of the timer's own cost, or UINT64_MAX when
 * the region took longer than clk.outlier: the thread lost its CPU in it (a
 * context switch or a vCPU stall costs tens of microseconds to
 * milliseconds, a round of 128 packets a few microseconds). */
static uint64_t net_ticks(uint64_t t_begin, uint64_t t_end)
{
	uint64_t d = t_end - t_begin;

	if (d > clk.outlier)
		return UINT64_MAX;
	return d > clk.overhead ? d - clk.overhead : 0;
}

/*
 * rx_round_NAME: receive `want` packets already sitting in core's ring in
 * bursts of BURST and free each burst through the core's allocator, as a
 * run-to-completion driver loop does. Neither inlined nor cloned, so that
 * callgrind can collect exactly this (--toggle-collect=rx_round_NAME).
 * Returns packets.
 */
#if defined(__clang__)
#define NOT_INLINED __attribute__((noinline))
#else /* nor cloned (rx_round_NAME.constprop.0) nor folded with a twin (ICF) */
#define NOT_INLINED __attribute__((noipa))
#endif
#define DEFINE_RX_ROUND(NAME, RX, FREE)                                                 \
	static NOT_INLINED unsigned rx_round_##NAME(struct core_run *cr, unsigned want) \
	{                                                                               \
		struct rig *r = cr->rig;                                                \
		const unsigned core = cr->core;                                         \
		const struct rxb_allocator *a = &r->alloc[core];                        \
		struct rxb_pkt pkts[BURST];                                             \
		rxb_buf_t bufs[BURST];                                                  \
		unsigned done = 0;                                                      \
                                                                                        \
		(void)a; /* the iface rounds use the interface's own endpoints */       \
		while (done < want) {                                                   \
			unsigned n = want - done < BURST ? want - done : BURST;         \
			unsigned got = RX;                                              \
                                                                                        \
			if (got == 0)                                                   \
				break;                                                  \
			for (unsigned i = 0; i < got; i++)                              \
				bufs[i] = pkts[i].buf;                                  \
			FREE;                                                           \
			done += got;                                                    \
		}                                                                       \
		return done;                                                            \
	}

DEFINE_RX_ROUND(privring, rxb_privring_rx_burst(r->pr, core, pkts, n, a),
		rxb_privring_free(r->pr, core, a, bufs, got))
DEFINE_RX_ROUND(rxbisect, rxb_bisect_rx(r->bs, core, pkts, n, a),
		rxb_bisect_free(r->bs, core, a, bufs, got))
/* RxArr and RxList share the entry points; separate copies keep their
 * callgrind profiles apart. */
DEFINE_RX_ROUND(shring_arr, rxb_shring_rx_burst(r->sh, core, pkts, n, a, cr->now),
		rxb_shring_free(r->sh, core, a, bufs, got))
DEFINE_RX_ROUND(shring_list, rxb_shring_rx_burst(r->sh, core, pkts, n, a, cr->now),
		rxb_shring_free(r->sh, core, a, bufs, got))
/* --api iface: one copy per design, for the same reason. */
#define DEFINE_RX_ROUND_IFACE(NAME)                                                 \
	DEFINE_RX_ROUND(iface_##NAME, rxb_iface_rx(r->ifc, core, pkts, n, cr->now), \
			rxb_iface_free(r->ifc, core, bufs, got))
DEFINE_RX_ROUND_IFACE(privring)
DEFINE_RX_ROUND_IFACE(rxbisect)
DEFINE_RX_ROUND_IFACE(shring_arr)
DEFINE_RX_ROUND_IFACE(shring_list)

static unsigned rx_round(struct core_run *cr, unsigned want)
{
	if (cr->rig->ifc != NULL) {
		switch (cr->rig->arch) {
		case A_PRIVRING:
			return rx_round_iface_privring(cr, want);
		case A_RXBISECT:
			return rx_round_iface_rxbisect(cr, want);
		case A_SHRING_ARR:
			return rx_round_iface_shring_arr(cr, want);
		default:
			return rx_round_iface_shring_list(cr, want);
		}
	}
	switch (cr->rig->arch) {
	case A_PRIVRING:
		return rx_round_privring(cr, want);
	case A_RXBISECT:
		return rx_round_rxbisect(cr, want);
	case A_SHRING_ARR:
		return rx_round_shring_arr(cr, want);
	default:
		return rx_round_shring_list(cr, want);
	}
}

/* A waiting core pauses between tries, so that its polling does not keep
 * the lines the receiving core works on (doorbell, CR indices) bouncing. */
static void backoff(void)
{
	for (int i = 0; i < 64; i++) {
#if HAVE_TSC
		_mm_pause();
#else
		atomic_signal_fence(memory_order_seq_cst);
#endif
	}
}

static bool run_over(const struct core_run *cr)
{
	return cr->max_rounds ? cr->rounds >= cr->max_rounds : now_ns() >= cr->deadline_ns;
}

/* Untimed: play the NIC for this core (when no other core is playing it)
 * until this core's ring holds a whole round; returns the packets to
 * receive. With RxArr the NIC may find no descriptor, because the other
 * core's unread packets hold back the ones this core released (a "dry
 * turn"): then a core with packets waiting receives them (a short round)
 * rather than hold back the other core in turn, and a core with none waits
 * and retries. Returns 0 when the run ended meanwhile: a core that has
 * stopped no longer receives, so waiting on could never end. */
static unsigned wait_for_round(struct core_run *cr)
{
	struct rig *r = cr->rig;
	unsigned backlog;

	while ((backlog = rig_backlog(r, cr->core)) < cr->round) {
		uint64_t t0, t1, nic;
		unsigned delivered;
		bool dropped = false;

		if (r->n_cores > 1 && !nic_try_acquire(r)) {
			if (run_over(cr))
				return 0;
			backoff();
			continue;
		}
		t0 = tick_begin();
		delivered = nic_deliver(r, cr->core, cr->round, t0, &dropped);
		t1 = tick_end();
		if (r->n_cores > 1)
			nic_release(r);
		nic = net_ticks(t0, t1);
		if (nic != UINT64_MAX) {
			cr->nic_ticks += nic;
			cr->nic_pkts += delivered;
		}
		if (!dropped)
			continue;
		if (r->n_cores == 1) {
			fprintf(stderr, "bench: %s: the NIC dropped a packet for a single core\n",
				arch_name[r->arch]);
			exit(1);
		}
		cr->dry_steps++;
		if (backlog + delivered != 0)
			return backlog + delivered;
		if (run_over(cr))
			return 0;
		backoff();
	}
	return backlog;
}

/* Rounds until the deadline or max_rounds: wait (untimed, playing the NIC)
 * until a whole round of packets is in this core's ring, then receive
 * exactly that round inside the timed region. */
static void run_core(struct core_run *cr)
{
	struct rig *r = cr->rig;

	for (;;) {
		uint64_t t2, t3, rx;
		unsigned want, got;

		if ((cr->max_rounds || cr->rounds % 64 == 0 || r->n_cores > 1) && run_over(cr))
			break;
		want = wait_for_round(cr);
		if (want == 0)
			break;
		cr->now = t2 = tick_begin();
		got = rx_round(cr, want);
		t3 = tick_end();
		rx = net_ticks(t2, t3);
		if (rx != UINT64_MAX) {
			cr->rx_ticks += rx;
			cr->pkts += got;
		} else {
			cr->excluded++;
		}
		cr->short_rounds += got < cr->round;
		cr->rounds++;
	}
	if (cr->end != NULL) {
		/* Nobody delivers any more: take what is left, untimed, so the
		 * census finds every packet received. */
		pthread_barrier_wait(cr->end);
		while (rx_round(cr, rig_backlog(r, cr->core)) != 0)
			;
	}
}

/* The CPUs the 2-thread rows run on, chosen from the CPUs this process may
 * use (choose_cpus), and whether every thread could be pinned there. */
static int pin_cpu[MAX_THREADS];
static unsigned n_allowed_cpus;
static atomic_bool pin_failed;

/* A topology attribute of a CPU from sysfs; -1 when it cannot be read. */
static long cpu_topology(int cpu, const char *what)
{
	char path[96];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, what);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* Two CPUs for the 2-thread rows out of the affinity mask: the first one
 * that is not CPU 0 when there are three or more (CPU 0 takes the
 * housekeeping and interrupts of many servers), then another physical core
 * of the same package (not its SMT sibling), else another core, else any
 * other CPU. A cpuset without CPUs 0 and 1 works as any other. */
static void choose_cpus(void)
{
	cpu_set_t set;
	int cpus[CPU_SETSIZE];
	unsigned n = 0;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set))
				cpus[n++] = c;
	n_allowed_cpus = n;
	if (n == 0) {
		pin_cpu[0] = pin_cpu[1] = -1;
		return;
	}
	pin_cpu[0] = n >= 3 && cpus[0] == 0 ? cpus[1] : cpus[0];
	pin_cpu[1] = -1;
	for (int pass = 0; pass < 3 && pin_cpu[1] < 0; pass++) {
		long pkg = cpu_topology(pin_cpu[0], "physical_package_id");
		long core = cpu_topology(pin_cpu[0], "core_id");

		for (unsigned k = 0; k < n && pin_cpu[1] < 0; k++) {
			int c = cpus[k];
			bool other_core = cpu_topology(c, "core_id") != core ||
					  cpu_topology(c, "physical_package_id") != pkg;

			if (c == pin_cpu[0] || (n >= 3 && c == 0 && pass < 2))
				continue;
			if ((pass == 0 && other_core &&
			     cpu_topology(c, "physical_package_id") == pkg) ||
			    (pass == 1 && other_core) || pass == 2)
				pin_cpu[1] = c;
		}
	}
}

static void pin_to_cpu(int cpu)
{
	cpu_set_t set;

	if (cpu < 0) {
		atomic_store(&pin_failed, true);
		return;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* A container may forbid it: the run goes on unpinned, and the JSON
	 * and the table say so. */
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0)
		atomic_store(&pin_failed, true);
}

struct thread_arg {
	struct core_run *cr;
	pthread_barrier_t *start;
	uint64_t ms;
};

static void *core_thread(void *p)
{
	struct thread_arg *ta = p;

	pin_to_cpu(pin_cpu[ta->cr->core]);
	pthread_barrier_wait(ta->start);
	/* Same deadline for both: taken after the barrier, so they overlap. */
	if (ta->cr->max_rounds == 0)
		ta->cr->deadline_ns = now_ns() + ta->ms * 1000000ull;
	run_core(ta->cr);
	return NULL;
}

/* One measurement of one configuration. */
struct sample {
	double ns_per_pkt;
	double cyc_per_pkt; /* TSC ticks (reference cycles); = ns without a TSC */
	double nic_ns_per_pkt;
	uint64_t pkts;
	uint64_t short_rounds;
	uint64_t rounds, excluded, dry_steps;
};

static struct sample measure(struct rig *r, unsigned round, uint64_t ms, uint64_t fixed_rounds)
{
	struct core_run cr[MAX_THREADS];
	struct sample s = { 0 };
	uint64_t rx_ticks = 0, nic_ticks = 0, nic_pkts = 0;

	for (unsigned c = 0; c < r->n_cores; c++)
		cr[c] = (struct core_run){
			.rig = r, .core = c, .round = round, .max_rounds = fixed_rounds
		};
	if (r->n_cores == 1) {
		cr[0].deadline_ns = now_ns() + ms * 1000000ull;
		run_core(&cr[0]);
	} else {
		pthread_t tid[MAX_THREADS];
		struct thread_arg ta[MAX_THREADS];
		pthread_barrier_t start, end;

		pthread_barrier_init(&start, NULL, r->n_cores);
		pthread_barrier_init(&end, NULL, r->n_cores);
		for (unsigned c = 0; c < r->n_cores; c++) {
			cr[c].end = &end;
			ta[c] = (struct thread_arg){ &cr[c], &start, ms };
			if (pthread_create(&tid[c], NULL, core_thread, &ta[c]) != 0) {
				fprintf(stderr, "bench: pthread_create: %s\n", strerror(errno));
				exit(1);
			}
		}
		for (unsigned c = 0; c < r->n_cores; c++)
			pthread_join(tid[c], NULL);
		pthread_barrier_destroy(&start);
		pthread_barrier_destroy(&end);
	}
	for (unsigned c = 0; c < r->n_cores; c++) {
		rx_ticks += cr[c].rx_ticks;
		nic_ticks += cr[c].nic_ticks;
		nic_pkts += cr[c].nic_pkts;
		s.pkts += cr[c].pkts;
		s.short_rounds += cr[c].short_rounds;
		s.rounds += cr[c].rounds;
		s.excluded += cr[c].excluded;
		s.dry_steps += cr[c].dry_steps;
	}
	if (s.pkts != 0) {
		s.cyc_per_pkt = (double)rx_ticks / (double)s.pkts;
		s.ns_per_pkt = s.cyc_per_pkt * clk.ns_per_tick;
	}
	if (nic_pkts != 0)
		s.nic_ns_per_pkt = (double)nic_ticks / (double)nic_pkts * clk.ns_per_tick;
	return s;
}

/* Quiescent check after a configuration: the census balances (offered =
 * delivered + dropped), every packet delivered was received and freed, no
 * fast-path invariant violation, the allocator never failed. A benchmark
 * that measured something else must not print a number. Drops are returned
 * (RxArr with two threads; never with one, which wait_for_round enforces). */
static int rig_check(struct rig *r, uint64_t *drops)
{
	struct rxb_census c = { 0 };
	struct rxb_err err = { 0 };
	int rc = 0;

	switch (r->ifc != NULL ? N_ARCH : r->arch) {
	case A_PRIVRING:
		for (unsigned q = 0; q < r->n_cores && rc == 0; q++)
			rc = rxb_privring_census(r->pr, q, &c, NULL, &err);
		break;
	case A_RXBISECT:
		rc = rxb_bisect_census(r->bs, &c, NULL, &err);
		break;
	case A_SHRING_ARR:
	case A_SHRING_LIST:
		rc = rxb_shring_census(r->sh, &c, NULL, &err);
		break;
	default: /* --api iface */
		rc = rxb_iface_census(r->ifc, &c, &err);
		break;
	}
	for (unsigned core = 0; core < r->n_cores && rc == 0; core++) {
		const struct rxb_sw_stats *sw = r->ifc != NULL ? rxb_iface_sw_stats(r->ifc, core)
						: r->arch == A_PRIVRING
							? rxb_privring_sw_stats(r->pr, core)
						: r->arch == A_RXBISECT
							? rxb_bisect_sw_stats(r->bs, core)
							: rxb_shring_sw_stats(r->sh, core);

		if (rxb_counter_read(&sw->c[RXB_SW_ORDER_ERRORS]) ||
		    rxb_counter_read(&sw->c[RXB_SW_ALLOC_FAIL])) {
			rxb_err_set(
				&err, "core %u: %llu order errors, %llu allocation failures", core,
				(unsigned long long)rxb_counter_read(&sw->c[RXB_SW_ORDER_ERRORS]),
				(unsigned long long)rxb_counter_read(&sw->c[RXB_SW_ALLOC_FAIL]));
			rc = -EPROTO;
		}
	}
	if (rc == 0 && (c.in_entries || c.app_held || c.received != c.delivered ||
			c.offered != c.delivered + c.dropped)) {
		rxb_err_set(&err,
			    "offered %llu delivered %llu dropped %llu received %llu "
			    "unread %llu held %llu",
			    (unsigned long long)c.offered, (unsigned long long)c.delivered,
			    (unsigned long long)c.dropped, (unsigned long long)c.received,
			    (unsigned long long)c.in_entries, (unsigned long long)c.app_held);
		rc = -EPROTO;
	}
	if (rc != 0)
		fprintf(stderr, "bench: %s check failed: %s\n", arch_name[r->arch], err.msg);
	*drops = c.dropped;
	return rc;
}

/* ------------------------------------------------------------ the driver */

/* A configuration: an arch and a number of core threads. */
struct config {
	enum arch arch;
	unsigned threads;
	char name[32];
	struct rig rig;
	double ns[64], cyc[64], nic[64];
	unsigned n;
	uint64_t pkts, short_rounds, drops, rounds, excluded, dry_steps;
	struct rxb_pool_core_stats pool_stats;
	struct rxb_shring_wait wait;
	bool ok;
};

struct stats {
	double median, min, max;
};

static struct stats stats_of(const double *v, unsigned n)
{
	double s[64];
	struct stats st = { 0, 0, 0 };

	if (n == 0)
		return st;
	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	st.min = s[0];
	st.max = s[n - 1];
	st.median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	return st;
}

struct opts {
	unsigned reps, round;
	uint64_t ms, fixed_rounds, outlier_us;
	const char *json, *only;
	bool threads;
	bool iface; /* --api iface */
};

static void usage(void)
{
	fprintf(stderr,
		"usage: bench_rings [--reps N (1..64)] [--ms T] [--round K (1..%u)] "
		"[--outlier-us U] [--json PATH] [--only NAME] [--rounds N] [--no-threads] "
		"[--api design|iface]\n",
		AX_SIZE);
	exit(2);
}

static struct opts parse(int argc, char **argv)
{
	struct opts o = { .reps = 9, .round = 128, .ms = 150, .outlier_us = 50, .threads = true };

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--no-threads") == 0) {
			o.threads = false;
			continue;
		}
		if (v == NULL)
			usage();
		i++;
		if (strcmp(a, "--reps") == 0)
			o.reps = (unsigned)strtoul(v, NULL, 10);
		else if (strcmp(a, "--ms") == 0)
			o.ms = strtoull(v, NULL, 10);
		else if (strcmp(a, "--round") == 0)
			o.round = (unsigned)strtoul(v, NULL, 10);
		else if (strcmp(a, "--rounds") == 0)
			o.fixed_rounds = strtoull(v, NULL, 10);
		else if (strcmp(a, "--outlier-us") == 0)
			o.outlier_us = strtoull(v, NULL, 10);
		else if (strcmp(a, "--json") == 0)
			o.json = v;
		else if (strcmp(a, "--only") == 0)
			o.only = v;
		else if (strcmp(a, "--api") == 0 &&
			 (strcmp(v, "design") == 0 || strcmp(v, "iface") == 0))
			o.iface = strcmp(v, "iface") == 0;
		else
			usage();
	}
	/* A round must fit an Ax ring: rxBisect's NIC cannot deliver more to
	 * one core than its Ax holds before software refills it. */
	if (o.reps == 0 || o.reps > 64 || o.round == 0 || o.round > AX_SIZE || o.ms == 0 ||
	    o.outlier_us == 0)
		usage();
	return o;
}

static void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];

	snprintf(buf, len, "unknown");
	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) == 0 && colon != NULL) {
			snprintf(buf, len, "%s", colon + 2);
			buf[strcspn(buf, "\n")] = 0;
			break;
		}
	}
	if (f != NULL)
		fclose(f);
}

static double median_of(const struct config *c)
{
	return c && c->ok ? stats_of(c->ns, c->n).median : 0.0;
}

/* a / b, 0 when b is not a positive number (a failed baseline). */
static double ratio(double a, double b)
{
	return b > 0 ? a / b : 0.0;
}

static struct config *find(struct config *cfg, unsigned n, const char *name)
{
	for (unsigned i = 0; i < n; i++)
		if (strcmp(cfg[i].name, name) == 0)
			return cfg[i].ok ? &cfg[i] : NULL;
	return NULL;
}

/* The baseline a row is compared with: privring with as many threads. */
static struct config *base_of(struct config *cfg, unsigned n, const struct config *c)
{
	return find(cfg, n, c->threads > 1 ? "privring_2threads" : "privring");
}

/* Median over repetitions of c / base within each repetition: both were
 * measured back to back, so drift of the machine cancels. */
static double paired_ratio(const struct config *c, const struct config *base)
{
	double r[64];

	if (c == NULL || base == NULL || c->n != base->n)
		return 0.0;
	for (unsigned i = 0; i < c->n; i++)
		r[i] = ratio(c->ns[i], base->ns[i]);
	return stats_of(r, c->n).median;
}

static double excluded_pct(const struct config *c)
{
	return c->rounds ? 100.0 * (double)c->excluded / (double)c->rounds : 0.0;
}

static void json_stats(FILE *f, const struct config *c, const struct config *base)
{
	struct stats ns = stats_of(c->ns, c->n), cyc = stats_of(c->cyc, c->n),
		     nic = stats_of(c->nic, c->n);

	fprintf(f,
		"    \"%s\": {\"median\": %.3f, \"min\": %.3f, \"max\": %.3f, "
		"\"cycles_per_pkt_median\": %.1f, \"nic_side_ns_per_pkt_median\": %.3f, "
		"\"vs_privring\": %.3f, \"vs_privring_paired\": %.3f, \"threads\": %u, "
		"\"packets\": %llu, \"drops\": %llu, \"rounds\": %llu, \"excluded_rounds\": %llu, "
		"\"short_rounds\": %llu, \"nic_dry_turns\": %llu, \"allocator_bulk_moves\": %llu, "
		"\"samples\": [",
		c->name, ns.median, ns.min, ns.max, cyc.median, nic.median,
		ratio(ns.median, median_of(base)), paired_ratio(c, base), c->threads,
		(unsigned long long)c->pkts, (unsigned long long)c->drops,
		(unsigned long long)c->rounds, (unsigned long long)c->excluded,
		(unsigned long long)c->short_rounds, (unsigned long long)c->dry_steps,
		(unsigned long long)(c->pool_stats.alloc_refill + c->pool_stats.free_flush));
	for (unsigned i = 0; i < c->n; i++)
		fprintf(f, "%s%.3f", i ? ", " : "", c->ns[i]);
	fprintf(f, "]");
	if (c->arch == A_SHRING_ARR && c->wait.returned)
		fprintf(f,
			", \"descriptor_return_wait_ns\": {\"mean\": %.0f, \"max\": %.0f}, "
			"\"held_back_max\": %llu",
			(double)c->wait.wait_sum / (double)c->wait.returned * clk.ns_per_tick,
			(double)c->wait.wait_max * clk.ns_per_tick,
			(unsigned long long)c->wait.held_back_max);
	fprintf(f, "}");
}

static void json_num(FILE *f, const char *key, const struct config *c, const char *after)
{
	if (c != NULL)
		fprintf(f, "%s%.3f%s", key, median_of(c), after);
	else
		fprintf(f, "%snull%s", key, after);
}

static int write_json(const char *path, struct config *cfg, unsigned n, const struct opts *o)
{
	FILE *f = fopen(path, "w");
	struct config *pr = find(cfg, n, "privring"), *bs = find(cfg, n, "rxbisect");
	char model[128];

	if (f == NULL) {
		fprintf(stderr, "bench: %s: %s\n", path, strerror(errno));
		return -1;
	}
	cpu_model(model, sizeof(model));
	fprintf(f, "{\n  \"rx_ns_per_pkt\": {");
	json_num(f, "\"privring\": ", pr, ", ");
	json_num(f, "\"rxbisect\": ", bs, ", ");
	json_num(f, "\"shring_arr\": ", find(cfg, n, "shring_arr"), ", ");
	json_num(f, "\"shring_list\": ", find(cfg, n, "shring_list"), "},\n");
	json_num(f, "  \"shring_arr_2threads_ns_per_pkt\": ", find(cfg, n, "shring_arr_2threads"),
		 ",\n");
	if (pr && bs)
		fprintf(f,
			"  \"rxbisect_vs_privring\": %.3f,\n  \"rxbisect_vs_privring_paired\": "
			"%.3f,\n",
			ratio(median_of(bs), median_of(pr)), paired_ratio(bs, pr));
	fprintf(f, "  \"stats\": {\n");
	for (unsigned i = 0, first = 1; i < n; i++) {
		if (!cfg[i].ok)
			continue;
		fprintf(f, "%s", first ? "" : ",\n");
		json_stats(f, &cfg[i], base_of(cfg, n, &cfg[i]));
		first = 0;
	}
	fprintf(f,
		"\n  },\n  \"method\": {\"timed\": \"per core: rx bursts of %u + free of each "
		"burst through the core's rxb_pool cache; NIC side outside the timed region\", "
		"\"api\": \"%s\", \"packets_per_round\": %u, \"repetitions\": %u, "
		"\"ms_per_repetition\": %llu, \"timer_overhead_ticks\": %llu, \"tsc_ghz\": %.3f, "
		"\"outlier_us\": %llu, \"ring_size\": %u, \"ax_size\": %u, \"pool_cache\": %u},\n",
		BURST,
		o->iface ? "rxb_iface_rx/_free (rxb_iface_deliver on the NIC side)"
			 : "rxb_privring_rx_burst/_free, rxb_bisect_rx/_free, "
			   "rxb_shring_rx_burst/_free",
		o->round, o->reps, (unsigned long long)o->ms, (unsigned long long)clk.overhead,
		1.0 / clk.ns_per_tick, (unsigned long long)o->outlier_us, RING_SIZE, AX_SIZE,
		POOL_CACHE);
	fprintf(f,
		"  \"machine\": {\"cpu\": \"%s\", \"online_cpus\": %ld, \"allowed_cpus\": %u, "
		"\"two_thread_cpus\": [%d, %d], \"two_thread_pinned\": %s, \"compiler\": \"%s\", "
		"\"build_type\": \"%s\", \"tsc\": %s}\n}\n",
		model, sysconf(_SC_NPROCESSORS_ONLN), n_allowed_cpus, pin_cpu[0], pin_cpu[1],
		atomic_load(&pin_failed) ? "false" : "true", __VERSION__, RXB_BENCH_BUILD_TYPE,
		HAVE_TSC ? "true" : "false");
	return fclose(f) == 0 ? 0 : -1;
}

static void print_table(struct config *cfg, unsigned n)
{
	printf("\n%-20s %7s %7s %7s %7s %8s %8s %6s %8s\n", "arch", "median", "min", "max",
	       "cyc/pkt", "ratio vs", "(paired)", "excl", "drops");
	printf("%-20s %7s %7s %7s %7s %8s %8s %6s %8s\n", "", "ns/pkt", "ns/pkt", "ns/pkt",
	       "median", "privring", "", "rounds", "");
	for (unsigned i = 0; i < n; i++) {
		struct config *c = &cfg[i], *base = base_of(cfg, n, c);
		struct stats ns = stats_of(c->ns, c->n);

		if (!c->ok)
			continue;
		printf("%-20s %7.2f %7.2f %7.2f %7.1f %7.3fx %7.3fx %5.1f%% %8llu\n", c->name,
		       ns.median, ns.min, ns.max, stats_of(c->cyc, c->n).median,
		       ratio(ns.median, median_of(base)), paired_ratio(c, base), excluded_pct(c),
		       (unsigned long long)c->drops);
	}
	printf("2-thread rows compare with privring_2threads (CPUs %d and %d%s). NIC side (not "
	       "timed), median ns/pkt:",
	       pin_cpu[0], pin_cpu[1],
	       atomic_load(&pin_failed) ? ", NOT pinned: affinity refused" : "");
	for (unsigned i = 0; i < n; i++)
		if (cfg[i].ok)
			printf(" %s %.1f", cfg[i].name, stats_of(cfg[i].nic, cfg[i].n).median);
	printf("\n");
}

/* Create the configurations asked for: the single-thread rows, then the
 * 2-thread rows — RxArr sharing one ring, and privRing and rxBisect as
 * controls for what two threads cost on this machine without sharing. */
static unsigned setup(struct config *cfg, const struct opts *o)
{
	unsigned n = 0, cpus;

	choose_cpus();
	cpus = n_allowed_cpus;

	for (unsigned t = 1; t <= MAX_THREADS; t++) {
		for (unsigned a = 0; a < N_ARCH; a++) {
			struct config *c = &cfg[n];

			if (t > 1 && (a == A_SHRING_LIST || !o->threads || cpus < 2))
				continue;
			c->arch = a;
			c->threads = t;
			snprintf(c->name, sizeof(c->name), "%s%s", arch_name[a],
				 t > 1 ? "_2threads" : "");
			if (o->only && strcmp(o->only, c->name) != 0)
				continue;
			if (rig_create(&c->rig, a, t, o->iface) != 0)
				exit(1);
			c->ok = true;
			n++;
		}
	}
	if (n == 0 && o->only && strstr(o->only, "_2threads") && o->threads && cpus < 2) {
		fprintf(stderr, "bench_rings: %s needs 2 CPUs this process may use; it has %u\n",
			o->only, cpus);
		exit(1);
	}
	if (n == 0)
		usage();
	return n;
}

static void run_reps(struct config *cfg, unsigned n, const struct opts *o)
{
	printf("bench_rings: %u reps x %llu ms per configuration, rounds of %u packets "
	       "(bursts of %u); timer overhead %llu ticks/round subtracted; TSC %.3f GHz; "
	       "rounds > %llu us excluded\n",
	       o->reps, (unsigned long long)o->ms, o->round, BURST,
	       (unsigned long long)clk.overhead, 1.0 / clk.ns_per_tick,
	       (unsigned long long)o->outlier_us);
	for (unsigned i = 0; i < n; i++) /* warm-up: caches, branch predictors */
		(void)measure(&cfg[i].rig, o->round, o->ms / 3 + 1, 0);
	/* Repetitions interleaved across configurations, so slow drift of a
	 * shared machine hits every design alike. */
	for (unsigned rep = 0; rep < o->reps; rep++) {
		for (unsigned i = 0; i < n; i++) {
			struct config *c = &cfg[i];
			struct sample s = measure(&c->rig, o->round, o->ms, 0);

			c->ns[c->n] = s.ns_per_pkt;
			c->cyc[c->n] = s.cyc_per_pkt;
			c->nic[c->n++] = s.nic_ns_per_pkt;
			c->pkts += s.pkts;
			c->rounds += s.rounds;
			c->excluded += s.excluded;
			c->dry_steps += s.dry_steps;
			c->short_rounds += s.short_rounds;
		}
		fprintf(stderr, "\rrep %u/%u", rep + 1, o->reps);
	}
	fprintf(stderr, "\n");
}

int main(int argc, char **argv)
{
	struct opts o = parse(argc, argv);
	static struct config cfg[2 * N_ARCH];
	unsigned n = setup(cfg, &o);
	int rc = 0;

	clock_calibrate(o.outlier_us);
	if (o.fixed_rounds) {
		/* Profiling mode: one fixed run each, no warm-up, every round
		 * counted (under valgrind every round looks interrupted). */
		clk.outlier = UINT64_MAX;
		for (unsigned i = 0; i < n; i++) {
			struct sample s = measure(&cfg[i].rig, o.round, 0, o.fixed_rounds);

			printf("%s: %llu packets through rx_round_%s%s\n", cfg[i].name,
			       (unsigned long long)s.pkts, o.iface ? "iface_" : "",
			       arch_name[cfg[i].arch]);
		}
	} else {
		run_reps(cfg, n, &o);
	}
	for (unsigned i = 0; i < n; i++) {
		struct config *c = &cfg[i];

		if (rig_check(&c->rig, &c->drops) != 0)
			c->ok = false, rc = 1;
		rxb_pool_stats(c->rig.pool, RXB_NONE, &c->pool_stats);
		if (c->arch == A_SHRING_ARR)
			rxb_shring_wait_stats(c->rig.ifc ? rxb_iface_shring(c->rig.ifc) : c->rig.sh,
					      0, &c->wait);
		if (c->short_rounds && c->threads == 1)
			fprintf(stderr, "bench: %s: %llu short rounds (drops %llu)\n", c->name,
				(unsigned long long)c->short_rounds, (unsigned long long)c->drops);
	}
	if (!o.fixed_rounds) {
		print_table(cfg, n);
		if (o.json && write_json(o.json, cfg, n, &o) != 0)
			rc = 1;
	}
	for (unsigned i = 0; i < n; i++)
		rig_destroy(&cfg[i].rig);
	return rc;
}
