/* SPDX-License-Identifier: BSD-3-Clause
 * Traffic generator: Ethernet arithmetic, constant / Poisson / on-off
 * arrivals, target share and target rate, flow and key popularity, key
 * steering, determinism, lazy tuples, generator ranges, config errors. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "traffic.h"

/* Stand-in for the NIC's Toeplitz hash + RETA: any well-mixed function of
 * the tuple does for these tests. ctx points at the queue count. */
static uint32_t fake_rss(void *ctx, const struct sim_pkt *p)
{
	uint32_t nq = *(const uint32_t *)ctx;
	uint64_t h = sim_mix64(((uint64_t)p->sip << 32 | p->dip) ^
			       ((uint64_t)p->sport << 16 | p->dport) * 0x9e3779b97f4a7c15ull);

	return (uint32_t)(((h >> 32) * nq) >> 32);
}

/* A RETA that never uses queue 3. */
static uint32_t rss_skip3(void *ctx, const struct sim_pkt *p)
{
	uint32_t q = fake_rss(ctx, p);

	return q == 3 ? 4 : q;
}

/* Steer with fake_rss over *nq queues. */
static void steer(struct sim_traffic_cfg *cfg, uint32_t *nq)
{
	cfg->nqueues = *nq;
	cfg->queue_of = fake_rss;
	cfg->queue_ctx = nq;
}

static void test_constant_rate(void)
{
	struct sim_traffic_cfg cfg;
	struct sim_traffic g;
	struct sim_pkt p, prev = { 0 };
	uint64_t n = 0;
	int exact_gap = 1;

	sim_traffic_cfg_default(&cfg);    /* 100 Gb/s, 1518 B frames ("1500 B packets") */
	cfg.stop_ps = 10 * 1000000000ull; /* 10 ms */
	CHECK_EQ(sim_traffic_init(&g, &cfg, NULL), 0);
	while (sim_traffic_next(&g, &p)) {
		if (n++)
			exact_gap &= p.t_ps - prev.t_ps == 123040; /* 1538 B × 80 ps */
		prev = p;
	}
	/* 100e9 / (8 × 1538) = 8.1274 Mpps: 81274 in 10 ms. */
	CHECK(fabs(sim_pps(cfg.line_bps, 1518) - 8.1274e6) < 100);
	CHECK_EQ(n, 81274);
	CHECK(exact_gap);
	CHECK_EQ(g.stats.delayed, 0);
	/* First frame: preamble + frame = 1526 B at 100 Gb/s after start. */
	CHECK_EQ(g.stats.first_ps, 1526 * 80);
	sim_traffic_free(&g);

	/* 64 B frames: 84 B on the wire, 6.72 ns apart, 148.8 Mpps. */
	sim_size_fixed(&cfg.main.size, 64);
	cfg.stop_ps = 1000000000ull; /* 1 ms */
	sim_traffic_init(&g, &cfg, NULL);
	n = 0;
	exact_gap = 1;
	while (sim_traffic_next(&g, &p)) {
		if (n++)
			exact_gap &= p.t_ps - prev.t_ps == 6720;
		prev = p;
	}
	CHECK(exact_gap);
	CHECK_EQ(n, 148809);
	sim_traffic_free(&g);

	/* Half rate: one frame every two slots. */
	sim_size_fixed(&cfg.main.size, 1518);
	cfg.main.rate_bps = 50000000000ull;
	sim_traffic_init(&g, &cfg, NULL);
	sim_traffic_next(&g, &prev);
	sim_traffic_next(&g, &p);
	CHECK_EQ(p.t_ps - prev.t_ps, 2 * 123040);
	sim_traffic_free(&g);
}

