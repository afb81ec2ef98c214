/* SPDX-License-Identifier: BSD-3-Clause
 * DRAM model: peak bandwidth arithmetic, the latency curve (idle at 0,
 * monotone, capped), window accounting, overload backlog, time order
 * (early and late accesses), config errors. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dram.h"

#define WIN 1000000ull /* 1 µs in ps */

static void test_peak(void)
{
	struct sim_dram_cfg cfg;

	sim_dram_cfg_reference(&cfg);
	/* The Silver 4216 runs DDR4-2933 DIMMs at 2400 MT/s: 4 × 2400e6 × 8. */
	CHECK(fabs(sim_dram_peak_Bps(&cfg) - 76.8e9) < 1.0);
	CHECK(fabs(sim_dram_sustainable_Bps(&cfg) - 0.8 * 76.8e9) < 1.0);
	/* At the DIMMs' own speed: 4 × 2933e6 × 8 = 93.856 GB/s. */
	cfg.cpu_max_mts = 0;
	CHECK(fabs(sim_dram_peak_Bps(&cfg) - 93.856e9) < 1.0);
	cfg.cpu_max_mts = 3200; /* a faster CPU does not speed up the DIMMs */
	CHECK(fabs(sim_dram_peak_Bps(&cfg) - 93.856e9) < 1.0);
}

static void test_curve(void)
{
	struct sim_dram_cfg cfg;
	double prev = 0.0;
	int monotone = 1;

	sim_dram_cfg_reference(&cfg);
	CHECK(sim_dram_latency_ns_at(&cfg, 0.0) == cfg.idle_ns);
	CHECK(sim_dram_latency_ns_at(&cfg, -1.0) == cfg.idle_ns);
	for (int i = 0; i <= 1200; i++) {
		double l = sim_dram_latency_ns_at(&cfg, i / 1000.0);

		monotone &= l >= prev;
		prev = l;
	}
	CHECK(monotone);
	/* M/D/1: at ρ = 0.5 the wait is t_s · 0.5 / (2 · 0.5) = t_s / 2. */
	CHECK(fabs(sim_dram_latency_ns_at(&cfg, 0.5) - (cfg.idle_ns + cfg.service_ns / 2)) < 1e-9);
	/* Capped at rho_max. */
	CHECK(sim_dram_latency_ns_at(&cfg, 1.5) == sim_dram_latency_ns_at(&cfg, cfg.rho_max));
	CHECK(sim_dram_latency_ns_at(&cfg, cfg.rho_max) > 2 * cfg.idle_ns);
}

static void test_accounting(void)
{
	struct sim_dram_cfg cfg;
	struct sim_dram d;
	struct sim_dram_stats st;
	double per_win;
	uint64_t t = 0;

	sim_dram_cfg_reference(&cfg);
	CHECK_EQ(sim_dram_init(&d, &cfg, NULL), 0);
	CHECK_EQ(sim_dram_latency_ps(&d), (uint64_t)(cfg.idle_ns * 1000 + 0.5));
	/* Half the sustainable bandwidth, in 64 B lines spread over each
	 * window, 2 reads per write. */
	per_win = 0.5 * sim_dram_sustainable_Bps(&cfg) * 1e-6;
	for (int w = 0; w < 100; w++) {
		uint64_t lines = (uint64_t)(per_win / 64.0);

		for (uint64_t i = 0; i < lines; i++) {
			t = w * WIN + i * WIN / lines;
			sim_dram_account(&d, t, (i % 3) ? 64 : 0, (i % 3) ? 0 : 64);
		}
	}
	sim_dram_advance(&d, 100 * WIN);
	sim_dram_stats(&d, 100 * WIN, &st);
	CHECK_EQ(st.windows, 100);
	CHECK(fabs(st.last_util - 0.5) < 0.001);
	CHECK(fabs(st.mean_gibps - per_win * 1e6 / 1073741824.0) < 0.01);
	CHECK(fabs(st.rd_gibps / st.wr_gibps - 2.0) < 0.01);
	CHECK(st.backlog_bytes == 0.0);
	CHECK(llabs((long long)sim_dram_latency_ps(&d) -
		    llround(1000 * sim_dram_latency_ns_at(&cfg, st.last_util))) <= 1);

	/* Silence: back to idle latency, and a long gap is skipped at once. */
	sim_dram_advance(&d, 1000000 * WIN);
	CHECK_EQ(sim_dram_latency_ps(&d), (uint64_t)(cfg.idle_ns * 1000 + 0.5));
	sim_dram_stats(&d, 1000000 * WIN, &st);
	CHECK_EQ(st.windows, 1000000);
}

