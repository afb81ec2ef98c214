/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/engine/engine_int.h — what the mechanisms of the simulator core
 * share about the whole system (struct sim), and only they: scheduling an
 * event, the address map (buffers, mbufs, completion rings), PCIe byte
 * counts, the I/O working set, drops, ring occupancy, which core polls a
 * ring. Each mechanism's own state and functions are in its header (nic.h,
 * dma.h, core.h, alloc.h, tx.h, emu_model.h, hog.h, measure.h); the
 * memory-access path is mem.h, below them all; engine.h is the core's face
 * to main.c and the tests.
 *
 * These helpers are static inline rather than functions of one file so
 * that the compiler still inlines them into the per-packet path
 * (docs/simulator.md §7: instructions per packet).
 */
#ifndef SIM_ENGINE_INT_H
#define SIM_ENGINE_INT_H

#include <stddef.h>

#include "engine.h"
#include "mem.h"
#include "rxb/spool.h"

#define HUGE_ALIGN   (2ull << 20) /* regions of the address map: hugepages */
#define IVAL_SCRATCH 4096u        /* dyn_shring: intervals the overload rule expands */

/* Schedule the event (type, arg): every source has one slot, holding at
 * most one pending event. */
static inline void push(struct sim *s, uint64_t t, uint32_t type, uint32_t arg)
{
	s->events_late += t < s->mem.now;
	sim_evq_set(&s->evq, s->slot_base[type] + arg, t);
}

/* A DPDK mempool element: the 128 B struct rte_mbuf (2 lines; Debian
 * dpdk-dev, rte_mbuf_core.h: cacheline0 holds buf_addr, buf_iova,
 * rearm_data — data_off, refcnt, nb_segs, port —, ol_flags and the
 * rx_descriptor_fields1 — packet_type, pkt_len, data_len, vlan_tci,
 * hash —, buf_len and pool; cacheline1 next (RTE_IOVA_AS_PA), tx_offload,
 * shinfo, ...), then the buffer: arch.headroom_bytes, then data
 * (arch.buffer_bytes in all). DPDK's default is 128 + 128 + 2048 B. */
#define SIM_MBUF_BYTES 128u

/* rte_mempool's header before each object (struct rte_mempool_objhdr,
 * its size rounded up to a cache line, RTE_MEMPOOL_ALIGN). */
#define SIM_OBJHDR_BYTES 64u

/* Bytes from one element of the pool to the next: the mempool's object
 * header, then the object — the mbuf, the application's private area
 * (nf_priv_bytes: FastClick's annotations), the buffer — rounded up to a
 * cache line as rte_mempool does. */
static inline uint64_t sim_buf_stride(const struct sim *s)
{
	return SIM_OBJHDR_BYTES +
	       align_up(SIM_MBUF_BYTES + s->priv_bytes + (uint64_t)s->cfg->scn.arch.buffer_bytes,
			SIM_LLC_LINE);
}

/* Where an element's buffer starts, from the element's start. */
static inline uint64_t sim_buf_offset(const struct sim *s)
{
	return SIM_OBJHDR_BYTES + SIM_MBUF_BYTES + s->priv_bytes;
}

/* Address of the memory of buffer handle b — its buffer, after its mbuf
 * and private area (pool base + b × stride + sim_buf_offset; the
 * emulator's pointer swaps remap it). */
static inline uint64_t sim_buf_addr(const struct sim *s, rxb_buf_t b)
{
	if (s->addr_of)
		return s->addr_of[b];
	return s->pool_base + b * sim_buf_stride(s) + sim_buf_offset(s);
}

/* Line `line` of buffer b's mbuf (0, 1: the struct rte_mbuf; 2, 3: the
 * private area when there is one), before its buffer. */
static inline uint64_t sim_mbuf_line(const struct sim *s, rxb_buf_t b, unsigned line)
{
	return sim_buf_addr(s, b) - s->priv_bytes - SIM_MBUF_BYTES + line * SIM_LLC_LINE;
}

/* Address of the first byte of the frame in buffer b (after the headroom). */
static inline uint64_t sim_frame_addr(const struct sim *s, rxb_buf_t b)
{
	return sim_buf_addr(s, b) + s->cfg->scn.arch.headroom_bytes;
}

/* Earliest event but the one at the top of the queue (the running
 * core's). */
static inline uint64_t next_other(const struct sim *s)
{
	return sim_evq_next_other(&s->evq);
}

/* ---------------------------------------------- rings, PCIe, drops */

/* Which reception ring's CQ memory a destination's entries go to. */
static inline uint32_t cq_ring(const struct sim *s, uint32_t dest)
{
	return s->arch == RXB_ARCH_SPOOL ? rxb_spool_queue_of(rxb_iface_spool(s->ifc), dest) : dest;
}

/* Address of the next entry of a completion ring whose position (mod
 * cq_entries) is *pos, which advances. */
static inline uint64_t cq_next(const struct sim *s, uint64_t base, uint64_t *pos)
{
	uint64_t a = base + *pos * (uint64_t)s->cfg->cqe_bytes;

	if (++*pos == s->cq_entries)
		*pos = 0;
	return a;
}

static inline uint64_t cq_ring_base(const struct sim *s, uint32_t ring)
{
	return s->cq_base + ring * s->cq_ring_bytes;
}

static inline uint64_t tlp_bytes(const struct sim *s, uint64_t payload)
{
	uint64_t mps = s->cfg->mps_bytes;

	return payload + (payload + mps - 1) / mps * s->cfg->tlp_overhead_bytes;
}

/* tlp_bytes of a packet's DMA (the last size seen is remembered). */
static inline uint64_t tlp_data(struct sim *s, uint32_t dma)
{
	if (dma != s->tlp_memo_len) {
		s->tlp_memo_len = dma;
		s->tlp_memo = tlp_bytes(s, dma);
	}
	return s->tlp_memo;
}

/* A buffer slot the NIC wrote in this sample window (the I/O working
 * set, docs/simulator.md §2.9). */
static inline void ws_mark(struct sim *s, uint64_t slot)
{
	uint64_t bit = 1ull << (slot & 63);

	if (slot < s->ws_slots && !(s->ws_bits[slot >> 6] & bit)) {
		s->ws_bits[slot >> 6] |= bit;
		s->ws_count++;
	}
}

/* A packet dropped with `cause`, counted for its cohort (after the
 * warm-up) and in the time series. */
static inline void count_drop(struct sim *s, uint32_t dest, unsigned cause, bool cohort)
{
	s->cur.drops++;
	if (!cohort)
		return;
	s->dropped[cause]++;
	s->dst[dest].drops[cause]++;
}

/* x mod n for an x that is usually already below n (no division then). */
static inline uint32_t mod_small(uint32_t x, uint32_t n)
{
	return x < n ? x : x % n;
}

/* The core that polls a destination's reception ring. */
static inline uint32_t ring_core(const struct sim *s, uint32_t dest)
{
	return mod_small(cq_ring(s, dest), s->ncores);
}

/* Entries filled in reception ring r (a spool queue for spool). */
static inline uint32_t ring_occupancy(struct sim *s, uint32_t r)
{
	if (s->arch == RXB_ARCH_SPOOL)
		return rxb_spool_occupancy(rxb_iface_spool(s->ifc), r);
	return rxb_iface_occupancy(s->ifc, r);
}

#endif /* SIM_ENGINE_INT_H */
