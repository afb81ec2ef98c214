/* SPDX-License-Identifier: BSD-3-Clause
 * rxBisect: burst absorption, the notification invariant (a full Bx never
 * loses a notice), disjoint sets, Ax policies, coalescing, allocator failure,
 * random operation sequences with the census checked at every step, and
 * configuration errors. */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "harness.h"
#include "ring.h"
#include "rxb/privring.h"
#include "rxb/rxbisect.h"

static struct rxb_bisect *make(struct rxb_bisect_config *c, struct test_pool *tp)
{
	struct rxb_err err;
	struct rxb_bisect *bs = rxb_bisect_create(c, &err);

	if (bs == NULL) {
		fprintf(stderr, "create: %s\n", err.msg);
		return NULL;
	}
	for (uint32_t b = 0; b < c->n_bx; b++)
		rxb_bisect_prime(bs, b, &tp->alloc[b]);
	return bs;
}

static int deliver(struct rxb_bisect *bs, uint32_t dest, uint64_t now, struct rxb_delivery *d)
{
	struct rxb_rx_meta m = { .len = 1500, .hash = dest, .dest = dest, .now = now };

	return rxb_bisect_nic_deliver(bs, &m, d);
}

/* Receive everything core c has and free it on core `freer`. */
static unsigned drain(struct rxb_bisect *bs, uint32_t c, uint32_t freer, struct test_pool *tp)
{
	struct rxb_pkt pk[RXB_BURST_MAX];
	unsigned total = 0, n;

	while ((n = rxb_bisect_rx(bs, c, pk, RXB_BURST_MAX, &tp->alloc[c])) != 0) {
		for (unsigned k = 0; k < n; k++)
			rxb_bisect_free(bs, freer, &tp->alloc[freer], &pk[k].buf, 1);
		total += n;
	}
	return total;
}

static int census_ok(struct rxb_bisect *bs, struct test_pool *tp)
{
	struct rxb_census c = { 0 };
	struct rxb_buflist l = { 0 };
	struct rxb_err err = { 0 };
	int bad = 0;

	if (rxb_bisect_census(bs, &c, &l, &err) != 0) {
		fprintf(stderr, "census: %s\n", err.msg);
		bad = 1;
	}
	bad |= c.offered != c.delivered + c.dropped;
	bad |= c.delivered != c.received + c.in_entries;
	bad |= rxb_pool_free_count(tp->pool) + c.posted + c.nic_held + c.in_entries + c.app_held !=
	       tp->pool->cfg.n_bufs;
	bad |= rxb_buflist_check_unique(&l, "rxbisect", &err) != 0;
	rxb_buflist_fini(&l);
	CHECK(!bad);
	return !bad;
}

static uint64_t nic_count(struct rxb_bisect *bs, uint32_t b, int counter)
{
	return rxb_counter_read(&rxb_bisect_nic_stats(bs, b)->c[counter]);
}

/* Design test: 4 cores, Ax 64, Bx 1024, a 256-packet burst to one core is
 * delivered without loss by rxBisect, while small privRing of 64 drops. */
