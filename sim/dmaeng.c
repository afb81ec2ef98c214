/* SPDX-License-Identifier: BSD-3-Clause
 * A NIC's DMA read engines (dmaeng.h). */
#include "dmaeng.h"

#include <errno.h>
#include <stdlib.h>

int sim_dmaeng_init(struct sim_dmaeng *e, uint32_t slots, double link_ps_per_byte,
		    struct rxb_err *err)
{
	*e = (struct sim_dmaeng){ .slots = slots, .link_ps_per_byte = link_ps_per_byte };
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

/* The root (the slot that frees first) now frees at t: sift it down. */
static void replace_root(struct sim_dmaeng *e, uint64_t t)
{
	uint64_t *h = e->free_at;
	uint32_t i = 0;

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= e->slots)
			break;
		if (c + 1 < e->slots && h[c + 1] < h[c])
			c++;
		if (h[c] >= t)
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = t;
}

uint64_t sim_dmaeng_request(struct sim_dmaeng *e, uint64_t t, uint64_t lat, uint64_t link_bytes)
{
	uint64_t start = e->free_at[0] > t ? e->free_at[0] : t;
	uint64_t ready = start + lat;
	uint64_t on_link = (uint64_t)((double)link_bytes * e->link_ps_per_byte + 0.5);
	uint64_t done = e->link_free + on_link > ready ? e->link_free + on_link : ready;

	e->link_free = done;
	replace_root(e, done);
	e->requests++;
	e->wait_ps += start - t;
	e->busy_ps += done - start;
	return done;
}
