/* SPDX-License-Identifier: BSD-3-Clause
 * The LLC model's two I/O additions used by the simulator core:
 *  - sim_llc_dma_write_noalloc (DDIO off): cached lines of the range are
 *    invalidated (no write-back), nothing is allocated;
 *  - without L2s (an inclusive LLC), a core's read leaves a DMA-written
 *    line in its DDIO way, where later DMA writes evict it (test_l2.c: with
 *    the cores' L2s it moves out of the LLC and comes back elsewhere). */
#include <string.h>

#include "check.h"
#include "llc.h"

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
	CHECK(sim_llc_probe(&llc, a + 2048) == 0); /* nothing allocated */
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

int main(void)
{
	RUN(test_noalloc);
	RUN(test_read_stays_in_ddio_way);
	return check_summary();
}
