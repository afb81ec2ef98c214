/* SPDX-License-Identifier: BSD-3-Clause
 * LLC model: LRU order, CAT masks, write-backs, DDIO semantics against
 * working-set sizes, way reservation, set sampling accuracy, config errors
 * (partial-line DMA writes: test_llc_io.c; the DDIO+ ways: test_l2.c). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "llc.h"

#define MIB (1ull << 20)
#define BUF 2048ull

/* A tiny cache: one group of 32 sets, BITS mapping, nothing sampled away.
 * Lines whose addresses differ by a multiple of 32 lines share a set. */
static void tiny(struct sim_llc *llc, uint32_t ways)
{
	struct sim_llc_cfg cfg = {
		.size_bytes = 64ull * ways * 32,
		.ways = ways,
		.index = SIM_LLC_INDEX_BITS,
	};

	CHECK_EQ(sim_llc_init(llc, &cfg, NULL), 0);
}

/* i-th line of the set that holds address 0 */
static uint64_t same_set(unsigned i)
{
	return (uint64_t)i * 32 * 64;
}

static void test_lru_order(void)
{
	struct sim_llc llc;
	int cpu;

	tiny(&llc, 4);
	cpu = sim_llc_add_class(&llc, "cpu", sim_llc_ways(0, 4), 0, NULL);
	CHECK_EQ(cpu, 0);
	for (unsigned i = 0; i < 4; i++) /* A B C D */
		CHECK_EQ(sim_llc_access(&llc, cpu, SIM_LLC_RD, same_set(i)) & SIM_LLC_HIT, 0);
	CHECK(sim_llc_access(&llc, cpu, SIM_LLC_RD, same_set(0)) & SIM_LLC_HIT); /* A: MRU */
	/* E evicts the least recently used line, B. */
	CHECK_EQ(sim_llc_access(&llc, cpu, SIM_LLC_RD, same_set(4)) & SIM_LLC_HIT, 0);
	CHECK_EQ(sim_llc_probe(&llc, same_set(1)), 0);
	CHECK_EQ(sim_llc_probe(&llc, same_set(0)), 1);
	CHECK_EQ(sim_llc_probe(&llc, same_set(2)), 1);
	CHECK_EQ(sim_llc_probe(&llc, same_set(3)), 1);
	/* Touch C; F then evicts D (order now: D oldest, then A, E, C). */
	CHECK(sim_llc_access(&llc, cpu, SIM_LLC_RD, same_set(2)) & SIM_LLC_HIT);
	sim_llc_access(&llc, cpu, SIM_LLC_RD, same_set(5));
	CHECK_EQ(sim_llc_probe(&llc, same_set(3)), 0);
	CHECK_EQ(sim_llc_probe(&llc, same_set(0)), 1);
	/* G evicts A, H evicts E. */
	sim_llc_access(&llc, cpu, SIM_LLC_RD, same_set(6));
	CHECK_EQ(sim_llc_probe(&llc, same_set(0)), 0);
	sim_llc_access(&llc, cpu, SIM_LLC_RD, same_set(7));
	CHECK_EQ(sim_llc_probe(&llc, same_set(4)), 0);
	CHECK_EQ(sim_llc_probe(&llc, same_set(2)), 1);
	/* Other sets are untouched. */
	CHECK_EQ(sim_llc_probe(&llc, 64), 0);
	sim_llc_free(&llc);
}

