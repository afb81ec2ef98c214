/* SPDX-License-Identifier: BSD-3-Clause
 * LLC model: see llc.h for the semantics. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "llc.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define TAG_NONE UINT64_MAX  /* never a line number: lines are addr >> 6 */
#define GROUP_NONE SIM_LLC_GROUP_NONE
#define RATE_ONE SIM_LLC_RATE_ONE
#define HUGE_2M ((size_t)2 << 20)

#define stratum_pick sim_llc__stratum_pick
#define chunk_group sim_llc__chunk_group

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
 * per record, read only on hits by the migration test and on evictions. */
#define REC_SIG(r) ((uint8_t *)(r))
#define REC_RANK(r, wide) ((uint8_t *)(r) + ((wide) ? 32 : 16))
#define REC_VALID(r, wide) ((uint32_t *)((uint8_t *)(r) + ((wide) ? 64 : 32)))
#define REC_DIRTY(r, wide) ((uint32_t *)((uint8_t *)(r) + ((wide) ? 68 : 36)))
#define REC_TAG_OFF(wide) ((wide) ? 72u : 40u)
#define REC_TAG(r, wide) ((uint64_t *)((uint8_t *)(r) + REC_TAG_OFF(wide)))

#define RANK_PAD 255

typedef uint8_t v16u8 __attribute__((vector_size(16), aligned(8)));

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

/* A tag's signature: the top byte of a multiplicative hash of the line. */
static inline uint8_t tag_sig(uint64_t line)
{
	return (uint8_t)((line * 0x9e3779b97f4a7c15ull) >> 56);
}

static uint32_t log2u(uint32_t v)
{
	uint32_t b = 0;

	while ((1u << b) < v)
		b++;
	return b;
}

/* Make way w the MRU: every way more recent than w ages by one. Vector
 * compare-and-subtract over the 16 or 32 rank slots (the comparison yields
 * −1 where true). */
static inline __attribute__((always_inline)) void touch(uint8_t *rank, int wide, uint32_t w)
{
	uint8_t r = rank[w];
	v16u8 rv = { r, r, r, r, r, r, r, r, r, r, r, r, r, r, r, r };
	v16u8 x;

	__builtin_memcpy(&x, rank, 16);
	x -= (v16u8)(x < rv);
	__builtin_memcpy(rank, &x, 16);
	if (wide) {
		__builtin_memcpy(&x, rank + 16, 16);
		x -= (v16u8)(x < rv);
		__builtin_memcpy(rank + 16, &x, 16);
	}
	rank[w] = 0;
}

/* Ways (among way_bits, the ways that exist) whose tag is `line`: at most
 * one bit. The signatures of all ways are compared at once (one 16-byte
 * compare per 16 ways); only ways whose signature matches have their full
 * tag compared, so the result is exact. */
static inline __attribute__((always_inline)) uint32_t
match(const uint8_t *rec, int wide, uint32_t way_bits, uint64_t line)
{
	const uint64_t *tag = REC_TAG(rec, wide);
	uint32_t cand = 0, m = 0;
	uint8_t sg = tag_sig(line);

#if defined(__SSE2__)
	__m128i key = _mm_set1_epi8((char)sg);

	cand = (uint32_t)_mm_movemask_epi8(
		_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)REC_SIG(rec)), key));
	if (wide)
		cand |= (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(
				_mm_loadu_si128((const __m128i *)(REC_SIG(rec) + 16)), key)) << 16;
#else
	for (uint32_t w = 0; w < 32 && (way_bits >> w); w++)
		cand |= (uint32_t)(REC_SIG(rec)[w] == sg) << w;
#endif
	cand &= way_bits;
	while (cand) {
		uint32_t w = (uint32_t)__builtin_ctz(cand);

		m |= (uint32_t)(tag[w] == line) << w;
		cand &= cand - 1;
	}
	return m;
}

/* The allocation victim among `mask`: an invalid way if any, else the
 * least recently used (highest rank). */