static void test_overload(void)
{
	struct sim_dram_cfg cfg;
	struct sim_dram d;
	struct sim_dram_stats st;
	uint64_t prev = 0, cap_ps;
	double per_win;
	int rising = 1;

	sim_dram_cfg_reference(&cfg);
	sim_dram_init(&d, &cfg, NULL);
	cap_ps = (uint64_t)llround(1000 * sim_dram_latency_ns_at(&cfg, 1.0));
	per_win = 1.5 * sim_dram_sustainable_Bps(&cfg) * 1e-6;
	/* Demand 150 % of what the memory can serve: the excess queues, and
	 * the latency keeps growing by half a window per window. */
	for (int w = 0; w < 20; w++) {
		sim_dram_account(&d, w * WIN, (uint64_t)per_win, 0);
		sim_dram_advance(&d, (w + 1) * WIN);
		rising &= sim_dram_latency_ps(&d) > prev;
		prev = sim_dram_latency_ps(&d);
	}
	CHECK(rising);
	CHECK(prev > cap_ps + 9 * WIN);
	sim_dram_stats(&d, 20 * WIN, &st);
	CHECK(fabs(st.backlog_bytes - 20 * 0.5 * per_win / 1.5) < 1e3);
	/* The queue drains at the sustainable rate once demand stops. */
	sim_dram_advance(&d, 40 * WIN);
	CHECK(sim_dram_latency_ps(&d) < prev);
	sim_dram_advance(&d, 100 * WIN);
	CHECK_EQ(sim_dram_latency_ps(&d), (uint64_t)(cfg.idle_ns * 1000 + 0.5));
}

/* Time order: an access before the current window counts in it, and is late
 * (a caller's bug) beyond late_ps. */
static void test_order(void)
{
	struct sim_dram_cfg cfg;
	struct sim_dram d;

	sim_dram_cfg_reference(&cfg);
	CHECK_EQ(cfg.late_ps, WIN);
	sim_dram_init(&d, &cfg, NULL);
	sim_dram_account(&d, 10 * WIN + WIN / 2, 640, 0);
	CHECK_EQ(d.win_start, 10 * WIN);
	CHECK_EQ(d.win_rd, 640);
	/* Earlier than the current window: counted in it; within late_ps only
	 * "early" (debug builds abort on a late one, so not tried there). */
	sim_dram_account(&d, d.win_start - WIN / 2, 64, 0);
	CHECK_EQ(d.early, 1);
	CHECK_EQ(d.late, 0);
	CHECK_EQ(d.max_age_ps, WIN / 2);
	CHECK_EQ(d.win_rd, 640 + 64);
#ifndef RXB_DEBUG
	sim_dram_account(&d, d.win_start - 3 * WIN, 64, 0);
	CHECK_EQ(d.late, 1);
	CHECK_EQ(d.max_age_ps, 3 * WIN);
#endif
}

static void test_config_errors(void)
{
	struct sim_dram_cfg cfg;
	struct sim_dram d;
	struct rxb_err err;

	sim_dram_cfg_reference(&cfg);
	cfg.channels = 0;
	CHECK_EQ(sim_dram_init(&d, &cfg, &err), -EINVAL);
	CHECK(strstr(err.msg, "dram.channels") != NULL);
	sim_dram_cfg_reference(&cfg);
	cfg.efficiency = 1.2;
	CHECK_EQ(sim_dram_init(&d, &cfg, &err), -EINVAL);
	CHECK(strstr(err.msg, "dram.efficiency") != NULL);
	sim_dram_cfg_reference(&cfg);
	cfg.rho_max = 1.0;
	CHECK_EQ(sim_dram_init(&d, &cfg, &err), -EINVAL);
	CHECK(strstr(err.msg, "dram.rho_max") != NULL);
	sim_dram_cfg_reference(&cfg);
	cfg.window_ps = 10;
	CHECK_EQ(sim_dram_init(&d, &cfg, &err), -EINVAL);
	CHECK(strstr(err.msg, "dram.window_ps") != NULL);
}

int main(void)
{
	RUN(test_peak);
	RUN(test_curve);
	RUN(test_accounting);
	RUN(test_overload);
	RUN(test_order);
	RUN(test_config_errors);
	return check_summary();
}
