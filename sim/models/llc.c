/* SPDX-License-Identifier: BSD-3-Clause
 * LLC model: see llc.h for the semantics. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cacheset.h"
#include "l2.h"
#include "llc.h"

#define TAG_NONE   CS_TAG_NONE
#define GROUP_NONE SIM_LLC_GROUP_NONE
#define RATE_ONE   SIM_LLC_RATE_ONE
#define HUGE_2M    ((size_t)2 << 20)

#define stratum_pick sim_llc__stratum_pick
#define chunk_group  sim_llc__chunk_group

/* Set record, 64 B aligned, in one of two fixed layouts (RP = 16 rank
 * slots for up to 16 ways, else 32):
 *   u8 sig[RP]    a hash of each way's tag: a lookup compares the
 *                 signatures of all ways at once and then the full tag of
 *                 the few ways that match;
 *   u8 rank[RP]   0 = MRU; the ranks of the ways are a permutation of
 *                 0..W−1, padding slots hold 255 so that they never move;
 *   u32 valid, u32 dirty   way masks;
 *   u64 tag[W].
 * 128 B for up to 11 ways (the reference LLC). The signature compare and
 * the LRU update work on one or two 16-byte vectors; with the offsets
 * constants, a record is addressed from one pointer. The owners (u8 per
 * way: the class that allocated the line) are a separate array, RP bytes
 * per record, read on evictions. */
#define REC_SIG(r)         ((uint8_t *)(r))
#define REC_RANK(r, wide)  ((uint8_t *)(r) + ((wide) ? 32 : 16))
#define REC_VALID(r, wide) ((uint32_t *)((uint8_t *)(r) + ((wide) ? 64 : 32)))
#define REC_DIRTY(r, wide) ((uint32_t *)((uint8_t *)(r) + ((wide) ? 68 : 36)))
#define REC_TAG_OFF(wide)  ((wide) ? 72u : 40u)
#define REC_TAG(r, wide)   ((uint64_t *)((uint8_t *)(r) + REC_TAG_OFF(wide)))

#define RANK_PAD CS_RANK_PAD

static inline size_t rec_index(uint32_t group, uint32_t pos)
{
	return (size_t)group * SIM_LLC_CHUNK_LINES + pos;
}

static inline uint8_t *rec_at(const struct sim_llc *llc, uint32_t group, uint32_t pos)
{
	return llc->sets + rec_index(group, pos) * llc->stride;
}

static inline uint8_t *own_at(const struct sim_llc *llc, uint32_t group, uint32_t pos)
{
	return llc->owners + rec_index(group, pos) * llc->rank_slots;
}

static uint32_t log2u(uint32_t v)
{
	uint32_t b = 0;

	while ((1u << b) < v)
		b++;
	return b;
}

/* The set operations of cacheset.h on an LLC set record. */
#define tag_sig cs_sig
#define touch   cs_touch

static inline __attribute__((always_inline)) uint32_t match(const uint8_t *rec, int wide,
							    uint32_t way_bits, uint64_t line)
{
	return cs_match(REC_SIG(rec), REC_TAG(rec, wide), wide, way_bits, line);
}

static inline __attribute__((always_inline)) uint32_t pick_victim(const struct sim_llc *llc,
								  const uint8_t *rec, int wide,
								  uint32_t mask)
{
	return cs_victim(REC_RANK(rec, wide), *REC_VALID(rec, wide), wide, llc->ways, mask);
}

/* The state an access to simulated sets works on, copied into locals for
 * the duration of one access or range (so that the compiler keeps it in
 * registers across the byte stores into set records, which may alias
 * anything) and written back at the end. */
struct actx {
	struct sim_llc *llc;
	struct sim_llc_lane *L;
	struct sim_l2 *snoop; /* an I/O class's L2 snoops (NULL: none) */
	uint32_t way_bits, mask, rate_shift;
	uint32_t pmask;    /* DMA writes of lines an L2 held: the DDIO+ ways */
	uint64_t rate_lim; /* 2^rate_shift: observations before the EMA */
	int64_t rate_bias; /* 2^rate_shift − 1 */
	uint8_t cid, io, allocs, reads;
	int64_t p_hit, p_wb, p_hwb, p_l2, p_snp, p_prd;
	uint64_t n_hit, n_wb, n_hwb, n_l2, n_snp, n_prd;
	uint64_t s_acc, s_hits, s_rd, s_wr, s_prd;
	uint32_t snooped; /* I/O writes that invalidated an L2 copy */
};

