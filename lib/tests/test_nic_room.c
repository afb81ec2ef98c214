/* SPDX-License-Identifier: BSD-3-Clause
 * rxb_iface_nic_room(), the question the simulator's model of the emulator
 * asks before it takes a packet off a physical queue: it must predict every
 * delivery's outcome and drop cause, and asking it must change nothing.
 * Each design runs a random schedule twice, side by side: one interface is
 * asked before every delivery, its twin never; both must deliver, drop and
 * receive the same buffers from the same descriptors with the same costs,
 * and end with the same counters. The schedule overloads core 0 (polled
 * rarely) so every drop cause of the design occurs, and with coalescing
 * rxBisect holds notices for a Bx whose ring is nearly full. */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "harness.h"
#include "rxb/iface.h"

#define CORES 4u
#define OPS   30000u
#define BUFS  4096u

struct side {
	struct test_pool tp;
	struct rxb_iface *i;
};

static bool side_init(struct side *s, const struct rxb_iface_config *cfg)
{
	struct rxb_err err = { 0 };

	if (test_pool_init(&s->tp, BUFS, CORES) != 0)
		return false;
	s->i = rxb_iface_create(cfg, s->tp.alloc, &err);
	if (s->i == NULL)
		fprintf(stderr, "create %s: %s\n", rxb_arch_name[cfg->arch], err.msg);
	return s->i != NULL;
}

static void side_fini(struct side *s)
{
	rxb_iface_destroy(s->i);
	test_pool_fini(&s->tp);
}

/* Everything a delivery tells its caller, equal on both sides. */
static bool same_delivery(const struct rxb_delivery *a, const struct rxb_delivery *b)
{
	return a->drop == b->drop && a->ring == b->ring && a->src_ring == b->src_ring &&
	       a->src_index == b->src_index && a->buf == b->buf &&
	       a->notify_ring == b->notify_ring && a->desc_reads == b->desc_reads &&
	       a->cmpl_writes == b->cmpl_writes;
}

/* One packet to dest on both sides, the asked side asked first. Counts the
 * predictions that failed and the deliveries that differed; drops by cause
 * into drops[]. */
static void deliver_both(struct side *asked, struct side *twin, uint32_t dest, uint64_t now,
			 unsigned *wrong, unsigned *differ, uint64_t *drops)
{
	struct rxb_rx_meta m = { .len = 64 + dest, .hash = dest, .dest = dest, .now = now };
	struct rxb_delivery da, dt;
	enum rxb_drop_cause cause = RXB_DROP_CAUSES;
	int room = rxb_iface_nic_room(asked->i, dest, &cause);
	int ra = rxb_iface_deliver(asked->i, &m, &da), rt = rxb_iface_deliver(twin->i, &m, &dt);

	if (room != ra || (ra == 1 && (int)cause != da.drop))
		(*wrong)++;
	if (ra != rt || !same_delivery(&da, &dt))
		(*differ)++;
	if (ra == 1)
		drops[da.drop]++;
}

/* Core c receives up to n on both sides and frees what it got. */
static void rx_both(struct side *asked, struct side *twin, uint32_t c, unsigned n, uint64_t now,
		    unsigned *differ)
{
	struct rxb_pkt pa[32], pt[32];
	unsigned na = rxb_iface_rx(asked->i, c, pa, n, now),
		 nt = rxb_iface_rx(twin->i, c, pt, n, now);

	if (na != nt || memcmp(pa, pt, na * sizeof(pa[0])) != 0)
		(*differ)++;
	for (unsigned k = 0; k < na; k++)
		rxb_iface_free(asked->i, c, &pa[k].buf, 1);
	for (unsigned k = 0; k < nt; k++)
		rxb_iface_free(twin->i, c, &pt[k].buf, 1);
}

/* The same control-thread sample on both sides: high load, then low. */
static void dyn_sample_both(struct side *asked, struct side *twin, bool high)
{
	struct rxb_dynctl_sample s = { .tput_gbps = high ? 400 : 1,
				       .mem_bw_gibps = high ? 100 : 0 };

	rxb_iface_dyn_sample(asked->i, &s);
	rxb_iface_dyn_sample(twin->i, &s);
}

static bool same_counters(struct side *a, struct side *b)
{
	for (uint32_t d = 0; d < rxb_iface_n_dests(a->i); d++)
		for (int c = 0; c < RXB_NIC_COUNTERS; c++)
			if (rxb_iface_nic_counter(a->i, d, (enum rxb_nic_counter)c) !=
			    rxb_iface_nic_counter(b->i, d, (enum rxb_nic_counter)c))
				return false;
	return true;
}

/* The schedule: bursts mostly to core 0, which is polled one time in
 * eight; the others are polled often. */
