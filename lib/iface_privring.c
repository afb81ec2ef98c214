/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The generic interface on privRing and small privRing: the design's table
 * of operations (struct iface_ops).
 */
#include "iface_int.h"

static struct rxb_privring *make_privring(const struct rxb_iface_config *cfg, struct rxb_err *err)
{
	struct rxb_privring_config pc = {
		.n_queues = cfg->n_cores,
		.ring_size = default_u32(cfg->rx_size, cfg->arch == RXB_ARCH_SMALL_PRIVRING
							       ? RXB_DEFAULT_SMALL_RX_SIZE
							       : RXB_DEFAULT_RX_SIZE),
		.cr_size = cfg->cr_size,
		.desc_prefetch = cfg->desc_prefetch,
	};

	return rxb_privring_create(&pc, err);
}

int iface_pr_build(struct rxb_iface *i, struct rxb_err *err)
{
	i->pr = make_privring(&i->cfg, err);
	if (i->pr == NULL)
		return -errno;
	i->n_dests = i->n_polled = i->n_srcs = i->cfg.n_cores;
	return 0;
}

void iface_pr_prime(struct rxb_iface *i, uint64_t *want, uint64_t *got)
{
	uint32_t size = rxb_privring_ring_size(i->pr);

	for (uint32_t c = 0; c < i->cfg.n_cores; c++) {
		*want += size;
		*got += rxb_privring_post(i->pr, c, &i->allocs[c], size);
	}
}

static int pr_deliver(struct rxb_iface *i, const struct rxb_rx_meta *meta, struct rxb_delivery *d)
{
	return rxb_privring_nic_deliver(i->pr, meta, d);
}

/* The source of a packet to core c is c's Rx ring. */
int iface_pr_deliver_from(struct rxb_iface *i, uint32_t src, const struct rxb_rx_meta *meta,
			  struct rxb_delivery *d)
{
	if (src != meta->dest)
		return rxb_delivery_refuse(d, meta->dest);
	return rxb_privring_nic_deliver(i->pr, meta, d);
}

bool iface_pr_nic_room(struct rxb_iface *i, uint32_t dest, enum rxb_drop_cause *cause)
{
	return rxb_privring_nic_room(i->pr, dest, cause);
}

static unsigned pr_nic_fetch(struct rxb_iface *i, uint32_t src, rxb_buf_t *bufs, unsigned n)
{
	return rxb_privring_nic_fetch(i->pr, src, bufs, n);
}

static unsigned pr_rx(struct rxb_iface *i, uint32_t core, struct rxb_pkt *out, unsigned n,
		      uint64_t now)
{
	(void)now; /* privRing keeps no time */
	return rxb_privring_rx_burst(i->pr, core, out, n, &i->allocs[core]);
}

/* Also dynamic shRing's: a core frees into its own allocator whichever set
 * the buffers came from, and the frees are counted on the privRing side. */
void iface_pr_free(struct rxb_iface *i, uint32_t core, const rxb_buf_t *bufs, unsigned n)
{
	rxb_privring_free(i->pr, core, &i->allocs[core], bufs, n);
}

static const struct rxb_nic_stats *pr_nic_stats(const struct rxb_iface *i, uint32_t dest)
{
	return rxb_privring_nic_stats(i->pr, dest);
}

uint64_t iface_pr_nic_counter(const struct rxb_iface *i, uint32_t dest, enum rxb_nic_counter c)
{
	return rxb_counter_read(&rxb_privring_nic_stats(i->pr, dest)->c[c]);
}

const struct rxb_sw_stats *iface_pr_sw_stats(const struct rxb_iface *i, uint32_t core)
{
	return rxb_privring_sw_stats(i->pr, core);
}

static uint32_t pr_occupancy(struct rxb_iface *i, uint32_t dest)
{
	return rxb_privring_occupancy(i->pr, dest);
}

int iface_pr_census(struct rxb_iface *i, struct rxb_census *c, struct rxb_buflist *bufs,
		    struct rxb_err *err)
{
	int rc = 0;

	for (uint32_t q = 0; rc == 0 && q < rxb_privring_n_queues(i->pr); q++)
		rc = rxb_privring_census(i->pr, q, c, bufs, err);
	return rc;
}

/* The library's bulk delivery: the source of a packet to core c must be c's
 * Rx ring, which privRing checks itself. */
static unsigned pr_deliver_burst(struct rxb_iface *i, const uint32_t *srcs,
				 const struct rxb_rx_meta *metas, unsigned n,
				 struct rxb_delivery *d, unsigned flags)
{
	return rxb_privring_nic_deliver_burst(i->pr, srcs, metas, n, d,
					      flags & RXB_BURST_STOP_ON_DROP);
}

const struct iface_ops iface_privring_ops = {
	.build = iface_pr_build,
	.prime = iface_pr_prime,
	.deliver = pr_deliver,
	.deliver_from = iface_pr_deliver_from,
	.deliver_burst = pr_deliver_burst,
	.nic_fetch = pr_nic_fetch,
	.nic_room = iface_pr_nic_room,
	.tick = iface_no_tick,
	.rx = pr_rx,
	.free = iface_pr_free,
	.nic_stats = pr_nic_stats,
	.nic_counter = iface_pr_nic_counter,
	.sw_stats = iface_pr_sw_stats,
	.occupancy = pr_occupancy,
	.census = iface_pr_census,
};