static inline __attribute__((always_inline)) void actx_load(struct actx *x, struct sim_llc *llc,
							    unsigned cls, enum sim_llc_op op)
{
	struct sim_llc_class *c = &llc->cls[cls];
	struct sim_llc_lane *L = &c->l[op];

	x->llc = llc;
	x->L = L;
	x->snoop = c->io ? llc->l2 : NULL;
	x->way_bits = llc->way_bits;
	x->mask = c->mask;
	x->pmask = llc->plus_mask ? llc->plus_mask : c->mask;
	x->rate_shift = llc->rate_shift;
	x->rate_lim = 1ull << llc->rate_shift;
	x->rate_bias = (int64_t)x->rate_lim - 1;
	x->cid = (uint8_t)cls;
	x->io = c->io;
	x->allocs = L->allocates;
	x->reads = L->reads_dram;
	x->p_hit = L->p_hit;
	x->p_wb = L->p_wb;
	x->p_hwb = L->p_hwb;
	x->p_l2 = L->p_l2;
	x->p_snp = L->p_snp;
	x->n_snp = L->n_snp;
	x->p_prd = L->p_prd;
	x->n_prd = L->n_prd;
	x->n_hit = L->n_hit;
	x->n_wb = L->n_wb;
	x->n_hwb = L->n_hwb;
	x->n_l2 = L->n_l2;
	x->s_acc = x->s_hits = x->s_rd = x->s_wr = x->s_prd = 0;
	x->snooped = 0;
}

static inline __attribute__((always_inline)) void actx_store(const struct actx *x)
{
	struct sim_llc_lane *L = x->L;

	L->p_hit = x->p_hit;
	L->p_wb = x->p_wb;
	L->p_hwb = x->p_hwb;
	L->p_l2 = x->p_l2;
	L->p_snp = x->p_snp;
	L->n_snp = x->n_snp;
	L->p_prd = x->p_prd;
	L->n_prd = x->n_prd;
	L->n_hit = x->n_hit;
	L->n_wb = x->n_wb;
	L->n_hwb = x->n_hwb;
	L->n_l2 = x->n_l2;
	L->c.s_accesses += x->s_acc;
	L->c.s_hits += x->s_hits;
	L->c.s_dram_rd += x->s_rd;
	L->c.s_dram_wr += x->s_wr;
	L->c.s_prd += x->s_prd;
}

/* Observe outcome v (0/1) in the rate *p (Q30) with *n observations so
 * far: a running mean until 2^rate_shift observations, then an exponential
 * moving average with the same weight (no start-up bias from an arbitrary
 * initial value). */
static inline __attribute__((always_inline)) void rate_upd(const struct actx *x, int64_t *p,
							   uint64_t *n, uint32_t v)
{
	int64_t target = v ? RATE_ONE : 0;

	if (*n < x->rate_lim) {
		(*n)++;
		*p += (target - *p) / (int64_t)*n;
	} else {
		/* A shift, not a division by the run-time 2^shift (an idiv
		 * costs ~40 cycles), rounding toward zero as the division
		 * would: a negative d is biased by 2^shift − 1 first. No
		 * branch on the sign, which follows the random outcome. */
		int64_t d = target - *p;

		*p += (d + ((d >> 63) & x->rate_bias)) >> x->rate_shift;
	}
}

/* The snoop of an I/O access to a line some core's L2 may hold (the
 * non-inclusive hierarchy: the LLC alone does not know). A DMA write
 * invalidates every L2 copy — a dirty one's data is overwritten, or merged
 * on chip for a partial line — and is then the LLC write it is: write
 * update, or (access_sim) write allocate into the DDIO+ ways. A DMA read is
 * served by the L2 that holds the line: 1, counted as a hit (the NIC reads
 * on-chip data, no DRAM). */
static inline __attribute__((always_inline)) int snoop_io(struct actx *x, enum sim_llc_op op,
							  uint64_t line)
{
	int held = sim_l2_others(x->snoop, line, SIM_L2_NONE) != 0;

	if (op == SIM_LLC_RD)
		return held;
	/* counted for the range (l2_snooped) and, as P(held | miss), for
	 * drawn ranges: a line an L2 holds is not in the LLC, a miss */
	if (held) {
		sim_l2_invalidate_line(x->snoop, line, SIM_L2_NONE);
		x->snooped++;
	}
	return 0;
}

/* Access a line of a simulated set (its record at rec, owners at owner).
 * partial: an I/O write covering only part of the line (the callers that
 * never pass one give a constant 0, and its code folds away). */