static void test_poisson(void)
{
	struct sim_traffic_cfg cfg;
	struct sim_traffic g;
	struct sim_pkt p, prev = { 0 };
	double sum = 0.0, sum2 = 0.0, rate;
	uint64_t n = 0;

	sim_traffic_cfg_default(&cfg);
	cfg.main.arrival = SIM_ARRIVAL_POISSON;
	cfg.main.rate_bps = 40000000000ull; /* 40 % of the link */
	sim_size_imix(&cfg.main.size);
	cfg.max_pkts = 1000000;
	CHECK_EQ(sim_traffic_init(&g, &cfg, NULL), 0);
	while (sim_traffic_next(&g, &p)) {
		if (n++) {
			double d = (double)(p.t_ps - prev.t_ps);

			sum += d;
			sum2 += d * d;
		}
		prev = p;
	}
	CHECK_EQ(n, 1000000);
	rate = (double)(g.stats.wire_bytes[0]) * 8.0 / ((double)g.stats.last_ps * 1e-12);
	printf("  poisson: offered %.4g b/s, measured %.4g b/s, gap CV %.3f, %llu delayed\n",
	       (double)cfg.main.rate_bps, rate,
	       sqrt(sum2 / (n - 1) - (sum / (n - 1)) * (sum / (n - 1))) / (sum / (n - 1)),
	       (unsigned long long)g.stats.delayed);
	CHECK(fabs(rate / 40e9 - 1.0) < 0.01);
	/* Exponential gaps: coefficient of variation near 1 (a little less:
	 * frames cannot overlap on the wire). */
	CHECK(fabs(sqrt(sum2 / (n - 1) - (sum / (n - 1)) * (sum / (n - 1))) / (sum / (n - 1)) -
		   1.0) < 0.1);
	sim_traffic_free(&g);
}

static void test_onoff(void)
{
	struct sim_traffic_cfg cfg;
	struct sim_traffic g;
	struct sim_pkt p, prev = { 0 };
	uint64_t n = 0, on_ps = 0, bursts = 0, slot = 1538 * 80, run_start = 0;

	sim_traffic_cfg_default(&cfg);
	cfg.main.arrival = SIM_ARRIVAL_ONOFF;
	cfg.main.rate_bps = 30000000000ull;
	cfg.main.duty = 0.3; /* bursts at 100 Gb/s */
	cfg.main.burst_pkts = 64;
	cfg.max_pkts = 64 * 1000;
	CHECK_EQ(sim_traffic_init(&g, &cfg, NULL), 0);
	while (sim_traffic_next(&g, &p)) {
		if (n == 0) {
			run_start = p.t_ps;
			bursts = 1;
		} else if (p.t_ps - prev.t_ps > slot) {
			/* A gap: the previous burst was on from run_start to the
			 * end of its last frame's slot. */
			on_ps += prev.t_ps + slot - run_start;
			run_start = p.t_ps;
			bursts++;
		} else {
			CHECK_EQ(p.t_ps - prev.t_ps, slot); /* back to back inside a burst */
		}
		prev = p;
		n++;
	}
	CHECK_EQ(bursts, 1000);
	/* Time from the first burst's start to the end of the 999th burst's
	 * off period: 999 periods. */
	{
		double period = (double)(run_start - g.stats.first_ps) / 999.0;
		double duty = (double)(on_ps) / 999.0 / period;

		printf("  on-off: duty %.4f (want 0.3), period %.1f ns\n", duty, period / 1000);
		CHECK(fabs(duty - 0.3) < 0.003);
		CHECK(fabs(64.0 * 1538 * 8 / (period * 1e-12) / 30e9 - 1.0) < 0.01);
	}
	sim_traffic_free(&g);
}

/* Poisson with a target class of another size: the bits come at the rate
 * (the gaps were the main size's mean whatever frame was drawn, so 90 %
 * of 64 B frames offered a third of the rate). */
static void test_poisson_target_sizes(void)
{
	struct sim_traffic_cfg cfg;
	struct sim_traffic g;
	struct sim_pkt p;
	uint32_t nq = 8;
	double rate;

	sim_traffic_cfg_default(&cfg);
	steer(&cfg, &nq);
	cfg.main.arrival = SIM_ARRIVAL_POISSON;
	cfg.main.rate_bps = 40000000000ull;
	cfg.target_queue = 3;
	cfg.target_share = 0.9;
	sim_size_fixed(&cfg.target.size, 64);
	cfg.target.flows = 16;
	cfg.max_pkts = 400000;
	CHECK_EQ(sim_traffic_init(&g, &cfg, NULL), 0);
	while (sim_traffic_next(&g, &p))
		;
	rate = (double)(g.stats.wire_bytes[0] + g.stats.wire_bytes[1]) * 8.0 /
	       ((double)g.stats.last_ps * 1e-12);
	printf("  poisson, 90 %% of 64 B frames: %.4g b/s (want 4e10)\n", rate);
	CHECK(fabs(rate / 40e9 - 1.0) < 0.02);
	sim_traffic_free(&g);
}

