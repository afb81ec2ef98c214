/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The generic interface: maps one configuration vocabulary and one set of
 * verbs onto each design, and implements the dynamic shRing switch
 * (privRing and shRing sets side by side, drain-then-switch).
 *
 * Dispatch: one table of operations per design (struct iface_ops), chosen
 * once at creation. A verb is one indirect call into the design's entry,
 * which is a thin adapter around the design's own function (a tail call
 * once compiled); no verb tests which design it runs on.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ring.h"
#include "rxb/iface.h"
#include "rxb/pool.h"
#include "rxb/privring.h"
#include "rxb/shring.h"

const char *const rxb_arch_name[RXB_ARCHS] = {
	[RXB_ARCH_PRIVRING] = "privring",
	[RXB_ARCH_SMALL_PRIVRING] = "small_privring",
	[RXB_ARCH_SHRING] = "shring",
	[RXB_ARCH_SHRING_LIST] = "shring_list",
	[RXB_ARCH_DYN_SHRING] = "dyn_shring",
	[RXB_ARCH_RXBISECT] = "rxbisect",
	[RXB_ARCH_SPOOL] = "spool",
};

/* Dynamic shRing: both ring sets exist and stay primed; only one is steered
 * to. The NIC owns the switch point, each core its own drain. */
struct dyn {
	struct rxb_dynctl ctl;             /* control thread only */
	_Atomic uint32_t requested;        /* control → NIC: mode to steer to */
	uint32_t nic_mode;                 /* NIC-private: mode it steers to */
	_Atomic uint32_t nic_mode_pub RXB_CACHE_ALIGNED; /* NIC → cores */
};

/* Per-core state the generic layer keeps, one line per core: written only by
 * that core, read by others (relaxed) for the census and the dyn switch. */
struct iface_core {
	_Atomic uint32_t polling; /* dynamic shRing: the ring set this core polls */
	rxb_counter_t released;   /* buffers freed by a transmit path (note_released) */
} RXB_CACHE_ALIGNED;

/* One design behind the generic verbs (the public verb of the same name
 * documents each). Every entry is set: callers never test for NULL.
 * Arguments are in range when a verb is reached through the public API,
 * except where the verb says it checks. */
struct iface_ops {
	/* set-up: create the design(s); post every ring's starting buffers,
	 * adding what the rings need to *want and what was posted to *got */
	int (*build)(struct rxb_iface *i, struct rxb_err *err);
	void (*prime)(struct rxb_iface *i, uint64_t *want, uint64_t *got);
	/* NIC side */
	int (*deliver)(struct rxb_iface *i, const struct rxb_rx_meta *meta,
		       struct rxb_delivery *d);
	int (*deliver_from)(struct rxb_iface *i, uint32_t src, const struct rxb_rx_meta *meta,
			    struct rxb_delivery *d);
	unsigned (*deliver_burst)(struct rxb_iface *i, const uint32_t *srcs,
				  const struct rxb_rx_meta *metas, unsigned n,
				  struct rxb_delivery *d, unsigned flags);
	unsigned (*nic_fetch)(struct rxb_iface *i, uint32_t src, rxb_buf_t *bufs, unsigned n);
	bool (*nic_room)(struct rxb_iface *i, uint32_t dest, enum rxb_drop_cause *cause);
	unsigned (*tick)(struct rxb_iface *i, uint64_t now);
	/* software side */
	unsigned (*rx)(struct rxb_iface *i, uint32_t core, struct rxb_pkt *out, unsigned n,
		       uint64_t now);
	void (*free)(struct rxb_iface *i, uint32_t core, const rxb_buf_t *bufs, unsigned n);
	/* observability */
	const struct rxb_nic_stats *(*nic_stats)(const struct rxb_iface *i, uint32_t dest);
	uint64_t (*nic_counter)(const struct rxb_iface *i, uint32_t dest,
				enum rxb_nic_counter c);
	const struct rxb_sw_stats *(*sw_stats)(const struct rxb_iface *i, uint32_t core);
	uint32_t (*occupancy)(struct rxb_iface *i, uint32_t dest);
	/* census of the design's rings, added to *c; buffers into bufs */
	int (*census)(struct rxb_iface *i, struct rxb_census *c, struct rxb_buflist *bufs,
		      struct rxb_err *err);
};