static inline __attribute__((always_inline)) uint32_t access_sim(struct actx *x, enum sim_llc_op op,
								 uint8_t *rec, uint8_t *owner,
								 int wide, uint64_t line,
								 int partial)
{
	struct sim_llc *llc = x->llc;
	uint32_t *valid = REC_VALID(rec, wide), *dirty = REC_DIRTY(rec, wide);
	uint32_t flags = SIM_LLC_SAMPLED, w, hit, snooped0 = x->snooped, mask = x->mask;

	x->s_acc++;
	if (x->snoop && snoop_io(x, op, line)) { /* a DMA read served by an L2 */
		x->s_hits++;
		rate_upd(x, &x->p_hit, &x->n_hit, 1);
		return flags | SIM_LLC_HIT;
	}
	hit = match(rec, wide, x->way_bits, line);
	if (x->snoop && op == SIM_LLC_WR && !hit) {
		uint32_t held = x->snooped != snooped0;

		rate_upd(x, &x->p_snp, &x->n_snp, held);
		/* Double Trouble: a device write of a line an L2 held goes
		 * to the DDIO+ ways, not the DDIO ways */
		mask = held ? x->pmask : mask;
	}
	if (hit) {
		w = (uint32_t)__builtin_ctz(hit);
		touch(REC_RANK(rec, wide), wide, w);
		if (op == SIM_LLC_WR)
			*dirty |= hit;
		x->s_hits++;
		rate_upd(x, &x->p_hit, &x->n_hit, 1);
		if (partial) /* merged in place */
			rate_upd(x, &x->p_prd, &x->n_prd, 0);
		return flags | SIM_LLC_HIT;
	}
	rate_upd(x, &x->p_hit, &x->n_hit, 0);
	if (x->reads) {
		flags |= SIM_LLC_DRAM_RD;
		x->s_rd++;
	} else if (partial) {
		/* read-modify-write, unless an L2's copy (on chip) was merged */
		uint32_t rd = x->snooped == snooped0;

		rate_upd(x, &x->p_prd, &x->n_prd, rd);
		flags |= rd * SIM_LLC_DRAM_RD;
		x->s_rd += rd;
		x->s_prd += rd;
	}
	if (!x->allocs)
		return flags;

	w = pick_victim(llc, rec, wide, mask);
	if (*valid >> w & 1) {
		uint32_t wb = (*dirty >> w) & 1;

		llc->lines[owner[w]]--;
		flags |= wb * SIM_LLC_DRAM_WR;
		x->s_wr += wb;
		rate_upd(x, &x->p_wb, &x->n_wb, wb);
	} else {
		rate_upd(x, &x->p_wb, &x->n_wb, 0);
	}
	REC_TAG(rec, wide)[w] = line;
	REC_SIG(rec)[w] = tag_sig(line);
	owner[w] = x->cid;
	*valid |= 1u << w;
	if (op == SIM_LLC_WR)
		*dirty |= 1u << w;
	else
		*dirty &= ~(1u << w);
	touch(REC_RANK(rec, wide), wide, w);
	llc->lines[x->cid]++;
	return flags;
}

/* ------------------------------------ a core's access through its L2 */

/* Take `line` out of the LLC for a core's L2 (non-inclusive: it leaves the
 * LLC, from whatever way, DDIO ways included). 1 and *dirty its state when
 * it was there. */
static int take_sim(struct sim_llc *llc, uint32_t group, uint64_t line, int *dirty)
{
	int wide = llc->rank_slots > 16;
	uint32_t pos = (uint32_t)line & (SIM_LLC_CHUNK_LINES - 1);
	uint8_t *rec = rec_at(llc, group, pos);
	uint32_t hit = match(rec, wide, llc->way_bits, line), w;

	if (!hit)
		return 0;
	w = (uint32_t)__builtin_ctz(hit);
	*dirty = (int)(*REC_DIRTY(rec, wide) >> w & 1);
	llc->lines[own_at(llc, group, pos)[w]]--;
	*REC_VALID(rec, wide) &= ~hit;
	*REC_DIRTY(rec, wide) &= ~hit;
	REC_TAG(rec, wide)[w] = TAG_NONE;
	return 1;
}

/* A line an L2 evicted comes back into the LLC, into the LRU way of the
 * mask of the class it came through (CAT keeps applying), dirty if it was;
 * a copy already there is updated. 1 when a dirty LLC line was written back
 * to make room. */
static int insert_sim(struct sim_llc *llc, uint64_t line, unsigned cls, int dirty)
{
	int wide = llc->rank_slots > 16;
	uint32_t g = chunk_group(llc, line / SIM_LLC_CHUNK_LINES);
	uint32_t pos = (uint32_t)line & (SIM_LLC_CHUNK_LINES - 1), w, hit, wb = 0;
	uint8_t *rec, *own;

	if (g == GROUP_NONE) /* cannot be: an L2 holds simulated lines only */
		return 0;
	rec = rec_at(llc, g, pos);
	own = own_at(llc, g, pos);
	hit = match(rec, wide, llc->way_bits, line);
	if (hit) {
		w = (uint32_t)__builtin_ctz(hit);
	} else {
		w = pick_victim(llc, rec, wide, llc->cls[cls].mask);
		if (*REC_VALID(rec, wide) >> w & 1) {
			wb = *REC_DIRTY(rec, wide) >> w & 1;
			llc->lines[own[w]]--;
		}
		REC_TAG(rec, wide)[w] = line;
		REC_SIG(rec)[w] = tag_sig(line);
		own[w] = (uint8_t)cls;
		*REC_VALID(rec, wide) |= 1u << w;
		*REC_DIRTY(rec, wide) &= ~(1u << w);
		llc->lines[cls]++;
	}
	*REC_DIRTY(rec, wide) |= (uint32_t)(dirty != 0) << w;
	touch(REC_RANK(rec, wide), wide, w);
	return (int)wb;
}

/* A core's access to a line of a simulated set (docs/simulator-models.md
 * §4.6): its L2; on a miss another core's L2 (a cache-to-cache transfer,
 * served at about an LLC hit), else the LLC (the line moves out of it) or
 * DRAM; the line goes into the L2, whose victim goes back to the LLC. The
 * class's rates (P(L2 hit), P(LLC hit | L2 miss), P(write-back)) learn
 * from here for the sets that are not simulated. */
