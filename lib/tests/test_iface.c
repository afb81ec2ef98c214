/* SPDX-License-Identifier: BSD-3-Clause
 * Through the generic interface: one stalled core under shRing RxArr and
 * rxBisect (what the healthy cores lose),
 * dynamic shRing switching both ways without loss, names and errors. */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "harness.h"
#include "rxb/iface.h"

#define CORES 4u

static struct rxb_iface *make(struct rxb_iface_config *cfg, struct test_pool *tp)
{
	struct rxb_err err = { 0 };
	struct rxb_iface *i;

	test_pool_init(tp, 16384, CORES);
	cfg->n_cores = CORES;
	i = rxb_iface_create(cfg, tp->alloc, &err);
	if (i == NULL)
		fprintf(stderr, "create: %s\n", err.msg);
	return i;
}

static unsigned poll_core(struct rxb_iface *i, uint32_t core, uint64_t now)
{
	struct rxb_pkt pk[32];
	unsigned n, total = 0;

	while ((n = rxb_iface_rx(i, core, pk, 32, now)) != 0) {
		for (unsigned k = 0; k < n; k++)
			rxb_iface_free(i, core, &pk[k].buf, 1);
		total += n;
	}
	return total;
}

static int checked(struct rxb_iface *i, struct test_pool *tp)
{
	struct rxb_err err = { 0 };
	int rc = rxb_iface_check(i, tp->pool, &err);

	if (rc != 0)
		fprintf(stderr, "check: %s\n", err.msg);
	return rc == 0;
}

/* Traffic spread over 4 cores, core 0 stalled; returns drops at cores 1..3. */
static uint64_t healthy_drops_with_stall(struct rxb_iface_config *cfg)
{
	struct test_pool tp;
	struct rxb_iface *i = make(cfg, &tp);
	struct rxb_delivery d;
	uint64_t drops = 0, seed = 9;

	CHECK(i != NULL);
	if (i == NULL)
		return UINT64_MAX;
	for (uint32_t k = 0; k < 100000; k++) {
		struct rxb_rx_meta m = { .len = 1500, .dest = test_rand_below(&seed, CORES) };

		rxb_iface_deliver(i, &m, &d);
		drops += d.drop >= 0 && m.dest != 0;
		if (k % 8 == 7)
			for (uint32_t c = 1; c < CORES; c++)
				poll_core(i, c, k);
	}
	CHECK(checked(i, &tp));
	rxb_iface_destroy(i);
	test_pool_fini(&tp);
	return drops;
}

/* With one core stalled, rxBisect keeps delivering to the others
 * while RxArr starts dropping packets meant for healthy cores. */
static void test_stalled_core_rxarr_vs_rxbisect(void)
{
	struct rxb_iface_config arr = { .arch = RXB_ARCH_SHRING,
					.rx_size = 256,
					.share_degree = 4 };
	struct rxb_iface_config bis = { .arch = RXB_ARCH_RXBISECT, .ax_size = 64, .bx_size = 256 };
	uint64_t arr_drops = healthy_drops_with_stall(&arr);
	uint64_t bis_drops = healthy_drops_with_stall(&bis);

	printf("     healthy-core drops with one core stalled: RxArr %llu, rxBisect %llu\n",
	       (unsigned long long)arr_drops, (unsigned long long)bis_drops);
	CHECK(arr_drops > 10000);
	CHECK_EQ(bis_drops, 0);
}

static void feed(struct rxb_iface *i, struct rxb_dynctl_sample *s, int n, uint64_t *now)
{
	struct rxb_delivery d;

	for (int k = 0; k < n; k++) {
		for (uint32_t p = 0; p < 64; p++) {
			struct rxb_rx_meta m = { .len = 1500, .dest = p % CORES };

			rxb_iface_deliver(i, &m, &d);
		}
		for (uint32_t c = 0; c < CORES; c++)
			poll_core(i, c, *now);
		rxb_iface_dyn_sample(i, s);
		*now += 10;
	}
}

/* Dynamic shRing: high load switches to shRing, low load back; the drain
 * loses nothing and the controller confirms only after every core moved. */
