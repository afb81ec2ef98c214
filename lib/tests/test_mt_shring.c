/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Multi-threaded stress of shRing, RxArr and RxList, on its own API: one NIC
 * thread and three core threads sharing one ring (share_degree 3), and the
 * main thread reading statistics while they run.
 *
 *   NIC thread   offers packets in random bursts, to random cores or a whole
 *                burst to one core; now and then prefetches descriptors with
 *                rxb_shring_nic_fetch(); yields its CPU after a burst that
 *                saw drops (so cores get to run; nothing waits for time).
 *   core threads receive random batch sizes with the real clock as `now`,
 *                hold up to HOLD_MAX buffers and free random bulks through
 *                their own allocator endpoint (rxb_pool, thread-safe per
 *                core), and stall now and then by spinning, sometimes long
 *                enough to hold back the whole group (RxArr).
 *
 * Every delivered packet carries its per-core sequence number as RSS hash
 * and a length derived from it, so a core catches a lost, duplicated,
 * reordered or torn completion at once; a shared in-use table catches a
 * buffer held twice. At the end the NIC stops, every core drains its CR, the
 * threads are joined, and: offered = delivered + dropped (no_rx_desc and
 * cr_full only), delivered = received, nothing unread or held, every
 * released descriptor returned, the census passes and every buffer is in
 * exactly one place. Must be race-free under ThreadSanitizer.
 *
 * Packets per variant: 10^7, 10^6 under TSan/ASan; RXB_STRESS_PACKETS
 * overrides. The machine may have 2 CPUs for these 5 threads: every wait
 * yields.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "harness.h"
#include "ring.h"
#include "rxb/shring.h"
#include "shring_internal.h"

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SHRING_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define SHRING_SANITIZED 1
#endif
#endif
#ifdef SHRING_SANITIZED
#define DEFAULT_PACKETS 1000000ull
#else
#define DEFAULT_PACKETS 10000000ull
#endif

#define N_CORES   3u
#define RING_SIZE 256u
#define CR_SIZE   128u
#define HOLD_MAX  256u
/* Ring + what cores hold + pool caches (flush at 1.5 × 32) + slack. */
#define N_BUFS    (RING_SIZE + N_CORES * (HOLD_MAX + RXB_BURST_MAX + 48) + 256)

struct core_thread {
	pthread_t tid;
	uint32_t core;
	struct run *r;
	/* Results, read by main after join. */
	uint64_t received, expect, errors, long_stalls;
};

struct run {
	struct rxb_shring *sh;
	struct test_pool tp;
	uint64_t packets;
	_Atomic int nic_done;
	_Atomic unsigned char in_use[N_BUFS];
	struct core_thread core[N_CORES];
	/* NIC results, read by main after join. */
	uint64_t seq[N_CORES], nic_errors;
};

