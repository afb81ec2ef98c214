/* SPDX-License-Identifier: BSD-3-Clause
 *
 * shRing internals shared by the two variants: RxArr (shring.c, which also
 * holds everything common) and RxList (shring_list.c). A variant is a table
 * of operations; the NIC side, the receive path up to the release, the
 * repost lock, the doorbell, the counters and the census frame are common.
 */
#ifndef RXB_LIB_SHRING_INTERNAL_H
#define RXB_LIB_SHRING_INTERNAL_H

#include "ring.h"
#include "rxb/shring.h"

/* One core: its completion ring and counters. */
struct rxb_shcore {
	struct rxb_cr cr; /* entries name the descriptor index in the shared ring
	                   * (batched: the slot, descriptor × batch + slot) */
	struct rxb_nic_stats nic_stats RXB_CACHE_ALIGNED;
	/* Batched RxList, NIC-private (shares the NIC counters' lines): this
	 * CR's current descriptor and how many of its slots are filled;
	 * fill == batch means none (the next packet takes a new one). */
	struct {
		uint32_t desc;
		uint32_t fill;
	} cur;
	struct rxb_sw_stats sw_stats;
};

/* Descriptor-return statistics of one shared ring. Written only by the
 * holder of the repost lock, which orders successive writers; read by anyone
 * with relaxed loads (rxb_counter_t). */
struct shring_wait_ctr {
	rxb_counter_t returned;
	rxb_counter_t wait_sum;
	rxb_counter_t wait_max;
	rxb_counter_t held_back_max;
	rxb_counter_t hist[RXB_SHRING_WAIT_BUCKETS];
};

/* One shared Rx ring and the state of its group of cores. */
struct rxb_shgroup {
	/* Descriptors (desc[i] = buffer of descriptor i), the doorbell and the
	 * NIC's head / fetched / tail_seen. The doorbell carries the posted
	 * count: descriptors ever made available to the NIC. RxArr consumes
	 * position p from slot p & mask; RxList from the list (see fifo). */
	struct rxb_descring rx;

	/* NIC-private additions (the NIC thread only). */
	struct {
		uint32_t cursor;       /* RxList: descriptor at list position
		                        * rx.nic.fetched (learnt from a link) */
		rxb_counter_t reads;   /* descriptor-read transactions, whole ring */
		rxb_counter_t fetched; /* descriptors fetched, whole ring */
	} nic RXB_CACHE_ALIGNED;

	/* Repost state: everything here is guarded by `lock`. */
	struct {
		struct rxb_spinlock lock;
		uint32_t tail; /* posted count as of the last doorbell */
		uint32_t last; /* RxList: the list's tail descriptor (the sentinel) */
		struct shring_wait_ctr wait;
	} rep RXB_CACHE_ALIGNED;

	/* RxArr: bit i = descriptor i re-armed and released, not yet
	 * returned. Set by any core with fetch_or, cleared by the lock holder
	 * with fetch_and. */
	_Atomic uint64_t *bitmap;
	uint64_t *rel_time; /* RxArr: when descriptor i was released */
	/* RxList: next[i] = the descriptor after i in the free list. Written
	 * by the core that appends i (only after the NIC consumed i, or as the
	 * old tail's link under the lock before the doorbell); read by the NIC
	 * when it fetches i. */
	uint32_t *next;
	/* RxList, NIC-private: fifo[p & mask] = descriptor at list position p
	 * for the prefetched positions [rx.nic.head, rx.nic.fetched). */
	uint32_t *fifo;
	uint32_t primed;     /* descriptors in circulation: 0 or ring size */
	uint32_t first_core; /* the group is cores [first_core, first_core + share) */
	/* Buffer slots per descriptor (1 unless batched) and its log2: desc[]
	 * has size << batch_shift entries, slot k of descriptor x is
	 * desc[x << batch_shift | k]. */
	uint32_t batch;
	uint32_t batch_shift;
};

/* rxb_shring_ring_occupancy() before its clamp: never negative (the
 * returned count is read first); above the ring size when descriptors were
 * returned and consumed again between the two loads. The concurrent tests
 * check the order on it. */
int32_t rxb_shring_ring_occupancy_raw(struct rxb_shring *sh, uint32_t ring);

/* Buffer slots of a shared ring: ring size × batch. */
static inline uint32_t shring_n_slots(const struct rxb_shgroup *g)
{
	return g->rx.size << g->batch_shift;
}

/* What one descriptor (batched: one buffer slot) is doing, as the census
 * finds it. */
