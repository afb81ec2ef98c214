/* SPDX-License-Identifier: BSD-3-Clause
 * shRing, RxArr and RxList: delivery to the destination CR, in-order return
 * and head-of-line blocking (RxArr), its absence (RxList), drops of healthy
 * cores' packets under persistent imbalance, wait statistics, one bitmap OR
 * per word, list capacity and descriptor contiguity, allocator failure,
 * prefetch, census conservation over random sequences, configuration
 * errors; batched RxList: slot-by-slot filling of a current descriptor per
 * core, return after the last slot, capacity, census, configuration. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "check.h"
#include "harness.h"
#include "ring.h"
#include "rxb/shring.h"

/* A pool of n_bufs buffers and a shRing with every ring primed. */
static struct rxb_shring *make(struct rxb_shring_config *c, struct test_pool *tp, uint32_t n_bufs)
{
	struct rxb_err err = { 0 };
	struct rxb_shring *sh;

	test_pool_init(tp, n_bufs, c->n_cores);
	sh = rxb_shring_create(c, &err);
	if (sh == NULL) {
		fprintf(stderr, "shring: %s\n", err.msg);
		CHECK(sh != NULL);
		return NULL;
	}
	for (uint32_t r = 0; r < rxb_shring_n_rings(sh); r++)
		CHECK_EQ(rxb_shring_prime(sh, r, &tp->alloc[r * c->share_degree]), c->ring_size);
	return sh;
}

static void done(struct rxb_shring *sh, struct test_pool *tp)
{
	rxb_shring_destroy(sh);
	test_pool_fini(tp);
}

static int deliver(struct rxb_shring *sh, uint32_t dest, uint32_t hash, struct rxb_delivery *d)
{
	struct rxb_rx_meta m = { .len = 1500, .hash = hash, .dest = dest };

	return rxb_shring_nic_deliver(sh, &m, d);
}

static uint64_t nic_ctr(const struct rxb_shring *sh, uint32_t core, int ctr)
{
	return rxb_counter_read(&rxb_shring_nic_stats(sh, core)->c[ctr]);
}

static uint64_t sw_ctr(const struct rxb_shring *sh, uint32_t core, int ctr)
{
	return rxb_counter_read(&rxb_shring_sw_stats(sh, core)->c[ctr]);
}

/* Receive up to n on core c and free what came at once. */
static unsigned rx_free(struct rxb_shring *sh, uint32_t c, unsigned n, struct test_pool *tp,
			uint64_t now)
{
	struct rxb_pkt pk[RXB_BURST_MAX];
	unsigned got = rxb_shring_rx_burst(sh, c, pk, n, &tp->alloc[c], now);

	for (unsigned k = 0; k < got; k++)
		rxb_shring_free(sh, c, &tp->alloc[c], &pk[k].buf, 1);
	return got;
}

static unsigned drain(struct rxb_shring *sh, uint32_t c, struct test_pool *tp, uint64_t now)
{
	unsigned total = 0, got;

	while ((got = rx_free(sh, c, RXB_BURST_MAX, tp, now)) != 0)
		total += got;
	return total;
}

static void push_free(rxb_buf_t h, void *arg)
{
	rxb_buflist_push(arg, h, NULL);
}

/* Census and conservation. With `full`, every buffer must also be in exactly
 * one place: pool, rings, or the caller's held[]. Returns 1 when all hold. */
static int census_ok(struct rxb_shring *sh, struct test_pool *tp, const rxb_buf_t *held,
		     uint32_t n_held, int full)
{
	struct rxb_census c = { 0 };
	struct rxb_buflist l = { 0 };
	struct rxb_err err = { 0 };
	int rc = rxb_shring_census(sh, &c, full ? &l : NULL, &err);
	int before = check_failures_in_test;

	if (rc != 0)
		fprintf(stderr, "census: %s\n", err.msg);
	CHECK_EQ(rc, 0);
	CHECK_EQ(c.offered, c.delivered + c.dropped);
	CHECK_EQ(c.delivered, c.received + c.in_entries);
	CHECK_EQ(c.app_held, n_held);
	CHECK_EQ(rxb_pool_free_count(tp->pool) + c.posted + c.nic_held + c.in_entries + c.app_held,
		 tp->pool->cfg.n_bufs);
	if (full) {
		for (uint32_t i = 0; i < n_held; i++)
			rxb_buflist_push(&l, held[i], NULL);
		rxb_pool_for_each_free(tp->pool, push_free, &l);
		CHECK_EQ(l.n, tp->pool->cfg.n_bufs);
		rc = rxb_buflist_check_unique(&l, "shring", &err);
		if (rc != 0)
			fprintf(stderr, "%s\n", err.msg);
		CHECK_EQ(rc, 0);
	}
	rxb_buflist_fini(&l);
	return check_failures_in_test == before;
}

/* Packets reach the CR of their destination core, in order, from the ring
 * of that core's group. */
static void test_delivery_spreads(void)
{
	for (int list = 0; list < 2; list++) {
		struct rxb_shring_config c = {
			.n_cores = 8, .share_degree = 4, .ring_size = 64, .list = list
		};
		struct rxb_pkt pk[RXB_BURST_MAX];
		struct rxb_delivery d;
		struct test_pool tp;

		struct rxb_shring *sh = make(&c, &tp, 512);
		CHECK_EQ(rxb_shring_n_rings(sh), 2);
		CHECK_EQ(rxb_shring_ring_of(sh, 3), 0);
		CHECK_EQ(rxb_shring_ring_of(sh, 5), 1);
		for (uint32_t i = 0; i < 5; i++) {
			for (uint32_t core = 0; core < 8; core++) {
				CHECK_EQ(deliver(sh, core, core * 1000 + i, &d), 0);
				CHECK_EQ(d.ring, core);
				CHECK_EQ(d.src_ring, core / 4);
				CHECK_EQ(d.cmpl_writes, 1);
			}
		}
		CHECK_EQ(deliver(sh, 8, 0, &d), -EINVAL);
		for (uint32_t core = 0; core < 8; core++) {
			CHECK_EQ(rxb_shring_occupancy(sh, core), 5);
			CHECK_EQ(nic_ctr(sh, core, RXB_NIC_DELIVERED), 5);
		}
		CHECK_EQ(rxb_shring_ring_occupancy(sh, 0), 20);
		for (uint32_t core = 0; core < 8; core++) {
			unsigned n = rxb_shring_rx_burst(sh, core, pk, 32, &tp.alloc[core], 1);

			CHECK_EQ(n, 5);
			for (unsigned k = 0; k < n; k++)
				CHECK_EQ(pk[k].hash, core * 1000 + k);
			rxb_shring_free(sh, core, &tp.alloc[core], &pk[0].buf, 1);
		}
		CHECK_EQ(rxb_shring_ring_occupancy(sh, 0), 0);
		CHECK_EQ(rxb_shring_ring_occupancy(sh, 1), 0);
		census_ok(sh, &tp, NULL, 4 * 8, 0);
		done(sh, &tp);
	}
}