uint32_t sim_llc__core_sampled(struct sim_llc *llc, uint32_t id, unsigned cls, enum sim_llc_op op,
			       uint32_t group, uint64_t line)
{
	struct sim_l2 *l2 = llc->l2;
	uint32_t flags = SIM_LLC_SAMPLED;
	struct sim_l2_victim v;
	struct actx x;
	int dirty = 0, hit;

	actx_load(&x, llc, cls, op);
	x.L->c.s_l2acc++;
	if (sim_l2_lookup(l2, id, line, op == SIM_LLC_WR)) {
		/* a write to a line other cores read too takes it from them */
		if (op == SIM_LLC_WR && sim_l2_others(l2, line, id))
			sim_l2_invalidate_line(l2, line, id);
		x.L->c.s_l2hits++;
		rate_upd(&x, &x.p_l2, &x.n_l2, 1);
		actx_store(&x);
		return flags | SIM_LLC_HIT | SIM_LLC_L2;
	}
	rate_upd(&x, &x.p_l2, &x.n_l2, 0);
	x.L->c.accesses++;
	x.s_acc++;
	if (sim_l2_others(l2, line, id)) {
		/* in another core's L2: forwarded; a write takes every copy
		 * (and its dirty data: the line is written anyway) */
		if (op == SIM_LLC_WR)
			sim_l2_invalidate_line(l2, line, id);
		l2->transfers++;
		hit = 1;
	} else {
		hit = take_sim(llc, group, line, &dirty);
	}
	if (hit) {
		flags |= SIM_LLC_HIT;
		x.s_hits++;
	} else {
		flags |= SIM_LLC_DRAM_RD; /* a read, or a write's read-for-ownership */
		x.s_rd++;
	}
	rate_upd(&x, &x.p_hit, &x.n_hit, (uint32_t)hit);
	sim_l2_fill(l2, id, line, (uint8_t)cls, dirty | (op == SIM_LLC_WR), &v);
	/* The victim returns to the LLC, unless it is clean and another L2
	 * still has it (that copy will come back when it is evicted). */
	if (v.valid && (v.dirty || !v.shared) && insert_sim(llc, v.line, v.cls, v.dirty)) {
		flags |= SIM_LLC_DRAM_WR;
		x.s_wr++;
	}
	if (hit)
		rate_upd(&x, &x.p_hwb, &x.n_hwb, (flags & SIM_LLC_DRAM_WR) != 0);
	else
		rate_upd(&x, &x.p_wb, &x.n_wb, (flags & SIM_LLC_DRAM_WR) != 0);
	actx_store(&x);
	return flags;
}

void sim_llc_attach_l2(struct sim_llc *llc, struct sim_l2 *l2)
{
	llc->l2 = l2;
}

void sim_llc__refill(struct sim_llc *llc)
{
	for (uint32_t i = 0; i < SIM_LLC_RBUF; i += 2) {
		uint64_t r = sim_rng_next(&llc->rng);

		llc->rbuf[i] = (uint32_t)r;
		llc->rbuf[i + 1] = (uint32_t)(r >> 32);
	}
	llc->rbuf_pos = 0;
}

static inline __attribute__((always_inline)) uint32_t access_one(struct sim_llc *llc, unsigned cls,
								 enum sim_llc_op op, int wide,
								 uint32_t group, uint64_t line)
{
	uint32_t pos = (uint32_t)line & (SIM_LLC_CHUNK_LINES - 1), f;
	struct actx x;

	actx_load(&x, llc, cls, op);
	f = access_sim(&x, op, rec_at(llc, group, pos), own_at(llc, group, pos), wide, line, 0);
	actx_store(&x);
	return f;
}

uint32_t sim_llc__access_sampled(struct sim_llc *llc, unsigned cls, enum sim_llc_op op,
				 uint32_t group, uint64_t line)
{
	int wide = llc->rank_slots > 16;

	if (op == SIM_LLC_WR && !wide)
		return access_one(llc, cls, SIM_LLC_WR, 0, group, line);
	if (!wide)
		return access_one(llc, cls, SIM_LLC_RD, 0, group, line);
	if (op == SIM_LLC_WR)
		return access_one(llc, cls, SIM_LLC_WR, 1, group, line);
	return access_one(llc, cls, SIM_LLC_RD, 1, group, line);
}

/* The lines of one chunk in a simulated group, for an op, layout and
 * partial-line handling known at compile time (the tests on them then fold
 * away); with part, lines pf and pl are partial writes. */
static inline __attribute__((always_inline)) void range_sampled(
	struct sim_llc *llc, unsigned cls, enum sim_llc_op op, int wide, uint32_t group,
	uint64_t line, uint64_t end, int part, uint64_t pf, uint64_t pl, struct sim_llc_range *out)
{
	uint32_t pos = (uint32_t)line & (SIM_LLC_CHUNK_LINES - 1);
	uint8_t *rec = rec_at(llc, group, pos), *own = own_at(llc, group, pos);
	uint32_t hits = 0, rd = 0, wr = 0, stride = llc->stride;
	struct actx x;

	actx_load(&x, llc, cls, op);
	/* Consecutive lines of a chunk are consecutive sets of its group. */
	for (; line <= end; line++, rec += stride, own += wide ? 32 : 16) {
		uint32_t f = access_sim(&x, op, rec, own, wide, line,
					part && (line == pf || line == pl));

		hits += f & SIM_LLC_HIT;
		rd += (f / SIM_LLC_DRAM_RD) & 1;
		wr += (f / SIM_LLC_DRAM_WR) & 1;
	}
	actx_store(&x);
	out->hits += hits;
	out->dram_rd += rd;
	out->dram_wr += wr;
	out->l2_snooped += x.snooped;
	if (part)
		out->partial_reads += (uint32_t)x.s_prd;
}