static void test_burst_to_one_core(void)
{
	struct test_pool tp;
	struct rxb_delivery d;
	struct rxb_bisect_config c = { .n_ax = 4, .n_bx = 4, .ax_size = 64, .bx_size = 1024 };
	struct rxb_privring_config pc = { .n_queues = 4, .ring_size = 64 };
	int lost = 0;

	test_pool_init(&tp, 4096, 4);
	struct rxb_bisect *bs = make(&c, &tp);
	for (int i = 0; i < 256; i++)
		lost += deliver(bs, 0, 0, &d) != 0;
	CHECK_EQ(lost, 0);
	CHECK_EQ(rxb_bisect_occupancy(bs, 0), 256);
	CHECK_EQ(rxb_bisect_linked_uses(bs, 0), 64);
	CHECK_EQ(rxb_bisect_foreign_uses(bs, 0), 192);
	/* Each foreign buffer sent its own notice to its Ax's core. */
	for (uint32_t b = 1; b < 4; b++)
		CHECK_EQ(nic_count(bs, b, RXB_NIC_NOTICES), 64);
	CHECK_EQ(deliver(bs, 0, 0, &d), 1);
	CHECK_EQ(d.drop, RXB_DROP_NO_AX_BUF);
	/* Other cores refill from their notices; core 0 receives all 256. Each
	 * core counts the entries it read: the notices alone, or the packets. */
	for (uint32_t b = 1; b < 4; b++) {
		CHECK_EQ(drain(bs, b, b, &tp), 0);
		CHECK_EQ(rxb_counter_read(&rxb_bisect_sw_stats(bs, b)->c[RXB_SW_BX_ENTRIES]), 64);
	}
	CHECK_EQ(drain(bs, 0, 0, &tp), 256);
	CHECK_EQ(rxb_counter_read(&rxb_bisect_sw_stats(bs, 0)->c[RXB_SW_BX_ENTRIES]), 256);
	census_ok(bs, &tp);
	rxb_bisect_destroy(bs);

	struct rxb_privring *pr = rxb_privring_create(&pc, NULL);
	for (uint32_t q = 0; q < 4; q++)
		rxb_privring_post(pr, q, &tp.alloc[q], 64);
	lost = 0;
	for (int i = 0; i < 256; i++) {
		struct rxb_rx_meta m = { .len = 1500, .dest = 0 };

		lost += rxb_privring_nic_deliver(pr, &m, &d) != 0;
	}
	CHECK_EQ(lost, 192);
	rxb_privring_destroy(pr);
	test_pool_fini(&tp);
}

/* Design test: a full Bx never loses a consumption notice. Bx 1 holds the
 * most foreign packets the NIC allows plus unread consumptions, its core
 * stalls, and other cores' packets take the rest of Ax 1's buffers: every
 * one of those consumptions reaches Bx 1, which ends exactly full. */
static void test_full_bx_never_loses_notice(void)
{
	struct test_pool tp;
	struct rxb_delivery d;
	struct rxb_bisect_config c = { .n_ax = 3, .n_bx = 3, .ax_size = 64, .bx_size = 128 };
	struct rxb_pkt pk[RXB_BURST_MAX];
	int ax1_used = 0;

	test_pool_init(&tp, 2048, 3);
	struct rxb_bisect *bs = make(&c, &tp);
	CHECK_EQ(rxb_bisect_reserved(bs, 1), 64);
	for (int i = 0; i < 128; i++) /* 64 linked, then 64 foreign */
		CHECK_EQ(deliver(bs, 1, 0, &d), 0);
	CHECK_EQ(rxb_bisect_occupancy(bs, 1), 128);
	CHECK_EQ(deliver(bs, 1, 0, &d), 1); /* full for packets */
	CHECK_EQ(d.drop, RXB_DROP_NO_BX_SLOT);
	/* Core 1 reads 32 and refills 32 slots of Ax 1, then stalls. */
	CHECK_EQ(rxb_bisect_rx(bs, 1, pk, 32, &tp.alloc[1]), 32);
	for (int k = 0; k < 32; k++)
		rxb_bisect_free(bs, 1, &tp.alloc[1], &pk[k].buf, 1);
	CHECK_EQ(rxb_bisect_nic_ax_avail(bs, 1), 32);
	uint64_t notices_before = rxb_counter_read(
		&rxb_bisect_nic_stats(bs, 1)->c[RXB_NIC_NOTICES]);
	/* Other cores' packets, their own Ax drained: foreign buffers. */
	for (int i = 0; i < 300; i++) {
		if (deliver(bs, (uint32_t)(i & 1) * 2, 0, &d) == 0 && d.src_ring == 1) {
			ax1_used++;
			CHECK_EQ(d.notify_ring, 1);
		}
		if (!census_ok(bs, &tp))
			break;
	}
	CHECK_EQ(ax1_used, 32);
	CHECK_EQ(rxb_counter_read(&rxb_bisect_nic_stats(bs, 1)->c[RXB_NIC_NOTICES]) -
			 notices_before,
		 32);
	CHECK_EQ(rxb_bisect_occupancy(bs, 1), 128); /* exactly full, nothing lost */
	/* Core 1 wakes up: 96 packets, and Ax 1 refilled completely. */
	CHECK_EQ(drain(bs, 1, 1, &tp), 96);
	CHECK_EQ(rxb_bisect_nic_ax_avail(bs, 1), 64);
	CHECK_EQ(rxb_counter_read(&rxb_bisect_sw_stats(bs, 1)->c[RXB_SW_ORDER_ERRORS]), 0);
	census_ok(bs, &tp);
	rxb_bisect_destroy(bs);
	test_pool_fini(&tp);
}

