/* SPDX-License-Identifier: BSD-3-Clause
 * sim_bench_models: what the simulator's building blocks cost per operation
 * on this machine (not a test; run by hand). The full simulator's budget is
 * about 100 ns per packet (10 M simulated packets per second per core), so
 * each model must cost tens of ns at most.
 *
 *   sim_bench_models [iterations-in-millions [section 1-6]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "dram.h"
#include "heap.h"
#include "llc.h"
#include "traffic.h"

/* CPU time of this process: on a shared machine, time spent descheduled
 * does not count against the models. */
static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static volatile uint64_t sink; /* keeps results alive */

static void llc_setup(struct sim_llc *llc, uint32_t shift, int *nic, int *app)
{
	struct sim_llc_cfg cfg;

	sim_llc_cfg_reference(&cfg);
	cfg.sample_shift = shift;
	if (sim_llc_init(llc, &cfg, NULL) != 0)
		exit(1);
	*nic = sim_llc_add_class(llc, "nic", sim_llc_ddio_default(11), 1, NULL);
	*app = sim_llc_add_class(llc, "app", sim_llc_ways(0, 11), 0, NULL);
}

static void bench_llc(uint64_t iters, uint32_t shift)
{
	struct sim_llc llc;
	struct sim_rng r;
	struct sim_llc_range rr = { 0 };
	uint64_t acc = 0;
	int nic, app;
	double t0, t1, t2;

	llc_setup(&llc, shift, &nic, &app);
	sim_rng_seed(&r, 1, 0);
	t0 = now_ns();
	for (uint64_t i = 0; i < iters; i++)
		acc += sim_llc_access(&llc, app, SIM_LLC_RD,
				      sim_rng_below(&r, (64ull << 20) / 64) * 64);
	t1 = now_ns();
	/* A DMA write of a 1514 B frame into a 32 MiB ring of 2 KiB buffers. */
	for (uint64_t i = 0; i < iters / 8; i++)
		sim_llc_access_range(&llc, nic, SIM_LLC_WR, (i % 16384) * 2048, 1514, &rr);
	t2 = now_ns();
	sink += acc + rr.hits;
	printf("llc (1/%-5u sets): %6.1f ns per random line access, %6.1f ns per 1514 B DMA write "
	       "(24 lines)\n",
	       1u << shift, (t1 - t0) / (double)iters, (t2 - t1) / (double)(iters / 8));
	sim_llc_free(&llc);
}

static void bench_traffic(uint64_t iters, int fancy)
{
	struct sim_traffic_cfg cfg;
	struct sim_traffic g;
	struct sim_pkt p;
	uint64_t acc = 0;
	double t0, t1;

	sim_traffic_cfg_default(&cfg);
	if (fancy) {
		/* Poisson, a size mix, Zipf keys. */
		cfg.main.arrival = SIM_ARRIVAL_POISSON;
		cfg.main.rate_bps = 90000000000ull;
		sim_size_imix(&cfg.main.size);
		cfg.main.flows = 1000000;
		cfg.main.flow_pop = SIM_POP_ZIPF;
		cfg.main.flow_zipf_s = 0.99;
		cfg.keys = 10000000;
		cfg.key_pop = SIM_POP_ZIPF;
		cfg.key_zipf_s = 0.99;
	}
	if (sim_traffic_init(&g, &cfg, NULL) != 0)
		exit(1);
	t0 = now_ns();
	for (uint64_t i = 0; i < iters; i++) {
		sim_traffic_next(&g, &p);
		acc += p.sip ^ p.len;
	}
	t1 = now_ns();
	sink += acc;
	printf("traffic (%s): %6.1f ns per packet\n",
	       fancy ? "poisson, IMIX, zipf flows + keys" : "constant, fixed size, uniform flows",
	       (t1 - t0) / (double)iters);
	sim_traffic_free(&g);
}

