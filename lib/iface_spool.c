/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The generic interface on the shared page pool: the design's table of
 * operations (struct iface_ops).
 */
#include "iface_int.h"

/* Destinations are ports; cores poll queues: core (queue) q uses allocator
 * q % n_cores. */
static int sp_build(struct rxb_iface *i, struct rxb_err *err)
{
	i->sp = rxb_spool_create(&i->cfg.spool, err);
	if (i->sp == NULL)
		return -errno;
	i->n_dests = i->cfg.spool.n_ports;
	i->n_polled = i->n_srcs = rxb_spool_n_queues(i->sp);
	/* rxb_spool_queue_of(), kept here so delivery checks it inline */
	i->port_mod = i->cfg.spool.mode == RXB_SPOOL_BASIC ? i->n_polled : 0;
	return 0;
}

/* The pool's queues fill by its policy as far as the allocator goes: a
 * queue short of its starting depth is fine (iface.h), one that posts
 * nothing (an empty allocator) counts as one buffer short. */
static void sp_prime(struct rxb_iface *i, uint64_t *want, uint64_t *got)
{
	for (uint32_t q = 0; q < i->n_polled; q++) {
		unsigned posted = rxb_spool_prime(i->sp, q, &i->allocs[q % i->cfg.n_cores]);

		*want += posted ? posted : 1;
		*got += posted;
	}
}

static int sp_deliver(struct rxb_iface *i, const struct rxb_rx_meta *meta, struct rxb_delivery *d)
{
	return rxb_spool_nic_deliver(i->sp, meta, d);
}

/* The source of a packet to port p is the queue p is mapped to (a port out
 * of range is the spool's to refuse). */
static int sp_deliver_from(struct rxb_iface *i, uint32_t src, const struct rxb_rx_meta *meta,
			   struct rxb_delivery *d)
{
	if (src != (i->port_mod ? meta->dest % i->port_mod : meta->dest))
		return rxb_delivery_refuse(d, meta->dest);
	return rxb_spool_nic_deliver(i->sp, meta, d);
}

static bool sp_nic_room(struct rxb_iface *i, uint32_t dest, enum rxb_drop_cause *cause)
{
	return rxb_spool_nic_room(i->sp, dest, cause);
}

static unsigned sp_nic_fetch(struct rxb_iface *i, uint32_t src, rxb_buf_t *bufs, unsigned n)
{
	return rxb_spool_nic_fetch(i->sp, src, bufs, n);
}

static unsigned sp_rx(struct rxb_iface *i, uint32_t queue, struct rxb_pkt *out, unsigned n,
		      uint64_t now)
{
	(void)now; /* the refill policy counts polls, not time */
	return rxb_spool_poll(i->sp, queue, out, n, &i->allocs[queue % i->cfg.n_cores]);
}

static void sp_free(struct rxb_iface *i, uint32_t queue, const rxb_buf_t *bufs, unsigned n)
{
	rxb_spool_free(i->sp, queue, &i->allocs[queue % i->cfg.n_cores], bufs, n);
}

static const struct rxb_nic_stats *sp_nic_stats(const struct rxb_iface *i, uint32_t port)
{
	return rxb_spool_port_stats(i->sp, port);
}

static uint64_t sp_nic_counter(const struct rxb_iface *i, uint32_t port, enum rxb_nic_counter c)
{
	return rxb_counter_read(&rxb_spool_port_stats(i->sp, port)->c[c]);
}

static const struct rxb_sw_stats *sp_sw_stats(const struct rxb_iface *i, uint32_t queue)
{
	return rxb_spool_sw_stats(i->sp, queue);
}

static uint32_t sp_occupancy(struct rxb_iface *i, uint32_t port)
{
	return rxb_spool_occupancy(i->sp, rxb_spool_queue_of(i->sp, port));
}

static int sp_census(struct rxb_iface *i, struct rxb_census *c, struct rxb_buflist *bufs,
		     struct rxb_err *err)
{
	return rxb_spool_census(i->sp, c, bufs, err);
}

/* The library's bulk delivery, which checks the sources itself. */
static unsigned sp_deliver_burst(struct rxb_iface *i, const uint32_t *srcs,
				 const struct rxb_rx_meta *metas, unsigned n,
				 struct rxb_delivery *d, unsigned flags)
{
	return rxb_spool_nic_deliver_burst(i->sp, srcs, metas, n, d,
					   flags & RXB_BURST_STOP_ON_DROP);
}

const struct iface_ops iface_spool_ops = {
	.build = sp_build,
	.prime = sp_prime,
	.deliver = sp_deliver,
	.deliver_from = sp_deliver_from,
	.deliver_burst = sp_deliver_burst,
	.nic_fetch = sp_nic_fetch,
	.nic_room = sp_nic_room,
	.tick = iface_no_tick,
	.rx = sp_rx,
	.free = sp_free,
	.nic_stats = sp_nic_stats,
	.nic_counter = sp_nic_counter,
	.sw_stats = sp_sw_stats,
	.occupancy = sp_occupancy,
	.census = sp_census,
};