/* Core 1 owns the first consumed descriptor and does not receive; core 0
 * receives nine. RxArr returns nothing (no doorbell) until core 1 receives,
 * then everything in one go. RxList returns core 0's nine at once. */
static void test_in_order_return(void)
{
	for (int list = 0; list < 2; list++) {
		struct rxb_shring_config c = {
			.n_cores = 2, .share_degree = 2, .ring_size = 64, .list = list
		};
		struct rxb_shring_wait w;
		struct rxb_delivery d;
		struct test_pool tp;

		struct rxb_shring *sh = make(&c, &tp, 256);
		deliver(sh, 1, 0, &d);
		for (uint32_t i = 1; i < 10; i++)
			deliver(sh, 0, i, &d);
		CHECK_EQ(rxb_shring_ring_occupancy(sh, 0), 10);
		CHECK_EQ(rx_free(sh, 0, 32, &tp, 100), 9);
		CHECK_EQ(sw_ctr(sh, 0, RXB_SW_LOCK_ACQUIRES), 1);
		rxb_shring_wait_stats(sh, 0, &w);
		if (!list) {
			CHECK_EQ(rxb_shring_ring_occupancy(sh, 0), 10);
			CHECK_EQ(sw_ctr(sh, 0, RXB_SW_RETURNED), 0);
			CHECK_EQ(sw_ctr(sh, 0, RXB_SW_DOORBELLS), 0);
			CHECK_EQ(w.returned, 0);
			CHECK_EQ(w.held_back_max, 9);
		} else {
			CHECK_EQ(rxb_shring_ring_occupancy(sh, 0), 1);
			CHECK_EQ(sw_ctr(sh, 0, RXB_SW_RETURNED), 9);
			CHECK_EQ(sw_ctr(sh, 0, RXB_SW_DOORBELLS), 1);
			CHECK_EQ(w.returned, 9);
			CHECK_EQ(w.held_back_max, 0);
		}
		census_ok(sh, &tp, NULL, 0, 1);
		CHECK_EQ(rx_free(sh, 1, 32, &tp, 250), 1);
		CHECK_EQ(rxb_shring_ring_occupancy(sh, 0), 0);
		CHECK_EQ(sw_ctr(sh, 1, RXB_SW_RETURNED), list ? 1 : 10);
		CHECK_EQ(sw_ctr(sh, 1, RXB_SW_DOORBELLS), 1);
		rxb_shring_wait_stats(sh, 0, &w);
		CHECK_EQ(w.returned, 10);
		CHECK_EQ(w.wait_max, list ? 0 : 150); /* core 0's released at 100 */
		CHECK_EQ(w.wait_sum, list ? 0 : 9 * 150);
		census_ok(sh, &tp, NULL, 0, 1);
		done(sh, &tp);
	}
}

/* Traffic spread at random over the four cores of a group, core 3 stalled;
 * CRs of 64 entries. RxArr: everything after core 3's first descriptor is
 * held back, the ring runs dry within about one ring of packets and the NIC
 * drops packets meant for the healthy cores (no_rx_desc). RxList: core 3
 * keeps at most a CR's worth of descriptors, the rest circulate, and only
 * core 3 loses packets (cr_full). Once core 3 recovers, drops stop. */
static void imbalance(int list, uint64_t seed)
{
	struct rxb_shring_config c = {
		.n_cores = 4, .share_degree = 4, .ring_size = 256, .cr_size = 64, .list = list
	};
	struct rxb_delivery d;
	struct test_pool tp;
	uint64_t healthy = 0, first = 0, drops = 0, now = 0;

	struct rxb_shring *sh = make(&c, &tp, 1024);
	for (uint32_t i = 0; i < 4000; i++) {
		uint32_t dest = test_rand_below(&seed, 4);
		int rc = deliver(sh, dest, i, &d);

		if (rc == 1 && dest != 3 && first == 0)
			first = healthy;
		healthy += rc == 0 && dest != 3;
		if (i % 4 == 3)
			for (uint32_t core = 0; core < 3; core++)
				rx_free(sh, core, 32, &tp, now += 10);
	}
	for (uint32_t core = 0; core < 3; core++) {
		uint64_t lost = nic_ctr(sh, core, RXB_NIC_DROP_FIRST + RXB_DROP_NO_RX_DESC);

		CHECK(list ? lost == 0 : lost > 1000 / 3);
		CHECK_EQ(rxb_nic_drops(rxb_shring_nic_stats(sh, core)), lost);
	}
	CHECK_EQ(rxb_shring_occupancy(sh, 3), 64);
	if (list) {
		CHECK_EQ(nic_ctr(sh, 3, RXB_NIC_DROP_FIRST + RXB_DROP_CR_FULL),
			 nic_ctr(sh, 3, RXB_NIC_OFFERED) - 64);
	} else {
		/* 3/4 of a ring, give or take, reached healthy cores. */
		CHECK(first > 0 && first <= 256);
		CHECK_EQ(rxb_shring_ring_occupancy(sh, 0), 256);
	}
	census_ok(sh, &tp, NULL, 0, 1);
	for (uint32_t core = 0; core < 4; core++)
		drops += rxb_nic_drops(rxb_shring_nic_stats(sh, core));
	drain(sh, 3, &tp, now += 10);
	for (uint32_t core = 0; core < 3; core++)
		drain(sh, core, &tp, now += 10);
	CHECK_EQ(rxb_shring_ring_occupancy(sh, 0), 0);
	for (uint32_t i = 0; i < 4000; i++) {
		deliver(sh, test_rand_below(&seed, 4), i, &d);
		if (i % 4 == 3)
			for (uint32_t core = 0; core < 4; core++)
				rx_free(sh, core, 32, &tp, now += 10);
	}
	for (uint32_t core = 0; core < 4; core++)
		drops -= rxb_nic_drops(rxb_shring_nic_stats(sh, core));
	CHECK_EQ(drops, 0);
	census_ok(sh, &tp, NULL, 0, 1);
	done(sh, &tp);
}

