/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/engine_int.h — what the files of the simulator core share, and only
 * they: engine.c, nic.c, core.c, emu_model.c, hog.c, measure.c (which
 * mechanism lives where: the file table of docs/simulator.md). engine.h is
 * the core's face to main.c, report.c and the tests.
 *
 * The helpers a packet goes through several times from several files (a
 * memory access, the time rule's bookkeeping, completion-ring addresses,
 * PCIe byte counts, waking a core) are static inline here rather than
 * functions of one file, so the compiler still inlines them into the
 * per-packet path (docs/simulator.md §7: instructions per packet).
 */
#ifndef SIM_ENGINE_INT_H
#define SIM_ENGINE_INT_H

#include <stddef.h>

#include "engine.h"
#include "rxb/spool.h"

#define HUGE_ALIGN (2ull << 20)  /* regions of the address map: hugepages */
#define IVAL_SCRATCH 4096u       /* dyn_shring: intervals the overload rule expands */

/* A struct acc (nf.h) of the engine's own with cls == ACC_FIXED is a fixed
 * latency, not a line: addr holds the latency in ps. */
#define ACC_FIXED 255u

/* calloc that exits with RXB_EXIT_NOMEM (set-up only). */
void *sim_xcalloc(size_t n, size_t sz);

static inline uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

/* Schedule the event (type, arg): every source has one slot, holding at
 * most one pending event. */
static inline void push(struct sim *s, uint64_t t, uint32_t type, uint32_t arg)
{
	sim_evq_set(&s->evq, s->slot_base[type] + arg, t);
}

/* ------------------------------------------------------------ memory */

/* An access issued more than the horizon ahead of the event clock: the
 * time rule broken. Every step checks its start against the horizon
 * (docs/simulator.md §1.1), a network function's too (one dependent access
 * or one wave a step), so nothing should come here: counted for the tests
 * (lead_over and max_ahead_ps stay 0) and fatal in debug builds. Out of
 * line: the check costs the hot path one comparison. */
__attribute__((cold)) void sim_over_horizon(struct sim *s, uint64_t t);

/* Independent accesses, at most mlp outstanding: returns the stall (ps).
 * Wave by wave, each at the time it is issued (t, then t + the waves
 * before it): its traffic counts in the DRAM window of that time and its
 * misses see that window's latency. Out of line (engine.c): inlined into
 * the core's loop it cost more instructions per packet than the call. */
uint64_t sim_mem_par(struct sim *s, uint64_t t, uint32_t l2, const struct acc *a, unsigned n,
		     struct anat *an);

/* The anatomy (anatomy.h) of core k after the warm-up: ps charged to comp. */
static inline void an_charge(struct sim *s, struct core *k, unsigned comp, uint64_t ps)
{
	if (s->warm)
		k->an.ps[comp] += ps;
}

/* An access of comp served at level f (sim_llc_core_access's flags, or a
 * fixed latency: the LLC's level) in lat ps, after the warm-up. */
static inline void an_access(struct sim *s, struct anat *an, unsigned comp, uint32_t f,
			     bool fixed, uint64_t lat)
{
	unsigned lvl = fixed || (f & (SIM_LLC_HIT | SIM_LLC_L2)) == SIM_LLC_HIT ? AN_LLC :
		       f & SIM_LLC_L2 ? AN_L2 : AN_DRAM;

	if (!s->warm || an == NULL)
		return;
	an->n[comp]++;
	an->lvl[comp][lvl]++;
	an->lat_ps[comp] += lat;
}

/* The latency (ps) of a core access with outcome f (sim_llc_core_access)
 * while DRAM answers in dlat: L2 hit, LLC hit or the DRAM's; a miss counts
 * in the mean DRAM latency. Selects, not branches: the outcome is random. */
static inline uint64_t access_latency(struct sim *s, uint32_t f, uint64_t dlat)
{
	uint64_t miss = (f & SIM_LLC_HIT) ^ 1;

	s->dram_lat_sum += dlat & -miss;
	s->dram_lat_n += miss;
	return miss ? dlat : f & SIM_LLC_L2 ? s->c.l2_hit : s->c.llc_hit;
}

/* One access (a dependent step of a chain): its latency (ps), with its
 * DRAM traffic accounted at time t (sim_mem_par of one access). `l2` is
 * the accessor's L2 (the core's id; a hog's is ncores + its index): an L2
 * hit costs cpu.l2_latency_cycles and reaches neither the LLC nor DRAM,
 * a miss goes on as llc.h says (sim_llc_core_access). */
static inline uint64_t sim_mem_one(struct sim *s, uint64_t t, uint32_t l2, unsigned cls,
				   enum sim_llc_op op, uint64_t addr, struct anat *an, unsigned comp)
{
	uint64_t lat, dlat;
	uint32_t f;

