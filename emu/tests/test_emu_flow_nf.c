/* SPDX-License-Identifier: BSD-3-Clause
 * The flow-table NFs: NAT (mapping consistent both ways, capacity) and LB
 * (sticky per flow, round-robin across new flows). */
#include <errno.h>

#include <rte_malloc.h>

#include "check.h"
#include "emu_test.h"

static struct rte_mempool *mp;

#define PUB_FIRST RXB_IPV4(100, 64, 0, 0)

static int tuple_find(const struct emu_tuple *tab, unsigned n, const struct emu_tuple *t)
{
	for (unsigned i = 0; i < n; i++)
		if (emu_tuple_eq(&tab[i], t))
			return (int)i;
	return -1;
}

/* The reply a remote host would send to what left the NAT. */
static struct emu_tuple reply_of(const struct emu_tuple *t)
{
	struct emu_tuple r = { t->dst_ip, t->src_ip, t->dst_port, t->src_port };

	return r;
}

/* Outbound then inbound returns the original tuple, with valid checksums,
 * for UDP and TCP, incremental and full checksum updates. */
static void test_nat_both_ways(void)
{
	enum { N = 512, FLOWS = 64 };

	for (int mode = 0; mode < 4; mode++) {
		struct rxb_gen_cfg g;
		struct rxb_nf_cfg cfg;
		struct rte_mbuf *pkts[N], *orig[N];
		struct emu_tuple in[N], out[N], flows[N], pub[N];
		struct rxb_gen_pkt_info info[N];
		unsigned n_flows = 0;
		struct rxb_nf *nat;
		uint16_t kept;

		rxb_gen_cfg_defaults(&g);
		g.n_flows = FLOWS;
		g.proto = mode & 1 ? IPPROTO_TCP : IPPROTO_UDP;
		g.frame_size = 128;
		g.seed = 100 + mode;
		rxb_nf_cfg_defaults(&cfg);
		cfg.l4_csum = mode & 2 ? RXB_NF_CSUM_FULL : RXB_NF_CSUM_INCREMENTAL;
		nat = emu_nf("nat", &cfg);
		if (nat == NULL || emu_gen(mp, &g, pkts, N, info) != 0) {
			CHECK(0);
			rxb_nf_destroy(nat);
			continue;
		}
		for (unsigned i = 0; i < N; i++)
			in[i] = emu_tuple_of(pkts[i]);
		memcpy(orig, pkts, sizeof(pkts));
		kept = rxb_nf_process(nat, pkts, N);
		CHECK_EQ(kept, N);
		for (unsigned i = 0; i < N; i++) {
			int f;

			CHECK(pkts[i] == orig[i]);
			CHECK(emu_pkt_ok(pkts[i]));
			out[i] = emu_tuple_of(pkts[i]);
			/* Source translated into this instance's public
			 * slice, destination untouched. */
			CHECK(out[i].src_ip - PUB_FIRST < 256);
			CHECK(out[i].src_port >= 1024);
			CHECK_EQ(out[i].dst_ip, in[i].dst_ip);
			CHECK_EQ(out[i].dst_port, in[i].dst_port);
			/* One public pair per flow, distinct across flows. */
			f = tuple_find(flows, n_flows, &in[i]);
			if (f < 0) {
				struct emu_tuple p = { out[i].src_ip, 0, out[i].src_port, 0 };

				for (unsigned j = 0; j < n_flows; j++)
					CHECK(!(pub[j].src_ip == p.src_ip &&
						pub[j].src_port == p.src_port));
				flows[n_flows] = in[i];
				pub[n_flows++] = p;
			} else {
				CHECK_EQ(out[i].src_ip, pub[f].src_ip);
				CHECK_EQ(out[i].src_port, pub[f].src_port);
			}
		}
		CHECK(n_flows > FLOWS / 2);
		CHECK_EQ(emu_stat(&nat->stats.inserts), n_flows);
		CHECK_EQ(emu_stat(&nat->stats.misses), n_flows);
		/* Replies come back to the original sender. */
		for (unsigned i = 0; i < N; i++) {
			struct emu_tuple r = reply_of(&out[i]);

			emu_set_tuple(pkts[i], &r);
		}
		kept = rxb_nf_process(nat, pkts, N);
		CHECK_EQ(kept, N);
		for (unsigned i = 0; i < N; i++) {
			struct emu_tuple back = emu_tuple_of(pkts[i]);
			struct emu_tuple want = reply_of(&in[i]);

			CHECK(emu_tuple_eq(&back, &want));
			CHECK(emu_pkt_ok(pkts[i]));
		}
		CHECK_EQ(emu_stat(&nat->stats.inserts), n_flows); /* replies add nothing */
		CHECK_EQ(emu_stat(&nat->stats.drops), 0);
		rte_pktmbuf_free_bulk(pkts, N);
		rxb_nf_destroy(nat);
	}
}

