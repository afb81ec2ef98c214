/* SPDX-License-Identifier: BSD-3-Clause
 * The cores' L2s and the non-inclusive LLC (l2.h, llc.h
 * sim_llc_core_access): a line a core reads leaves the LLC (and its DDIO
 * way) for the L2; an L2-evicted line returns to the LLC, where a later DMA
 * write hits it; a DMA write invalidates an L2 copy, a DMA read is served
 * from it; dirty lines stay dirty on the way back; a line in another
 * core's L2 is forwarded and a write takes it; a DMA write of a line an L2
 * held enters the LLC's 2 DDIO+ ways, not the DDIO ways (Double Trouble),
 * and a partial one merges the L2's data without a DRAM read; the sampled
 * L2 estimates the full one; runs are deterministic; the snoop filter stays
 * exact with more than 64 caches. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "l2.h"
#include "llc.h"

#define MIB (1ull << 20)
#define WAY (2ull << 20) /* one way's worth: same LLC set, plain bit index */

struct rig {
	struct sim_llc llc;
	struct sim_l2 l2;
	unsigned nic, tx, cpu, plain;
};

/* 16 MiB 8-way LLC (plain bits: addresses 2 MiB apart share a set), DDIO
 * ways 6-7, DDIO+ ways `plus` (rig: the reference's, ways 0-1), every set
 * simulated; two 4 KiB 4-way L2s (16 sets: addresses 1 KiB apart share an
 * L2 set). */
static void rig_plus(struct rig *r, uint32_t plus)
{
	struct sim_llc_cfg cfg;
	struct sim_l2_cfg lc = { .size_bytes = 4096, .ways = 4, .caches = 2, .sample_shift = 0 };

	sim_llc_cfg_reference(&cfg);
	cfg.ddio_plus_mask = plus;
	cfg.sample_shift = 0;
	cfg.index = SIM_LLC_INDEX_BITS;
	cfg.size_bytes = 16 * MIB;
	cfg.ways = 8;
	CHECK_EQ(sim_llc_init(&r->llc, &cfg, NULL), 0);
	CHECK_EQ(sim_l2_init(&r->l2, &lc, NULL), 0);
	sim_llc_attach_l2(&r->llc, &r->l2);
	r->nic = (unsigned)sim_llc_add_class(&r->llc, "nic", sim_llc_ways(6, 2), 1, NULL);
	r->tx = (unsigned)sim_llc_add_class(&r->llc, "tx", sim_llc_ways(6, 2), 1, NULL);
	r->cpu = (unsigned)sim_llc_add_class(&r->llc, "cpu", sim_llc_ways(0, 8), 0, NULL);
	/* a CPU class accessed without an L2 (sim_llc_access): fills sets */
	r->plain = (unsigned)sim_llc_add_class(&r->llc, "plain", sim_llc_ways(0, 8), 0, NULL);
}

static void rig(struct rig *r)
{
	struct sim_llc_cfg ref;

	sim_llc_cfg_reference(&ref);
	CHECK_EQ(ref.ddio_plus_mask, 0x003u);
	rig_plus(r, ref.ddio_plus_mask);
}

static void unrig(struct rig *r)
{
	sim_llc_free(&r->llc);
	sim_l2_free(&r->l2);
}

static uint32_t core_rd(struct rig *r, uint32_t core, uint64_t a)
{
	return sim_llc_core_access(&r->llc, core, r->cpu, SIM_LLC_RD, a);
}

static uint32_t dma_wr(struct rig *r, uint64_t a)
{
	return sim_llc_access(&r->llc, r->nic, SIM_LLC_WR, a);
}

static int in_l2(struct rig *r, uint32_t core, uint64_t a)
{
	return sim_l2_lookup(&r->l2, core, a >> 6, 0);
}

/* Four reads of lines that share a's L2 set (1 KiB apart) and nothing else:
 * a leaves core 0's 4-way L2. */
static void evict_from_l2(struct rig *r, uint64_t a)
{
	for (uint64_t j = 1; j <= 4; j++)
		CHECK_EQ(core_rd(r, 0, a + j * 1024 + 64 * MIB) & SIM_LLC_HIT, 0);
}

