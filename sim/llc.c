/* SPDX-License-Identifier: BSD-3-Clause
 * LLC model: see llc.h for the semantics. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "llc.h"

#define TAG_NONE UINT64_MAX  /* never a line number: lines are addr >> 6 */
#define GROUP_NONE UINT32_MAX
#define RATE_ONE (1ll << 30) /* rates are Q30 fixed point */
#define HUGE_2M ((size_t)2 << 20)

/* Set record, 64 B aligned: u32 valid mask, u32 dirty mask, u8 rank[RP]
 * (0 = MRU; ranks of the ways are a permutation of 0..W−1, padding slots
 * hold 255 so that they never move), u8 owner[W] (the class that allocated
 * the line), u64 tag[W] at an 8 B boundary. RP = 16 for up to 16 ways, else
 * 32: the LRU update then works on one or two 16-byte vectors. */
struct set_view {
	uint32_t *valid;
	uint32_t *dirty;
	uint8_t *rank;
	uint8_t *owner;
	uint64_t *tag;
};

#define RANK_PAD 255

typedef uint8_t v16u8 __attribute__((vector_size(16), aligned(8)));

static inline struct set_view set_at(const struct sim_llc *llc, uint32_t group, uint32_t pos)
{
	uint8_t *s = llc->sets + ((size_t)group * SIM_LLC_CHUNK_LINES + pos) * llc->stride;
	struct set_view v = {
		.valid = (uint32_t *)s,
		.dirty = (uint32_t *)(s + 4),
		.rank = s + 8,
		.owner = s + 8 + llc->rank_slots,
		.tag = (uint64_t *)(s + llc->tag_off),
	};
	return v;
}

static uint32_t log2u(uint32_t v)
{
	uint32_t b = 0;

	while ((1u << b) < v)
		b++;
	return b;
}

/* Which group of a stratum of 2^sample_shift consecutive groups is
 * simulated: a multiplicative hash of the stratum number (stratified random
 * sampling: every run of consecutive groups is sampled in proportion, and a
 * pattern with a power-of-two stride still meets different residues). */
static inline uint32_t stratum_pick(const struct sim_llc *llc, uint32_t stratum)
{
	return ((stratum + 1) * 0x9e3779b1u) >> (32 - llc->sample_shift);
}

/* Map a 32-line chunk to its set group, and the group to its simulated
 * record. Returns the record's group index, or GROUP_NONE when the group is
 * not simulated. Line j of the chunk goes to set j of the group, as
 * set-index bits 6-10 would place it. */
static inline uint32_t chunk_group(const struct sim_llc *llc, uint64_t chunk)
{
	uint32_t g, stratum;

	if (llc->index == SIM_LLC_INDEX_HASH) {
		/* Within a block of 2^block_bits chunks, consecutive chunks
		 * take consecutive groups (like set-index bits: a contiguous
		 * buffer pool spreads evenly); each block starts at a hashed
		 * offset (like the slice hash: blocks land independently).
		 * Lemire's multiply-shift maps the hash onto any group count. */
		uint64_t block = chunk >> llc->block_bits;
		uint32_t off = (uint32_t)(((sim_mix64(block) >> 32) * (uint64_t)llc->ngroups) >> 32);

		g = (uint32_t)(chunk & ((1ull << llc->block_bits) - 1)) + off;
		/* Wrap without a branch: it would be taken at random. */
		g -= llc->ngroups & -(uint32_t)(g >= llc->ngroups);
	} else {
		g = (uint32_t)(chunk & (llc->ngroups - 1));
	}
	if (llc->sample_shift == 0)
		return g;
	stratum = g >> llc->sample_shift;
	if ((g & ((1u << llc->sample_shift) - 1)) != stratum_pick(llc, stratum))
		return GROUP_NONE;
	return stratum;
}

static inline void rate_update(int64_t *p, uint64_t *n, int x, uint32_t shift)
{
	int64_t target = x ? RATE_ONE : 0;

	/* Running mean until 2^shift observations, then an exponential
	 * moving average with the same weight: no start-up bias from an
	 * arbitrary initial value. */
	if (*n < (1ull << shift)) {
		(*n)++;
		*p += (target - *p) / (int64_t)*n;
	} else {
		/* A shift, not a division by the run-time 2^shift (an idiv
		 * costs ~40 cycles); both sides round toward zero. */
		int64_t d = target - *p;

		*p += d >= 0 ? d >> shift : -((-d) >> shift);
	}
}

