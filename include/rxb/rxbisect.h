/* SPDX-License-Identifier: BSD-3-Clause
 *
 * rxBisect (docs/interfaces.md §5): each Rx ring split into a small allocation
 * (Ax) ring — empty buffers, produced by one core, consumed by the NIC — and
 * a large bisected reception (Bx) ring — packets and consumption notices,
 * produced by the NIC, consumed by one core. The NIC may fill any Bx with a
 * buffer from any Ax of that Bx's association set.
 *
 * Who may call what:
 *   rxb_bisect_nic_* (deliver, fetch, tick)   the NIC thread; or several, each
 *                                             owning whole association sets
 *                                             (below), tick excepted
 *   rxb_bisect_rx / prime / free (core c)     the core that owns Bx c and the
 *                                             Ax rings linked to it
 *   stats / occupancy                         anyone, any time
 *   census / create / destroy                 a quiescent point
 * Indexes (queue, core, ring, Ax, port) are the caller's to keep below the
 * design's counts: these entries do not check them (the generic interface,
 * iface.h, does).
 * The software side takes no lock and does no atomic read-modify-write.
 * Several NIC threads: every NIC-side field belongs to one Bx or one Ax (the
 * random choice of RXB_AX_RANDOM draws from the Bx's own generator), so
 * threads that each deliver to, and fetch from, whole association sets --
 * sets closed under links, as the per-NIC and group sets are -- share no
 * NIC-side state. The coalescing tick walks every Bx: one thread only.
 *
 * THE NOTIFICATION INVARIANT (why no consumption notice is ever lost and
 * replenishment never deadlocks). Let R(b) = Σ |Ax a| over the Ax rings a
 * linked to Bx b. Entries of b that carry a consumption number at most R(b):
 * each names an Ax slot the NIC consumed and the owner has not refilled yet,
 * and a slot cannot be consumed again before it is refilled. The NIC keeps
 * the other entries of b — packets whose buffer came from an Ax linked
 * elsewhere ("foreign" entries) — at most |Bx b| − R(b). So an entry that
 * carries a consumption always finds a free slot: notices are never dropped,
 * never wait for software, and the owner always learns of every consumed
 * slot and refills it. Configuration requires |Bx b| ≥ R(b).
 * Memory-order side of it: software publishes its Bx consumer index before
 * it rings the Ax doorbell, so a NIC that sees a refilled Ax slot also sees
 * the Bx slots freed by reading the notice that caused the refill.
 */
#ifndef RXB_RXBISECT_H
#define RXB_RXBISECT_H

#include <stdbool.h>

#include "rxb/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the NIC picks an Ax ring when the one linked to the Bx is empty
 * (the linked Ax is always tried first: reference policy). */
enum rxb_ax_policy {
	RXB_AX_RANDOM = 0,     /* uniform among non-empty associated Ax rings */
	RXB_AX_ROUND_ROBIN,    /* next non-empty after the last one used by this Bx */
	RXB_AX_MOST_AVAILABLE, /* the associated Ax with most posted buffers */
	RXB_AX_POLICIES
};
/* "random", "round_robin", "most_available", in enum order: the values of
 * the scenario key arch.ax_policy (the parser reads them from here). */
extern const char *const rxb_ax_policy_name[RXB_AX_POLICIES];

struct rxb_bisect_config {
	uint32_t n_ax;          /* Ax rings (normally one per core) */
	uint32_t n_bx;          /* Bx rings (one per core) */
	uint32_t ax_size;       /* e.g. 128; ≥ RXB_AX_VENDOR_MIN when enforced */
	uint32_t bx_size;       /* e.g. 1024 */
	uint32_t desc_prefetch; /* Ax descriptors per NIC descriptor read; 0 = 16 */
	enum rxb_ax_policy policy;
	uint64_t seed;           /* NIC-side PRNG for RXB_AX_RANDOM */
	bool enforce_vendor_min; /* reject ax_size < RXB_AX_VENDOR_MIN */
	/* link[a] = the Bx that receives Ax a's consumption notices;
	 * NULL = identity (requires n_ax == n_bx). */
	const uint32_t *link;
	/* Association: Bx b may use Ax assoc[b][0 .. assoc_len[b]-1].
	 * NULL = all-to-all. Sets may overlap; disjoint sets separate
	 * applications. Every Ax must be in the set of the Bx it links to. */
	const uint32_t *const *assoc;
	const uint32_t *assoc_len;
	/* Hold consumption-only notices until a packet for that Bx can carry
	 * one, or until `coalesce_timeout` (caller's time unit) has passed. */
	bool coalesce;
	uint64_t coalesce_timeout;
};

struct rxb_bisect;

/* NULL on failure with errno and err set (common.h): -EINVAL naming the
 * field (sizes, links, association sets, the notification invariant's
 * |Bx| >= R(b)), -ENOMEM naming what could not be allocated. */
struct rxb_bisect *rxb_bisect_create(const struct rxb_bisect_config *cfg, struct rxb_err *err);
void rxb_bisect_destroy(struct rxb_bisect *bs);
const struct rxb_bisect_config *rxb_bisect_config(const struct rxb_bisect *bs);

/* ---- NIC side ---- */

/* Deliver one packet to Bx meta->dest. Returns 0 delivered, 1 dropped (cause
 * in d->drop), -EINVAL for an out-of-range dest. d->src_ring is the Ax used;
 * d->notify_ring the Bx that got a separate consumption notice, if any. */
