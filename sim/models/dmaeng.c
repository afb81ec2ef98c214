/* SPDX-License-Identifier: BSD-3-Clause
 * A NIC's DMA read engines (dmaeng.h). */
#include "dmaeng.h"

#include <errno.h>
#include <stdlib.h>

int sim_dmaeng_init(struct sim_dmaeng *e, uint32_t slots, double link_ps_per_byte,
		    struct rxb_err *err)
{
	*e = (struct sim_dmaeng){
		.slots = slots, .link_ps_per_byte_q32 = (uint64_t)(link_ps_per_byte * 4294967296.0)
	};
	if (slots == 0) {
		rxb_err_set(err, "nic.dma_read_slots = 0: a NIC needs at least one read in flight; "
				 "allowed: 1 to 4096");
		return -EINVAL;
	}
	e->free_at = calloc(slots, sizeof(*e->free_at));
	if (e->free_at == NULL) {
		rxb_err_set(err, "out of memory: DMA read slots (%u)", slots);
		return -ENOMEM;
	}
	return 0;
}

void sim_dmaeng_free(struct sim_dmaeng *e)
{
	free(e->free_at);
	e->free_at = NULL;
}

uint64_t sim_dmaeng_request(struct sim_dmaeng *e, uint64_t t, uint64_t lat, uint64_t link_bytes)
{
	/* Completions leave the link in issue order (a FIFO server), so the
	 * slot that frees first is always the oldest request's: a ring. */
	uint64_t *slot = &e->free_at[e->next];
	uint64_t start = *slot > t ? *slot : t;
	uint64_t ready = start + lat;
	uint64_t on_link = (link_bytes * e->link_ps_per_byte_q32) >> 32;
	uint64_t done = e->link_free + on_link > ready ? e->link_free + on_link : ready;

	if (t < e->last_t)
		e->late++;
	else
		e->last_t = t;
	e->link_free = done;
	*slot = done;
	e->next = e->next + 1 == e->slots ? 0 : e->next + 1;
	e->wait_ps += start - t;
	return done;
}