/* Make way w the MRU: every way more recent than w ages by one. Vector
 * compare-and-subtract over the 16 or 32 rank slots (the comparison yields
 * −1 where true). */
static inline void touch(uint8_t *rank, uint32_t slots, uint32_t w)
{
	uint8_t r = rank[w];
	v16u8 rv = { r, r, r, r, r, r, r, r, r, r, r, r, r, r, r, r };

	for (uint32_t i = 0; i < slots; i += 16) {
		v16u8 x;

		__builtin_memcpy(&x, rank + i, 16);
		x -= (v16u8)(x < rv);
		__builtin_memcpy(rank + i, &x, 16);
	}
	rank[w] = 0;
}

/* Ways whose tag is `line`: at most one bit. No early exit, so no branch
 * mispredicted on where the line sits. */
static inline uint32_t match(const uint64_t *tag, uint32_t ways, uint64_t line)
{
	uint32_t m = 0;

	for (uint32_t w = 0; w < ways; w++)
		m |= (uint32_t)(tag[w] == line) << w;
	return m;
}

/* The allocation victim among `mask`: an invalid way if any, else the
 * least recently used (highest rank). Selects are branch-free. */
static inline uint32_t pick_victim(const struct set_view *v, uint32_t ways, uint32_t mask)
{
	uint32_t free_ways = mask & ~*v->valid;
	int best = -1;

	if (free_ways)
		return (uint32_t)__builtin_ctz(free_ways);
	/* key = rank · 256 + way for allowed ways, −1 for the others; ranks
	 * are distinct, so the largest key names the LRU allowed way. A plain
	 * max compiles to conditional moves. */
	for (uint32_t j = 0; j < ways; j++) {
		int key = ((int)v->rank[j] << 8 | (int)j) | -(int)(((mask >> j) & 1) ^ 1);

		best = key > best ? key : best;
	}
	return (uint32_t)best & 0xff;
}

/* Does a miss of this class and op allocate a line? Everything except DMA
 * reads. */
static inline int allocates(const struct sim_llc_class *c, enum sim_llc_op op)
{
	return !(c->io && op == SIM_LLC_RD);
}

/* Does a miss read DRAM? CPU misses (reads, and RFO for writes) and DMA
 * reads; a DMA write covers the whole line and needs no read. */
static inline int miss_reads_dram(const struct sim_llc_class *c, enum sim_llc_op op)
{
	return !(c->io && op == SIM_LLC_WR);
}

/* A CPU hit on a line an I/O class allocated, with migrate_io_lines: the
 * line leaves its way (for the core's private caches, in a non-inclusive
 * hierarchy) and comes back into the LRU way of the CPU class's mask,
 * keeping its dirty state; a dirty victim there is written back. Counted
 * as a hit. */
static uint32_t migrate_hit(struct sim_llc *llc, struct set_view *v, struct sim_llc_class *c,
			    unsigned cid, enum sim_llc_op op, uint32_t w, uint64_t line,
			    uint32_t flags)
{
	struct sim_llc_counts *k = &c->c[op];
	uint32_t dirty = ((*v->dirty >> w) & 1) | (op == SIM_LLC_WR), nw;

	uint32_t mask = c->mask & ~(1u << w) ? c->mask & ~(1u << w) : c->mask;

	llc->cls[v->owner[w]].lines--;
	*v->valid &= ~(1u << w);
	*v->dirty &= ~(1u << w);
	v->tag[w] = TAG_NONE;
	/* It comes back later, into the LRU way of the core's mask at that
	 * time: not the way it left (the I/O class keeps refilling those). */
	nw = pick_victim(v, llc->ways, mask);
	if (*v->valid >> nw & 1) {
		llc->cls[v->owner[nw]].lines--;
		if ((*v->dirty >> nw) & 1) {
			flags |= SIM_LLC_DRAM_WR;
			k->s_dram_wr++;
		}
	}
	rate_update(&c->p_hwb[op], &c->n_hwb[op], (flags & SIM_LLC_DRAM_WR) != 0, llc->rate_shift);
	v->tag[nw] = line;
	v->owner[nw] = (uint8_t)cid;
	*v->valid |= 1u << nw;
	*v->dirty = (*v->dirty & ~(1u << nw)) | (dirty << nw);
	touch(v->rank, llc->rank_slots, nw);
	c->lines++;
	llc->migrated++;
	k->s_hits++;
	rate_update(&c->p_hit[op], &c->n_hit[op], 1, llc->rate_shift);
	return flags | SIM_LLC_HIT;
}