struct rxb_iface {
	/* What every verb reads first, on one line. */
	const struct iface_ops *ops;
	struct rxb_allocator *allocs;   /* per core (cfg.n_cores) */
	struct rxb_privring *pr;        /* privRing, small privRing, dyn's private set */
	struct rxb_shring *sh;          /* shRing, dyn's shared set */
	struct rxb_bisect *bs;
	struct rxb_spool *sp;
	struct dyn *dyn;
	uint32_t n_dests;               /* destinations: cores, or spool ports */
	uint32_t n_polled;              /* what cores poll: cores, or spool queues */
	uint32_t n_srcs;                /* NIC-side sources (rxb_iface_n_srcs) */
	uint32_t share;                 /* shRing: cores per shared ring */
	uint32_t port_mod;              /* spool: queue = port % port_mod; 0: = port */

	struct rxb_iface_config cfg;
	struct rxb_nic_stats *pipeline; /* per dest: drops before steering */
	struct iface_core *core;        /* per polled core / queue */
};

/* ------------------------------------------------------- configuration */

static uint32_t default_u32(uint32_t v, uint32_t dflt)
{
	return v ? v : dflt;
}

static struct rxb_privring *make_privring(const struct rxb_iface_config *cfg,
					  struct rxb_err *err)
{
	struct rxb_privring_config pc = {
		.n_queues = cfg->n_cores,
		.ring_size = default_u32(cfg->rx_size, cfg->arch == RXB_ARCH_SMALL_PRIVRING ?
						       RXB_DEFAULT_SMALL_RX_SIZE :
						       RXB_DEFAULT_RX_SIZE),
		.cr_size = cfg->cr_size,
		.desc_prefetch = cfg->desc_prefetch,
	};

	return rxb_privring_create(&pc, err);
}

static struct rxb_shring *make_shring(const struct rxb_iface_config *cfg, struct rxb_err *err)
{
	uint32_t share = cfg->n_cores < RXB_DEFAULT_SHARE_DEGREE ? cfg->n_cores :
								   RXB_DEFAULT_SHARE_DEGREE;
	struct rxb_shring_config sc = {
		.n_cores = cfg->n_cores,
		.share_degree = default_u32(cfg->share_degree, share),
		.ring_size = default_u32(cfg->rx_size, RXB_DEFAULT_RX_SIZE),
		.cr_size = cfg->cr_size,
		.desc_prefetch = cfg->desc_prefetch,
		.list = cfg->arch == RXB_ARCH_SHRING_LIST,
		.batch = cfg->arch == RXB_ARCH_SHRING_LIST ? cfg->rxlist_slots : 0,
	};

	return rxb_shring_create(&sc, err);
}

