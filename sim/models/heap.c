/* SPDX-License-Identifier: BSD-3-Clause
 * Event queue: the out-of-line (allocation) half; the hot half is inline in
 * heap.h. */
#include <errno.h>
#include <stdlib.h>

#include "heap.h"

#define SIM_HEAP_MAX_CAP (1u << 31)

int sim_heap_init(struct sim_heap *h, uint32_t cap_hint, struct rxb_err *err)
{
	if (cap_hint == 0)
		cap_hint = 64;
	if (cap_hint > SIM_HEAP_MAX_CAP) {
		rxb_err_set(err, "heap.capacity = %u: must be at most %u", cap_hint,
			    SIM_HEAP_MAX_CAP);
		return -EINVAL;
	}
	h->ev = malloc((size_t)cap_hint * sizeof(*h->ev));
	if (h->ev == NULL) {
		rxb_err_set(err, "heap.capacity = %u: out of memory", cap_hint);
		return -ENOMEM;
	}
	h->n = 0;
	h->cap = cap_hint;
	h->seq = 0;
	return 0;
}

void sim_heap_free(struct sim_heap *h)
{
	free(h->ev);
	h->ev = NULL;
	h->n = h->cap = 0;
}

int sim_heap_grow(struct sim_heap *h)
{
	uint32_t cap;
	struct sim_event *ev;

	if (h->cap >= SIM_HEAP_MAX_CAP)
		return -ENOMEM;
	cap = h->cap ? h->cap * 2 : 64;
	ev = realloc(h->ev, (size_t)cap * sizeof(*ev));
	if (ev == NULL)
		return -ENOMEM;
	h->ev = ev;
	h->cap = cap;
	return 0;
}
