/* SPDX-License-Identifier: BSD-3-Clause
 * The emulator offers the flows the simulator offers for the same scenario:
 * the study's generator profile when the scenario asks for it (flow_model
 * generator, or auto for lb and nat under a plain arrival process), drawn
 * flows otherwise. Whole emulator runs; every output packet's 5-tuple is
 * checked against util/flow.h's. */
#define _GNU_SOURCE
#include "check.h"
#include "emu_test.h"
#include "emu_run_test.h"

#define GEN_SRC   6u
#define GEN_DST   4u
#define GEN_FLOWS 12u /* lcm(GEN_SRC, GEN_DST) */

/* What came out: packets whose tuple is flow id < n of m, and which ids. */
struct flow_out {
	struct emu_rt_out_stats st; /* first: the out_done callback's argument */
	struct rxb_flows m;
	uint32_t n;
	bool src_only; /* the NF rewrites the destination (lb) */
	uint64_t matched, seen[(GEN_FLOWS + 63) / 64];
};

static bool tuple_is(const struct emu_tuple *t, const struct rxb_flow *f, bool src_only)
{
	if (t->src_ip != f->src_ip || t->src_port != f->src_port)
		return false;
	return src_only || (t->dst_ip == f->dst_ip && t->dst_port == f->dst_port);
}

static void check_flow(struct rte_mbuf *mb, struct emu_rt_out_stats *s)
{
	struct flow_out *o = (struct flow_out *)s;
	struct emu_tuple t = emu_tuple_of(mb);
	struct rxb_flow f;

	for (uint32_t id = 0; id < o->n; id++) {
		rxb_flow_tuple(&o->m, id, &f);
		if (tuple_is(&t, &f, o->src_only)) {
			o->matched++;
			if (id < GEN_FLOWS)
				o->seen[id / 64] |= 1ull << (id % 64);
			return;
		}
	}
}

static struct flow_out out;

static void run(struct rxb_emu_cfg *c, const char *what)
{
	struct rxb_emu_result r;

	memset(&out.st, 0, sizeof(out.st));
	out.matched = 0;
	memset(out.seen, 0, sizeof(out.seen));
	out.st.check = check_flow;
	c->out_done = emu_rt_out_done;
	c->out_arg = &out.st;
	if (emu_rt_run(c, &r, what) != 0) {
		CHECK(0);
		return;
	}
	EMU_RT_CHECK_CONSERVED(&r, 0, what);
	CHECK_EQ(out.st.bad_csum, 0);
	CHECK_EQ(r.nf_drops, 0);
	CHECK(out.st.packets > 0);
	if (out.matched != out.st.packets)
		fprintf(stderr, "%s: %llu of %llu packets carry the expected flows\n", what,
			(unsigned long long)out.matched, (unsigned long long)out.st.packets);
	CHECK_EQ(out.matched, out.st.packets);
}

/* A 600-packet run of nf under flow model fm with ranges GEN_SRC x
 * GEN_DST; `ranges`: the output must carry the ranges' flows, else the
 * seed's drawn ones. */
static void run_model(enum rxb_nf_kind nf, enum rxb_flow_model fm, bool ranges, const char *what)
{
	struct rxb_emu_cfg c;

	emu_rt_cfg(&c, RXB_ARCH_RXBISECT, 600);
	c.scn.workload.nf = nf;
	c.scn.traffic.flow_model = fm;
	c.scn.traffic.gen_src_addrs = GEN_SRC;
	c.scn.traffic.gen_dst_addrs = GEN_DST;
	rxb_flows_init(&out.m, c.scn.run.seed, 0, IPPROTO_UDP);
	out.n = c.scn.traffic.flows;
	if (ranges) {
		CHECK_EQ(rxb_flows_ranges(&out.m, GEN_SRC, GEN_DST, NULL), 0);
		out.n = GEN_FLOWS;
	}
	out.src_only = nf == RXB_NF_KIND_LB; /* lb rewrites the destination */
	run(&c, what);
}

/* flow_model generator: the 12 flows of the ranges, every one of them. */
static void test_generator_profile(void)
{
	run_model(RXB_NF_KIND_COUNTER, RXB_FLOW_MODEL_GENERATOR, true, "generator, counter");
	for (uint32_t id = 0; id < GEN_FLOWS; id++)
		CHECK(out.seen[id / 64] >> (id % 64) & 1);
}

/* flow_model auto for lb: the generator profile. */
static void test_auto_lb(void)
{
	run_model(RXB_NF_KIND_LB, RXB_FLOW_MODEL_AUTO, true, "auto, lb");
}

/* flow_model auto for counter: drawn flows, the traffic.flows of the seed. */
static void test_auto_counter(void)
{
	run_model(RXB_NF_KIND_COUNTER, RXB_FLOW_MODEL_AUTO, false, "auto, counter");
}

/* Under the ranges every packet opens a new flow until they wrap, so each
 * worker's LB or NAT must keep every flow the generator steers to it, up to
 * FastClick's per-thread table of next_pow2(workload.flow_capacity / the
 * port's cores) entries; a new flow beyond that is dropped ("full") on
 * each of its packets. 8002 flows over 2 workers (about 4001 each), every
 * flow offered `passes` times (fewer than once: the first packets), slowly
 * enough that a worker inserting a flow per packet keeps up on a CPU it
 * shares with the other tests' lcores: the counts below assume no ring
 * drop (wraps() runs again a run that had some). */
#define WRAP_FLOWS    8002u
#define WRAP_ATTEMPTS 3