static void test_target_share(void)
{
	struct sim_traffic_cfg cfg;
	struct sim_traffic g;
	struct sim_pkt p;
	uint32_t nq = 8, to_target = 0, misrouted = 0, bad_len = 0, n = 0;
	uint32_t per_q[8] = { 0 };

	sim_traffic_cfg_default(&cfg);
	steer(&cfg, &nq);
	cfg.target_queue = 3;
	cfg.target_share = 0.2;
	sim_size_fixed(&cfg.target.size, 64);
	cfg.target.flows = 16;
	cfg.max_pkts = 200000;
	CHECK_EQ(sim_traffic_init(&g, &cfg, NULL), 0);
	while (sim_traffic_next(&g, &p)) {
		uint32_t q = fake_rss(&nq, &p);

		n++;
		per_q[q]++;
		to_target += q == 3;
		misrouted += (p.cls == 1) != (q == 3);
		bad_len += p.len != (p.cls ? 64u : 1518u);
	}
	printf("  target share: %.4f of packets to queue 3 (want 0.2)\n", (double)to_target / n);
	CHECK(fabs((double)to_target / n - 0.2) < 0.005);
	CHECK_EQ(misrouted, 0);
	CHECK_EQ(bad_len, 0);
	/* The others spread over the 7 other queues. */
	for (uint32_t q = 0; q < nq; q++)
		if (q != 3)
			CHECK(fabs(per_q[q] / (0.8 * n) - 1.0 / 7) < 0.02);
	sim_traffic_free(&g);
}

static void test_target_rate(void)
{
	struct sim_traffic_cfg cfg;
	struct sim_traffic g;
	struct sim_pkt p;
	uint32_t nq = 8;
	double tgt_rate;

	sim_traffic_cfg_default(&cfg);
	steer(&cfg, &nq);
	cfg.target_queue = 5;
	cfg.main.rate_bps = 99000000000ull;
	cfg.target.rate_bps = 1000000000ull; /* 1 Gb/s to the target */
	cfg.target.arrival = SIM_ARRIVAL_POISSON;
	sim_size_fixed(&cfg.target.size, 1518);
	cfg.stop_ps = 20 * 1000000000ull; /* 20 ms */
	CHECK_EQ(sim_traffic_init(&g, &cfg, NULL), 0);
	while (sim_traffic_next(&g, &p))
		CHECK((p.cls == 1) == (fake_rss(&nq, &p) == 5));
	tgt_rate = (double)g.stats.wire_bytes[1] * 8 / 20e-3;
	printf("  target rate: %.4g b/s (want 1e9); main %.4g b/s\n", tgt_rate,
	       (double)g.stats.wire_bytes[0] * 8 / 20e-3);
	CHECK(fabs(tgt_rate / 1e9 - 1.0) < 0.03);
	CHECK(fabs((double)g.stats.wire_bytes[0] * 8 / 20e-3 / 99e9 - 1.0) < 0.01);
	sim_traffic_free(&g);
}

static void test_popularity(void)
{
	struct sim_traffic_cfg cfg;
	struct sim_traffic g;
	struct sim_pkt p;
	struct sim_zipf z;
	uint64_t n = 0, flow0 = 0, key0 = 0;
	double pf, pk;

	sim_traffic_cfg_default(&cfg);
	cfg.main.flows = 1000;
	cfg.main.flow_pop = SIM_POP_ZIPF;
	cfg.main.flow_zipf_s = 0.99;
	cfg.keys = 100000;
	cfg.key_pop = SIM_POP_ZIPF;
	cfg.key_zipf_s = 0.99;
	cfg.max_pkts = 1000000;
	CHECK_EQ(sim_traffic_init(&g, &cfg, NULL), 0);
	while (sim_traffic_next(&g, &p)) {
		n++;
		flow0 += p.flow == 0;
		key0 += p.key == 0;
	}
	sim_zipf_init(&z, 1000, 0.99, NULL);
	pf = sim_zipf_pmf(&z, 1);
	sim_zipf_init(&z, 100000, 0.99, NULL);
	pk = sim_zipf_pmf(&z, 1);
	printf("  zipf: flow rank 1 %.5f (theory %.5f), key rank 1 %.5f (theory %.5f)\n",
	       (double)flow0 / n, pf, (double)key0 / n, pk);
	CHECK(fabs((double)flow0 - pf * n) < 5 * sqrt(n * pf));
	CHECK(fabs((double)key0 - pk * n) < 5 * sqrt(n * pk));
	sim_traffic_free(&g);
}