/* Association sets: core c belongs to group c × n_groups / n_cores; a Bx may
 * use every Ax of its group. */
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
			rc = rxb_err_nomem(err, n * (sizeof(*members) + sizeof(*len) +
						     sizeof(*assoc)),
					   "rxbisect: association sets of %u groups", groups);
			goto out;
		}
		for (uint32_t c = 0; c < n; c++)
			members[c] = c; /* groups are contiguous runs of cores */
		for (uint32_t c = 0; c < n; c++) {
			uint32_t g = (uint32_t)((uint64_t)c * groups / n);
			uint32_t first = (uint32_t)(((uint64_t)g * n + groups - 1) / groups);
			uint32_t end = (uint32_t)(((uint64_t)(g + 1) * n + groups - 1) / groups);

			assoc[c] = &members[first];
			len[c] = end - first;
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

/* A delivery refused before the design saw it (a source that destination
 * cannot use): out of line, so the entries stay tail calls. */
static __attribute__((noinline, cold)) int refuse(struct rxb_delivery *d, uint32_t dest)
{
	rxb_delivery_start(d, dest);
	return -EINVAL;
}

typedef int deliver_fn(struct rxb_iface *i, const struct rxb_rx_meta *meta,
		       struct rxb_delivery *d);
typedef int deliver_from_fn(struct rxb_iface *i, uint32_t src, const struct rxb_rx_meta *meta,
			    struct rxb_delivery *d);

/* rxb_iface_deliver_burst() for one design: instantiated once per design
 * with its own entries as constants, so each packet costs a direct call to
 * the design (no table look-up, no public wrapper) and nothing else. */
static inline __attribute__((always_inline)) unsigned
burst_loop(struct rxb_iface *i, const uint32_t *srcs, const struct rxb_rx_meta *metas,
	   unsigned n, struct rxb_delivery *d, unsigned flags, deliver_fn *one,
	   deliver_from_fn *one_from)
{
	const bool stop_on_drop = flags & RXB_BURST_STOP_ON_DROP;
	unsigned k;

	for (k = 0; k < n; k++) {
		int rc;

		if (srcs == NULL)
			rc = one(i, &metas[k], &d[k]);
		else if (srcs[k] < i->n_srcs)
			rc = one_from(i, srcs[k], &metas[k], &d[k]);
		else
			rc = refuse(&d[k], metas[k].dest);
		if (rc < 0)
			break;
		if (rc > 0 && stop_on_drop)
			return k + 1;
	}
	return k;
}

/* Instantiate the burst entry of a design from its two single entries. */
#define IFACE_BURST(name, one, one_from)                                                   \
	static unsigned name(struct rxb_iface *i, const uint32_t *srcs,                    \
			     const struct rxb_rx_meta *metas, unsigned n,                  \
			     struct rxb_delivery *d, unsigned flags)                       \
	{                                                                                  \
		return burst_loop(i, srcs, metas, n, d, flags, one, one_from);             \
	}

/* ---------------------------------------------------- privRing, small privRing */

static int pr_build(struct rxb_iface *i, struct rxb_err *err)
{
	i->pr = make_privring(&i->cfg, err);
	if (i->pr == NULL)
		return -errno;
	i->n_dests = i->n_polled = i->n_srcs = i->cfg.n_cores;
	return 0;
}

static void pr_prime(struct rxb_iface *i, uint64_t *want, uint64_t *got)
{
	uint32_t size = rxb_privring_ring_size(i->pr);

	for (uint32_t c = 0; c < i->cfg.n_cores; c++) {
		*want += size;
		*got += rxb_privring_post(i->pr, c, &i->allocs[c], size);
	}
}

static int pr_deliver(struct rxb_iface *i, const struct rxb_rx_meta *meta,
		      struct rxb_delivery *d)
{
	return rxb_privring_nic_deliver(i->pr, meta, d);
}

/* The source of a packet to core c is c's Rx ring. */
static int pr_deliver_from(struct rxb_iface *i, uint32_t src, const struct rxb_rx_meta *meta,
			   struct rxb_delivery *d)
{
	if (src != meta->dest)
		return refuse(d, meta->dest);
	return rxb_privring_nic_deliver(i->pr, meta, d);
}

static bool pr_nic_room(struct rxb_iface *i, uint32_t dest, enum rxb_drop_cause *cause)
{
	return rxb_privring_nic_room(i->pr, dest, cause);
}

static unsigned pr_nic_fetch(struct rxb_iface *i, uint32_t src, rxb_buf_t *bufs, unsigned n)
{
	return rxb_privring_nic_fetch(i->pr, src, bufs, n);
}

/* Designs without time-driven NIC work. */
static unsigned no_tick(struct rxb_iface *i, uint64_t now)
{
	(void)i; /* the shape of the table: nothing to do for this design */
	(void)now; /* nothing is held for later */
	return 0;
}

static unsigned pr_rx(struct rxb_iface *i, uint32_t core, struct rxb_pkt *out, unsigned n,
		      uint64_t now)
{
	(void)now; /* privRing keeps no time */
	return rxb_privring_rx_burst(i->pr, core, out, n, &i->allocs[core]);
}

/* Also dynamic shRing's: a core frees into its own allocator whichever set
 * the buffers came from, and the frees are counted on the privRing side. */
static void pr_free(struct rxb_iface *i, uint32_t core, const rxb_buf_t *bufs, unsigned n)
{
	rxb_privring_free(i->pr, core, &i->allocs[core], bufs, n);
}

static const struct rxb_nic_stats *pr_nic_stats(const struct rxb_iface *i, uint32_t dest)
{
	return rxb_privring_nic_stats(i->pr, dest);
}

static uint64_t pr_nic_counter(const struct rxb_iface *i, uint32_t dest,
			       enum rxb_nic_counter c)
{
	return rxb_counter_read(&rxb_privring_nic_stats(i->pr, dest)->c[c]);
}

static const struct rxb_sw_stats *pr_sw_stats(const struct rxb_iface *i, uint32_t core)
{
	return rxb_privring_sw_stats(i->pr, core);
}

static uint32_t pr_occupancy(struct rxb_iface *i, uint32_t dest)
{
	return rxb_privring_occupancy(i->pr, dest);
}

static int pr_census(struct rxb_iface *i, struct rxb_census *c, struct rxb_buflist *bufs,
		     struct rxb_err *err)
{
	int rc = 0;

	for (uint32_t q = 0; rc == 0 && q < rxb_privring_n_queues(i->pr); q++)
		rc = rxb_privring_census(i->pr, q, c, bufs, err);
	return rc;
}

IFACE_BURST(pr_deliver_burst, pr_deliver, pr_deliver_from)

static const struct iface_ops privring_ops = {
	.build = pr_build,
	.prime = pr_prime,
	.deliver = pr_deliver,
	.deliver_from = pr_deliver_from,
	.deliver_burst = pr_deliver_burst,
	.nic_fetch = pr_nic_fetch,
	.nic_room = pr_nic_room,
	.tick = no_tick,
	.rx = pr_rx,
	.free = pr_free,
	.nic_stats = pr_nic_stats,
	.nic_counter = pr_nic_counter,
	.sw_stats = pr_sw_stats,
	.occupancy = pr_occupancy,
	.census = pr_census,
};

/* ---------------------------------------------------- shRing: RxArr, RxList */

static int sh_build(struct rxb_iface *i, struct rxb_err *err)
{
	i->sh = make_shring(&i->cfg, err);
	if (i->sh == NULL)
		return -errno;
	i->n_dests = i->n_polled = i->cfg.n_cores;
	i->n_srcs = rxb_shring_n_rings(i->sh);
	i->share = i->cfg.n_cores / i->n_srcs;
	return 0;
}

/* Shared ring r is primed from the allocator of its group's first core. */
static void sh_prime(struct rxb_iface *i, uint64_t *want, uint64_t *got)
{
	uint32_t rings = rxb_shring_n_rings(i->sh);

	for (uint32_t r = 0; r < rings; r++) {
		*want += rxb_shring_ring_size(i->sh);
		*got += rxb_shring_prime(i->sh, r, &i->allocs[r * (i->cfg.n_cores / rings)]);
	}
}

static int sh_deliver(struct rxb_iface *i, const struct rxb_rx_meta *meta,
		      struct rxb_delivery *d)
{
	return rxb_shring_nic_deliver(i->sh, meta, d);
}

/* The source of a packet to core c is the ring c's group shares: c in
 * [src × share, (src + 1) × share), tested without a division (src is
 * below the rings, so src × share does not wrap). */
static int sh_deliver_from(struct rxb_iface *i, uint32_t src, const struct rxb_rx_meta *meta,
			   struct rxb_delivery *d)
{
	if (meta->dest - src * i->share >= i->share)
		return refuse(d, meta->dest);
	return rxb_shring_nic_deliver(i->sh, meta, d);
}

static bool sh_nic_room(struct rxb_iface *i, uint32_t dest, enum rxb_drop_cause *cause)
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

static uint64_t sh_nic_counter(const struct rxb_iface *i, uint32_t dest,
			       enum rxb_nic_counter c)
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

static int sh_census(struct rxb_iface *i, struct rxb_census *c, struct rxb_buflist *bufs,
		     struct rxb_err *err)
{
	return rxb_shring_census(i->sh, c, bufs, err);
}

IFACE_BURST(sh_deliver_burst, sh_deliver, sh_deliver_from)

static const struct iface_ops shring_ops = {
	.build = sh_build,
	.prime = sh_prime,
	.deliver = sh_deliver,
	.deliver_from = sh_deliver_from,
	.deliver_burst = sh_deliver_burst,
	.nic_fetch = sh_nic_fetch,
	.nic_room = sh_nic_room,
	.tick = no_tick,
	.rx = sh_rx,
	.free = sh_free,
	.nic_stats = sh_nic_stats,
	.nic_counter = sh_nic_counter,
	.sw_stats = sh_sw_stats,
	.occupancy = sh_occupancy,
	.census = sh_census,
};

/* ---------------------------------------------------------- dynamic shRing */

static int dyn_build(struct rxb_iface *i, struct rxb_err *err)
{
	static const struct rxb_dynctl_config zero;
	const struct rxb_dynctl_config *dc =
		memcmp(&i->cfg.dyn, &zero, sizeof(zero)) == 0 ? NULL : &i->cfg.dyn;
	int rc = pr_build(i, err);

	if (rc == 0)
		rc = sh_build(i, err);
	if (rc != 0)
		return rc;
	/* Sources: the private Rx rings, then the shared rings. */
	i->n_srcs = i->cfg.n_cores + rxb_shring_n_rings(i->sh);
	i->dyn = rxb_zalloc_aligned(sizeof(*i->dyn));
	if (i->dyn == NULL)
		return rxb_err_nomem(err, sizeof(*i->dyn), "dyn_shring controller");
	return rxb_dynctl_init(&i->dyn->ctl, dc, RXB_DYN_PRIVATE, err);
}

/* Both sets stay primed (the cost of switching quickly), private first. */
static void dyn_prime(struct rxb_iface *i, uint64_t *want, uint64_t *got)
{
	pr_prime(i, want, got);
	sh_prime(i, want, got);
}

/* Dynamic shRing, NIC side: apply a requested switch before this packet.
 * release: pairs with the acquire in dyn_rx(); every entry written to the
 * old set before the switch is visible to a core that sees the new mode,
 * so an empty old CR then means drained for good. */
static enum rxb_dyn_mode dyn_nic_mode(struct dyn *d)
{
	uint32_t req = atomic_load_explicit(&d->requested, memory_order_relaxed);

	if (req != d->nic_mode) {
		d->nic_mode = req;
		atomic_store_explicit(&d->nic_mode_pub, req, memory_order_release);
	}
	return (enum rxb_dyn_mode)d->nic_mode;
}

static int dyn_deliver(struct rxb_iface *i, const struct rxb_rx_meta *meta,
		       struct rxb_delivery *d)
{
	if (dyn_nic_mode(i->dyn) == RXB_DYN_SHARED)
		return rxb_shring_nic_deliver(i->sh, meta, d);
	return rxb_privring_nic_deliver(i->pr, meta, d);
}

/* A packet in a buffer of the set the NIC does not steer to yet is the
 * first of a switch the NIC side already made (the emulator moves its
 * physical queues first): apply the switch the controller requested, then
 * deliver into the set the buffer came from. */
static int dyn_deliver_from(struct rxb_iface *i, uint32_t src, const struct rxb_rx_meta *meta,
			    struct rxb_delivery *d)
{
	struct dyn *y = i->dyn;
	uint32_t set = src < i->cfg.n_cores ? RXB_DYN_PRIVATE : RXB_DYN_SHARED;

	if (set != y->nic_mode && atomic_load_explicit(&y->requested, memory_order_relaxed) == set)
		dyn_nic_mode(y);
	if (set == RXB_DYN_SHARED)
		return sh_deliver_from(i, src - i->cfg.n_cores, meta, d);
	return pr_deliver_from(i, src, meta, d);
}

/* The set the next delivery steers to: the requested one, which
 * dyn_nic_mode() applies at that delivery (read here without applying it). */
static bool dyn_nic_room(struct rxb_iface *i, uint32_t dest, enum rxb_drop_cause *cause)
{
	if (atomic_load_explicit(&i->dyn->requested, memory_order_relaxed) == RXB_DYN_SHARED)
		return sh_nic_room(i, dest, cause);
	return pr_nic_room(i, dest, cause);
}

static unsigned dyn_nic_fetch(struct rxb_iface *i, uint32_t src, rxb_buf_t *bufs, unsigned n)
{
	if (src < i->cfg.n_cores)
		return rxb_privring_nic_fetch(i->pr, src, bufs, n);
	return rxb_shring_nic_fetch(i->sh, src - i->cfg.n_cores, bufs, n);
}

static unsigned dyn_rx_set(struct rxb_iface *i, uint32_t mode, uint32_t core,
			   struct rxb_pkt *out, unsigned n, uint64_t now)
{
	if (mode == RXB_DYN_SHARED)
		return rxb_shring_rx_burst(i->sh, core, out, n, &i->allocs[core], now);
	return rxb_privring_rx_burst(i->pr, core, out, n, &i->allocs[core]);
}

/* Has the NIC written entries to core c's CR in ring set `mode` that the core
 * has not read? Exact once the core has seen the NIC switch away from it. */
static bool dyn_old_set_empty(struct rxb_iface *i, uint32_t mode, uint32_t core)
{
	if (mode == RXB_DYN_SHARED)
		return rxb_shring_occupancy(i->sh, core) == 0;
	return rxb_privring_occupancy(i->pr, core) == 0;
}

/* Dynamic shRing, core side: keep polling the old set until it is empty
 * after the NIC has switched, then move to the new one. Nothing is lost and
 * order is kept: a receive may return nothing with packets still there (a
 * zero budget, an empty allocator), so the move waits for an empty ring. */
static unsigned dyn_rx(struct rxb_iface *i, uint32_t core, struct rxb_pkt *out, unsigned n,
		       uint64_t now)
{
	_Atomic uint32_t *polling = &i->core[core].polling;
	uint32_t mode = rxb_relaxed_load(polling);
	/* acquire: pairs with the release in dyn_nic_mode(). */
	uint32_t nic = atomic_load_explicit(&i->dyn->nic_mode_pub, memory_order_acquire);
	unsigned got;

	if (nic == mode)
		return dyn_rx_set(i, mode, core, out, n, now);
	got = dyn_rx_set(i, mode, core, out, n, now);
	if (got != 0 || !dyn_old_set_empty(i, mode, core))
		return got;
	rxb_relaxed_store(polling, nic);
	return dyn_rx_set(i, nic, core, out, n, now);
}

/* The counters of the set the NIC steers to now. */
static const struct rxb_nic_stats *dyn_nic_stats(const struct rxb_iface *i, uint32_t dest)
{
	if (rxb_iface_dyn_mode(i) == RXB_DYN_SHARED)
		return rxb_shring_nic_stats(i->sh, dest);
	return rxb_privring_nic_stats(i->pr, dest);
}

static uint64_t dyn_nic_counter(const struct rxb_iface *i, uint32_t dest,
				enum rxb_nic_counter c)
{
	return pr_nic_counter(i, dest, c) + sh_nic_counter(i, dest, c);
}

static uint32_t dyn_occupancy(struct rxb_iface *i, uint32_t dest)
{
	return rxb_privring_occupancy(i->pr, dest) + rxb_shring_occupancy(i->sh, dest);
}

static int dyn_census(struct rxb_iface *i, struct rxb_census *c, struct rxb_buflist *bufs,
		      struct rxb_err *err)
{
	int rc = pr_census(i, c, bufs, err);

	return rc == 0 ? sh_census(i, c, bufs, err) : rc;
}

IFACE_BURST(dyn_deliver_burst, dyn_deliver, dyn_deliver_from)

static const struct iface_ops dyn_shring_ops = {
	.build = dyn_build,
	.prime = dyn_prime,
	.deliver = dyn_deliver,
	.deliver_from = dyn_deliver_from,
	.deliver_burst = dyn_deliver_burst,
	.nic_fetch = dyn_nic_fetch,
	.nic_room = dyn_nic_room,
	.tick = no_tick,
	.rx = dyn_rx,
	.free = pr_free,
	.nic_stats = dyn_nic_stats,
	.nic_counter = dyn_nic_counter,
	.sw_stats = pr_sw_stats, /* frees are counted there (pr_free) */
	.occupancy = dyn_occupancy,
	.census = dyn_census,
};

/* ---------------------------------------------------------------- rxBisect */

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

static int bs_deliver(struct rxb_iface *i, const struct rxb_rx_meta *meta,
		      struct rxb_delivery *d)
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

static uint64_t bs_nic_counter(const struct rxb_iface *i, uint32_t dest,
			       enum rxb_nic_counter c)
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

IFACE_BURST(bs_deliver_burst, bs_deliver, bs_deliver_from)

static const struct iface_ops rxbisect_ops = {
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

/* ------------------------------------------------------- shared page pool */

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

/* A queue that posts nothing (an empty allocator) still counts as short. */
static void sp_prime(struct rxb_iface *i, uint64_t *want, uint64_t *got)
{
	for (uint32_t q = 0; q < i->n_polled; q++) {
		unsigned posted = rxb_spool_prime(i->sp, q, &i->allocs[q % i->cfg.n_cores]);

		*want += posted ? posted : 1;
		*got += posted;
	}
}

static int sp_deliver(struct rxb_iface *i, const struct rxb_rx_meta *meta,
		      struct rxb_delivery *d)
{
	return rxb_spool_nic_deliver(i->sp, meta, d);
}

/* The source of a packet to port p is the queue p is mapped to (a port out
 * of range is the spool's to refuse). */
static int sp_deliver_from(struct rxb_iface *i, uint32_t src, const struct rxb_rx_meta *meta,
			   struct rxb_delivery *d)
{
	if (src != (i->port_mod ? meta->dest % i->port_mod : meta->dest))
		return refuse(d, meta->dest);
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

static uint64_t sp_nic_counter(const struct rxb_iface *i, uint32_t port,
			       enum rxb_nic_counter c)
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

IFACE_BURST(sp_deliver_burst, sp_deliver, sp_deliver_from)

static const struct iface_ops spool_ops = {
	.build = sp_build,
	.prime = sp_prime,
	.deliver = sp_deliver,
	.deliver_from = sp_deliver_from,
	.deliver_burst = sp_deliver_burst,
	.nic_fetch = sp_nic_fetch,
	.nic_room = sp_nic_room,
	.tick = no_tick,
	.rx = sp_rx,
	.free = sp_free,
	.nic_stats = sp_nic_stats,
	.nic_counter = sp_nic_counter,
	.sw_stats = sp_sw_stats,
	.occupancy = sp_occupancy,
	.census = sp_census,
};

static const struct iface_ops *const iface_ops_of[RXB_ARCHS] = {
	[RXB_ARCH_PRIVRING] = &privring_ops,
	[RXB_ARCH_SMALL_PRIVRING] = &privring_ops,
	[RXB_ARCH_SHRING] = &shring_ops,
	[RXB_ARCH_SHRING_LIST] = &shring_ops,
	[RXB_ARCH_DYN_SHRING] = &dyn_shring_ops,
	[RXB_ARCH_RXBISECT] = &rxbisect_ops,
	[RXB_ARCH_SPOOL] = &spool_ops,
};

/* ------------------------------------------------------------------ create */

/* Post every ring's starting buffers; fails if the allocators run dry. */
static int iface_prime(struct rxb_iface *i, struct rxb_err *err)
{
	uint64_t want = 0, got = 0;

	i->ops->prime(i, &want, &got);
	if (got != want)
		return rxb_err_fail(err, -ENOBUFS, "allocator: could post only %llu of the %llu "
				    "buffers the rings need; give the pool more buffers",
				    (unsigned long long)got, (unsigned long long)want);
	return 0;
}

static int iface_census_into(struct rxb_iface *i, struct rxb_census *c,
			     struct rxb_buflist *bufs, struct rxb_err *err);

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
		rxb_err_set(err, "allocators = NULL: need one endpoint per core (%u)", cfg->n_cores);
		return -EINVAL;
	}
	for (uint32_t c = 0; c < cfg->n_cores; c++) {
		if (allocs[c].get == NULL || allocs[c].put == NULL) {
			rxb_err_set(err, "allocators[%u]: get or put is NULL; every one of the %u "
				    "cores needs an endpoint (a pool with as many cores?)", c,
				    cfg->n_cores);
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
		rxb_err_set(err, "arch.name = %d: must be an enum rxb_arch below %d", (int)cfg->arch,
			    RXB_ARCHS);
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

int rxb_iface_deliver(struct rxb_iface *i, const struct rxb_rx_meta *meta,
		      struct rxb_delivery *d)
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
		return refuse(d, meta->dest);
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

void rxb_iface_drop_pipeline(struct rxb_iface *i, uint32_t dest)
{
	rxb_nic_count(&i->pipeline[dest], RXB_NIC_OFFERED, 1);
	rxb_nic_count(&i->pipeline[dest], RXB_NIC_DROP_FIRST + RXB_DROP_PIPELINE, 1);
}

unsigned rxb_iface_tick(struct rxb_iface *i, uint64_t now)
{
	return i->ops->tick(i, now);
}

/* -------------------------------------------------------- software side */

unsigned rxb_iface_rx(struct rxb_iface *i, uint32_t core, struct rxb_pkt *out, unsigned n,
		      uint64_t now)
{
	return i->ops->rx(i, core, out, n, now);
}

void rxb_iface_free(struct rxb_iface *i, uint32_t core, const rxb_buf_t *bufs, unsigned n)
{
	i->ops->free(i, core, bufs, n);
}

void rxb_iface_note_released(struct rxb_iface *i, uint32_t core, unsigned n)
{
	rxb_counter_add(&i->core[core].released, n);
}

/* --------------------------------------------------------- observability */

const struct rxb_nic_stats *rxb_iface_nic_stats(const struct rxb_iface *i, uint32_t dest)
{
	return i->ops->nic_stats(i, dest);
}

uint64_t rxb_iface_nic_counter(const struct rxb_iface *i, uint32_t dest, enum rxb_nic_counter c)
{
	return i->ops->nic_counter(i, dest, c);
}

const struct rxb_sw_stats *rxb_iface_sw_stats(const struct rxb_iface *i, uint32_t core)
{
	return i->ops->sw_stats(i, core);
}

uint32_t rxb_iface_occupancy(struct rxb_iface *i, uint32_t dest)
{
	uint32_t occ = i->ops->occupancy(i, dest);

	/* A reader other than the NIC loads the producer index, then software
	 * publishes a consumer index past it before the reader loads that: the
	 * difference is negative and wraps. Benign (both indexes only grow and
	 * the ring was emptier than either load says), so it reads as empty;
	 * no ring holds 2^31 entries, so a set top bit can only mean that. */
	return occ > INT32_MAX ? 0 : occ;
}

uint64_t rxb_iface_posted(struct rxb_iface *i)
{
	struct rxb_census c = { 0 };

	rxb_iface_census(i, &c, NULL);
	return c.posted + c.nic_held;
}

/* ------------------------------------------------------- dynamic shRing */

static bool dyn_all_cores_on(struct rxb_iface *i, uint32_t mode)
{
	for (uint32_t c = 0; c < i->cfg.n_cores; c++)
		if (rxb_relaxed_load(&i->core[c].polling) != mode)
			return false;
	return true;
}

enum rxb_dyn_decision rxb_iface_dyn_sample(struct rxb_iface *i,
					   const struct rxb_dynctl_sample *s)
{
	struct dyn *d = i->dyn;
	enum rxb_dyn_decision dec;
	uint32_t want;

	if (d == NULL)
		return RXB_DYN_STAY;
	want = atomic_load_explicit(&d->requested, memory_order_relaxed);
	/* A switch in progress completes once the NIC and every core moved. */
	if (rxb_dynctl_pending(&d->ctl) != RXB_DYN_STAY &&
	    atomic_load_explicit(&d->nic_mode_pub, memory_order_relaxed) == want &&
	    dyn_all_cores_on(i, want))
		rxb_dynctl_set_mode(&d->ctl, (enum rxb_dyn_mode)want);
	dec = rxb_dynctl_update(&d->ctl, s);
	if (dec == RXB_DYN_TO_SHARED || dec == RXB_DYN_TO_PRIVATE)
		atomic_store_explicit(&d->requested,
				      dec == RXB_DYN_TO_SHARED ? RXB_DYN_SHARED : RXB_DYN_PRIVATE,
				      memory_order_relaxed);
	return dec;
}

enum rxb_dyn_mode rxb_iface_dyn_mode(const struct rxb_iface *i)
{
	if (i->dyn == NULL)
		return RXB_DYN_PRIVATE;
	return (enum rxb_dyn_mode)atomic_load_explicit(&i->dyn->nic_mode_pub,
						       memory_order_relaxed);
}

const struct rxb_dynctl *rxb_iface_dynctl(const struct rxb_iface *i)
{
	return i->dyn ? &i->dyn->ctl : NULL;
}

/* -------------------------------------------------------------- checks */

static int iface_census_into(struct rxb_iface *i, struct rxb_census *c,
			     struct rxb_buflist *bufs, struct rxb_err *err)
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
				    "dropped %llu", (unsigned long long)c->offered,
				    (unsigned long long)c->delivered, (unsigned long long)c->dropped);
	if (c->delivered != c->received + c->in_entries)
		return rxb_err_fail(err, -RXB_E_INVARIANT,
				    "packet conservation: delivered %llu != received %llu + "
				    "unread %llu", (unsigned long long)c->delivered,
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
		return rxb_err_fail(err, -RXB_E_INVARIANT,
				    "buffer conservation: pool %llu + posted %llu + in NIC %llu + "
				    "unread %llu + application %llu = %llu, but the pool has %u buffers",
				    (unsigned long long)free_bufs, (unsigned long long)c->posted,
				    (unsigned long long)c->nic_held,
				    (unsigned long long)c->in_entries,
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