void sim_llc__range_sampled(struct sim_llc *llc, unsigned cls, enum sim_llc_op op, uint32_t group,
			    uint64_t line, uint64_t end, struct sim_llc_range *out)
{
	int wide = llc->rank_slots > 16;

	if (op == SIM_LLC_WR && !wide)
		range_sampled(llc, cls, SIM_LLC_WR, 0, group, line, end, 0, 0, 0, out);
	else if (!wide)
		range_sampled(llc, cls, SIM_LLC_RD, 0, group, line, end, 0, 0, 0, out);
	else if (op == SIM_LLC_WR)
		range_sampled(llc, cls, SIM_LLC_WR, 1, group, line, end, 0, 0, 0, out);
	else
		range_sampled(llc, cls, SIM_LLC_RD, 1, group, line, end, 0, 0, 0, out);
}

void sim_llc__range_sampled_part(struct sim_llc *llc, unsigned cls, uint32_t group, uint64_t line,
				 uint64_t end, uint64_t pf, uint64_t pl, struct sim_llc_range *out)
{
	if (llc->rank_slots > 16)
		range_sampled(llc, cls, SIM_LLC_WR, 1, group, line, end, 1, pf, pl, out);
	else
		range_sampled(llc, cls, SIM_LLC_WR, 0, group, line, end, 1, pf, pl, out);
}

uint32_t sim_llc_dma_write_noalloc(struct sim_llc *llc, uint64_t addr, uint64_t len)
{
	uint64_t line, last;
	int wide = llc->rank_slots > 16;

	if (len == 0)
		return 0;
	line = addr >> SIM_LLC_LINE_SHIFT;
	last = (addr + len - 1) >> SIM_LLC_LINE_SHIFT;
	for (uint64_t l = line; l <= last; l++) {
		uint32_t g = chunk_group(llc, l / SIM_LLC_CHUNK_LINES);
		uint8_t *rec;
		uint32_t hit;

		if (g == GROUP_NONE) {
			/* The rest of this chunk is not simulated either. */
			l |= SIM_LLC_CHUNK_LINES - 1;
			continue;
		}
		if (llc->l2) { /* an L2 copy is stale too */
			sim_l2_invalidate_line(llc->l2, l, SIM_L2_NONE);
		}
		rec = rec_at(llc, g, (uint32_t)l & (SIM_LLC_CHUNK_LINES - 1));
		hit = match(rec, wide, llc->way_bits, l);
		if (hit) {
			uint32_t w = (uint32_t)__builtin_ctz(hit);

			llc->lines[own_at(llc, g, (uint32_t)l & (SIM_LLC_CHUNK_LINES - 1))[w]]--;
			*REC_VALID(rec, wide) &= ~hit;
			*REC_DIRTY(rec, wide) &= ~hit;
			REC_TAG(rec, wide)[w] = TAG_NONE;
		}
	}
	return (uint32_t)(last - line + 1);
}

uint32_t sim_llc_dma_write_noalloc_range(struct sim_llc *llc, uint64_t addr, uint64_t len,
					 struct sim_llc_range *out)
{
	uint32_t n = sim_llc_dma_write_noalloc(llc, addr, len);
	uint32_t np = sim_llc_partial_lines(addr, len);

	out->lines += n;
	out->dram_wr += n;
	out->dram_rd += np;
	out->partial_reads += np;
	return n;
}

int sim_llc_probe_way(const struct sim_llc *llc, uint64_t addr)
{
	uint64_t line = addr >> SIM_LLC_LINE_SHIFT;
	uint32_t g = chunk_group(llc, line / SIM_LLC_CHUNK_LINES), hit;

	if (g == GROUP_NONE)
		return -2;
	hit = match(rec_at(llc, g, (uint32_t)line & (SIM_LLC_CHUNK_LINES - 1)),
		    llc->rank_slots > 16, llc->way_bits, line);
	return hit ? __builtin_ctz(hit) : -1;
}

int sim_llc_probe(const struct sim_llc *llc, uint64_t addr)
{
	int w = sim_llc_probe_way(llc, addr);

	return w == -2 ? -1 : w >= 0;
}

void sim_llc_cfg_reference(struct sim_llc_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->size_bytes = 22ull << 20;
	cfg->ways = 11;
	cfg->index = SIM_LLC_INDEX_HASH;
	cfg->sample_shift = 4;
	cfg->rate_window_shift = 10;
	cfg->seed = 1;
	/* Double Trouble (Purnal et al., USENIX Security 2022, Sec. 5): the
	 * DDIO+ region is ways 0-1 (mask 0x003) with DDIO at 0x600 */
	cfg->ddio_plus_mask = sim_llc_ways(0, 2);
}

