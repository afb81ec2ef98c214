/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Shared page pool for representors: privRing queues with a per-mode
 * steering and refill policy (see include/rxb/spool.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "ring.h"
#include "rxb/privring.h"
#include "rxb/spool.h"

const char *const rxb_spool_mode_name[RXB_SPOOL_MODES] = {
	[RXB_SPOOL_NONE] = "none",
	[RXB_SPOOL_BASIC] = "basic",
	[RXB_SPOOL_SPP] = "spp",
};

struct rxb_spool {
	struct rxb_spool_config cfg;
	struct rxb_privring *pr;
	struct rxb_nic_stats *port_stats; /* NIC-written, per port */
};

int rxb_spool_config_check(const struct rxb_spool_config *cfg, struct rxb_err *err)
{
	/* none and spp give every port a privRing queue, basic a shared one
	 * per basic_queues: at most RXB_MAX_QUEUES queues either way. */
	bool per_port = cfg->mode != RXB_SPOOL_BASIC;
	uint32_t most = per_port ? RXB_MAX_QUEUES : 1u << 20;

	if ((unsigned)cfg->mode >= RXB_SPOOL_MODES) {
		rxb_err_set(err, "spool.mode = %d: must be none, basic or spp", (int)cfg->mode);
		return -EINVAL;
	}
	if (cfg->n_ports == 0 || cfg->n_ports > most) {
		rxb_err_set(err, "spool.n_ports = %u: must be in [1, %u] with spool.mode = %s%s",
			    cfg->n_ports, most, rxb_spool_mode_name[cfg->mode],
			    per_port ? " (a queue per port)" : "");
		return -EINVAL;
	}
	if (cfg->mode == RXB_SPOOL_BASIC &&
	    (cfg->basic_queues > cfg->n_ports || cfg->basic_queues > RXB_MAX_CORES)) {
		rxb_err_set(err,
			    "spool.basic_queues = %u: must be at most spool.n_ports = %u "
			    "and at most %u (0 = 1)",
			    cfg->basic_queues, cfg->n_ports, RXB_MAX_CORES);
		return -EINVAL;
	}
	if (rxb_check_desc_prefetch("spool.desc_prefetch", cfg->desc_prefetch, err) != 0)
		return -EINVAL;
	if (cfg->mode != RXB_SPOOL_SPP)
		return rxb_check_ring_size("spool.depth", cfg->depth, err);
	if (rxb_check_ring_size("spool.high", cfg->high, err) != 0)
		return -EINVAL;
	if (cfg->low == 0 || cfg->low > cfg->high) {
		rxb_err_set(err, "spool.low = %u: must be in [1, spool.high = %u]", cfg->low,
			    cfg->high);
		return -EINVAL;
	}
	return 0;
}

static uint32_t spool_n_queues_of(const struct rxb_spool_config *cfg)
{
	if (cfg->mode != RXB_SPOOL_BASIC)
		return cfg->n_ports;
	return cfg->basic_queues ? cfg->basic_queues : 1;
}

struct rxb_spool *rxb_spool_create(const struct rxb_spool_config *cfg, struct rxb_err *err)
{
	struct rxb_privring_config pc = { 0 };
	struct rxb_spool *sp;
	size_t bytes;
	int rc;

	if (cfg == NULL) {
		rxb_err_set(err, "spool: the configuration is NULL");
		return rxb_fail_null(-EINVAL);
	}
	rc = rxb_spool_config_check(cfg, err);
	if (rc != 0)
		return rxb_fail_null(rc);
	sp = rxb_calloc(1, sizeof(*sp));
	if (sp == NULL)
		return rxb_fail_null(rxb_err_nomem(err, sizeof(*sp), "spool"));
	sp->cfg = *cfg;
	pc.n_queues = spool_n_queues_of(cfg);
	pc.ring_size = cfg->mode == RXB_SPOOL_SPP ? cfg->high : cfg->depth;
	pc.desc_prefetch = cfg->desc_prefetch;
	sp->pr = rxb_privring_create(&pc, err);
	if (sp->pr == NULL) {
		rc = -errno; /* err says why */
		goto fail;
	}
	bytes = sizeof(*sp->port_stats) * cfg->n_ports;
	sp->port_stats = rxb_zalloc_aligned(bytes);
	if (sp->port_stats == NULL) {
		rc = rxb_err_nomem(err, bytes, "spool: counters of %u ports", cfg->n_ports);
		goto fail;
	}
	return sp;
fail:
	rxb_spool_destroy(sp);
	return rxb_fail_null(rc);
}

void rxb_spool_destroy(struct rxb_spool *sp)
{
	if (sp == NULL)
		return;
	rxb_privring_destroy(sp->pr);
	rxb_free_aligned(sp->port_stats);
	free(sp);
}

uint32_t rxb_spool_n_queues(const struct rxb_spool *sp)
{
	return rxb_privring_n_queues(sp->pr);
}

uint32_t rxb_spool_cfg_queue_of(const struct rxb_spool_config *cfg, uint32_t port)
{
	return cfg->mode == RXB_SPOOL_BASIC ? port % spool_n_queues_of(cfg) : port;
}

uint32_t rxb_spool_queue_of(const struct rxb_spool *sp, uint32_t port)
{
	return rxb_spool_cfg_queue_of(&sp->cfg, port);
}

/* A port's counters for packets delivered to it, or dropped with cause
 * `drop` (d->drop, < 0 when delivered): offered first, so a reader never
 * sees more delivered or dropped than offered. */
static void count_port(struct rxb_spool *sp, uint32_t port, int32_t drop, uint64_t n)
{
	struct rxb_nic_stats *ps = &sp->port_stats[port];

	rxb_nic_count(ps, RXB_NIC_OFFERED, n);
	rxb_nic_count(ps, drop < 0 ? RXB_NIC_DELIVERED : RXB_NIC_DROP_FIRST + (uint32_t)drop, n);
}

int rxb_spool_nic_deliver(struct rxb_spool *sp, const struct rxb_rx_meta *meta,
			  struct rxb_delivery *d)
{
	struct rxb_rx_meta qmeta = *meta;
	int rc;

	if (meta->dest >= sp->cfg.n_ports) {
		rxb_delivery_start(d, meta->dest);
		return -EINVAL;
	}
	qmeta.dest = rxb_spool_queue_of(sp, meta->dest);
	rc = rxb_privring_nic_deliver(sp->pr, &qmeta, d);
	count_port(sp, meta->dest, d->drop, 1);
	return rc;
}

/* The queue of packet k's port, or RXB_NONE where the single call would
 * refuse it: a port out of range, or a buffer in a queue not its port's. */
static uint32_t queue_taking(const struct rxb_spool *sp, const uint32_t *queues,
			     const struct rxb_rx_meta *metas, unsigned k)
{
	uint32_t port = metas[k].dest, q;

	if (port >= sp->cfg.n_ports)
		return RXB_NONE;
	q = rxb_spool_queue_of(sp, port);
	return queues == NULL || queues[k] == q ? q : RXB_NONE;
}

/* The port counters of packets metas[0..n) delivered as d[0..n) says, one
 * addition per run of delivered packets to one port. */
static void count_ports(struct rxb_spool *sp, const struct rxb_rx_meta *metas,
			const struct rxb_delivery *d, unsigned n)
{
	for (unsigned k = 0, run; k < n; k += run) {
		for (run = 1; d[k].drop < 0 && k + run < n && d[k + run].drop < 0 &&
			      metas[k + run].dest == metas[k].dest;
		     run++)
			;
		count_port(sp, metas[k].dest, d[k].drop, run);
	}
}

/* The packets up to the first one spool refuses go to privRing's bulk
 * delivery, with each port replaced by its queue, a chunk at a time; its
 * records are what the single call leaves (the queue as the ring). */
unsigned rxb_spool_nic_deliver_burst(struct rxb_spool *sp, const uint32_t *queues,
				     const struct rxb_rx_meta *metas, unsigned n,
				     struct rxb_delivery *d, bool stop_on_drop)
{
	struct rxb_rx_meta qm[RXB_BURST_MAX];
	unsigned k = 0;

	while (k < n) {
		unsigned chunk = 0, got;
		uint32_t q;

		for (; k + chunk < n && chunk < RXB_BURST_MAX &&
		       (q = queue_taking(sp, queues, metas, k + chunk)) != RXB_NONE;
		     chunk++) {
			qm[chunk] = metas[k + chunk];
			qm[chunk].dest = q;
		}
		if (chunk == 0) {
			rxb_delivery_refuse(&d[k], metas[k].dest);
			break;
		}
		got = rxb_privring_nic_deliver_burst(sp->pr, NULL, qm, chunk, d + k, stop_on_drop);
		count_ports(sp, metas + k, d + k, got);
		k += got;
		/* short: a refusal (none: the queues are the ports'); else right
		 * after a drop, the chunk's last packet or not */
		if (got < chunk || (stop_on_drop && d[k - 1].drop >= 0))
			break;
	}
	return k;
}

bool rxb_spool_nic_room(struct rxb_spool *sp, uint32_t port, enum rxb_drop_cause *cause)
{
	return rxb_privring_nic_room(sp->pr, rxb_spool_queue_of(sp, port), cause);
}

unsigned rxb_spool_nic_fetch(struct rxb_spool *sp, uint32_t q, rxb_buf_t *bufs, unsigned n)
{
	return rxb_privring_nic_fetch(sp->pr, q, bufs, n);
}

/* Buffers queue q should hold after a poll that received `got` of `budget`.
 * A zero budget asked for nothing, so getting nothing says nothing about
 * the load: idle, or an idle port would grow to `high` on such calls. */
static uint32_t spool_target(const struct rxb_spool *sp, uint32_t posted, unsigned got,
			     unsigned budget)
{
	const struct rxb_spool_config *cfg = &sp->cfg;

	if (cfg->mode != RXB_SPOOL_SPP)
		return cfg->depth;
	if (budget != 0 && got == budget)
		return cfg->high;                     /* busy: the port needs a deeper queue */
	return posted < cfg->low ? cfg->low : posted; /* idle: keep at least low */
}

unsigned rxb_spool_prime(struct rxb_spool *sp, uint32_t q, const struct rxb_allocator *alloc)
{
	uint32_t fill = sp->cfg.mode == RXB_SPOOL_SPP ? sp->cfg.low : sp->cfg.depth;
	uint32_t posted = rxb_privring_posted(sp->pr, q);

	/* a queue spp grew past its starting fill keeps what it holds */
	return posted < fill ? rxb_privring_post(sp->pr, q, alloc, fill - posted) : 0;
}

unsigned rxb_spool_poll(struct rxb_spool *sp, uint32_t q, struct rxb_pkt *out, unsigned budget,
			const struct rxb_allocator *alloc)
{
	unsigned got;
	uint32_t posted, target;

	if (budget > RXB_BURST_MAX)
		budget = RXB_BURST_MAX;
	got = rxb_privring_rx_take(sp->pr, q, out, budget);
	posted = rxb_privring_posted(sp->pr, q);
	target = spool_target(sp, posted, got, budget);
	if (target > posted)
		rxb_privring_post(sp->pr, q, alloc, target - posted);
	return got;
}

void rxb_spool_free(struct rxb_spool *sp, uint32_t q, const struct rxb_allocator *alloc,
		    const rxb_buf_t *bufs, unsigned n)
{
	rxb_privring_free(sp->pr, q, alloc, bufs, n);
}

uint32_t rxb_spool_posted(const struct rxb_spool *sp, uint32_t q)
{
	return rxb_privring_posted(sp->pr, q);
}

const struct rxb_nic_stats *rxb_spool_port_stats(const struct rxb_spool *sp, uint32_t port)
{
	return &sp->port_stats[port];
}

const struct rxb_nic_stats *rxb_spool_nic_stats(const struct rxb_spool *sp, uint32_t q)
{
	return rxb_privring_nic_stats(sp->pr, q);
}

const struct rxb_sw_stats *rxb_spool_sw_stats(const struct rxb_spool *sp, uint32_t q)
{
	return rxb_privring_sw_stats(sp->pr, q);
}

uint32_t rxb_spool_occupancy(struct rxb_spool *sp, uint32_t q)
{
	return rxb_privring_occupancy(sp->pr, q);
}

int rxb_spool_census(struct rxb_spool *sp, struct rxb_census *c, struct rxb_buflist *bufs,
		     struct rxb_err *err)
{
	for (uint32_t q = 0; q < rxb_spool_n_queues(sp); q++) {
		int rc = rxb_privring_census(sp->pr, q, c, bufs, err);

		if (rc != 0)
			return rc;
	}
	return 0;
}
