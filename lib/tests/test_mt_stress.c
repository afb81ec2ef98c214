/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Multi-threaded stress of every receive interface through the generic API
 * (rxb/iface.h), from one template: a table of configurations, one NIC
 * thread function, one core thread function, one control thread function
 * (dynamic shRing only) and one checker, all parameterized by the table row.
 *
 *   NIC threads    offer packets in random bursts: random destinations or a
 *                  whole burst to one destination (long ones too), a few
 *                  pipeline drops, rxb_iface_tick() after every burst. Rows
 *                  with several NIC threads give each the destinations of
 *                  whole source groups (rxb_iface_srcs_of: a privRing ring,
 *                  a shared ring, an association set), group g to thread
 *                  g mod N, the rule the emulator and the driver shard by;
 *                  they never tick (coalescing is one thread's).
 *   core threads   (one per allocator endpoint; a spool thread polls every
 *                  queue q with q % n_cores == its core) receive random batch
 *                  sizes, hold a random number of buffers, free them through
 *                  rxb_iface_free() on their own core, and now and then stall
 *                  by spinning a random number of iterations.
 *   control thread (dyn_shring) feeds rxb_iface_dyn_sample() synthetic
 *                  samples, alternately high and low, about one per
 *                  millisecond, with a window of 2: the mode flips every few
 *                  milliseconds for the whole run.
 *
 * Every packet carries its per-destination sequence number as its RSS hash
 * and a length derived from it, so a core catches a lost, duplicated,
 * reordered or torn completion the moment it sees one; a shared in-use table
 * catches a buffer held twice. At the end the NIC stops, the cores drain
 * until everything delivered has been received (bounded by an iteration
 * count), the threads are joined and rxb_iface_check() must pass (packet and
 * buffer conservation, no duplicates), and: every core received something,
 * drops are only of the causes the design can produce, no core counted an
 * order error, the census agrees with what the threads counted.
 *
 * The machine has 2 CPUs and this runs 3 to 5 threads: every wait is either
 * bounded or yields. Packets per interface: 10^7; 10^6 under TSan, 3 x 10^6
 * under ASan; RXB_STRESS_PACKETS overrides. RXB_STRESS_ONLY=name runs one
 * row of the table.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "harness.h"
#include "rxb/iface.h"
#include "rxb/shape.h"
#include "rxb/shring.h"

/* ThreadSanitizer slows this 10-20x, ASan about 2-3x: 10^6 and 3 x 10^6
 * packets keep each sanitized run to seconds on two CPUs (about 10 s and
 * 3 s when measured). */
#if defined(__SANITIZE_THREAD__)
#define STRESS_TSAN 1
#elif defined(__SANITIZE_ADDRESS__)
#define STRESS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define STRESS_TSAN 1
#elif __has_feature(address_sanitizer)
#define STRESS_ASAN 1
#endif
#endif
#if defined(STRESS_TSAN)
#define DEFAULT_PACKETS 1000000ull
#elif defined(STRESS_ASAN)
#define DEFAULT_PACKETS 3000000ull
#else
#define DEFAULT_PACKETS 10000000ull
#endif

#define MAX_CORES           8
#define MAX_POLLERS         8
#define MAX_NICS            2
#define HOLD_MAX            256u        /* buffers a poller may hold unfreed */
#define POOL_CACHE          32u         /* harness.h: per-core cache of 32 */
#define DRAIN_MAX_ITERS     20000000ull /* main's bounded wait for the drain */
#define COALESCE_TIMEOUT_NS 5000u
#define DYN_PERIOD_NS       1000000ull /* one controller sample per ms */

/* Drop causes a design can produce (bit per enum rxb_drop_cause). */
#define CAUSE(c)     (1u << (c))
#define PLAUSIBLE_RX (CAUSE(RXB_DROP_NO_RX_DESC) | CAUSE(RXB_DROP_PIPELINE))
#define PLAUSIBLE_BISECT \
	(CAUSE(RXB_DROP_NO_AX_BUF) | CAUSE(RXB_DROP_NO_BX_SLOT) | CAUSE(RXB_DROP_PIPELINE))

/* One row of the table: everything that differs between interfaces. */
struct stress_case {
	const char *name;
	struct rxb_iface_config ic;
	unsigned plausible;   /* CAUSE() mask */
	bool control;         /* run the dynamic shRing control thread */
	uint32_t nic_threads; /* NIC threads */
};

static struct stress_case *stress_cases(size_t *n)
{
	static struct stress_case c[] = {
		{ "privring", { .arch = RXB_ARCH_PRIVRING, .n_cores = 2 }, PLAUSIBLE_RX, false, 1 },
		{ "small_privring",
		  { .arch = RXB_ARCH_SMALL_PRIVRING, .n_cores = 2 },
		  PLAUSIBLE_RX,
		  false,
		  1 },
		{ "shring", { .arch = RXB_ARCH_SHRING, .n_cores = 3 }, PLAUSIBLE_RX, false, 1 },
		{ "shring_list",
		  { .arch = RXB_ARCH_SHRING_LIST, .n_cores = 3 },
		  PLAUSIBLE_RX,
		  false,
		  1 },
		{ "shring_list_batch8",
		  { .arch = RXB_ARCH_SHRING_LIST, .n_cores = 3, .rx_size = 256, .rxlist_slots = 8 },
		  PLAUSIBLE_RX,
		  false,
		  1 },
		{ "rxbisect",
		  { .arch = RXB_ARCH_RXBISECT, .n_cores = 3, .ax_size = 64, .bx_size = 512 },
		  PLAUSIBLE_BISECT,
		  false,
		  1 },
		{ "rxbisect_coalesce",
		  { .arch = RXB_ARCH_RXBISECT,
		    .n_cores = 3,
		    .ax_size = 64,
		    .bx_size = 512,
		    .coalesce = true,
		    .coalesce_timeout = COALESCE_TIMEOUT_NS,
		    .ax_policy = RXB_AX_ROUND_ROBIN },
		  PLAUSIBLE_BISECT,
		  false,
		  1 },
		{ "rxbisect_2groups",
		  { .arch = RXB_ARCH_RXBISECT,
		    .n_cores = 4,
		    .ax_size = 32,
		    .bx_size = 256,
		    .n_groups = 2,
		    .ax_policy = RXB_AX_MOST_AVAILABLE },
		  PLAUSIBLE_BISECT,
		  false,
		  1 },
		{ "rxbisect_2groups_coalesce",
		  { .arch = RXB_ARCH_RXBISECT,
		    .n_cores = 4,
		    .ax_size = 32,
		    .bx_size = 256,
		    .n_groups = 2,
		    .coalesce = true,
		    .coalesce_timeout = COALESCE_TIMEOUT_NS },
		  PLAUSIBLE_BISECT,
		  false,
		  1 },
		{ "privring_2nics",
		  { .arch = RXB_ARCH_PRIVRING, .n_cores = 4 },
		  PLAUSIBLE_RX,
		  false,
		  2 },
		{ "shring_2rings_2nics",
		  { .arch = RXB_ARCH_SHRING, .n_cores = 4, .share_degree = 2 },
		  PLAUSIBLE_RX,
		  false,
		  2 },
		{ "rxbisect_2groups_2nics",
		  { .arch = RXB_ARCH_RXBISECT,
		    .n_cores = 4,
		    .ax_size = 32,
		    .bx_size = 256,
		    .n_groups = 2,
		    .ax_policy = RXB_AX_RANDOM },
		  PLAUSIBLE_BISECT,
		  false,
		  2 },
		{ "dyn_shring",
		  { .arch = RXB_ARCH_DYN_SHRING,
		    .n_cores = 2,
		    .rx_size = 256,
		    .dyn = { .tput_gbps_threshold = 100,
			     .mem_bw_gibps_threshold = 10,
			     .window = 2,
			     .to_shared_num = 1,
			     .to_shared_den = 2,
			     .to_private_num = 7,
			     .to_private_den = 8,
			     .overload_stddev_over_median = 32,
			     .sample_period = DYN_PERIOD_NS } },
		  PLAUSIBLE_RX,
		  true,
		  1 },
		{ "spool_spp",
		  { .arch = RXB_ARCH_SPOOL,
		    .n_cores = 2,
		    .spool = { .n_ports = 4, .mode = RXB_SPOOL_SPP, .low = 32, .high = 256 } },
		  PLAUSIBLE_RX,
		  false,
		  1 },
	};

	*n = sizeof(c) / sizeof(c[0]);
	return c;
}

/* ------------------------------------------------------------ the run */

/* Per-destination sequence numbers travel as the RSS hash; the length is a
 * function of them, so a torn entry shows up as a mismatch. */
static uint32_t pkt_len(uint32_t seq)
{
	return 64 + seq % 1437;
}

struct run;

struct core_thread {
	pthread_t tid;
	struct run *run;
	uint32_t core; /* allocator endpoint; polls q with q % n_cores == core */
	uint64_t seed;
	/* Written by this thread only; main reads `received_pub` while
	 * running (relaxed), the rest after join. */
	rxb_counter_t received_pub;
	uint64_t received[MAX_POLLERS];
	uint64_t polls, stalls, errors;
};

/* One NIC thread: its destinations and what it counted (read after join). */
struct nic_thread {
	pthread_t tid;
	struct run *run;
	uint32_t id, n_dests;
	uint32_t dest[MAX_POLLERS];
	uint64_t packets; /* its share of run->packets */
	uint64_t offered, delivered, drops[RXB_DROP_CAUSES], nic_errors;
};

struct run {
	const struct stress_case *sc;
	struct rxb_iface *iface;
	struct test_pool tp;
	uint32_t n_dests, n_pollers, n_cores, n_nics;
	uint64_t packets;
	_Atomic unsigned char *in_use; /* per buffer: held by a core right now */
	_Atomic int nic_done;          /* NIC offered everything */
	_Atomic int stop;              /* cores: free what you hold and leave */
	struct core_thread core[MAX_CORES];
	struct nic_thread nic[MAX_NICS];
	pthread_t ctl_tid;
	/* The NIC threads' counts summed, after join. */
	uint64_t offered, delivered, drops[RXB_DROP_CAUSES], nic_errors;
	uint32_t next_seq[MAX_POLLERS]; /* per destination: its NIC thread's */
	uint64_t samples;               /* control thread: samples fed */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Bounded busy work that the compiler cannot remove, yielding now and then
 * so an oversubscribed CPU gets to run the others. */
static void spin(uint32_t iters)
{
	for (uint32_t k = 0; k < iters; k++) {
		atomic_signal_fence(memory_order_seq_cst);
		if ((k & 4095) == 4095)
			sched_yield();
	}
}

/* One packet to dest, counted by its NIC thread. */
static void offer(struct nic_thread *n, uint32_t dest, uint64_t now, uint64_t *rnd)
{
	struct run *r = n->run;
	struct rxb_rx_meta m = { .now = now };
	struct rxb_delivery d;
	int rc;

	n->offered++;
	if ((test_rand(rnd) & 4095) == 0) {
		rxb_iface_drop_pipeline(r->iface, dest);
		n->drops[RXB_DROP_PIPELINE]++;
		return;
	}
	m.dest = dest;
	m.hash = r->next_seq[dest];
	m.len = pkt_len(m.hash);
	rc = rxb_iface_deliver(r->iface, &m, &d);
	if (rc == 0) {
		n->delivered++;
		r->next_seq[dest]++;
		n->nic_errors += d.ring != dest || d.buf == RXB_BUF_NONE;
	} else if (rc == 1 && d.drop >= 0 && d.drop < RXB_DROP_CAUSES) {
		n->drops[d.drop]++;
	} else {
		n->nic_errors++;
	}
}

static void *nic_main(void *arg)
{
	struct nic_thread *n = arg;
	struct run *r = n->run;
	uint64_t rnd = r->sc->ic.seed * 7919 + 17 + n->id * 104729, now = now_ns();

	while (n->offered < n->packets) {
		uint64_t x = test_rand(&rnd);
		/* Mostly short bursts; one in 16 long (past small rings). */
		uint32_t len = (x & 15) == 0 ? 64 + (uint32_t)(x >> 8) % 961
					     : 1 + (uint32_t)(x >> 8) % 64;
		bool one_dest = ((x >> 4) & 3) == 0;
		uint32_t dest = n->dest[test_rand_below(&rnd, n->n_dests)];

		if (len > n->packets - n->offered)
			len = (uint32_t)(n->packets - n->offered);
		for (uint32_t k = 0; k < len; k++)
			offer(n, one_dest ? dest : n->dest[test_rand_below(&rnd, n->n_dests)], now,
			      &rnd);
		now = now_ns();
		if (r->n_nics == 1)
			rxb_iface_tick(r->iface, now);
		/* Let the cores have the CPU now and then: two CPUs, more
		 * threads, and a NIC that never pauses would make nearly
		 * every packet a drop. */
		if (((x >> 12) & 3) == 0)
			sched_yield();
	}
	/* Write out every coalesced notice still held. */
	while (r->n_nics == 1 && rxb_iface_tick(r->iface, UINT64_MAX) != 0)
		;
	return NULL;
}

/* Deal the destinations to the NIC threads by source group and split the
 * packets; false (with a message) if a thread would get no destination. */
static bool deal_nics(struct run *r)
{
	for (uint32_t t = 0; t < r->n_nics; t++)
		r->nic[t] = (struct nic_thread){
			.run = r,
			.id = t,
			.packets = r->packets / r->n_nics + (t < r->packets % r->n_nics),
		};
	for (uint32_t d = 0; d < r->n_dests; d++) {
		struct rxb_src_range sr;
		struct nic_thread *n;

		if (rxb_iface_srcs_of(r->iface, d, 0, &sr) != 0)
			return false;
		n = &r->nic[sr.group % r->n_nics];
		n->dest[n->n_dests++] = d;
	}
	for (uint32_t t = 0; t < r->n_nics; t++)
		if (r->nic[t].n_dests == 0) {
			fprintf(stderr, "%s: NIC thread %u has no destination\n", r->sc->name, t);
			return false;
		}
	return true;
}

/* Run the NIC threads to the end; their counts summed into r. */
static void run_nics(struct run *r)
{
	for (uint32_t t = 0; t < r->n_nics; t++)
		CHECK_EQ(pthread_create(&r->nic[t].tid, NULL, nic_main, &r->nic[t]), 0);
	for (uint32_t t = 0; t < r->n_nics; t++) {
		const struct nic_thread *n = &r->nic[t];

		pthread_join(n->tid, NULL);
		r->offered += n->offered;
		r->delivered += n->delivered;
		r->nic_errors += n->nic_errors;
		for (int c = 0; c < RXB_DROP_CAUSES; c++)
			r->drops[c] += n->drops[c];
	}
	atomic_store_explicit(&r->nic_done, 1, memory_order_release);
}

/* Check one received packet and mark its buffer held. */
static void core_take(struct core_thread *t, uint32_t q, uint32_t *next_seq,
		      const struct rxb_pkt *p)
{
	struct run *r = t->run;

	if (p->buf >= r->tp.pool->cfg.n_bufs) {
		t->errors++;
		return;
	}
	/* Claim: the previous state must be "free". Relaxed is enough: the
	 * rings and the pool order every hand-over of the buffer, and the
	 * exchange alone catches two holders. */
	if (atomic_exchange_explicit(&r->in_use[p->buf], 1, memory_order_relaxed) != 0) {
		fprintf(stderr, "%s: core %u: buffer %llu received while held\n", r->sc->name, q,
			(unsigned long long)p->buf);
		t->errors++;
	}
	/* Destination q is polled as queue q, in delivery order: the
	 * sequence numbers must come back consecutive. */
	if (p->len != pkt_len(p->hash) || p->hash != *next_seq) {
		if (t->errors++ < 5)
			fprintf(stderr, "%s: queue %u: packet seq %u len %u, expected seq %u\n",
				r->sc->name, q, p->hash, p->len, *next_seq);
	}
	*next_seq = p->hash + 1;
}

static void core_free(struct core_thread *t, uint32_t q, rxb_buf_t *held, unsigned n)
{
	for (unsigned k = 0; k < n; k++)
		if (held[k] < t->run->tp.pool->cfg.n_bufs &&
		    atomic_exchange_explicit(&t->run->in_use[held[k]], 0, memory_order_relaxed) !=
			    1)
			t->errors++;
	rxb_iface_free(t->run->iface, q, held, n);
}

static void *core_main(void *arg)
{
	struct core_thread *t = arg;
	struct run *r = t->run;
	uint64_t rnd = t->seed;
	rxb_buf_t held[MAX_POLLERS][HOLD_MAX];
	unsigned n_held[MAX_POLLERS] = { 0 };
	uint32_t next_seq[MAX_POLLERS] = { 0 };
	uint64_t total = 0;
	unsigned empty_in_a_row = 0;

	while (!atomic_load_explicit(&r->stop, memory_order_acquire)) {
		bool got_any = false;

		for (uint32_t q = t->core, s = 0; q < r->n_pollers; q += r->n_cores, s++) {
			struct rxb_pkt pk[RXB_BURST_MAX];
			unsigned want = 1 + test_rand_below(&rnd, RXB_BURST_MAX), got, k;
			unsigned keep;

			/* Room to hold the whole batch. */
			if (n_held[s] + want > HOLD_MAX) {
				core_free(t, q, held[s], n_held[s]);
				n_held[s] = 0;
			}
			got = rxb_iface_rx(r->iface, q, pk, want, now_ns());
			t->polls++;
			for (k = 0; k < got; k++) {
				core_take(t, q, &next_seq[s], &pk[k]);
				held[s][n_held[s]++] = pk[k].buf;
			}
			t->received[s] += got;
			total += got;
			got_any |= got != 0;
			/* Free a random part of what is held, oldest first. */
			keep = test_rand_below(&rnd, n_held[s] + 1);
			if (n_held[s] - keep != 0) {
				core_free(t, q, held[s], n_held[s] - keep);
				memmove(held[s], held[s] + n_held[s] - keep,
					keep * sizeof(held[s][0]));
				n_held[s] = keep;
			}
		}
		atomic_store_explicit(&t->received_pub, total, memory_order_relaxed);
		/* Now and then the core is busy elsewhere for a while. */
		if ((test_rand(&rnd) & 255) == 0) {
			spin(test_rand_below(&rnd, 200000));
			t->stalls++;
		}
		empty_in_a_row = got_any ? 0 : empty_in_a_row + 1;
		if (empty_in_a_row >= 4)
			sched_yield();
	}
	for (uint32_t q = t->core, s = 0; q < r->n_pollers; q += r->n_cores, s++)
		core_free(t, q, held[s], n_held[s]);
	return NULL;
}

/* Synthetic controller samples: high until the switch to shared is done,
 * then low until the switch back is done, one sample per millisecond
 * (waiting by yielding, bounded by the run's end). */
static void *ctl_main(void *arg)
{
	struct run *r = arg;
	uint64_t next = now_ns();
	uint32_t n = 0;

	while (!atomic_load_explicit(&r->nic_done, memory_order_acquire)) {
		const struct rxb_dynctl *dc = rxb_iface_dynctl(r->iface);
		bool want_shared = rxb_dynctl_mode(dc) == RXB_DYN_PRIVATE;
		struct rxb_dynctl_sample s = {
			.tput_gbps = want_shared ? 200 : 10,
			.mem_bw_gibps = want_shared ? 30 : 1,
			/* Every 16th sample in shared mode reports overload:
			 * the immediate way back. */
			.overloaded_cores = !want_shared && (++n & 15) == 0,
		};

		if (now_ns() < next) {
			sched_yield();
			continue;
		}
		next += DYN_PERIOD_NS;
		rxb_iface_dyn_sample(r->iface, &s);
		r->samples++;
	}
	return NULL;
}

static uint64_t received_now(struct run *r)
{
	uint64_t sum = 0;

	for (uint32_t c = 0; c < r->n_cores; c++)
		sum += rxb_counter_read(&r->core[c].received_pub);
	return sum;
}

/* Wait, bounded by iterations, until the cores received all the NIC
 * delivered. Returns 1 when they did. */
static int drain(struct run *r)
{
	for (uint64_t it = 0; it < DRAIN_MAX_ITERS; it++) {
		if (received_now(r) == r->delivered)
			return 1;
		sched_yield();
	}
	fprintf(stderr,
		"%s: drain did not converge after %llu iterations: delivered %llu, "
		"received %llu\n",
		r->sc->name, (unsigned long long)DRAIN_MAX_ITERS, (unsigned long long)r->delivered,
		(unsigned long long)received_now(r));
	for (uint32_t d = 0; d < r->n_dests; d++)
		fprintf(stderr, "  dest %u: %u entries unread\n", d,
			rxb_iface_occupancy(r->iface, d));
	return 0;
}

/* Buffers the interface can tie up at once, plus what the cores hold and
 * cache: the pool never runs dry, so no receive is cut short by it. */
static uint32_t pool_size(const struct rxb_iface_config *ic, uint32_t n_pollers)
{
	uint64_t rx = ic->rx_size ? ic->rx_size : RXB_DEFAULT_RX_SIZE;
	uint64_t ring = 0;

	switch (ic->arch) {
	case RXB_ARCH_SMALL_PRIVRING:
		ring = ic->rx_size ? ic->rx_size : RXB_DEFAULT_SMALL_RX_SIZE;
		break;
	case RXB_ARCH_DYN_SHRING:
		ring = 2 * rx;
		break;
	case RXB_ARCH_RXBISECT:
		ring = ic->ax_size + ic->bx_size;
		break;
	case RXB_ARCH_SPOOL:
		ring = ic->spool.mode == RXB_SPOOL_SPP ? ic->spool.high : ic->spool.depth;
		break;
	default:
		ring = rx *
		       (ic->rxlist_slots > 1 ? ic->rxlist_slots : 1); /* batched RxList: slots */
		break;
	}
	return (uint32_t)(ring * n_pollers + (uint64_t)HOLD_MAX * n_pollers +
			  3ull * POOL_CACHE * ic->n_cores + 2 * RXB_BURST_MAX * ic->n_cores + 1024);
}

static uint64_t packets_per_iface(void)
{
	const char *env = getenv("RXB_STRESS_PACKETS");

	if (env != NULL && *env != '\0')
		return strtoull(env, NULL, 0);
	return DEFAULT_PACKETS;
}

/* Everything checked once the threads are joined. */
static void check_end(struct run *r)
{
	const struct rxb_shring *sh = rxb_iface_privring(r->iface) ? rxb_iface_shring(r->iface)
								   : NULL;
	struct rxb_census cen;
	struct rxb_err err = { 0 };
	uint64_t dropped = 0, received = 0;
	int rc = rxb_iface_check(r->iface, r->tp.pool, &err);

	if (rc != 0)
		fprintf(stderr, "%s: rxb_iface_check: %s\n", r->sc->name, err.msg);
	CHECK_EQ(rc, 0);
	rc = rxb_pool_check(r->tp.pool, &err);
	if (rc != 0)
		fprintf(stderr, "%s: rxb_pool_check: %s\n", r->sc->name, err.msg);
	CHECK_EQ(rc, 0);
	CHECK_EQ(r->nic_errors, 0);
	for (int c = 0; c < RXB_DROP_CAUSES; c++) {
		dropped += r->drops[c];
		if (r->drops[c] != 0 && !(r->sc->plausible & CAUSE(c))) {
			fprintf(stderr,
				"%s: %llu drops of cause %s, which this design cannot "
				"produce\n",
				r->sc->name, (unsigned long long)r->drops[c],
				rxb_drop_cause_name[c]);
			CHECK(0);
		}
	}
	CHECK_EQ(r->offered, r->packets);
	CHECK_EQ(r->offered, r->delivered + dropped);
	for (uint32_t c = 0; c < r->n_cores; c++) {
		CHECK_EQ(r->core[c].errors, 0);
		for (uint32_t q = c, s = 0; q < r->n_pollers; q += r->n_cores, s++) {
			if (r->core[c].received[s] == 0)
				fprintf(stderr, "%s: queue %u received nothing\n", r->sc->name, q);
			CHECK(r->core[c].received[s] > 0);
			received += r->core[c].received[s];
		}
	}
	CHECK_EQ(received, r->delivered);
	for (uint32_t q = 0; q < r->n_pollers; q++) {
		const struct rxb_sw_stats *s = rxb_iface_sw_stats(r->iface, q);

		CHECK_EQ(rxb_counter_read(&s->c[RXB_SW_ORDER_ERRORS]), 0);
		CHECK_EQ(rxb_counter_read(&s->c[RXB_SW_ALLOC_FAIL]), 0);
		if (sh != NULL) { /* dynamic shRing: the shared set too */
			s = rxb_shring_sw_stats(sh, q);
			CHECK_EQ(rxb_counter_read(&s->c[RXB_SW_ORDER_ERRORS]), 0);
			CHECK_EQ(rxb_counter_read(&s->c[RXB_SW_ALLOC_FAIL]), 0);
		}
	}
	/* The library's own counts agree with the threads'. */
	CHECK_EQ(rxb_iface_census(r->iface, &cen, &err), 0);
	CHECK_EQ(cen.offered, r->offered);
	CHECK_EQ(cen.delivered, r->delivered);
	CHECK_EQ(cen.dropped, dropped);
	CHECK_EQ(cen.received, received);
	CHECK_EQ(cen.in_entries, 0);
	CHECK_EQ(cen.app_held, 0);
	/* A run of 10^5 packets lasts several controller periods even
	 * unsanitized; a shorter one (RXB_STRESS_PACKETS) may see no switch. */
	if (r->sc->control && r->packets >= 100000) {
		const struct rxb_dynctl *dc = rxb_iface_dynctl(r->iface);

		CHECK(rxb_counter_read(&dc->stats.switched_to_shared) > 0);
		CHECK(rxb_counter_read(&dc->stats.switched_to_private) > 0);
	}
}

static void report(struct run *r, double secs)
{
	uint64_t dropped = 0;
	uint64_t stalls = 0;

	for (int c = 0; c < RXB_DROP_CAUSES; c++)
		dropped += r->drops[c];
	for (uint32_t c = 0; c < r->n_cores; c++)
		stalls += r->core[c].stalls;
	printf("%-26s offered %9llu delivered %9llu (%5.1f%%) dropped %9llu [", r->sc->name,
	       (unsigned long long)r->offered, (unsigned long long)r->delivered,
	       r->offered ? 100.0 * (double)r->delivered / (double)r->offered : 0.0,
	       (unsigned long long)dropped);
	for (int c = 0, first = 1; c < RXB_DROP_CAUSES; c++) {
		if (r->drops[c] == 0)
			continue;
		printf("%s%s %llu", first ? "" : ", ", rxb_drop_cause_name[c],
		       (unsigned long long)r->drops[c]);
		first = 0;
	}
	printf("] %.2f Mpps offered, %.2f Mpps delivered, %.2f s, stalls %llu",
	       (double)r->offered / secs / 1e6, (double)r->delivered / secs / 1e6, secs,
	       (unsigned long long)stalls);
	if (r->sc->control) {
		const struct rxb_dynctl *dc = rxb_iface_dynctl(r->iface);

		printf(", switches %llu/%llu in %llu samples",
		       (unsigned long long)rxb_counter_read(&dc->stats.switched_to_shared),
		       (unsigned long long)rxb_counter_read(&dc->stats.switched_to_private),
		       (unsigned long long)r->samples);
	}
	printf("\n");
	fflush(stdout);
}

static void run_case(const struct stress_case *sc)
{
	struct run *r = calloc(1, sizeof(*r));
	struct rxb_err err = { 0 };
	uint64_t t0;
	int converged;

	CHECK(r != NULL);
	if (r == NULL)
		return;
	r->sc = sc;
	r->packets = packets_per_iface();
	r->n_cores = sc->ic.n_cores;
	r->n_pollers = sc->ic.arch == RXB_ARCH_SPOOL ? sc->ic.spool.n_ports : sc->ic.n_cores;
	CHECK(r->n_cores <= MAX_CORES && r->n_pollers <= MAX_POLLERS);
	if (test_pool_init(&r->tp, pool_size(&sc->ic, r->n_pollers), r->n_cores) != 0) {
		CHECK(0);
		free(r);
		return;
	}
	r->in_use = calloc(r->tp.pool->cfg.n_bufs, sizeof(*r->in_use));
	r->iface = rxb_iface_create(&sc->ic, r->tp.alloc, &err);
	if (r->iface == NULL)
		fprintf(stderr, "%s: create: %s\n", sc->name, err.msg);
	CHECK(r->iface != NULL && r->in_use != NULL);
	if (r->iface == NULL || r->in_use == NULL)
		goto out;
	r->n_dests = rxb_iface_n_dests(r->iface);
	CHECK_EQ(rxb_iface_n_cores(r->iface), r->n_pollers);
	CHECK_EQ(r->n_dests, r->n_pollers); /* dest q is polled as queue q */
	r->n_nics = sc->nic_threads;
	CHECK(r->n_nics >= 1 && r->n_nics <= MAX_NICS && deal_nics(r));
	if (check_failures_in_test)
		goto out;

	t0 = now_ns();
	for (uint32_t c = 0; c < r->n_cores; c++) {
		r->core[c].run = r;
		r->core[c].core = c;
		r->core[c].seed = 0x9E3779B97F4A7C15ull * (c + 1) + sc->ic.seed;
		CHECK_EQ(pthread_create(&r->core[c].tid, NULL, core_main, &r->core[c]), 0);
	}
	if (sc->control)
		CHECK_EQ(pthread_create(&r->ctl_tid, NULL, ctl_main, r), 0);
	run_nics(r);
	converged = drain(r);
	CHECK(converged);
	atomic_store_explicit(&r->stop, 1, memory_order_release);
	for (uint32_t c = 0; c < r->n_cores; c++)
		pthread_join(r->core[c].tid, NULL);
	if (sc->control)
		pthread_join(r->ctl_tid, NULL);
	report(r, (double)(now_ns() - t0) / 1e9);
	check_end(r);
out:
	rxb_iface_destroy(r->iface);
	free(r->in_use);
	test_pool_fini(&r->tp);
	free(r);
}

/* RUN() takes a function name: one wrapper per row would be copy-paste, so
 * the rows run in a loop and report through the same counters RUN uses. */
static void run_selected(void)
{
	const char *only = getenv("RXB_STRESS_ONLY");
	size_t n;
	struct stress_case *cases = stress_cases(&n);

	for (size_t k = 0; k < n; k++) {
		if (only != NULL && *only != '\0' && strcmp(only, cases[k].name) != 0)
			continue;
		cases[k].ic.seed = k + 1;
		check_failures_in_test = 0;
		run_case(&cases[k]);
		if (check_failures_in_test) {
			checks_failed_tests++;
			fprintf(stderr, "FAIL %s\n", cases[k].name);
		} else {
			checks_passed_tests++;
			printf("ok   %s\n", cases[k].name);
		}
	}
}

int main(void)
{
	printf("packets per interface: %llu\n", (unsigned long long)packets_per_iface());
	run_selected();
	return check_summary();
}
