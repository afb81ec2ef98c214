/* SPDX-License-Identifier: BSD-3-Clause
 * Shared page pool for representors: spp refill follows the watermarks,
 * none keeps dedicated depth, basic shares PF queues (and one busy port
 * starves the others), per-port accounting, configuration errors. */
#include <string.h>

#include "check.h"
#include "harness.h"
#include "ring.h"
#include "rxb/iface.h"
#include "rxb/spool.h"

static struct rxb_spool *make(struct rxb_spool_config *c, struct test_pool *tp)
{
	struct rxb_err err;
	struct rxb_spool *sp = rxb_spool_create(c, &err);

	if (sp == NULL) {
		fprintf(stderr, "spool: %s\n", err.msg);
		return NULL;
	}
	for (uint32_t q = 0; q < rxb_spool_n_queues(sp); q++)
		rxb_spool_prime(sp, q, &tp->alloc[0]);
	return sp;
}

static unsigned send(struct rxb_spool *sp, uint32_t port, unsigned n)
{
	struct rxb_delivery d;
	unsigned ok = 0;

	for (unsigned i = 0; i < n; i++) {
		struct rxb_rx_meta m = { .len = 512, .dest = port };

		ok += rxb_spool_nic_deliver(sp, &m, &d) == 0;
	}
	return ok;
}

static unsigned poll_free(struct rxb_spool *sp, uint32_t q, unsigned budget, struct test_pool *tp)
{
	struct rxb_pkt pk[RXB_BURST_MAX];
	unsigned n = rxb_spool_poll(sp, q, pk, budget, &tp->alloc[0]);

	for (unsigned k = 0; k < n; k++)
		rxb_spool_free(sp, q, &tp->alloc[0], &pk[k].buf, 1);
	return n;
}

static void test_spp_watermarks(void)
{
	struct test_pool tp;
	struct rxb_spool_config c = { .n_ports = 4, .mode = RXB_SPOOL_SPP, .low = 128, .high = 512 };

	test_pool_init(&tp, 8192, 1);
	struct rxb_spool *sp = make(&c, &tp);
	for (uint32_t p = 0; p < 4; p++)
		CHECK_EQ(rxb_spool_posted(sp, p), 128); /* start at low */
	/* Idle polls (under budget) never refill above low. */
	send(sp, 0, 10);
	CHECK_EQ(poll_free(sp, 0, 32, &tp), 10);
	CHECK_EQ(rxb_spool_posted(sp, 0), 128);
	CHECK_EQ(poll_free(sp, 0, 32, &tp), 0);
	CHECK_EQ(rxb_spool_posted(sp, 0), 128);
	/* A burst beyond low drops (out of buffer) at depth low... */
	CHECK_EQ(send(sp, 1, 200), 128);
	CHECK_EQ(rxb_counter_read(
			 &rxb_spool_port_stats(sp, 1)->c[RXB_NIC_DROP_FIRST + RXB_DROP_NO_RX_DESC]),
		 72);
	/* ...and busy polls (whole budget used) deepen the queue to high. */
	CHECK_EQ(poll_free(sp, 1, 32, &tp), 32);
	CHECK_EQ(rxb_spool_posted(sp, 1), 512);
	while (poll_free(sp, 1, 32, &tp) == 32)
		;
	CHECK_EQ(rxb_spool_posted(sp, 1), 512);
	CHECK_EQ(send(sp, 1, 500), 500); /* now absorbs a bigger burst */
	/* Idle again: consumption lowers the fill; refill only below low. */
	for (int i = 0; i < 12; i++)
		poll_free(sp, 1, 32, &tp); /* busy polls keep refilling to high */
	CHECK_EQ(rxb_spool_posted(sp, 1), 512);
	send(sp, 1, 400);
	unsigned got;
	while ((got = poll_free(sp, 1, 64, &tp)) == 64)
		;
	CHECK_EQ(rxb_spool_posted(sp, 1), 512); /* last busy poll refilled */
	send(sp, 1, 450);
	CHECK_EQ(poll_free(sp, 1, 64, &tp), 64);
	CHECK(rxb_spool_posted(sp, 1) == 512);
	/* priming a queue above low posts nothing: fill - posted wrapped and
	 * filled it to the ring's size (an idle poll leaves it below high) */
	while (poll_free(sp, 1, 64, &tp) != 0)
		;
	send(sp, 1, 50);
	CHECK_EQ(poll_free(sp, 1, 64, &tp), 50);
	uint32_t above_low = rxb_spool_posted(sp, 1);
	CHECK(above_low > 128 && above_low < 512);
	CHECK_EQ(rxb_spool_prime(sp, 1, &tp.alloc[0]), 0);
	CHECK_EQ(rxb_spool_posted(sp, 1), above_low);
	rxb_spool_destroy(sp);
	test_pool_fini(&tp);
}

