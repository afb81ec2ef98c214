/* SPDX-License-Identifier: BSD-3-Clause
 *
 * privRing — the state of practice (docs/interfaces.md §3): one Rx ring and one
 * completion ring (CR) per core. "small privRing" is the same with small
 * rings (128). Also the per-port queue of the shared page pool (spool.h),
 * which posts fewer buffers than the ring holds.
 *
 * Who may call what:
 *   rxb_privring_nic_*            the NIC thread
 *   rxb_privring_rx_* / post / free   the core that owns queue q
 *   stats / occupancy             anyone, any time
 *   census / check / create / destroy   a quiescent point
 * Indexes (queue, core, ring, Ax, port) are the caller's to keep below the
 * design's counts: these entries do not check them (the generic interface,
 * iface.h, does).
 */
#ifndef RXB_PRIVRING_H
#define RXB_PRIVRING_H

#include <stdbool.h>

#include "rxb/common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rxb_privring_config {
	uint32_t n_queues;      /* queues (one per core, or per port); 1..RXB_MAX_QUEUES */
	uint32_t ring_size;     /* Rx ring entries: 1024 privRing, 128 small */
	uint32_t cr_size;       /* CR entries; 0 = ring_size */
	uint32_t desc_prefetch; /* descriptors per descriptor read; 0 = default */
};

struct rxb_privring;

/* NULL on failure with errno and err set (common.h): -EINVAL naming the
 * field, -ENOMEM naming what could not be allocated. */
struct rxb_privring *rxb_privring_create(const struct rxb_privring_config *cfg,
					 struct rxb_err *err);
void rxb_privring_destroy(struct rxb_privring *pr);
uint32_t rxb_privring_n_queues(const struct rxb_privring *pr);
uint32_t rxb_privring_ring_size(const struct rxb_privring *pr);

/* ---- NIC side ---- */

/* Deliver one packet to queue meta->dest. Returns 0 when delivered, 1 when
 * dropped (cause in d->drop), -EINVAL when dest is out of range. */
int rxb_privring_nic_deliver(struct rxb_privring *pr, const struct rxb_rx_meta *meta,
			     struct rxb_delivery *d);

/* Deliver metas[0..n) in order into d[0..n), exactly as n calls of
 * rxb_privring_nic_deliver() would (outcomes, rings, counters), at less
 * cost: counters are added once per run of packets to one queue. rings:
 * NULL, or per packet the Rx ring its buffer is in (a software NIC whose
 * packets already sit in their buffers), which must be its dest's. Stops
 * before a packet whose dest is out of range or whose ring is not its
 * dest (d[k] as the single call leaves an out-of-range dest: -EINVAL's)
 * and, when stop_on_drop, right after the first drop. Returns how many
 * packets it handled. */
unsigned rxb_privring_nic_deliver_burst(struct rxb_privring *pr, const uint32_t *rings,
					const struct rxb_rx_meta *metas, unsigned n,
					struct rxb_delivery *d, bool stop_on_drop);

/* Would rxb_privring_nic_deliver() deliver a packet to queue q (< n_queues)
 * now? false with the drop's cause in *cause (may be NULL) otherwise. No
 * side effect a caller can see: no counter, no prefetch (the NIC may
 * refresh its cached copies of software's indices, as a delivery does). */
bool rxb_privring_nic_room(struct rxb_privring *pr, uint32_t q, enum rxb_drop_cause *cause);

/* Prefetch up to n posted descriptors of queue q into the NIC and return
 * their buffers in ring order (the emulator posts these to a physical
 * queue; packets then complete in the same order). Returns the count. */
unsigned rxb_privring_nic_fetch(struct rxb_privring *pr, uint32_t q, rxb_buf_t *bufs, unsigned n);

/* ---- software side (core owning queue q) ---- */

/* Receive up to n (≤ RXB_BURST_MAX) packets and repost a fresh buffer for
 * each, ringing the doorbell once. Takes as many packets as the allocator
 * gives fresh buffers for (rxb_alloc_get_upto); the rest stay in the ring,
 * and alloc_fail counts a call cut short. Returns packets. */
unsigned rxb_privring_rx_burst(struct rxb_privring *pr, uint32_t q, struct rxb_pkt *out, unsigned n,
			       const struct rxb_allocator *alloc);

/* Receive up to n packets without reposting (the spool refills by policy). */
unsigned rxb_privring_rx_take(struct rxb_privring *pr, uint32_t q, struct rxb_pkt *out, unsigned n);

/* Post up to n fresh buffers (bounded by free descriptor slots), as many
 * as the allocator gives, and ring the doorbell once. Returns buffers
 * posted (0 if the allocator is empty); fewer than asked counts one
 * RXB_SW_ALLOC_FAIL. */
unsigned rxb_privring_post(struct rxb_privring *pr, uint32_t q, const struct rxb_allocator *alloc,
			   unsigned n);

/* Buffers posted to queue q and not yet received back (software's view). */
uint32_t rxb_privring_posted(const struct rxb_privring *pr, uint32_t q);

/* Give processed packets' buffers back through the core's allocator. */
void rxb_privring_free(struct rxb_privring *pr, uint32_t q, const struct rxb_allocator *alloc,
		       const rxb_buf_t *bufs, unsigned n);

/* ---- observability ---- */
const struct rxb_nic_stats *rxb_privring_nic_stats(const struct rxb_privring *pr, uint32_t q);
const struct rxb_sw_stats *rxb_privring_sw_stats(const struct rxb_privring *pr, uint32_t q);
uint32_t rxb_privring_occupancy(struct rxb_privring *pr, uint32_t q);

/* Census of queue q at a quiescent point, added to *c. Appends every buffer
 * held by the queue to `bufs` when not NULL (struct rxb_buflist, lib
 * internal). Returns 0, or -RXB_E_INVARIANT with a message when an internal
 * invariant (docs/interfaces.md §8) is broken. */
struct rxb_buflist;
int rxb_privring_census(struct rxb_privring *pr, uint32_t q, struct rxb_census *c,
			struct rxb_buflist *bufs, struct rxb_err *err);

#ifdef __cplusplus
}
#endif
#endif /* RXB_PRIVRING_H */
