/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/models/evq.h — the engine's event queue: one slot per event source (a NIC's
 * next arrival, a core's loop, each periodic event ...), each holding at
 * most one pending event, ordered by (time, sequence number) in a winner
 * tree (tournament tree) over the slots.
 *
 * It pops events in exactly the order of sim/models/heap.h: the sequence number is
 * a per-queue counter taken at every schedule, so events with equal times
 * pop in the order they were scheduled. What differs is the cost: every
 * source of the simulator has at most one pending event, so the queue is a
 * fixed array of slots and an update replays one leaf-to-root path of
 * log2(slots) comparisons against the siblings — no element moves, no
 * allocation after init, and "the earliest event but the top one" is the
 * smallest of the siblings along the top's path.
 *
 * Every node of the tree holds its subtree's winning key itself, as two
 * words (t, seq << 24 | slot) in two arrays: a comparison is one 128-bit
 * compare, with no indirection through slot numbers, and the slot of the
 * winner comes with it. Sequence numbers have 40 bits (10^12 events).
 *
 * Single-threaded.
 */
#ifndef SIM_EVQ_H
#define SIM_EVQ_H

#include <stdint.h>

#include "rxb/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SIM_EVQ_SLOT_BITS 24
#define SIM_EVQ_SLOT_MASK ((1u << SIM_EVQ_SLOT_BITS) - 1)
#define SIM_EVQ_MAX_SEQ   (1ull << (64 - SIM_EVQ_SLOT_BITS))

struct sim_evq {
	uint32_t nslots;
	uint32_t nleaves; /* power of two >= nslots (>= 2) */
	/* 2 × nleaves nodes: node 1 is the root, leaves at nleaves + slot.
	 * Node i holds its subtree's winner: time nt[i] (ps) and nsk[i] =
	 * sequence number << 24 | slot; UINT64_MAX twice when empty. */
	uint64_t *nt, *nsk;
	uint64_t seq;
};

int sim_evq_init(struct sim_evq *q, uint32_t nslots, struct rxb_err *err);
void sim_evq_free(struct sim_evq *q);

/* Give leaf node i the key (t, sk) and replay its path to the root: at
 * each level the winner so far (kept in registers) meets the sibling
 * subtree's winner. The keys compare as one 128-bit integer and the winner
 * is selected with a mask: which side wins is unpredictable, so there is
 * no branch on it. */
static inline void sim_evq__place(struct sim_evq *q, uint32_t i, uint64_t t, uint64_t sk)
{
	uint64_t *nt = q->nt, *nsk = q->nsk;

	nt[i] = t;
	nsk[i] = sk;
	for (; i > 1; i >>= 1) {
		uint64_t ot = nt[i ^ 1], osk = nsk[i ^ 1];
		uint64_t m = -(uint64_t)(((unsigned __int128)ot << 64 | osk) <
					 ((unsigned __int128)t << 64 | sk));

		t ^= (t ^ ot) & m;
		sk ^= (sk ^ osk) & m;
		nt[i >> 1] = t;
		nsk[i >> 1] = sk;
	}
}

/* Schedule slot s's event at t (replacing any pending one): it takes the
 * next sequence number, as a push onto sim_heap would. */
static inline void sim_evq_set(struct sim_evq *q, uint32_t s, uint64_t t)
{
	sim_evq__place(q, q->nleaves + s, t, q->seq++ << SIM_EVQ_SLOT_BITS | s);
}

/* Time of slot s's pending event (UINT64_MAX: none). */
static inline uint64_t sim_evq_slot_time(const struct sim_evq *q, uint32_t s)
{
	return q->nt[q->nleaves + s];
}

/* Remove slot s's pending event, if any. */
static inline void sim_evq_clear(struct sim_evq *q, uint32_t s)
{
	sim_evq__place(q, q->nleaves + s, UINT64_MAX, UINT64_MAX);
}

/* The slot of the earliest event, or -1 when the queue is empty. */
static inline int32_t sim_evq_top(const struct sim_evq *q)
{
	uint64_t sk = q->nsk[1];

	return sk == UINT64_MAX ? -1 : (int32_t)(sk & SIM_EVQ_SLOT_MASK);
}

/* Time of the earliest event (valid when the queue is not empty). */
static inline uint64_t sim_evq_top_time(const struct sim_evq *q)
{
	return q->nt[1];
}

/* Time of the earliest event other than the top one (UINT64_MAX if none). */
static inline uint64_t sim_evq_next_other(const struct sim_evq *q)
{
	uint64_t t = UINT64_MAX;

	for (uint32_t i = q->nleaves + (uint32_t)(q->nsk[1] & SIM_EVQ_SLOT_MASK); i > 1; i >>= 1) {
		uint64_t o = q->nt[i ^ 1];

		t = o < t ? o : t;
	}
	return t;
}

/* Events scheduled so far; the caller stops before SIM_EVQ_MAX_SEQ. */
static inline uint64_t sim_evq_scheduled(const struct sim_evq *q)
{
	return q->seq;
}

#ifdef __cplusplus
}
#endif
#endif /* SIM_EVQ_H */
