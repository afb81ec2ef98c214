/* SPDX-License-Identifier: BSD-3-Clause
 *
 * shRing — the state of the art, prior work (docs/interfaces.md §4): one Rx ring
 * shared by a group of `share_degree` cores, one completion ring (CR) per
 * core. The NIC spreads the shared ring's packets over the group's CRs (by
 * RSS: meta->dest names the core), so cores never compete to receive; they
 * must coordinate to repost, because they release descriptors out of ring
 * order. Two variants:
 *
 * RxArr (list = false, §4.1). The NIC consumes the shared ring in ring order.
 * A core re-arms each received descriptor in place (a fresh buffer in the
 * same slot) and marks it released in a shared bitmap, one atomic OR per
 * 64-bit word per batch. Then, under the group's lock, it returns to the NIC
 * the run of released descriptors that starts at the ring's return index
 * (one atomic AND per word of the run) and rings the doorbell once. A
 * descriptor is returned only when every earlier one is, so a slow core
 * holds back the whole group: under persistent imbalance the ring fills with
 * its packets and the NIC drops packets meant for healthy cores
 * (no_rx_desc). rxb_shring_wait_stats() reports how long released
 * descriptors waited to be returned.
 *
 * RxList (list = true, §4.2). Free descriptors form a list threaded through
 * a next[] array and the NIC follows the list. A core re-arms its batch in
 * place, links it privately and, under the lock, appends it after the list
 * tail and advances the doorbell (a posted count) by the batch size: no
 * bitmap, no in-order wait. THE SENTINEL RULE: the NIC never consumes the
 * list's tail descriptor. To consume a descriptor the NIC must know the
 * next one, i.e. read the tail's link; but once consumed, a tail could be
 * received, re-armed and appended by software, which rewrites its link, so
 * the NIC would follow a link that no longer describes the list it was
 * walking. Keeping the tail posted (a sentinel) means software only ever
 * writes the link of a descriptor the NIC has not yet passed, and only
 * before the doorbell that lets the NIC read it. Consequence: RxList's
 * usable capacity is ring_size − 1 descriptors (RxArr's is ring_size).
 * Descriptor contiguity is modelled: the NIC prefetches up to desc_prefetch
 * descriptors along the list and pays one descriptor-read transaction per
 * maximal run of array-consecutive indices, so a fresh (in-order) list costs
 * what RxArr costs and a scrambled one costs a read per descriptor; see
 * rxb_shring_fetch_stats().
 *
 * Batched RxList (list = true, batch > 1; §4.2's option: each descriptor
 * holds a multi-packet buffer, the NIC keeps a current descriptor per CR and
 * moves on only when it is full). Buffers are opaque allocator handles with
 * no sub-buffer handles, so a multi-packet buffer is modelled as `batch`
 * consecutive packet buffers posted together in one descriptor: the same
 * working set as one buffer of batch × buffer size, and since every packet
 * keeps its own handle, freeing needs no reference count on a shared
 * buffer. The free list threads whole descriptors (same list, same sentinel
 * rule: usable capacity (ring_size − 1) descriptors, i.e. (ring_size − 1) ×
 * batch packets). Since a core that gets no more packets keeps its current
 * descriptor for good, ring_size must exceed share_degree: then at most
 * share_degree − 1 of the usable descriptors sit with idle cores. The NIC keeps one current descriptor per core (CR): a
 * packet to core c goes into the next slot of c's current descriptor; when
 * that is full (or c has none) the NIC takes the next descriptor of the list,
 * and drops the packet as no_rx_desc when there is none. A CR entry names
 * the slot, descriptor × batch + slot. Core c takes the buffer from the slot
 * and writes a fresh one into it (re-arm in place, as unbatched); the
 * descriptor is complete when c has received its LAST slot (all earlier
 * slots came before it in c's CR), and only complete descriptors are linked
 * and appended under the lock, the doorbell advancing by the descriptors
 * appended: about one lock and one doorbell per `batch` packets. A
 * descriptor (all its slots) is one unit of the descriptor-read model, so
 * contiguity is counted in descriptors as for RxList. Census: the unfilled
 * slots of a core's current descriptor count as nic_held, its delivered but
 * unread slots as in_entries, and the received (re-armed) slots of a
 * descriptor not yet complete as posted. Memory order as RxList: software
 * writes a slot only after reading (acquire) the CR entry the NIC wrote
 * (release) once done with it, the NIC reads slot k only after filling the
 * earlier ones, so the two never touch a slot at once; every re-armed slot
 * of a descriptor is written by the one core that receives it, before the
 * doorbell release that appends the descriptor.
 *
 * MEMORY ORDER (RxArr; RxList is the same with the link writes in place of
 * the bitmap). Core c re-arms desc[i] and writes its release time, then sets
 * bit i with fetch_or(release). The lock holder clears it with
 * fetch_and(acquire), which reads a value in the release sequence of that
 * OR (every write to a bitmap word is a read-modify-write), so c's writes
 * happen before the holder's release store of the doorbell; the NIC's
 * acquire load of the doorbell then makes the fresh buffer visible to the
 * NIC. Holders are ordered among themselves by the lock.
 *
 * Who may call what:
 *   rxb_shring_nic_*                    the NIC thread (all rings)
 *   rxb_shring_rx_burst / free (core c) the thread that plays core c
 *   stats / occupancy / wait_stats      anyone, any time (approximate while
 *                                       running)
 *   prime / census / create / destroy   a quiescent point
 * Indexes (queue, core, ring, Ax, port) are the caller's to keep below the
 * design's counts: these entries do not check them (the generic interface,
 * iface.h, does).
 */