static void test_key_steer(void)
{
	struct sim_traffic_cfg cfg;
	struct sim_traffic g;
	struct sim_pkt p;
	uint32_t nq = 8, wrong = 0, n = 0;

	sim_traffic_cfg_default(&cfg);
	steer(&cfg, &nq);
	cfg.keys = 1000000;
	cfg.key_steer = 1;
	cfg.main.flows = 8192;
	cfg.max_pkts = 100000;
	CHECK_EQ(sim_traffic_init(&g, &cfg, NULL), 0);
	while (sim_traffic_next(&g, &p)) {
		n++;
		wrong += fake_rss(&nq, &p) != sim_key_partition(p.key, nq);
	}
	CHECK_EQ(n, 100000);
	CHECK_EQ(wrong, 0);
	sim_traffic_free(&g);
}

static uint64_t digest(uint64_t seed)
{
	struct sim_traffic_cfg cfg;
	struct sim_traffic g;
	struct sim_pkt p;
	uint32_t nq = 4;
	uint64_t h = 0;

	sim_traffic_cfg_default(&cfg);
	cfg.seed = seed;
	cfg.main.arrival = SIM_ARRIVAL_POISSON;
	cfg.main.rate_bps = 60000000000ull;
	steer(&cfg, &nq);
	cfg.target_queue = 1;
	cfg.target_share = 0.1;
	cfg.keys = 1000;
	cfg.max_pkts = 50000;
	sim_traffic_init(&g, &cfg, NULL);
	while (sim_traffic_next(&g, &p))
		h = sim_mix64(h ^ p.t_ps ^ (uint64_t)p.len << 40 ^ p.sip ^ (uint64_t)p.dport << 20 ^
			      (uint64_t)p.key << 32);
	sim_traffic_free(&g);
	return h;
}

static void test_determinism(void)
{
	CHECK(digest(1) == digest(1));
	CHECK(digest(1) != digest(2));
}

static void test_lazy_tuple(void)
{
	/* lazy_tuple: the same packets (time, size, class, flow, key) without
	 * the addresses and ports, which sim_traffic_tuple rebuilds from the flow
	 * id exactly. */
	struct sim_traffic_cfg cfg;
	struct sim_traffic full, lazy;
	struct sim_pkt a, b, t;
	uint32_t nq = 4, n = 0, bad = 0;

	sim_traffic_cfg_default(&cfg);
	cfg.main.arrival = SIM_ARRIVAL_POISSON;
	cfg.main.rate_bps = 60000000000ull;
	steer(&cfg, &nq);
	cfg.target_queue = 1;
	cfg.target_share = 0.1;
	cfg.keys = 1000;
	cfg.max_pkts = 20000;
	CHECK_EQ(sim_traffic_init(&full, &cfg, NULL), 0);
	cfg.lazy_tuple = 1;
	CHECK_EQ(sim_traffic_init(&lazy, &cfg, NULL), 0);
	while (sim_traffic_next(&full, &a)) {
		CHECK_EQ(sim_traffic_next(&lazy, &b), 1);
		n++;
		bad += a.t_ps != b.t_ps || a.len != b.len || a.cls != b.cls || a.nic != b.nic ||
		       a.flow != b.flow || a.key != b.key || a.proto != b.proto || a.l3 != b.l3;
		bad += (b.sip | b.dip | b.sport | b.dport) != 0;
		t = b;
		sim_traffic_tuple(&lazy, b.flow, &t);
		bad += t.sip != a.sip || t.dip != a.dip || t.sport != a.sport || t.dport != a.dport;
	}
	CHECK_EQ(n, 20000);
	CHECK_EQ(bad, 0);
	sim_traffic_free(&full);
	sim_traffic_free(&lazy);
}

/* Generator ranges (the study's T-Rex profile): source and destination
 * stepped together per packet, flows = lcm of the ranges, every flow
 * recurring once a cycle with the same tuple, lazy tuples rebuilt alike. */