static void test_dyn_shring_switches_without_loss(void)
{
	struct test_pool tp;
	struct rxb_iface_config cfg = { .arch = RXB_ARCH_DYN_SHRING, .rx_size = 256 };
	struct rxb_dynctl_sample high = { .tput_gbps = 190, .mem_bw_gibps = 30 };
	struct rxb_dynctl_sample low = { .tput_gbps = 20, .mem_bw_gibps = 3 };
	uint64_t now = 0;

	cfg.dyn = rxb_dynctl_config_default();
	struct rxb_iface *i = make(&cfg, &tp);
	CHECK(i != NULL);
	if (i == NULL)
		return;
	CHECK_EQ(rxb_iface_dyn_mode(i), RXB_DYN_PRIVATE);
	feed(i, &high, 15, &now);
	CHECK_EQ(rxb_iface_dyn_mode(i), RXB_DYN_PRIVATE); /* window not full yet */
	feed(i, &high, 1, &now);
	/* Decision taken; the NIC switches at its next packet. */
	feed(i, &high, 2, &now);
	CHECK_EQ(rxb_iface_dyn_mode(i), RXB_DYN_SHARED);
	CHECK_EQ(rxb_dynctl_mode(rxb_iface_dynctl(i)), RXB_DYN_SHARED);
	CHECK(checked(i, &tp));
	feed(i, &low, 20, &now);
	CHECK_EQ(rxb_iface_dyn_mode(i), RXB_DYN_PRIVATE);
	feed(i, &low, 2, &now);
	CHECK_EQ(rxb_dynctl_mode(rxb_iface_dynctl(i)), RXB_DYN_PRIVATE);
	CHECK(checked(i, &tp));
	/* Every packet offered was delivered and received. */
	struct rxb_census c;
	rxb_iface_census(i, &c, NULL);
	CHECK_EQ(c.dropped, 0);
	CHECK_EQ(c.received, c.offered);
	/* A core's receives on the shared set count too (the driver's ipackets
	 * missed them); its private set's stats alone hold fewer. */
	uint64_t received = 0, private_set = 0;
	for (uint32_t core = 0; core < CORES; core++) {
		received += rxb_iface_sw_counter(i, core, RXB_SW_RECEIVED);
		private_set += rxb_counter_read(&rxb_iface_sw_stats(i, core)->c[RXB_SW_RECEIVED]);
	}
	CHECK_EQ(received, c.received);
	CHECK(private_set < received);
	CHECK_EQ(rxb_iface_sw_counter(i, CORES, RXB_SW_RECEIVED), 0);
	rxb_iface_destroy(i);
	test_pool_fini(&tp);
}

/* Packets in the old set when the NIC switches are drained, not lost. */
static void test_dyn_drain_keeps_old_packets(void)
{
	struct test_pool tp;
	struct rxb_iface_config cfg = { .arch = RXB_ARCH_DYN_SHRING, .rx_size = 256 };
	struct rxb_dynctl_sample high = { .tput_gbps = 190, .mem_bw_gibps = 30 };
	struct rxb_delivery d;
	struct rxb_pkt pk[32];
	uint64_t now = 0;

	cfg.dyn = rxb_dynctl_config_default();
	cfg.dyn.window = 1;
	struct rxb_iface *i = make(&cfg, &tp);
	if (i == NULL)
		return;
	for (int k = 0; k < 10; k++) {
		struct rxb_rx_meta m = { .len = 100, .hash = (uint32_t)k, .dest = 1 };

		rxb_iface_deliver(i, &m, &d); /* into core 1's privRing */
	}
	CHECK_EQ(rxb_iface_dyn_sample(i, &high), RXB_DYN_TO_SHARED);
	for (int k = 10; k < 15; k++) {
		struct rxb_rx_meta m = { .len = 100, .hash = (uint32_t)k, .dest = 1 };

		rxb_iface_deliver(i, &m, &d); /* NIC switched: shRing */
	}
	CHECK_EQ(rxb_iface_dyn_mode(i), RXB_DYN_SHARED);
	/* Core 1 gets the old packets first, in order, then the new ones. */
	unsigned n = rxb_iface_rx(i, 1, pk, 32, now);
	CHECK_EQ(n, 10);
	CHECK_EQ(pk[0].hash, 0);
	for (unsigned k = 0; k < n; k++)
		rxb_iface_free(i, 1, &pk[k].buf, 1);
	n = rxb_iface_rx(i, 1, pk, 32, now);
	CHECK_EQ(n, 5);
	CHECK_EQ(pk[0].hash, 10);
	for (unsigned k = 0; k < n; k++)
		rxb_iface_free(i, 1, &pk[k].buf, 1);
	CHECK_EQ(rxb_iface_rx(i, 1, pk, 32, now), 0);
	/* Three receives, the last one empty: the one that moved polled both
	 * sets but is one poll, and it was not empty. */
	CHECK_EQ(rxb_iface_sw_counter(i, 1, RXB_SW_POLLS), 3);
	CHECK_EQ(rxb_iface_sw_counter(i, 1, RXB_SW_EMPTY_POLLS), 1);
	CHECK_EQ(rxb_iface_sw_counter(i, 1, RXB_SW_RECEIVED), 15);
	CHECK(checked(i, &tp));
	rxb_iface_destroy(i);
	test_pool_fini(&tp);
}