/* Access a line of a simulated set. */
static uint32_t access_sim(struct sim_llc *llc, struct sim_llc_class *c, unsigned cid,
			   enum sim_llc_op op, uint32_t group, uint32_t pos, uint64_t line)
{
	struct set_view v = set_at(llc, group, pos);
	struct sim_llc_counts *k = &c->c[op];
	uint32_t ways = llc->ways, flags = SIM_LLC_SAMPLED, w, hit;

	k->s_accesses++;
	hit = match(v.tag, ways, line);
	if (hit) {
		w = (uint32_t)__builtin_ctz(hit);
		if (llc->migrate_io_lines && !c->io && llc->cls[v.owner[w]].io)
			return migrate_hit(llc, &v, c, cid, op, w, line, flags);
		touch(v.rank, llc->rank_slots, w);
		if (op == SIM_LLC_WR)
			*v.dirty |= hit;
		k->s_hits++;
		rate_update(&c->p_hit[op], &c->n_hit[op], 1, llc->rate_shift);
		if (llc->migrate_io_lines)
			rate_update(&c->p_hwb[op], &c->n_hwb[op], 0, llc->rate_shift);
		return flags | SIM_LLC_HIT;
	}
	rate_update(&c->p_hit[op], &c->n_hit[op], 0, llc->rate_shift);
	if (miss_reads_dram(c, op)) {
		flags |= SIM_LLC_DRAM_RD;
		k->s_dram_rd++;
	}
	if (!allocates(c, op))
		return flags;

	w = pick_victim(&v, ways, c->mask);
	if (*v.valid >> w & 1) {
		int wb = (*v.dirty >> w) & 1;

		llc->cls[v.owner[w]].lines--;
		if (wb) {
			flags |= SIM_LLC_DRAM_WR;
			k->s_dram_wr++;
		}
		rate_update(&c->p_wb[op], &c->n_wb[op], wb, llc->rate_shift);
	} else {
		rate_update(&c->p_wb[op], &c->n_wb[op], 0, llc->rate_shift);
	}
	v.tag[w] = line;
	v.owner[w] = (uint8_t)cid;
	*v.valid |= 1u << w;
	if (op == SIM_LLC_WR)
		*v.dirty |= 1u << w;
	else
		*v.dirty &= ~(1u << w);
	touch(v.rank, llc->rank_slots, w);
	c->lines++;
	return flags;
}

/* 32 random bits: a 64-bit draw cut in two. */
static inline uint32_t rnd32(struct sim_llc *llc)
{
	uint32_t r;

	if (llc->rbits_left == 0) {
		llc->rbits = sim_rng_next(&llc->rng);
		llc->rbits_left = 2;
	}
	r = (uint32_t)llc->rbits;
	llc->rbits >>= 32;
	llc->rbits_left--;
	return r;
}

/* Outcome of an access to a set that is not simulated, drawn from the
 * class's rates on the simulated sets: 16 random bits against P(hit), 16
 * against P(dirty victim). Branch-free, because the outcome is random and
 * a mispredicted branch would cost more than the draw. */
static inline uint32_t access_drawn(struct sim_llc *llc, struct sim_llc_class *c,
				    enum sim_llc_op op)
{
	struct sim_llc_counts *k = &c->c[op];
	uint32_t r = rnd32(llc);
	uint32_t hit = (r & 0xffff) < (uint32_t)(c->p_hit[op] >> 14);
	uint32_t rd = (hit ^ 1) & (uint32_t)miss_reads_dram(c, op);
	/* A drawn hit writes back with the migrating hits' rate (0 unless
	 * migrate_io_lines), a drawn miss with the allocating misses' rate. */
	uint32_t pwb = hit ? (uint32_t)(c->p_hwb[op] >> 14) : (uint32_t)(c->p_wb[op] >> 14);
	uint32_t wb = (hit | (uint32_t)allocates(c, op)) & ((r >> 16) < pwb);