/* Design test: disjoint association sets never exchange buffers. Two
 * applications of 2 cores each, each with its own pool (handles of the
 * second are offset so they can be told apart). */
struct offset_ctx {
	struct rxb_allocator inner;
	rxb_buf_t offset;
};

static unsigned offset_get(void *ctx, rxb_buf_t *b, unsigned n)
{
	struct offset_ctx *o = ctx;
	unsigned got = o->inner.get(o->inner.ctx, b, n);

	for (unsigned i = 0; i < got; i++)
		b[i] += o->offset;
	return got;
}

static void offset_put(void *ctx, const rxb_buf_t *b, unsigned n)
{
	struct offset_ctx *o = ctx;

	for (unsigned i = 0; i < n; i++) {
		rxb_buf_t h = b[i] - o->offset;

		o->inner.put(o->inner.ctx, &h, 1);
	}
}

static void test_disjoint_sets_never_mix(void)
{
	struct test_pool pa, pb;
	const uint32_t set_a[] = { 0, 1 }, set_b[] = { 2, 3 };
	const uint32_t *assoc[] = { set_a, set_a, set_b, set_b };
	const uint32_t len[] = { 2, 2, 2, 2 };
	struct rxb_bisect_config c = {
		.n_ax = 4, .n_bx = 4, .ax_size = 64, .bx_size = 512, .assoc = assoc, .assoc_len = len
	};
	struct offset_ctx oc[4];
	struct rxb_allocator al[4];
	struct rxb_delivery d;
	struct rxb_pkt pk[RXB_BURST_MAX];
	uint64_t seed = 3;
	int mixed = 0, delivered = 0;

	test_pool_init(&pa, 1024, 4);
	test_pool_init(&pb, 1024, 4);
	for (int i = 0; i < 4; i++) {
		oc[i].inner = i < 2 ? pa.alloc[i] : pb.alloc[i];
		oc[i].offset = i < 2 ? 0 : 1000000;
		al[i] = (struct rxb_allocator){ offset_get, offset_put, &oc[i] };
	}
	struct rxb_bisect *bs = rxb_bisect_create(&c, NULL);
	for (uint32_t b = 0; b < 4; b++)
		rxb_bisect_prime(bs, b, &al[b]);
	for (int step = 0; step < 20000; step++) {
		uint32_t dest = test_rand_below(&seed, 4);

		if (deliver(bs, dest, 0, &d) == 0) {
			delivered++;
			mixed += (dest < 2) != (d.src_ring < 2);
		}
		uint32_t core = test_rand_below(&seed, 4);
		unsigned n = rxb_bisect_rx(bs, core, pk, test_rand_below(&seed, 8), &al[core]);
		for (unsigned k = 0; k < n; k++) {
			mixed += (core < 2) != (pk[k].buf < 1000000);
			/* free on another core of the same application */
			uint32_t freer = core ^ 1;
			rxb_bisect_free(bs, freer, &al[freer], &pk[k].buf, 1);
		}
	}
	/* A burst to core 0 takes Ax 1's buffers but never Ax 2's or 3's. */
	for (int i = 0; i < 300; i++)
		if (deliver(bs, 0, 0, &d) == 0)
			mixed += d.src_ring >= 2;
	CHECK(delivered > 10000);
	CHECK(rxb_bisect_foreign_uses(bs, 0) > 0);
	CHECK_EQ(mixed, 0);
	rxb_bisect_destroy(bs);
	test_pool_fini(&pa);
	test_pool_fini(&pb);
}

