/* SPDX-License-Identifier: BSD-3-Clause
 * The LLC model's I/O additions used by the simulator core:
 *  - sim_llc_dma_write_noalloc (DDIO off): cached lines of the range are
 *    invalidated (no write-back), nothing is allocated;
 *  - partial-line DMA writes (sim_llc_dma_write_range, DDIO on): a first or
 *    last line the range covers in part is read from DRAM on a miss and
 *    merged in place on a hit; with DDIO off (_noalloc_range) each is read;
 *    set sampling apportions the reads of chunks it does not simulate;
 *    full-line ranges are sim_llc_access_range's exactly;
 *  - without L2s (an inclusive LLC), a core's read leaves a DMA-written
 *    line in its DDIO way, where later DMA writes evict it (test_l2.c: with
 *    the cores' L2s it moves out of the LLC and comes back elsewhere). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "llc.h"

#define MIB (1ull << 20)

static void cache(struct sim_llc *llc, unsigned *nic, unsigned *cpu)
{
	struct sim_llc_cfg cfg;

	sim_llc_cfg_reference(&cfg);
	cfg.sample_shift = 0;
	CHECK(sim_llc_init(llc, &cfg, NULL) == 0);
	*nic = (unsigned)sim_llc_add_class(llc, "nic", sim_llc_ddio_default(11), 1, NULL);
	*cpu = (unsigned)sim_llc_add_class(llc, "cpu", sim_llc_ways(0, 11), 0, NULL);
}

static void test_noalloc(void)
{
	struct sim_llc llc;
	unsigned nic, cpu;
	uint64_t a = 1ull << 30;

	cache(&llc, &nic, &cpu);
	sim_llc_access(&llc, cpu, SIM_LLC_WR, a);
	sim_llc_access(&llc, cpu, SIM_LLC_RD, a + 64);
	CHECK(sim_llc_probe(&llc, a) == 1);
	CHECK(sim_llc_dma_write_noalloc(&llc, a, 1514) == 24);
	CHECK(sim_llc_probe(&llc, a) == 0);
	CHECK(sim_llc_probe(&llc, a + 64) == 0);
	CHECK(sim_llc_probe(&llc, a + 2048) == 0);               /* nothing allocated */
	CHECK(sim_llc_dma_write_noalloc(&llc, a + 10, 64) == 2); /* straddles two lines */
	CHECK(sim_llc_dma_write_noalloc(&llc, a, 0) == 0);
	sim_llc_free(&llc);
}

/* DMA-write line L, let the core read it, then DMA-write 4 other lines of
 * the same set (more than the 2 DDIO ways): is L still cached? */
static int survives(void)
{
	struct sim_llc llc;
	unsigned nic, cpu;
	/* same set: 2 MiB apart is one way's worth in the reference cache with
	 * the plain bit index */
	struct sim_llc_cfg cfg;
	uint64_t a = 1ull << 30, way = 2ull << 20;
	int r;

	(void)nic;
	(void)cpu;
	sim_llc_cfg_reference(&cfg);
	cfg.sample_shift = 0;
	cfg.index = SIM_LLC_INDEX_BITS;
	cfg.size_bytes = 16ull << 20; /* 8 ways of 2 MiB: power-of-two sets */
	cfg.ways = 8;
	CHECK(sim_llc_init(&llc, &cfg, NULL) == 0);
	nic = (unsigned)sim_llc_add_class(&llc, "nic", sim_llc_ways(6, 2), 1, NULL);
	cpu = (unsigned)sim_llc_add_class(&llc, "cpu", sim_llc_ways(0, 8), 0, NULL);
	sim_llc_access(&llc, nic, SIM_LLC_WR, a);
	CHECK(sim_llc_access(&llc, cpu, SIM_LLC_RD, a) & SIM_LLC_HIT);
	for (int i = 1; i <= 4; i++)
		sim_llc_access(&llc, nic, SIM_LLC_WR, a + i * way);
	r = sim_llc_probe(&llc, a);
	sim_llc_free(&llc);
	return r;
}

static void test_read_stays_in_ddio_way(void)
{
	CHECK(survives() == 0);
}