static void test_generator_ranges(void)
{
	struct sim_traffic_cfg cfg;
	struct sim_traffic g, lazy;
	struct sim_pkt p, q, first;
	uint32_t cycle;

	sim_traffic_cfg_default(&cfg);
	cfg.gen_src = 6; /* lcm(6, 4) = 12 flows */
	cfg.gen_dst = 4;
	CHECK_EQ(sim_traffic_init(&g, &cfg, NULL), 0);
	CHECK_EQ(sim_traffic_flows(&g), 12);
	cfg.lazy_tuple = 1;
	CHECK_EQ(sim_traffic_init(&lazy, &cfg, NULL), 0);
	CHECK(sim_traffic_next(&g, &first));
	CHECK(sim_traffic_next(&lazy, &q));
	for (cycle = 1; cycle <= 24; cycle++) {
		CHECK(sim_traffic_next(&g, &p));
		CHECK(sim_traffic_next(&lazy, &q));
		/* one step of each range per packet, in lock step */
		CHECK_EQ((p.sip - RXB_FLOW_GEN_SRC_BASE) % 6,
			 (first.sip - RXB_FLOW_GEN_SRC_BASE + cycle) % 6);
		CHECK_EQ((p.dip - RXB_FLOW_GEN_DST_BASE) % 4,
			 (first.dip - RXB_FLOW_GEN_DST_BASE + cycle) % 4);
		CHECK_EQ(p.sport, RXB_FLOW_GEN_PORT);
		CHECK_EQ(p.dport, RXB_FLOW_GEN_PORT);
		CHECK_EQ(p.flow, (first.flow + cycle) % 12);
		sim_traffic_tuple(&lazy, q.flow, &q);
		CHECK_EQ(q.sip, p.sip);
		CHECK_EQ(q.dip, p.dip);
		if (cycle % 12 == 0) /* the cycle: the same flow, the same tuple */
			CHECK(p.sip == first.sip && p.dip == first.dip && p.flow == first.flow);
	}
	sim_traffic_free(&g);
	sim_traffic_free(&lazy);
	/* the study's ranges: 4 128 254 sources (= 2 mod 4) and 4 destinations */
	cfg.gen_src = 4128254;
	CHECK_EQ(sim_traffic_init(&g, &cfg, NULL), 0);
	CHECK_EQ(sim_traffic_flows(&g), 8256508);
	sim_traffic_free(&g);
}

static void test_config_errors(void)
{
	struct sim_traffic_cfg cfg;
	struct sim_traffic g;
	struct rxb_err err;
	uint32_t nq = 8;

	sim_traffic_cfg_default(&cfg);
	cfg.main.rate_bps = 200000000000ull;
	CHECK_EQ(sim_traffic_init(&g, &cfg, &err), -EINVAL);
	CHECK(strstr(err.msg, "traffic.main.rate_bps") != NULL);

	sim_traffic_cfg_default(&cfg);
	cfg.main.arrival = SIM_ARRIVAL_ONOFF;
	cfg.main.duty = 0.5; /* 100 Gb/s at duty 0.5 would burst at 200 */
	CHECK_EQ(sim_traffic_init(&g, &cfg, &err), -EINVAL);
	CHECK(strstr(err.msg, "traffic.main.duty") != NULL);

	sim_traffic_cfg_default(&cfg);
	sim_size_fixed(&cfg.main.size, 40);
	CHECK_EQ(sim_traffic_init(&g, &cfg, &err), -EINVAL);
	CHECK(strstr(err.msg, "traffic.main.size.len[0]") != NULL);

	sim_traffic_cfg_default(&cfg);
	cfg.target_queue = 2; /* no queue_of */
	cfg.target_share = 0.1;
	CHECK_EQ(sim_traffic_init(&g, &cfg, &err), -EINVAL);
	CHECK(strstr(err.msg, "traffic.target_queue") != NULL);

	sim_traffic_cfg_default(&cfg);
	cfg.nqueues = nq;
	cfg.queue_of = rss_skip3;
	cfg.queue_ctx = &nq;
	cfg.target_queue = 3; /* the RETA never points there */
	cfg.target_share = 0.1;
	CHECK_EQ(sim_traffic_init(&g, &cfg, &err), -EINVAL);
	CHECK(strstr(err.msg, "traffic.target_queue = 3") != NULL);
	printf("  %s\n", err.msg);

	cfg.gen_src = 4128254; /* generator ranges cannot serve a target */
	cfg.gen_dst = 4;
	cfg.target_queue = 1;
	CHECK_EQ(sim_traffic_init(&g, &cfg, &err), -EINVAL);
	CHECK(strstr(err.msg, "traffic.flow_model = generator") != NULL);
	printf("  %s\n", err.msg);
}

int main(void)
{
	RUN(test_constant_rate);
	RUN(test_poisson);
	RUN(test_poisson_target_sizes);
	RUN(test_onoff);
	RUN(test_target_share);
	RUN(test_target_rate);
	RUN(test_popularity);
	RUN(test_key_steer);
	RUN(test_determinism);
	RUN(test_lazy_tuple);
	RUN(test_generator_ranges);
	RUN(test_config_errors);
	return check_summary();
}