static void test_read_leaves_ddio_way(void)
{
	struct rig r;
	uint64_t a = 1ull << 30;

	rig(&r);
	CHECK_EQ(dma_wr(&r, a) & SIM_LLC_HIT, 0); /* allocated in a DDIO way */
	CHECK_EQ(sim_llc_probe(&r.llc, a), 1);
	CHECK_EQ(core_rd(&r, 0, a), SIM_LLC_SAMPLED | SIM_LLC_HIT); /* an LLC hit... */
	CHECK_EQ(sim_llc_probe(&r.llc, a), 0);                      /* ...that moved it */
	CHECK(in_l2(&r, 0, a));
	CHECK_EQ(core_rd(&r, 0, a), SIM_LLC_SAMPLED | SIM_LLC_HIT | SIM_LLC_L2);
	unrig(&r);
}

static void test_evicted_line_returns_and_dma_hits(void)
{
	struct rig r;
	uint64_t a = 1ull << 30;

	rig(&r);
	dma_wr(&r, a);
	core_rd(&r, 0, a);
	evict_from_l2(&r, a);
	CHECK(!in_l2(&r, 0, a));
	CHECK_EQ(sim_llc_probe(&r.llc, a), 1); /* back in the LLC, in a CPU way */
	/* DMA writes fill the set's two DDIO ways twice over... */
	for (uint64_t i = 1; i <= 4; i++)
		dma_wr(&r, a + i * WAY);
	/* ...and a survives them: the next DMA write to it updates it */
	CHECK(dma_wr(&r, a) & SIM_LLC_HIT);
	unrig(&r);
}

static void test_dma_write_invalidates_l2_copy(void)
{
	struct rig r;
	uint64_t a = 1ull << 30, b = a + 4096;

	rig(&r);
	dma_wr(&r, a);
	core_rd(&r, 0, a);
	CHECK(sim_l2_others(&r.l2, a >> 6, SIM_L2_NONE) != 0);
	/* not in the LLC: a write allocate (into a DDIO+ way), the L2 copy gone */
	CHECK_EQ(dma_wr(&r, a) & SIM_LLC_HIT, 0);
	CHECK(!in_l2(&r, 0, a));
	CHECK_EQ(sim_l2_others(&r.l2, a >> 6, SIM_L2_NONE), 0);
	CHECK_EQ(core_rd(&r, 0, a), SIM_LLC_SAMPLED | SIM_LLC_HIT); /* the new data: LLC */
	/* DDIO off: the write goes to memory and invalidates the L2 copy too */
	core_rd(&r, 0, b);
	CHECK(in_l2(&r, 0, b));
	CHECK_EQ(sim_llc_dma_write_noalloc(&r.llc, b, 64), 1);
	CHECK(!in_l2(&r, 0, b));
	unrig(&r);
}

/* DMA-write two lines of a's LLC set (they fill the DDIO ways 6-7), let
 * core 0 read a (into its L2, from DRAM), DMA-write a. Returns the way a
 * ends in; *ddio_kept: how many of the two DDIO-way lines survived. */
static int plus_way(uint32_t plus, int *ddio_kept)
{
	struct rig r;
	uint64_t a = 1ull << 30;
	uint32_t f;
	int w;

	rig_plus(&r, plus);
	dma_wr(&r, a + WAY);
	dma_wr(&r, a + 2 * WAY);
	CHECK(sim_llc_probe_way(&r.llc, a + WAY) >= 6 &&
	      sim_llc_probe_way(&r.llc, a + 2 * WAY) >= 6);
	CHECK(core_rd(&r, 0, a) & SIM_LLC_DRAM_RD);
	CHECK(in_l2(&r, 0, a));
	f = dma_wr(&r, a);
	CHECK_EQ(f & (SIM_LLC_HIT | SIM_LLC_DRAM_RD), 0);
	/* into an empty DDIO+ way; else over a dirty DDIO-way line */
	CHECK_EQ(f & SIM_LLC_DRAM_WR, plus ? 0u : SIM_LLC_DRAM_WR);
	CHECK(!in_l2(&r, 0, a));
	w = sim_llc_probe_way(&r.llc, a);
	*ddio_kept = sim_llc_probe(&r.llc, a + WAY) + sim_llc_probe(&r.llc, a + 2 * WAY);
	unrig(&r);
	return w;
}