static uint32_t len_of(uint64_t seq, uint32_t core)
{
	return 60 + (uint32_t)((seq * 7 + core) % 1455);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Busy-wait (a stall of the core), never sleeping. */
static void spin(uint64_t iterations)
{
	for (volatile uint64_t i = 0; i < iterations; i++)
		;
}

/* Claim (1) or release (0) a buffer in the in-use table: 1 when its state
 * was the opposite. Relaxed: the ring and the pool order every hand-over,
 * and one location's modification order is enough to catch two holders. */
static int mark(struct run *r, rxb_buf_t h, unsigned char to)
{
	if (h >= N_BUFS)
		return 0;
	return atomic_exchange_explicit(&r->in_use[h], to, memory_order_relaxed) != to;
}

static void *nic_main(void *arg)
{
	struct run *r = arg;
	uint64_t rnd = 0x5eed, offered = 0;
	struct rxb_delivery d;
	rxb_buf_t ahead[32];

	while (offered < r->packets) {
		uint64_t x = test_rand(&rnd);
		uint32_t burst = 1 + (uint32_t)(x % 64), one = (uint32_t)(x >> 8) % N_CORES;
		int to_one = (x >> 16) % 8 == 0, drops = 0;

		if ((x >> 24) % 32 == 0)
			rxb_shring_nic_fetch(r->sh, 0, ahead, (uint32_t)(x >> 32) % 32);
		for (uint32_t k = 0; k < burst && offered < r->packets; k++, offered++) {
			uint32_t dest = to_one ? one : test_rand_below(&rnd, N_CORES);
			struct rxb_rx_meta m = { .len = len_of(r->seq[dest], dest),
						 .hash = (uint32_t)r->seq[dest],
						 .dest = dest };
			int rc = rxb_shring_nic_deliver(r->sh, &m, &d);

			if (rc == 0) {
				r->seq[dest]++;
				r->nic_errors += d.buf >= N_BUFS || d.src_ring != 0;
			} else {
				r->nic_errors += rc != 1 || (d.drop != RXB_DROP_NO_RX_DESC &&
							     d.drop != RXB_DROP_CR_FULL);
				drops++;
			}
		}
		if (drops)
			sched_yield();
	}
	/* release: pairs with the cores' acquire; every CR entry is visible
	 * to a core that sees the NIC done. */
	atomic_store_explicit(&r->nic_done, 1, memory_order_release);
	return NULL;
}

static void core_free(struct core_thread *t, rxb_buf_t *held, uint32_t n)
{
	struct run *r = t->r;

	/* Release the marks first: once freed, another core may get them. */
	for (uint32_t i = 0; i < n; i++)
		t->errors += !mark(r, held[i], 0);
	rxb_shring_free(r->sh, t->core, &r->tp.alloc[t->core], held, n);
}

/* Check one packet against the sequence the NIC gave this core. */
static void core_check(struct core_thread *t, const struct rxb_pkt *p)
{
	if (p->hash != (uint32_t)t->expect || p->len != len_of(t->expect, t->core)) {
		if (t->errors++ < 5)
			fprintf(stderr, "core %u: packet %u (len %u), expected %llu\n", t->core,
				p->hash, p->len, (unsigned long long)t->expect);
	}
	t->expect++;
	t->errors += !mark(t->r, p->buf, 1);
}

static void *core_main(void *arg)
{
	struct core_thread *t = arg;
	struct run *r = t->r;
	rxb_buf_t held[HOLD_MAX + RXB_BURST_MAX];
	struct rxb_pkt pk[RXB_BURST_MAX];
	uint64_t rnd = 0xc0de + t->core;
	uint32_t n_held = 0;

	for (;;) {
		uint64_t x = test_rand(&rnd);
		unsigned n = rxb_shring_rx_burst(r->sh, t->core, pk,
						 1 + (unsigned)(x % RXB_BURST_MAX),
						 &r->tp.alloc[t->core], now_ns());

		for (unsigned k = 0; k < n; k++) {
			core_check(t, &pk[k]);
			held[n_held++] = pk[k].buf;
		}
		t->received += n;
		if (n_held > HOLD_MAX || (n_held != 0 && (x >> 8) % 4 == 0)) {
			uint32_t k = 1 + (uint32_t)((x >> 12) % n_held);

			if (n_held - k > HOLD_MAX)
				k = n_held - HOLD_MAX; /* room for the next burst */
			n_held -= k;
			core_free(t, &held[n_held], k);
		}
		if ((x >> 24) % 256 == 0)
			spin((x >> 32) % 4096);
		if ((x >> 24) % 65536 == 1) {
			spin(200000); /* long enough for the ring to run dry */
			t->long_stalls++;
		}
		if (n == 0) {
			/* acquire: pairs with the NIC's release; with the NIC done,
			 * an empty CR stays empty. */
			if (atomic_load_explicit(&r->nic_done, memory_order_acquire) &&
			    rxb_shring_occupancy(r->sh, t->core) == 0)
				break;
			sched_yield();
		}
	}
	core_free(t, held, n_held);
	return NULL;
}

/* Main thread while the run lasts: statistics are readable at any time. */
static void monitor(struct run *r)
{
	uint64_t returned = 0, reads = 0;

	while (!atomic_load_explicit(&r->nic_done, memory_order_acquire)) {
		struct rxb_shring_wait w;
		struct rxb_shring_fetch f;

		rxb_shring_wait_stats(r->sh, 0, &w);
		rxb_shring_fetch_stats(r->sh, 0, &f);
		CHECK(w.returned >= returned && f.reads >= reads);
		CHECK(w.held_back_max <= RING_SIZE);
		/* before the clamp: negative only if the head were read before
		 * the returned count, which the clamp would turn into 0 */
		CHECK(rxb_shring_ring_occupancy_raw(r->sh, 0) >= 0);
		/* CR occupancy is two relaxed loads, approximate while running:
		 * read it (race-freedom is the point), do not bound it. */
		for (uint32_t c = 0; c < N_CORES; c++)
			(void)rxb_shring_occupancy(r->sh, c);
		(void)rxb_counter_read(&rxb_shring_sw_stats(r->sh, 1)->c[RXB_SW_LOCK_ACQUIRES]);
		returned = w.returned;
		reads = f.reads;
		sched_yield();
	}
}

static void push_free(rxb_buf_t h, void *arg)
{
	rxb_buflist_push(arg, h, NULL);
}

static void check_end(struct run *r, int list)
{
	struct rxb_census c = { 0 };
	struct rxb_buflist l = { 0 };
	struct rxb_err err = { 0 };
	struct rxb_shring_wait w;
	uint64_t received = 0, rearmed = 0, returned = 0, drops = 0, long_stalls = 0;
	int rc = rxb_shring_census(r->sh, &c, &l, &err);

	if (rc != 0)
		fprintf(stderr, "census: %s\n", err.msg);
	CHECK_EQ(rc, 0);
	CHECK_EQ(r->nic_errors, 0);
	for (uint32_t k = 0; k < N_CORES; k++) {
		const struct rxb_sw_stats *s = rxb_shring_sw_stats(r->sh, k);
		const struct rxb_nic_stats *ns = rxb_shring_nic_stats(r->sh, k);

		CHECK_EQ(r->core[k].errors, 0);
		CHECK_EQ(r->core[k].expect, r->seq[k]);
		CHECK(r->core[k].received > 0);
		CHECK_EQ(rxb_counter_read(&s->c[RXB_SW_ORDER_ERRORS]), 0);
		CHECK_EQ(rxb_nic_drops(ns),
			 rxb_counter_read(&ns->c[RXB_NIC_DROP_FIRST + RXB_DROP_NO_RX_DESC]) +
				 rxb_counter_read(&ns->c[RXB_NIC_DROP_FIRST + RXB_DROP_CR_FULL]));
		received += r->core[k].received;
		rearmed += rxb_counter_read(&s->c[RXB_SW_POSTED]);
		returned += rxb_counter_read(&s->c[RXB_SW_RETURNED]);
		drops += rxb_nic_drops(ns);
		long_stalls += r->core[k].long_stalls;
	}
	CHECK_EQ(c.offered, r->packets);
	CHECK_EQ(c.offered, c.delivered + c.dropped);
	CHECK_EQ(c.delivered, c.received);
	CHECK_EQ(c.received, received);
	CHECK_EQ(c.in_entries, 0);
	CHECK_EQ(c.app_held, 0);
	/* Every re-armed descriptor went back to the NIC. */
	rxb_shring_wait_stats(r->sh, 0, &w);
	CHECK_EQ(rearmed, received);
	CHECK_EQ(returned, received);
	CHECK_EQ(w.returned, received);
	CHECK_EQ(rxb_shring_ring_occupancy(r->sh, 0), 0);
	CHECK_EQ(c.posted + c.nic_held, RING_SIZE);
	CHECK_EQ(rxb_pool_free_count(r->tp.pool) + c.posted + c.nic_held, N_BUFS);
	rxb_pool_for_each_free(r->tp.pool, push_free, &l);
	CHECK_EQ(l.n, N_BUFS);
	rc = rxb_buflist_check_unique(&l, list ? "shring_list" : "shring", &err);
	if (rc != 0)
		fprintf(stderr, "%s\n", err.msg);
	CHECK_EQ(rc, 0);
	rxb_buflist_fini(&l);
	printf("     %s: %llu offered, %llu delivered, %llu dropped, %llu long stalls, "
	       "wait max %.1f us, mean %.2f us, held back max %llu\n",
	       list ? "RxList" : "RxArr", (unsigned long long)c.offered,
	       (unsigned long long)c.delivered, (unsigned long long)drops,
	       (unsigned long long)long_stalls, w.wait_max / 1e3,
	       w.returned ? (double)w.wait_sum / (double)w.returned / 1e3 : 0.0,
	       (unsigned long long)w.held_back_max);
}

static uint64_t packets_per_variant(void)
{
	const char *env = getenv("RXB_STRESS_PACKETS");

	if (env != NULL && *env != '\0')
		return strtoull(env, NULL, 0);
	return DEFAULT_PACKETS;
}

static void stress(int list)
{
	struct rxb_shring_config cfg = { .n_cores = N_CORES,
					 .share_degree = N_CORES,
					 .ring_size = RING_SIZE,
					 .cr_size = CR_SIZE,
					 .list = list };
	struct rxb_err err = { 0 };
	struct run *r = calloc(1, sizeof(*r));
	pthread_t nic;

	if (r == NULL || test_pool_init(&r->tp, N_BUFS, N_CORES) != 0) {
		CHECK(0);
		free(r);
		return;
	}
	r->packets = packets_per_variant();
	r->sh = rxb_shring_create(&cfg, &err);
	CHECK(r->sh != NULL);
	if (r->sh == NULL) {
		fprintf(stderr, "%s\n", err.msg);
		goto out;
	}
	CHECK_EQ(rxb_shring_prime(r->sh, 0, &r->tp.alloc[0]), RING_SIZE);
	for (uint32_t k = 0; k < N_CORES; k++) {
		r->core[k].core = k;
		r->core[k].r = r;
		CHECK_EQ(pthread_create(&r->core[k].tid, NULL, core_main, &r->core[k]), 0);
	}
	CHECK_EQ(pthread_create(&nic, NULL, nic_main, r), 0);
	monitor(r);
	pthread_join(nic, NULL);
	for (uint32_t k = 0; k < N_CORES; k++)
		pthread_join(r->core[k].tid, NULL);
	check_end(r, list);
	rxb_shring_destroy(r->sh);
out:
	test_pool_fini(&r->tp);
	free(r);
}

static void test_stress_rxarr(void)
{
	stress(0);
}

static void test_stress_rxlist(void)
{
	stress(1);
}

int main(void)
{
	RUN(test_stress_rxarr);
	RUN(test_stress_rxlist);
	return check_summary();
}
