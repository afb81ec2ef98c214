/* SPDX-License-Identifier: BSD-3-Clause
 * privRing and small privRing: delivery, in-order receive across many wraps,
 * drop causes, allocator failure, census, configuration errors. */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "harness.h"
#include "ring.h"
#include "rxb/privring.h"

static struct rxb_privring *make(uint32_t queues, uint32_t size, uint32_t cr, struct test_pool *tp)
{
	struct rxb_privring_config c = { .n_queues = queues, .ring_size = size, .cr_size = cr };
	struct rxb_err err;
	struct rxb_privring *pr = rxb_privring_create(&c, &err);

	for (uint32_t q = 0; pr != NULL && q < queues; q++)
		CHECK_EQ(rxb_privring_post(pr, q, &tp->alloc[q], size), size);
	return pr;
}

static int deliver(struct rxb_privring *pr, uint32_t q, uint32_t hash, struct rxb_delivery *d)
{
	struct rxb_rx_meta m = { .len = 1500, .hash = hash, .dest = q };

	return rxb_privring_nic_deliver(pr, &m, d);
}

static void census_ok(struct rxb_privring *pr, struct test_pool *tp)
{
	struct rxb_census c = { 0 };
	struct rxb_buflist l = { 0 };
	struct rxb_err err;

	for (uint32_t q = 0; q < rxb_privring_n_queues(pr); q++)
		CHECK_EQ(rxb_privring_census(pr, q, &c, &l, &err), 0);
	CHECK_EQ(c.offered, c.delivered + c.dropped);
	CHECK_EQ(c.delivered, c.received + c.in_entries);
	CHECK_EQ(rxb_pool_free_count(tp->pool) + c.posted + c.nic_held + c.in_entries + c.app_held,
		 tp->pool->cfg.n_bufs);
	CHECK_EQ(rxb_buflist_check_unique(&l, "privring", &err), 0);
	rxb_buflist_fini(&l);
}

/* Packets come out in arrival order across ~1000 wraps of a 64-entry ring. */
static void test_in_order_many_wraps(void)
{
	struct test_pool tp;
	struct rxb_pkt pk[RXB_BURST_MAX];
	struct rxb_delivery d;
	uint32_t sent = 0, got = 0;
	uint64_t seed = 7;

	test_pool_init(&tp, 1024, 1);
	struct rxb_privring *pr = make(1, 64, 0, &tp);

	while (got < 64000) {
		uint32_t burst = test_rand_below(&seed, 64);

		for (uint32_t k = 0; k < burst; k++)
			if (deliver(pr, 0, sent, &d) == 0)
				sent++;
		unsigned n = rxb_privring_rx_burst(pr, 0, pk, 1 + test_rand_below(&seed, 32),
						   &tp.alloc[0]);
		for (unsigned k = 0; k < n; k++, got++)
			if (pk[k].hash != got) {
				CHECK_EQ(pk[k].hash, got);
				goto out;
			}
		for (unsigned k = 0; k < n; k++)
			rxb_privring_free(pr, 0, &tp.alloc[0], &pk[k].buf, 1);
	}
out:
	CHECK_EQ(rxb_counter_read(&rxb_privring_sw_stats(pr, 0)->c[RXB_SW_ORDER_ERRORS]), 0);
	census_ok(pr, &tp);
	rxb_privring_destroy(pr);
	test_pool_fini(&tp);
}

/* A full ring drops with no_rx_desc; a small CR drops with cr_full. */
static void test_drop_causes(void)
{
	struct test_pool tp;
	struct rxb_delivery d;
	int delivered = 0;

	test_pool_init(&tp, 1024, 2);
	struct rxb_privring *pr = make(2, 64, 16, &tp);

	for (int i = 0; i < 100; i++)
		delivered += deliver(pr, 0, i, &d) == 0;
	CHECK_EQ(delivered, 16);
	CHECK_EQ(d.drop, RXB_DROP_CR_FULL);
	rxb_privring_destroy(pr);

	pr = make(2, 64, 0, &tp);
	delivered = 0;
	for (int i = 0; i < 100; i++)
		delivered += deliver(pr, 1, i, &d) == 0;
	CHECK_EQ(delivered, 64);
	CHECK_EQ(d.drop, RXB_DROP_NO_RX_DESC);
	const struct rxb_nic_stats *s = rxb_privring_nic_stats(pr, 1);
	CHECK_EQ(rxb_counter_read(&s->c[RXB_NIC_DROP_FIRST + RXB_DROP_NO_RX_DESC]), 36);
	CHECK_EQ(rxb_counter_read(&s->c[RXB_NIC_OFFERED]), 100);
	/* queue 0 untouched */
	CHECK_EQ(rxb_counter_read(&rxb_privring_nic_stats(pr, 0)->c[RXB_NIC_OFFERED]), 0);
	/* 64 descriptors in prefetches of 16: 4 reads. */
	CHECK_EQ(rxb_counter_read(&s->c[RXB_NIC_DESC_READS]), 4);
	rxb_privring_destroy(pr);
	test_pool_fini(&tp);
}

