/* SPDX-License-Identifier: BSD-3-Clause
 *
 * shape.h — what rxb_iface_create() would build, without building it.
 *
 * Every consumer that sizes something around an interface (the simulator's
 * pool, the emulator's physical queues and mempool, the driver's mempool
 * warning, the front end's working-set figure) asks this one function
 * instead of restating each design's topology. It allocates nothing and
 * applies the same defaults and the same structural checks as creation, so
 * its counts are those rxb_iface_n_srcs(), rxb_iface_n_dests(),
 * rxb_iface_n_cores() and rxb_iface_posted() report right after creation
 * (lib/tests/test_shape.c holds it to that for every design).
 *
 * rxb_iface_shape_srcs_of() says which sources may serve a destination, the
 * fact the designs' deliver paths act on, so that a consumer that feeds
 * sources from queues of its own (the emulator's physical queues) need not
 * restate each design's steering.
 */
#ifndef RXB_SHAPE_H
#define RXB_SHAPE_H

#include "rxb/iface.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rxb_iface_shape {
	uint32_t n_srcs;          /* descriptor rings the NIC takes buffers from */
	uint32_t n_dests;         /* what steering picks: cores, or spool ports */
	uint32_t n_cores;         /* pollers: cores, or spool queues */
	uint32_t queues_per_core; /* reception rings one poller reads (dynamic shRing: 2) */
	uint32_t src_buffers;     /* buffers one source holds when full */
	uint32_t rx_capacity;     /* entries of one reception ring (CR, Bx, spool queue) */
	uint64_t posted;          /* buffers posted at creation (rxb_iface_posted) */
	uint64_t needed;          /* most buffers the interface holds at once: every
				   * source full and, where a reception ring fills
				   * independently of its sources (rxBisect's Bx),
				   * every such ring full too */
};

/* The shape cfg gives. 0, or -EINVAL with the message rxb_iface_create()
 * would give for the same structural mistake (core count, design, share
 * degree, association sets, spool ports). Ring sizes are not checked here:
 * creation checks them against the ring limits. */
int rxb_iface_shape(const struct rxb_iface_config *cfg, struct rxb_iface_shape *shape,
		    struct rxb_err *err);

/* The sources that may serve one destination: first .. first + n - 1, in
 * rxb_iface_n_srcs() numbering (iface.h). The ranges of all destinations
 * partition the sources; group numbers them in source order from 0, so a
 * consumer that gives each range one queue may index its queues by group. Per design (n = 1 except for rxBisect):
 *   privRing, small privRing   dest's Rx ring: dest
 *   shRing (RxArr, RxList)     its shared ring: dest / share_degree
 *   dynamic shRing             private set: dest; shared set: n_cores + dest / share_degree
 *   rxBisect                   every Ax ring of dest's association set: the sets are
 *                              contiguous blocks of cores, core c in set c × n_groups /
 *                              n_cores (uneven where n_groups does not divide n_cores)
 *   spool (dest: a port)       its queue: port % basic_queues in mode basic, else port */
struct rxb_src_range {
	uint32_t first, n;
	uint32_t group;
};

/* The sources that may serve dest in ring set `set`: dynamic shRing's
 * RXB_DYN_PRIVATE or RXB_DYN_SHARED (dynctl.h), 0 for every other design.
 * 0, or -EINVAL with a message: what rxb_iface_shape() refuses, a dest not
 * below n_dests, a set the design does not have. */
int rxb_iface_shape_srcs_of(const struct rxb_iface_config *cfg, uint32_t dest, uint32_t set,
			    struct rxb_src_range *r, struct rxb_err *err);
/* The same for a live interface (its creation configuration), for callers
 * that ask per packet and keep no configuration. 0 or -EINVAL. */
int rxb_iface_srcs_of(const struct rxb_iface *i, uint32_t dest, uint32_t set,
		      struct rxb_src_range *r);

#ifdef __cplusplus
}
#endif
#endif /* RXB_SHAPE_H */
