/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The generic interface's private half: the interface object, the table of
 * operations each design fills in, and what every design's adapters share.
 * lib/iface.c dispatches through the table; each design's table lives in its
 * own lib/iface_<design>.c.
 */
#ifndef RXB_IFACE_INT_H
#define RXB_IFACE_INT_H

#include <errno.h>

#include "ring.h"
#include "rxb/iface.h"
#include "rxb/privring.h"
#include "rxb/shring.h"

struct iface_dyn; /* dynamic shRing's switch state (iface_dyn.c) */

/* Per-core state the generic layer keeps, one line per core: written only by
 * that core, read by others (relaxed) for the census and the dyn switch. */
struct iface_core {
	_Atomic uint32_t polling; /* dynamic shRing: the ring set this core polls */
	rxb_counter_t released;   /* buffers freed by a transmit path (note_released) */
	/* dynamic shRing: receives that moved to the new set, so polled both
	 * sets (the old one empty) in one call; the summed counters take them out */
	rxb_counter_t moves;
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
	int (*deliver)(struct rxb_iface *i, const struct rxb_rx_meta *meta, struct rxb_delivery *d);
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
	uint64_t (*nic_counter)(const struct rxb_iface *i, uint32_t dest, enum rxb_nic_counter c);
	const struct rxb_sw_stats *(*sw_stats)(const struct rxb_iface *i, uint32_t core);
	/* optional: counter c of core c summed over its ring sets (NULL: sw_stats's) */
	uint64_t (*sw_counter)(const struct rxb_iface *i, uint32_t core, enum rxb_sw_counter c);
	uint32_t (*occupancy)(struct rxb_iface *i, uint32_t dest);
	/* census of the design's rings, added to *c; buffers into bufs */
	int (*census)(struct rxb_iface *i, struct rxb_census *c, struct rxb_buflist *bufs,
		      struct rxb_err *err);
};

struct rxb_iface {
	/* What every verb reads first, on one line. */
	const struct iface_ops *ops;
	struct rxb_allocator *allocs; /* per core (cfg.n_cores) */
	struct rxb_privring *pr;      /* privRing, small privRing, dyn's private set */
	struct rxb_shring *sh;        /* shRing, dyn's shared set */
	struct rxb_bisect *bs;
	struct rxb_spool *sp;
	struct iface_dyn *dyn;
	uint32_t n_dests;  /* destinations: cores, or spool ports */
	uint32_t n_polled; /* what cores poll: cores, or spool queues */
	uint32_t n_srcs;   /* NIC-side sources (rxb_iface_n_srcs) */
	uint32_t share;    /* shRing: cores per shared ring */
	uint32_t port_mod; /* spool: queue = port % port_mod; 0: = port */

	struct rxb_iface_config cfg;
	struct rxb_nic_stats *pipeline; /* per dest: drops before steering */
	struct iface_core *core;        /* per polled core / queue */
};

/* A configuration field, or the design's default where it is 0 (unset). */
static inline uint32_t default_u32(uint32_t v, uint32_t dflt)
{
	return v ? v : dflt;
}

/* The tick of designs without time-driven NIC work. */
unsigned iface_no_tick(struct rxb_iface *i, uint64_t now);

/* Each design's table (lib/iface_<design>.c). */
extern const struct iface_ops iface_privring_ops; /* privRing, small privRing */
extern const struct iface_ops iface_shring_ops;   /* shRing: RxArr, RxList */
extern const struct iface_ops iface_dyn_shring_ops;
extern const struct iface_ops iface_rxbisect_ops;
extern const struct iface_ops iface_spool_ops;

/* The privRing and shRing entries dynamic shRing reuses for its two sets. */
int iface_pr_build(struct rxb_iface *i, struct rxb_err *err);
void iface_pr_prime(struct rxb_iface *i, uint64_t *want, uint64_t *got);
int iface_pr_deliver_from(struct rxb_iface *i, uint32_t src, const struct rxb_rx_meta *meta,
			  struct rxb_delivery *d);
bool iface_pr_nic_room(struct rxb_iface *i, uint32_t dest, enum rxb_drop_cause *cause);
void iface_pr_free(struct rxb_iface *i, uint32_t core, const rxb_buf_t *bufs, unsigned n);
const struct rxb_sw_stats *iface_pr_sw_stats(const struct rxb_iface *i, uint32_t core);
uint64_t iface_pr_nic_counter(const struct rxb_iface *i, uint32_t dest, enum rxb_nic_counter c);
int iface_pr_census(struct rxb_iface *i, struct rxb_census *c, struct rxb_buflist *bufs,
		    struct rxb_err *err);
int iface_sh_build(struct rxb_iface *i, struct rxb_err *err);
void iface_sh_prime(struct rxb_iface *i, uint64_t *want, uint64_t *got);
int iface_sh_deliver_from(struct rxb_iface *i, uint32_t src, const struct rxb_rx_meta *meta,
			  struct rxb_delivery *d);
bool iface_sh_nic_room(struct rxb_iface *i, uint32_t dest, enum rxb_drop_cause *cause);
uint64_t iface_sh_nic_counter(const struct rxb_iface *i, uint32_t dest, enum rxb_nic_counter c);
int iface_sh_census(struct rxb_iface *i, struct rxb_census *c, struct rxb_buflist *bufs,
		    struct rxb_err *err);

#endif /* RXB_IFACE_INT_H */