/* Buffers a transmit queue frees: noted as released, the census balances. */
static void test_released_by_transmit(void)
{
	struct test_pool tp;
	struct rxb_iface_config cfg = { .arch = RXB_ARCH_RXBISECT };
	struct rxb_delivery d;
	struct rxb_pkt pk[32];
	struct rxb_iface *i = make(&cfg, &tp);

	for (int k = 0; k < 20; k++) {
		struct rxb_rx_meta m = { .len = 60, .dest = 2 };

		rxb_iface_deliver(i, &m, &d);
	}
	unsigned n = rxb_iface_rx(i, 2, pk, 32, 0);
	CHECK_EQ(n, 20);
	/* "transmit" 15: the driver frees them into core 2's allocator */
	for (unsigned k = 0; k < 15; k++)
		tp.alloc[2].put(tp.alloc[2].ctx, &pk[k].buf, 1);
	CHECK(!checked(i, &tp)); /* not yet noted: buffers look duplicated */
	rxb_iface_note_released(i, 2, 15);
	for (unsigned k = 15; k < 20; k++)
		rxb_iface_free(i, 2, &pk[k].buf, 1);
	CHECK(checked(i, &tp));
	rxb_iface_destroy(i);
	test_pool_fini(&tp);
}

/* Receive every packet waiting anywhere, free it, then check. */
static int drained_and_checked(struct rxb_iface *i, struct test_pool *tp)
{
	for (uint32_t c = 0; c < rxb_iface_n_cores(i); c++)
		poll_core(i, c, 0);
	return checked(i, tp);
}

/* The emulator's verbs: sources numbered as iface.h says; the buffer
 * fetched from a source is the one a delivery from it fills; a source the
 * destination cannot use is refused before anything moves. */