static void test_imbalance_drops_healthy(void)
{
	imbalance(0, 31);
	imbalance(1, 31);
}

/* Alternate packets between cores 0 and 1; core 0 receives at once, core 1
 * only `stall` time units later. Returns the ring's wait statistics. */
static struct rxb_shring_wait wait_with_stall(int list, uint64_t stall)
{
	struct rxb_shring_config c = {
		.n_cores = 2, .share_degree = 2, .ring_size = 64, .list = list
	};
	struct rxb_shring_wait w;
	struct rxb_delivery d;
	struct test_pool tp;
	uint64_t now = 1000;

	struct rxb_shring *sh = make(&c, &tp, 256);
	for (int round = 0; round < 50; round++) {
		for (uint32_t i = 0; i < 8; i++)
			CHECK_EQ(deliver(sh, (i + 1) % 2, i, &d), 0);
		rx_free(sh, 0, 32, &tp, now);
		now += stall;
		rx_free(sh, 1, 32, &tp, now);
		now += 1;
	}
	rxb_shring_wait_stats(sh, 0, &w);
	CHECK_EQ(w.returned, 50 * 8);
	done(sh, &tp);
	return w;
}

static void test_wait_grows_with_stall(void)
{
	struct rxb_shring_wait short_w = wait_with_stall(0, 10);
	struct rxb_shring_wait long_w = wait_with_stall(0, 1000);
	struct rxb_shring_wait list_w = wait_with_stall(1, 1000);

	CHECK_EQ(short_w.wait_max, 10);
	CHECK_EQ(long_w.wait_max, 1000);
	CHECK_EQ(long_w.wait_sum, 100 * short_w.wait_sum);
	CHECK_EQ(long_w.wait_sum, 50 * 4 * 1000ull); /* core 0's four per round wait */
	CHECK_EQ(long_w.held_back_max, 4);
	CHECK_EQ(list_w.wait_sum, 0);
	/* Histogram: half the descriptors (core 1's) return at once, core 0's
	 * four per round wait out the stall. */
	uint64_t total = 0;
	for (unsigned b = 0; b < RXB_SHRING_WAIT_BUCKETS; b++)
		total += long_w.hist[b];
	CHECK_EQ(total, long_w.returned);
	CHECK_EQ(long_w.hist[0], 200);
	CHECK_EQ(long_w.hist[rxb_wait_bucket(1000)], 200);
	CHECK_EQ(rxb_shring_wait_quantile(&long_w, 0.5), 0);
	CHECK_EQ(rxb_shring_wait_quantile(&long_w, 0.99), 1000);
	/* a q outside (0, 1] is its nearest end (NaN and negatives were undefined) */
	CHECK_EQ(rxb_shring_wait_quantile(&long_w, -1), rxb_shring_wait_quantile(&long_w, 0));
	CHECK_EQ(rxb_shring_wait_quantile(&long_w, NAN), rxb_shring_wait_quantile(&long_w, 0));
	CHECK_EQ(rxb_shring_wait_quantile(&long_w, 2), rxb_shring_wait_quantile(&long_w, 1));
	CHECK_EQ(rxb_shring_wait_quantile(&list_w, 0.99), 0);
}

/* The wait histogram's buckets tile the values, each at most 25 % wide. */
static void test_wait_buckets(void)
{
	uint64_t seed = 77;

	for (unsigned b = 0; b + 1 < RXB_SHRING_WAIT_BUCKETS; b++) {
		uint64_t lo = rxb_wait_bucket_low(b), hi = rxb_wait_bucket_low(b + 1);

		CHECK(hi > lo);
		CHECK_EQ(rxb_wait_bucket(lo), b);
		CHECK_EQ(rxb_wait_bucket(hi - 1), b);
		if (b >= 4)
			CHECK(4 * (hi - lo) <= lo);
	}
	for (int i = 0; i < 100000; i++) {
		uint64_t v = test_rand(&seed) >> test_rand_below(&seed, 64);
		unsigned b = rxb_wait_bucket(v);

		CHECK(b < RXB_SHRING_WAIT_BUCKETS && rxb_wait_bucket_low(b) <= v);
	}
	CHECK_EQ(rxb_wait_bucket(UINT64_MAX), RXB_SHRING_WAIT_BUCKETS - 1);
}

/* Every receive call ORs each bitmap word it touches exactly once, wraps
 * back into its first word included. The test knows each packet's
 * descriptor from the delivery and counts the words itself. */
static void one_or_per_word(uint32_t ring_size, uint64_t seed)
{
	struct rxb_shring_config c = { .n_cores = 2, .share_degree = 2, .ring_size = ring_size };
	uint32_t fifo[2][1024], head[2] = { 0 }, tail[2] = { 0 };
	struct rxb_pkt pk[RXB_BURST_MAX];
	struct rxb_delivery d;
	struct test_pool tp;

	struct rxb_shring *sh = make(&c, &tp, 4 * ring_size + 256);
	for (int step = 0; step < 3000; step++) {
		uint32_t burst = test_rand_below(&seed, 48);

		for (uint32_t k = 0; k < burst; k++) {
			uint32_t core = test_rand_below(&seed, 2);

			if (deliver(sh, core, 0, &d) == 0)
				fifo[core][tail[core]++ % 1024] = d.src_index;
		}
		for (uint32_t core = 0; core < 2; core++) {
			uint64_t ors = sw_ctr(sh, core, RXB_SW_BITMAP_ORS),
				 words[1024 / 64] = { 0 };
			unsigned n = rxb_shring_rx_burst(sh, core, pk,
							 1 + test_rand_below(&seed, 64),
							 &tp.alloc[core], step);
			unsigned expect = 0;

			for (unsigned k = 0; k < n; k++) {
				uint32_t slot = fifo[core][head[core]++ % 1024];

				expect += !(words[slot / 64] & 1);
				words[slot / 64] |= 1;
				CHECK(pk[k].buf != RXB_BUF_NONE);
			}
			CHECK_EQ(sw_ctr(sh, core, RXB_SW_BITMAP_ORS) - ors, expect);
			for (unsigned k = 0; k < n; k++)
				rxb_shring_free(sh, core, &tp.alloc[core], &pk[k].buf, 1);
		}
	}
	census_ok(sh, &tp, NULL, 0, 1);
	done(sh, &tp);
}

