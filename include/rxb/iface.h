/* SPDX-License-Identifier: BSD-3-Clause
 *
 * One shape for every receive interface (docs/interfaces.md §9): configure, NIC-side
 * deliver, software-side receive and free, counters, invariant check. The
 * simulator, the emulator, the tests, the fuzzer and the stress tests drive
 * any design through this; a design's own header remains for what only that
 * design has (rxb_iface_<design>() hands out the object).
 *
 * Destinations ("dest") are what steering picks: a core's CR (privRing,
 * shRing, dynamic shRing), a core's Bx (rxBisect), or a port (spool).
 * Software "cores" poll: core c owns dest c, except for spool where core c
 * polls queue c (and uses allocator c % n_cores).
 *
 * Sources ("src") are the descriptor rings the NIC takes empty buffers
 * from, numbered 0 .. rxb_iface_n_srcs() - 1:
 *   privRing, small privRing   Rx ring q (core q's)
 *   shRing (RxArr, RxList)     shared ring g (cores g × share_degree ...)
 *   dynamic shRing             the privRing Rx rings 0 .. n_cores - 1, then
 *                              shared ring g as n_cores + g
 *   rxBisect                   Ax ring a (core a's)
 *   spool                      queue q (rxb_spool_queue_of maps ports to it)
 * The emulator, whose physical queues hold buffers fetched from sources,
 * uses them (rxb_iface_nic_fetch, rxb_iface_deliver_from).
 *
 * Threads: deliver/deliver_from/deliver_burst/tick/nic_fetch — the NIC thread; rx/free
 * for core c — core c's thread; dyn_sample — one control thread; stats —
 * anyone; census and check — a quiescent point.
 *
 * Cost: a verb is one indirect call to the design's entry (a table chosen
 * at creation), which tail-calls the design's own function.
 */
#ifndef RXB_IFACE_H
#define RXB_IFACE_H

#include <stdbool.h>

#include "rxb/common.h"
#include "rxb/dynctl.h"
#include "rxb/rxbisect.h"
#include "rxb/spool.h"

