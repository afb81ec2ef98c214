/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The generic interface on rxBisect: the design's table of operations
 * (struct iface_ops), and the association sets it is created with.
 */
#include <stdlib.h>

#include "iface_int.h"
#include "rxb/shape.h"

/* Association sets: a Bx may use every Ax of its core's group, the sources
 * rxb_iface_shape_srcs_of() names (contiguous runs of cores, shape.c). */
static struct rxb_bisect *make_bisect(const struct rxb_iface_config *cfg, struct rxb_err *err)
{
	uint32_t n = cfg->n_cores, groups = default_u32(cfg->n_groups, 1);
	struct rxb_bisect_config bc = {
		.n_ax = n,
		.n_bx = n,
		.ax_size = default_u32(cfg->ax_size, RXB_DEFAULT_AX_SIZE),
		.bx_size = default_u32(cfg->bx_size, RXB_DEFAULT_BX_SIZE),
		.desc_prefetch = cfg->desc_prefetch,
		.policy = cfg->ax_policy,
		.seed = cfg->seed,
		.enforce_vendor_min = cfg->enforce_vendor_min,
		.coalesce = cfg->coalesce,
		.coalesce_timeout = cfg->coalesce_timeout,
	};
	uint32_t *members = NULL, *len = NULL;
	const uint32_t **assoc = NULL;
	struct rxb_bisect *bs = NULL;

	int rc = 0;

	if (groups > n) {
		rxb_err_set(err, "rxbisect.n_groups = %u: must be at most the %u cores", groups, n);
		return rxb_fail_null(-EINVAL);
	}
	if (groups > 1) {
		members = rxb_calloc(n, sizeof(*members));
		len = rxb_calloc(n, sizeof(*len));
		assoc = rxb_calloc(n, sizeof(*assoc));
		if (members == NULL || len == NULL || assoc == NULL) {
			rc = rxb_err_nomem(err,
					   n * (sizeof(*members) + sizeof(*len) + sizeof(*assoc)),
					   "rxbisect: association sets of %u groups", groups);
			goto out;
		}
		for (uint32_t c = 0; c < n; c++)
			members[c] = c; /* groups are contiguous runs of cores */
		for (uint32_t c = 0; c < n; c++) {
			struct rxb_src_range r;

			rc = rxb_iface_shape_srcs_of(cfg, c, 0, &r, err);
			if (rc != 0)
				goto out;
			assoc[c] = &members[r.first];
			len[c] = r.n;
		}
		bc.assoc = assoc;
		bc.assoc_len = len;
	}
	bs = rxb_bisect_create(&bc, err);
	if (bs == NULL)
		rc = -errno;
out:
	free(members);
	free(len);
	free(assoc);
	return bs ? bs : rxb_fail_null(rc);
}

static int bs_build(struct rxb_iface *i, struct rxb_err *err)
{
	i->bs = make_bisect(&i->cfg, err);
	if (i->bs == NULL)
		return -errno;
	i->n_dests = i->n_polled = i->n_srcs = i->cfg.n_cores;
	return 0;
}

/* Core c fills the Ax rings linked to its Bx (one each here). */
static void bs_prime(struct rxb_iface *i, uint64_t *want, uint64_t *got)
{
	for (uint32_t c = 0; c < i->cfg.n_cores; c++) {
		*want += rxb_bisect_config(i->bs)->ax_size;
		*got += rxb_bisect_prime(i->bs, c, &i->allocs[c]);
	}
}

static int bs_deliver(struct rxb_iface *i, const struct rxb_rx_meta *meta, struct rxb_delivery *d)
{
	return rxb_bisect_nic_deliver(i->bs, meta, d);
}

static int bs_deliver_from(struct rxb_iface *i, uint32_t src, const struct rxb_rx_meta *meta,
			   struct rxb_delivery *d)
{
	return rxb_bisect_nic_deliver_from(i->bs, src, meta, d);
}

static bool bs_nic_room(struct rxb_iface *i, uint32_t dest, enum rxb_drop_cause *cause)
{
	return rxb_bisect_nic_room(i->bs, dest, cause);
}

static unsigned bs_nic_fetch(struct rxb_iface *i, uint32_t src, rxb_buf_t *bufs, unsigned n)
{
	return rxb_bisect_nic_fetch(i->bs, src, bufs, n);
}

static unsigned bs_tick(struct rxb_iface *i, uint64_t now)
{
	return rxb_bisect_nic_tick(i->bs, now);
}

static unsigned bs_rx(struct rxb_iface *i, uint32_t core, struct rxb_pkt *out, unsigned n,
		      uint64_t now)
{
	(void)now; /* rxBisect's receive keeps no time */
	return rxb_bisect_rx(i->bs, core, out, n, &i->allocs[core]);
}

static void bs_free(struct rxb_iface *i, uint32_t core, const rxb_buf_t *bufs, unsigned n)
{
	rxb_bisect_free(i->bs, core, &i->allocs[core], bufs, n);
}

static const struct rxb_nic_stats *bs_nic_stats(const struct rxb_iface *i, uint32_t dest)
{
	return rxb_bisect_nic_stats(i->bs, dest);
}

static uint64_t bs_nic_counter(const struct rxb_iface *i, uint32_t dest, enum rxb_nic_counter c)
{
	return rxb_counter_read(&rxb_bisect_nic_stats(i->bs, dest)->c[c]);
}

static const struct rxb_sw_stats *bs_sw_stats(const struct rxb_iface *i, uint32_t core)
{
	return rxb_bisect_sw_stats(i->bs, core);
}

static uint32_t bs_occupancy(struct rxb_iface *i, uint32_t dest)
{
	return rxb_bisect_occupancy(i->bs, dest);
}

static int bs_census(struct rxb_iface *i, struct rxb_census *c, struct rxb_buflist *bufs,
		     struct rxb_err *err)
{
	return rxb_bisect_census(i->bs, c, bufs, err);
}

/* The library's bulk delivery, which checks the sources itself. */
static unsigned bs_deliver_burst(struct rxb_iface *i, const uint32_t *srcs,
				 const struct rxb_rx_meta *metas, unsigned n,
				 struct rxb_delivery *d, unsigned flags)
{
	return rxb_bisect_nic_deliver_burst(i->bs, srcs, metas, n, d,
					    flags & RXB_BURST_STOP_ON_DROP);
}

const struct iface_ops iface_rxbisect_ops = {
	.build = bs_build,
	.prime = bs_prime,
	.deliver = bs_deliver,
	.deliver_from = bs_deliver_from,
	.deliver_burst = bs_deliver_burst,
	.nic_fetch = bs_nic_fetch,
	.nic_room = bs_nic_room,
	.tick = bs_tick,
	.rx = bs_rx,
	.free = bs_free,
	.nic_stats = bs_nic_stats,
	.nic_counter = bs_nic_counter,
	.sw_stats = bs_sw_stats,
	.occupancy = bs_occupancy,
	.census = bs_census,
};