static void test_partial_lines(void)
{
	CHECK_EQ(sim_llc_partial_lines(0, 0), 0);
	CHECK_EQ(sim_llc_partial_lines(0, 64), 0);
	CHECK_EQ(sim_llc_partial_lines(0, 1536), 0);
	CHECK_EQ(sim_llc_partial_lines(0, 1514), 1);  /* last line */
	CHECK_EQ(sim_llc_partial_lines(32, 32), 1);   /* to the line's end */
	CHECK_EQ(sim_llc_partial_lines(32, 1504), 1); /* first line only */
	CHECK_EQ(sim_llc_partial_lines(32, 1510), 2); /* both */
	CHECK_EQ(sim_llc_partial_lines(8, 16), 1);    /* inside one line */
	CHECK_EQ(sim_llc_partial_lines(32, 64), 2);   /* two halves */
}

/* DDIO on: a frame at byte 32 of a line reads its first and last lines
 * from DRAM on an empty cache; a line-aligned whole-line frame reads
 * nothing; written again (hits), nothing is read. */
static void test_partial_ddio(void)
{
	struct sim_llc llc;
	struct sim_llc_stats st;
	unsigned nic, cpu;
	uint64_t a = 1ull << 30, b = a + (1ull << 20);
	struct sim_llc_range r = { 0 };

	cache(&llc, &nic, &cpu);
	sim_llc_dma_write_range(&llc, nic, a + 32, 1510, &r); /* 32 + 1510 = 24 lines + 6 B */
	CHECK_EQ(r.lines, 25);
	CHECK_EQ(r.hits, 0);
	CHECK_EQ(r.partial_reads, 2);
	CHECK_EQ(r.dram_rd, 2);
	CHECK_EQ(r.dram_wr, 0);
	CHECK_EQ(sim_llc_probe(&llc, a), 1); /* merged and allocated */
	memset(&r, 0, sizeof(r));
	sim_llc_dma_write_range(&llc, nic, b, 1536, &r); /* 24 whole lines */
	CHECK_EQ(r.lines, 24);
	CHECK_EQ(r.partial_reads, 0);
	CHECK_EQ(r.dram_rd, 0);
	memset(&r, 0, sizeof(r));
	sim_llc_dma_write_range(&llc, nic, a + 32, 1510, &r); /* hits: merged in place */
	CHECK_EQ(r.hits, 25);
	CHECK_EQ(r.partial_reads, 0);
	CHECK_EQ(r.dram_rd, 0);
	memset(&r, 0, sizeof(r));
	sim_llc_dma_write_range(&llc, nic, b + 8 * MIB + 8, 16, &r); /* inside one line */
	CHECK_EQ(r.lines, 1);
	CHECK_EQ(r.partial_reads, 1);
	sim_llc_stats(&llc, nic, SIM_LLC_WR, &st);
	CHECK(st.dram_rd == 3.0 && st.partial_rd == 3.0);
	/* the old call treats every line as whole */
	memset(&r, 0, sizeof(r));
	sim_llc_access_range(&llc, nic, SIM_LLC_WR, b + 16 * MIB + 32, 1510, &r);
	CHECK_EQ(r.partial_reads, 0);
	CHECK_EQ(r.dram_rd, 0);
	sim_llc_free(&llc);
}

/* DDIO off: each partial line is merged in memory, one DRAM read. */
static void test_partial_noalloc(void)
{
	struct sim_llc llc;
	unsigned nic, cpu;
	uint64_t a = 1ull << 30;
	struct sim_llc_range r = { 0 };

	cache(&llc, &nic, &cpu);
	sim_llc_access(&llc, cpu, SIM_LLC_WR, a);
	CHECK_EQ(sim_llc_dma_write_noalloc_range(&llc, a + 32, 1510, &r), 25);
	CHECK_EQ(r.lines, 25);
	CHECK_EQ(r.dram_wr, 25);
	CHECK_EQ(r.partial_reads, 2);
	CHECK_EQ(r.dram_rd, 2);
	CHECK_EQ(sim_llc_probe(&llc, a), 0); /* invalidated, nothing allocated */
	memset(&r, 0, sizeof(r));
	CHECK_EQ(sim_llc_dma_write_noalloc_range(&llc, a, 1536, &r), 24);
	CHECK_EQ(r.partial_reads, 0);
	CHECK_EQ(r.dram_rd, 0);
	sim_llc_free(&llc);
}