/* Double Trouble's device-write rule: a DMA write of a line a core's L2
 * holds puts it into the 2-way DDIO+ region (ways 0-1), LRU of the two, and
 * leaves the DDIO ways alone; with the region off (mask 0) it is a DDIO
 * write allocate that evicts a DDIO-way line, as before. */
static void test_dma_write_of_l2_line_goes_to_ddio_plus(void)
{
	struct rig r;
	uint64_t a = 1ull << 30;
	int kept, w;

	w = plus_way(0x003, &kept);
	CHECK(w == 0 || w == 1);
	CHECK_EQ(kept, 2);
	w = plus_way(0, &kept);
	CHECK(w == 6 || w == 7);
	CHECK_EQ(kept, 1);
	/* three lines of one set, each held in an L2 and then DMA-written:
	 * they take ways 0 and 1, and the third evicts the LRU of them (the
	 * first, dirty: a write-back), nothing in the DDIO ways */
	rig(&r);
	dma_wr(&r, a + 4 * WAY); /* a DDIO-way line */
	for (uint64_t i = 0; i < 3; i++) {
		uint32_t f;

		core_rd(&r, 0, a + i * WAY);
		f = dma_wr(&r, a + i * WAY);
		CHECK_EQ(f & SIM_LLC_HIT, 0);
		CHECK_EQ(f & SIM_LLC_DRAM_WR, i == 2 ? SIM_LLC_DRAM_WR : 0);
		CHECK(sim_llc_probe_way(&r.llc, a + i * WAY) <= 1);
	}
	CHECK_EQ(sim_llc_probe(&r.llc, a), 0);
	CHECK(sim_llc_probe_way(&r.llc, a + WAY) <= 1 &&
	      sim_llc_probe_way(&r.llc, a + 2 * WAY) <= 1);
	CHECK(sim_llc_probe_way(&r.llc, a + 4 * WAY) >= 6);
	/* a line not in an L2 still goes to the DDIO ways */
	dma_wr(&r, a + 5 * WAY);
	CHECK(sim_llc_probe_way(&r.llc, a + 5 * WAY) >= 6);
	unrig(&r);
}

/* A partial DMA write of a line an L2 holds merges the L2's copy (on chip):
 * no DRAM read; the same write of a line nowhere on chip reads it. */
static void test_partial_write_of_l2_line(void)
{
	struct rig r;
	uint64_t a = 1ull << 30;
	struct sim_llc_range out = { 0 };

	rig(&r);
	core_rd(&r, 0, a);
	sim_llc_dma_write_range(&r.llc, r.nic, a + 32, 16, &out);
	CHECK_EQ(out.lines, 1);
	CHECK_EQ(out.l2_snooped, 1);
	CHECK_EQ(out.partial_reads, 0);
	CHECK_EQ(out.dram_rd, 0);
	CHECK(!in_l2(&r, 0, a));
	CHECK(sim_llc_probe_way(&r.llc, a) <= 1); /* DDIO+ */
	memset(&out, 0, sizeof(out));
	sim_llc_dma_write_range(&r.llc, r.nic, a + 64 * 3 + 32, 16, &out);
	CHECK_EQ(out.l2_snooped, 0);
	CHECK_EQ(out.partial_reads, 1);
	CHECK_EQ(out.dram_rd, 1);
	unrig(&r);
}