/* Deliver n packets to Bx dest from Ax ax (not the NIC's choice). */
static void take_from(struct rxb_bisect *bs, uint32_t ax, int n, uint32_t dest)
{
	struct rxb_rx_meta m = { .len = 1500, .hash = dest, .dest = dest };
	struct rxb_delivery d;

	for (int k = 0; k < n; k++)
		CHECK_EQ(rxb_bisect_nic_deliver_from(bs, ax, &m, &d), 0);
}

/* The most buffers any Ax holds, as the NIC sees them. */
static uint32_t ax_avail_max(struct rxb_bisect *bs, uint32_t n_ax)
{
	uint32_t most = 0;

	for (uint32_t a = 0; a < n_ax; a++) {
		uint32_t avail = rxb_bisect_nic_ax_avail(bs, a);

		most = avail > most ? avail : most;
	}
	return most;
}

/* Linked Ax first; then the policy picks among the others. */
static void test_ax_policies(void)
{
	struct test_pool tp;
	struct rxb_delivery d;
	struct rxb_bisect_config c = { .n_ax = 4, .n_bx = 4, .ax_size = 64, .bx_size = 1024 };

	test_pool_init(&tp, 4096, 4);
	/* round robin: after the linked ring, Ax 1, 2, 3, 1, 2, 3 ... */
	c.policy = RXB_AX_ROUND_ROBIN;
	struct rxb_bisect *bs = make(&c, &tp);
	for (int i = 0; i < 64; i++) {
		deliver(bs, 0, 0, &d);
		CHECK_EQ(d.src_ring, 0);
	}
	for (int i = 0; i < 9; i++) {
		deliver(bs, 0, 0, &d);
		CHECK_EQ(d.src_ring, 1 + i % 3);
		CHECK_EQ(d.notify_ring, d.src_ring);
	}
	rxb_bisect_destroy(bs);
	test_pool_fini(&tp);

	/* most available: with Ax 0 empty and the others at distinct levels,
	 * every foreign choice for Bx 0 is a fullest Ax. Nothing is received,
	 * so nothing is refilled: the chosen Ax holds one buffer less after. */
	test_pool_init(&tp, 4096, 4);
	c.policy = RXB_AX_MOST_AVAILABLE;
	bs = make(&c, &tp);
	for (int i = 0; i < 64; i++)
		deliver(bs, 0, 0, &d); /* empties Ax 0, the linked one */
	take_from(bs, 1, 10, 0);       /* Ax 1 54, Ax 2 64, Ax 3 59 */
	take_from(bs, 3, 5, 0);
	for (int i = 0; i < 40; i++) {
		uint32_t most = ax_avail_max(bs, c.n_ax);

		CHECK_EQ(deliver(bs, 0, 0, &d), 0);
		CHECK_EQ(rxb_bisect_nic_ax_avail(bs, d.src_ring) + 1, most);
	}
	rxb_bisect_destroy(bs);
	test_pool_fini(&tp);

	/* random: all other rings get used, deterministic for a seed. */
	test_pool_init(&tp, 4096, 4);
	c.policy = RXB_AX_RANDOM;
	c.seed = 11;
	bs = make(&c, &tp);
	int used[4] = { 0 };
	for (int i = 0; i < 64 + 120; i++) {
		deliver(bs, 0, 0, &d);
		used[d.src_ring]++;
	}
	CHECK_EQ(used[0], 64);
	CHECK(used[1] > 20 && used[2] > 20 && used[3] > 20);
	rxb_bisect_destroy(bs);
	test_pool_fini(&tp);
}