static void test_spp_idle_refills_to_low_only(void)
{
	struct test_pool tp;
	struct rxb_spool_config c = { .n_ports = 1, .mode = RXB_SPOOL_SPP, .low = 64, .high = 256 };
	struct rxb_pkt pk[RXB_BURST_MAX];

	test_pool_init(&tp, 4096, 1);
	struct rxb_spool *sp = make(&c, &tp);
	send(sp, 0, 40);
	/* take without refill: poll of budget 64 is idle (40 < 64): refill to low */
	CHECK_EQ(rxb_spool_poll(sp, 0, pk, 64, &tp.alloc[0]), 40);
	CHECK_EQ(rxb_spool_posted(sp, 0), 64);
	rxb_spool_free(sp, 0, &tp.alloc[0], &pk[0].buf, 1);
	rxb_spool_destroy(sp);
	test_pool_fini(&tp);
}

/* A zero budget received all it asked for, but the port is not busy: the
 * queue stays at low, directly and through the generic interface. */
static void test_spp_zero_budget_is_idle(void)
{
	struct test_pool tp;
	struct rxb_spool_config c = { .n_ports = 1, .mode = RXB_SPOOL_SPP, .low = 64, .high = 256 };
	struct rxb_iface_config ic = { .arch = RXB_ARCH_SPOOL, .n_cores = 1, .spool = c };
	struct rxb_err err = { 0 };
	struct rxb_pkt pk[1];

	test_pool_init(&tp, 4096, 1);
	struct rxb_spool *sp = make(&c, &tp);
	CHECK_EQ(poll_free(sp, 0, 0, &tp), 0);
	CHECK_EQ(rxb_spool_posted(sp, 0), 64);
	rxb_spool_destroy(sp);

	struct rxb_iface *i = rxb_iface_create(&ic, tp.alloc, &err);
	CHECK(i != NULL);
	CHECK_EQ(rxb_iface_rx(i, 0, pk, 0, 0), 0);
	CHECK_EQ(rxb_spool_posted(rxb_iface_spool(i), 0), 64);
	rxb_iface_destroy(i);
	test_pool_fini(&tp);
}

static void test_none_and_basic(void)
{
	struct test_pool tp;
	struct rxb_spool_config none = { .n_ports = 8, .mode = RXB_SPOOL_NONE, .depth = 256 };
	struct rxb_spool_config basic = {
		.n_ports = 8, .mode = RXB_SPOOL_BASIC, .depth = 256, .basic_queues = 1
	};

	test_pool_init(&tp, 8192, 1);
	struct rxb_spool *sp = make(&none, &tp);
	uint64_t mem_none = 0;
	for (uint32_t q = 0; q < 8; q++)
		mem_none += rxb_spool_posted(sp, q);
	CHECK_EQ(mem_none, 8 * 256);
	CHECK_EQ(send(sp, 3, 300), 256); /* dedicated: a noisy port hurts only itself */
	CHECK_EQ(send(sp, 4, 10), 10);
	rxb_spool_destroy(sp);
	test_pool_fini(&tp);

	test_pool_init(&tp, 8192, 1);
	sp = make(&basic, &tp);
	CHECK_EQ(rxb_spool_n_queues(sp), 1);
	CHECK_EQ(rxb_spool_posted(sp, 0), 256); /* one shared queue: 8x less memory */
	CHECK_EQ(send(sp, 3, 300), 256);        /* the noisy port fills the PF queue */
	CHECK_EQ(send(sp, 4, 10), 0);           /* and starves everybody else */
	CHECK_EQ(rxb_counter_read(&rxb_spool_port_stats(sp, 4)->c[RXB_NIC_OFFERED]), 10);
	rxb_spool_destroy(sp);
	test_pool_fini(&tp);
}

/* The emulator path: fetched buffers are the ones packets then land in. */
static void test_fetch_then_deliver(void)
{
	struct test_pool tp;
	struct rxb_spool_config c = { .n_ports = 2, .mode = RXB_SPOOL_SPP, .low = 16, .high = 64 };
	rxb_buf_t fetched[8];
	struct rxb_delivery d;

	test_pool_init(&tp, 1024, 1);
	struct rxb_spool *sp = make(&c, &tp);
	CHECK_EQ(rxb_spool_nic_fetch(sp, 1, fetched, 8), 8);
	for (int i = 0; i < 8; i++) {
		struct rxb_rx_meta m = { .len = 100, .dest = 1 };

		CHECK_EQ(rxb_spool_nic_deliver(sp, &m, &d), 0);
		CHECK_EQ(d.buf, fetched[i]);
	}
	CHECK_EQ(rxb_spool_nic_fetch(sp, 1, fetched, 100), 8); /* 16 posted at low */
	rxb_spool_destroy(sp);
	test_pool_fini(&tp);
}