/* Allocator empty: nothing is received, packets stay, alloc_fail counts it. */
static void test_alloc_failure_keeps_packets(void)
{
	struct test_pool tp;
	struct rxb_delivery d;
	struct rxb_pkt pk[32];
	rxb_buf_t hold[64];

	test_pool_init(&tp, 64 + 64, 1);
	struct rxb_privring *pr = make(1, 64, 0, &tp);

	CHECK_EQ(tp.alloc[0].get(tp.alloc[0].ctx, hold, 64), 64); /* drain the pool */
	for (int i = 0; i < 10; i++)
		deliver(pr, 0, i, &d);
	CHECK_EQ(rxb_privring_rx_burst(pr, 0, pk, 32, &tp.alloc[0]), 0);
	CHECK_EQ(rxb_counter_read(&rxb_privring_sw_stats(pr, 0)->c[RXB_SW_ALLOC_FAIL]), 1);
	CHECK_EQ(rxb_privring_occupancy(pr, 0), 10);
	tp.alloc[0].put(tp.alloc[0].ctx, hold, 64);
	CHECK_EQ(rxb_privring_rx_burst(pr, 0, pk, 32, &tp.alloc[0]), 10);
	CHECK_EQ(pk[9].hash, 9);
	rxb_privring_destroy(pr);
	test_pool_fini(&tp);
}

/* The emulator path: fetch descriptors, then deliver into them in order. */
static void test_fetch_then_deliver_same_buffers(void)
{
	struct test_pool tp;
	struct rxb_delivery d;
	rxb_buf_t fetched[8];

	test_pool_init(&tp, 256, 1);
	struct rxb_privring *pr = make(1, 16, 0, &tp);

	CHECK_EQ(rxb_privring_nic_fetch(pr, 0, fetched, 8), 8);
	for (int i = 0; i < 8; i++) {
		CHECK_EQ(deliver(pr, 0, i, &d), 0);
		CHECK_EQ(d.buf, fetched[i]);
		CHECK_EQ(d.desc_reads, 0); /* already inside the NIC */
	}
	census_ok(pr, &tp);
	rxb_privring_destroy(pr);
	test_pool_fini(&tp);
}

static void test_config_errors(void)
{
	struct rxb_err err;
	struct {
		struct rxb_privring_config c;
		const char *field;
	} bad[] = {
		{ { .n_queues = 0, .ring_size = 64 }, "privring.n_queues" },
		{ { .n_queues = 2, .ring_size = 0 }, "privring.ring_size" },
		{ { .n_queues = 2, .ring_size = 100 }, "privring.ring_size" },
		{ { .n_queues = 2, .ring_size = 64, .cr_size = 3 }, "privring.cr_size" },
		{ { .n_queues = 70000, .ring_size = 64 }, "privring.n_queues" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&err, 0, sizeof(err));
		CHECK(rxb_privring_create(&bad[i].c, &err) == NULL);
		CHECK(strstr(err.msg, bad[i].field) != NULL);
	}
	struct test_pool tp;
	struct rxb_delivery d;

	test_pool_init(&tp, 256, 1);
	struct rxb_privring *pr = make(1, 16, 0, &tp);
	CHECK_EQ(deliver(pr, 7, 0, &d), -EINVAL);
	rxb_privring_destroy(pr);
	test_pool_fini(&tp);
}

int main(void)
{
	RUN(test_in_order_many_wraps);
	RUN(test_drop_causes);
	RUN(test_alloc_failure_keeps_packets);
	RUN(test_fetch_then_deliver_same_buffers);
	RUN(test_config_errors);
	return check_summary();
}