static void test_one_bitmap_or_per_word(void)
{
	struct rxb_shring_config c = { .n_cores = 1, .share_degree = 1, .ring_size = 64 };
	struct rxb_delivery d;
	struct test_pool tp;

	one_or_per_word(256, 3);
	one_or_per_word(1024, 4);
	one_or_per_word(16, 5); /* a ring smaller than one word */
	/* A batch from slot 40 wrapping to slot 15 of a 64-entry ring: one word. */
	struct rxb_shring *sh = make(&c, &tp, 256);
	for (int lap = 0; lap < 2; lap++) {
		for (int i = 0; i < 40; i++)
			deliver(sh, 0, i, &d);
		CHECK_EQ(rx_free(sh, 0, 64, &tp, 0), 40);
	}
	CHECK_EQ(sw_ctr(sh, 0, RXB_SW_BITMAP_ORS), 2);
	done(sh, &tp);
}

/* RxList keeps one descriptor posted as sentinel: capacity ring_size − 1. */
static void test_list_capacity(void)
{
	for (int list = 0; list < 2; list++) {
		struct rxb_shring_config c = {
			.n_cores = 1, .share_degree = 1, .ring_size = 64, .list = list
		};
		struct rxb_delivery d;
		struct test_pool tp;
		uint32_t ok = 0;

		struct rxb_shring *sh = make(&c, &tp, 256);
		for (int lap = 0; lap < 3; lap++) {
			ok = 0;
			for (int i = 0; i < 100; i++)
				ok += deliver(sh, 0, i, &d) == 0;
			CHECK_EQ(ok, list ? 63 : 64);
			CHECK_EQ(d.drop, RXB_DROP_NO_RX_DESC);
			CHECK_EQ(rxb_shring_ring_occupancy(sh, 0), ok);
			census_ok(sh, &tp, NULL, 0, 1);
			CHECK_EQ(drain(sh, 0, &tp, 0), ok);
		}
		CHECK_EQ(nic_ctr(sh, 0, RXB_NIC_DROP_FIRST + RXB_DROP_NO_RX_DESC), 3 * (100 - ok));
		done(sh, &tp);
	}
}

/* Descriptors fetched per read transaction after traffic over four cores in
 * random order and random batches (scrambled), or one core (in order). */
static double contiguity(int list, uint32_t cores, uint64_t seed)
{
	struct rxb_shring_config c = { .n_cores = cores,
				       .share_degree = cores,
				       .ring_size = 256,
				       .desc_prefetch = 16,
				       .list = list };
	struct rxb_shring_fetch f0, f;
	struct rxb_delivery d;
	struct test_pool tp;
	uint64_t per_delivery = 0, per_cr = 0;

	struct rxb_shring *sh = make(&c, &tp, 1024);
	for (int step = 0; step < 4000; step++) {
		if (step == 1000) /* let the list settle into its steady order */
			rxb_shring_fetch_stats(sh, 0, &f0);
		for (uint32_t k = test_rand_below(&seed, 24); k > 0; k--) {
			deliver(sh, test_rand_below(&seed, cores), 0, &d);
			per_delivery += step >= 1000 ? d.desc_reads : 0;
		}
		uint32_t core = test_rand_below(&seed, cores);

		rx_free(sh, core, 1 + test_rand_below(&seed, 32), &tp, step);
	}
	rxb_shring_fetch_stats(sh, 0, &f);
	for (uint32_t k = 0; k < cores; k++)
		per_cr += nic_ctr(sh, k, RXB_NIC_DESC_READS);
	CHECK_EQ(per_cr, f.reads); /* every read is charged to some CR */
	CHECK_EQ(per_delivery, f.reads - f0.reads);
	census_ok(sh, &tp, NULL, 0, 1);
	done(sh, &tp);
	return (double)(f.fetched - f0.fetched) / (double)(f.reads - f0.reads);
}

static void test_list_contiguity(void)
{
	double arr_fresh = contiguity(0, 1, 11), list_fresh = contiguity(1, 1, 11);
	double arr_scrambled = contiguity(0, 4, 12), list_scrambled = contiguity(1, 4, 12);

	printf("     descriptors per read: RxArr %.2f / %.2f, RxList fresh %.2f, scrambled %.2f\n",
	       arr_fresh, arr_scrambled, list_fresh, list_scrambled);
	CHECK(arr_fresh > 8 && arr_scrambled > 8);
	CHECK(list_fresh > 0.8 * arr_fresh);
	CHECK(list_scrambled < 2.0);
}

/* The emulator path: prefetch, then deliver into exactly those buffers, in
 * the order the NIC follows (list order for RxList, also once scrambled).
 * Batched RxList hands out whole descriptors, every slot of each in slot
 * order, which one core's deliveries then fill in that order. */
static void test_fetch_then_deliver(void)
{
	static const struct rxb_shring_config cfgs[] = {
		{ .n_cores = 2, .share_degree = 2, .ring_size = 64 },
		{ .n_cores = 2, .share_degree = 2, .ring_size = 64, .list = true },
		{ .n_cores = 2, .share_degree = 2, .ring_size = 16, .list = true, .batch = 4 },
	};

	for (size_t i = 0; i < sizeof(cfgs) / sizeof(cfgs[0]); i++) {
		struct rxb_shring_config c = cfgs[i];
		uint32_t cores = c.batch > 1 ? 1 : 2, batch = c.batch > 1 ? c.batch : 1;
		struct rxb_delivery d;
		struct test_pool tp;
		rxb_buf_t bufs[64];
		uint64_t seed = 21;

		struct rxb_shring *sh = make(&c, &tp, 256);
		for (int round = 0; round < 40; round++) {
			unsigned n = rxb_shring_nic_fetch(sh, 0, bufs,
							  1 + test_rand_below(&seed, 20));

			CHECK_EQ(n % batch, 0);
			for (unsigned k = 0; k < n; k++) {
				CHECK_EQ(deliver(sh, test_rand_below(&seed, cores), k, &d), 0);
				CHECK_EQ(d.buf, bufs[k]);
				CHECK_EQ(d.desc_reads, 0); /* already prefetched */
			}
			rx_free(sh, round % cores, 1 + test_rand_below(&seed, 32), &tp, round);
			census_ok(sh, &tp, NULL, 0, 1);
		}
		CHECK_EQ(rxb_shring_nic_fetch(sh, 0, bufs, 0), 0);
		done(sh, &tp);
	}
}