static inline __attribute__((always_inline)) uint32_t
pick_victim(const struct sim_llc *llc, const uint8_t *rec, int wide, uint32_t mask)
{
	uint32_t free_ways = mask & ~*REC_VALID(rec, wide);
	const uint8_t *rank = REC_RANK(rec, wide);

	if (free_ways)
		return (uint32_t)__builtin_ctz(free_ways);
#if defined(__SSE2__)
	if (!wide) {
		/* The ranks of the allowed ways (the others as 0), their
		 * maximum, and the allowed way that holds it: ranks are
		 * distinct, so there is exactly one. */
		static const uint8_t bit[16] = { 1, 2, 4, 8, 16, 32, 64, 128,
						 1, 2, 4, 8, 16, 32, 64, 128 };
		__m128i sel = _mm_loadu_si128((const __m128i *)bit);
		__m128i m = _mm_cvtsi32_si128((int)mask), r, x;

		m = _mm_unpacklo_epi8(m, m);
		m = _mm_unpacklo_epi16(m, m);
		m = _mm_unpacklo_epi32(m, m); /* bytes 0-7: mask & 0xff, 8-15: mask >> 8 */
		m = _mm_cmpeq_epi8(_mm_and_si128(m, sel), sel);
		r = _mm_and_si128(_mm_loadu_si128((const __m128i *)rank), m);
		x = _mm_max_epu8(r, _mm_srli_si128(r, 8));
		x = _mm_max_epu8(x, _mm_srli_si128(x, 4));
		x = _mm_max_epu8(x, _mm_srli_si128(x, 2));
		x = _mm_max_epu8(x, _mm_srli_si128(x, 1));
		x = _mm_set1_epi8((char)_mm_cvtsi128_si32(x));
		return (uint32_t)__builtin_ctz((uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(r, x)) &
					       mask);
	}
#endif
	{
		/* key = rank · 256 + way for allowed ways, −1 for the others;
		 * ranks are distinct, so the largest key names the LRU allowed
		 * way. A plain max compiles to conditional moves. */
		int best = -1;

		for (uint32_t j = 0; j < llc->ways; j++) {
			int key = ((int)rank[j] << 8 | (int)j) | -(int)(((mask >> j) & 1) ^ 1);

			best = key > best ? key : best;
		}
		return (uint32_t)best & 0xff;
	}
}

/* The state an access to simulated sets works on, copied into locals for
 * the duration of one access or range (so that the compiler keeps it in
 * registers across the byte stores into set records, which may alias
 * anything) and written back at the end. */
struct actx {
	struct sim_llc *llc;
	struct sim_llc_lane *L;
	uint32_t way_bits, mask, io_classes, rate_shift;
	uint64_t rate_lim;  /* 2^rate_shift: observations before the EMA */
	int64_t rate_bias;  /* 2^rate_shift − 1 */
	int migrate;
	uint8_t cid, io, allocs, reads;
	int64_t p_hit, p_wb, p_hwb;
	uint64_t n_hit, n_wb, n_hwb;
	uint64_t s_acc, s_hits, s_rd, s_wr, migrated;
};

static inline __attribute__((always_inline)) void
actx_load(struct actx *x, struct sim_llc *llc, unsigned cls, enum sim_llc_op op)
{
	struct sim_llc_class *c = &llc->cls[cls];
	struct sim_llc_lane *L = &c->l[op];

	x->llc = llc;
	x->L = L;
	x->way_bits = llc->way_bits;
	x->mask = c->mask;
	x->io_classes = llc->io_classes;
	x->rate_shift = llc->rate_shift;
	x->rate_lim = 1ull << llc->rate_shift;
	x->rate_bias = (int64_t)x->rate_lim - 1;
	x->migrate = llc->migrate_io_lines;
	x->cid = (uint8_t)cls;
	x->io = c->io;
	x->allocs = L->allocates;
	x->reads = L->reads_dram;
	x->p_hit = L->p_hit;
	x->p_wb = L->p_wb;
	x->p_hwb = L->p_hwb;
	x->n_hit = L->n_hit;
	x->n_wb = L->n_wb;
	x->n_hwb = L->n_hwb;
	x->s_acc = x->s_hits = x->s_rd = x->s_wr = x->migrated = 0;
}

static inline __attribute__((always_inline)) void actx_store(const struct actx *x)
{
	struct sim_llc_lane *L = x->L;

	L->p_hit = x->p_hit;
	L->p_wb = x->p_wb;
	L->p_hwb = x->p_hwb;
	L->n_hit = x->n_hit;
	L->n_wb = x->n_wb;
	L->n_hwb = x->n_hwb;
	L->c.s_accesses += x->s_acc;
	L->c.s_hits += x->s_hits;
	L->c.s_dram_rd += x->s_rd;
	L->c.s_dram_wr += x->s_wr;
	x->llc->migrated += x->migrated;
}

