/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The generic interface: maps one configuration vocabulary and one set of
 * verbs onto each design. This file holds creation, dispatch, and the census
 * and checks every design shares.
 *
 * Dispatch: one table of operations per design (struct iface_ops, in
 * iface_int.h), chosen once at creation; each design's table lives beside
 * it in lib/iface_<design>.c, dynamic shRing's in lib/iface_dyn.c. A verb is
 * one indirect call into the design's entry, which is a thin adapter around
 * the design's own function (a tail call once compiled); no verb tests which
 * design it runs on.
 */
#include <stdlib.h>
#include <string.h>

#include "iface_int.h"
#include "rxb/pool.h"

const char *const rxb_arch_name[RXB_ARCHS] = {
	[RXB_ARCH_PRIVRING] = "privring",     [RXB_ARCH_SMALL_PRIVRING] = "small_privring",
	[RXB_ARCH_SHRING] = "shring",         [RXB_ARCH_SHRING_LIST] = "shring_list",
	[RXB_ARCH_DYN_SHRING] = "dyn_shring", [RXB_ARCH_RXBISECT] = "rxbisect",
	[RXB_ARCH_SPOOL] = "spool",
};

/* ------------------------------------------- shared by the designs' entries */

unsigned iface_no_tick(struct rxb_iface *i, uint64_t now)
{
	(void)i;   /* the shape of the table: nothing to do for this design */
	(void)now; /* nothing is held for later */
	return 0;
}

static const struct iface_ops *const iface_ops_of[RXB_ARCHS] = {
	[RXB_ARCH_PRIVRING] = &iface_privring_ops,
	[RXB_ARCH_SMALL_PRIVRING] = &iface_privring_ops,
	[RXB_ARCH_SHRING] = &iface_shring_ops,
	[RXB_ARCH_SHRING_LIST] = &iface_shring_ops,
	[RXB_ARCH_DYN_SHRING] = &iface_dyn_shring_ops,
	[RXB_ARCH_RXBISECT] = &iface_rxbisect_ops,
	[RXB_ARCH_SPOOL] = &iface_spool_ops,
};

/* ------------------------------------------------------------------ create */

/* Post every ring's starting buffers; fails if the allocators run dry. */
static int iface_prime(struct rxb_iface *i, struct rxb_err *err)
{
	uint64_t want = 0, got = 0;

	i->ops->prime(i, &want, &got);
	if (got != want)
		return rxb_err_fail(err, -ENOBUFS,
				    "allocator: could post only %llu of the %llu "
				    "buffers the rings need; give the pool more buffers",
				    (unsigned long long)got, (unsigned long long)want);
	return 0;
}

static int iface_census_into(struct rxb_iface *i, struct rxb_census *c, struct rxb_buflist *bufs,
			     struct rxb_err *err);

long rxb_iface_reclaim(struct rxb_iface *i, struct rxb_err *err)
{
	struct rxb_buflist bufs = { 0 };
	struct rxb_census c = { 0 };
	int rc = iface_census_into(i, &c, &bufs, err);
	long n = (long)bufs.n;

	if (rc == 0)
		for (size_t k = 0; k < bufs.n; k++)
			i->allocs[0].put(i->allocs[0].ctx, &bufs.v[k], 1);
	rxb_buflist_fini(&bufs);
	return rc < 0 ? rc : n;
}

/* The endpoints: n_cores of them, each with get and put. */
static int check_allocs(const struct rxb_iface_config *cfg, const struct rxb_allocator *allocs,
			struct rxb_err *err)
{
	if (allocs == NULL) {
		rxb_err_set(err, "allocators = NULL: need one endpoint per core (%u)",
			    cfg->n_cores);
		return -EINVAL;
	}
	for (uint32_t c = 0; c < cfg->n_cores; c++) {
		if (allocs[c].get == NULL || allocs[c].put == NULL) {
			rxb_err_set(err,
				    "allocators[%u]: get or put is NULL; every one of the %u "
				    "cores needs an endpoint (a pool with as many cores?)",
				    c, cfg->n_cores);
			return -EINVAL;
		}
	}
	return 0;
}

