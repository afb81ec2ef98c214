/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/engine/tx.h — the transmit path (sim/engine/tx.c, docs/simulator.md §2.5): each
 * core's Tx ring and send queue, the NIC's DMA reads of what it sends,
 * and the buffers' return to the pool once their completions are seen.
 */
#ifndef SIM_TX_H
#define SIM_TX_H

#include <stdint.h>
#include "rxb/common.h"

/* A core's Tx ring (sim/engine/tx.c): transmitted buffers in order, each with
 * its queue and the time its Tx completion is visible to the core. */
struct txq {
	rxb_buf_t *buf;
	uint32_t *q;
	uint64_t *done;
	uint32_t cap, head, n;
};

#define TX_FREE_THRESH 32u /* completions a core frees at once (DPDK's tx_free_thresh) */
#define SIM_WQE_BYTES  64u /* one mlx5 send WQE for a one-segment packet (docs/workloads.md) */

struct sim;
struct core;

/* Each core's Tx ring (arch.tx_size entries) and the send queues' stride. */
void tx_setup(struct sim *s);
/* When core k can next post a Tx descriptor: now, or when the oldest
 * completion of its full ring is visible. */
uint64_t tx_room_at(const struct core *k);
/* Core k transmits buffer b (received on queue q, len bytes with FCS,
 * from NIC nic); the caller has made room (tx_room_at). */
void tx_packet(struct sim *s, struct core *k, rxb_buf_t b, uint32_t q, uint32_t len, uint8_t nic);
/* Free up to a burst of the buffers whose Tx completion core k has seen,
 * when at least `min` have completed. */
void tx_reap(struct sim *s, struct core *k, uint32_t min);

#endif /* SIM_TX_H */