/* Coalescing holds notices until a packet for that Bx carries one, a
 * consumption of that Bx's own Ax must follow them, or the timeout expires;
 * nothing is lost either way. */
static void test_coalescing(void)
{
	struct test_pool tp;
	struct rxb_delivery d;
	struct rxb_bisect_config c = { .n_ax = 2,
				       .n_bx = 2,
				       .ax_size = 64,
				       .bx_size = 512,
				       .coalesce = true,
				       .coalesce_timeout = 1000 };

	test_pool_init(&tp, 2048, 2);
	struct rxb_bisect *bs = make(&c, &tp);
	/* Hold, then flush before a consumption of Ax 1 reported in Bx 1. */
	for (int i = 0; i < 64; i++)
		deliver(bs, 0, 10, &d); /* Ax 0 now empty */
	for (int i = 0; i < 4; i++) {
		CHECK_EQ(deliver(bs, 0, 20, &d), 0);
		CHECK_EQ(d.src_ring, 1);
		CHECK_EQ(d.notify_ring, RXB_NONE); /* held */
	}
	CHECK_EQ(nic_count(bs, 1, RXB_NIC_NOTICES), 0);
	census_ok(bs, &tp);
	CHECK_EQ(deliver(bs, 1, 30, &d), 0); /* linked Ax 1: held ones go first */
	CHECK_EQ(nic_count(bs, 1, RXB_NIC_NOTICES), 4);
	/* Timeout. */
	for (int i = 0; i < 5; i++)
		deliver(bs, 0, 100, &d);
	CHECK_EQ(rxb_bisect_nic_tick(bs, 500), 0);
	CHECK_EQ(rxb_bisect_nic_tick(bs, 1100), 5);
	CHECK_EQ(nic_count(bs, 1, RXB_NIC_NOTICES), 9);
	census_ok(bs, &tp);
	/* Merge: Ax 1 fully consumed by core 0 (64 notices held for Bx 1),
	 * then a packet for core 1 on a foreign buffer carries one of them. */
	drain(bs, 1, 1, &tp);
	CHECK_EQ(rxb_bisect_nic_ax_avail(bs, 1), 64);
	for (int i = 0; i < 64; i++)
		CHECK_EQ(deliver(bs, 0, 2000, &d), 0);
	CHECK_EQ(rxb_bisect_nic_ax_avail(bs, 1), 0);
	drain(bs, 0, 0, &tp); /* refills Ax 0 */
	CHECK_EQ(deliver(bs, 1, 2100, &d), 0);
	CHECK_EQ(d.src_ring, 0);
	CHECK_EQ(nic_count(bs, 1, RXB_NIC_NOTICES_COALESCED), 1);
	census_ok(bs, &tp);
	CHECK_EQ(rxb_bisect_nic_tick(bs, 1u << 30), 64); /* 63 for Bx 1, 1 for Bx 0 */
	drain(bs, 0, 0, &tp);
	drain(bs, 1, 1, &tp);
	CHECK_EQ(rxb_bisect_nic_ax_avail(bs, 0), 64);
	CHECK_EQ(rxb_bisect_nic_ax_avail(bs, 1), 64);
	census_ok(bs, &tp);
	rxb_bisect_destroy(bs);
	test_pool_fini(&tp);
}

/* The allocator runs dry: receive re-arms the head slot with its own
 * packet's buffer (the packet is dropped, counted) and keeps the other
 * notices for when buffers come back. */