/* Allocator exhausted: nothing is received, the packets stay, alloc_fail
 * moves; priming is all or nothing. */
static void test_alloc_failure(void)
{
	for (int list = 0; list < 2; list++) {
		struct rxb_shring_config c = {
			.n_cores = 2, .share_degree = 2, .ring_size = 64, .cr_size = 8, .list = list
		};
		struct rxb_pkt pk[32];
		struct rxb_delivery d;
		struct test_pool tp;
		rxb_buf_t hold[64];

		struct rxb_shring *sh = make(&c, &tp, 64 + 64);
		CHECK_EQ(rxb_shring_prime(sh, 0, &tp.alloc[0]), 0); /* already primed */
		CHECK_EQ(tp.alloc[0].get(tp.alloc[0].ctx, hold, 64), 64);
		for (int i = 0; i < 10; i++)
			deliver(sh, 0, i, &d);
		CHECK_EQ(d.drop, RXB_DROP_CR_FULL);
		CHECK_EQ(nic_ctr(sh, 0, RXB_NIC_DROP_FIRST + RXB_DROP_CR_FULL), 2);
		CHECK_EQ(rxb_shring_rx_burst(sh, 0, pk, 32, &tp.alloc[0], 0), 0);
		CHECK_EQ(sw_ctr(sh, 0, RXB_SW_ALLOC_FAIL), 1);
		CHECK_EQ(sw_ctr(sh, 0, RXB_SW_EMPTY_POLLS), 1);
		CHECK_EQ(rxb_shring_occupancy(sh, 0), 8);
		tp.alloc[0].put(tp.alloc[0].ctx, hold, 64);
		CHECK_EQ(rxb_shring_rx_burst(sh, 0, pk, 32, &tp.alloc[0], 0), 8);
		CHECK_EQ(pk[7].hash, 7);
		rxb_shring_free(sh, 0, &tp.alloc[0], &pk[0].buf, 1);
		census_ok(sh, &tp, NULL, 7, 0);
		done(sh, &tp);

		/* 100 buffers cannot prime 128 descriptors: nothing is taken. */
		c.ring_size = 128;
		sh = rxb_shring_create(&c, NULL);
		test_pool_init(&tp, 100, 2);
		CHECK_EQ(rxb_shring_prime(sh, 0, &tp.alloc[1]), 0);
		CHECK_EQ(rxb_pool_free_count(tp.pool), 100);
		CHECK_EQ(sw_ctr(sh, 0, RXB_SW_ALLOC_FAIL), 1);
		CHECK_EQ(deliver(sh, 1, 0, &d), 1);
		CHECK_EQ(d.drop, RXB_DROP_NO_RX_DESC);
		census_ok(sh, &tp, NULL, 0, 1);
		done(sh, &tp);
	}
}

/* Random single-threaded operation sequences, census after every step. */
static void random_run(struct rxb_shring_config *c, uint64_t seed, int steps)
{
	enum { MAX_HELD = 4096 };
	static rxb_buf_t held[MAX_HELD], hoard[256];
	struct rxb_pkt pk[RXB_BURST_MAX];
	struct rxb_delivery d;
	struct test_pool tp;
	rxb_buf_t fetched[64];
	uint32_t n_held = 0, n_hoard = 0, stalled = RXB_NONE;
	uint64_t now = 0;

	uint32_t slots = c->ring_size * (c->batch > 1 ? c->batch : 1);
	struct rxb_shring *sh = make(c, &tp, 4 * slots * (c->n_cores / c->share_degree) + 512);
	for (int s = 0; s < steps; s++) {
		uint32_t op = test_rand_below(&seed, 16);
		uint32_t core = test_rand_below(&seed, c->n_cores);

		now += test_rand_below(&seed, 50);
		if (op < 6) {
			for (uint32_t k = test_rand_below(&seed, 40); k > 0; k--)
				deliver(sh,
					op == 0 ? 0
						: test_rand_below(&seed, c->n_cores + 1) %
							  c->n_cores,
					(uint32_t)s, &d);
		} else if (op < 11 && core != stalled) {
			unsigned n = rxb_shring_rx_burst(
				sh, core, pk, 1 + test_rand_below(&seed, 40), &tp.alloc[core], now);

			for (unsigned k = 0; k < n; k++)
				held[n_held++] = pk[k].buf;
		} else if (op < 13 && n_held != 0) {
			uint32_t k = test_rand_below(&seed, n_held < 64 ? n_held : 64) + 1;

			n_held -= k;
			rxb_shring_free(sh, core, &tp.alloc[core], &held[n_held], k);
		} else if (op == 13) {
			uint32_t ring = test_rand_below(&seed, rxb_shring_n_rings(sh));

			rxb_shring_nic_fetch(sh, ring, fetched, test_rand_below(&seed, 20));
		} else if (op == 14) {
			/* Starve the allocator for a while, then give back. */
			if (n_hoard == 0)
				n_hoard = tp.alloc[core].get(tp.alloc[core].ctx, hoard, 256) ? 256
											     : 0;
			else
				tp.alloc[core].put(tp.alloc[core].ctx, hoard, n_hoard), n_hoard = 0;
		} else {
			stalled = stalled == RXB_NONE ? core : RXB_NONE;
		}
		if (n_held > MAX_HELD - RXB_BURST_MAX) {
			rxb_shring_free(sh, core, &tp.alloc[core], held, n_held);
			n_held = 0;
		}
		if (n_hoard != 0 && s % 97 == 0)
			tp.alloc[core].put(tp.alloc[core].ctx, hoard, n_hoard), n_hoard = 0;
		if (n_hoard == 0 && !census_ok(sh, &tp, held, n_held, s % 16 == 0)) {
			fprintf(stderr, "random_run: step %d list %d batch %u\n", s, c->list,
				c->batch);
			break;
		}
	}
	for (uint32_t k = 0; k < c->n_cores; k++)
		CHECK_EQ(sw_ctr(sh, k, RXB_SW_ORDER_ERRORS), 0);
	if (n_hoard)
		tp.alloc[0].put(tp.alloc[0].ctx, hoard, n_hoard);
	done(sh, &tp);
}

