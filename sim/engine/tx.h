/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/engine/tx.h — the transmit path (sim/engine/tx.c, docs/simulator.md §2.5): each
 * core's Tx ring and send queue, the NIC's DMA reads of what it sends,
 * and the buffers' return to the pool once their completions are seen.
 */
#ifndef SIM_TX_H
#define SIM_TX_H

#include <stdbool.h>
#include <stdint.h>
#include "rxb/common.h"

/* What the NIC needs to read a posted packet at its doorbell (ev_txread). */
struct tx_post {
	uint64_t rung;    /* doorbell time */
	uint64_t wqe_lat; /* the core's WQE write, which the doorbell follows */
	uint16_t len;     /* frame length with FCS */
	uint8_t nic;
};

/* A core's Tx ring (sim/engine/tx.c): n transmitted buffers from head, in
 * ring order, each with its queue and the time its Tx completion is visible
 * to the core. The NIC reads a packet's WQE and frame when the event clock
 * reaches its doorbell, not when the core, up to the horizon ahead, rings
 * it: its read engines take requests in time order (dmaeng.h). `unread`
 * packets at the ring's tail wait for that (one EV_TXREAD per core, at the
 * first one's doorbell); their completion time is TX_UNREAD until then. */
struct txq {
	rxb_buf_t *buf;
	uint32_t *q;
	uint64_t *done;
	struct tx_post *post;
	uint32_t cap, head, n, unread;
};

#define TX_UNREAD UINT64_MAX

#define TX_FREE_THRESH 32u /* completions a core frees at once (DPDK's tx_free_thresh) */
#define SIM_WQE_BYTES  64u /* one mlx5 send WQE for a one-segment packet (docs/workloads.md) */

struct sim;
struct core;

/* Each core's Tx ring (arch.tx_size entries) and the send queues' stride. */
void tx_setup(struct sim *s);
/* When core k can next post a Tx descriptor: now, when the oldest
 * completion of its full ring is visible or, while the NIC has not read
 * that packet yet, the earliest its completion can be (check again then). */
uint64_t tx_room_at(const struct sim *s, const struct core *k);
/* Whether core k's Tx ring has a free slot or one it can free at k->t. */
bool tx_has_room(const struct core *k);
/* EV_TXREAD(core): the NIC reads the WQEs and frames of core k whose
 * doorbells rang by now. */
void ev_txread(struct sim *s, struct core *k, uint64_t now);
/* Core k transmits buffer b (received on queue q, len bytes with FCS,
 * from NIC nic); the caller has made room (tx_has_room). */
void tx_packet(struct sim *s, struct core *k, rxb_buf_t b, uint32_t q, uint32_t len, uint8_t nic);
/* Free up to a burst of the buffers whose Tx completion core k has seen,
 * when at least `min` have completed. */
void tx_reap(struct sim *s, struct core *k, uint32_t min);

#endif /* SIM_TX_H */