	if (t > s->lim)
		sim_over_horizon(s, t);
	sim_dram_account(&s->dram, t, 0, 0); /* close finished windows first */
	dlat = sim_dram_latency_ps(&s->dram);
	f = sim_llc_core_access(&s->llc, l2, cls, op, addr);
	lat = access_latency(s, f, dlat);
	an_access(s, an, comp, f, false, lat);
	if (an && s->warm)
		an->ps[comp] += lat;
	/* Adding zero bytes to the window is a no-op (its windows are closed
	 * up to t already). */
	sim_dram_add(&s->dram, (f / SIM_LLC_DRAM_RD & 1) * SIM_LLC_LINE,
		     (f / SIM_LLC_DRAM_WR & 1) * SIM_LLC_LINE);
	return lat;
}

/* A core, hog or the emulator starts a step that touches a shared resource
 * (memory, a lock, the library's rings) at its local time t (for the
 * statistic max_lead_ps, taken when the event clock moves). */
static inline void sim_note_step(struct sim *s, uint64_t t)
{
	s->step_hi = t > s->step_hi ? t : s->step_hi;
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
	return SIM_OBJHDR_BYTES + align_up(SIM_MBUF_BYTES + s->priv_bytes +
					   (uint64_t)s->cfg->scn.arch.buffer_bytes, SIM_LLC_LINE);
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

/* The event clock moves to t: the lead of the steps made since it last
 * moved is known (max_lead_ps). Steps start at or after the event clock,
 * so step_hi >= now. */
static inline void set_now(struct sim *s, uint64_t t)
{
	uint64_t l = s->step_hi - s->now;

	s->max_lead_ps = l > s->max_lead_ps ? l : s->max_lead_ps;
	s->step_hi = t;
	s->now = t;
	s->lim = t + s->horizon_ps;
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

/* A delivery (or the coalescing timer) wakes a sleeping core at t. */
static inline void wake(struct sim *s, uint32_t c, uint64_t t)
{
	struct core *k = &s->core[c];

	if (k->state != CS_SLEEP)
		return;
	k->state = CS_SCHED;
	push(s, t > k->t ? t : k->t, EV_CORE, c);
}

/* Entries filled in reception ring r (a spool queue for spool). */
static inline uint32_t ring_occupancy(struct sim *s, uint32_t r)
{
	if (s->arch == RXB_ARCH_SPOOL)
		return rxb_spool_occupancy(rxb_iface_spool(s->ifc), r);
	return rxb_iface_occupancy(s->ifc, r);
}

/* ------------------------------------------- what each file offers */

/* nic.c: arrivals, steering, PCIe, DMA writes and their visibility */
int nic_setup(struct sim *s, struct rxb_err *err);
void nic_warm_flow_state(struct sim *s);
void nic_packet(struct sim *s, struct nic *n, const struct sim_pkt *p, uint64_t t);
int trace_next(struct sim *s, struct rxb_err *err);
uint64_t dest_fetched(struct sim *s, uint32_t dest);
uint64_t nic_dma_read(struct sim *s, struct nic *n, uint64_t t, uint64_t addr, uint32_t bytes,
		      bool lookup);
uint64_t dma_complete(struct sim *s, struct nic *n, uint64_t t, uint64_t addr, uint32_t dma,
		      const uint32_t *rings, unsigned nring, unsigned nc, uint64_t cq_base_override,
		      uint64_t *cq_counter);
void deliver_done(struct sim *s, const struct rxb_delivery *d, uint64_t vis, uint64_t arr,
		  uint32_t flow, uint32_t order, uint32_t key, uint32_t len, uint8_t nic, uint8_t cls,
		  uint32_t dest);

/* core.c: the cores' run-to-completion loop */
void core_setup(struct sim *s);
void core_charge_alloc(struct sim *s, struct core *k);

/* tx.c: the transmit path */
#define TX_FREE_THRESH 32u /* completions a core frees at once (DPDK's tx_free_thresh) */
#define SIM_WQE_BYTES 64u  /* one mlx5 send WQE for a one-segment packet (docs/workloads.md) */
void tx_setup(struct sim *s);
uint64_t tx_room_at(const struct core *k);
void tx_packet(struct sim *s, struct core *k, rxb_buf_t b, uint32_t q, uint32_t len,
	       uint8_t nic);
void tx_reap(struct sim *s, struct core *k, uint32_t min);
uint64_t ev_core(struct sim *s, struct core *k, uint64_t now);

/* emu_model.c: the simulator's model of the emulator (arch.emulated) */
uint64_t emumodel_setup(struct sim *s, uint64_t extra_base);
void emumodel_packet(struct sim *s, struct nic *n, const struct sim_pkt *p, uint64_t t,
		     uint32_t h, uint32_t fid, uint32_t order, uint32_t dest, bool cohort);
void ev_emucore(struct sim *s, uint64_t now);

/* hog.c: co-located memory hogs */
void hog_setup(struct sim *s, uint64_t *next);
void ev_hog(struct sim *s, uint32_t h, uint64_t now);

/* measure.c: periodic measurements, invariants, the measured interval */
void record_interval(struct core *k, uint64_t t);
void check_invariants(struct sim *s);
void snapshot_desc_waits(struct sim *s);
void ev_occ(struct sim *s, uint64_t now);
void ev_sample(struct sim *s, uint64_t now);
void ev_dyn(struct sim *s, uint64_t now);
void ev_tick(struct sim *s, uint64_t now);
void ev_warmup(struct sim *s);

#endif /* SIM_ENGINE_INT_H */