#ifdef __cplusplus
extern "C" {
#endif

enum rxb_arch {
	RXB_ARCH_PRIVRING = 0,
	RXB_ARCH_SMALL_PRIVRING,
	RXB_ARCH_SHRING,      /* RxArr */
	RXB_ARCH_SHRING_LIST, /* RxList */
	RXB_ARCH_DYN_SHRING,
	RXB_ARCH_RXBISECT,
	RXB_ARCH_SPOOL,
	RXB_ARCHS
};
/* "privring", "small_privring", "shring", "shring_list", "dyn_shring",
 * "rxbisect", "spool", in enum order: the values of the scenario key
 * arch.name. The scenario parser reads the names from this table (as it
 * does rxb_ax_policy_name[RXB_AX_POLICIES] and
 * rxb_spool_mode_name[RXB_SPOOL_MODES]), so a name is defined once. */
extern const char *const rxb_arch_name[RXB_ARCHS];

/* Defaults of the reference setup (docs/evaluation.md §2.4). */
#define RXB_DEFAULT_RX_SIZE       1024u
#define RXB_DEFAULT_SMALL_RX_SIZE 128u
#define RXB_DEFAULT_SHARE_DEGREE  8u
#define RXB_DEFAULT_AX_SIZE       128u
#define RXB_DEFAULT_BX_SIZE       1024u

/* The largest divisor common to counts[0 .. n) that is at most `most`; 1
 * when there is none above 1. A share degree it gives leaves each set of
 * cores counted (the interface's, or each NIC's) whole shared rings: the
 * one rule behind the "auto"/default share degree here and in the
 * scenario layer (arch.share_degree). */
uint32_t rxb_share_degree_up_to(const uint32_t *counts, uint32_t n, uint32_t most);
/* What share_degree 0 means: the largest divisor of n_cores up to
 * RXB_DEFAULT_SHARE_DEGREE (8 → 8, 12 → 6, 9 → 3, 7 → 7, 11 → 1). */
uint32_t rxb_share_degree_default(uint32_t n_cores);

struct rxb_iface_config {
	enum rxb_arch arch;
	uint32_t n_cores;       /* cores (= destinations except for spool) */
	uint32_t rx_size;       /* privRing / shRing Rx ring; 0 = default */
	uint32_t cr_size;       /* CR entries; 0 = rx_size (× rxlist_slots if batched) */
	uint32_t desc_prefetch; /* 0 = RXB_DESC_PREFETCH_DEFAULT */
	uint32_t share_degree;  /* shRing cores per ring; 0 = rxb_share_degree_default():
				  * the largest divisor of n_cores up to 8 */
	uint32_t rxlist_slots;  /* shring_list: buffer slots per descriptor
				  * (batched RxList; scenario key
				  * arch.rxlist_batch); 0 or 1 = not batched;
				  * other archs ignore it. Not the receive
				  * burst (arch.batch), which is the caller's. */
	uint32_t ax_size;       /* rxBisect; 0 = 128 */
	uint32_t bx_size;       /* rxBisect; 0 = 1024 */
	enum rxb_ax_policy ax_policy;
	uint32_t n_groups;       /* rxBisect: disjoint association sets over
				  * contiguous blocks of cores (one per NIC or
				  * application); 0 or 1 = all-to-all */
	bool enforce_vendor_min; /* rxBisect: ax_size ≥ 64 */
	bool coalesce;           /* rxBisect: coalesce consumption notices */
	uint64_t coalesce_timeout;
	uint64_t seed;
	struct rxb_spool_config spool; /* arch spool */
	struct rxb_dynctl_config dyn;  /* arch dyn_shring; zeroed = defaults */
};

struct rxb_iface;

/* Create the interface and post its initial buffers, core c's from
 * allocs[c] (n_cores endpoints). The allocators must outlive the interface.
 * NULL on failure with errno and err set (common.h): -EINVAL (this
 * configuration or the design's, its message unchanged), -ENOMEM, or
 * -ENOBUFS when the allocators cannot fill the rings (every buffer taken
 * is given back). The shared page pool is the exception: its queues fill
 * by its policy as far as the pool goes, and only a queue left with no
 * buffer at all fails creation (-ENOBUFS, counted as one buffer short). Destroying an interface does not give its posted buffers
 * back: they belong to the caller's pool. */
struct rxb_iface *rxb_iface_create(const struct rxb_iface_config *cfg,
				   const struct rxb_allocator *allocs, struct rxb_err *err);
void rxb_iface_destroy(struct rxb_iface *i);
enum rxb_arch rxb_iface_arch(const struct rxb_iface *i);
uint32_t rxb_iface_n_dests(const struct rxb_iface *i);
uint32_t rxb_iface_n_cores(const struct rxb_iface *i); /* pollers: queues for spool */
uint32_t rxb_iface_n_srcs(const struct rxb_iface *i);  /* NIC-side sources (above) */

/* NIC side. Returns 0 delivered, 1 dropped (d->drop), -EINVAL bad dest. */
int rxb_iface_deliver(struct rxb_iface *i, const struct rxb_rx_meta *meta, struct rxb_delivery *d);
/* Would rxb_iface_deliver() to dest deliver now? 0 yes, 1 it would drop
 * (the cause in *cause, which may be NULL), -EINVAL bad dest. No side
 * effect a caller can see: no counter, no descriptor prefetch, no notice
 * written, no switch of the dynamic shRing set (the answer is for the set
 * the next delivery steers to), and rxBisect's next choice of Ax stays the
 * same. NIC thread. The simulator's model of the emulator asks it before
 * taking a packet off a physical queue, so a packet the design has no
 * buffer for waits there instead of being dropped. */
int rxb_iface_nic_room(struct rxb_iface *i, uint32_t dest, enum rxb_drop_cause *cause);
/* Deliver a packet that sits in the next buffer of source `src` (the
 * emulator: its physical queue already holds buffers fetched from sources).
 * As deliver, and -EINVAL when src does not exist or is not the source
 * meta->dest can receive from (the Rx ring of that core, its group's shared
 * ring, an Ax ring of its association set, its port's queue). Dynamic
 * shRing: a source of the set the NIC does not steer to yet applies the
 * switch the controller requested to that set (the emulator switches its
 * physical side first); the packet goes to the set its buffer came from.
 * The caller delivers every buffer it fetched from the old set before the
 * first one from the new set: a core leaves the old set once its ring there
 * is empty, so a packet delivered to the old set after that waits there
 * until the sets switch back (the emulator drains its physical queues of
 * the old set first). */
int rxb_iface_deliver_from(struct rxb_iface *i, uint32_t src, const struct rxb_rx_meta *meta,
			   struct rxb_delivery *d);
/* Deliver a burst of n packets, in order: packet k (metas[k]) from source
 * srcs[k] as rxb_iface_deliver_from() would, or, with srcs NULL, where
 * steering takes it as rxb_iface_deliver() would. NIC thread.
 * Invariants:
 *  - equivalence: each handled packet gets exactly the outcome (d[k]) and
 *    the counter, ring and buffer effects of that single call made at that
 *    point; the burst only saves per-packet overhead: each design's bulk
 *    entry in the library is a loop around its inlined single path (dynamic
 *    shRing: by steering, the burst through the entry of the set steered
 *    to, so a switch requested during the burst applies from the next
 *    burst, as if requested after this one; from sources, each run of
 *    packets from one set through that set's entry; the shared page pool:
 *    privRing's entry with ports replaced by queues). privRing adds a
 *    queue's counters once per run of packets to it, so they are exact
 *    when the burst returns, not packet by packet;
 *  - returns m ≤ n, the packets handled (delivered or dropped): d[0..m)
 *    tell which; packets from m on are not looked at (no counter moves);
 *  - m < n only when packet m was refused (the single call's -EINVAL: a
 *    source or destination that does not exist, or a source that
 *    destination cannot receive from; d[m] is left as that call leaves it,
 *    buf RXB_BUF_NONE), or, with RXB_BURST_STOP_ON_DROP in flags, right
 *    after the first dropped packet (then d[m - 1].drop ≥ 0);
 *  - conservation: offered grows by m, delivered by the d[k].drop < 0 of
 *    them, dropped by the rest.
 * RXB_BURST_STOP_ON_DROP is for a caller whose next packets' buffers depend
 * on whether this one consumed its buffer (the emulator's holes). */
#define RXB_BURST_STOP_ON_DROP 1u
unsigned rxb_iface_deliver_burst(struct rxb_iface *i, const uint32_t *srcs,
				 const struct rxb_rx_meta *metas, unsigned n,
				 struct rxb_delivery *d, unsigned flags);
/* Prefetch up to n posted descriptors of source `src` into the NIC and
 * return their buffers in the order the NIC will consume them (the design's
 * *_nic_fetch). Returns the count (0 for a src that does not exist). */
unsigned rxb_iface_nic_fetch(struct rxb_iface *i, uint32_t src, rxb_buf_t *bufs, unsigned n);
/* Count a packet the NIC pipeline itself dropped before steering reached a
 * ring (cause RXB_DROP_PIPELINE), so packet conservation still holds.
 * Returns 0, or -EINVAL for a dest that does not exist (nothing counted). */
int rxb_iface_drop_pipeline(struct rxb_iface *i, uint32_t dest);
/* Time-driven NIC work (coalesced notices). Returns entries written. */
unsigned rxb_iface_tick(struct rxb_iface *i, uint64_t now);

/* Software side of core c (< rxb_iface_n_cores; another c receives
 * nothing, frees nothing, counts nothing: its buffers stay the caller's):
 * receive up to n (≤ RXB_BURST_MAX) packets. */
unsigned rxb_iface_rx(struct rxb_iface *i, uint32_t core, struct rxb_pkt *out, unsigned n,
		      uint64_t now);
/* Core c gives processed buffers back (to its own allocator). */
void rxb_iface_free(struct rxb_iface *i, uint32_t core, const rxb_buf_t *bufs, unsigned n);

/* Core c handed n received buffers to something that frees them itself (a
 * DPDK transmit queue frees mbufs once sent): count them as released so the
 * census still balances. Does not touch the allocator. */
void rxb_iface_note_released(struct rxb_iface *i, uint32_t core, unsigned n);

/* Counters of destination d (NIC side; dynamic shRing: of the set steered
 * to now) and of core c (software side; dynamic shRing: of its private set,
 * where its frees count too); NULL for one that does not exist. */
const struct rxb_nic_stats *rxb_iface_nic_stats(const struct rxb_iface *i, uint32_t dest);
const struct rxb_sw_stats *rxb_iface_sw_stats(const struct rxb_iface *i, uint32_t core);
/* Software counter c of core `core` summed over every ring set it polls
 * (dynamic shRing: both; sw_stats gives the private set's); 0 for a core or
 * counter that does not exist. Anyone. */
uint64_t rxb_iface_sw_counter(const struct rxb_iface *i, uint32_t core, enum rxb_sw_counter c);
/* NIC counter c of destination d summed over every ring set that serves it
 * (dynamic shRing: both; nic_stats gives the set steered to now); 0 for a
 * dest or counter that does not exist. Anyone. */
uint64_t rxb_iface_nic_counter(const struct rxb_iface *i, uint32_t dest, enum rxb_nic_counter c);
/* Entries written to dest and not yet read by software (0 for a dest that
 * does not exist). Anyone; read by a thread other than the NIC and that
 * core it is a snapshot: never more than the ring held when the reading
 * ended, so never above the ring's size (a race that would make it
 * negative reads 0). */
uint32_t rxb_iface_occupancy(struct rxb_iface *i, uint32_t dest);
/* Buffers the interface keeps posted for the NIC now (its working set in
 * buffers, excluding packets in flight to software). */
uint64_t rxb_iface_posted(struct rxb_iface *i);

/* The design underneath, for design-specific queries (NULL if another arch). */
struct rxb_privring *rxb_iface_privring(struct rxb_iface *i);
struct rxb_shring *rxb_iface_shring(struct rxb_iface *i);
struct rxb_bisect *rxb_iface_bisect(struct rxb_iface *i);
struct rxb_spool *rxb_iface_spool(struct rxb_iface *i);

/* Dynamic shRing: feed one controller sample (every 10 ms of the caller's
 * time). A decision asks the NIC to re-point steering; cores drain their old
 * rings before polling the new ones; the controller is told the switch is
 * done once every core has moved. Returns the decision. */
enum rxb_dyn_decision rxb_iface_dyn_sample(struct rxb_iface *i, const struct rxb_dynctl_sample *s);
/* The mode the NIC steers to now. */
enum rxb_dyn_mode rxb_iface_dyn_mode(const struct rxb_iface *i);
const struct rxb_dynctl *rxb_iface_dynctl(const struct rxb_iface *i);

/* Census at a quiescent point (docs/interfaces.md §8), and the full check: internal
 * invariants, packet conservation (offered = delivered + dropped, delivered
 * = received + unread), and, when `pool` is given, buffer conservation
 * (pool free + posted + in NIC + unread + held by the application = all
 * buffers) with no buffer in two places. 0, or -RXB_E_INVARIANT with a
 * message (-ENOMEM if the census cannot allocate its lists). */
int rxb_iface_census(struct rxb_iface *i, struct rxb_census *c, struct rxb_err *err);
/* At a quiescent point before rxb_iface_destroy(): give every buffer the
 * interface still holds (posted, prefetched by the NIC, in unread entries)
 * back through allocator 0's put, so a caller that does not own the pool
 * (a DPDK application's mempool) gets all of them back. Returns the count,
 * or -RXB_E_INVARIANT / -ENOMEM when the census fails (nothing given back).
 * The interface must not be used afterwards except to destroy it. */
long rxb_iface_reclaim(struct rxb_iface *i, struct rxb_err *err);
struct rxb_pool;
int rxb_iface_check(struct rxb_iface *i, const struct rxb_pool *pool, struct rxb_err *err);

#ifdef __cplusplus
}
#endif
#endif /* RXB_IFACE_H */
