/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The generic interface on shRing (RxArr and RxList): the design's table of
 * operations (struct iface_ops).
 */
#include "iface_int.h"

static struct rxb_shring *make_shring(const struct rxb_iface_config *cfg, struct rxb_err *err)
{
	struct rxb_shring_config sc = {
		.n_cores = cfg->n_cores,
		.share_degree = default_u32(cfg->share_degree,
					    rxb_share_degree_default(cfg->n_cores)),
		.ring_size = default_u32(cfg->rx_size, RXB_DEFAULT_RX_SIZE),
		.cr_size = cfg->cr_size,
		.desc_prefetch = cfg->desc_prefetch,
		.list = cfg->arch == RXB_ARCH_SHRING_LIST,
		.batch = cfg->arch == RXB_ARCH_SHRING_LIST ? cfg->rxlist_slots : 0,
	};

	return rxb_shring_create(&sc, err);
}

int iface_sh_build(struct rxb_iface *i, struct rxb_err *err)
{
	i->sh = make_shring(&i->cfg, err);
	if (i->sh == NULL)
		return -errno;
	i->n_dests = i->n_polled = i->cfg.n_cores;
	i->n_srcs = rxb_shring_n_rings(i->sh);
	i->share = i->cfg.n_cores / i->n_srcs;
	return 0;
}

/* Shared ring r is primed from the allocator of its group's first core.
 * Counted in buffers (batched: slots), which is what the pool is short of;
 * priming is all or nothing per ring. */
void iface_sh_prime(struct rxb_iface *i, uint64_t *want, uint64_t *got)
{
	uint32_t rings = rxb_shring_n_rings(i->sh), slots = rxb_shring_ring_slots(i->sh);

	for (uint32_t r = 0; r < rings; r++) {
		*want += slots;
		if (rxb_shring_prime(i->sh, r, &i->allocs[r * (i->cfg.n_cores / rings)]) != 0)
			*got += slots;
	}
}

static int sh_deliver(struct rxb_iface *i, const struct rxb_rx_meta *meta, struct rxb_delivery *d)
{
	return rxb_shring_nic_deliver(i->sh, meta, d);
}

/* The source of a packet to core c is the ring c's group shares: c in
 * [src × share, (src + 1) × share), tested without a division (src is
 * below the rings, so src × share does not wrap). */
int iface_sh_deliver_from(struct rxb_iface *i, uint32_t src, const struct rxb_rx_meta *meta,
			  struct rxb_delivery *d)
{
	if (meta->dest - src * i->share >= i->share)
		return rxb_delivery_refuse(d, meta->dest);
	return rxb_shring_nic_deliver(i->sh, meta, d);
}

bool iface_sh_nic_room(struct rxb_iface *i, uint32_t dest, enum rxb_drop_cause *cause)
{
	return rxb_shring_nic_room(i->sh, dest, cause);
}

static unsigned sh_nic_fetch(struct rxb_iface *i, uint32_t src, rxb_buf_t *bufs, unsigned n)
{
	return rxb_shring_nic_fetch(i->sh, src, bufs, n);
}

static unsigned sh_rx(struct rxb_iface *i, uint32_t core, struct rxb_pkt *out, unsigned n,
		      uint64_t now)
{
	return rxb_shring_rx_burst(i->sh, core, out, n, &i->allocs[core], now);
}

static void sh_free(struct rxb_iface *i, uint32_t core, const rxb_buf_t *bufs, unsigned n)
{
	rxb_shring_free(i->sh, core, &i->allocs[core], bufs, n);
}

static const struct rxb_nic_stats *sh_nic_stats(const struct rxb_iface *i, uint32_t dest)
{
	return rxb_shring_nic_stats(i->sh, dest);
}

uint64_t iface_sh_nic_counter(const struct rxb_iface *i, uint32_t dest, enum rxb_nic_counter c)
{
	return rxb_counter_read(&rxb_shring_nic_stats(i->sh, dest)->c[c]);
}

static const struct rxb_sw_stats *sh_sw_stats(const struct rxb_iface *i, uint32_t core)
{
	return rxb_shring_sw_stats(i->sh, core);
}

static uint32_t sh_occupancy(struct rxb_iface *i, uint32_t dest)
{
	return rxb_shring_occupancy(i->sh, dest);
}

int iface_sh_census(struct rxb_iface *i, struct rxb_census *c, struct rxb_buflist *bufs,
		    struct rxb_err *err)
{
	return rxb_shring_census(i->sh, c, bufs, err);
}

/* The library's bulk delivery, which checks the sources itself. */
static unsigned sh_deliver_burst(struct rxb_iface *i, const uint32_t *srcs,
				 const struct rxb_rx_meta *metas, unsigned n,
				 struct rxb_delivery *d, unsigned flags)
{
	return rxb_shring_nic_deliver_burst(i->sh, srcs, metas, n, d,
					    flags & RXB_BURST_STOP_ON_DROP);
}

const struct iface_ops iface_shring_ops = {
	.build = iface_sh_build,
	.prime = iface_sh_prime,
	.deliver = sh_deliver,
	.deliver_from = iface_sh_deliver_from,
	.deliver_burst = sh_deliver_burst,
	.nic_fetch = sh_nic_fetch,
	.nic_room = iface_sh_nic_room,
	.tick = iface_no_tick,
	.rx = sh_rx,
	.free = sh_free,
	.nic_stats = sh_nic_stats,
	.nic_counter = iface_sh_nic_counter,
	.sw_stats = sh_sw_stats,
	.occupancy = sh_occupancy,
	.census = iface_sh_census,
};