struct rxb_iface *rxb_iface_create(const struct rxb_iface_config *cfg,
				   const struct rxb_allocator *allocs, struct rxb_err *err)
{
	struct rxb_iface *i;
	size_t bytes;
	int rc;

	if (cfg == NULL) {
		rxb_err_set(err, "iface: the configuration is NULL");
		return rxb_fail_null(-EINVAL);
	}
	if (cfg->n_cores == 0 || cfg->n_cores > RXB_MAX_CORES) {
		rxb_err_set(err, "system.cores = %u: must be in [1, %u]", cfg->n_cores,
			    RXB_MAX_CORES);
		return rxb_fail_null(-EINVAL);
	}
	if ((unsigned)cfg->arch >= RXB_ARCHS) {
		rxb_err_set(err, "arch.name = %d: must be an enum rxb_arch below %d",
			    (int)cfg->arch, RXB_ARCHS);
		return rxb_fail_null(-EINVAL);
	}
	rc = check_allocs(cfg, allocs, err);
	if (rc != 0)
		return rxb_fail_null(rc);
	i = rxb_calloc(1, sizeof(*i));
	if (i == NULL)
		return rxb_fail_null(rxb_err_nomem(err, sizeof(*i), "iface"));
	i->cfg = *cfg;
	i->ops = iface_ops_of[cfg->arch];
	bytes = sizeof(*i->allocs) * cfg->n_cores;
	i->allocs = rxb_malloc(bytes);
	if (i->allocs == NULL) {
		rc = rxb_err_nomem(err, bytes, "iface: %u allocator endpoints", cfg->n_cores);
		goto fail;
	}
	memcpy(i->allocs, allocs, bytes);
	rc = i->ops->build(i, err);
	if (rc != 0)
		goto fail;
	bytes = sizeof(*i->pipeline) * i->n_dests;
	i->pipeline = rxb_zalloc_aligned(bytes);
	if (i->pipeline == NULL) {
		rc = rxb_err_nomem(err, bytes, "iface: pipeline counters of %u destinations",
				   i->n_dests);
		goto fail;
	}
	bytes = sizeof(*i->core) * i->n_polled;
	i->core = rxb_zalloc_aligned(bytes);
	if (i->core == NULL) {
		rc = rxb_err_nomem(err, bytes, "iface: state of %u cores", i->n_polled);
		goto fail;
	}
	rc = iface_prime(i, err);
	if (rc != 0) {
		rxb_iface_reclaim(i, NULL); /* creation failed after priming */
		goto fail;
	}
	return i;
fail:
	rxb_iface_destroy(i);
	return rxb_fail_null(rc);
}

void rxb_iface_destroy(struct rxb_iface *i)
{
	if (i == NULL)
		return;
	rxb_privring_destroy(i->pr);
	rxb_shring_destroy(i->sh);
	rxb_bisect_destroy(i->bs);
	rxb_spool_destroy(i->sp);
	rxb_free_aligned(i->dyn);
	rxb_free_aligned(i->pipeline);
	rxb_free_aligned(i->core);
	free(i->allocs);
	free(i);
}

enum rxb_arch rxb_iface_arch(const struct rxb_iface *i)
{
	return i->cfg.arch;
}

uint32_t rxb_iface_n_dests(const struct rxb_iface *i)
{
	return i->n_dests;
}

uint32_t rxb_iface_n_cores(const struct rxb_iface *i)
{
	return i->n_polled;
}

uint32_t rxb_iface_n_srcs(const struct rxb_iface *i)
{
	return i->n_srcs;
}

struct rxb_privring *rxb_iface_privring(struct rxb_iface *i)
{
	return i->pr;
}

struct rxb_shring *rxb_iface_shring(struct rxb_iface *i)
{
	return i->sh;
}

struct rxb_bisect *rxb_iface_bisect(struct rxb_iface *i)
{
	return i->bs;
}

