/* SPDX-License-Identifier: BSD-3-Clause
 *
 * rxb_iface_shape (shape.h): each design's topology and buffer counts from
 * its configuration alone, with the defaults lib/iface.c and the designs
 * apply at creation; rxb_iface_shape_srcs_of: which sources serve a
 * destination, as each design's deliver path picks them.
 */
#include <errno.h>

#include "iface_int.h"
#include "rxb/shape.h"

static uint32_t or_default(uint32_t v, uint32_t dflt)
{
	return v ? v : dflt;
}

static uint32_t rx_size_of(const struct rxb_iface_config *cfg)
{
	return or_default(cfg->rx_size, cfg->arch == RXB_ARCH_SMALL_PRIVRING
						? RXB_DEFAULT_SMALL_RX_SIZE
						: RXB_DEFAULT_RX_SIZE);
}

static void privring_shape(const struct rxb_iface_config *cfg, struct rxb_iface_shape *s)
{
	uint32_t rx = rx_size_of(cfg);

	s->n_srcs = s->n_dests = s->n_cores = cfg->n_cores;
	s->src_buffers = rx;
	s->rx_capacity = or_default(cfg->cr_size, rx);
	s->posted = s->needed = (uint64_t)cfg->n_cores * rx;
}

/* Buffer slots per shared descriptor: batched RxList holds several. */
static uint32_t shring_slots(const struct rxb_iface_config *cfg)
{
	return cfg->arch == RXB_ARCH_SHRING_LIST ? or_default(cfg->rxlist_slots, 1) : 1;
}

uint32_t rxb_share_degree_up_to(const uint32_t *counts, uint32_t n, uint32_t most)
{
	for (uint32_t d = most; d > 1; d--) {
		uint32_t k = 0;

		while (k < n && counts[k] % d == 0)
			k++;
		if (k == n)
			return d;
	}
	return 1;
}

uint32_t rxb_share_degree_default(uint32_t n_cores)
{
	return rxb_share_degree_up_to(&n_cores, 1, RXB_DEFAULT_SHARE_DEGREE);
}

/* Cores per shared ring. */
static uint32_t shring_share(const struct rxb_iface_config *cfg)
{
	return or_default(cfg->share_degree, rxb_share_degree_default(cfg->n_cores));
}

static int shring_shape(const struct rxb_iface_config *cfg, struct rxb_iface_shape *s,
			struct rxb_err *err)
{
	uint32_t n = cfg->n_cores, rx = rx_size_of(cfg), slots = shring_slots(cfg);
	uint32_t share = shring_share(cfg);

	if (n % share != 0) {
		rxb_err_set(err,
			    "shring.share_degree = %u: must divide shring.n_cores = %u; allowed: "
			    "a divisor of %u, or 0 for the default (%u)",
			    share, n, n, rxb_share_degree_default(n));
		return -EINVAL;
	}
	s->n_srcs = n / share;
	s->n_dests = s->n_cores = n;
	s->src_buffers = rx * slots;
	s->rx_capacity = or_default(cfg->cr_size, rx * slots);
	s->posted = s->needed = (uint64_t)s->n_srcs * s->src_buffers;
	return 0;
}

/* Both ring sets stay primed: the private rings, then the shared ones. */
static int dyn_shape(const struct rxb_iface_config *cfg, struct rxb_iface_shape *s,
		     struct rxb_err *err)
{
	struct rxb_iface_shape shared;
	int rc = shring_shape(cfg, &shared, err);

	if (rc != 0)
		return rc;
	privring_shape(cfg, s);
	s->n_srcs += shared.n_srcs;
	s->queues_per_core = 2;
	s->posted += shared.posted;
	s->needed += shared.needed;
	return 0;
}

/* A Bx fills from any Ax of its set while every core refills its own Ax,
 * so the Bx rings hold buffers on top of full Ax rings. */
static int bisect_shape(const struct rxb_iface_config *cfg, struct rxb_iface_shape *s,
			struct rxb_err *err)
{
	uint32_t n = cfg->n_cores, groups = or_default(cfg->n_groups, 1);
	uint32_t ax = or_default(cfg->ax_size, RXB_DEFAULT_AX_SIZE);

	if (groups > n) {
		rxb_err_set(err, "rxbisect.n_groups = %u: must be at most the %u cores", groups, n);
		return -EINVAL;
	}
	s->n_srcs = s->n_dests = s->n_cores = n;
	s->src_buffers = ax;
	s->rx_capacity = or_default(cfg->bx_size, RXB_DEFAULT_BX_SIZE);
	s->posted = (uint64_t)n * ax;
	s->needed = s->posted + (uint64_t)n * s->rx_capacity;
	return 0;
}

/* Ports are destinations; cores poll queues: one per port, or basic's
 * shared PF queues. spp posts `low` and grows a busy queue to `high`. */
static int spool_shape(const struct rxb_iface_config *cfg, struct rxb_iface_shape *s,
		       struct rxb_err *err)
{
	const struct rxb_spool_config *sp = &cfg->spool;
	bool spp = sp->mode == RXB_SPOOL_SPP;

	if (rxb_spool_config_check(sp, err) != 0)
		return -EINVAL;
	s->n_dests = sp->n_ports;
	s->n_srcs = s->n_cores = sp->mode == RXB_SPOOL_BASIC ? or_default(sp->basic_queues, 1)
							     : sp->n_ports;
	s->src_buffers = spp ? sp->high : sp->depth;
	s->rx_capacity = s->src_buffers;
	s->posted = (uint64_t)s->n_srcs * (spp ? sp->low : sp->depth);
	s->needed = (uint64_t)s->n_srcs * s->src_buffers;
	return 0;
}