static void test_mask_and_writeback(void)
{
	struct sim_llc llc;
	struct sim_llc_stats st;
	int cpu, lim, nic;
	uint32_t f;

	tiny(&llc, 4);
	cpu = sim_llc_add_class(&llc, "cpu", sim_llc_ways(0, 4), 0, NULL);
	lim = sim_llc_add_class(&llc, "lim", sim_llc_ways(0, 2), 0, NULL);
	nic = sim_llc_add_class(&llc, "nic", sim_llc_ways(2, 2), 1, NULL);

	/* CPU write miss: read for ownership, line dirty. */
	f = sim_llc_access(&llc, cpu, SIM_LLC_WR, same_set(0));
	CHECK_EQ(f, SIM_LLC_SAMPLED | SIM_LLC_DRAM_RD);
	for (unsigned i = 1; i < 4; i++)
		sim_llc_access(&llc, cpu, SIM_LLC_RD, same_set(i));
	/* Invalid ways fill lowest first, so lines 0..3 sit in ways 0..3 and
	 * "lim" may only evict lines 0 and 1. Line 0 is the LRU and dirty. */
	f = sim_llc_access(&llc, lim, SIM_LLC_RD, same_set(10));
	CHECK_EQ(f, SIM_LLC_SAMPLED | SIM_LLC_DRAM_RD | SIM_LLC_DRAM_WR);
	for (unsigned i = 11; i < 40; i++)
		CHECK_EQ(sim_llc_access(&llc, lim, SIM_LLC_RD, same_set(i)) & SIM_LLC_DRAM_WR, 0);
	/* Streaming through two ways never touched ways 2 and 3. */
	CHECK_EQ(sim_llc_probe(&llc, same_set(2)), 1);
	CHECK_EQ(sim_llc_probe(&llc, same_set(3)), 1);
	CHECK_EQ(sim_llc_probe(&llc, same_set(1)), 0);
	/* A hit is a hit wherever the line is: CAT limits allocation only. */
	CHECK(sim_llc_access(&llc, lim, SIM_LLC_RD, same_set(3)) & SIM_LLC_HIT);

	/* DMA write miss: no DRAM read, allocates in the DDIO ways 2-3, so
	 * it evicts line 2 or 3 (clean: no write-back). */
	f = sim_llc_access(&llc, nic, SIM_LLC_WR, same_set(50));
	CHECK_EQ(f, SIM_LLC_SAMPLED);
	CHECK_EQ(sim_llc_probe(&llc, same_set(50)), 1);
	CHECK_EQ(sim_llc_probe(&llc, same_set(2)), 0); /* 2 was older than 3 */
	/* DMA write hit updates in place, wherever the line is. */
	CHECK_EQ(sim_llc_access(&llc, nic, SIM_LLC_WR, same_set(39)),
		 SIM_LLC_SAMPLED | SIM_LLC_HIT);
	/* DMA read miss: DRAM read, no allocation. */
	f = sim_llc_access(&llc, nic, SIM_LLC_RD, same_set(60));
	CHECK_EQ(f, SIM_LLC_SAMPLED | SIM_LLC_DRAM_RD);
	CHECK_EQ(sim_llc_probe(&llc, same_set(60)), 0);
	/* The DMA-written line 50 is dirty: evicting it writes it back. */
	sim_llc_access(&llc, nic, SIM_LLC_WR, same_set(51));     /* evicts 3 (clean) */
	f = sim_llc_access(&llc, nic, SIM_LLC_WR, same_set(52)); /* evicts 50 */
	CHECK_EQ(f, SIM_LLC_SAMPLED | SIM_LLC_DRAM_WR);

	sim_llc_stats(&llc, nic, SIM_LLC_WR, &st);
	CHECK_EQ(st.accesses, 4);
	CHECK(fabs(st.hits - 1.0) < 1e-9);
	CHECK(fabs(st.dram_wr - 1.0) < 1e-9);
	CHECK(fabs(st.dram_rd) < 1e-9);
	sim_llc_stats(&llc, cpu, SIM_LLC_OPS, &st);
	CHECK_EQ(st.accesses, 4);
	CHECK(fabs(st.dram_rd - 4.0) < 1e-9);
	/* Occupancy: the NIC owns the two DDIO ways of this set. */
	CHECK(fabs(sim_llc_occupancy(&llc, nic) - 2.0 * 64) < 1e-9);
	sim_llc_free(&llc);
}