static void bench_dram_heap(uint64_t iters)
{
	struct sim_dram_cfg dc;
	struct sim_dram d;
	struct sim_heap h;
	struct sim_event e = { 0 };
	struct sim_rng r;
	double t0, t1, t2;

	sim_dram_cfg_reference(&dc);
	sim_dram_init(&d, &dc, NULL);
	t0 = now_ns();
	for (uint64_t i = 0; i < iters; i++) {
		sim_dram_account(&d, i * 100, 64, (i & 3) ? 0 : 64);
		sink += sim_dram_latency_ps(&d);
	}
	t1 = now_ns();
	sim_heap_init(&h, 4096, NULL);
	sim_rng_seed(&r, 2, 0);
	for (int i = 0; i < 1024; i++)
		sim_heap_push(&h, sim_rng_below(&r, 1000000), 0, 0, 0);
	for (uint64_t i = 0; i < iters; i++) {
		uint64_t t = sim_heap_peek(&h)->t + sim_rng_below(&r, 1000000);

		sim_heap_pop_push(&h, &e, t, 0, 0, 0);
	}
	t2 = now_ns();
	sink += e.t;
	printf("dram: %6.1f ns per account+latency;  heap (1024 events): %6.1f ns per pop+push\n",
	       (t1 - t0) / (double)iters, (t2 - t1) / (double)iters);
	sim_heap_free(&h);
}

/* What one simulated packet would cost in these models: generate it, DMA
 * it into the LLC (DDIO), read its header line, two random table reads
 * (the synthetic NF), DRAM accounting of the misses. */
static void bench_packet(uint64_t iters)
{
	struct sim_traffic_cfg tc;
	struct sim_traffic g;
	struct sim_dram_cfg dc;
	struct sim_dram d;
	struct sim_llc llc;
	struct sim_rng r;
	struct sim_pkt p;
	int nic, app;
	double t0, t1;

	sim_traffic_cfg_default(&tc);
	sim_traffic_init(&g, &tc, NULL);
	sim_dram_cfg_reference(&dc);
	sim_dram_init(&d, &dc, NULL);
	llc_setup(&llc, 4, &nic, &app);
	sim_rng_seed(&r, 3, 0);
	t0 = now_ns();
	for (uint64_t i = 0; i < iters; i++) {
		struct sim_llc_range rr = { 0 };
		uint64_t buf = (i % 16384) * 2048;
		uint32_t f1, f2, f3;

		sim_traffic_next(&g, &p);
		sim_llc_access_range(&llc, nic, SIM_LLC_WR, buf, sim_dma_bytes(p.len), &rr);
		f1 = sim_llc_access(&llc, app, SIM_LLC_RD, buf);
		f2 = sim_llc_access(&llc, app, SIM_LLC_RD,
				    (1ull << 40) + sim_rng_below(&r, (40ull << 20) / 64) * 64);
		f3 = sim_llc_access(&llc, app, SIM_LLC_RD,
				    (1ull << 40) + sim_rng_below(&r, (40ull << 20) / 64) * 64);
		sim_dram_account(&d, p.t_ps,
				 64ull * (rr.dram_rd + !!(f1 & SIM_LLC_DRAM_RD) +
					  !!(f2 & SIM_LLC_DRAM_RD) + !!(f3 & SIM_LLC_DRAM_RD)),
				 64ull * (rr.dram_wr + !!(f1 & SIM_LLC_DRAM_WR) +
					  !!(f2 & SIM_LLC_DRAM_WR) + !!(f3 & SIM_LLC_DRAM_WR)));
	}
	t1 = now_ns();
	printf("per packet (traffic + 1514 B DDIO write + 3 CPU line reads + dram): %6.1f ns "
	       "-> %.1f M packets/s for the models alone\n",
	       (t1 - t0) / (double)iters, 1e3 / ((t1 - t0) / (double)iters));
	sim_llc_free(&llc);
	sim_traffic_free(&g);
}

int main(int argc, char **argv)
{
	uint64_t iters = (argc > 1 ? strtoull(argv[1], NULL, 10) : 4) * 1000000ull;
	int only = argc > 2 ? atoi(argv[2]) : 0; /* run one section */

	/* Each section runs three times: on a shared machine the fastest run
	 * is the one least disturbed by other work. */
	for (int rep = 0; rep < 3; rep++) {
		printf("-- run %d\n", rep + 1);
		if (only == 0 || only == 1)
			bench_llc(iters, 4);
		if (only == 0 || only == 2)
			bench_llc(iters, 0);
		if (only == 0 || only == 3)
			bench_traffic(iters, 0);
		if (only == 0 || only == 4)
			bench_traffic(iters, 1);
		if (only == 0 || only == 5)
			bench_dram_heap(iters);
		if (only == 0 || only == 6)
			bench_packet(iters);
	}
	return 0;
}
