/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/models/dmaeng.h — a NIC's DMA read engines: a bounded pool of outstanding
 * read requests, and the host -> NIC direction of its PCIe link.
 *
 * A NIC hides PCIe latency by keeping several reads in flight (descriptor
 * fetches, transmit payload reads), but only so many: when reads are slow
 * (they miss the LLC, DRAM is loaded) the pool fills and new requests wait
 * for a slot, so the NIC falls behind on both directions (docs/calibration.md:
 * the shRing study's privRing saturated its engines at 1.45 us).
 *
 * A request issued at t takes the slot that frees first (start = max(t,
 * that slot's free time)); its data is ready `lat` after it starts (the
 * PCIe round trip and the memory's latency, the caller's); the data then
 * crosses the host -> NIC link, a FIFO server: done = max(ready, link free
 * + the bytes' time on the link); the slot is busy until done.
 * Because the link hands data over in issue order, completions are in
 * issue order, and the slot that frees first is the oldest request's: the
 * slots are a ring of free times, O(1) per request.
 * This holds only when requests come in time order (t never below an
 * earlier request's): one issued late would wait behind the link time and
 * the slots of requests that come after it, a delay that compounds. The
 * engine issues every read at the event clock; `late` counts requests
 * that were not (0 in a correct run).
 * Times in ps. Single-threaded.
 */
#ifndef SIM_DMAENG_H
#define SIM_DMAENG_H

#include <stdint.h>

#include "rxb/common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sim_dmaeng {
	uint64_t *free_at;             /* ring: when each slot is free again */
	uint32_t slots, next;          /* next: the oldest request's slot */
	uint64_t link_ps_per_byte_q32; /* host -> NIC link, 32.32 fixed point */
	uint64_t link_free;
	/* statistics */
	uint64_t wait_ps; /* waiting for a slot, summed */
	uint64_t last_t;  /* the latest issue time so far */
	uint64_t late;    /* requests issued before last_t (see above) */
};

/* 0, -EINVAL (slots 0) or -ENOMEM, each with a message. */
int sim_dmaeng_init(struct sim_dmaeng *e, uint32_t slots, double link_ps_per_byte,
		    struct rxb_err *err);
void sim_dmaeng_free(struct sim_dmaeng *e);

/* One read request issued at t: its data ready lat after it starts, then
 * `link_bytes` on the link. Returns when its data is at the NIC. */
uint64_t sim_dmaeng_request(struct sim_dmaeng *e, uint64_t t, uint64_t lat, uint64_t link_bytes);

#ifdef __cplusplus
}
#endif

#endif /* SIM_DMAENG_H */