static void reference(struct sim_llc *llc, uint32_t shift, enum sim_llc_index index)
{
	struct sim_llc_cfg cfg;

	sim_llc_cfg_reference(&cfg);
	cfg.sample_shift = shift;
	cfg.index = index;
	CHECK_EQ(sim_llc_init(llc, &cfg, NULL), 0);
	CHECK_EQ(llc->nsets, 32768);
}

/* NIC writes `nbuf` 2 KiB buffers round-robin for `rounds` rounds; when
 * lag >= 0 the CPU reads buffer (i − lag) after the NIC writes buffer i
 * (lag 0: reads each buffer right after it arrives). Returns the NIC write
 * hit rate of the last half of the rounds, and the CPU read hit rate in
 * *cpu_hit. */
static uint64_t buf_addr(uint64_t i, int scatter)
{
	/* Scattered: 2 KiB buffers at pseudo-random places in 1 TiB, like a
	 * pool built from independent 4 KiB pages. */
	return scatter ? (sim_mix64(i + 1) & ((1ull << 40) - 1) & ~(BUF - 1)) : i * BUF;
}

static double ring_at(struct sim_llc *llc, uint64_t nbuf, unsigned rounds, long lag,
		      double *cpu_hit, int scatter)
{
	int nic = sim_llc_add_class(llc, "nic", sim_llc_ddio_default(llc->ways), 1, NULL);
	int cpu = sim_llc_add_class(llc, "cpu", sim_llc_ways(0, llc->ways), 0, NULL);
	struct sim_llc_stats st;
	struct sim_llc_range r;

	for (unsigned k = 0; k < rounds; k++) {
		if (k == rounds / 2)
			sim_llc_reset_stats(llc);
		for (uint64_t i = 0; i < nbuf; i++) {
			memset(&r, 0, sizeof(r));
			sim_llc_access_range(llc, nic, SIM_LLC_WR, buf_addr(i, scatter), BUF, &r);
			if (lag >= 0) {
				uint64_t j = (i + nbuf - (uint64_t)lag % nbuf) % nbuf;

				sim_llc_access_range(llc, cpu, SIM_LLC_RD, buf_addr(j, scatter),
						     BUF, &r);
			}
		}
	}
	sim_llc_stats(llc, cpu, SIM_LLC_RD, &st);
	if (cpu_hit)
		*cpu_hit = st.hit_rate;
	sim_llc_stats(llc, nic, SIM_LLC_WR, &st);
	return st.hit_rate;
}

static double ring(struct sim_llc *llc, uint64_t nbuf, unsigned rounds, long lag, double *cpu_hit)
{
	return ring_at(llc, nbuf, rounds, lag, cpu_hit, 0);
}

static void test_ddio_fits(void)
{
	struct sim_llc llc;
	double h, cpu;

	/* 3 MiB of buffers in 4 MiB of DDIO ways, address bits → every set
	 * gets at most 2 lines: after the first round every write hits. */
	reference(&llc, 0, SIM_LLC_INDEX_BITS);
	h = ring(&llc, 3 * MIB / BUF, 6, -1, NULL);
	printf("  ddio fits (bits, 3 MiB): nic write hit %.4f\n", h);
	CHECK(h > 0.999);
	sim_llc_free(&llc);

	/* The default mapping spreads a contiguous pool evenly too. */
	reference(&llc, 0, SIM_LLC_INDEX_HASH);
	h = ring(&llc, 3 * MIB / BUF, 6, 0, &cpu);
	printf("  ddio fits (hash, 3 MiB): nic write hit %.4f, cpu read hit %.4f\n", h, cpu);
	CHECK(h > 0.999);
	CHECK(cpu > 0.999);
	sim_llc_free(&llc);

	/* Buffers scattered over independent pages land on sets at random: a
	 * set holds Poisson(0.5) of 1 MiB's lines, and the lines of sets
	 * holding more than 2 thrash in the 2 DDIO ways. Theory: hit rate =
	 * P(a line's set holds <= 2) = e^-0.5 · (1 + 0.5) = 0.91. */
	reference(&llc, 0, SIM_LLC_INDEX_HASH);
	h = ring_at(&llc, 1 * MIB / BUF, 8, 0, &cpu, 1);
	printf("  ddio fits (hash, 1 MiB scattered): nic write hit %.4f, cpu read hit %.4f\n", h,
	       cpu);
	CHECK(h > 0.85 && h < 0.97);
	CHECK(cpu > 0.999);
	sim_llc_free(&llc);
}