static void test_alloc_failure_keeps_notices(void)
{
	struct test_pool tp;
	struct rxb_delivery d;
	struct rxb_pkt pk[RXB_BURST_MAX];
	struct rxb_bisect_config c = { .n_ax = 1, .n_bx = 1, .ax_size = 64, .bx_size = 256 };
	rxb_buf_t hold[256];

	test_pool_init(&tp, 64 + 100, 1);
	struct rxb_bisect *bs = make(&c, &tp);
	unsigned spare = tp.alloc[0].get(tp.alloc[0].ctx, hold, 100);
	CHECK_EQ(spare, 100);
	for (int i = 0; i < 10; i++)
		deliver(bs, 0, 0, &d);
	CHECK_EQ(rxb_bisect_rx(bs, 0, pk, 32, &tp.alloc[0]), 0);
	CHECK_EQ(rxb_counter_read(&rxb_bisect_sw_stats(bs, 0)->c[RXB_SW_ALLOC_FAIL]), 1);
	CHECK_EQ(rxb_counter_read(&rxb_bisect_sw_stats(bs, 0)->c[RXB_SW_RECYCLED]), 1);
	CHECK_EQ(rxb_bisect_occupancy(bs, 0), 9);
	CHECK_EQ(rxb_bisect_nic_ax_avail(bs, 0), 64 - 9);
	tp.alloc[0].put(tp.alloc[0].ctx, hold, 100);
	census_ok(bs, &tp);
	CHECK_EQ(rxb_bisect_rx(bs, 0, pk, 32, &tp.alloc[0]), 9);
	CHECK_EQ(rxb_bisect_nic_ax_avail(bs, 0), 64);
	rxb_bisect_free(bs, 0, &tp.alloc[0], &pk[0].buf, 1);
	census_ok(bs, &tp);
	rxb_bisect_destroy(bs);
	test_pool_fini(&tp);
}

/* Random single-threaded operation sequences over configurations, with the
 * full census after every step. */
static void random_run(struct rxb_bisect_config *c, uint64_t seed, int steps)
{
	struct test_pool tp;
	struct rxb_delivery d;
	struct rxb_pkt pk[RXB_BURST_MAX];
	rxb_buf_t held[4096];
	uint32_t n_held = 0;
	uint64_t now = 0;

	test_pool_init(&tp, 4096, c->n_bx);
	struct rxb_bisect *bs = make(c, &tp);
	for (int s = 0; s < steps; s++) {
		uint32_t op = test_rand_below(&seed, 10);
		uint32_t core = test_rand_below(&seed, c->n_bx);

		now += test_rand_below(&seed, 50);
		if (op < 5) {
			uint32_t burst = test_rand_below(&seed, 40);

			for (uint32_t k = 0; k < burst; k++)
				deliver(bs, op == 0 ? 0 : test_rand_below(&seed, c->n_bx), now, &d);
		} else if (op < 8) {
			unsigned n = rxb_bisect_rx(bs, core, pk, 1 + test_rand_below(&seed, 32),
						   &tp.alloc[core]);
			for (unsigned k = 0; k < n && n_held < 4096; k++)
				held[n_held++] = pk[k].buf;
		} else if (op == 8 && n_held) {
			uint32_t k = test_rand_below(&seed, n_held) + 1;

			n_held -= k;
			rxb_bisect_free(bs, core, &tp.alloc[core], &held[n_held], k);
		} else {
			rxb_bisect_nic_tick(bs, now);
		}
		if (!census_ok(bs, &tp)) {
			fprintf(stderr, "random_run: step %d seed %llu\n", s,
				(unsigned long long)seed);
			break;
		}
	}
	for (uint32_t b = 0; b < c->n_bx; b++)
		CHECK_EQ(rxb_counter_read(&rxb_bisect_sw_stats(bs, b)->c[RXB_SW_ORDER_ERRORS]), 0);
	rxb_bisect_destroy(bs);
	test_pool_fini(&tp);
}

static void test_random_sequences(void)
{
	for (int p = 0; p < RXB_AX_POLICIES; p++) {
		for (int coal = 0; coal < 2; coal++) {
			struct rxb_bisect_config c = {
				.n_ax = 4,
				.n_bx = 4,
				.ax_size = 16,
				.bx_size = 64,
				.policy = (enum rxb_ax_policy)p,
				.seed = 5,
				.coalesce = coal,
				.coalesce_timeout = 200,
			};

			random_run(&c, 1000 + p * 2 + coal, 20000);
		}
	}
}

