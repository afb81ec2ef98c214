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

#ifdef __cplusplus
}
#endif
#endif /* RXB_SHAPE_H */
