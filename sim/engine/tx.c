/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The transmit path (docs/simulator.md §2.5, docs/calibration.md "Transmit"):
 * a core writes a Tx descriptor for each forwarded packet into its Tx ring
 * (arch.tx_size entries) and rings the doorbell; the NIC reads the frame by
 * DMA through its read engines (nic_dma_read: LLC or DRAM, PCIe round
 * trip, a bounded number in flight) and writes a Tx completion. The buffer
 * goes back to the pool only when the core processes that completion, in
 * batches (DPDK PMDs free transmitted buffers in later tx_burst calls,
 * TX_FREE_THRESH at a time) — so buffers in flight on the Tx side are part
 * of the I/O working set, and a slow NIC read holds them longer.
 * A full Tx ring makes the core wait for its oldest completion (a blocking
 * transmit, as FastClick's ToDPDKDevice by default) rather than drop.
 *
 * The descriptor is mlx5's: one 64 B WQE (control segment, Ethernet
 * segment with the inlined L2 header, data pointer) the core writes into
 * its send queue, then the doorbell (docs/workloads.md). FastClick's flow
 * manager sends each packet alone, so every packet has its WQE and its
 * doorbell; the doorbell carries only the WQE's index, so the NIC reads
 * the WQE by DMA before it can read the frame the WQE points to.
 */
#include "alloc.h"
#include "core.h"
#include "dma.h"
#include "engine_int.h"
#include "nic.h"
#include "tx.h"

void tx_setup(struct sim *s)
{
	uint32_t cap = s->cfg->scn.arch.tx_size;

	for (uint32_t c = 0; c < s->ncores; c++) {
		struct txq *tq = &s->core[c].tx;

		tq->cap = cap;
		tq->buf = sim_xcalloc(cap, sizeof(*tq->buf));
		tq->q = sim_xcalloc(cap, sizeof(*tq->q));
		tq->done = sim_xcalloc(cap, sizeof(*tq->done));
	}
	s->sq_stride = align_up((uint64_t)cap * SIM_WQE_BYTES, 4096);
}

/* Where core k's next WQE goes: its send queue, one WQE per Tx ring slot. */
static uint64_t wqe_addr(const struct sim *s, const struct core *k)
{
	const struct txq *tq = &k->tx;

	return s->sq_base + k->id * s->sq_stride +
	       (uint64_t)((tq->head + tq->n) % tq->cap) * SIM_WQE_BYTES;
}

/* When core k can next post a Tx descriptor: now, or when the oldest
 * completion of its full ring is visible. */
uint64_t tx_room_at(const struct core *k)
{
	const struct txq *tq = &k->tx;

	if (tq->n < tq->cap)
		return k->t;
	return tq->done[tq->head] > k->t ? tq->done[tq->head] : k->t;
}

/* Free, in ring order, up to a burst of the transmitted buffers whose
 * completion core k has seen — when at least `min` have completed (one
 * step of the time rule: at most RXB_BURST_MAX objects' cycles). Their
 * allocator cycles are the core's. */
void tx_reap(struct sim *s, struct core *k, uint32_t min)
{
	struct txq *tq = &k->tx;
	uint32_t ready = 0;

	while (ready < tq->n && ready < RXB_BURST_MAX &&
	       tq->done[(tq->head + ready) % tq->cap] <= k->t)
		ready++;
	if (ready == 0 || ready < min)
		return;
	sim_note_step(&s->mem, k->t);
	while (ready) {
		rxb_buf_t bufs[RXB_BURST_MAX];
		uint32_t q = tq->q[tq->head], m = 0;

		/* one free call per run of the same queue (spool cores have several) */
		while (m < ready && tq->q[tq->head] == q) { /* ready <= RXB_BURST_MAX */
			bufs[m++] = tq->buf[tq->head];
			tq->head = (tq->head + 1) % tq->cap;
			tq->n--;
		}
		ready -= m;
		rxb_iface_free(s->ifc, q, bufs, m);
		alloc_charge(s, k);
	}
}

/* Core k transmits buffer b (received on queue q, len bytes with FCS, from
 * NIC nic): the WQE write and doorbell, the NIC's DMA reads of the WQE and
 * the frame, and the
 * buffer into the Tx ring until its completion. The caller has made room
 * (tx_room_at). */
void tx_packet(struct sim *s, struct core *k, rxb_buf_t b, uint32_t q, uint32_t len, uint8_t nic)
{
	struct txq *tq = &k->tx;
	uint64_t read, wqe, l;
	uint32_t slot;

	if (tq->n == tq->cap) { /* waited for the oldest completion: free it first */
		if (s->mem.warm)
			k->tx_full_waits++;
		tx_reap(s, k, 1);
	}
	k->t += s->c.tx_pkt;
	k->cost.app += s->c.tx_pkt;
	an_charge(s, k, AN_TX_POST, s->c.tx_pkt);
	sim_note_step(&s->mem, k->t);
	wqe = wqe_addr(s, k);
	l = sim_mem_one(&s->mem, k->t, k->id, s->cls_sq, SIM_LLC_WR, wqe, &k->an, AN_TX_WQE);
	/* The doorbell follows the WQE; the NIC reads the WQE, then the frame.
	 * Both requests are issued at the core's time (within the horizon),
	 * in time order with every other read of the NIC's engines (dmaeng.h:
	 * a FIFO); the frame's data then arrives the WQE's round trip (and the
	 * WQE write) later than it would alone — its slots' busy time is
	 * shifted by that much, not lengthened. */
	read = nic_dma_read(s, &s->nic[nic], k->t, wqe, SIM_WQE_BYTES, true) + l;
	read += nic_dma_read(s, &s->nic[nic], k->t, sim_frame_addr(s, b), len - SIM_ETH_FCS, true) -
		k->t;
	k->t += l;
	k->cost.app += l;
	slot = (tq->head + tq->n) % tq->cap;
	tq->buf[slot] = b;
	tq->q[slot] = q;
	/* the completion, a posted write, is visible a DMA write latency after
	 * the data has been read */
	tq->done[slot] = read + s->c.dma_write;
	tq->n++;
}