static void test_config_errors(void)
{
	const uint32_t empty_set[] = { 0 };
	const uint32_t set01[] = { 0, 1 }, set1[] = { 1 }, set9[] = { 9 };
	const uint32_t *assoc_empty[] = { set01, empty_set };
	const uint32_t len_empty[] = { 2, 0 };
	const uint32_t *assoc_link_out[] = { set1, set1 };
	const uint32_t len1[] = { 1, 1 };
	const uint32_t *assoc_range[] = { set01, set9 };
	const uint32_t len_range[] = { 2, 1 };
	const uint32_t link_bad[] = { 0, 5 };
	struct {
		struct rxb_bisect_config c;
		const char *field;
	} bad[] = {
		{ { .n_ax = 2, .n_bx = 2, .ax_size = 0, .bx_size = 64 }, "rxbisect.ax_size" },
		{ { .n_ax = 2, .n_bx = 2, .ax_size = 48, .bx_size = 64 }, "rxbisect.ax_size" },
		{ { .n_ax = 2, .n_bx = 2, .ax_size = 32, .bx_size = 64, .enforce_vendor_min = true },
		  "vendor minimum" },
		{ { .n_ax = 2, .n_bx = 2, .ax_size = 64, .bx_size = 32 }, "rxbisect.bx_size" },
		{ { .n_ax = 0, .n_bx = 2, .ax_size = 64, .bx_size = 64 }, "rxbisect.n_ax" },
		{ { .n_ax = 3, .n_bx = 2, .ax_size = 64, .bx_size = 64 }, "rxbisect.link" },
		{ { .n_ax = 2, .n_bx = 2, .ax_size = 64, .bx_size = 128, .link = link_bad },
		  "rxbisect.link[1]" },
		{ { .n_ax = 2,
		    .n_bx = 2,
		    .ax_size = 64,
		    .bx_size = 128,
		    .assoc = assoc_empty,
		    .assoc_len = len_empty },
		  "empty association" },
		{ { .n_ax = 2,
		    .n_bx = 2,
		    .ax_size = 64,
		    .bx_size = 128,
		    .assoc = assoc_link_out,
		    .assoc_len = len1 },
		  "not in the association" },
		{ { .n_ax = 2,
		    .n_bx = 2,
		    .ax_size = 64,
		    .bx_size = 128,
		    .assoc = assoc_range,
		    .assoc_len = len_range },
		  "rxbisect.assoc[1][0]" },
		{ { .n_ax = 2, .n_bx = 2, .ax_size = 64, .bx_size = 128, .policy = 7 },
		  "rxbisect.policy" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rxb_err err = { 0 };

		CHECK(rxb_bisect_create(&bad[i].c, &err) == NULL);
		if (strstr(err.msg, bad[i].field) == NULL)
			fprintf(stderr, "case %zu: '%s' lacks '%s'\n", i, err.msg, bad[i].field);
		CHECK(strstr(err.msg, bad[i].field) != NULL);
	}
	struct rxb_bisect_config ok = { .n_ax = 2, .n_bx = 2, .ax_size = 64, .bx_size = 128 };
	struct rxb_bisect *bs = rxb_bisect_create(&ok, NULL);
	struct rxb_delivery d;
	struct rxb_rx_meta m = { .dest = 2 };
	CHECK_EQ(rxb_bisect_nic_deliver(bs, &m, &d), -EINVAL);
	m.dest = 0;
	CHECK_EQ(rxb_bisect_nic_deliver_from(bs, 5, &m, &d), -EINVAL);
	rxb_bisect_destroy(bs);
}

int main(void)
{
	RUN(test_burst_to_one_core);
	RUN(test_full_bx_never_loses_notice);
	RUN(test_disjoint_sets_never_mix);
	RUN(test_ax_policies);
	RUN(test_coalescing);
	RUN(test_alloc_failure_keeps_notices);
	RUN(test_random_sequences);
	RUN(test_config_errors);
	return check_summary();
}
