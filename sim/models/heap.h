/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/models/heap.h — the simulator's event queue: a 4-ary min-heap of events
 * ordered by (time, sequence number).
 *
 * Determinism: events with equal times pop in the order they were pushed
 * (the sequence number is a per-heap counter), so a run never depends on the
 * heap's internal layout. Cancellation is lazy: the caller tags events (e.g.
 * a generation number in `arg`) and ignores stale ones when they pop — this
 * keeps every operation O(log n) with no back-pointers.
 *
 * Why 4-ary: half the depth of a binary heap, and the four children of a
 * node (4 × 32 B) share two cache lines, so a sift-down costs about half the
 * cache misses of a binary heap for large queues.
 */
#ifndef SIM_HEAP_H
#define SIM_HEAP_H

#include <errno.h>
#include <stdint.h>

#include "rxb/common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sim_event {
	uint64_t t;    /* event time (simulation time unit: ps) */
	uint64_t seq;  /* push order, set by the heap: FIFO among equal t */
	uint32_t type; /* caller's event kind */
	uint32_t arg;  /* caller's small argument (core, NIC, generation...) */
	uint64_t data; /* caller's payload */
};

struct sim_heap {
	struct sim_event *ev;
	uint32_t n;
	uint32_t cap;
	uint64_t seq;
};

/* cap_hint: initial capacity (grows by doubling, up to 2^31 events). */
int sim_heap_init(struct sim_heap *h, uint32_t cap_hint, struct rxb_err *err);
void sim_heap_free(struct sim_heap *h);
/* Empty the queue; the sequence counter continues (so FIFO order among
 * equal times still holds across a clear). */
static inline void sim_heap_clear(struct sim_heap *h)
{
	h->n = 0;
}
static inline uint32_t sim_heap_size(const struct sim_heap *h)
{
	return h->n;
}

/* Slow path of push: make room. -ENOMEM when the heap cannot grow. */
int sim_heap_grow(struct sim_heap *h);

/* (t, seq) as one 128-bit key: the comparison compiles to cmp/sbb with no
 * branch, which matters because heap comparisons are unpredictable. */
static inline int sim_event_before(const struct sim_event *a, const struct sim_event *b)
{
	unsigned __int128 ka = (unsigned __int128)a->t << 64 | a->seq;
	unsigned __int128 kb = (unsigned __int128)b->t << 64 | b->seq;

	return ka < kb;
}

/* Insert an event. Returns 0, or -ENOMEM. */
static inline int sim_heap_push(struct sim_heap *h, uint64_t t, uint32_t type, uint32_t arg,
				uint64_t data)
{
	struct sim_event e = { .t = t, .seq = h->seq++, .type = type, .arg = arg, .data = data };
	uint32_t i;

	if (h->n == h->cap && sim_heap_grow(h) != 0)
		return -ENOMEM;
	i = h->n++;
	while (i > 0) {
		uint32_t p = (i - 1) >> 2;

		if (!sim_event_before(&e, &h->ev[p]))
			break;
		h->ev[i] = h->ev[p];
		i = p;
	}
	h->ev[i] = e;
	return 0;
}

/* Index of the earliest of the children c..c+3 (all present). Written
 * with conditional moves: which child wins is unpredictable. */
static inline uint32_t sim_heap_min4(const struct sim_event *ev, uint32_t c)
{
	uint32_t a = sim_event_before(&ev[c + 1], &ev[c]) ? c + 1 : c;
	uint32_t b = sim_event_before(&ev[c + 3], &ev[c + 2]) ? c + 3 : c + 2;

	return sim_event_before(&ev[b], &ev[a]) ? b : a;
}

/* Place `e` into a heap of h->n elements whose root slot is free.
 * Bottom-up (Floyd): move the hole down along the path of earliest children
 * to a leaf without comparing against `e`, then sift `e` up from there. New
 * events are usually later than most queued ones, so the sift-up is short,
 * and the way down has no unpredictable "stop here?" branch. */
static inline void sim_heap_sift_down(struct sim_heap *h, struct sim_event e)
{
	struct sim_event *ev = h->ev;
	uint32_t n = h->n, i = 0, c;

	while ((c = 4 * i + 1) + 3 < n) {
		uint32_t m = sim_heap_min4(ev, c);

		ev[i] = ev[m];
		i = m;
	}
	if (c < n) { /* a last node with 1-3 children */
		uint32_t m = c;

		for (uint32_t j = c + 1; j < n; j++)
			if (sim_event_before(&ev[j], &ev[m]))
				m = j;
		ev[i] = ev[m];
		i = m;
	}
	while (i > 0) {
		uint32_t p = (i - 1) >> 2;

		if (!sim_event_before(&e, &ev[p]))
			break;
		ev[i] = ev[p];
		i = p;
	}
	ev[i] = e;
}

/* Earliest event, or NULL when empty. */
static inline const struct sim_event *sim_heap_peek(const struct sim_heap *h)
{
	return h->n ? &h->ev[0] : NULL;
}

/* Remove the earliest event into *out. Returns 1, or 0 when empty. */
static inline int sim_heap_pop(struct sim_heap *h, struct sim_event *out)
{
	if (h->n == 0)
		return 0;
	*out = h->ev[0];
	if (--h->n)
		sim_heap_sift_down(h, h->ev[h->n]);
	return 1;
}

/* Pop the earliest event into *out and push a new one in a single sift
 * (the common "handle an event, schedule its successor" step). The heap
 * must not be empty. The new event's seq is taken after the popped one's,
 * so FIFO order among equal times holds as with pop + push. */
static inline void sim_heap_pop_push(struct sim_heap *h, struct sim_event *out, uint64_t t,
				     uint32_t type, uint32_t arg, uint64_t data)
{
	struct sim_event e = { .t = t, .seq = h->seq++, .type = type, .arg = arg, .data = data };

	*out = h->ev[0];
	sim_heap_sift_down(h, e);
}

#ifdef __cplusplus
}
#endif
#endif /* SIM_HEAP_H */
