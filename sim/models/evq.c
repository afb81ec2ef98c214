/* SPDX-License-Identifier: BSD-3-Clause
 * Event queue of the engine: the out-of-line (allocation) half; the hot
 * half is inline in evq.h. */
#include <errno.h>
#include <stdlib.h>

#include "evq.h"

int sim_evq_init(struct sim_evq *q, uint32_t nslots, struct rxb_err *err)
{
	uint32_t l = 2;

	q->nt = q->nsk = NULL;
	if (nslots == 0 || nslots > SIM_EVQ_SLOT_MASK) {
		rxb_err_set(err, "event queue: %u slots: must be in [1, %u]", nslots,
			    SIM_EVQ_SLOT_MASK);
		return -EINVAL;
	}
	while (l < nslots)
		l *= 2;
	q->nslots = nslots;
	q->nleaves = l;
	q->seq = 0;
	q->nt = malloc((size_t)2 * l * sizeof(*q->nt));
	q->nsk = malloc((size_t)2 * l * sizeof(*q->nsk));
	if (q->nt == NULL || q->nsk == NULL) {
		sim_evq_free(q);
		rxb_err_set(err, "event queue: out of memory for %u slots", nslots);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < 2 * l; i++)
		q->nt[i] = q->nsk[i] = UINT64_MAX;
	return 0;
}

void sim_evq_free(struct sim_evq *q)
{
	free(q->nt);
	free(q->nsk);
	q->nt = q->nsk = NULL;
	q->nslots = q->nleaves = 0;
}
