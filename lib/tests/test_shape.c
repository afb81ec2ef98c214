/* SPDX-License-Identifier: BSD-3-Clause
 * rxb_iface_shape against what rxb_iface_create builds: for every design
 * and a grid of configurations, the shape's counts must be the instance's,
 * and a configuration creation refuses must be refused by the shape too
 * (or be one the shape leaves to creation: ring sizes). */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "harness.h"
#include "rxb/shape.h"

static const uint32_t cores_grid[] = { 1, 2, 3, 4, 8, 12 };
static const uint32_t share_grid[] = { 0, 1, 2, 4 };
static const uint32_t size_grid[] = { 64, 256 };

/* What the shape refuses, creation refuses (with a pool that would do). */
static void refused_too(const struct rxb_iface_config *cfg)
{
	struct rxb_err err = { 0 };
	struct test_pool tp;

	if (test_pool_init(&tp, 1u << 16, cfg->n_cores ? cfg->n_cores : 1) != 0) {
		CHECK(0);
		return;
	}
	CHECK(rxb_iface_create(cfg, tp.alloc, &err) == NULL);
	CHECK(err.msg[0] != '\0');
	test_pool_fini(&tp);
}

static void compare(const struct rxb_iface_config *cfg)
{
	struct rxb_iface_shape s;
	struct rxb_err err = { 0 };
	struct test_pool tp;
	struct rxb_iface *i;
	int rc = rxb_iface_shape(cfg, &s, &err);

	if (rc != 0) {
		CHECK_EQ(rc, -EINVAL);
		refused_too(cfg);
		return;
	}
	CHECK(s.needed >= s.posted);
	if (test_pool_init(&tp, (uint32_t)s.needed + 64 * cfg->n_cores + 64, cfg->n_cores) != 0) {
		CHECK(0);
		return;
	}
	i = rxb_iface_create(cfg, tp.alloc, &err);
	if (i == NULL) {
		fprintf(stderr, "arch %s, %u cores: %s\n", rxb_arch_name[cfg->arch], cfg->n_cores,
			err.msg);
		CHECK(0);
	} else {
		CHECK_EQ(rxb_iface_n_srcs(i), s.n_srcs);
		CHECK_EQ(rxb_iface_n_dests(i), s.n_dests);
		CHECK_EQ(rxb_iface_n_cores(i), s.n_cores);
		CHECK_EQ(rxb_iface_posted(i), s.posted);
		rxb_iface_reclaim(i, NULL);
		rxb_iface_destroy(i);
	}
	test_pool_fini(&tp);
}

/* privRing, small privRing, shRing, RxList (batched too), dynamic shRing. */
static void test_ring_designs(void)
{
	static const enum rxb_arch archs[] = { RXB_ARCH_PRIVRING, RXB_ARCH_SMALL_PRIVRING,
					       RXB_ARCH_SHRING, RXB_ARCH_SHRING_LIST,
					       RXB_ARCH_DYN_SHRING };

	for (size_t a = 0; a < sizeof(archs) / sizeof(archs[0]); a++)
		for (size_t c = 0; c < sizeof(cores_grid) / sizeof(cores_grid[0]); c++)
			for (size_t sh = 0; sh < sizeof(share_grid) / sizeof(share_grid[0]); sh++)
				for (size_t z = 0; z < sizeof(size_grid) / sizeof(size_grid[0]);
				     z++) {
					struct rxb_iface_config cfg = {
						.arch = archs[a],
						.n_cores = cores_grid[c],
						.share_degree = share_grid[sh],
						.rx_size = size_grid[z],
						.rxlist_slots = share_grid[sh],
					};

					compare(&cfg);
				}
}

static void test_rxbisect(void)
{
	for (size_t c = 0; c < sizeof(cores_grid) / sizeof(cores_grid[0]); c++)
		for (uint32_t g = 0; g <= 4; g++)
			for (size_t z = 0; z < sizeof(size_grid) / sizeof(size_grid[0]); z++) {
				struct rxb_iface_config cfg = {
					.arch = RXB_ARCH_RXBISECT,
					.n_cores = cores_grid[c],
					.n_groups = g,
					.ax_size = size_grid[z],
					.bx_size = 4 * size_grid[z],
				};

				compare(&cfg);
			}
}

static void test_spool(void)
{
	static const uint32_t ports[] = { 1, 3, 8 };

	for (int m = 0; m < RXB_SPOOL_MODES; m++)
		for (size_t p = 0; p < sizeof(ports) / sizeof(ports[0]); p++)
			for (uint32_t q = 0; q <= 2; q++) {
				struct rxb_iface_config cfg = {
					.arch = RXB_ARCH_SPOOL,
					.n_cores = 2,
					.spool = { .n_ports = ports[p],
						   .mode = m,
						   .depth = 64,
						   .basic_queues = q,
						   .low = 16,
						   .high = 128 },
				};

				compare(&cfg);
			}
}

/* The two figures no instance query gives: reception capacity and the
 * buffers every ring can hold at once. */
static void test_capacity(void)
{
	struct rxb_iface_config cfg = {
		.arch = RXB_ARCH_RXBISECT, .n_cores = 4, .ax_size = 128, .bx_size = 1024
	};
	struct rxb_iface_shape s;
	struct rxb_err err;

	CHECK_EQ(rxb_iface_shape(&cfg, &s, &err), 0);
	CHECK_EQ(s.rx_capacity, 1024);
	CHECK_EQ(s.needed, 4 * (128 + 1024));
	cfg = (struct rxb_iface_config){ .arch = RXB_ARCH_SHRING_LIST,
					 .n_cores = 8,
					 .share_degree = 4,
					 .rx_size = 256,
					 .rxlist_slots = 4 };
	CHECK_EQ(rxb_iface_shape(&cfg, &s, &err), 0);
	CHECK_EQ(s.n_srcs, 2);
	CHECK_EQ(s.rx_capacity, 1024);
	CHECK_EQ(s.needed, 2 * 256 * 4);
	cfg.arch = RXB_ARCH_DYN_SHRING;
	CHECK_EQ(rxb_iface_shape(&cfg, &s, &err), 0);
	CHECK_EQ(s.queues_per_core, 2);
	CHECK_EQ(s.n_srcs, 8 + 2);
}

static void test_refused(void)
{
	struct rxb_iface_config cfg = { .arch = RXB_ARCH_SHRING, .n_cores = 6, .share_degree = 4 };
	struct rxb_iface_shape s;
	struct rxb_err err;

	CHECK_EQ(rxb_iface_shape(&cfg, &s, &err), -EINVAL);
	CHECK(strstr(err.msg, "must divide") != NULL);
	cfg = (struct rxb_iface_config){ .arch = RXB_ARCH_PRIVRING, .n_cores = 0 };
	CHECK_EQ(rxb_iface_shape(&cfg, &s, &err), -EINVAL);
	CHECK(strstr(err.msg, "system.cores = 0") != NULL);
	cfg = (struct rxb_iface_config){ .arch = RXB_ARCHS, .n_cores = 1 };
	CHECK_EQ(rxb_iface_shape(&cfg, &s, &err), -EINVAL);
}

int main(void)
{
	RUN(test_ring_designs);
	RUN(test_rxbisect);
	RUN(test_spool);
	RUN(test_capacity);
	RUN(test_refused);
	return check_summary();
}