void sim_llc_invalidate(struct sim_llc *llc)
{
	uint32_t nrec = llc->sgroups * SIM_LLC_CHUNK_LINES;
	int wide = llc->rank_slots > 16;

	for (uint32_t i = 0; i < nrec; i++) {
		uint8_t *rec = rec_at(llc, i / SIM_LLC_CHUNK_LINES, i % SIM_LLC_CHUNK_LINES);
		uint8_t *own = own_at(llc, i / SIM_LLC_CHUNK_LINES, i % SIM_LLC_CHUNK_LINES);

		*REC_VALID(rec, wide) = 0;
		*REC_DIRTY(rec, wide) = 0;
		for (uint32_t w = 0; w < llc->rank_slots; w++) {
			REC_RANK(rec, wide)[w] = w < llc->ways ? (uint8_t)w : RANK_PAD;
			REC_SIG(rec)[w] = 0;
			own[w] = 0;
		}
		for (uint32_t w = 0; w < llc->ways; w++)
			REC_TAG(rec, wide)[w] = TAG_NONE;
	}
	for (uint32_t c = 0; c < llc->nclasses; c++)
		llc->lines[c] = 0;
}

/* The configuration's checks: 0 with its set count in *nsets, or -EINVAL
 * with a message naming the key. */
static int llc_cfg_check(const struct sim_llc_cfg *cfg, uint64_t *nsets_out, struct rxb_err *err)
{
	uint32_t rate_shift = cfg->rate_window_shift ? cfg->rate_window_shift : 10;
	uint64_t set_bytes = (uint64_t)SIM_LLC_LINE * cfg->ways, nsets;
	uint32_t ngroups;

	if (cfg->ways < 1 || cfg->ways > SIM_LLC_MAX_WAYS) {
		rxb_err_set(err, "llc.ways = %u: must be in [1, %u]", cfg->ways, SIM_LLC_MAX_WAYS);
		return -EINVAL;
	}
	nsets = cfg->size_bytes / set_bytes;
	if (cfg->size_bytes == 0 || cfg->size_bytes % (set_bytes * SIM_LLC_CHUNK_LINES) != 0 ||
	    nsets > (1ull << 31)) {
		rxb_err_set(err,
			    "llc.size_bytes = %llu: must be a non-zero multiple of %llu "
			    "(64 B lines x %u ways x %u sets per group), at most 2^31 sets",
			    (unsigned long long)cfg->size_bytes,
			    (unsigned long long)(set_bytes * SIM_LLC_CHUNK_LINES), cfg->ways,
			    SIM_LLC_CHUNK_LINES);
		return -EINVAL;
	}
	if (cfg->index != SIM_LLC_INDEX_HASH && cfg->index != SIM_LLC_INDEX_BITS) {
		rxb_err_set(err, "llc.index = %d: must be hash (0) or bits (1)", (int)cfg->index);
		return -EINVAL;
	}
	if (cfg->index == SIM_LLC_INDEX_BITS && !rxb_is_pow2((uint32_t)nsets)) {
		rxb_err_set(err,
			    "llc.index = bits needs a power-of-two set count; llc.size_bytes = "
			    "%llu with %u ways gives %llu sets",
			    (unsigned long long)cfg->size_bytes, cfg->ways,
			    (unsigned long long)nsets);
		return -EINVAL;
	}
	ngroups = (uint32_t)(nsets / SIM_LLC_CHUNK_LINES);
	if (cfg->sample_shift > 16 || (ngroups >> cfg->sample_shift) == 0) {
		rxb_err_set(err,
			    "llc.sample_shift = %u: must leave at least one group of %u sets "
			    "(this cache has %u groups, so at most %u)",
			    cfg->sample_shift, SIM_LLC_CHUNK_LINES, ngroups,
			    log2u(ngroups + 1) - 1);
		return -EINVAL;
	}
	if (rate_shift > 24) {
		rxb_err_set(err, "llc.rate_window_shift = %u: must be in [1, 24] (0 = default 10)",
			    cfg->rate_window_shift);
		return -EINVAL;
	}
	if (cfg->ddio_plus_mask & ~sim_llc_ways(0, cfg->ways)) {
		rxb_err_set(err,
			    "llc.ddio_plus_mask = 0x%x: must be within the %u ways (0x%x), or 0 "
			    "(DMA writes of lines an L2 holds use the I/O class's ways)",
			    cfg->ddio_plus_mask, cfg->ways, sim_llc_ways(0, cfg->ways));
		return -EINVAL;
	}
	*nsets_out = nsets;
	return 0;
}

/* The block memo and the group -> record map. */
static int llc_alloc_maps(struct sim_llc *llc, const struct sim_llc_cfg *cfg, struct rxb_err *err)
{
	llc->bmemo = malloc(SIM_LLC_BMEMO * sizeof(*llc->bmemo));
	if (llc->bmemo == NULL) {
		rxb_err_set(err, "llc: out of memory");
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < SIM_LLC_BMEMO; i++) {
		llc->bmemo[i].block = UINT64_MAX;
		llc->bmemo[i].off = 0;
	}
	if (llc->ngroups <= (1u << 20)) {
		/* group -> record: the sampling decision as one load */
		llc->gmap = malloc((size_t)llc->ngroups * sizeof(*llc->gmap));
		if (llc->gmap == NULL) {
			sim_llc_free(llc);
			rxb_err_set(err, "llc: out of memory for %u set groups", llc->ngroups);
			return -ENOMEM;
		}
		for (uint32_t g = 0; g < llc->ngroups; g++) {
			uint32_t st = g >> cfg->sample_shift;

			llc->gmap[g] = cfg->sample_shift == 0 ? g
				       : (g & ((1u << cfg->sample_shift) - 1)) ==
						       stratum_pick(llc, st)
					       ? st
					       : GROUP_NONE;
		}
	}
	return 0;
}