	k->d_hits += hit;
	k->d_dram_rd += rd;
	k->d_dram_wr += wb;
	return hit * SIM_LLC_HIT | rd * SIM_LLC_DRAM_RD | wb * SIM_LLC_DRAM_WR;
}

uint32_t sim_llc_access(struct sim_llc *llc, unsigned cls, enum sim_llc_op op, uint64_t addr)
{
	struct sim_llc_class *c = &llc->cls[cls];
	uint64_t line = addr >> SIM_LLC_LINE_SHIFT;
	uint32_t g = chunk_group(llc, line / SIM_LLC_CHUNK_LINES);

	c->c[op].accesses++;
	if (g == GROUP_NONE)
		return access_drawn(llc, c, op);
	return access_sim(llc, c, cls, op, g,
			  (uint32_t)line & (SIM_LLC_CHUNK_LINES - 1), line);
}

static inline void range_add(struct sim_llc_range *out, uint32_t f)
{
	out->hits += f & SIM_LLC_HIT ? 1 : 0;
	out->dram_rd += f & SIM_LLC_DRAM_RD ? 1 : 0;
	out->dram_wr += f & SIM_LLC_DRAM_WR ? 1 : 0;
}

/* Outcomes of n lines of a range in sets that are not simulated, at O(1)
 * cost: the expected numbers (n · P(hit), misses · P(write-back)) are
 * apportioned by error diffusion — the fractional remainder is carried to
 * the class's next range — so totals match the rates exactly over time and
 * each range is within one line of its expectation. Drawing a random number
 * per line would cost ~3 ns × 24 lines per packet; single-line accesses
 * still draw (their individual outcome sets a latency). */
static void range_drawn(struct sim_llc_class *c, enum sim_llc_op op, uint32_t n,
			struct sim_llc_range *out)
{
	struct sim_llc_counts *k = &c->c[op];
	uint32_t hits, misses, wbs = 0;

	c->carry_hit[op] += (uint64_t)n * (uint64_t)c->p_hit[op];
	hits = (uint32_t)(c->carry_hit[op] >> 30);
	c->carry_hit[op] &= RATE_ONE - 1;
	if (hits > n)
		hits = n;
	misses = n - hits;
	if (allocates(c, op)) {
		c->carry_wb[op] += (uint64_t)misses * (uint64_t)c->p_wb[op];
		wbs = (uint32_t)(c->carry_wb[op] >> 30);
		c->carry_wb[op] &= RATE_ONE - 1;
		if (wbs > misses)
			wbs = misses;
	}
	if (c->p_hwb[op]) { /* migrating hits' write-backs */
		uint32_t hw;

		c->carry_hwb[op] += (uint64_t)hits * (uint64_t)c->p_hwb[op];
		hw = (uint32_t)(c->carry_hwb[op] >> 30);
		c->carry_hwb[op] &= RATE_ONE - 1;
		wbs += hw > hits ? hits : hw;
	}
	k->d_hits += hits;
	k->d_dram_wr += wbs;
	out->hits += hits;
	out->dram_wr += wbs;
	if (miss_reads_dram(c, op)) {
		k->d_dram_rd += misses;
		out->dram_rd += misses;
	}
}

void sim_llc_access_range(struct sim_llc *llc, unsigned cls, enum sim_llc_op op, uint64_t addr,
			  uint64_t len, struct sim_llc_range *out)
{
	struct sim_llc_class *c = &llc->cls[cls];
	uint64_t line, last;

	if (len == 0)
		return;
	line = addr >> SIM_LLC_LINE_SHIFT;
	last = (addr + len - 1) >> SIM_LLC_LINE_SHIFT;
	while (line <= last) {
		uint64_t chunk = line / SIM_LLC_CHUNK_LINES;
		uint64_t end = chunk * SIM_LLC_CHUNK_LINES + SIM_LLC_CHUNK_LINES - 1;
		uint32_t n, g = chunk_group(llc, chunk);

		if (end > last)
			end = last;
		n = (uint32_t)(end - line + 1);
		c->c[op].accesses += n;
		out->lines += n;
		/* One sampling decision per chunk: a chunk's lines all live in
		 * one set group. */
		if (g == GROUP_NONE) {
			range_drawn(c, op, n, out);
			line = end + 1;
			continue;
		}
		for (; line <= end; line++)
			range_add(out, access_sim(llc, c, cls, op, g,
						  (uint32_t)line & (SIM_LLC_CHUNK_LINES - 1), line));
	}
}

