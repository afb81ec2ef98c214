/* SPDX-License-Identifier: BSD-3-Clause
 * rxb_iface_shape against what rxb_iface_create builds: for every design
 * and a grid of configurations, the shape's counts must be the instance's,
 * and a configuration creation refuses must be refused by the shape too
 * (or be one the shape leaves to creation: ring sizes). The sources
 * rxb_iface_shape_srcs_of names for each destination must be the ones the
 * instance delivers from, and the only ones it accepts. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "harness.h"
#include "rxb/shape.h"
#include "rxb/shring.h"

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

/* owner[b]: the source buffer b is posted in, UINT32_MAX if none. The NIC
 * fetches every posted descriptor, so each source's buffers are known
 * before any delivery. */
static void fetch_owners(struct rxb_iface *i, uint32_t *owner, uint32_t n_bufs)
{
	rxb_buf_t bufs[64];
	unsigned got;

	for (uint32_t b = 0; b < n_bufs; b++)
		owner[b] = UINT32_MAX;
	for (uint32_t src = 0; src < rxb_iface_n_srcs(i); src++)
		while ((got = rxb_iface_nic_fetch(i, src, bufs, 64)) > 0)
			for (unsigned k = 0; k < got; k++)
				if (bufs[k] < n_bufs)
					owner[bufs[k]] = src;
				else
					CHECK(0);
}

static bool in_range(const struct rxb_src_range *r, uint32_t src)
{
	return src >= r->first && src - r->first < r->n;
}

/* The owner of the buffer delivery d consumed is one of r's sources. */
static void check_owner(const struct rxb_delivery *d, const uint32_t *owner, uint32_t n_bufs,
			const struct rxb_src_range *r)
{
	CHECK(d->buf < n_bufs);
	if (d->buf < n_bufs && !in_range(r, owner[d->buf])) {
		fprintf(stderr, "dest %u: buffer of source %u, not of [%u, %u)\n", d->ring,
			owner[d->buf], r->first, r->first + r->n);
		CHECK(0);
	}
}

/* The range of r[0 .. sets) that holds src, or NULL. */
static const struct rxb_src_range *range_of(const struct rxb_src_range *r, uint32_t sets,
					    uint32_t src)
{
	for (uint32_t set = 0; set < sets; set++)
		if (in_range(&r[set], src))
			return &r[set];
	return NULL;
}

/* Every source: deliver_from dest accepts it exactly when it is in one of
 * dest's ranges r[0 .. sets) (dynamic shRing: either set's); a refusal
 * moves no counter (the packet was never offered) and says nothing was
 * delivered (d as include/rxb/iface.h: no buffer, no source). */
static void check_deliver_from(struct rxb_iface *i, uint32_t dest, const struct rxb_src_range *r,
			       uint32_t sets, const uint32_t *owner, uint32_t n_bufs)
{
	struct rxb_rx_meta m = { .len = 64, .hash = dest, .dest = dest };
	for (uint32_t src = 0; src < rxb_iface_n_srcs(i); src++) {
		const struct rxb_src_range *in = range_of(r, sets, src);
		uint64_t offered = rxb_iface_nic_counter(i, dest, RXB_NIC_OFFERED);
		struct rxb_delivery d = { .buf = (rxb_buf_t)1,
					  .src_ring = 7 }; /* not a refusal's */
		int rc = rxb_iface_deliver_from(i, src, &m, &d);

		if (in == NULL) {
			if (rc != -EINVAL)
				fprintf(stderr,
					"%s dest %u: source %u accepted, in no range of it\n",
					rxb_arch_name[rxb_iface_arch(i)], dest, src);
			CHECK_EQ(rc, -EINVAL);
			CHECK_EQ(rxb_iface_nic_counter(i, dest, RXB_NIC_OFFERED), offered);
			CHECK(d.buf == RXB_BUF_NONE);
			CHECK_EQ(d.src_ring, RXB_NONE);
			continue;
		}
		CHECK(rc == 0 || rc == 1);
		if (rc == 0)
			check_owner(&d, owner, n_bufs, in);
	}
}