enum shring_role {
	SHRING_ROLE_NONE = 0,
	SHRING_ROLE_POSTED,   /* posted, not yet fetched by the NIC */
	SHRING_ROLE_NIC_HELD, /* prefetched inside the NIC */
	SHRING_ROLE_UNREAD,   /* holds a packet an unread CR entry names */
	SHRING_ROLE_RELEASED, /* re-armed, not yet returned: RxArr released;
	                       * batched, received slots of an incomplete one */
	SHRING_ROLE_CURRENT,  /* batched: unfilled slot of a core's current one */
	SHRING_ROLES
};

/* Census of one shared ring in progress. */
struct shring_census {
	uint8_t *role;            /* per buffer slot: enum shring_role found so far */
	uint32_t n[SHRING_ROLES]; /* buffer slots per role */
	uint32_t ring;
	struct rxb_shcore *cores; /* the group's cores */
	uint32_t n_cores;
	struct rxb_census *c;
	struct rxb_buflist *bufs;
	struct rxb_err *err;
};

/* Account buffer slot `slot` (the descriptor unless batched) in `role`:
 * -RXB_E_INVARIANT (message) when it is out of range or already accounted for,
 * -ENOMEM, else 0. */
int shring_census_mark(struct rxb_shgroup *g, struct shring_census *sc, uint32_t slot,
		       enum shring_role role);
/* Account slots [from, to) of descriptor x in `role`. */
int shring_census_mark_slots(struct rxb_shgroup *g, struct shring_census *sc, uint32_t x,
			     uint32_t from, uint32_t to, enum shring_role role);

/* A variant. */
struct shring_ops {
	const char *name; /* for messages: "shring" (RxArr), "shring_list" */
	/* Allocate the variant's state (g->batch is set; batched also
	 * resizes desc[] to every buffer slot): 0 or -ENOMEM with a message. */
	int (*init)(struct rxb_shgroup *g, struct rxb_err *err);
	void (*fini)(struct rxb_shgroup *g);
	/* NIC: move up to n posted descriptors into the NIC's prefetch and
	 * add the read transactions it took to *reads. Returns the count. */
	uint32_t (*nic_fetch)(struct rxb_shgroup *g, uint32_t n, uint16_t *reads);
	/* NIC: could nic_fetch fetch a descriptor now? No side effect but a
	 * refresh of the NIC's cached doorbell. */
	bool (*nic_fetchable)(struct rxb_shgroup *g);
	/* NIC: descriptor at NIC position pos, which must be prefetched. */
	uint32_t (*nic_slot)(const struct rxb_shgroup *g, uint32_t pos);
	/* NIC: the buffers of the n prefetched descriptors from NIC position
	 * pos on, into bufs (batched: every slot of each, in slot order). One
	 * call per batch: a call per descriptor cost more than the copy. */
	void (*nic_copy)(const struct rxb_shgroup *g, uint32_t pos, uint32_t n, rxb_buf_t *bufs);
	/* Set-up: desc[] holds a buffer in every slot; build the variant's
	 * state (the caller then publishes the posted count). */
	void (*prime)(struct rxb_shgroup *g);
	/* Core: descriptors (batched: buffer slots) slots[0..n) were
	 * re-armed; make them the NIC's again (take the lock, return, ring
	 * the doorbell). */
	void (*release)(struct rxb_shgroup *g, struct rxb_sw_stats *s, const uint32_t *slots,
			unsigned n, uint64_t now);
	/* Census: account the posted, prefetched and released descriptors
	 * (batched: also the cores' current and received slots; the caller
	 * has the unread ones) and check the variant's own structure; the
	 * caller then checks the totals. */
	int (*census)(struct rxb_shgroup *g, struct shring_census *sc);
};

extern const struct shring_ops rxb_shring_arr_ops;
extern const struct shring_ops rxb_shring_list_ops;
extern const struct shring_ops rxb_shring_batch_ops; /* batched RxList */

/* Core: take the group's repost lock, counting it. */
void shring_lock(struct rxb_shgroup *g, struct rxb_sw_stats *s);
/* Lock holder: record `n` descriptors returned, waiting `sum` in total and
 * `max` at most, with `held` released ones left behind. */
void shring_wait_account(struct rxb_shgroup *g, uint64_t n, uint64_t sum, uint64_t max,
			 uint64_t held);
/* Lock holder: make the posted count `tail` and ring the doorbell once (if
 * it moved), counting returned descriptors and the doorbell; then unlock. */
void shring_publish_unlock(struct rxb_shgroup *g, struct rxb_sw_stats *s, uint32_t tail);

#endif /* RXB_LIB_SHRING_INTERNAL_H */
