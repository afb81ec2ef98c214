/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/models/l2.h — the cores' private L2 caches and the snoop filter that finds
 * a line in them (docs/simulator-models.md §4.6).
 *
 * Skylake-SP (docs/calibration.md "Skylake-SP private caches"): each core has a
 * 1 MiB 16-way L2, and the LLC is non-inclusive — a line a core reads or
 * writes moves into its L2 (out of the LLC), and comes back to the LLC only
 * when the L2 evicts it. This file holds the L2s (set-associative, exact
 * LRU, write-back) and the snoop filter; the LLC model (llc.c,
 * sim_llc_core_access) moves lines between them and the LLC.
 *
 * Set sampling, consistent with the LLC's (§4.4): an L2 holds only lines
 * whose LLC set group is simulated — 1 in 2^k of all lines — so each L2
 * simulates 1 in 2^k of its sets (nsets >> k, at least one): every
 * simulated set then sees the load a real set sees. Line j of a 32-line
 * chunk goes to set j of its group, as address bits 6-10 would place it;
 * the group is the chunk's address bits (k = 0: exact bit indexing) or, with
 * k > 0, a hash of the chunk (the simulated chunks are a pseudo-random
 * subset of memory, so their low address bits carry no pattern to keep).
 *
 * Snoop filter: which L2s may hold a line, for the NIC's DMA writes (which
 * must invalidate an L2 copy) and reads (served from it), and for a core's
 * miss on a line another core holds (a cache-to-cache transfer). An exact
 * hash table line → coarse vector: bit (cache id mod 64) set for every
 * cache that holds the line (Intel's snoop filter is a directory of the
 * same kind; coarse vectors are what directories use beyond 64 sharers).
 * With at most 64 caches it is exact; beyond, a set bit is resolved by
 * looking in each cache of its residue. Open addressing with linear probing
 * at a load of at most 1/2 (sized for every simulated L2 line), so a lookup
 * is one or two probes. Only simulated lines enter it.
 */
#ifndef SIM_L2_H
#define SIM_L2_H

#include <stdint.h>

#include "rxb/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SIM_L2_MAX_WAYS 16u
#define SIM_L2_NONE     UINT32_MAX /* no cache (sim_l2_invalidate_line: all of them) */

struct sim_l2_cfg {
	uint64_t size_bytes;   /* per cache: 1 MiB on Skylake-SP */
	uint32_t ways;         /* 16 on Skylake-SP; 1..16 */
	uint32_t caches;       /* how many (cores, hogs) */
	uint32_t sample_shift; /* the LLC's: simulate 1 in 2^k of the sets */
};

/* One set: signatures, LRU ranks, valid and dirty ways, the LLC class each
 * line came through (its victim goes back into that class's ways), tags. */
struct sim_l2_set {
	uint8_t sig[16];
	uint8_t rank[16];
	uint32_t valid, dirty;
	uint8_t cls[16];
	uint8_t pad[8];
	uint64_t tag[SIM_L2_MAX_WAYS];
};

struct sim_l2_dirent {
	uint64_t line; /* CS_TAG_NONE: empty */
	uint64_t mask; /* bit (cache id mod 64) of each cache holding it */
};

struct sim_l2 {
	uint32_t caches, ways, way_bits;
	uint32_t nsets; /* simulated sets per cache (a power of two) */
	uint32_t sample_shift;
	struct sim_l2_set *set; /* caches × nsets */
	struct sim_l2_dirent *dir;
	uint64_t dir_mask; /* entries − 1 */
	uint32_t dir_bits;
	/* counts over the whole run (simulated lines only) */
	uint64_t transfers;
};

/* A line the L2 let go of. */
struct sim_l2_victim {
	uint64_t line;
	uint8_t valid, dirty, cls;
	uint8_t shared; /* another cache still holds the line */
};

int sim_l2_init(struct sim_l2 *l2, const struct sim_l2_cfg *cfg, struct rxb_err *err);
void sim_l2_free(struct sim_l2 *l2);
/* Empty every cache and the snoop filter. */
void sim_l2_invalidate(struct sim_l2 *l2);

/* Is `line` in cache `id`? On a hit: MRU, and dirty when `write`. */
int sim_l2_lookup(struct sim_l2 *l2, uint32_t id, uint64_t line, int write);

/* Put `line` (not in cache id) into cache id, brought in through LLC class
 * cls, dirty or not; the LRU line it displaces is described in *v. */
void sim_l2_fill(struct sim_l2 *l2, uint32_t id, uint64_t line, uint8_t cls, int dirty,
		 struct sim_l2_victim *v);

/* The snoop filter's vector for `line` (0: in no L2), without cache id's
 * own bit when id < 64 (SIM_L2_NONE: every holder). */
uint64_t sim_l2_others(const struct sim_l2 *l2, uint64_t line, uint32_t id);

/* Invalidate `line` in every cache but `keep` (SIM_L2_NONE: in all):
 * a snoop for a DMA write or another core's write. Returns 1 when a copy
 * was dirty (the caller decides what the data becomes). */
int sim_l2_invalidate_line(struct sim_l2 *l2, uint64_t line, uint32_t keep);

/* The simulated set of `line` (a line of a simulated LLC chunk). */
static inline uint32_t sim_l2_set_of(const struct sim_l2 *l2, uint64_t line)
{
	uint64_t chunk = line >> 5, grp;

	/* k = 0: the address bits; else a hash of the chunk (l2.h top) */
	grp = l2->sample_shift ? (chunk * 0x9e3779b97f4a7c15ull) >> 40 : chunk;
	return (uint32_t)(((line & 31) | (grp << 5)) & (l2->nsets - 1));
}

#ifdef __cplusplus
}
#endif
#endif /* SIM_L2_H */