static void test_random_sequences(void)
{
	for (int list = 0; list < 2; list++) {
		struct rxb_shring_config a = {
			.n_cores = 4, .share_degree = 2, .ring_size = 64, .list = list
		};
		struct rxb_shring_config b = { .n_cores = 3,
					       .share_degree = 3,
					       .ring_size = 32,
					       .cr_size = 8,
					       .desc_prefetch = 4,
					       .list = list };

		random_run(&a, 100 + list, 25000);
		random_run(&b, 200 + list, 25000);
	}
}

/* ---------------------------------------------------------- batched RxList */

/* A batched RxList of `cores` cores sharing one ring of ring_size
 * descriptors of `batch` slots, primed, one descriptor per NIC read. */
static struct rxb_shring *make_batched(struct rxb_shring_config *c, struct test_pool *tp,
				       uint32_t cores, uint32_t ring_size, uint32_t batch)
{
	*c = (struct rxb_shring_config){ .n_cores = cores,
					 .share_degree = cores,
					 .ring_size = ring_size,
					 .desc_prefetch = 1,
					 .list = true,
					 .batch = batch };
	return make(c, tp, 2 * ring_size * batch + 256);
}

/* Packets to one core fill its current descriptor slot by slot (the CR
 * entry names descriptor × batch + slot); the NIC takes the next descriptor
 * of the list only when the current one is full: one descriptor read per
 * descriptor, none per packet. */
static void test_batch_fills_slot_by_slot(void)
{
	struct rxb_shring_config c;
	struct rxb_pkt pk[RXB_BURST_MAX];
	struct rxb_delivery d;
	struct test_pool tp;
	rxb_buf_t bufs[20];

	struct rxb_shring *sh = make_batched(&c, &tp, 1, 16, 8);
	for (uint32_t i = 0; i < 20; i++) {
		CHECK_EQ(deliver(sh, 0, i, &d), 0);
		CHECK_EQ(d.src_index, i); /* a fresh list: descriptors 0, 1, 2 */
		CHECK_EQ(d.desc_reads, i % 8 == 0);
		CHECK_EQ(rxb_shring_ring_occupancy(sh, 0), i / 8 + 1);
		bufs[i] = d.buf;
	}
	CHECK_EQ(nic_ctr(sh, 0, RXB_NIC_DESC_FETCHED), 3);
	CHECK_EQ(nic_ctr(sh, 0, RXB_NIC_DESC_READS), 3);
	CHECK_EQ(rxb_shring_occupancy(sh, 0), 20);
	census_ok(sh, &tp, NULL, 0, 1);
	CHECK_EQ(rxb_shring_rx_burst(sh, 0, pk, 32, &tp.alloc[0], 0), 20);
	for (uint32_t i = 0; i < 20; i++) {
		CHECK_EQ(pk[i].hash, i);
		CHECK_EQ(pk[i].buf, bufs[i]);
	}
	/* Descriptors 0 and 1 are complete and went back; 2 is current. */
	CHECK_EQ(sw_ctr(sh, 0, RXB_SW_RETURNED), 2);
	CHECK_EQ(rxb_shring_ring_occupancy(sh, 0), 1);
	census_ok(sh, &tp, bufs, 20, 1); /* the application holds the 20 */
	for (uint32_t i = 0; i < 20; i++)
		rxb_shring_free(sh, 0, &tp.alloc[0], &pk[i].buf, 1);
	census_ok(sh, &tp, NULL, 0, 1);
	/* The current descriptor keeps filling: slot 4 of descriptor 2. */
	CHECK_EQ(deliver(sh, 0, 20, &d), 0);
	CHECK_EQ(d.src_index, 2 * 8 + 4);
	CHECK_EQ(d.desc_reads, 0);
	done(sh, &tp);
}

/* Two cores, packets alternating: each has its own current descriptor, so
 * each core's packets fill consecutive slots of its own descriptors and no
 * descriptor serves both. */
static void test_batch_cores_get_own_descriptors(void)
{
	struct rxb_shring_config c;
	struct rxb_pkt pk[RXB_BURST_MAX];
	struct rxb_delivery d;
	struct test_pool tp;
	uint32_t owner[32];
	rxb_buf_t bufs[2][32];

	memset(owner, 0xff, sizeof(owner));
	struct rxb_shring *sh = make_batched(&c, &tp, 2, 32, 4);
	for (uint32_t i = 0; i < 48; i++) {
		uint32_t core = i % 2, k = i / 2, x;

		CHECK_EQ(deliver(sh, core, k, &d), 0);
		x = d.src_index / 4;
		CHECK_EQ(d.src_index % 4, k % 4);
		if (k % 4 == 0) {
			CHECK_EQ(owner[x], RXB_NONE); /* a descriptor of its own */
			owner[x] = core;
		}
		CHECK_EQ(owner[x], core);
		bufs[core][k] = d.buf;
	}
	CHECK_EQ(rxb_shring_ring_occupancy(sh, 0), 12);
	census_ok(sh, &tp, NULL, 0, 1);
	for (uint32_t core = 0; core < 2; core++) {
		CHECK_EQ(rxb_shring_rx_burst(sh, core, pk, 32, &tp.alloc[core], 0), 24);
		for (uint32_t k = 0; k < 24; k++) {
			CHECK_EQ(pk[k].hash, k);
			CHECK_EQ(pk[k].buf, bufs[core][k]);
			rxb_shring_free(sh, core, &tp.alloc[core], &pk[k].buf, 1);
		}
		CHECK_EQ(sw_ctr(sh, core, RXB_SW_RETURNED), 6);
		CHECK_EQ(sw_ctr(sh, core, RXB_SW_LOCK_ACQUIRES), 1);
	}
	CHECK_EQ(rxb_shring_ring_occupancy(sh, 0), 0);
	census_ok(sh, &tp, NULL, 0, 1);
	done(sh, &tp);
}

/* A descriptor goes back to the list only once its last slot is received:
 * no lock and no doorbell before. Received one at a time, a core takes the
 * lock and rings the doorbell once per `batch` packets; in bursts, at most
 * that. */