/* Observe outcome v (0/1) in the rate *p (Q30) with *n observations so
 * far: a running mean until 2^rate_shift observations, then an exponential
 * moving average with the same weight (no start-up bias from an arbitrary
 * initial value). */
static inline __attribute__((always_inline)) void
rate_upd(const struct actx *x, int64_t *p, uint64_t *n, uint32_t v)
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

/* A CPU hit on a line an I/O class allocated, with migrate_io_lines: the
 * line leaves its way (for the core's private caches, in a non-inclusive
 * hierarchy) and comes back into the LRU way of the CPU class's mask,
 * keeping its dirty state; a dirty victim there is written back. Counted
 * as a hit. */
static inline __attribute__((always_inline)) uint32_t
migrate_hit(struct actx *x, uint8_t *rec, uint8_t *owner, int wide, enum sim_llc_op op,
	    uint32_t w, uint64_t line, uint32_t flags)
{
	struct sim_llc *llc = x->llc;
	uint32_t *valid = REC_VALID(rec, wide), *dirtyp = REC_DIRTY(rec, wide);
	uint64_t *tag = REC_TAG(rec, wide);
	uint32_t dirty = ((*dirtyp >> w) & 1) | (op == SIM_LLC_WR), nw;
	uint32_t mask = x->mask & ~(1u << w) ? x->mask & ~(1u << w) : x->mask;

	llc->lines[owner[w]]--;
	*valid &= ~(1u << w);
	*dirtyp &= ~(1u << w);
	tag[w] = TAG_NONE;
	/* It comes back later, into the LRU way of the core's mask at that
	 * time: not the way it left (the I/O class keeps refilling those). */
	nw = pick_victim(llc, rec, wide, mask);
	if (*valid >> nw & 1) {
		uint32_t wb = (*dirtyp >> nw) & 1;

		llc->lines[owner[nw]]--;
		flags |= wb * SIM_LLC_DRAM_WR;
		x->s_wr += wb;
	}
	rate_upd(x, &x->p_hwb, &x->n_hwb, (flags & SIM_LLC_DRAM_WR) != 0);
	tag[nw] = line;
	REC_SIG(rec)[nw] = tag_sig(line);
	owner[nw] = x->cid;
	*valid |= 1u << nw;
	*dirtyp = (*dirtyp & ~(1u << nw)) | (dirty << nw);
	touch(REC_RANK(rec, wide), wide, nw);
	llc->lines[x->cid]++;
	x->migrated++;
	x->s_hits++;
	rate_upd(x, &x->p_hit, &x->n_hit, 1);
	return flags | SIM_LLC_HIT;
}

