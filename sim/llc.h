/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/llc.h — last-level cache model with DDIO and way partitioning (CAT).
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
 *                       (a DMA write covers the whole line), line dirty
 *                       ("write allocate").
 *     read hit          served from the LLC, becomes MRU.
 *     read miss         DRAM read, no allocation (DDIO does not allocate on
 *                       DMA reads).
 *   Any allocation that evicts a dirty line writes it back (64 B to DRAM),
 *   counted against the class whose access caused the eviction.
 *
 * Not modelled (documented in docs/simulator-models.md): the cores' L1/L2
 * and the non-inclusive Skylake-SP hierarchy (a line read by a core stays
 * where it is in this model; on real hardware it may move to L2 and return
 * to any LLC way when L2 evicts it), partial-line DMA writes, prefetchers.
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

#define SIM_LLC_LINE 64u
#define SIM_LLC_LINE_SHIFT 6
#define SIM_LLC_CHUNK_LINES 32u    /* lines per set group / chunk (2 KiB) */
#define SIM_LLC_MAX_WAYS 32u
#define SIM_LLC_MAX_CLASSES 32u

enum sim_llc_index {
	SIM_LLC_INDEX_HASH = 0,
	SIM_LLC_INDEX_BITS = 1,
};

enum sim_llc_op {
	SIM_LLC_RD = 0,
	SIM_LLC_WR = 1,
	SIM_LLC_OPS
};

/* Flags returned by sim_llc_access(). */
#define SIM_LLC_HIT 1u     /* served by the LLC */
#define SIM_LLC_DRAM_RD 2u /* one line read from DRAM (miss, or RFO) */
#define SIM_LLC_DRAM_WR 4u /* a dirty victim was written back to DRAM */
#define SIM_LLC_SAMPLED 8u /* a simulated set; else the outcome was drawn */

struct sim_llc_cfg {
	uint64_t size_bytes;        /* capacity: 22 MiB for the Xeon Silver 4216 */
	uint32_t ways;              /* associativity: 11; 1..32 */
	enum sim_llc_index index;   /* address → set mapping */
	uint32_t sample_shift;      /* simulate 1 in 2^k set groups (k <= 16); 0 = all */
	uint32_t rate_window_shift; /* 0 → default 10 (1024 simulated accesses) */
	uint64_t seed;              /* for drawing outcomes of unsampled accesses */
	/* Non-inclusive hierarchy (Skylake-SP and later Xeon SP): a CPU hit on
	 * a line that an I/O class allocated (DMA-written into a DDIO way)
	 * moves the line to the LRU way of the CPU class's mask other than the
	 * one it occupied, and the CPU class owns it from then on — collapsing
	 * in time its trip to the core's L2 and its return to the LLC on L2
	 * eviction. 0 (default): lines stay where they are. */
	int migrate_io_lines;
};

/* The reference LLC: Xeon Silver 4216, 22 MiB, 11 ways, hashed, k = 4. */
void sim_llc_cfg_reference(struct sim_llc_cfg *cfg);

/* Raw counters of one class and op. s_* count simulated-set accesses only;
 * d_* count the outcomes drawn for unsampled accesses. */
struct sim_llc_counts {
	uint64_t accesses;
	uint64_t s_accesses, s_hits, s_dram_rd, s_dram_wr;
	uint64_t d_hits, d_dram_rd, d_dram_wr;
};

/* Estimates for a class (ratio estimator over the simulated sets, scaled to
 * all accesses; exact when sample_shift = 0). */
struct sim_llc_stats {
	uint64_t accesses;
	double hits;
	double misses;
	double dram_rd;   /* lines read from DRAM */
	double dram_wr;   /* dirty lines written back */
	double hit_rate;  /* hits / accesses; 0 when there were none */
};

struct sim_llc_class {
	char name[24];
	uint32_t mask;                    /* allocation ways */
	uint8_t io;                       /* DMA (DDIO) semantics */
	struct sim_llc_counts c[SIM_LLC_OPS];
	/* Recent rates on simulated sets, Q30 fixed point: P(hit) and
	 * P(dirty victim | allocating miss). n_* count observations for the
	 * warm-up average before the moving average takes over. */
	int64_t p_hit[SIM_LLC_OPS], p_wb[SIM_LLC_OPS];
	uint64_t n_hit[SIM_LLC_OPS], n_wb[SIM_LLC_OPS];
	/* migrate_io_lines: P(dirty victim | hit) — a migrating hit may evict
	 * a dirty line — for drawn hits (Q30), with its warm-up count. */
	int64_t p_hwb[SIM_LLC_OPS];
	uint64_t n_hwb[SIM_LLC_OPS];
	/* Fractional hits / write-backs carried between ranges (Q30). */
	uint64_t carry_hit[SIM_LLC_OPS], carry_wb[SIM_LLC_OPS], carry_hwb[SIM_LLC_OPS];
	int64_t lines; /* lines this class allocated that are in simulated sets */
};