struct rxb_spool *rxb_iface_spool(struct rxb_iface *i)
{
	return i->sp;
}

/* ------------------------------------------------------------- NIC side */

int rxb_iface_deliver(struct rxb_iface *i, const struct rxb_rx_meta *meta, struct rxb_delivery *d)
{
	return i->ops->deliver(i, meta, d);
}

int rxb_iface_nic_room(struct rxb_iface *i, uint32_t dest, enum rxb_drop_cause *cause)
{
	if (dest >= i->n_dests)
		return -EINVAL;
	return !i->ops->nic_room(i, dest, cause);
}

int rxb_iface_deliver_from(struct rxb_iface *i, uint32_t src, const struct rxb_rx_meta *meta,
			   struct rxb_delivery *d)
{
	if (src >= i->n_srcs)
		return rxb_delivery_refuse(d, meta->dest);
	return i->ops->deliver_from(i, src, meta, d);
}

unsigned rxb_iface_deliver_burst(struct rxb_iface *i, const uint32_t *srcs,
				 const struct rxb_rx_meta *metas, unsigned n,
				 struct rxb_delivery *d, unsigned flags)
{
	return i->ops->deliver_burst(i, srcs, metas, n, d, flags);
}

unsigned rxb_iface_nic_fetch(struct rxb_iface *i, uint32_t src, rxb_buf_t *bufs, unsigned n)
{
	return src < i->n_srcs ? i->ops->nic_fetch(i, src, bufs, n) : 0;
}

int rxb_iface_drop_pipeline(struct rxb_iface *i, uint32_t dest)
{
	if (dest >= i->n_dests)
		return -EINVAL;
	rxb_nic_count(&i->pipeline[dest], RXB_NIC_OFFERED, 1);
	rxb_nic_count(&i->pipeline[dest], RXB_NIC_DROP_FIRST + RXB_DROP_PIPELINE, 1);
	return 0;
}

unsigned rxb_iface_tick(struct rxb_iface *i, uint64_t now)
{
	return i->ops->tick(i, now);
}

/* -------------------------------------------------------- software side */

unsigned rxb_iface_rx(struct rxb_iface *i, uint32_t core, struct rxb_pkt *out, unsigned n,
		      uint64_t now)
{
	return core < i->n_polled ? i->ops->rx(i, core, out, n, now) : 0;
}

void rxb_iface_free(struct rxb_iface *i, uint32_t core, const rxb_buf_t *bufs, unsigned n)
{
	if (core < i->n_polled)
		i->ops->free(i, core, bufs, n);
}

void rxb_iface_note_released(struct rxb_iface *i, uint32_t core, unsigned n)
{
	if (core < i->n_polled)
		rxb_counter_add(&i->core[core].released, n);
}

/* --------------------------------------------------------- observability */

const struct rxb_nic_stats *rxb_iface_nic_stats(const struct rxb_iface *i, uint32_t dest)
{
	return dest < i->n_dests ? i->ops->nic_stats(i, dest) : NULL;
}

uint64_t rxb_iface_nic_counter(const struct rxb_iface *i, uint32_t dest, enum rxb_nic_counter c)
{
	return dest < i->n_dests && (unsigned)c < RXB_NIC_COUNTERS ? i->ops->nic_counter(i, dest, c)
								   : 0;
}

const struct rxb_sw_stats *rxb_iface_sw_stats(const struct rxb_iface *i, uint32_t core)
{
	return core < i->n_polled ? i->ops->sw_stats(i, core) : NULL;
}

uint64_t rxb_iface_sw_counter(const struct rxb_iface *i, uint32_t core, enum rxb_sw_counter c)
{
	if (core >= i->n_polled || (unsigned)c >= RXB_SW_COUNTERS)
		return 0;
	if (i->ops->sw_counter != NULL)
		return i->ops->sw_counter(i, core, c);
	return rxb_counter_read(&i->ops->sw_stats(i, core)->c[c]);
}

