/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The NIC's DMA (docs/simulator.md §2.1, §2.3): reads through its read
 * engines and the host -> NIC link, writes of frames and completions
 * through PCIe, the LLC (DDIO) and DRAM, a completion's visibility, and
 * waking the core that polls it. Used by the NIC's receive path (nic.c),
 * the emulator's model (emu_model.c) and the transmit path (tx.c).
 */
#include "core.h"
#include "dma.h"
#include "engine_int.h"
#include "nic.h"

/* llround(x) for 0 <= x < 2^63: x − trunc(x) is exact, so this rounds
 * half away from zero exactly as llround does. */
static inline uint64_t round_pos(double x)
{
	uint64_t r = (uint64_t)x;

	return r + (x - (double)r >= 0.5);
}

/* A DMA read by NIC n of `bytes` at addr, issued at t: split into
 * max-read-request-sized requests, each taking a read slot (dmaeng.h) for
 * the PCIe round trip (pcie.dma_read_ns + dma_read_ns_per_byte x its
 * bytes: measured with warm caches, so an LLC hit adds nothing) plus, when
 * the read found lines outside the LLC, the loaded DRAM latency (an I/O
 * read does not allocate, llc.h; the read is looked up once, not request
 * by request); its data then crosses the host -> NIC link.
 * lookup false: descriptors, which the core has just written (their lines
 * are not in the address map: counted as hits; t may then be later than
 * the horizon — the fetch waits for its ring's previous one — since no
 * shared memory is touched). lookup true: t within the horizon (the
 * core's transmit). Returns when all its data is at the NIC. */
uint64_t nic_dma_read(struct sim *s, struct nic *n, uint64_t t, uint64_t addr, uint32_t bytes,
		      bool lookup)
{
	uint32_t mrrs = s->cfg->mrrs_bytes;
	struct sim_llc_range r = { 0 };
	uint64_t miss = 0, done = t;
	uint32_t missed_reqs = 0;

	if (lookup) { /* a request waits for DRAM when the read missed */
		for (uint32_t off = 0; off < bytes; off += mrrs) {
			uint32_t lines = r.lines, hits = r.hits;

			sim_llc_access_range(&s->mem.llc, s->cls_tx, SIM_LLC_RD, addr + off,
					     bytes - off < mrrs ? bytes - off : mrrs, &r);
			missed_reqs += r.lines - lines > r.hits - hits;
		}
		sim_dram_account(&s->mem.dram, t, (uint64_t)r.dram_rd * SIM_LLC_LINE, 0);
		miss = r.dram_rd ? sim_dram_latency_ps(&s->mem.dram) : 0;
	}
	for (uint32_t off = 0; off < bytes; off += mrrs) {
		uint32_t len = bytes - off < mrrs ? bytes - off : mrrs;
		uint64_t lat = s->c.rd_base + (uint64_t)((double)len * s->c.rd_per_byte + 0.5) +
			       miss;
		uint64_t tlp = tlp_bytes(s, len);
		uint64_t end = sim_dmaeng_request(&n->rd, t, lat, tlp);

		if (s->mem.warm) {
			n->reads++;
			n->read_ps += end - t;
			n->down_bytes += tlp;
			n->up_bytes += s->cfg->tlp_overhead_bytes; /* the read request */
		}
		if (end > done)
			done = end;
	}
	if (s->mem.warm) {
		n->pcie_lines += lookup ? r.lines : (bytes + SIM_LLC_LINE - 1) / SIM_LLC_LINE;
		n->pcie_missed += r.lines - r.hits;
		n->pcie_reqs += (bytes + mrrs - 1) / mrrs;
		n->pcie_reqs_missed += missed_reqs;
	}
	return done;
}

/* A completed delivery: the data and completion DMA writes through PCIe
 * and the LLC; returns when the completion is visible to the core. */