uint32_t sim_llc_dma_write_noalloc(struct sim_llc *llc, uint64_t addr, uint64_t len)
{
	uint64_t line, last;

	if (len == 0)
		return 0;
	line = addr >> SIM_LLC_LINE_SHIFT;
	last = (addr + len - 1) >> SIM_LLC_LINE_SHIFT;
	for (uint64_t l = line; l <= last; l++) {
		uint32_t g = chunk_group(llc, l / SIM_LLC_CHUNK_LINES);
		struct set_view v;
		uint32_t hit;

		if (g == GROUP_NONE) {
			/* The rest of this chunk is not simulated either. */
			l |= SIM_LLC_CHUNK_LINES - 1;
			continue;
		}
		v = set_at(llc, g, (uint32_t)l & (SIM_LLC_CHUNK_LINES - 1));
		hit = match(v.tag, llc->ways, l);
		if (hit) {
			uint32_t w = (uint32_t)__builtin_ctz(hit);

			llc->cls[v.owner[w]].lines--;
			*v.valid &= ~hit;
			*v.dirty &= ~hit;
			v.tag[w] = TAG_NONE;
		}
	}
	return (uint32_t)(last - line + 1);
}

int sim_llc_probe(const struct sim_llc *llc, uint64_t addr)
{
	uint64_t line = addr >> SIM_LLC_LINE_SHIFT;
	uint32_t g = chunk_group(llc, line / SIM_LLC_CHUNK_LINES);
	struct set_view v;

	if (g == GROUP_NONE)
		return -1;
	v = set_at(llc, g, (uint32_t)line & (SIM_LLC_CHUNK_LINES - 1));
	return match(v.tag, llc->ways, line) != 0;
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

	for (uint32_t i = 0; i < nrec; i++) {
		struct set_view v = set_at(llc, i / SIM_LLC_CHUNK_LINES, i % SIM_LLC_CHUNK_LINES);

		*v.valid = 0;
		*v.dirty = 0;
		for (uint32_t w = 0; w < llc->rank_slots; w++)
			v.rank[w] = w < llc->ways ? (uint8_t)w : RANK_PAD;
		for (uint32_t w = 0; w < llc->ways; w++) {
			v.tag[w] = TAG_NONE;
			v.owner[w] = 0;
		}
	}
	for (uint32_t c = 0; c < llc->nclasses; c++)
		llc->cls[c].lines = 0;
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
	llc->rate_shift = rate_shift;
	llc->index = cfg->index;
	llc->migrate_io_lines = cfg->migrate_io_lines;
	llc->size_bytes = cfg->size_bytes;
	llc->rank_slots = cfg->ways <= 16 ? 16 : 32;
	llc->tag_off = (8 + llc->rank_slots + cfg->ways + 7) & ~7u;
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
	if (llc->sets == NULL) {
		rxb_err_set(err, "llc: out of memory for %u simulated sets",
			    llc->sgroups * SIM_LLC_CHUNK_LINES);
		return -ENOMEM;
	}
	sim_rng_seed(&llc->rng, cfg->seed, 0x11c);
	sim_llc_invalidate(llc);
	return 0;
}

void sim_llc_free(struct sim_llc *llc)
{
	free(llc->sets);
	llc->sets = NULL;
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
		const struct sim_llc_counts *k = &llc->cls[cls].c[o];

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
	return (double)llc->cls[cls].lines * SIM_LLC_LINE * (double)llc->ngroups /
	       (double)llc->nsampled;
}

void sim_llc_reset_stats(struct sim_llc *llc)
{
	for (uint32_t c = 0; c < llc->nclasses; c++)
		memset(llc->cls[c].c, 0, sizeof(llc->cls[c].c));
}
