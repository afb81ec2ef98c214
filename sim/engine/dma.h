/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/engine/dma.h — the NIC's DMA reads and writes (sim/engine/dma.c): what the
 * receive path, the emulator's model and the transmit path share.
 */
#ifndef SIM_DMA_H
#define SIM_DMA_H

#include <stdbool.h>
#include <stdint.h>

#include "rxb/iface.h"

struct sim;
struct nic;

/* A DMA read by NIC n of `bytes` at addr, issued at t (lookup: through the
 * LLC; else descriptors, counted as hits): returns when all its data is
 * at the NIC. */
uint64_t nic_dma_read(struct sim *s, struct nic *n, uint64_t t, uint64_t addr, uint32_t bytes,
		      bool lookup);
/* The data and completion DMA writes of a delivery: returns when the
 * completion is visible to the core. */
uint64_t dma_complete(struct sim *s, struct nic *n, uint64_t t, uint64_t addr, uint32_t dma,
		      const uint32_t *rings, unsigned nring, unsigned nc, uint64_t cq_base_override,
		      uint64_t *cq_counter);
/* The packet is in buffer d->buf, its completion visible at vis: keep what
 * the core will need and wake the cores that poll its ring. */
void deliver_done(struct sim *s, const struct rxb_delivery *d, uint64_t vis, uint64_t arr,
		  uint32_t flow, uint32_t order, uint32_t key, uint32_t len, uint8_t nic,
		  uint8_t cls, uint32_t dest);

#endif /* SIM_DMA_H */