int rxb_iface_shape(const struct rxb_iface_config *cfg, struct rxb_iface_shape *shape,
		    struct rxb_err *err)
{
	*shape = (struct rxb_iface_shape){ .queues_per_core = 1 };
	if (cfg->n_cores == 0 || cfg->n_cores > RXB_MAX_CORES) {
		rxb_err_set(err, "system.cores = %u: must be in [1, %u]", cfg->n_cores,
			    RXB_MAX_CORES);
		return -EINVAL;
	}
	switch (cfg->arch) {
	case RXB_ARCH_PRIVRING:
	case RXB_ARCH_SMALL_PRIVRING:
		privring_shape(cfg, shape);
		return 0;
	case RXB_ARCH_SHRING:
	case RXB_ARCH_SHRING_LIST:
		return shring_shape(cfg, shape, err);
	case RXB_ARCH_DYN_SHRING:
		return dyn_shape(cfg, shape, err);
	case RXB_ARCH_RXBISECT:
		return bisect_shape(cfg, shape, err);
	case RXB_ARCH_SPOOL:
		return spool_shape(cfg, shape, err);
	default:
		rxb_err_set(err, "arch.name = %d: must be an enum rxb_arch below %d",
			    (int)cfg->arch, RXB_ARCHS);
		return -EINVAL;
	}
}

/* ------------------------------------------- the sources of a destination */

static struct rxb_src_range one_src(uint32_t src)
{
	return (struct rxb_src_range){ .first = src, .n = 1, .group = src };
}

/* First core of association set g: the sets are contiguous blocks of cores
 * as even as they get (core c is in set c × groups / n), as lib/iface_bisect.c
 * builds them. */
static uint32_t bisect_set_first(uint64_t g, uint32_t n, uint32_t groups)
{
	return (uint32_t)((g * n + groups - 1) / groups);
}

/* A Bx takes buffers from every Ax of its core's association set. */
static struct rxb_src_range bisect_srcs(const struct rxb_iface_config *cfg, uint32_t dest)
{
	uint32_t n = cfg->n_cores, groups = or_default(cfg->n_groups, 1);
	uint32_t g = (uint32_t)((uint64_t)dest * groups / n);
	uint32_t first = bisect_set_first(g, n, groups);

	return (struct rxb_src_range){ .first = first,
				       .n = bisect_set_first(g + 1ull, n, groups) - first,
				       .group = g };
}

/* dest and set name something the design has (n_dests destinations): 0,
 * or -EINVAL with the reason. */
static int check_dest_set(const struct rxb_iface_config *cfg, uint32_t n_dests, uint32_t dest,
			  uint32_t set, struct rxb_err *err)
{
	if (dest >= n_dests) {
		rxb_err_set(err, "dest = %u: must be below the %u destinations of %s", dest,
			    n_dests, rxb_arch_name[cfg->arch]);
		return -EINVAL;
	}
	if (cfg->arch == RXB_ARCH_DYN_SHRING && set >= RXB_DYN_MODES) {
		rxb_err_set(err,
			    "set = %u: must be RXB_DYN_PRIVATE (%d) or RXB_DYN_SHARED (%d) "
			    "for dyn_shring",
			    set, RXB_DYN_PRIVATE, RXB_DYN_SHARED);
		return -EINVAL;
	}
	if (cfg->arch != RXB_ARCH_DYN_SHRING && set != 0) {
		rxb_err_set(err, "set = %u: must be 0 for %s (only dyn_shring has two ring sets)",
			    set, rxb_arch_name[cfg->arch]);
		return -EINVAL;
	}
	return 0;
}

/* The sources of a checked dest and set of a checked configuration. */
static struct rxb_src_range srcs_of(const struct rxb_iface_config *cfg, uint32_t dest, uint32_t set)
{
	switch (cfg->arch) {
	case RXB_ARCH_SHRING:
	case RXB_ARCH_SHRING_LIST:
		return one_src(dest / shring_share(cfg));
	case RXB_ARCH_DYN_SHRING: /* the private rings, then the shared ones */
		return one_src(set == RXB_DYN_SHARED ? cfg->n_cores + dest / shring_share(cfg)
						     : dest);
	case RXB_ARCH_RXBISECT:
		return bisect_srcs(cfg, dest);
	case RXB_ARCH_SPOOL:
		return one_src(rxb_spool_cfg_queue_of(&cfg->spool, dest));
	default: /* privRing, small privRing */
		return one_src(dest);
	}
}

int rxb_iface_shape_srcs_of(const struct rxb_iface_config *cfg, uint32_t dest, uint32_t set,
			    struct rxb_src_range *r, struct rxb_err *err)
{
	struct rxb_iface_shape s;
	int rc = rxb_iface_shape(cfg, &s, err);

	if (rc == 0)
		rc = check_dest_set(cfg, s.n_dests, dest, set, err);
	if (rc == 0)
		*r = srcs_of(cfg, dest, set);
	return rc;
}

/* Creation checked the configuration: only dest and set are left to check. */
int rxb_iface_srcs_of(const struct rxb_iface *i, uint32_t dest, uint32_t set,
		      struct rxb_src_range *r)
{
	int rc = check_dest_set(&i->cfg, i->n_dests, dest, set, NULL);

	if (rc == 0)
		*r = srcs_of(&i->cfg, dest, set);
	return rc;
}