static void test_dma_read_served_from_l2(void)
{
	struct rig r;
	uint64_t a = 1ull << 30;

	rig(&r);
	CHECK_EQ(sim_llc_core_access(&r.llc, 0, r.cpu, SIM_LLC_WR, a) & SIM_LLC_DRAM_RD,
		 SIM_LLC_DRAM_RD); /* read for ownership */
	CHECK_EQ(sim_llc_access(&r.llc, r.tx, SIM_LLC_RD, a), SIM_LLC_SAMPLED | SIM_LLC_HIT);
	CHECK(in_l2(&r, 0, a)); /* still there */
	unrig(&r);
}

static void test_dirty_line_comes_back_dirty(void)
{
	struct rig r;
	uint64_t a = 1ull << 30;
	uint32_t wb = 0;

	rig(&r);
	sim_llc_core_access(&r.llc, 0, r.cpu, SIM_LLC_WR, a);
	evict_from_l2(&r, a);
	CHECK_EQ(sim_llc_probe(&r.llc, a), 1);
	/* eight other lines of its LLC set, without L2: a is evicted, dirty */
	for (uint64_t i = 1; i <= 8; i++)
		wb += (sim_llc_access(&r.llc, r.plain, SIM_LLC_RD, a + i * WAY) &
		       SIM_LLC_DRAM_WR) != 0;
	CHECK_EQ(sim_llc_probe(&r.llc, a), 0);
	CHECK_EQ(wb, 1);
	unrig(&r);
}

static void test_other_cores_l2(void)
{
	struct rig r;
	uint64_t a = 1ull << 30;

	rig(&r);
	CHECK(core_rd(&r, 0, a) & SIM_LLC_DRAM_RD);
	/* core 1's miss finds it in core 0's L2: forwarded, no DRAM read */
	CHECK_EQ(core_rd(&r, 1, a), SIM_LLC_SAMPLED | SIM_LLC_HIT);
	CHECK_EQ(r.l2.transfers, 1);
	CHECK(in_l2(&r, 0, a) && in_l2(&r, 1, a));
	/* core 1 writes: its own copy, and core 0's is invalidated */
	CHECK_EQ(sim_llc_core_access(&r.llc, 1, r.cpu, SIM_LLC_WR, a),
		 SIM_LLC_SAMPLED | SIM_LLC_HIT | SIM_LLC_L2);
	CHECK(!in_l2(&r, 0, a));
	CHECK_EQ(sim_l2_others(&r.l2, a >> 6, 1), 0);
	unrig(&r);
}

/* Two cores, each reading random lines of its own 16 MiB region, on the
 * reference LLC and L2s with sample_shift k: (L2 hit rate, LLC hit rate of
 * the L2 misses) of core 0's class after a warm-up. */
static void random_reads(uint32_t k, uint64_t seed, double *l2hit, double *llchit)
{
	struct sim_llc llc;
	struct sim_l2 l2;
	struct sim_llc_cfg cfg;
	struct sim_l2_cfg lc = { .size_bytes = MIB, .ways = 16, .caches = 2, .sample_shift = k };
	struct sim_llc_stats a, b;
	struct sim_rng rng;
	unsigned cls[2];
	uint64_t lines = 16 * MIB / 64;

	sim_llc_cfg_reference(&cfg);
	cfg.sample_shift = k;
	CHECK_EQ(sim_llc_init(&llc, &cfg, NULL), 0);
	CHECK_EQ(sim_l2_init(&l2, &lc, NULL), 0);
	sim_llc_attach_l2(&llc, &l2);
	cls[0] = (unsigned)sim_llc_add_class(&llc, "c0", sim_llc_ways(0, 11), 0, NULL);
	cls[1] = (unsigned)sim_llc_add_class(&llc, "c1", sim_llc_ways(0, 11), 0, NULL);
	sim_rng_seed(&rng, seed, 7);
	for (int phase = 0; phase < 2; phase++) {
		for (uint32_t i = 0; i < 1500000; i++) {
			uint32_t c = i & 1;
			uint64_t addr = (1ull << 32) + c * (1ull << 30) +
					sim_rng_below(&rng, lines) * 64;

			sim_llc_core_access(&llc, c, cls[c], i % 5 ? SIM_LLC_RD : SIM_LLC_WR, addr);
		}
		if (phase == 0)
			sim_llc_reset_stats(&llc);
	}
	sim_llc_l2_stats(&llc, cls[0], SIM_LLC_OPS, &a);
	sim_llc_stats(&llc, cls[0], SIM_LLC_OPS, &b);
	*l2hit = a.hit_rate;
	*llchit = b.hit_rate;
	sim_llc_free(&llc);
	sim_l2_free(&l2);
}