/* Record r in group_of[] (by source): a source in two groups is an error
 * (check_partition finds a group split in two). */
static void note_range(const struct rxb_src_range *r, uint32_t *group_of, uint32_t n_srcs)
{
	CHECK(r->n >= 1 && r->first + r->n <= n_srcs);
	CHECK(r->group < n_srcs);
	for (uint32_t src = r->first; src < r->first + r->n && src < n_srcs; src++) {
		if (group_of[src] == UINT32_MAX)
			group_of[src] = r->group;
		CHECK_EQ(group_of[src], r->group);
	}
}

/* The ranges partition the sources into groups numbered in source order,
 * the last source's the highest group of any destination. */
static void check_partition(const uint32_t *group_of, uint32_t n_srcs, uint32_t max_group)
{
	CHECK_EQ(group_of[0], 0);
	CHECK_EQ(group_of[n_srcs - 1], max_group);
	for (uint32_t src = 1; src < n_srcs; src++)
		CHECK(group_of[src] - group_of[src - 1] <= 1);
}

/* For every destination and ring set: the shape's sources are the ones
 * rxb_iface_deliver takes a buffer from (the set it steers to: private)
 * and the only ones rxb_iface_deliver_from accepts. */
static void check_srcs(const struct rxb_iface_config *cfg, const struct rxb_iface_shape *s,
		       struct rxb_iface *i, uint32_t n_bufs)
{
	uint32_t *owner = calloc(n_bufs, sizeof(*owner));
	uint32_t *group_of = malloc(s->n_srcs * sizeof(*group_of));
	uint32_t sets = cfg->arch == RXB_ARCH_DYN_SHRING ? RXB_DYN_MODES : 1, max_group = 0;

	CHECK(owner != NULL && group_of != NULL);
	if (owner == NULL || group_of == NULL)
		goto out;
	memset(group_of, 0xff, s->n_srcs * sizeof(*group_of));
	fetch_owners(i, owner, n_bufs);
	for (uint32_t dest = 0; dest < s->n_dests; dest++) {
		struct rxb_rx_meta m = { .len = 64, .hash = dest, .dest = dest };
		struct rxb_src_range r[RXB_DYN_MODES], live;
		struct rxb_delivery d;
		struct rxb_err err;

		for (uint32_t set = 0; set < sets; set++) {
			CHECK_EQ(rxb_iface_shape_srcs_of(cfg, dest, set, &r[set], &err), 0);
			CHECK_EQ(rxb_iface_srcs_of(i, dest, set, &live), 0);
			CHECK(memcmp(&r[set], &live, sizeof(live)) == 0);
			note_range(&r[set], group_of, s->n_srcs);
			if (r[set].group > max_group)
				max_group = r[set].group;
		}
		/* rxb_iface_deliver steers to the private set until a switch */
		CHECK_EQ(rxb_iface_deliver(i, &m, &d), 0);
		check_owner(&d, owner, n_bufs, &r[RXB_DYN_PRIVATE]);
		check_deliver_from(i, dest, r, sets, owner, n_bufs);
	}
	check_partition(group_of, s->n_srcs, max_group);
out:
	free(owner);
	free(group_of);
}