/* A new flow and its reply in one burst: the reply finds the mapping the
 * first packet made after the bulk lookup. Unknown inbound is dropped. */
static void test_nat_same_burst(void)
{
	struct rxb_gen_cfg g;
	struct rxb_nf_cfg cfg;
	struct rte_mbuf *pkts[3];
	struct emu_tuple in, r;
	struct rxb_nf *nat;

	rxb_gen_cfg_defaults(&g);
	g.n_flows = 1;
	g.frame_size = 100;
	rxb_nf_cfg_defaults(&cfg);
	nat = emu_nf("nat", &cfg);
	if (nat == NULL || emu_gen(mp, &g, pkts, 3, NULL) != 0) {
		CHECK(0);
		rxb_nf_destroy(nat);
		return;
	}
	in = emu_tuple_of(pkts[0]);
	/* The first flow gets the first public pair: 100.64.0.0:1024. */
	r = (struct emu_tuple){ in.dst_ip, PUB_FIRST, in.dst_port, 1024 };
	emu_set_tuple(pkts[1], &r);
	r.dst_port = 1025; /* nobody's */
	emu_set_tuple(pkts[2], &r);
	CHECK_EQ(rxb_nf_process(nat, pkts, 3), 2);
	r = emu_tuple_of(pkts[1]);
	CHECK_EQ(r.dst_ip, in.src_ip);
	CHECK_EQ(r.dst_port, in.src_port);
	CHECK_EQ(emu_stat(&nat->stats.drop[RXB_NF_DROP_NO_FLOW]), 1);
	rte_pktmbuf_free_bulk(pkts, 3);
	rxb_nf_destroy(nat);
}

/* Run 256 packets of 100 flows through nf; NULL if it cannot be set up. */
static struct rxb_nf *run_flows(const char *name, const struct rxb_nf_cfg *cfg,
				struct rte_mbuf **pkts, unsigned n, uint16_t *kept)
{
	struct rxb_gen_cfg g;
	struct rxb_nf *nf = emu_nf(name, cfg);

	rxb_gen_cfg_defaults(&g);
	g.n_flows = 100;
	g.frame_size = 64;
	if (nf == NULL || emu_gen(mp, &g, pkts, n, NULL) != 0) {
		rxb_nf_destroy(nf);
		return NULL;
	}
	*kept = rxb_nf_process(nf, pkts, n);
	return nf;
}

/* Capacity is a hard limit: new flows beyond it are dropped, known flows
 * still pass; a configured public range and port range are honoured. */
static void test_nat_capacity(void)
{
	enum { N = 256 };
	struct rxb_nf_cfg cfg;
	struct rte_mbuf *pkts[N];
	struct rxb_nf *nat;
	uint16_t kept;

	rxb_nf_cfg_defaults(&cfg);
	cfg.nat.capacity = 8;
	cfg.nat.public_ip = RXB_IPV4(203, 0, 113, 10);
	cfg.nat.port_min = 5000;
	cfg.nat.port_max = 5003; /* 4 ports: 2 addresses */
	nat = run_flows("nat", &cfg, pkts, N, &kept);
	if (nat == NULL) {
		CHECK(0);
		return;
	}
	CHECK_EQ(emu_stat(&nat->stats.inserts), 8);
	CHECK(kept >= 8 && kept < N);
	CHECK_EQ(emu_stat(&nat->stats.drop[RXB_NF_DROP_FULL]), N - kept);
	for (unsigned i = 0; i < kept; i++) {
		struct emu_tuple t = emu_tuple_of(pkts[i]);

		CHECK(t.src_ip == RXB_IPV4(203, 0, 113, 10) ||
		      t.src_ip == RXB_IPV4(203, 0, 113, 11));
		CHECK(t.src_port >= 5000 && t.src_port <= 5003);
		CHECK(emu_pkt_ok(pkts[i]));
	}
	rte_pktmbuf_free_bulk(pkts, N);
	rxb_nf_destroy(nat);
}