static void test_ddio_exceeds(void)
{
	struct sim_llc llc;
	double nic_only, nic_imm, nic_lag, nic_big, cpu_imm, cpu_lag;

	/* 8 MiB: twice the DDIO ways, a third of the LLC. */
	reference(&llc, 0, SIM_LLC_INDEX_HASH);
	nic_only = ring(&llc, 8 * MIB / BUF, 6, -1, NULL);
	sim_llc_free(&llc);

	/* The CPU reads each buffer right after the NIC wrote it: the read
	 * hits in the DDIO way and the line stays there, so the next NIC
	 * write still misses. */
	reference(&llc, 0, SIM_LLC_INDEX_HASH);
	nic_imm = ring(&llc, 8 * MIB / BUF, 6, 0, &cpu_imm);
	sim_llc_free(&llc);

	/* The CPU reads 6 MiB behind the NIC: the line has left the DDIO
	 * ways, the read misses and allocates into any way, and the NIC's
	 * next write to it hits there (write update). Documented semantics. */
	reference(&llc, 0, SIM_LLC_INDEX_HASH);
	nic_lag = ring(&llc, 8 * MIB / BUF, 6, (long)(6 * MIB / BUF), &cpu_lag);
	sim_llc_free(&llc);

	/* 40 MiB: larger than the whole LLC; the same lagging reads no longer
	 * keep lines until the NIC comes back. */
	reference(&llc, 0, SIM_LLC_INDEX_HASH);
	nic_big = ring(&llc, 40 * MIB / BUF, 4, (long)(6 * MIB / BUF), NULL);
	sim_llc_free(&llc);

	printf("  8 MiB: nic only %.3f | read at once %.3f (cpu %.3f) | read 6 MiB late %.3f "
	       "(cpu %.3f); 40 MiB: %.3f\n",
	       nic_only, nic_imm, cpu_imm, nic_lag, cpu_lag, nic_big);
	CHECK(nic_only < 0.2);
	CHECK(nic_imm < 0.2);
	CHECK(cpu_imm > 0.999);
	CHECK(nic_lag > 0.8);
	CHECK(nic_big < 0.3);
	CHECK(nic_big < nic_lag - 0.5);
}

/* A 4 MiB table read at random, beside a streaming reader; with CAT the
 * table owns ways 0-3 and the stream ways 4-10. */
static double table_vs_stream(int cat)
{
	struct sim_llc llc;
	struct sim_llc_stats st;
	struct sim_rng rng;
	uint64_t table = 4 * MIB / 64, stream_base = 1ull << 40, s = 0;
	int tab, str;

	reference(&llc, 0, SIM_LLC_INDEX_HASH);
	tab = sim_llc_add_class(&llc, "table", cat ? sim_llc_ways(0, 4) : sim_llc_ways(0, 11), 0,
				NULL);
	str = sim_llc_add_class(&llc, "stream", cat ? sim_llc_ways(4, 7) : sim_llc_ways(0, 11), 0,
				NULL);
	sim_rng_seed(&rng, 7, 0);
	/* Prefetch the table into its ways, then run. */
	for (uint64_t i = 0; i < table; i++)
		sim_llc_access(&llc, tab, SIM_LLC_RD, i * 64);
	for (int k = 0; k < 2000000; k++) {
		if (k == 500000)
			sim_llc_reset_stats(&llc);
		sim_llc_access(&llc, tab, SIM_LLC_RD, sim_rng_below(&rng, table) * 64);
		for (int j = 0; j < 8; j++, s++)
			sim_llc_access(&llc, str, SIM_LLC_RD, stream_base + s * 64);
	}
	sim_llc_stats(&llc, tab, SIM_LLC_RD, &st);
	sim_llc_free(&llc);
	return st.hit_rate;
}