static void compare(const struct rxb_iface_config *cfg)
{
	struct rxb_iface_shape s;
	struct rxb_err err = { 0 };
	struct test_pool tp;
	struct rxb_iface *i;
	uint32_t n_bufs;
	int rc = rxb_iface_shape(cfg, &s, &err);

	if (rc != 0) {
		CHECK_EQ(rc, -EINVAL);
		refused_too(cfg);
		return;
	}
	CHECK(s.needed >= s.posted);
	n_bufs = (uint32_t)s.needed + 64 * cfg->n_cores + 64;
	if (test_pool_init(&tp, n_bufs, cfg->n_cores) != 0) {
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
		check_srcs(cfg, &s, i, n_bufs);
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

/* share_degree 0 is the largest divisor of n_cores up to 8, so every core
 * count builds (9 to 15 did not with min(8, n_cores)); an explicit value
 * that does not divide is refused with what would do. */
static void test_default_share_degree(void)
{
	static const uint32_t want[] = { 1, 2, 3, 4, 5, 6, 7, 8, 3, 5, 1, 6, 1, 7, 5, 8 };
	struct rxb_iface_config cfg = { .arch = RXB_ARCH_SHRING, .n_cores = 12, .share_degree = 5 };
	struct rxb_iface_shape s;
	struct rxb_err err;
	struct test_pool tp;

	for (uint32_t n = 1; n <= 16; n++)
		CHECK_EQ(rxb_share_degree_default(n), want[n - 1]);
	CHECK_EQ(rxb_iface_shape(&cfg, &s, &err), -EINVAL);
	CHECK(strstr(err.msg, "shring.share_degree = 5: must divide shring.n_cores = 12; "
			      "allowed: a divisor of 12, or 0 for the default (6)") != NULL);
	cfg.share_degree = 0;
	for (enum rxb_arch a = RXB_ARCH_SHRING; a <= RXB_ARCH_DYN_SHRING; a++) {
		cfg.arch = a;
		CHECK_EQ(test_pool_init(&tp, 32768, 12), 0); /* dyn: 12 private rings too */
		struct rxb_iface *i = rxb_iface_create(&cfg, tp.alloc, &err);

		CHECK(i != NULL);
		CHECK_EQ(rxb_shring_n_rings(rxb_iface_shring(i)), 2); /* 12 / 6 */
		rxb_iface_destroy(i);
		test_pool_fini(&tp);
	}
}

/* A destination or ring set the design does not have. */
static void test_srcs_refused(void)
{
	struct rxb_iface_config cfg = { .arch = RXB_ARCH_SHRING, .n_cores = 8, .share_degree = 4 };
	struct rxb_src_range r;
	struct rxb_err err;

	CHECK_EQ(rxb_iface_shape_srcs_of(&cfg, 8, 0, &r, &err), -EINVAL);
	CHECK(strstr(err.msg, "dest = 8: must be below the 8 destinations") != NULL);
	CHECK_EQ(rxb_iface_shape_srcs_of(&cfg, 0, RXB_DYN_SHARED, &r, &err), -EINVAL);
	CHECK(strstr(err.msg, "set = 1: must be 0 for shring") != NULL);
	cfg.arch = RXB_ARCH_DYN_SHRING;
	CHECK_EQ(rxb_iface_shape_srcs_of(&cfg, 7, RXB_DYN_SHARED, &r, &err), 0);
	CHECK_EQ(r.first, 8 + 1);
	CHECK_EQ(rxb_iface_shape_srcs_of(&cfg, 0, RXB_DYN_MODES, &r, &err), -EINVAL);
	CHECK(strstr(err.msg, "set = 2: must be RXB_DYN_PRIVATE (0) or RXB_DYN_SHARED (1)") !=
	      NULL);
	cfg.share_degree = 3;
	CHECK_EQ(rxb_iface_shape_srcs_of(&cfg, 0, 0, &r, &err), -EINVAL);
	CHECK(strstr(err.msg, "must divide") != NULL);
}

/* Uneven association sets (8 cores, 3 groups: 3, 3 and 2 cores). */
static void test_uneven_sets(void)
{
	struct rxb_iface_config cfg = { .arch = RXB_ARCH_RXBISECT, .n_cores = 8, .n_groups = 3 };
	struct rxb_src_range r;
	struct rxb_err err;

	CHECK_EQ(rxb_iface_shape_srcs_of(&cfg, 7, 0, &r, &err), 0);
	CHECK_EQ(r.first, 6);
	CHECK_EQ(r.n, 2);
	CHECK_EQ(r.group, 2);
}

int main(void)
{
	RUN(test_ring_designs);
	RUN(test_rxbisect);
	RUN(test_spool);
	RUN(test_capacity);
	RUN(test_refused);
	RUN(test_default_share_degree);
	RUN(test_srcs_refused);
	RUN(test_uneven_sets);
	return check_summary();
}