static void test_config_errors(void)
{
	struct {
		struct rxb_spool_config c;
		const char *field;
	} bad[] = {
		{ { .n_ports = 0, .mode = RXB_SPOOL_NONE, .depth = 64 }, "spool.n_ports" },
		{ { .n_ports = 4, .mode = RXB_SPOOL_NONE, .depth = 100 }, "spool.depth" },
		{ { .n_ports = 4, .mode = RXB_SPOOL_SPP, .low = 600, .high = 512 }, "spool.low" },
		{ { .n_ports = 4, .mode = RXB_SPOOL_SPP, .low = 6, .high = 500 }, "spool.high" },
		{ { .n_ports = 4, .mode = 9, .depth = 64 }, "spool.mode" },
		{ { .n_ports = 4, .mode = RXB_SPOOL_BASIC, .depth = 64, .basic_queues = 8 },
		  "spool.basic_queues" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rxb_err err = { 0 };

		CHECK(rxb_spool_create(&bad[i].c, &err) == NULL);
		CHECK(strstr(err.msg, bad[i].field) != NULL);
	}
}

/* The bulk delivery stops right after its first drop, also when that drop
 * ends one of the chunks it hands privRing (RXB_BURST_MAX packets). */
static void test_burst_stops_after_a_drop_at_a_chunk_end(void)
{
	struct test_pool tp;
	struct rxb_spool_config c = { .n_ports = 2, .mode = RXB_SPOOL_NONE, .depth = 64 };
	struct rxb_rx_meta m[2 * RXB_BURST_MAX];
	struct rxb_delivery d[2 * RXB_BURST_MAX];

	test_pool_init(&tp, 1024, 1);
	struct rxb_spool *sp = make(&c, &tp);
	/* port 0's queue takes 63 more packets: the 64th, the first chunk's
	 * last, is dropped */
	CHECK_EQ(send(sp, 0, 1), 1);
	for (unsigned k = 0; k < 2 * RXB_BURST_MAX; k++)
		m[k] = (struct rxb_rx_meta){ .len = 100, .dest = 0 };
	CHECK_EQ(rxb_spool_nic_deliver_burst(sp, NULL, m, 2 * RXB_BURST_MAX, d, true),
		 RXB_BURST_MAX);
	CHECK(d[RXB_BURST_MAX - 1].drop >= 0 && d[RXB_BURST_MAX - 2].drop < 0);
	CHECK_EQ(rxb_counter_read(&rxb_spool_port_stats(sp, 0)->c[RXB_NIC_OFFERED]),
		 1 + RXB_BURST_MAX);
	/* without the stop the burst goes on: every packet is handled */
	CHECK_EQ(rxb_spool_nic_deliver_burst(sp, NULL, m, 2 * RXB_BURST_MAX, d, false),
		 2 * RXB_BURST_MAX);
	rxb_spool_destroy(sp);
	test_pool_fini(&tp);
}

/* A queue a poll drained refills with what the pool has left, not with
 * nothing: posting was all or nothing per 64 buffers, so 63 free buffers
 * left the queue empty and it dropped every packet. */
static void test_refill_takes_what_the_pool_has(void)
{
	struct test_pool tp;
	struct rxb_spool_config c = { .n_ports = 2, .mode = RXB_SPOOL_NONE, .depth = 64 };
	struct rxb_pkt pk[RXB_BURST_MAX];
	uint64_t left;

	test_pool_init(&tp, 191, 1);
	struct rxb_spool *sp = make(&c, &tp);
	left = rxb_pool_free_count(tp.pool);
	CHECK_EQ(left, 191 - 2 * 64);
	CHECK_EQ(send(sp, 0, RXB_BURST_MAX), RXB_BURST_MAX);
	/* the packets stay with the application: the pool cannot give 64 back */
	CHECK_EQ(rxb_spool_poll(sp, 0, pk, RXB_BURST_MAX, &tp.alloc[0]), RXB_BURST_MAX);
	CHECK_EQ(rxb_spool_posted(sp, 0), left);
	CHECK_EQ(rxb_pool_free_count(tp.pool), 0);
	CHECK_EQ(send(sp, 0, 10), 10);
	for (unsigned k = 0; k < RXB_BURST_MAX; k++)
		rxb_spool_free(sp, 0, &tp.alloc[0], &pk[k].buf, 1);
	rxb_spool_destroy(sp);
	test_pool_fini(&tp);
}

int main(void)
{
	RUN(test_spp_watermarks);
	RUN(test_spp_idle_refills_to_low_only);
	RUN(test_spp_zero_budget_is_idle);
	RUN(test_none_and_basic);
	RUN(test_fetch_then_deliver);
	RUN(test_burst_stops_after_a_drop_at_a_chunk_end);
	RUN(test_config_errors);
	RUN(test_refill_takes_what_the_pool_has);
	return check_summary();
}
