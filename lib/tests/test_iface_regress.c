/* SPDX-License-Identifier: BSD-3-Clause
 * Regression tests for library bugs found by tests/fuzz/fuzz_iface.c (all
 * fixed; each test failed before its fix):
 *
 * 1. lib/iface.c dyn_rx(): a core that is draining its old ring set after a
 *    dynamic shRing switch takes "the receive call returned 0" for "the old
 *    set is empty" and moves to the new set. A call also returns 0 when its
 *    budget n is 0 or when the allocator cannot supply the fresh buffers
 *    (privRing and shRing then received all or nothing), so packets are left behind
 *    in the old set and the core receives newer packets first (reordering;
 *    the stranded ones come back only after a switch back).
 * 2. lib/ring.c rxb_buflist_check_unique(): qsort(NULL, 0, ...) when the
 *    list is empty (the application holds every buffer), undefined behaviour
 *    (UBSan: "null pointer passed as argument 1, which is declared to never
 *    be null"). Fails only in a -fsanitize=undefined build.
 * 3. lib/iface.c rxb_iface_create(): when the allocator runs dry while the
 *    rings are primed, create fails and the buffers it already posted never
 *    go back to the allocator.
 */
#include <stdbool.h>

#include "check.h"
#include "harness.h"
#include "rxb/iface.h"

static void deliver_seq(struct rxb_iface *i, uint32_t dest, uint32_t seq)
{
	struct rxb_rx_meta m = { .len = 100, .hash = seq, .dest = dest };
	struct rxb_delivery d;

	CHECK_EQ(rxb_iface_deliver(i, &m, &d), 0);
}

/* Packets 0 and 1 in the private set, a switch, packet 2 in the shared set;
 * then one receive call that returns 0 with packets still in the old set. */
static void dyn_switch_with(uint32_t n_bufs, unsigned first_budget, bool expect_progress)
{
	struct test_pool tp;
	struct rxb_err err = { 0 };
	struct rxb_iface_config c = { .arch = RXB_ARCH_DYN_SHRING, .n_cores = 2, .rx_size = 32 };
	struct rxb_dynctl_sample high = { .tput_gbps = 200, .mem_bw_gibps = 30 };
	struct rxb_pkt pk[RXB_BURST_MAX];
	struct rxb_iface *i;
	unsigned got;

	c.dyn = rxb_dynctl_config_default();
	c.dyn.window = 2;
	test_pool_init(&tp, n_bufs, 2);
	i = rxb_iface_create(&c, tp.alloc, &err);
	CHECK(i != NULL);
	if (i == NULL)
		return;
	deliver_seq(i, 0, 0);
	deliver_seq(i, 0, 1);
	rxb_iface_dyn_sample(i, &high);
	CHECK_EQ(rxb_iface_dyn_sample(i, &high), RXB_DYN_TO_SHARED);
	deliver_seq(i, 0, 2); /* the NIC switches before this one */
	got = rxb_iface_rx(i, 0, pk, first_budget, 0);
	if (got == 0)
		got = rxb_iface_rx(i, 0, pk, RXB_BURST_MAX, 0);
	/* Whatever comes first must be the oldest packet; the bug gives 2. */
	if (got != 0)
		CHECK_EQ(pk[0].hash, 0);
	CHECK(got != 0 || !expect_progress);
	rxb_iface_destroy(i);
	test_pool_fini(&tp);
}

static void test_dyn_zero_budget_keeps_draining(void)
{
	dyn_switch_with(1024, 0, true);
}

/* The sets hold 2 × 2 × 32 = 128 buffers; 129 leaves one free, and the
 * private ring needs two to take its two packets: the call returns 0 and
 * must not move on (with the bug it moves and returns packet 2). */
static void test_dyn_alloc_short_keeps_draining(void)
{
	dyn_switch_with(129, RXB_BURST_MAX, false);
}

/* Spool spp, one port, 2 buffers, both received and held: the checker's
 * list of buffers is empty. Needs -fsanitize=undefined to fail. */
static void test_check_with_every_buffer_held(void)
{
	struct rxb_pool_config pc = rxb_pool_config_default();
	struct rxb_iface_config c = {
		.arch = RXB_ARCH_SPOOL,
		.n_cores = 1,
		.spool = { .n_ports = 1, .mode = RXB_SPOOL_SPP, .low = 2, .high = 2 }
	};
	struct rxb_err err = { 0 };
	struct rxb_pkt pk[2];
	struct rxb_allocator a;
	struct rxb_pool *pool;
	struct rxb_iface *i;

	pc.n_bufs = 2;
	pc.cache_size = 0;
	pool = rxb_pool_create(&pc, &err);
	a = rxb_pool_allocator(pool, 0);
	i = rxb_iface_create(&c, &a, &err);
	CHECK(i != NULL);
	if (i == NULL)
		return;
	deliver_seq(i, 0, 0);
	deliver_seq(i, 0, 1);
	CHECK_EQ(rxb_iface_rx(i, 0, pk, 2, 0), 2);
	CHECK_EQ(rxb_iface_check(i, pool, &err), 0); /* UB inside before the fix */
	rxb_iface_free(i, 0, (rxb_buf_t[]){ pk[0].buf, pk[1].buf }, 2);
	rxb_iface_destroy(i);
	rxb_pool_destroy(pool);
}

/* privRing, 2 cores × 128 descriptors, a pool of 100: create must fail and
 * leave all 100 buffers in the pool (it keeps the 64 it posted). */
static void test_failed_create_returns_buffers(void)
{
	struct test_pool tp;
	struct rxb_err err = { 0 };
	struct rxb_iface_config c = { .arch = RXB_ARCH_PRIVRING, .n_cores = 2, .rx_size = 128 };

	test_pool_init(&tp, 100, 2);
	CHECK(rxb_iface_create(&c, tp.alloc, &err) == NULL);
	CHECK_EQ(rxb_pool_free_count(tp.pool), 100);
	test_pool_fini(&tp);
}

int main(void)
{
	RUN(test_dyn_zero_budget_keeps_draining);
	RUN(test_dyn_alloc_short_keeps_draining);
	RUN(test_check_with_every_buffer_held);
	RUN(test_failed_create_returns_buffers);
	return check_summary();
}