uint32_t rxb_iface_occupancy(struct rxb_iface *i, uint32_t dest)
{
	return dest < i->n_dests ? i->ops->occupancy(i, dest) : 0;
}

uint64_t rxb_iface_posted(struct rxb_iface *i)
{
	struct rxb_census c = { 0 };

	rxb_iface_census(i, &c, NULL);
	return c.posted + c.nic_held;
}

/* -------------------------------------------------------------- checks */

static int iface_census_into(struct rxb_iface *i, struct rxb_census *c, struct rxb_buflist *bufs,
			     struct rxb_err *err)
{
	int rc = i->ops->census(i, c, bufs, err);

	for (uint32_t d = 0; rc == 0 && d < i->n_dests; d++) {
		c->offered += rxb_counter_read(&i->pipeline[d].c[RXB_NIC_OFFERED]);
		c->dropped += rxb_nic_drops(&i->pipeline[d]);
	}
	for (uint32_t k = 0; rc == 0 && k < i->n_polled; k++)
		c->app_held -= rxb_counter_read(&i->core[k].released);
	return rc;
}

int rxb_iface_census(struct rxb_iface *i, struct rxb_census *c, struct rxb_err *err)
{
	memset(c, 0, sizeof(*c));
	return iface_census_into(i, c, NULL, err);
}

static int check_packets(const struct rxb_census *c, struct rxb_err *err)
{
	if (c->offered != c->delivered + c->dropped)
		return rxb_err_fail(err, -RXB_E_INVARIANT,
				    "packet conservation: offered %llu != delivered %llu + "
				    "dropped %llu",
				    (unsigned long long)c->offered,
				    (unsigned long long)c->delivered,
				    (unsigned long long)c->dropped);
	if (c->delivered != c->received + c->in_entries)
		return rxb_err_fail(err, -RXB_E_INVARIANT,
				    "packet conservation: delivered %llu != received %llu + "
				    "unread %llu",
				    (unsigned long long)c->delivered,
				    (unsigned long long)c->received,
				    (unsigned long long)c->in_entries);
	return 0;
}

struct push_ctx {
	struct rxb_buflist *bufs;
	struct rxb_err *err;
	int rc; /* the first failure */
};

static void push_free(rxb_buf_t h, void *arg)
{
	struct push_ctx *p = arg;

	if (p->rc == 0)
		p->rc = rxb_buflist_push(p->bufs, h, p->err);
}

static int check_buffers(const struct rxb_census *c, const struct rxb_pool *pool,
			 struct rxb_buflist *bufs, struct rxb_err *err)
{
	uint64_t free_bufs = rxb_pool_free_count(pool);
	uint64_t placed = free_bufs + c->posted + c->nic_held + c->in_entries + c->app_held;
	struct push_ctx p = { bufs, err, 0 };

	if (placed != pool->cfg.n_bufs)
		return rxb_err_fail(
			err, -RXB_E_INVARIANT,
			"buffer conservation: pool %llu + posted %llu + in NIC %llu + "
			"unread %llu + application %llu = %llu, but the pool has %u buffers",
			(unsigned long long)free_bufs, (unsigned long long)c->posted,
			(unsigned long long)c->nic_held, (unsigned long long)c->in_entries,
			(unsigned long long)c->app_held, (unsigned long long)placed,
			pool->cfg.n_bufs);
	rxb_pool_for_each_free(pool, push_free, &p);
	return p.rc;
}

int rxb_iface_check(struct rxb_iface *i, const struct rxb_pool *pool, struct rxb_err *err)
{
	struct rxb_buflist bufs = { 0 };
	struct rxb_census c = { 0 };
	int rc = iface_census_into(i, &c, &bufs, err);

	if (rc == 0)
		rc = check_packets(&c, err);
	if (rc == 0 && pool != NULL)
		rc = check_buffers(&c, pool, &bufs, err);
	if (rc == 0)
		rc = rxb_buflist_check_unique(&bufs, rxb_arch_name[i->cfg.arch], err);
	rxb_buflist_fini(&bufs);
	return rc;
}