static void test_sources(void)
{
	static const struct {
		struct rxb_iface_config c;
		uint32_t n_srcs, n_dests, group; /* dest d's source: d / group */
	} cases[] = {
		{ { .arch = RXB_ARCH_PRIVRING, .rx_size = 64 }, CORES, CORES, 1 },
		{ { .arch = RXB_ARCH_SHRING, .rx_size = 64, .share_degree = 2 }, 2, CORES, 2 },
		{ { .arch = RXB_ARCH_SHRING_LIST, .rx_size = 64, .share_degree = 2 }, 2, CORES, 2 },
		{ { .arch = RXB_ARCH_DYN_SHRING, .rx_size = 64, .share_degree = 2 },
		  CORES + 2,
		  CORES,
		  1 },
		{ { .arch = RXB_ARCH_RXBISECT, .ax_size = 64, .bx_size = 256 }, CORES, CORES, 1 },
		{ { .arch = RXB_ARCH_SPOOL,
		    .spool = { .n_ports = 8, .mode = RXB_SPOOL_NONE, .depth = 64 } },
		  8,
		  8,
		  1 },
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct rxb_iface_config cfg = cases[k].c;
		struct test_pool tp;
		struct rxb_iface *i = make(&cfg, &tp);
		uint32_t n = cases[k].n_srcs;

		CHECK(i != NULL);
		if (i == NULL)
			continue;
		CHECK_EQ(rxb_iface_n_srcs(i), n);
		CHECK_EQ(rxb_iface_n_dests(i), cases[k].n_dests);
		for (uint32_t dest = 0; dest < cases[k].n_dests; dest++) {
			struct rxb_rx_meta m = { .len = 64, .dest = dest };
			uint32_t src = dest / cases[k].group;
			struct rxb_delivery d;
			rxb_buf_t b = RXB_BUF_NONE;

			CHECK_EQ(rxb_iface_deliver_from(i, n, &m, &d), -EINVAL);
			if (cfg.arch != RXB_ARCH_RXBISECT) /* all-to-all: any Ax will do */
				CHECK_EQ(rxb_iface_deliver_from(i, (src + 1) % n, &m, &d), -EINVAL);
			CHECK_EQ(rxb_iface_nic_fetch(i, src, &b, 1), 1);
			CHECK_EQ(rxb_iface_deliver_from(i, src, &m, &d), 0);
			CHECK_EQ(d.buf, b);
			CHECK_EQ(rxb_iface_nic_counter(i, dest, RXB_NIC_OFFERED), 1);
			CHECK_EQ(rxb_iface_nic_counter(i, dest, RXB_NIC_DELIVERED), 1);
		}
		CHECK_EQ(rxb_iface_nic_fetch(i, n, NULL, 1), 0);
		CHECK(drained_and_checked(i, &tp));
		rxb_iface_destroy(i);
		test_pool_fini(&tp);
	}
}

/* Dynamic shRing from sources: a packet from the set the controller asked
 * for applies the switch; from the other set it only goes there. */
static void test_dyn_sources(void)
{
	struct test_pool tp;
	struct rxb_iface_config cfg = { .arch = RXB_ARCH_DYN_SHRING,
					.rx_size = 64,
					.share_degree = 2 };
	struct rxb_dynctl_sample high = { .tput_gbps = 190, .mem_bw_gibps = 30 };
	struct rxb_rx_meta m = { .len = 64, .dest = 3 };
	const uint32_t shared = CORES + 1; /* core 3's group's ring */
	struct rxb_delivery d;
	struct rxb_iface *i;

	cfg.dyn = rxb_dynctl_config_default();
	cfg.dyn.window = 1;
	i = make(&cfg, &tp);
	CHECK(i != NULL);
	if (i == NULL)
		return;
	CHECK_EQ(rxb_iface_deliver_from(i, shared, &m, &d), 0); /* nothing requested */
	CHECK_EQ(rxb_iface_dyn_mode(i), RXB_DYN_PRIVATE);
	CHECK_EQ(rxb_iface_dyn_sample(i, &high), RXB_DYN_TO_SHARED);
	CHECK_EQ(rxb_iface_deliver_from(i, 3, &m, &d), 0); /* old set: no switch */
	CHECK_EQ(rxb_iface_dyn_mode(i), RXB_DYN_PRIVATE);
	CHECK_EQ(rxb_iface_deliver_from(i, shared, &m, &d), 0);
	CHECK_EQ(rxb_iface_dyn_mode(i), RXB_DYN_SHARED);
	CHECK_EQ(d.src_ring, shared); /* the interface's numbering, not the set's */
	CHECK_EQ(rxb_iface_deliver(i, &m, &d), 0);
	CHECK_EQ(d.src_ring, shared);
	/* both sets' counters, and the current set's alone */
	CHECK_EQ(rxb_iface_nic_counter(i, 3, RXB_NIC_DELIVERED), 4);
	CHECK_EQ(rxb_counter_read(&rxb_iface_nic_stats(i, 3)->c[RXB_NIC_DELIVERED]), 3);
	CHECK(drained_and_checked(i, &tp));
	rxb_iface_destroy(i);
	test_pool_fini(&tp);
}