/* The simulated sets' records and their owners. */
static int llc_alloc_sets(struct sim_llc *llc, struct rxb_err *err)
{
	size_t bytes;

	/* Set records are read at random: back them with transparent huge
	 * pages where the kernel allows (madvise mode), so that a record
	 * access is not also a TLB miss. */
	bytes = (size_t)llc->sgroups * SIM_LLC_CHUNK_LINES * llc->stride;
	bytes = (bytes + HUGE_2M - 1) & ~(HUGE_2M - 1);
	llc->sets = aligned_alloc(HUGE_2M, bytes);
#ifdef MADV_HUGEPAGE
	if (llc->sets)
		madvise(llc->sets, bytes, MADV_HUGEPAGE); /* advice only: failure is fine */
#endif
	llc->owners = malloc((size_t)llc->sgroups * SIM_LLC_CHUNK_LINES * llc->rank_slots);
	if (llc->sets == NULL || llc->owners == NULL) {
		sim_llc_free(llc);
		rxb_err_set(err, "llc: out of memory for %u simulated sets",
			    llc->sgroups * SIM_LLC_CHUNK_LINES);
		return -ENOMEM;
	}
	return 0;
}

int sim_llc_init(struct sim_llc *llc, const struct sim_llc_cfg *cfg, struct rxb_err *err)
{
	uint32_t rate_shift = cfg->rate_window_shift ? cfg->rate_window_shift : 10;
	uint64_t nsets;
	int rc;

	memset(llc, 0, sizeof(*llc));
	rc = llc_cfg_check(cfg, &nsets, err);
	if (rc)
		return rc;
	llc->ngroups = (uint32_t)(nsets / SIM_LLC_CHUNK_LINES);
	/* floor(log2(ngroups)): blocks never hold more chunks than groups. */
	llc->block_bits = 31 - (uint32_t)__builtin_clz(llc->ngroups);
	llc->ways = cfg->ways;
	llc->plus_mask = cfg->ddio_plus_mask;
	llc->nsets = (uint32_t)nsets;
	llc->sample_shift = cfg->sample_shift;
	llc->sgroups = (llc->ngroups + (1u << cfg->sample_shift) - 1) >> cfg->sample_shift;
	/* A last, partial stratum may pick a group that does not exist. */
	llc->nsampled = llc->sgroups;
	if (cfg->sample_shift &&
	    ((llc->sgroups - 1) << cfg->sample_shift) + stratum_pick(llc, llc->sgroups - 1) >=
		    llc->ngroups)
		llc->nsampled--;
	llc->block_mask = (1ull << llc->block_bits) - 1;
	rc = llc_alloc_maps(llc, cfg, err);
	if (rc)
		return rc;
	llc->rate_shift = rate_shift;
	llc->index = cfg->index;
	llc->size_bytes = cfg->size_bytes;
	llc->rank_slots = cfg->ways <= 16 ? 16 : 32;
	llc->way_bits = sim_llc_ways(0, cfg->ways);
	llc->tag_off = REC_TAG_OFF(llc->rank_slots > 16);
	llc->stride = (llc->tag_off + 8 * cfg->ways + 63) & ~63u;
	rc = llc_alloc_sets(llc, err);
	if (rc)
		return rc;
	sim_rng_seed(&llc->rng, cfg->seed, 0x11c);
	llc->rbuf_pos = SIM_LLC_RBUF; /* drawn at the first use */
	sim_llc_invalidate(llc);
	return 0;
}

void sim_llc_free(struct sim_llc *llc)
{
	free(llc->sets);
	free(llc->owners);
	free(llc->gmap);
	free(llc->bmemo);
	llc->sets = llc->owners = NULL;
	llc->gmap = NULL;
	llc->bmemo = NULL;
}

static int check_mask(const struct sim_llc *llc, const char *name, uint32_t mask,
		      struct rxb_err *err)
{
	uint32_t all = sim_llc_ways(0, llc->ways);

	if (mask == 0 || (mask & ~all)) {
		rxb_err_set(err, "llc class '%s': way_mask = 0x%x: must be non-zero within 0x%x",
			    name, mask, all);
		return -EINVAL;
	}
	return 0;
}

int sim_llc_add_class(struct sim_llc *llc, const char *name, uint32_t way_mask, int io,
		      struct rxb_err *err)
{
	struct sim_llc_class *c;
	int rc;

