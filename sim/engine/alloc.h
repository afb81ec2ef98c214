/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/engine/alloc.h — the buffer allocator as the cores pay for it (sim/engine/alloc.c):
 * the library's allocator per core, observed, and the cycles it costs.
 */
#ifndef SIM_ALLOC_H
#define SIM_ALLOC_H

#include <stdint.h>

#include "rxb/pool.h"

struct sim;
struct core;

/* Core `core`'s allocator as the library sees it: the pool's, observed. */
struct alloc_tap {
	struct rxb_allocator pool;
	struct sim *s;
	uint32_t core;
};

/* Each core's observed allocator (s->allocs, s->tap) over s->pool. */
void alloc_setup(struct sim *s);
/* Charge core k the allocator cycles its pool counters moved by since the
 * last charge: objects through the cache, bulk moves under the shared
 * pool's lock (a contended resource). */
void alloc_charge(struct sim *s, struct core *k);

#endif /* SIM_ALLOC_H */