static void wraps(enum rxb_nf_kind nf, uint32_t flow_capacity, uint32_t nat_flows, bool learn,
		  double passes, struct rxb_emu_result *r)
{
	const uint64_t packets = (uint64_t)(passes * WRAP_FLOWS);
	struct rxb_emu_cfg c;

	emu_rt_cfg(&c, RXB_ARCH_PRIVRING, packets);
	c.scn.traffic.rate_gbps = 0.1;
	c.scn.workload.nf = nf;
	c.scn.traffic.gen_src_addrs = WRAP_FLOWS / 2;
	c.scn.traffic.gen_dst_addrs = 2;
	c.scn.workload.flow_capacity = flow_capacity;
	if (nat_flows != 0) /* else the default */
		c.scn.workload.nat_flows = nat_flows;
	c.scn.emu.learn_flows = learn;
	c.out = RXB_EMU_OUT_NULL;
	/* A ring drop (an lcore kept off its CPU long enough, when other
	 * tests' lcores share the CPUs) loses packets before their NF, and
	 * the counts above no longer hold: such a run checks nothing, so it is
	 * run again, a few times at most. */
	for (int attempt = 0; attempt < WRAP_ATTEMPTS; attempt++) {
		if (emu_rt_run(&c, r, "ranges wrapping") != 0) {
			CHECK(0);
			memset(r, 0, sizeof(*r));
			r->nf_drops = UINT64_MAX;
			return;
		}
		EMU_RT_CHECK_CONSERVED(r, packets, "ranges wrapping");
		if (emu_rt_drops(r) == 0)
			return;
		printf("    %llu ring drops: the CPUs were too busy for this run to count\n",
		       (unsigned long long)emu_rt_drops(r));
	}
	CHECK_EQ(emu_rt_drops(r), 0);
}

/* Summed over the workers: flows learned before the clock, inserted in it. */
static void nf_flows(const struct rxb_emu_result *r, uint64_t *learned, uint64_t *inserted)
{
	*learned = *inserted = 0;
	for (uint32_t w = 0; w < r->n_workers; w++) {
		*learned += r->worker[w].flows_learned;
		*inserted += r->worker[w].nf_inserts;
	}
}

/* The tables keep what they must, learnt (emu.learn_flows) or not. Learnt:
 * the workers know every flow the run can bring before the clock starts,
 * so the run inserts none; not: each flow is inserted by its first
 * packet. */
static void test_lb_keeps_steered_flows(void)
{
	struct rxb_emu_result r;
	uint64_t learned, inserted;

	for (int learn = 0; learn <= 1; learn++) {
		/* the default capacity (10 M): a table per worker far above
		 * its flows */
		wraps(RXB_NF_KIND_LB, 10000000, 0, learn, 3, &r);
		CHECK_EQ(r.nf_drops, 0);
		nf_flows(&r, &learned, &inserted);
		CHECK_EQ(learned, learn ? WRAP_FLOWS : 0);
		CHECK_EQ(inserted, learn ? 0 : WRAP_FLOWS);
		/* 4096: tables of 2048, so about 4001 - 2048 of each worker's
		 * flows are dropped on every pass (each worker is steered more
		 * than 2048) */
		wraps(RXB_NF_KIND_LB, 4096, 0, learn, 3, &r);
		CHECK_EQ(r.nf_drops, 3 * (WRAP_FLOWS - 2 * 2048));
	}
}

/* The NAT keeps its flows in the same table (FastClick's flow manager in
 * the study), not in a fixed one: 4096 gives each worker 2048 flows, of
 * the about 4001 steered to it, as the LB above; workload.nat_flows
 * (10 M by default) only bounds it. One pass: every flow once. */
static void test_nat_keeps_steered_flows(void)
{
	struct rxb_emu_result r;
	uint64_t learned, inserted;

	wraps(RXB_NF_KIND_NAT, 10000000, 0, true, 1, &r);
	CHECK_EQ(r.nf_drops, 0);
	nf_flows(&r, &learned, &inserted);
	CHECK_EQ(learned, WRAP_FLOWS);
	CHECK_EQ(inserted, 0);
	wraps(RXB_NF_KIND_NAT, 4096, 0, true, 1, &r);
	CHECK_EQ(r.nf_drops, WRAP_FLOWS - 2 * 2048);
	/* workload.nat_flows below the table: 1024 flows a worker */
	wraps(RXB_NF_KIND_NAT, 10000000, 1024, true, 1, &r);
	CHECK_EQ(r.nf_drops, WRAP_FLOWS - 2 * 1024);
}

/* A run shorter than one pass learns only the flows it meets, in the
 * generator's order (the pattern starts mid-cycle, at a flow the seed
 * picks): none is left to insert. */
static void test_lb_learns_the_flows_it_meets(void)
{
	struct rxb_emu_result r;
	uint64_t learned, inserted;

	wraps(RXB_NF_KIND_LB, 10000000, 0, true, 0.5, &r);
	nf_flows(&r, &learned, &inserted);
	CHECK_EQ(learned, WRAP_FLOWS / 2);
	CHECK_EQ(inserted, 0);
	/* a flow learnt out of turn leaves one the run meets to a full table */
	CHECK_EQ(r.nf_drops, 0);
}

int main(void)
{
	emu_rt_init("emu_flow_model");
	RUN(test_generator_profile);
	RUN(test_auto_lb);
	RUN(test_auto_counter);
	RUN(test_lb_keeps_steered_flows);
	RUN(test_nat_keeps_steered_flows);
	RUN(test_lb_learns_the_flows_it_meets);
	emu_rt_fini();
	return check_summary();
}