static void test_cat_protects(void)
{
	double without = table_vs_stream(0), with = table_vs_stream(1);

	printf("  table hit rate beside a stream: shared ways %.3f, reserved ways %.3f\n", without,
	       with);
	CHECK(with > 0.9);
	CHECK(without < with - 0.3);
}

/* The same mixed workload on a fully simulated and on a sampled cache. */
static void mixed(uint32_t shift, int scatter, double out[5])
{
	struct sim_llc llc;
	struct sim_llc_stats st;
	struct sim_rng rng;
	struct sim_llc_range r = { 0 };
	uint64_t drawn_hits = 0, n = 0;
	int nic, app;

	reference(&llc, shift, SIM_LLC_INDEX_HASH);
	nic = sim_llc_add_class(&llc, "nic", sim_llc_ddio_default(11), 1, NULL);
	app = sim_llc_add_class(&llc, "app", sim_llc_ways(0, 11), 0, NULL);
	sim_rng_seed(&rng, 3, 0);
	for (int k = 0; k < 4000000; k++) {
		if (k == 1000000) {
			sim_llc_reset_stats(&llc);
			drawn_hits = n = 0;
			memset(&r, 0, sizeof(r));
		}
		/* 30 MiB of random reads and writes, and a 5 MiB DMA ring: more
		 * than the DDIO ways hold, so some sets thrash and some do not. */
		uint64_t a = sim_rng_below(&rng, 30 * MIB / 64) * 64;
		uint32_t f = sim_llc_access(&llc, app, (k & 3) ? SIM_LLC_RD : SIM_LLC_WR, a);

		drawn_hits += f & SIM_LLC_HIT ? 1 : 0;
		n++;
		if ((k & 7) == 0) {
			uint64_t b = (1ull << 41) + buf_addr((uint64_t)k / 8 % 2560, scatter);

			sim_llc_access_range(&llc, nic, SIM_LLC_WR, b, 1514, &r);
		}
	}
	sim_llc_stats(&llc, app, SIM_LLC_OPS, &st);
	out[0] = st.hit_rate;
	out[1] = st.dram_wr / (double)st.accesses;
	out[2] = (double)drawn_hits / (double)n;
	sim_llc_stats(&llc, nic, SIM_LLC_WR, &st);
	out[3] = st.hit_rate;
	out[4] = (double)r.hits / (double)r.lines; /* as handed to the caller */
	sim_llc_free(&llc);
}

static void test_sampling_accuracy(void)
{
	for (int scatter = 0; scatter <= 1; scatter++) {
		double full[5], samp[5];

		mixed(0, scatter, full);
		mixed(4, scatter, samp);
		printf("  %s ring, full: app hit %.4f wb/access %.4f (per-access %.4f) nic hit "
		       "%.4f\n",
		       scatter ? "scattered" : "contiguous", full[0], full[1], full[2], full[3]);
		printf("  %s ring, 1/16: app hit %.4f wb/access %.4f (per-access %.4f) nic hit "
		       "%.4f\n",
		       scatter ? "scattered" : "contiguous", samp[0], samp[1], samp[2], samp[3]);
		CHECK(fabs(samp[0] - full[0]) < 0.02);
		CHECK(fabs(samp[1] - full[1]) < 0.02);
		CHECK(fabs(samp[2] - full[0]) < 0.02); /* outcomes handed to the caller */
		/* The ring is small: scattered, only ~160 of its 2560 chunks
		 * fall in the 64 simulated groups, so its estimate carries the
		 * Poisson noise of those groups' loads (about ±0.04). */
		CHECK(fabs(samp[3] - full[3]) < (scatter ? 0.06 : 0.03));
		CHECK(fabs(samp[4] - samp[3]) < 0.01); /* ranges: error diffusion */
		CHECK(fabs(full[4] - full[3]) < 1e-9);
		/* The workload is not trivial. */
		CHECK(full[0] > 0.3 && full[0] < 0.9);
		CHECK(full[3] > 0.2 && full[3] < 0.95);
	}
}