uint64_t dma_complete(struct sim *s, struct nic *n, uint64_t t, uint64_t addr, uint32_t dma,
		      const uint32_t *rings, unsigned nring, unsigned nc, uint64_t cq_base_override,
		      uint64_t *cq_counter)
{
	const struct sim_cfg *cfg = s->cfg;
	struct sim_llc_range r = { 0 };
	uint64_t wr_lines, up, start, vis, dlat;
	bool missed, ddio = cfg->scn.system.ddio_ways > 0;

	/* The frame's exact bytes: a first or last line it covers only in
	 * part is merged with the line's old contents, read from DRAM when no
	 * cache holds it (llc.h; r.partial_reads). */
	if (ddio) {
		sim_llc_dma_write_range(&s->mem.llc, n->cls_wr, addr, dma, &r);
		wr_lines = r.dram_wr;
		/* a line only snooped out of an L2 was written into the LLC: no DRAM */
		missed = r.hits + r.l2_snooped < r.lines;
	} else {
		wr_lines = sim_llc_dma_write_noalloc_range(&s->mem.llc, addr, dma, &r);
		missed = true;
	}
	for (unsigned j = 0; j < nc; j++) {
		uint64_t ca;

		if (cq_counter) {
			ca = cq_next(s, cq_base_override, cq_counter);
		} else {
			/* entries past the second are notices the NIC held for
			 * the notified ring (rxBisect), or with one ring its own */
			uint32_t ring = cq_ring(s, rings[j < nring ? j : nring - 1]);

			ca = cq_next(s, cq_ring_base(s, ring), &s->cq_w[ring]);
		}
		if (ddio)
			wr_lines += (sim_llc_access(&s->mem.llc, s->cls_cq, SIM_LLC_WR, ca) &
				     SIM_LLC_DRAM_WR) != 0;
		else
			wr_lines += sim_llc_dma_write_noalloc(&s->mem.llc, ca, cfg->cqe_bytes);
	}
	sim_dram_account(&s->mem.dram, t, (uint64_t)r.partial_reads * SIM_LLC_LINE,
			 wr_lines * SIM_LLC_LINE);
	dlat = sim_dram_latency_ps(&s->mem.dram);
	if (s->mem.warm)
		s->partial_reads += r.partial_reads;
	/* PCIe, NIC -> host: data and completion writes (the descriptor
	 * reads' requests and data: nic_dma_read). */
	up = tlp_data(s, dma) + nc * s->tlp_cqe;
	start = n->up_free > t ? n->up_free : t;
	if (up != s->up_memo) {
		s->up_memo = up;
		s->up_memo_ps = round_pos((double)up * s->c.pcie_ps_per_byte);
	}
	n->up_free = start + s->up_memo_ps;
	/* The completion is visible once the data and the completion have
	 * crossed PCIe and the DMA latency has passed; a write that missed the
	 * LLC (or any write with DDIO off) waits for DRAM as well. Posted
	 * writes are ordered, so completions of one NIC appear in order. */
	vis = n->up_free + s->c.dma_write + (missed ? dlat : 0);
	if (vis < n->last_vis)
		vis = n->last_vis;
	n->last_vis = vis;
	if (s->mem.warm) {
		uint64_t lines = ddio ? r.lines : (dma + SIM_LLC_LINE - 1) / SIM_LLC_LINE;
		uint64_t missed_lines = ddio ? r.lines - r.hits : lines;
		uint64_t tlps = (dma + cfg->mps_bytes - 1) / cfg->mps_bytes;

		n->up_bytes += up;
		n->pcie_lines += lines;
		n->pcie_missed += missed_lines;
		/* the frame's write TLPs, each missing as its lines do on
		 * average (one range lookup: its partial first and last lines
		 * are the frame's, not a TLP's), and the completions' (hits:
		 * the CQ ring stays cached, as the per-line figure counts it) */
		n->pcie_reqs += tlps + nc;
		n->pcie_reqs_missed += lines ? (tlps * missed_lines + lines / 2) / lines : 0;
	}
	s->cur.nic_wr += r.lines;
	s->cur.nic_hit += r.hits;
	return vis;
}

/* The packet is in buffer d->buf, its completion visible at vis: keep
 * what the core will need and wake the cores that poll its ring (and
 * rxBisect's notice ring). */
void deliver_done(struct sim *s, const struct rxb_delivery *d, uint64_t vis, uint64_t arr,
		  uint32_t flow, uint32_t order, uint32_t key, uint32_t len, uint8_t nic,
		  uint8_t cls, uint32_t dest)
{
	struct pinfo *pi = &s->pinfo[d->buf];

	pi->arr = arr;
	pi->vis = vis;
	pi->flow = flow;
	pi->order = order;
	pi->key = key;
	pi->dest = dest;
	pi->len = (uint16_t)len;
	pi->nic = nic;
	pi->cls = cls;
	wake(s, ring_core(s, d->ring), vis);
	if (d->notify_ring != RXB_NONE)
		wake(s, ring_core(s, d->notify_ring), vis);
}