static void test_sampling_accuracy_and_determinism(void)
{
	double l2f, llcf, l2s, llcs, l2s2, llcs2;

	random_reads(0, 1, &l2f, &llcf);
	random_reads(4, 1, &l2s, &llcs);
	random_reads(4, 1, &l2s2, &llcs2);
	fprintf(stderr, "full: L2 %.4f LLC %.4f; 1/16 of the sets: L2 %.4f LLC %.4f\n", l2f, llcf,
		l2s, llcs);
	/* theory: an L2 holds 1 MiB of its core's 16 MiB (1/16); the LLC
	 * (22 MiB) the rest of the 32 MiB but the L2s' 2 MiB */
	CHECK(fabs(l2f - 1.0 / 16) < 0.01);
	CHECK(llcf > 0.6 && llcf < 0.8);
	CHECK(fabs(l2s - l2f) < 0.01);
	CHECK(fabs(llcs - llcf) < 0.02);
	CHECK(l2s == l2s2 && llcs == llcs2); /* same seed, same outcomes */
}

/* More than 64 caches: caches 3 and 67 share a bit of the snoop filter's
 * coarse vector; the filter stays exact by looking in both. */
static void test_coarse_vector(void)
{
	struct sim_l2 l2;
	struct sim_l2_cfg lc = { .size_bytes = 4096, .ways = 4, .caches = 70 };
	struct sim_l2_victim v;
	uint64_t line = 1ull << 24;

	CHECK_EQ(sim_l2_init(&l2, &lc, NULL), 0);
	sim_l2_fill(&l2, 3, line, 0, 0, &v);
	sim_l2_fill(&l2, 67, line, 0, 1, &v);
	CHECK_EQ(sim_l2_others(&l2, line, 3), 1ull << 3); /* 67's copy, same bit */
	/* 3 evicts it (four other lines of its set): the bit stays for 67 */
	for (uint64_t j = 1; j <= 4; j++)
		sim_l2_fill(&l2, 3, line + j * 16, 0, 0, &v);
	CHECK(!sim_l2_lookup(&l2, 3, line, 0));
	CHECK_EQ(sim_l2_others(&l2, line, SIM_L2_NONE), 1ull << 3);
	CHECK_EQ(sim_l2_invalidate_line(&l2, line, SIM_L2_NONE), 1); /* 67's was dirty */
	CHECK(!sim_l2_lookup(&l2, 67, line, 0));
	CHECK_EQ(sim_l2_others(&l2, line, SIM_L2_NONE), 0);
	sim_l2_free(&l2);
}

static void test_config_errors(void)
{
	struct sim_l2 l2;
	struct sim_l2_cfg bad_ways = { .size_bytes = MIB, .ways = 17, .caches = 1 };
	struct sim_l2_cfg bad_sets = { .size_bytes = 3 * MIB, .ways = 16, .caches = 1 };

	CHECK(sim_l2_init(&l2, &bad_ways, NULL) < 0);
	CHECK(sim_l2_init(&l2, &bad_sets, NULL) < 0);
}

int main(void)
{
	RUN(test_read_leaves_ddio_way);
	RUN(test_evicted_line_returns_and_dma_hits);
	RUN(test_dma_write_invalidates_l2_copy);
	RUN(test_dma_write_of_l2_line_goes_to_ddio_plus);
	RUN(test_partial_write_of_l2_line);
	RUN(test_dma_read_served_from_l2);
	RUN(test_dirty_line_comes_back_dirty);
	RUN(test_other_cores_l2);
	RUN(test_sampling_accuracy_and_determinism);
	RUN(test_coarse_vector);
	RUN(test_config_errors);
	return check_summary();
}
