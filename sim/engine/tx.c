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
#include <stdio.h>
#include <stdlib.h>

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
		tq->post = sim_xcalloc(cap, sizeof(*tq->post));
	}
	s->sq_stride = align_up((uint64_t)cap * SIM_WQE_BYTES, 4096);
}

/* Where the WQE of core k's Tx ring slot goes: its send queue, one WQE per
 * slot. */
static uint64_t wqe_addr(const struct sim *s, const struct core *k, uint32_t slot)
{
	return s->sq_base + k->id * s->sq_stride + (uint64_t)slot * SIM_WQE_BYTES;
}

uint64_t tx_room_at(const struct sim *s, const struct core *k)
{
	const struct txq *tq = &k->tx;
	uint64_t at;

	if (tq->n < tq->cap)
		return k->t;
	at = tq->done[tq->head];
	if (at == TX_UNREAD) /* read at its doorbell: no sooner than a read's latency */
		at = tq->post[tq->head].rung + s->c.rd_base;
	return at > k->t ? at : k->t;
}

bool tx_has_room(const struct core *k)
{
	const struct txq *tq = &k->tx;

	return tq->n < tq->cap || tq->done[tq->head] <= k->t;
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
 * NIC nic): the WQE write and doorbell, and the buffer into the Tx ring
 * until its completion; the NIC reads the WQE and the frame when the event
 * clock reaches the doorbell (ev_txread). The caller has made room
 * (tx_has_room). */
void tx_packet(struct sim *s, struct core *k, rxb_buf_t b, uint32_t q, uint32_t len, uint8_t nic)
{
	struct txq *tq = &k->tx;
	uint64_t l;
	uint32_t slot;

	if (tq->n == tq->cap) { /* waited for the oldest completion: free it first */
		if (s->mem.warm)
			k->tx_full_waits++;
		tx_reap(s, k, 1);
		if (tq->n == tq->cap) {
			fprintf(stderr, "internal error: core %u transmits into a full Tx ring\n",
				k->id);
			exit(1);
		}
	}
	k->t += s->c.tx_pkt;
	k->cost.app += s->c.tx_pkt;
	an_charge(s, k, AN_TX_POST, s->c.tx_pkt);
	sim_note_step(&s->mem, k->t);
	slot = (tq->head + tq->n) % tq->cap;
	l = sim_mem_one(&s->mem, k->t, k->id, s->cls_sq, SIM_LLC_WR, wqe_addr(s, k, slot), &k->an,
			AN_TX_WQE);
	tq->buf[slot] = b;
	tq->q[slot] = q;
	tq->done[slot] = TX_UNREAD;
	tq->post[slot] = (struct tx_post){
		.rung = k->t, .wqe_lat = l, .len = (uint16_t)len, .nic = nic
	};
	if (tq->unread++ == 0)
		push(s, k->t, EV_TXREAD, k->id);
	tq->n++;
	k->t += l;
	k->cost.app += l;
}

/* The NIC reads the WQE of slot `slot` of core k's Tx ring, then the frame,
 * at the doorbell. The frame's data arrives the WQE's round trip (and the
 * WQE write) later than it would alone — its slots' busy time is shifted by
 * that much, not lengthened. The completion, a posted write, is visible a
 * DMA write latency after the data has been read. */
static void tx_read(struct sim *s, struct core *k, uint32_t slot)
{
	struct txq *tq = &k->tx;
	const struct tx_post *p = &tq->post[slot];
	struct nic *n = &s->nic[p->nic];
	uint64_t t = p->rung, read;

	read = nic_dma_read(s, n, t, wqe_addr(s, k, slot), SIM_WQE_BYTES, true) + p->wqe_lat;
	read += nic_dma_read(s, n, t, sim_frame_addr(s, tq->buf[slot]), p->len - SIM_ETH_FCS,
			     true) -
		t;
	tq->done[slot] = read + s->c.dma_write;
}

void ev_txread(struct sim *s, struct core *k, uint64_t now)
{
	struct txq *tq = &k->tx;
	uint32_t slot = (tq->head + tq->n - tq->unread) % tq->cap;

	while (tq->unread && tq->post[slot].rung <= now) {
		tx_read(s, k, slot);
		tq->unread--;
		slot = (slot + 1) % tq->cap;
	}
	if (tq->unread)
		push(s, tq->post[slot].rung, EV_TXREAD, k->id);
}