#ifndef RXB_SHRING_H
#define RXB_SHRING_H

#include <stdbool.h>

#include "rxb/common.h"
#include "rxb/privring.h" /* RXB_BURST_MAX, RXB_DESC_PREFETCH_DEFAULT */

#ifdef __cplusplus
extern "C" {
#endif

struct rxb_shring_config {
	uint32_t n_cores;       /* cores = CRs; 1..RXB_MAX_CORES */
	uint32_t share_degree;  /* cores per shared Rx ring (reference 8); divides n_cores */
	uint32_t ring_size;     /* shared Rx ring entries (1024) */
	uint32_t cr_size;       /* per-core CR entries; 0 = ring_size */
	uint32_t desc_prefetch; /* descriptors per NIC descriptor read; 0 = default;
	                         * at most RXB_DESC_PREFETCH_MAX (above ring_size:
	                         * the ring is read whole) */
	bool list;              /* false: RxArr (bitmap), true: RxList (free list) */
	uint32_t batch;         /* buffer slots per descriptor: 0 or 1 = not batched;
	                         * > 1 = batched RxList (list only), a power of two
	                         * ≤ RXB_SHRING_BATCH_MAX with ring_size × batch ≤
	                         * RXB_RING_MAX and ring_size > share_degree (an
	                         * idle core keeps its current descriptor). cr_size
	                         * 0 then means ring_size × batch */
};

#define RXB_SHRING_BATCH_MAX 64u

struct rxb_shring;

/* NULL on failure with errno and err set (common.h): -EINVAL naming the
 * field, -ENOMEM naming what could not be allocated. */
struct rxb_shring *rxb_shring_create(const struct rxb_shring_config *cfg, struct rxb_err *err);
void rxb_shring_destroy(struct rxb_shring *sh);
uint32_t rxb_shring_n_rings(const struct rxb_shring *sh); /* n_cores / share_degree */
uint32_t rxb_shring_ring_of(const struct rxb_shring *sh, uint32_t core); /* core / share_degree */
uint32_t rxb_shring_ring_size(const struct rxb_shring *sh);
/* Buffers one primed shared ring holds: ring_size × batch (unbatched: ring_size). */
uint32_t rxb_shring_ring_slots(const struct rxb_shring *sh);

/* ---- NIC side ---- */

/* Deliver one packet to core meta->dest (its CR), from the shared ring
 * ring_of(dest). Returns 0 when delivered, 1 when dropped (cause in d->drop:
 * no_rx_desc, cr_full), -EINVAL when dest is out of range. d->src_ring is
 * the shared ring, d->src_index the descriptor (batched: the slot,
 * descriptor × batch + slot), d->desc_reads the descriptor reads this
 * delivery's prefetch cost. */
int rxb_shring_nic_deliver(struct rxb_shring *sh, const struct rxb_rx_meta *meta,
			   struct rxb_delivery *d);

/* Deliver metas[0..n) in order into d[0..n), exactly as n calls of
 * rxb_shring_nic_deliver() would (outcomes, rings, counters), without a
 * call per packet. rings: NULL, or per packet the shared ring its buffer is
 * in (a software NIC whose packets already sit in their buffers), which
 * must be ring_of(dest). Stops before a packet whose dest is out of range
 * or whose ring is not its dest's (d[k] as the single call leaves an
 * out-of-range dest: -EINVAL's) and, when stop_on_drop, right after the
 * first drop. Returns how many packets it handled. */
unsigned rxb_shring_nic_deliver_burst(struct rxb_shring *sh, const uint32_t *rings,
				      const struct rxb_rx_meta *metas, unsigned n,
				      struct rxb_delivery *d, bool stop_on_drop);

/* Would rxb_shring_nic_deliver() deliver a packet to core dest (< n_cores)
 * now? false with the drop's cause in *cause (may be NULL) otherwise. No
 * side effect a caller can see: no counter, no prefetch. */
bool rxb_shring_nic_room(struct rxb_shring *sh, uint32_t dest, enum rxb_drop_cause *cause);

/* Prefetch up to n posted descriptors of shared ring `ring` into the NIC and
 * return their buffers in the order the NIC will consume them (ring order
 * for RxArr, list order for RxList). Returns the count. A prefetch no packet
 * asked for is charged to the CR of the group's first core. Batched: n and
 * the count are buffers; whole descriptors (n / batch of them) are fetched
 * and their slots returned descriptor by descriptor, in list order. Which
 * core a descriptor will serve is decided only when a core needs one, so
 * this is the set of buffers the NIC will fill, not their order. */
unsigned rxb_shring_nic_fetch(struct rxb_shring *sh, uint32_t ring, rxb_buf_t *bufs, unsigned n);

/* ---- set-up ---- */

/* Prime shared ring `ring`: post every descriptor (ring_size of them) with a
 * buffer (batched: `batch` buffers) from `alloc`. All or nothing: returns
 * ring_size (descriptors), or 0 when the
 * allocator cannot supply them all (what was taken is put back and
 * alloc_fail is counted on the group's first core) or the ring is already
 * primed. Quiescent point only. */
unsigned rxb_shring_prime(struct rxb_shring *sh, uint32_t ring, const struct rxb_allocator *alloc);

/* ---- software side (core c) ---- */

/* Receive up to n (≤ RXB_BURST_MAX) packets from core c's CR, re-arm each
 * descriptor with a fresh buffer, release them, publish the CR consumer
 * index, then take the group's lock and return what can be returned to the
 * NIC (RxArr: the released run at the return index; RxList: this batch;
 * batched RxList: the descriptors whose last slot is in this batch, and no
 * lock when there are none), ringing the doorbell once. `now` is the caller's clock, used only for the
 * descriptor-return wait statistics. Takes as many packets as the
 * allocator gives fresh buffers for (rxb_alloc_get_upto); the rest stay in
 * the CR, and alloc_fail counts a call cut short. Returns packets. */
unsigned rxb_shring_rx_burst(struct rxb_shring *sh, uint32_t core, struct rxb_pkt *out, unsigned n,
			     const struct rxb_allocator *alloc, uint64_t now);

/* Give processed packets' buffers back through the core's allocator. */
void rxb_shring_free(struct rxb_shring *sh, uint32_t core, const struct rxb_allocator *alloc,
		     const rxb_buf_t *bufs, unsigned n);

/* ---- observability ---- */

/* NIC counters of core c's CR; software counters of core c. */
const struct rxb_nic_stats *rxb_shring_nic_stats(const struct rxb_shring *sh, uint32_t core);
const struct rxb_sw_stats *rxb_shring_sw_stats(const struct rxb_shring *sh, uint32_t core);
/* Entries in core c's CR not yet read. */
uint32_t rxb_shring_occupancy(struct rxb_shring *sh, uint32_t core);
/* Descriptors of shared ring `ring` the NIC has consumed and software has
 * not yet returned (held in CRs, by receiving cores, or released and held
 * back behind an earlier descriptor; batched: also the cores' current
 * descriptors and descriptors not yet received up to their last slot).
 * At most the ring size: a reading taken while descriptors are returned
 * and consumed again is capped there. */
uint32_t rxb_shring_ring_occupancy(struct rxb_shring *sh, uint32_t ring);

/* Descriptor-return waits are also counted in a log-linear histogram: exact
 * below 4, then 4 buckets per power of two (at most 25 % wide), so a
 * quantile read from it is within 25 % of the exact one. */
#define RXB_WAIT_SUB_BITS       2u
#define RXB_SHRING_WAIT_BUCKETS ((65u - RXB_WAIT_SUB_BITS) << RXB_WAIT_SUB_BITS)

static inline unsigned rxb_wait_bucket(uint64_t v)
{
	unsigned msb;

	if (v < (1u << RXB_WAIT_SUB_BITS))
		return (unsigned)v;
	msb = 63u - (unsigned)__builtin_clzll(v);
	return ((msb - RXB_WAIT_SUB_BITS + 1) << RXB_WAIT_SUB_BITS) +
	       (unsigned)((v >> (msb - RXB_WAIT_SUB_BITS)) & ((1u << RXB_WAIT_SUB_BITS) - 1));
}

/* Smallest value that falls in bucket b. */
static inline uint64_t rxb_wait_bucket_low(unsigned b)
{
	unsigned msb;

	if (b < (1u << RXB_WAIT_SUB_BITS))
		return b;
	msb = (b >> RXB_WAIT_SUB_BITS) + RXB_WAIT_SUB_BITS - 1;
	return (1ull << msb) |
	       ((uint64_t)(b & ((1u << RXB_WAIT_SUB_BITS) - 1)) << (msb - RXB_WAIT_SUB_BITS));
}

/* Descriptor-return wait of one shared ring, in the caller's time unit:
 * descriptors returned to the NIC, the sum and maximum over them of
 * (time returned − time released), their histogram, and the largest number
 * of released descriptors a return pass found held back behind an
 * unreleased one. RxList returns every batch at once: its waits and
 * held-back count are 0. */
struct rxb_shring_wait {
	uint64_t returned;
	uint64_t wait_sum;
	uint64_t wait_max;
	uint64_t held_back_max;
	uint64_t hist[RXB_SHRING_WAIT_BUCKETS];
};
void rxb_shring_wait_stats(const struct rxb_shring *sh, uint32_t ring, struct rxb_shring_wait *out);

/* The q-quantile (0 < q ≤ 1; a q outside reads as the nearest end, NaN as
 * 0) of the waits in w: the upper end of the bucket that holds it, capped
 * at wait_max; 0 when nothing was returned. */
uint64_t rxb_shring_wait_quantile(const struct rxb_shring_wait *w, double q);

/* Descriptor fetching of one shared ring (every CR of the group together):
 * read transactions and descriptors fetched. fetched / reads is the mean
 * contiguous run, the contiguity the NIC sees: desc_prefetch for an in-order
 * ring, 1 for a fully scrambled RxList. */
struct rxb_shring_fetch {
	uint64_t reads;
	uint64_t fetched;
};
void rxb_shring_fetch_stats(const struct rxb_shring *sh, uint32_t ring,
			    struct rxb_shring_fetch *out);

/* Census of every ring and CR at a quiescent point, added to *c. Released
 * but not yet returned RxArr descriptors hold fresh buffers and count as
 * posted. Batched: the unfilled slots of the cores' current descriptors
 * count as nic_held, the received (re-armed) slots of a descriptor not yet
 * complete as posted. Appends every buffer held in a descriptor slot
 * (posted, inside the NIC, released, or holding an unread packet) to `bufs`
 * when not NULL (struct rxb_buflist, lib internal). Returns 0, -ENOMEM, or
 * -RXB_E_INVARIANT with a message when an internal invariant (docs/interfaces.md §8) is
 * broken: RxArr, descriptors consumed and not returned = unread CR entries +
 * released bits; RxList, the posted count matches the list's length and ends
 * at its tail; batched, every slot of every descriptor is in exactly one
 * place and the consumed descriptors' slots are exactly the unread,
 * received-not-returned and current-unfilled ones. */
struct rxb_buflist;
int rxb_shring_census(struct rxb_shring *sh, struct rxb_census *c, struct rxb_buflist *bufs,
		      struct rxb_err *err);

#ifdef __cplusplus
}
#endif
#endif /* RXB_SHRING_H */