/* The name tables the scenario parser uses: one name per enum value, in
 * order, with the names the scenario keys spell. */
static void test_names(void)
{
	static const char *const arch[RXB_ARCHS] = { "privring",    "small_privring", "shring",
						     "shring_list", "dyn_shring",     "rxbisect",
						     "spool" };
	static const char *const policy[RXB_AX_POLICIES] = { "random", "round_robin",
							     "most_available" };
	static const char *const spool[RXB_SPOOL_MODES] = { "none", "basic", "spp" };

	for (int k = 0; k < RXB_ARCHS; k++)
		CHECK(strcmp(rxb_arch_name[k], arch[k]) == 0);
	for (int k = 0; k < RXB_AX_POLICIES; k++)
		CHECK(strcmp(rxb_ax_policy_name[k], policy[k]) == 0);
	for (int k = 0; k < RXB_SPOOL_MODES; k++)
		CHECK(strcmp(rxb_spool_mode_name[k], spool[k]) == 0);
}

/* A destination, core or counter that does not exist: the NIC verb
 * refuses it, the others do nothing (ASan in `make test` checks that
 * nothing outside the interface is touched), and nothing moves. */
static void check_indexes_that_do_not_exist(struct rxb_iface_config *cfg)
{
	struct test_pool tp;
	struct rxb_iface *i = make(cfg, &tp);
	struct rxb_rx_meta m = { .len = 64, .dest = 0 };
	struct rxb_delivery d;
	struct rxb_pkt pk;
	uint32_t dests, cores;

	CHECK(i != NULL);
	if (i == NULL)
		return;
	dests = rxb_iface_n_dests(i);
	cores = rxb_iface_n_cores(i);
	CHECK_EQ(rxb_iface_deliver(i, &m, &d), 0);
	CHECK_EQ(rxb_iface_drop_pipeline(i, dests), -EINVAL);
	CHECK_EQ(rxb_iface_drop_pipeline(i, UINT32_MAX), -EINVAL);
	CHECK(rxb_iface_nic_stats(i, dests) == NULL);
	CHECK(rxb_iface_sw_stats(i, cores) == NULL);
	CHECK_EQ(rxb_iface_nic_counter(i, dests, RXB_NIC_OFFERED), 0);
	CHECK_EQ(rxb_iface_nic_counter(i, 0, RXB_NIC_COUNTERS), 0);
	CHECK_EQ(rxb_iface_occupancy(i, dests), 0);
	CHECK_EQ(rxb_iface_rx(i, cores, &pk, 1, 0), 0);
	rxb_iface_note_released(i, cores, 1);
	CHECK_EQ(poll_core(i, 0, 0), 1);
	rxb_iface_free(i, cores, &pk.buf, 1); /* pk was never received: nothing to free */
	CHECK_EQ(rxb_iface_nic_counter(i, 0, RXB_NIC_OFFERED), 1);
	CHECK(checked(i, &tp));
	rxb_iface_destroy(i);
	test_pool_fini(&tp);
}

static void test_indexes_that_do_not_exist(void)
{
	struct rxb_iface_config cfgs[] = {
		{ .arch = RXB_ARCH_PRIVRING, .rx_size = 64 },
		{ .arch = RXB_ARCH_SMALL_PRIVRING, .rx_size = 64 },
		{ .arch = RXB_ARCH_SHRING, .rx_size = 64, .share_degree = 2 },
		{ .arch = RXB_ARCH_SHRING_LIST, .rx_size = 64, .share_degree = 2 },
		{ .arch = RXB_ARCH_DYN_SHRING, .rx_size = 64, .share_degree = 2 },
		{ .arch = RXB_ARCH_RXBISECT, .ax_size = 64, .bx_size = 256 },
		{ .arch = RXB_ARCH_SPOOL,
		  .spool = { .n_ports = 8, .mode = RXB_SPOOL_NONE, .depth = 64 } },
	};

	for (size_t k = 0; k < sizeof(cfgs) / sizeof(cfgs[0]); k++) {
		if (cfgs[k].arch == RXB_ARCH_DYN_SHRING)
			cfgs[k].dyn = rxb_dynctl_config_default();
		check_indexes_that_do_not_exist(&cfgs[k]);
	}
}

