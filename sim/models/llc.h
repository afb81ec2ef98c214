/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/models/llc.h — last-level cache model with DDIO and way partitioning (CAT).
 *
 * A set-associative, write-back LLC of 64 B lines with exact LRU per set.
 * Every access is made by an *accessor class* (the NIC, one core's packet
 * reads, an application table, a memory hog, ...). A class has a way mask —
 * the ways it may allocate into — and a kind:
 *
 *   CPU class (io = 0), Intel CAT semantics:
 *     read/write hit    served in place wherever the line is (CAT restricts
 *                       allocation, never lookup); becomes MRU; a write
 *                       marks the line dirty.
 *     read miss         DRAM read; allocate into the LRU way among the
 *                       class's mask (an invalid way first).
 *     write miss        read-for-ownership (DRAM read) and allocate as above,
 *                       line dirty.
 *   I/O class (io = 1), Intel DDIO semantics (write update / write allocate):
 *     write hit         update in place, dirty, MRU ("write update").
 *     write miss        allocate into the LRU way among the class's mask —
 *                       the DDIO ways, default 2 of 11 — with no DRAM read
 *                       when the write covers the whole line, line dirty
 *                       ("write allocate").
 *     partial write     (sim_llc_dma_write_range: the first / last line of
 *                       a byte range that does not cover it) a miss first
 *                       reads the line from DRAM (read-modify-write: one
 *                       SIM_LLC_DRAM_RD, counted in partial_reads); a hit,
 *                       or a line an L2 held (its data is on chip), merges
 *                       without one.
 *     read hit          served from the LLC, becomes MRU.
 *     read miss         DRAM read, no allocation (DDIO does not allocate on
 *                       DMA reads).
 *   Any allocation that evicts a dirty line writes it back (64 B to DRAM),
 *   counted against the class whose access caused the eviction.
 *
 * With the cores' L2s attached (sim_llc_attach_l2, l2.h: the non-inclusive
 * Skylake-SP hierarchy), a core's access goes through sim_llc_core_access:
 *     L2 hit            served by the core's L2 (SIM_LLC_HIT | SIM_LLC_L2),
 *                       not an LLC access.
 *     L2 miss           another core's L2 holds it: forwarded (a hit; a
 *                       write invalidates the other copies); else an LLC
 *                       hit *moves* the line out of the LLC (whatever way,
 *                       DDIO ways too) and a miss reads DRAM without
 *                       allocating in the LLC. The line goes into the L2;
 *                       the L2's victim returns to the LLC, into the LRU way
 *                       of the mask of the class it came through, dirty if
 *                       it was (its eviction may write back a dirty line).
 *   and the NIC's accesses snoop the L2s: a DMA write invalidates an L2
 *   copy and the line enters the LLC in the "DDIO+" region — 2 ways apart
 *   from the DDIO ways (cfg.ddio_plus_mask, reference 0x003: ways 0-1), the
 *   LRU way of them, dirty — not the DDIO ways (the non-inclusive
 *   device-write rule reverse-engineered by Purnal et al., "Double
 *   Trouble", USENIX Security 2022); a DMA read of a line an L2 holds is
 *   served from it (counted as a hit).
 *
 * Not modelled (documented in docs/simulator-models.md): L1, prefetchers.
 *
 * Address → set: lines are grouped in aligned chunks of 32 lines (2 KiB,
 * one packet buffer). A chunk maps to a group of 32 sets and its 32 lines to
 * the 32 distinct sets of the group, so a buffer never conflicts with
 * itself, as with real set-index bits.
 *   SIM_LLC_INDEX_HASH  (default) memory is cut into aligned blocks of as
 *                       many chunks as there are groups (2 MiB for the
 *                       reference: one way's worth). Inside a block,
 *                       consecutive chunks take consecutive groups, from an
 *                       offset that is a hash of the block's address. This
 *                       idealises Intel's "complex addressing" — set-index
 *                       bits inside a slice, a hash of the address choosing
 *                       the slice: a contiguous buffer pool (hugepages)
 *                       spreads evenly over the sets, while independent
 *                       pages land independently.
 *   SIM_LLC_INDEX_BITS  set = line address bits (power-of-two set count):
 *                       a plain textbook cache, for tests and comparisons.
 *
 * Set sampling (speed technique): with sample_shift = k only one group of
 * sets in each run of 2^k consecutive groups is simulated (stratified random
 * sampling: the group within each stratum is picked by a hash of the
 * stratum). A set's behaviour depends only on the accesses to it, so a
 * random subset of sets is an unbiased sample of the cache; stratifying
 * makes every contiguous structure be sampled in proportion to its size.
 * Accesses to other sets are counted, and their outcome follows the
 * class's recent hit and writeback rates measured on the simulated sets
 * (per class and op, moving average over 2^rate_window_shift simulated
 * accesses): drawn at random for a single access, apportioned by error
 * diffusion for the lines of a range (see sim_llc_access_range). Reported
 * counts are ratio estimates: total accesses × sampled rate. Error:
 * binomial in the number of simulated accesses plus the variation between
 * set groups; with 2048 simulated sets (k = 4 of the reference 32768)
 * test_sim_llc finds hit rates of large or contiguous structures within
 * 0.02 of full simulation, and ±0.04 for a 5 MiB ring scattered over pages
 * (few simulated groups see it). k = 0 simulates every set exactly.
 *
 * The model is single-threaded (one simulation = one thread); counters are
 * plain integers.
 */
#ifndef SIM_LLC_H
#define SIM_LLC_H

#include <stdint.h>

#include "rng.h"
#include "rxb/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SIM_LLC_LINE        64u
#define SIM_LLC_LINE_SHIFT  6
#define SIM_LLC_CHUNK_LINES 32u /* lines per set group / chunk (2 KiB) */
#define SIM_LLC_MAX_WAYS    32u
#define SIM_LLC_MAX_CLASSES 32u
#define SIM_LLC_RBUF        64u /* 32-bit random values drawn ahead */

enum sim_llc_index {
	SIM_LLC_INDEX_HASH = 0,
	SIM_LLC_INDEX_BITS = 1,
};

enum sim_llc_op { SIM_LLC_RD = 0, SIM_LLC_WR = 1, SIM_LLC_OPS };

/* Flags returned by sim_llc_access(). */
#define SIM_LLC_HIT     1u  /* served by the LLC */
#define SIM_LLC_DRAM_RD 2u  /* one line read from DRAM (miss, or RFO) */
#define SIM_LLC_DRAM_WR 4u  /* a dirty victim was written back to DRAM */
#define SIM_LLC_SAMPLED 8u  /* a simulated set; else the outcome was drawn */
#define SIM_LLC_L2      16u /* served by the core's own L2 (with SIM_LLC_HIT) */

struct sim_llc_cfg {
	uint64_t size_bytes;        /* capacity: 22 MiB for the Xeon Silver 4216 */
	uint32_t ways;              /* associativity: 11; 1..32 */
	enum sim_llc_index index;   /* address → set mapping */
	uint32_t sample_shift;      /* simulate 1 in 2^k set groups (k <= 16); 0 = all */
	uint32_t rate_window_shift; /* 0 → default 10 (1024 simulated accesses) */
	uint64_t seed;              /* for drawing outcomes of unsampled accesses */
	uint32_t ddio_plus_mask;    /* ways a DMA write to a line a core's L2 holds
				     * allocates into ("DDIO+" region, Double
				     * Trouble); within the ways; 0 = the I/O
				     * class's own mask. Reference: 0x003 */
};

/* The reference LLC: Xeon Silver 4216, 22 MiB, 11 ways, hashed, k = 4,
 * DDIO+ ways 0-1. */
void sim_llc_cfg_reference(struct sim_llc_cfg *cfg);

/* Raw counters of one class and op. s_* count simulated-set accesses only;
 * d_* count the outcomes drawn for unsampled accesses. */
struct sim_llc_counts {
	uint64_t accesses; /* accesses that reached the LLC (L2 misses) */
	uint64_t s_accesses, s_hits, s_dram_rd, s_dram_wr;
	uint64_t d_hits, d_dram_rd, d_dram_wr;
	/* a core's accesses through its L2 (sim_llc_core_access), hits */
	uint64_t l2_accesses, s_l2acc, s_l2hits, d_l2hits;
	/* I/O writes: DRAM reads of partial lines (in s_dram_rd / d_dram_rd too) */
	uint64_t s_prd, d_prd;
};

/* Estimates for a class (ratio estimator over the simulated sets, scaled to
 * all accesses; exact when sample_shift = 0). */
struct sim_llc_stats {
	uint64_t accesses;
	double hits;
	double misses;
	double dram_rd;    /* lines read from DRAM */
	double partial_rd; /* of those, partial-line DMA writes' reads */
	double dram_wr;    /* dirty lines written back */
	double hit_rate;   /* hits / accesses; 0 when there were none */
};

/* One class and op: its counters, the rates learned on the simulated sets
 * and the carries of range apportioning. */
struct sim_llc_lane {
	struct sim_llc_counts c;
	/* Recent rates on simulated sets, Q30 fixed point: P(hit) and
	 * P(dirty victim | allocating miss). n_* count observations for the
	 * warm-up average before the moving average takes over. */
	int64_t p_hit, p_wb;
	uint64_t n_hit, n_wb;
	/* P(dirty victim | hit) — a core's LLC hit may still write back: its
	 * L2's victim returns to the LLC — for drawn hits (Q30), and P(L2 hit)
	 * of a core's accesses, with their warm-up counts. */
	int64_t p_hwb, p_l2;
	uint64_t n_hwb, n_l2;
	/* I/O writes with L2s: P(the line was in an L2, invalidated), for
	 * the l2_snooped count of drawn ranges (Q30), its warm-up count and
	 * carry */
	int64_t p_snp;
	uint64_t n_snp, carry_snp;
	/* I/O writes of partial lines: P(DRAM read | partial line) — it was
	 * neither in the LLC nor in an L2 — (Q30), its warm-up count and carry */
	int64_t p_prd;
	uint64_t n_prd, carry_prd;
	/* Fractional hits / write-backs carried between ranges (Q30). */
	uint64_t carry_hit, carry_wb, carry_hwb;
	uint8_t allocates;  /* a miss allocates (all but DMA reads) */
	uint8_t reads_dram; /* a miss reads DRAM (all but DMA writes) */
};

struct sim_llc_class {
	char name[24];
	uint32_t mask; /* allocation ways */
	uint8_t io;    /* DMA (DDIO) semantics */
	struct sim_llc_lane l[SIM_LLC_OPS];
};

struct sim_llc {
	uint32_t ways;
	uint32_t nsets;      /* sets of the modelled cache */
	uint32_t ngroups;    /* nsets / 32 */
	uint32_t sgroups;    /* group records: one per stratum of 2^shift groups */
	uint32_t nsampled;   /* groups actually simulated (<= sgroups) */
	uint32_t block_bits; /* chunks per address block: 2^block_bits */
	uint32_t stride;     /* bytes per set record */
	uint32_t rank_slots; /* 16 or 32 LRU rank bytes per record */
	uint32_t tag_off;    /* offset of the tags in a record */
	uint32_t sample_shift;
	uint32_t rate_shift;
	enum sim_llc_index index;
	uint8_t *sets;   /* sgroups × 32 set records */
	uint8_t *owners; /* per set record: the class owning each way */
	uint32_t nclasses;
	struct sim_llc_class cls[SIM_LLC_MAX_CLASSES];
	struct sim_rng rng;
	/* Random bits for drawn outcomes, drawn ahead: the 32-bit halves of
	 * successive 64-bit draws (low half first), rbuf_pos the next one.
	 * Refilled when used up, so the stream is the same as drawing one
	 * 64-bit value every second use. */
	uint32_t rbuf[SIM_LLC_RBUF];
	uint32_t rbuf_pos;
	uint64_t size_bytes;
	struct sim_l2 *l2; /* the cores' L2s (NULL: none, inclusive LLC) */
	uint32_t way_bits; /* mask of the ways that exist */
	/* per class: lines it allocated that are in simulated sets */
	int64_t lines[SIM_LLC_MAX_CLASSES];
	uint64_t block_mask;         /* 2^block_bits − 1 */
	uint32_t *gmap;              /* group -> record group or SIM_LLC_GROUP_NONE
				  * (when the group count is at most 2^20) */
	struct sim_llc_bmemo *bmemo; /* SIM_LLC_BMEMO recent blocks' hashed offsets */
	uint32_t plus_mask;          /* cfg.ddio_plus_mask (0: the class's mask) */
};

/* A block's hashed group offset, remembered (direct-mapped by the block's
 * low bits: the 2 MiB regions of an address map rarely collide). */
#define SIM_LLC_BMEMO 1024u
struct sim_llc_bmemo {
	uint64_t block; /* UINT64_MAX: empty */
	uint32_t off;
};

int sim_llc_init(struct sim_llc *llc, const struct sim_llc_cfg *cfg, struct rxb_err *err);
void sim_llc_free(struct sim_llc *llc);

/* Mask of `n` ways starting at way `first` (way 0 = bit 0). */
static inline uint32_t sim_llc_ways(uint32_t first, uint32_t n)
{
	uint64_t m = ((n >= 32 ? 0xffffffffull : (1ull << n) - 1) << first);

	return (uint32_t)m;
}

/* Intel's default DDIO allocation mask: the two highest ways (IIO LLC WAYS
 * = 0x600 on an 11-way LLC). */
static inline uint32_t sim_llc_ddio_default(uint32_t ways)
{
	return sim_llc_ways(ways - 2, 2);
}

/* Add an accessor class; returns its id (>= 0) or a negative errno. */
int sim_llc_add_class(struct sim_llc *llc, const char *name, uint32_t way_mask, int io,
		      struct rxb_err *err);
/* Change a class's allocation mask (resctrl schemata write). Lines already
 * cached stay where they are, as on real hardware. */
int sim_llc_set_mask(struct sim_llc *llc, unsigned cls, uint32_t way_mask, struct rxb_err *err);

/* ---- the hot half, inline (accesses to sets that are not simulated);
 * simulated sets go to the out-of-line functions below ---- */

#define SIM_LLC_GROUP_NONE UINT32_MAX
#define SIM_LLC_RATE_ONE   (1ll << 30) /* rates are Q30 fixed point */

/* Which group of a stratum of 2^sample_shift consecutive groups is
 * simulated: a multiplicative hash of the stratum number (stratified random
 * sampling: every run of consecutive groups is sampled in proportion, and a
 * pattern with a power-of-two stride still meets different residues). */
static inline uint32_t sim_llc__stratum_pick(const struct sim_llc *llc, uint32_t stratum)
{
	return ((stratum + 1) * 0x9e3779b1u) >> (32 - llc->sample_shift);
}

/* Map a 32-line chunk to its set group, and the group to its simulated
 * record. Returns the record's group index, or SIM_LLC_GROUP_NONE when the
 * group is not simulated. Line j of the chunk goes to set j of the group,
 * as set-index bits 6-10 would place it. */
static inline uint32_t sim_llc__chunk_group(const struct sim_llc *llc, uint64_t chunk)
{
	uint32_t g, stratum;

	if (llc->index == SIM_LLC_INDEX_HASH) {
		/* Within a block of 2^block_bits chunks, consecutive chunks
		 * take consecutive groups (like set-index bits: a contiguous
		 * buffer pool spreads evenly); each block starts at a hashed
		 * offset (like the slice hash: blocks land independently).
		 * Lemire's multiply-shift maps the hash onto any group count. */
		uint64_t block = chunk >> llc->block_bits;
		struct sim_llc_bmemo *m = &llc->bmemo[block & (SIM_LLC_BMEMO - 1)];

		if (m->block != block) {
			m->block = block;
			m->off = (uint32_t)(((sim_mix64(block) >> 32) * (uint64_t)llc->ngroups) >>
					    32);
		}
		g = (uint32_t)(chunk & llc->block_mask) + m->off;
		/* Wrap without a branch: it would be taken at random. */
		g -= llc->ngroups & -(uint32_t)(g >= llc->ngroups);
	} else {
		g = (uint32_t)(chunk & (llc->ngroups - 1));
	}
	if (llc->gmap)
		return llc->gmap[g];
	if (llc->sample_shift == 0)
		return g;
	stratum = g >> llc->sample_shift;
	if ((g & ((1u << llc->sample_shift) - 1)) != sim_llc__stratum_pick(llc, stratum))
		return SIM_LLC_GROUP_NONE;
	return stratum;
}

void sim_llc__refill(struct sim_llc *llc);

/* 32 random bits: a 64-bit draw cut in two (its low half first). */
static inline uint32_t sim_llc__rnd32(struct sim_llc *llc)
{
	if (llc->rbuf_pos == SIM_LLC_RBUF)
		sim_llc__refill(llc);
	return llc->rbuf[llc->rbuf_pos++];
}

/* Outcome of an access to a set that is not simulated, drawn from the
 * class's rates on the simulated sets: 16 random bits against P(hit), 16
 * against P(dirty victim). Branch-free, because the outcome is random and
 * a mispredicted branch would cost more than the draw. */
static inline uint32_t sim_llc__drawn(struct sim_llc *llc, struct sim_llc_lane *L)
{
	uint32_t r = sim_llc__rnd32(llc);
	uint32_t hit = (r & 0xffff) < (uint32_t)(L->p_hit >> 14);
	uint32_t rd = (hit ^ 1) & L->reads_dram;
	/* A drawn hit writes back with the hits' rate (a core's L2 victim
	 * coming back; 0 without L2s), a drawn miss with the misses' rate. */
	uint32_t pwb = (uint32_t)((L->p_wb ^ ((L->p_wb ^ L->p_hwb) & -(int64_t)hit)) >> 14);
	uint32_t wb = (hit | L->allocates) & ((r >> 16) < pwb);

	L->c.d_hits += hit;
	L->c.d_dram_rd += rd;
	L->c.d_dram_wr += wb;
	return hit * SIM_LLC_HIT | rd * SIM_LLC_DRAM_RD | wb * SIM_LLC_DRAM_WR;
}

/* Out of line: one line of a simulated set (group = its record's group). */
uint32_t sim_llc__access_sampled(struct sim_llc *llc, unsigned cls, enum sim_llc_op op,
				 uint32_t group, uint64_t line);

/* One line access by class `cls`; returns SIM_LLC_* flags. */
static inline uint32_t sim_llc_access(struct sim_llc *llc, unsigned cls, enum sim_llc_op op,
				      uint64_t addr)
{
	struct sim_llc_lane *L = &llc->cls[cls].l[op];
	uint64_t line = addr >> SIM_LLC_LINE_SHIFT;
	uint32_t g = sim_llc__chunk_group(llc, line / SIM_LLC_CHUNK_LINES);

	L->c.accesses++;
	if (g == SIM_LLC_GROUP_NONE)
		return sim_llc__drawn(llc, L);
	return sim_llc__access_sampled(llc, cls, op, g, line);
}

/* The cores' L2s (l2.h) behind this LLC: core accesses then go through
 * them, and I/O accesses snoop them. */
struct sim_l2;
void sim_llc_attach_l2(struct sim_llc *llc, struct sim_l2 *l2);

/* Out of line: a core's access to a line of a simulated set. */
uint32_t sim_llc__core_sampled(struct sim_llc *llc, uint32_t id, unsigned cls, enum sim_llc_op op,
			       uint32_t group, uint64_t line);

/* A core's (or a hog's: cache `id` of the L2s) access as class `cls`;
 * returns SIM_LLC_* flags (SIM_LLC_L2 with SIM_LLC_HIT: its L2 served it).
 * Without L2s, sim_llc_access. A line of a set that is not simulated gets
 * its outcome drawn: an L2 hit with the class's P(L2 hit), else an LLC
 * outcome as sim_llc_access draws it. */
static inline uint32_t sim_llc_core_access(struct sim_llc *llc, uint32_t id, unsigned cls,
					   enum sim_llc_op op, uint64_t addr)
{
	struct sim_llc_lane *L = &llc->cls[cls].l[op];
	uint64_t line = addr >> SIM_LLC_LINE_SHIFT;
	uint32_t g;

	if (llc->l2 == NULL)
		return sim_llc_access(llc, cls, op, addr);
	g = sim_llc__chunk_group(llc, line / SIM_LLC_CHUNK_LINES);
	L->c.l2_accesses++;
	if (g != SIM_LLC_GROUP_NONE)
		return sim_llc__core_sampled(llc, id, cls, op, g, line);
	if ((sim_llc__rnd32(llc) & 0xffff) < (uint32_t)(L->p_l2 >> 14)) {
		L->c.d_l2hits++;
		return SIM_LLC_HIT | SIM_LLC_L2;
	}
	L->c.accesses++;
	return sim_llc__drawn(llc, L);
}

/* The L2 side of a class's core accesses: accesses, hits (estimated like
 * sim_llc_stats), hit rate; op = SIM_LLC_OPS sums reads and writes. */
struct sim_llc_stats;
void sim_llc_l2_stats(const struct sim_llc *llc, unsigned cls, enum sim_llc_op op,
		      struct sim_llc_stats *st);

/* Totals of a range access. */
struct sim_llc_range {
	uint32_t lines;
	uint32_t hits;
	uint32_t dram_rd;
	uint32_t dram_wr;
	/* I/O writes: lines a core's L2 held, invalidated by the snoop and
	 * then written as misses into the DDIO+ ways (on chip: no DRAM
	 * involved) */
	uint32_t l2_snooped;
	/* I/O writes (sim_llc_dma_write_range, _noalloc_range): DRAM reads of
	 * partial lines (read-modify-write), also counted in dram_rd */
	uint32_t partial_reads;
};

/* Access every line overlapping [addr, addr + len); results are added to
 * *out (zero it first). Cost: one hash per 2 KiB chunk, one simulated set
 * per line of a sampled chunk, O(1) for a chunk that is not sampled (its
 * lines' outcomes are apportioned from the class's rates by error
 * diffusion: within one line of the expectation, exact in total). */
static inline void sim_llc_access_range(struct sim_llc *llc, unsigned cls, enum sim_llc_op op,
					uint64_t addr, uint64_t len, struct sim_llc_range *out);

/* Out of line: the lines [line, end] of one chunk, in simulated sets. */
void sim_llc__range_sampled(struct sim_llc *llc, unsigned cls, enum sim_llc_op op, uint32_t group,
			    uint64_t line, uint64_t end, struct sim_llc_range *out);

/* Outcomes of n lines of a range in sets that are not simulated, at O(1)
 * cost: the expected numbers (n · P(hit), misses · P(write-back)) are
 * apportioned by error diffusion — the fractional remainder is carried to
 * the class's next range — so totals match the rates exactly over time and
 * each range is within one line of its expectation. Drawing a random number
 * per line would cost ~3 ns × 24 lines per packet; single-line accesses
 * still draw (their individual outcome sets a latency). */
static inline __attribute__((always_inline)) void sim_llc__range_drawn_np(struct sim_llc_lane *L,
									  uint32_t n, uint32_t np,
									  struct sim_llc_range *out)
{
	uint32_t hits, misses, wbs = 0, sn = 0;

	L->carry_hit += (uint64_t)n * (uint64_t)L->p_hit;
	hits = (uint32_t)(L->carry_hit >> 30);
	L->carry_hit &= SIM_LLC_RATE_ONE - 1;
	if (hits > n)
		hits = n;
	misses = n - hits;
	if (L->allocates) {
		L->carry_wb += (uint64_t)misses * (uint64_t)L->p_wb;
		wbs = (uint32_t)(L->carry_wb >> 30);
		L->carry_wb &= SIM_LLC_RATE_ONE - 1;
		if (wbs > misses)
			wbs = misses;
	}
	if (L->p_snp) { /* DMA writes to lines an L2 held */
		L->carry_snp += (uint64_t)misses * (uint64_t)L->p_snp;
		sn = (uint32_t)(L->carry_snp >> 30);
		L->carry_snp &= SIM_LLC_RATE_ONE - 1;
		sn = sn > misses ? misses : sn;
		out->l2_snooped += sn;
	}
	if (np) { /* partial lines of a DMA write: a read-modify-write each */
		uint32_t pr, cap = misses - sn; /* only a line off chip is read */

		L->carry_prd += (uint64_t)np * (uint64_t)L->p_prd;
		pr = (uint32_t)(L->carry_prd >> 30);
		L->carry_prd &= SIM_LLC_RATE_ONE - 1;
		pr = pr > np ? np : pr;
		pr = pr > cap ? cap : pr;
		L->c.d_prd += pr;
		L->c.d_dram_rd += pr;
		out->partial_reads += pr;
		out->dram_rd += pr;
	}
	if (L->p_hwb) { /* hits' write-backs (L2 victims) */
		uint32_t hw;

		L->carry_hwb += (uint64_t)hits * (uint64_t)L->p_hwb;
		hw = (uint32_t)(L->carry_hwb >> 30);
		L->carry_hwb &= SIM_LLC_RATE_ONE - 1;
		wbs += hw > hits ? hits : hw;
	}
	L->c.d_hits += hits;
	L->c.d_dram_wr += wbs;
	out->hits += hits;
	out->dram_wr += wbs;
	if (L->reads_dram) {
		L->c.d_dram_rd += misses;
		out->dram_rd += misses;
	}
}

static inline void sim_llc__range_drawn(struct sim_llc_lane *L, uint32_t n,
					struct sim_llc_range *out)
{
	sim_llc__range_drawn_np(L, n, 0, out);
}

/* The lines [line, end] of one chunk: one sampling decision, since a
 * chunk's lines all live in one set group. */
static inline __attribute__((always_inline)) void sim_llc__range_chunk(
	struct sim_llc *llc, struct sim_llc_lane *L, unsigned cls, enum sim_llc_op op,
	uint64_t line, uint64_t end, struct sim_llc_range *out)
{
	uint32_t n = (uint32_t)(end - line + 1);
	uint32_t g = sim_llc__chunk_group(llc, line / SIM_LLC_CHUNK_LINES);

	L->c.accesses += n;
	out->lines += n;
	if (g == SIM_LLC_GROUP_NONE)
		sim_llc__range_drawn(L, n, out);
	else
		sim_llc__range_sampled(llc, cls, op, g, line, end, out);
}

static inline __attribute__((always_inline)) void sim_llc_access_range(struct sim_llc *llc,
								       unsigned cls,
								       enum sim_llc_op op,
								       uint64_t addr, uint64_t len,
								       struct sim_llc_range *out)
{
	struct sim_llc_lane *L = &llc->cls[cls].l[op];
	uint64_t line, last;

	if (len == 0)
		return;
	line = addr >> SIM_LLC_LINE_SHIFT;
	last = (addr + len - 1) >> SIM_LLC_LINE_SHIFT;
	while (line <= last) {
		uint64_t end = (line | (SIM_LLC_CHUNK_LINES - 1)) < last
				       ? line | (SIM_LLC_CHUNK_LINES - 1)
				       : last;

		sim_llc__range_chunk(llc, L, cls, op, line, end, out);
		line = end + 1;
	}
}

/* Partial lines of the byte range [addr, addr + len): its first line when
 * addr is not line-aligned, its last when addr + len is not; a range inside
 * one line is one partial line. 0, 1 or 2. */
static inline uint32_t sim_llc_partial_lines(uint64_t addr, uint64_t len)
{
	uint64_t first, last;

	if (len == 0)
		return 0;
	first = addr >> SIM_LLC_LINE_SHIFT;
	last = (addr + len - 1) >> SIM_LLC_LINE_SHIFT;
	if (first == last)
		return ((addr | (addr + len)) & (SIM_LLC_LINE - 1)) != 0;
	return ((addr & (SIM_LLC_LINE - 1)) != 0) + (((addr + len) & (SIM_LLC_LINE - 1)) != 0);
}

/* Out of line: the lines [line, end] of one chunk of a DMA write, in
 * simulated sets; lines pf and pl (UINT64_MAX: none) are partial. */
void sim_llc__range_sampled_part(struct sim_llc *llc, unsigned cls, uint32_t group, uint64_t line,
				 uint64_t end, uint64_t pf, uint64_t pl, struct sim_llc_range *out);

/* A device (DMA) write of exactly the bytes [addr, addr + len) by I/O
 * class cls, DDIO on: sim_llc_access_range(cls, SIM_LLC_WR, ...) except
 * that the first and last lines, when the range covers them only in part,
 * are partial writes — a miss (the line neither in the LLC nor in an L2)
 * reads the line from DRAM first (out->partial_reads and out->dram_rd; the
 * lane's DRAM reads). Chunks that are not simulated apportion their partial
 * lines' reads from the class's P(read | partial line) on the simulated
 * sets, by error diffusion, at most one per partial line that missed.
 * Results are added to *out (zero it first); the caller accounts
 * out->dram_rd × 64 B read and out->dram_wr × 64 B written. */
static inline __attribute__((always_inline)) void sim_llc_dma_write_range(
	struct sim_llc *llc, unsigned cls, uint64_t addr, uint64_t len, struct sim_llc_range *out)
{
	struct sim_llc_lane *L = &llc->cls[cls].l[SIM_LLC_WR];
	uint64_t line, last, pf, pl;

	if (len == 0)
		return;
	line = addr >> SIM_LLC_LINE_SHIFT;
	last = (addr + len - 1) >> SIM_LLC_LINE_SHIFT;
	pf = addr & (SIM_LLC_LINE - 1) ? line : UINT64_MAX;
	pl = (addr + len) & (SIM_LLC_LINE - 1) ? last : UINT64_MAX;
	while (line <= last) {
		uint64_t end = (line | (SIM_LLC_CHUNK_LINES - 1)) < last
				       ? line | (SIM_LLC_CHUNK_LINES - 1)
				       : last;
		uint32_t n = (uint32_t)(end - line + 1);
		uint32_t g = sim_llc__chunk_group(llc, line / SIM_LLC_CHUNK_LINES);

		L->c.accesses += n;
		out->lines += n;
		if (g == SIM_LLC_GROUP_NONE)
			/* pf can only be this chunk's first line, pl its last */
			sim_llc__range_drawn_np(L, n, (pf == line) + (pl == end && pl != pf), out);
		else
			sim_llc__range_sampled_part(llc, cls, g, line, end, pf, pl, out);
		line = end + 1;
	}
}

/* DMA write with DDIO disabled (IIO LLC WAYS = 0): the write goes to
 * memory; every line of [addr, addr + len) that the LLC holds is
 * invalidated (a dirty copy is discarded without a write-back: the DMA
 * overwrites the whole line), and nothing is allocated. Only simulated sets
 * are touched; accesses to other sets follow the readers' sampled rates.
 * Returns the lines the range covers (each one a 64 B DRAM write for the
 * caller to account). */
uint32_t sim_llc_dma_write_noalloc(struct sim_llc *llc, uint64_t addr, uint64_t len);

/* The same for the exact bytes [addr, addr + len), with partial lines: a
 * partial first / last line is merged in memory, one DRAM read each
 * (whatever the caches held: their copies are invalidated as above; a dirty
 * copy's other bytes are taken into the merge, no separate write-back is
 * counted). Adds to *out (zero it first): lines and dram_wr += the lines
 * the range covers, dram_rd and partial_reads += its partial lines
 * (sim_llc_partial_lines). Returns the lines, as sim_llc_dma_write_noalloc. */
uint32_t sim_llc_dma_write_noalloc_range(struct sim_llc *llc, uint64_t addr, uint64_t len,
					 struct sim_llc_range *out);

/* Is the line of `addr` cached? 1 / 0, or -1 when its set is not simulated
 * (tests and debugging). */
int sim_llc_probe(const struct sim_llc *llc, uint64_t addr);
/* The way that holds the line of `addr`: 0..ways-1, -1 when it is not
 * cached, -2 when its set is not simulated (tests and debugging). */
int sim_llc_probe_way(const struct sim_llc *llc, uint64_t addr);

/* Estimates for a class; op = SIM_LLC_OPS sums reads and writes. */
void sim_llc_stats(const struct sim_llc *llc, unsigned cls, enum sim_llc_op op,
		   struct sim_llc_stats *st);
/* Bytes of the LLC currently holding lines this class allocated (scaled
 * from the simulated sets). */
double sim_llc_occupancy(const struct sim_llc *llc, unsigned cls);
/* Zero the counters (not the cache contents or the learned rates): for
 * measuring after a warm-up. */
void sim_llc_reset_stats(struct sim_llc *llc);
/* Forget what class cls has learned (counters and the rates drawn for
 * unsampled sets): after a set-up phase whose accesses (a prefetch that
 * misses by construction) say nothing about the class's traffic. */
void sim_llc_forget_class(struct sim_llc *llc, unsigned cls);
/* Invalidate every line (dirty lines are dropped, not counted). */
void sim_llc_invalidate(struct sim_llc *llc);

#ifdef __cplusplus
}
#endif
#endif /* SIM_LLC_H */