static void test_batch_returns_after_last_slot(void)
{
	struct rxb_shring_config c;
	struct rxb_delivery d;
	struct test_pool tp;
	uint64_t seed = 41, received[2] = { 0 }, fetched0;

	struct rxb_shring *sh = make_batched(&c, &tp, 2, 16, 8);
	for (uint32_t i = 0; i < 8; i++)
		deliver(sh, 0, i, &d);
	for (uint32_t i = 0; i < 7; i++) {
		CHECK_EQ(rx_free(sh, 0, 1, &tp, 0), 1);
		CHECK_EQ(sw_ctr(sh, 0, RXB_SW_LOCK_ACQUIRES), 0);
		CHECK_EQ(sw_ctr(sh, 0, RXB_SW_DOORBELLS), 0);
		CHECK_EQ(rxb_shring_ring_occupancy(sh, 0), 1);
		census_ok(sh, &tp, NULL, 0, 1);
	}
	CHECK_EQ(rx_free(sh, 0, 1, &tp, 0), 1);
	CHECK_EQ(sw_ctr(sh, 0, RXB_SW_LOCK_ACQUIRES), 1);
	CHECK_EQ(sw_ctr(sh, 0, RXB_SW_DOORBELLS), 1);
	CHECK_EQ(sw_ctr(sh, 0, RXB_SW_RETURNED), 1);
	CHECK_EQ(rxb_shring_ring_occupancy(sh, 0), 0);
	census_ok(sh, &tp, NULL, 0, 1);

	/* Random traffic over both cores, received one packet at a time. */
	fetched0 = nic_ctr(sh, 0, RXB_NIC_DESC_FETCHED) + nic_ctr(sh, 1, RXB_NIC_DESC_FETCHED);
	for (int step = 0; step < 4000; step++) {
		uint32_t core = test_rand_below(&seed, 2);

		deliver(sh, test_rand_below(&seed, 2), 0, &d);
		received[core] += rx_free(sh, core, 1, &tp, step);
	}
	for (uint32_t core = 0; core < 2; core++) {
		while (rx_free(sh, core, 1, &tp, 0) != 0) /* drain, one at a time */
			received[core]++;
		received[core] += core == 0 ? 8 : 0;
		CHECK_EQ(sw_ctr(sh, core, RXB_SW_RECEIVED), received[core]);
		CHECK_EQ(sw_ctr(sh, core, RXB_SW_RETURNED), received[core] / 8);
		CHECK_EQ(sw_ctr(sh, core, RXB_SW_LOCK_ACQUIRES), received[core] / 8);
		CHECK_EQ(sw_ctr(sh, core, RXB_SW_DOORBELLS), received[core] / 8);
	}
	/* One descriptor fetched per 8 packets, give or take the current ones. */
	CHECK(nic_ctr(sh, 0, RXB_NIC_DESC_FETCHED) + nic_ctr(sh, 1, RXB_NIC_DESC_FETCHED) -
		      fetched0 <=
	      (received[0] + received[1] - 8) / 8 + 2);
	census_ok(sh, &tp, NULL, 0, 1);

	/* In bursts: a lock per burst that completes a descriptor, at most. */
	for (int step = 0; step < 4000; step++) {
		uint32_t core = test_rand_below(&seed, 2);

		for (uint32_t k = test_rand_below(&seed, 24); k > 0; k--)
			deliver(sh, test_rand_below(&seed, 2), 0, &d);
		received[core] += rx_free(sh, core, 1 + test_rand_below(&seed, 32), &tp, step);
	}
	for (uint32_t core = 0; core < 2; core++) {
		received[core] += drain(sh, core, &tp, 0);
		CHECK_EQ(sw_ctr(sh, core, RXB_SW_RETURNED), received[core] / 8);
		CHECK(sw_ctr(sh, core, RXB_SW_LOCK_ACQUIRES) <= received[core] / 8);
		CHECK_EQ(sw_ctr(sh, core, RXB_SW_DOORBELLS),
			 sw_ctr(sh, core, RXB_SW_LOCK_ACQUIRES));
	}
	census_ok(sh, &tp, NULL, 0, 1);
	done(sh, &tp);
}

/* With no processing, a batched ring takes (ring_size − 1) × batch packets,
 * on one core or spread round robin over three; then no_rx_desc. Lap after
 * lap (the list gets scrambled), after a drain. */
static void test_batch_capacity(void)
{
	for (uint32_t cores = 1; cores <= 3; cores += 2) {
		struct rxb_shring_config c;
		struct rxb_delivery d;
		struct test_pool tp;
		uint64_t drops = 0;

		struct rxb_shring *sh = make_batched(&c, &tp, cores, 16, 8);
		for (int lap = 0; lap < 4; lap++) {
			uint32_t ok = 0, got = 0;

			for (uint32_t i = 0; i < 200; i++) {
				int rc = deliver(sh, i % cores, i, &d);

				ok += rc == 0;
				if (rc == 1)
					CHECK_EQ(d.drop, RXB_DROP_NO_RX_DESC);
			}
			CHECK_EQ(ok, 15 * 8);
			CHECK_EQ(rxb_shring_ring_occupancy(sh, 0), 15);
			census_ok(sh, &tp, NULL, 0, 1);
			for (uint32_t core = 0; core < cores; core++)
				got += drain(sh, core, &tp, 0);
			CHECK_EQ(got, ok);
			CHECK_EQ(rxb_shring_ring_occupancy(sh, 0), 0);
			drops += 200 - ok;
		}
		for (uint32_t core = 0; core < cores; core++)
			drops -= nic_ctr(sh, core, RXB_NIC_DROP_FIRST + RXB_DROP_NO_RX_DESC);
		CHECK_EQ(drops, 0);
		done(sh, &tp);
	}
}

/* Random operation sequences (10^5 steps in all), census and conservation
 * after every step, every buffer in one place every 16th. */
static void test_batch_random_sequences(void)
{
	struct rxb_shring_config a = {
		.n_cores = 4, .share_degree = 2, .ring_size = 16, .list = true, .batch = 8
	};
	struct rxb_shring_config b = { .n_cores = 3,
				       .share_degree = 3,
				       .ring_size = 8,
				       .cr_size = 16,
				       .desc_prefetch = 2,
				       .list = true,
				       .batch = 4 };
	struct rxb_shring_config w = {
		.n_cores = 2, .share_degree = 2, .ring_size = 4, .list = true, .batch = 64
	};

	random_run(&a, 300, 40000);
	random_run(&b, 301, 40000);
	random_run(&w, 302, 20000);
}