static void test_errors(void)
{
	struct rxb_err err = { 0 };
	struct test_pool tp;
	struct rxb_iface_config cfg = { .arch = RXB_ARCH_PRIVRING, .n_cores = 0 };
	test_pool_init(&tp, 1024, CORES);
	CHECK(rxb_iface_create(&cfg, tp.alloc, &err) == NULL);
	CHECK(strstr(err.msg, "system.cores") != NULL);
	cfg.n_cores = CORES; /* 4 × 1024 buffers needed, the pool has 1024 */
	CHECK(rxb_iface_create(&cfg, tp.alloc, &err) == NULL);
	CHECK(strstr(err.msg, "more buffers") != NULL);
	cfg.arch = RXB_ARCH_SHRING;
	cfg.rx_size = 64;
	cfg.share_degree = 3;
	CHECK(rxb_iface_create(&cfg, tp.alloc, &err) == NULL);
	CHECK(strstr(err.msg, "share_degree") != NULL);
	cfg.arch = RXB_ARCH_RXBISECT;
	cfg.n_groups = 9;
	CHECK(rxb_iface_create(&cfg, tp.alloc, &err) == NULL);
	CHECK(strstr(err.msg, "n_groups") != NULL);
	test_pool_fini(&tp);
}

static uint64_t nic_total(struct rxb_iface *i, enum rxb_nic_counter c)
{
	uint64_t n = 0;

	for (uint32_t d = 0; d < rxb_iface_n_dests(i); d++)
		n += rxb_iface_nic_counter(i, d, c);
	return n;
}

/* Every design counts the descriptors its reads bring in (the simulator
 * sizes each descriptor read's DMA by them): privRing and rxBisect counted
 * none, so each of their reads was modelled as one descriptor. Singles
 * and bursts, to every core, in rings that hold whole prefetches. */
static void test_descriptors_fetched(void)
{
	static const enum rxb_arch archs[] = { RXB_ARCH_PRIVRING,   RXB_ARCH_SMALL_PRIVRING,
					       RXB_ARCH_SHRING,     RXB_ARCH_SHRING_LIST,
					       RXB_ARCH_DYN_SHRING, RXB_ARCH_RXBISECT };
	const uint32_t prefetch = 8;

	for (size_t a = 0; a < sizeof(archs) / sizeof(archs[0]); a++) {
		struct rxb_iface_config cfg = { .arch = archs[a], .desc_prefetch = prefetch };
		struct test_pool tp;
		struct rxb_iface *i = make(&cfg, &tp);
		struct rxb_rx_meta m[CORES];
		struct rxb_delivery d[CORES];
		uint64_t reads;

		CHECK(i != NULL);
		if (i == NULL)
			continue;
		for (uint32_t c = 0; c < CORES; c++)
			m[c] = (struct rxb_rx_meta){ .len = 60, .dest = c };
		for (int k = 0; k < 5; k++) {
			for (uint32_t c = 0; c < CORES; c++)
				rxb_iface_deliver(i, &m[c], &d[c]);
			CHECK_EQ(rxb_iface_deliver_burst(i, NULL, m, CORES, d, 0), CORES);
		}
		reads = nic_total(i, RXB_NIC_DESC_READS);
		CHECK(reads > 0);
		CHECK_EQ(nic_total(i, RXB_NIC_DESC_FETCHED), reads * prefetch);
		CHECK(drained_and_checked(i, &tp));
		rxb_iface_destroy(i);
		test_pool_fini(&tp);
	}
}

int main(void)
{
	RUN(test_stalled_core_rxarr_vs_rxbisect);
	RUN(test_dyn_shring_switches_without_loss);
	RUN(test_dyn_drain_keeps_old_packets);
	RUN(test_released_by_transmit);
	RUN(test_sources);
	RUN(test_dyn_sources);
	RUN(test_names);
	RUN(test_indexes_that_do_not_exist);
	RUN(test_errors);
	RUN(test_descriptors_fetched);
	return check_summary();
}