	if (llc->nclasses >= SIM_LLC_MAX_CLASSES) {
		rxb_err_set(err, "llc class '%s': too many classes (at most %u)", name,
			    SIM_LLC_MAX_CLASSES);
		return -ENOSPC;
	}
	rc = check_mask(llc, name, way_mask, err);
	if (rc)
		return rc;
	c = &llc->cls[llc->nclasses];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->mask = way_mask;
	c->io = io ? 1 : 0;
	llc->lines[llc->nclasses] = 0;
	for (unsigned op = 0; op < SIM_LLC_OPS; op++) {
		c->l[op].allocates = !(c->io && op == SIM_LLC_RD);
		c->l[op].reads_dram = !(c->io && op == SIM_LLC_WR);
	}
	return (int)llc->nclasses++;
}

int sim_llc_set_mask(struct sim_llc *llc, unsigned cls, uint32_t way_mask, struct rxb_err *err)
{
	int rc;

	if (cls >= llc->nclasses) {
		rxb_err_set(err, "llc class = %u: only %u classes exist", cls, llc->nclasses);
		return -EINVAL;
	}
	rc = check_mask(llc, llc->cls[cls].name, way_mask, err);
	if (rc)
		return rc;
	llc->cls[cls].mask = way_mask;
	return 0;
}

/* The counters of class cls summed over op (SIM_LLC_OPS: both); false
 * for a class that does not exist. */
static bool sum_counts(const struct sim_llc *llc, unsigned cls, enum sim_llc_op op,
		       struct sim_llc_counts *sum)
{
	unsigned lo = op == SIM_LLC_OPS ? 0 : op, hi = op == SIM_LLC_OPS ? SIM_LLC_OPS : op + 1;

	memset(sum, 0, sizeof(*sum));
	if (cls >= llc->nclasses)
		return false;
	for (unsigned o = lo; o < hi; o++) {
		const struct sim_llc_counts *k = &llc->cls[cls].l[o].c;

		sum->accesses += k->accesses;
		sum->s_accesses += k->s_accesses;
		sum->s_hits += k->s_hits;
		sum->s_dram_rd += k->s_dram_rd;
		sum->s_dram_wr += k->s_dram_wr;
		sum->d_hits += k->d_hits;
		sum->d_dram_rd += k->d_dram_rd;
		sum->d_dram_wr += k->d_dram_wr;
		sum->l2_accesses += k->l2_accesses;
		sum->s_l2acc += k->s_l2acc;
		sum->s_l2hits += k->s_l2hits;
		sum->d_l2hits += k->d_l2hits;
		sum->s_prd += k->s_prd;
		sum->d_prd += k->d_prd;
	}
	return true;
}

void sim_llc_stats(const struct sim_llc *llc, unsigned cls, enum sim_llc_op op,
		   struct sim_llc_stats *st)
{
	struct sim_llc_counts sum;

	memset(st, 0, sizeof(*st));
	if (!sum_counts(llc, cls, op, &sum))
		return;
	st->accesses = sum.accesses;
	if (sum.s_accesses) {
		double scale = (double)sum.accesses / (double)sum.s_accesses;

		st->hits = scale * (double)sum.s_hits;
		st->dram_rd = scale * (double)sum.s_dram_rd;
		st->dram_wr = scale * (double)sum.s_dram_wr;
		st->partial_rd = scale * (double)sum.s_prd;
	} else {
		/* No access of this class reached a simulated set: the drawn
		 * outcomes are all there is. */
		st->hits = (double)sum.d_hits;
		st->dram_rd = (double)sum.d_dram_rd;
		st->dram_wr = (double)sum.d_dram_wr;
		st->partial_rd = (double)sum.d_prd;
	}
	st->misses = (double)sum.accesses - st->hits;
	st->hit_rate = sum.accesses ? st->hits / (double)sum.accesses : 0.0;
}

void sim_llc_l2_stats(const struct sim_llc *llc, unsigned cls, enum sim_llc_op op,
		      struct sim_llc_stats *st)
{
	struct sim_llc_counts sum;

	memset(st, 0, sizeof(*st));
	if (!sum_counts(llc, cls, op, &sum))
		return;
	st->accesses = sum.l2_accesses;
	st->hits = sum.s_l2acc
			   ? (double)sum.l2_accesses * (double)sum.s_l2hits / (double)sum.s_l2acc
			   : (double)sum.d_l2hits;
	st->misses = (double)sum.l2_accesses - st->hits;
	st->hit_rate = sum.l2_accesses ? st->hits / (double)sum.l2_accesses : 0.0;
}

double sim_llc_occupancy(const struct sim_llc *llc, unsigned cls)
{
	if (cls >= llc->nclasses)
		return 0.0;
	return (double)llc->lines[cls] * SIM_LLC_LINE * (double)llc->ngroups /
	       (double)llc->nsampled;
}

void sim_llc_forget_class(struct sim_llc *llc, unsigned cls)
{
	for (unsigned op = 0; op < SIM_LLC_OPS; op++) {
		struct sim_llc_lane *L = &llc->cls[cls].l[op];

		/* what a miss does is the class's nature, not learned */
		*L = (struct sim_llc_lane){ .allocates = L->allocates,
					    .reads_dram = L->reads_dram };
	}
}

void sim_llc_reset_stats(struct sim_llc *llc)
{
	for (uint32_t c = 0; c < llc->nclasses; c++)
		for (unsigned op = 0; op < SIM_LLC_OPS; op++)
			memset(&llc->cls[c].l[op].c, 0, sizeof(llc->cls[c].l[op].c));
}