/* Whole-line ranges: sim_llc_dma_write_range is sim_llc_access_range,
 * outcome for outcome (two caches fed the same writes, sampled). */
static void test_whole_lines_unchanged(void)
{
	struct sim_llc_cfg cfg;
	struct sim_llc x, y;
	struct sim_llc_range rx = { 0 }, ry = { 0 };
	int nx, ny;

	sim_llc_cfg_reference(&cfg);
	CHECK_EQ(sim_llc_init(&x, &cfg, NULL), 0);
	CHECK_EQ(sim_llc_init(&y, &cfg, NULL), 0);
	nx = sim_llc_add_class(&x, "nic", sim_llc_ddio_default(11), 1, NULL);
	ny = sim_llc_add_class(&y, "nic", sim_llc_ddio_default(11), 1, NULL);
	for (uint64_t i = 0; i < 20000; i++) {
		uint64_t addr = (1ull << 32) + (i % 3000) * 2304 / 64 * 64;

		sim_llc_access_range(&x, (unsigned)nx, SIM_LLC_WR, addr, 1536, &rx);
		sim_llc_dma_write_range(&y, (unsigned)ny, addr, 1536, &ry);
	}
	CHECK(memcmp(&rx, &ry, sizeof(rx)) == 0);
	CHECK(rx.hits > 0 && rx.hits < rx.lines);
	sim_llc_free(&x);
	sim_llc_free(&y);
}

/* A ring of DPDK-like 2304 B buffers, frames at byte 32 of a line (they
 * straddle 2 KiB chunks), written round-robin by the NIC on the reference
 * cache with sample_shift k: partial-line DRAM reads per frame after a
 * warm-up. */
static double ring_partial(uint32_t k, uint64_t nbuf)
{
	struct sim_llc_cfg cfg;
	struct sim_llc llc;
	struct sim_llc_range r = { 0 };
	unsigned nic;
	uint64_t n = 0;

	sim_llc_cfg_reference(&cfg);
	cfg.sample_shift = k;
	CHECK_EQ(sim_llc_init(&llc, &cfg, NULL), 0);
	nic = (unsigned)sim_llc_add_class(&llc, "nic", sim_llc_ddio_default(11), 1, NULL);
	/* the learned rates warm up over ~2 × 1024 simulated partial lines
	 * (~60 per round of the smallest ring at k = 4): measure after that */
	for (int round = 0; round < 60; round++)
		for (uint64_t i = 0; i < nbuf; i++) {
			if (round == 40 && i == 0) {
				memset(&r, 0, sizeof(r));
				n = 0;
			}
			sim_llc_dma_write_range(&llc, nic, (1ull << 32) + i * 2304 + 224 + 128,
						1510, &r);
			n++;
		}
	CHECK(r.partial_reads <= r.dram_rd);
	CHECK(r.hits + r.partial_reads <= r.lines);
	sim_llc_free(&llc);
	return (double)r.partial_reads / (double)n;
}

static void test_partial_sampled(void)
{
	/* 1 MiB fits the DDIO ways: all hits; 16 MiB thrashes them: both
	 * partial lines of every frame miss; 4.5 MiB is in between */
	static const uint64_t nbufs[] = { 455, 7282, 2048 };

	for (unsigned i = 0; i < 3; i++) {
		double full = ring_partial(0, nbufs[i]), sampled = ring_partial(4, nbufs[i]);

		fprintf(stderr, "%.1f MiB ring: partial reads per frame %.3f full, %.3f 1/16\n",
			(double)nbufs[i] * 2304 / MIB, full, sampled);
		CHECK(fabs(full - sampled) < 0.05);
		if (i == 0)
			CHECK(full == 0.0);
		if (i == 1)
			CHECK(full == 2.0 && sampled > 1.98);
		if (i == 2)
			CHECK(full > 0.1 && full < 1.9);
	}
}

int main(void)
{
	RUN(test_noalloc);
	RUN(test_read_stays_in_ddio_way);
	RUN(test_partial_lines);
	RUN(test_partial_ddio);
	RUN(test_partial_noalloc);
	RUN(test_whole_lines_unchanged);
	RUN(test_partial_sampled);
	return check_summary();
}