static void test_lb(void)
{
	enum { N = 1024, FLOWS = 300 };
	struct rxb_gen_cfg g;
	struct rxb_nf_cfg cfg;
	struct rte_mbuf *pkts[N], *orig[N];
	struct rxb_gen_pkt_info info[N];
	struct emu_tuple in[N];
	int backend_of[FLOWS];
	unsigned new_flows = 0;
	uint64_t packets = 0, bytes = 0, frame_bytes = 0;
	struct rxb_nf_lb_load *loads = rte_zmalloc("test_lb_loads", 32 * sizeof(*loads), 64);
	struct rxb_nf *lb;

	rxb_gen_cfg_defaults(&g);
	g.n_flows = FLOWS;
	g.frame_size = 200;
	g.proto = IPPROTO_TCP;
	rxb_nf_cfg_defaults(&cfg);
	cfg.lb.first_backend = 5; /* FastClick: thread i of T starts at i x (32 / T) */
	cfg.lb.load = loads;
	lb = emu_nf("lb", &cfg);
	if (loads == NULL || lb == NULL || emu_gen(mp, &g, pkts, N, info) != 0) {
		CHECK(0);
		rxb_nf_destroy(lb);
		rte_free(loads);
		return;
	}
	for (unsigned f = 0; f < FLOWS; f++)
		backend_of[f] = -1;
	memcpy(orig, pkts, sizeof(pkts));
	for (unsigned i = 0; i < N; i++)
		in[i] = emu_tuple_of(pkts[i]);
	/* Two passes over the same packets (destinations restored): the
	 * second must find every flow where the first put it. */
	for (int pass = 0; pass < 2; pass++) {
		for (unsigned i = 0; pass > 0 && i < N; i++)
			emu_set_tuple(pkts[i], &in[i]);
		for (unsigned base = 0; base < N; base += 32) {
			CHECK_EQ(rxb_nf_process(lb, pkts + base, 32), 32);
			for (unsigned i = base; i < base + 32; i++) {
				struct rxb_pkt_view v = emu_view(pkts[i]);
				uint32_t dst = rte_be_to_cpu_32(v.ip->dst_addr);
				int b = (int)(dst - RXB_IPV4(10, 10, 0, 1));
				unsigned f = info[i].flow;

				CHECK(pkts[i] == orig[i]);
				CHECK(b >= 0 && b < 32);
				frame_bytes += rte_pktmbuf_pkt_len(pkts[i]);
				CHECK_EQ(v.eth->dst_addr.addr_bytes[5], b);
				CHECK(emu_pkt_ok(pkts[i]));
				CHECK_EQ(rte_be_to_cpu_32(v.ip->src_addr), in[i].src_ip);
				if (backend_of[f] < 0) {
					/* A new flow: the next backend in turn. */
					CHECK_EQ(pass, 0);
					CHECK_EQ(b, (5 + new_flows) % 32);
					backend_of[f] = b;
					new_flows++;
				} else {
					CHECK_EQ(b, backend_of[f]); /* sticky */
				}
			}
		}
	}
	CHECK(new_flows > 32);
	CHECK_EQ(emu_stat(&lb->stats.inserts), new_flows);
	CHECK_EQ(emu_stat(&lb->stats.misses), new_flows);
	/* One bulk lookup per packet, plus a second look for a packet whose
	 * flow an earlier packet of the same chunk created. */
	CHECK(emu_stat(&lb->stats.lookups) >= 2 * N);
	CHECK(emu_stat(&lb->stats.lookups) <= 3 * N);
	CHECK_EQ(emu_stat(&lb->stats.drops), 0);
	/* track_load: every packet added itself to its backend's load */
	for (unsigned b = 0; b < 32; b++) {
		packets += atomic_load_explicit(&loads[b].packets, memory_order_relaxed);
		bytes += atomic_load_explicit(&loads[b].bytes, memory_order_relaxed);
	}
	CHECK_EQ(packets, 2 * N);
	CHECK_EQ(bytes, frame_bytes);
	rte_pktmbuf_free_bulk(pkts, N);
	rxb_nf_destroy(lb);
	rte_free(loads);
}

static void test_lb_capacity(void)
{
	enum { N = 128 };
	struct rxb_nf_cfg cfg;
	struct rte_mbuf *pkts[N];
	struct rxb_nf *lb;
	uint16_t kept;

	rxb_nf_cfg_defaults(&cfg);
	cfg.lb.capacity = 10;
	cfg.lb.n_backends = 3;
	lb = run_flows("lb", &cfg, pkts, N, &kept);
	if (lb == NULL) {
		CHECK(0);
		return;
	}
	CHECK_EQ(emu_stat(&lb->stats.inserts), 10);
	CHECK(kept >= 10 && kept < N);
	CHECK_EQ(emu_stat(&lb->stats.drop[RXB_NF_DROP_FULL]), N - kept);
	for (unsigned i = 0; i < kept; i++)
		CHECK(emu_tuple_of(pkts[i]).dst_ip - RXB_IPV4(10, 10, 0, 1) < 3);
	rte_pktmbuf_free_bulk(pkts, N);
	rxb_nf_destroy(lb);
}

int main(void)
{
	mp = emu_test_init("rxb_test_emu_flow_nf");
	RUN(test_nat_both_ways);
	RUN(test_nat_same_burst);
	RUN(test_nat_capacity);
	RUN(test_lb);
	RUN(test_lb_capacity);
	CHECK_EQ(rte_mempool_in_use_count(mp), 0);
	emu_test_fini();
	return check_summary();
}