/* At the bound, ring_size = share_degree + 1 (the list hands out
 * share_degree descriptors): the two cores that got one packet each keep
 * their current descriptors, and the core with traffic still gets the
 * third, again and again as it receives all its slots. */
static void test_batch_idle_cores_do_not_starve(void)
{
	struct test_pool tp;
	struct rxb_shring_config c = {
		.n_cores = 3, .share_degree = 3, .ring_size = 4, .list = true, .batch = 8
	};
	struct rxb_shring *sh = make(&c, &tp, 4096);
	struct rxb_pkt pk[8];
	struct rxb_delivery d;

	for (uint32_t core = 0; core < 2; core++) {
		struct rxb_rx_meta m = { .len = 64, .dest = core };

		CHECK_EQ(rxb_shring_nic_deliver(sh, &m, &d), 0);
		CHECK_EQ(rxb_shring_rx_burst(sh, core, pk, 8, &tp.alloc[core], 0), 1);
	}
	for (int k = 0; k < 1000; k++) {
		struct rxb_rx_meta m = { .len = 64, .dest = 2 };

		CHECK_EQ(rxb_shring_nic_deliver(sh, &m, &d), 0);
		CHECK_EQ(rxb_shring_rx_burst(sh, 2, pk, 8, &tp.alloc[2], 0), 1);
		rxb_shring_free(sh, 2, &tp.alloc[2], &pk[0].buf, 1);
	}
	done(sh, &tp);
}

static void test_config_errors(void)
{
	struct rxb_err err;
	struct {
		struct rxb_shring_config c;
		const char *msg;
	} bad[] = {
		{ { .n_cores = 16, .share_degree = 3, .ring_size = 1024 },
		  "shring.share_degree = 3: must divide shring.n_cores = 16" },
		{ { .n_cores = 16, .share_degree = 0, .ring_size = 1024 },
		  "shring.share_degree = 0" },
		{ { .n_cores = 0, .share_degree = 1, .ring_size = 1024 }, "shring.n_cores = 0" },
		{ { .n_cores = 2000, .share_degree = 1, .ring_size = 1024 }, "shring.n_cores" },
		{ { .n_cores = 8, .share_degree = 8, .ring_size = 1000 },
		  "shring.ring_size = 1000" },
		{ { .n_cores = 8, .share_degree = 8, .ring_size = 0 }, "shring.ring_size" },
		{ { .n_cores = 8, .share_degree = 8, .ring_size = 64, .cr_size = 3 },
		  "shring.cr_size = 3" },
		{ { .n_cores = 8, .share_degree = 8, .ring_size = 64, .desc_prefetch = 8192 },
		  "shring.desc_prefetch = 8192" },
	};

	for (int list = 0; list < 2; list++) {
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			memset(&err, 0, sizeof(err));
			bad[i].c.list = list;
			CHECK(rxb_shring_create(&bad[i].c, &err) == NULL);
			if (strstr(err.msg, bad[i].msg) == NULL)
				fprintf(stderr, "message: %s\n", err.msg);
			CHECK(strstr(err.msg, bad[i].msg) != NULL);
		}
	}
	struct {
		struct rxb_shring_config c;
		const char *msg;
	} bad_batch[] = {
		{ { .n_cores = 8, .share_degree = 8, .ring_size = 64, .list = true, .batch = 3 },
		  "shring.batch = 3: must be a power of two at most 64" },
		{ { .n_cores = 8, .share_degree = 8, .ring_size = 64, .list = true, .batch = 128 },
		  "shring.batch = 128: must be a power of two at most 64" },
		{ { .n_cores = 8, .share_degree = 8, .ring_size = 64, .batch = 8 },
		  "shring.batch = 8: batched descriptors need shring.list = true" },
		{ { .n_cores = 8,
		    .share_degree = 8,
		    .ring_size = 1u << 20,
		    .list = true,
		    .batch = 2 },
		  "shring.batch = 2: shring.ring_size × shring.batch = 2097152" },
		{ { .n_cores = 4, .share_degree = 4, .ring_size = 4, .list = true, .batch = 64 },
		  "shring.ring_size = 4: batched RxList needs more descriptors than "
		  "shring.share_degree = 4" },
	};

	for (size_t i = 0; i < sizeof(bad_batch) / sizeof(bad_batch[0]); i++) {
		memset(&err, 0, sizeof(err));
		CHECK(rxb_shring_create(&bad_batch[i].c, &err) == NULL);
		if (strstr(err.msg, bad_batch[i].msg) == NULL)
			fprintf(stderr, "message: %s\n", err.msg);
		CHECK(strstr(err.msg, bad_batch[i].msg) != NULL);
	}
	struct rxb_shring_config ok[] = {
		{ .n_cores = 16, .share_degree = 8, .ring_size = 1024 },
		{ .n_cores = 16, .share_degree = 8, .ring_size = 1024, .batch = 1 },
		{ .n_cores = 16, .share_degree = 8, .ring_size = 1024, .list = true, .batch = 1 },
		{ .n_cores = 16, .share_degree = 8, .ring_size = 1024, .list = true, .batch = 64 },
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct rxb_shring *sh = rxb_shring_create(&ok[i], &err);

		CHECK(sh != NULL);
		CHECK_EQ(rxb_shring_n_rings(sh), 2);
		CHECK_EQ(rxb_shring_ring_size(sh), 1024);
		rxb_shring_destroy(sh);
	}
}

int main(void)
{
	RUN(test_delivery_spreads);
	RUN(test_in_order_return);
	RUN(test_imbalance_drops_healthy);
	RUN(test_wait_grows_with_stall);
	RUN(test_wait_buckets);
	RUN(test_one_bitmap_or_per_word);
	RUN(test_list_capacity);
	RUN(test_list_contiguity);
	RUN(test_fetch_then_deliver);
	RUN(test_alloc_failure);
	RUN(test_random_sequences);
	RUN(test_batch_fills_slot_by_slot);
	RUN(test_batch_cores_get_own_descriptors);
	RUN(test_batch_returns_after_last_slot);
	RUN(test_batch_capacity);
	RUN(test_batch_random_sequences);
	RUN(test_batch_idle_cores_do_not_starve);
	RUN(test_config_errors);
	return check_summary();
}