int rxb_bisect_nic_deliver(struct rxb_bisect *bs, const struct rxb_rx_meta *meta,
			   struct rxb_delivery *d);

/* Would rxb_bisect_nic_deliver() deliver a packet to Bx b (< n_bx) now?
 * false with the drop's cause in *cause (may be NULL) otherwise. No side
 * effect a caller can see: no counter, no prefetch, no notice written, and
 * the policy's next choice of Ax stays what it was. */
bool rxb_bisect_nic_room(struct rxb_bisect *bs, uint32_t b, enum rxb_drop_cause *cause);

/* Deliver into the next buffer of a given Ax ring (the emulator, whose
 * physical queue already holds buffers fetched from Ax rings). Returns as
 * deliver; -EINVAL also when ax does not exist or is not associated with
 * the Bx (d then as for an out-of-range dest: nothing delivered). */
int rxb_bisect_nic_deliver_from(struct rxb_bisect *bs, uint32_t ax, const struct rxb_rx_meta *meta,
				struct rxb_delivery *d);

/* Deliver metas[0..n) in order into d[0..n), exactly as n calls of
 * rxb_bisect_nic_deliver() (axs NULL: the NIC chooses each Ax) or of
 * rxb_bisect_nic_deliver_from() from Ax axs[k] would (outcomes, rings,
 * counters), without a call per packet. Stops before a refused packet
 * (d[k] as that call leaves it) and, when stop_on_drop, right after the
 * first drop. Returns how many packets it handled. */
unsigned rxb_bisect_nic_deliver_burst(struct rxb_bisect *bs, const uint32_t *axs,
				      const struct rxb_rx_meta *metas, unsigned n,
				      struct rxb_delivery *d, bool stop_on_drop);

/* Prefetch up to n posted descriptors of Ax ring ax; returns their buffers
 * in ring order. */
unsigned rxb_bisect_nic_fetch(struct rxb_bisect *bs, uint32_t ax, rxb_buf_t *bufs, unsigned n);

/* Posted buffers of Ax ax as the NIC sees them (its doorbell view). */
uint32_t rxb_bisect_nic_ax_avail(struct rxb_bisect *bs, uint32_t ax);

/* Write coalesced notices that have waited `coalesce_timeout`. Returns the
 * number written. Call it regularly when coalescing is on. */
unsigned rxb_bisect_nic_tick(struct rxb_bisect *bs, uint64_t now);

/* ---- software side (core owning Bx `core`) ---- */

/* Fill the Ax rings linked to this core with buffers. Returns buffers posted. */
unsigned rxb_bisect_prime(struct rxb_bisect *bs, uint32_t core, const struct rxb_allocator *alloc);

/* Receive up to n (≤ RXB_BURST_MAX) packets from Bx `core`, acting on every
 * consumption notice met on the way (not capped by n), then publishing the
 * Bx consumer index and ringing each refilled Ax doorbell once. When the
 * allocator gives fewer buffers than the notices need, the call stops before
 * the first notice it has no buffer for, and alloc_fail counts it. When it
 * gives none at all, the call drops the packet at the head and re-arms its
 * slot with that packet's buffer (RXB_SW_RECYCLED: the one loss), or acts
 * on a consumption-only notice without a buffer and tops the Ax ring up
 * later (RXB_SW_DEFERRED), so a ring that holds the whole pool still moves. */
unsigned rxb_bisect_rx(struct rxb_bisect *bs, uint32_t core, struct rxb_pkt *out, unsigned n,
		       const struct rxb_allocator *alloc);

void rxb_bisect_free(struct rxb_bisect *bs, uint32_t core, const struct rxb_allocator *alloc,
		     const rxb_buf_t *bufs, unsigned n);

/* ---- observability ---- */
/* Counters of Bx b (NIC side) and of core c (software side). */
const struct rxb_nic_stats *rxb_bisect_nic_stats(const struct rxb_bisect *bs, uint32_t bx);
const struct rxb_sw_stats *rxb_bisect_sw_stats(const struct rxb_bisect *bs, uint32_t core);
uint32_t rxb_bisect_occupancy(struct rxb_bisect *bs, uint32_t bx);
/* Deliveries to Bx b that used its linked Ax vs another Ax. */
uint64_t rxb_bisect_linked_uses(const struct rxb_bisect *bs, uint32_t bx);
uint64_t rxb_bisect_foreign_uses(const struct rxb_bisect *bs, uint32_t bx);
/* Slots of Bx b reserved for entries that carry a consumption: R(b). */
uint32_t rxb_bisect_reserved(const struct rxb_bisect *bs, uint32_t bx);

/* Census at a quiescent point, added to *c; appends every buffer held to
 * `bufs` when not NULL (lib internal). Returns 0, -ENOMEM, or
 * -RXB_E_INVARIANT with a message when an invariant is broken: Ax indices,
 * foreign entries within their budget, consumption entries within R(b),
 * consumed-unrefilled Ax slots = pending notices. */
struct rxb_buflist;
int rxb_bisect_census(struct rxb_bisect *bs, struct rxb_census *c, struct rxb_buflist *bufs,
		      struct rxb_err *err);

#ifdef __cplusplus
}
#endif
#endif /* RXB_RXBISECT_H */