static void run_schedule(struct side *asked, struct side *twin, uint64_t *drops)
{
	uint32_t dests = rxb_iface_n_dests(asked->i), pollers = rxb_iface_n_cores(asked->i);
	unsigned wrong = 0, differ = 0;
	uint64_t seed = 7, now = 0;

	for (uint32_t op = 0; op < OPS; op++) {
		uint32_t r = test_rand_below(&seed, 100);

		now += 10;
		if (r < 55) {
			uint32_t dest = r < 35 ? 0 : test_rand_below(&seed, dests);

			for (unsigned k = 1 + test_rand_below(&seed, 8); k > 0; k--)
				deliver_both(asked, twin, dest, now, &wrong, &differ, drops);
		} else if (r < 90) {
			uint32_t c = test_rand_below(&seed, pollers);

			if (c != 0 || test_rand_below(&seed, 8) == 0)
				rx_both(asked, twin, c, 1 + test_rand_below(&seed, 32), now,
					&differ);
		} else if (r < 97) {
			rxb_iface_tick(asked->i, now);
			rxb_iface_tick(twin->i, now);
		} else {
			dyn_sample_both(asked, twin, (op / 3000) % 2 == 0);
		}
	}
	CHECK_EQ(wrong, 0);
	CHECK_EQ(differ, 0);
	CHECK(same_counters(asked, twin));
}

static void test_room_predicts_and_changes_nothing(void)
{
	static const struct rxb_iface_config cases[] = {
		{ .arch = RXB_ARCH_PRIVRING, .rx_size = 64, .cr_size = 32 },
		{ .arch = RXB_ARCH_SMALL_PRIVRING },
		{ .arch = RXB_ARCH_SHRING, .rx_size = 64, .share_degree = 2, .cr_size = 32 },
		{ .arch = RXB_ARCH_SHRING_LIST, .rx_size = 64, .share_degree = 2 },
		{ .arch = RXB_ARCH_SHRING_LIST,
		  .rx_size = 16,
		  .share_degree = 4,
		  .rxlist_slots = 4,
		  .cr_size = 32 },
		{ .arch = RXB_ARCH_DYN_SHRING, .rx_size = 64, .share_degree = 2 },
		{ .arch = RXB_ARCH_RXBISECT, .ax_size = 16, .bx_size = 64 },
		{ .arch = RXB_ARCH_RXBISECT,
		  .ax_size = 16,
		  .bx_size = 32,
		  .ax_policy = RXB_AX_ROUND_ROBIN,
		  .coalesce = true,
		  .coalesce_timeout = 200 },
		{ .arch = RXB_ARCH_RXBISECT,
		  .ax_size = 16,
		  .bx_size = 64,
		  .ax_policy = RXB_AX_MOST_AVAILABLE,
		  .coalesce = true,
		  .coalesce_timeout = 50,
		  .n_groups = 2 },
		{ .arch = RXB_ARCH_SPOOL,
		  .spool = { .n_ports = 8, .mode = RXB_SPOOL_NONE, .depth = 32 } },
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct rxb_iface_config cfg = cases[k];
		struct side asked, twin;
		uint64_t drops[RXB_DROP_CAUSES] = { 0 };

		cfg.n_cores = CORES;
		cfg.seed = 3;
		if (!side_init(&asked, &cfg) || !side_init(&twin, &cfg)) {
			CHECK(!"interface created");
			return;
		}
		run_schedule(&asked, &twin, drops);
		printf("  %-14s drops no_rx_desc %llu no_ax_buf %llu no_bx_slot %llu "
		       "cr_full %llu\n",
		       rxb_arch_name[cfg.arch], (unsigned long long)drops[RXB_DROP_NO_RX_DESC],
		       (unsigned long long)drops[RXB_DROP_NO_AX_BUF],
		       (unsigned long long)drops[RXB_DROP_NO_BX_SLOT],
		       (unsigned long long)drops[RXB_DROP_CR_FULL]);
		/* The schedule overloads: each design meets its ring limit (a
		 * CR smaller than its ring fills first). */
		if (cfg.arch == RXB_ARCH_RXBISECT)
			CHECK(drops[RXB_DROP_NO_BX_SLOT] > 0 && drops[RXB_DROP_NO_AX_BUF] > 0);
		else if (cfg.cr_size != 0)
			CHECK(drops[RXB_DROP_CR_FULL] > 0);
		else
			CHECK(drops[RXB_DROP_NO_RX_DESC] > 0);
		side_fini(&asked);
		side_fini(&twin);
	}
}

static void test_room_bad_dest(void)
{
	struct rxb_iface_config cfg = { .arch = RXB_ARCH_PRIVRING,
					.n_cores = CORES,
					.rx_size = 64 };
	struct side s;

	if (!side_init(&s, &cfg)) {
		CHECK(!"interface created");
		return;
	}
	CHECK_EQ(rxb_iface_nic_room(s.i, CORES, NULL), -EINVAL);
	CHECK_EQ(rxb_iface_nic_room(s.i, 0, NULL), 0);
	side_fini(&s);
}

int main(void)
{
	RUN(test_room_predicts_and_changes_nothing);
	RUN(test_room_bad_dest);
	return check_summary();
}