static void test_determinism(void)
{
	double a[5], b[5];

	mixed(4, 1, a);
	mixed(4, 1, b);
	CHECK(memcmp(a, b, sizeof(a)) == 0);
}

static void test_config_errors(void)
{
	struct sim_llc llc;
	struct sim_llc_cfg cfg;
	struct rxb_err err;

	sim_llc_cfg_reference(&cfg);
	cfg.ways = 33;
	CHECK_EQ(sim_llc_init(&llc, &cfg, &err), -EINVAL);
	CHECK(strstr(err.msg, "llc.ways") != NULL);

	sim_llc_cfg_reference(&cfg);
	cfg.size_bytes = 22000000;
	CHECK_EQ(sim_llc_init(&llc, &cfg, &err), -EINVAL);
	CHECK(strstr(err.msg, "llc.size_bytes") != NULL);

	sim_llc_cfg_reference(&cfg);
	cfg.size_bytes = 64ull * 11 * 32 * 3; /* 96 sets: not a power of two */
	cfg.index = SIM_LLC_INDEX_BITS;
	cfg.sample_shift = 0;
	CHECK_EQ(sim_llc_init(&llc, &cfg, &err), -EINVAL);
	CHECK(strstr(err.msg, "llc.index") != NULL);
	cfg.index = SIM_LLC_INDEX_HASH; /* hashing takes any multiple of 32 sets */
	CHECK_EQ(sim_llc_init(&llc, &cfg, &err), 0);
	sim_llc_free(&llc);

	sim_llc_cfg_reference(&cfg);
	cfg.sample_shift = 11; /* 1024 groups: at most 10 */
	CHECK_EQ(sim_llc_init(&llc, &cfg, &err), -EINVAL);
	CHECK(strstr(err.msg, "llc.sample_shift") != NULL);

	sim_llc_cfg_reference(&cfg);
	CHECK_EQ(cfg.ddio_plus_mask, 0x003u);
	cfg.ddio_plus_mask = 1u << 11; /* beyond the 11 ways */
	CHECK_EQ(sim_llc_init(&llc, &cfg, &err), -EINVAL);
	CHECK(strstr(err.msg, "llc.ddio_plus_mask") != NULL);

	sim_llc_cfg_reference(&cfg);
	CHECK_EQ(sim_llc_init(&llc, &cfg, &err), 0);
	CHECK_EQ(sim_llc_add_class(&llc, "app", 0, 0, &err), -EINVAL);
	CHECK(strstr(err.msg, "way_mask") != NULL && strstr(err.msg, "app") != NULL);
	CHECK_EQ(sim_llc_add_class(&llc, "app", 1u << 11, 0, &err), -EINVAL);
	CHECK_EQ(sim_llc_add_class(&llc, "app", 0x7ff, 0, &err), 0);
	CHECK_EQ(sim_llc_set_mask(&llc, 0, 0x600, &err), 0);
	CHECK_EQ(sim_llc_set_mask(&llc, 1, 0x600, &err), -EINVAL);
	sim_llc_free(&llc);
}

int main(void)
{
	RUN(test_lru_order);
	RUN(test_mask_and_writeback);
	RUN(test_ddio_fits);
	RUN(test_ddio_exceeds);
	RUN(test_cat_protects);
	RUN(test_sampling_accuracy);
	RUN(test_determinism);
	RUN(test_config_errors);
	return check_summary();
}
