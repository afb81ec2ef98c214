/* SPDX-License-Identifier: BSD-3-Clause
 * The simulator's flows are util/flow.h's: for a run seed and a port, the
 * traffic model's packets (eager and lazy tuples, drawn flows and the
 * generator profile) and the trace generator's carry exactly the tuple
 * rxb_flow_tuple gives their flow id, so the emulator, which takes its
 * tuples from the same function, offers the same flows for the same seed. */
#include "check.h"
#include "flow.h"
#include "tracegen.h"
#include "traffic.h"

static unsigned mismatches(const struct rxb_flows *m, const struct sim_pkt *p)
{
	struct rxb_flow f;

	rxb_flow_tuple(m, p->flow, &f);
	return p->sip != f.src_ip || p->dip != f.dst_ip || p->sport != f.src_port ||
	       p->dport != f.dst_port || p->l3 != 4;
}

/* Packets of port `nic` of run `seed` (gen_src > 0: generator ranges). */
static void check_traffic(uint64_t seed, uint32_t nic, uint32_t gen_src, uint32_t gen_dst)
{
	struct sim_traffic_cfg cfg;
	struct sim_traffic g, lazy;
	struct rxb_flows m;
	struct sim_pkt p, q;
	unsigned bad = 0;

	sim_traffic_cfg_default(&cfg);
	cfg.flow_seed = seed;
	cfg.seed = seed * 31 + 7; /* arrivals' stream: not what tuples derive from */
	cfg.nic = nic;
	cfg.max_pkts = 5000;
	cfg.gen_src = gen_src;
	cfg.gen_dst = gen_dst;
	rxb_flows_init(&m, seed, nic, 17);
	if (gen_src)
		CHECK_EQ(rxb_flows_ranges(&m, gen_src, gen_dst, NULL), 0);
	CHECK_EQ(sim_traffic_init(&g, &cfg, NULL), 0);
	cfg.lazy_tuple = 1;
	CHECK_EQ(sim_traffic_init(&lazy, &cfg, NULL), 0);
	for (uint64_t i = 0; sim_traffic_next(&g, &p); i++) {
		CHECK_EQ(sim_traffic_next(&lazy, &q), 1);
		bad += mismatches(&m, &p);
		sim_traffic_tuple(&lazy, q.flow, &q);
		bad += mismatches(&m, &q);
		if (gen_src)
			bad += p.flow != rxb_flows_gen_id(&m, i);
	}
	CHECK_EQ(bad, 0);
	sim_traffic_free(&g);
	sim_traffic_free(&lazy);
}

static void test_traffic_drawn(void)
{
	check_traffic(1, 0, 0, 0);
	check_traffic(12345, 1, 0, 0);
}

static void test_traffic_generator(void)
{
	check_traffic(3, 0, 4128254, 4); /* the study's ranges */
	check_traffic(3, 1, 6, 4);
}

static void test_tracegen(void)
{
	struct sim_tracegen_cfg cfg;
	struct sim_tracegen g;
	struct rxb_flows m;
	struct sim_pkt p;
	unsigned bad = 0, n = 0;

	sim_tracegen_cfg_default(&cfg);
	cfg.seed = 77;
	cfg.duration_ps = 2000000000ull; /* 2 ms */
	CHECK_EQ(sim_tracegen_init(&g, &cfg, NULL), 0);
	rxb_flows_init(&m, 77, 0, 17);
	while (sim_tracegen_next(&g, &p) == 1) {
		bad += mismatches(&m, &p);
		n++;
	}
	CHECK(n > 100);
	CHECK_EQ(bad, 0);
	sim_tracegen_free(&g);
}

int main(void)
{
	RUN(test_traffic_drawn);
	RUN(test_traffic_generator);
	RUN(test_tracegen);
	return check_summary();
}