struct sim_llc {
	uint32_t ways;
	uint32_t nsets;          /* sets of the modelled cache */
	uint32_t ngroups;        /* nsets / 32 */
	uint32_t sgroups;        /* group records: one per stratum of 2^shift groups */
	uint32_t nsampled;       /* groups actually simulated (<= sgroups) */
	uint32_t block_bits;     /* chunks per address block: 2^block_bits */
	uint32_t stride;         /* bytes per set record */
	uint32_t rank_slots;     /* 16 or 32 LRU rank bytes per record */
	uint32_t tag_off;        /* offset of the tags in a record */
	uint32_t sample_shift;
	uint32_t rate_shift;
	enum sim_llc_index index;
	uint8_t *sets;           /* sgroups × 32 set records */
	uint32_t nclasses;
	struct sim_llc_class cls[SIM_LLC_MAX_CLASSES];
	struct sim_rng rng;
	uint64_t rbits;          /* buffered random bits for drawn outcomes */
	uint32_t rbits_left;     /* 32-bit draws left in rbits */
	uint64_t size_bytes;
	int migrate_io_lines;
	uint64_t migrated;       /* lines moved out of I/O ways (simulated sets) */
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
int sim_llc_set_mask(struct sim_llc *llc, unsigned cls, uint32_t way_mask,
		     struct rxb_err *err);

/* One line access by class `cls`; returns SIM_LLC_* flags. */
uint32_t sim_llc_access(struct sim_llc *llc, unsigned cls, enum sim_llc_op op, uint64_t addr);

/* Totals of a range access. */
struct sim_llc_range {
	uint32_t lines;
	uint32_t hits;
	uint32_t dram_rd;
	uint32_t dram_wr;
};

/* Access every line overlapping [addr, addr + len); results are added to
 * *out (zero it first). Cost: one hash per 2 KiB chunk, one simulated set
 * per line of a sampled chunk, O(1) for a chunk that is not sampled (its
 * lines' outcomes are apportioned from the class's rates by error
 * diffusion: within one line of the expectation, exact in total). */
void sim_llc_access_range(struct sim_llc *llc, unsigned cls, enum sim_llc_op op, uint64_t addr,
			  uint64_t len, struct sim_llc_range *out);

/* DMA write with DDIO disabled (IIO LLC WAYS = 0): the write goes to
 * memory; every line of [addr, addr + len) that the LLC holds is
 * invalidated (a dirty copy is discarded without a write-back: the DMA
 * overwrites the whole line), and nothing is allocated. Only simulated sets
 * are touched; accesses to other sets follow the readers' sampled rates.
 * Returns the lines the range covers (each one a 64 B DRAM write for the
 * caller to account). */
uint32_t sim_llc_dma_write_noalloc(struct sim_llc *llc, uint64_t addr, uint64_t len);

/* Is the line of `addr` cached? 1 / 0, or -1 when its set is not simulated
 * (tests and debugging). */
int sim_llc_probe(const struct sim_llc *llc, uint64_t addr);

/* Estimates for a class; op = SIM_LLC_OPS sums reads and writes. */
void sim_llc_stats(const struct sim_llc *llc, unsigned cls, enum sim_llc_op op,
		   struct sim_llc_stats *st);
/* Bytes of the LLC currently holding lines this class allocated (scaled
 * from the simulated sets). */
double sim_llc_occupancy(const struct sim_llc *llc, unsigned cls);
/* Zero the counters (not the cache contents or the learned rates): for
 * measuring after a warm-up. */
void sim_llc_reset_stats(struct sim_llc *llc);
/* Invalidate every line (dirty lines are dropped, not counted). */
void sim_llc_invalidate(struct sim_llc *llc);

#ifdef __cplusplus
}
#endif
#endif /* SIM_LLC_H */