/* Access a line of a simulated set (its record at rec, owners at owner). */
static inline __attribute__((always_inline)) uint32_t
access_sim(struct actx *x, enum sim_llc_op op, uint8_t *rec, uint8_t *owner, int wide,
	   uint64_t line)
{
	struct sim_llc *llc = x->llc;
	uint32_t *valid = REC_VALID(rec, wide), *dirty = REC_DIRTY(rec, wide);
	uint32_t flags = SIM_LLC_SAMPLED, w, hit;

	x->s_acc++;
	hit = match(rec, wide, x->way_bits, line);
	if (hit) {
		w = (uint32_t)__builtin_ctz(hit);
		if (x->migrate && !x->io && (x->io_classes >> owner[w] & 1))
			return migrate_hit(x, rec, owner, wide, op, w, line, flags);
		touch(REC_RANK(rec, wide), wide, w);
		if (op == SIM_LLC_WR)
			*dirty |= hit;
		x->s_hits++;
		rate_upd(x, &x->p_hit, &x->n_hit, 1);
		if (x->migrate)
			rate_upd(x, &x->p_hwb, &x->n_hwb, 0);
		return flags | SIM_LLC_HIT;
	}
	rate_upd(x, &x->p_hit, &x->n_hit, 0);
	if (x->reads) {
		flags |= SIM_LLC_DRAM_RD;
		x->s_rd++;
	}
	if (!x->allocs)
		return flags;

	w = pick_victim(llc, rec, wide, x->mask);
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

void sim_llc__refill(struct sim_llc *llc)
{
	for (uint32_t i = 0; i < SIM_LLC_RBUF; i += 2) {
		uint64_t r = sim_rng_next(&llc->rng);

		llc->rbuf[i] = (uint32_t)r;
		llc->rbuf[i + 1] = (uint32_t)(r >> 32);
	}
	llc->rbuf_pos = 0;
}

static inline __attribute__((always_inline)) uint32_t
access_one(struct sim_llc *llc, unsigned cls, enum sim_llc_op op, int wide, uint32_t group,
	   uint64_t line)
{
	uint32_t pos = (uint32_t)line & (SIM_LLC_CHUNK_LINES - 1), f;
	struct actx x;

	actx_load(&x, llc, cls, op);
	f = access_sim(&x, op, rec_at(llc, group, pos), own_at(llc, group, pos), wide, line);
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

/* The lines of one chunk in a simulated group, for an op and layout known
 * at compile time (the tests on them then fold away). */
static inline __attribute__((always_inline)) void
range_sampled(struct sim_llc *llc, unsigned cls, enum sim_llc_op op, int wide, uint32_t group,
	      uint64_t line, uint64_t end, struct sim_llc_range *out)
{
	uint32_t pos = (uint32_t)line & (SIM_LLC_CHUNK_LINES - 1);
	uint8_t *rec = rec_at(llc, group, pos), *own = own_at(llc, group, pos);
	uint32_t hits = 0, rd = 0, wr = 0, stride = llc->stride;
	struct actx x;

	actx_load(&x, llc, cls, op);
	/* Consecutive lines of a chunk are consecutive sets of its group. */
	for (; line <= end; line++, rec += stride, own += wide ? 32 : 16) {
		uint32_t f = access_sim(&x, op, rec, own, wide, line);

		hits += f & SIM_LLC_HIT;
		rd += (f / SIM_LLC_DRAM_RD) & 1;
		wr += (f / SIM_LLC_DRAM_WR) & 1;
	}
	actx_store(&x);
	out->hits += hits;
	out->dram_rd += rd;
	out->dram_wr += wr;
}

void sim_llc__range_sampled(struct sim_llc *llc, unsigned cls, enum sim_llc_op op,
			    uint32_t group, uint64_t line, uint64_t end, struct sim_llc_range *out)
{
	int wide = llc->rank_slots > 16;

	if (op == SIM_LLC_WR && !wide)
		range_sampled(llc, cls, SIM_LLC_WR, 0, group, line, end, out);
	else if (!wide)
		range_sampled(llc, cls, SIM_LLC_RD, 0, group, line, end, out);
	else if (op == SIM_LLC_WR)
		range_sampled(llc, cls, SIM_LLC_WR, 1, group, line, end, out);
	else
		range_sampled(llc, cls, SIM_LLC_RD, 1, group, line, end, out);
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

int sim_llc_probe(const struct sim_llc *llc, uint64_t addr)
{
	uint64_t line = addr >> SIM_LLC_LINE_SHIFT;
	uint32_t g = chunk_group(llc, line / SIM_LLC_CHUNK_LINES);

	if (g == GROUP_NONE)
		return -1;
	return match(rec_at(llc, g, (uint32_t)line & (SIM_LLC_CHUNK_LINES - 1)),
		     llc->rank_slots > 16, llc->way_bits, line) != 0;
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

int sim_llc_init(struct sim_llc *llc, const struct sim_llc_cfg *cfg, struct rxb_err *err)
{
	uint64_t set_bytes, nsets;
	size_t bytes;
	uint32_t rate_shift = cfg->rate_window_shift ? cfg->rate_window_shift : 10;

	memset(llc, 0, sizeof(*llc));
	if (cfg->ways < 1 || cfg->ways > SIM_LLC_MAX_WAYS) {
		rxb_err_set(err, "llc.ways = %u: must be in [1, %u]", cfg->ways, SIM_LLC_MAX_WAYS);
		return -EINVAL;
	}
	set_bytes = (uint64_t)SIM_LLC_LINE * cfg->ways;
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
	llc->ngroups = (uint32_t)(nsets / SIM_LLC_CHUNK_LINES);
	/* floor(log2(ngroups)): blocks never hold more chunks than groups. */
	llc->block_bits = 31 - (uint32_t)__builtin_clz(llc->ngroups);
	if (cfg->sample_shift > 16 || (llc->ngroups >> cfg->sample_shift) == 0) {
		rxb_err_set(err,
			    "llc.sample_shift = %u: must leave at least one group of %u sets "
			    "(this cache has %u groups, so at most %u)",
			    cfg->sample_shift, SIM_LLC_CHUNK_LINES, llc->ngroups,
			    log2u(llc->ngroups + 1) - 1);
		return -EINVAL;
	}
	if (rate_shift > 24) {
		rxb_err_set(err, "llc.rate_window_shift = %u: must be in [1, 24] (0 = default 10)",
			    cfg->rate_window_shift);
		return -EINVAL;
	}
	llc->ways = cfg->ways;
	llc->nsets = (uint32_t)nsets;
	llc->sample_shift = cfg->sample_shift;
	llc->sgroups = (llc->ngroups + (1u << cfg->sample_shift) - 1) >> cfg->sample_shift;
	/* A last, partial stratum may pick a group that does not exist. */
	llc->nsampled = llc->sgroups;
	if (cfg->sample_shift && ((llc->sgroups - 1) << cfg->sample_shift) +
					 stratum_pick(llc, llc->sgroups - 1) >= llc->ngroups)
		llc->nsampled--;
	llc->block_mask = (1ull << llc->block_bits) - 1;
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

			llc->gmap[g] = cfg->sample_shift == 0 ? g :
				       (g & ((1u << cfg->sample_shift) - 1)) == stratum_pick(llc, st) ?
				       st : GROUP_NONE;
		}
	}
	llc->rate_shift = rate_shift;
	llc->index = cfg->index;
	llc->migrate_io_lines = cfg->migrate_io_lines;
	llc->size_bytes = cfg->size_bytes;
	llc->rank_slots = cfg->ways <= 16 ? 16 : 32;
	llc->way_bits = sim_llc_ways(0, cfg->ways);
	llc->tag_off = REC_TAG_OFF(llc->rank_slots > 16);
	llc->stride = (llc->tag_off + 8 * cfg->ways + 63) & ~63u;
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
	if (c->io)
		llc->io_classes |= 1u << llc->nclasses;
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

void sim_llc_stats(const struct sim_llc *llc, unsigned cls, enum sim_llc_op op,
		   struct sim_llc_stats *st)
{
	struct sim_llc_counts sum = { 0 };
	unsigned lo = op == SIM_LLC_OPS ? 0 : op, hi = op == SIM_LLC_OPS ? SIM_LLC_OPS : op + 1;

	memset(st, 0, sizeof(*st));
	if (cls >= llc->nclasses)
		return;
	for (unsigned o = lo; o < hi; o++) {
		const struct sim_llc_counts *k = &llc->cls[cls].l[o].c;

		sum.accesses += k->accesses;
		sum.s_accesses += k->s_accesses;
		sum.s_hits += k->s_hits;
		sum.s_dram_rd += k->s_dram_rd;
		sum.s_dram_wr += k->s_dram_wr;
		sum.d_hits += k->d_hits;
		sum.d_dram_rd += k->d_dram_rd;
		sum.d_dram_wr += k->d_dram_wr;
	}
	st->accesses = sum.accesses;
	if (sum.s_accesses) {
		double scale = (double)sum.accesses / (double)sum.s_accesses;

		st->hits = scale * (double)sum.s_hits;
		st->dram_rd = scale * (double)sum.s_dram_rd;
		st->dram_wr = scale * (double)sum.s_dram_wr;
	} else {
		/* No access of this class reached a simulated set: the drawn
		 * outcomes are all there is. */
		st->hits = (double)sum.d_hits;
		st->dram_rd = (double)sum.d_dram_rd;
		st->dram_wr = (double)sum.d_dram_wr;
	}
	st->misses = (double)sum.accesses - st->hits;
	st->hit_rate = sum.accesses ? st->hits / (double)sum.accesses : 0.0;
}

double sim_llc_occupancy(const struct sim_llc *llc, unsigned cls)
{
	if (cls >= llc->nclasses)
		return 0.0;
	return (double)llc->lines[cls] * SIM_LLC_LINE * (double)llc->ngroups /
	       (double)llc->nsampled;
}

void sim_llc_reset_stats(struct sim_llc *llc)
{
	for (uint32_t c = 0; c < llc->nclasses; c++)
		for (unsigned op = 0; op < SIM_LLC_OPS; op++)
			memset(&llc->cls[c].l[op].c, 0, sizeof(llc->cls[c].l[op].c));
}
