/* SPDX-License-Identifier: BSD-3-Clause
 * The traffic generator: valid packets, determinism, the distributions it
 * promises (sizes, target share, Zipf), bursts, KV requests, stamps, the
 * pacer (on a fake clock), configuration errors; the flows are the
 * simulator's (util/flow.h, whose tuples sim/tests/test_flow.c checks on the
 * simulator's side), as written on the wire, drawn or generator ranges. */
#include <errno.h>
#include <math.h>

#include "check.h"
#include "emu_test.h"
#include "flow.h"
#include "mbuf_rx.h"
#include "rng.h"
#include "rxb/rss.h"

static struct rte_mempool *mp;

static struct rxb_gen *gen_new(const struct rxb_gen_cfg *cfg)
{
	struct rxb_err err = { 0 };
	struct rxb_gen *g = NULL;

	if (rxb_gen_create(cfg, &g, &err) != 0)
		fprintf(stderr, "gen_new: %s\n", err.msg);
	return g;
}

static void test_valid_packets(void)
{
	static const struct rxb_gen_size mix[] = { { 64, 7 }, { 594, 4 }, { 1514, 1 } };
	enum { N = 3000 };
	struct rxb_gen_cfg c;
	struct rte_mbuf *pkts[64];

	for (int proto = 0; proto < 2; proto++) {
		struct rxb_gen *g;
		unsigned count[3] = { 0 };

		rxb_gen_cfg_defaults(&c);
		c.proto = proto ? IPPROTO_TCP : IPPROTO_UDP;
		c.sizes = mix;
		c.n_sizes = 3;
		g = gen_new(&c);
		CHECK(g != NULL);
		if (g == NULL)
			continue;
		CHECK_EQ(rxb_gen_max_frame(g), 1514);
		for (unsigned b = 0; b < N / 60; b++) {
			struct rxb_gen_pkt_info info[60];

			if (rte_pktmbuf_alloc_bulk(mp, pkts, 60) != 0)
				break;
			CHECK_EQ(rxb_gen_fill(g, pkts, 60, 99, info), 60);
			for (unsigned i = 0; i < 60; i++) {
				struct rxb_pkt_view v = emu_view(pkts[i]);
				const struct rxb_gen_flow *f = rxb_gen_flow(g, info[i].flow);

				CHECK(emu_pkt_ok(pkts[i]));
				CHECK_EQ(pkts[i]->pkt_len, info[i].len);
				CHECK_EQ(v.proto, c.proto);
				CHECK_EQ(rte_be_to_cpu_32(v.ip->src_addr), f->src_ip);
				CHECK_EQ(rte_be_to_cpu_32(v.ip->dst_addr), f->dst_ip);
				CHECK_EQ(rte_be_to_cpu_32(v.ip->dst_addr) >> 16, (198u << 8) | 19);
				CHECK_EQ(rte_be_to_cpu_32(v.ip->src_addr) >> 24, 10);
				CHECK_EQ(rxb_stamp_read(&v), 99);
				count[info[i].len == 64 ? 0 : info[i].len == 594 ? 1 : 2]++;
				CHECK(info[i].len == 64 || info[i].len == 594 ||
				      info[i].len == 1514);
			}
			rte_pktmbuf_free_bulk(pkts, 60);
		}
		/* 7:4:1 within a few standard deviations. */
		CHECK(fabs(count[0] / (double)N - 7 / 12.0) < 0.04);
		CHECK(fabs(count[1] / (double)N - 4 / 12.0) < 0.04);
		CHECK(fabs(count[2] / (double)N - 1 / 12.0) < 0.03);
		CHECK_EQ(emu_stat(&rxb_gen_stats(g)->packets), N);
		rxb_gen_destroy(g);
	}
}

static void test_deterministic(void)
{
	struct rxb_gen_cfg c;
	struct rte_mbuf *a[32], *b[32];

	rxb_gen_cfg_defaults(&c);
	c.frame_size = 300;
	c.seed = 42;
	if (emu_gen(mp, &c, a, 32, NULL) != 0 || emu_gen(mp, &c, b, 32, NULL) != 0) {
		CHECK(0);
		return;
	}
	for (unsigned i = 0; i < 32; i++)
		CHECK(memcmp(rte_pktmbuf_mtod(a[i], void *), rte_pktmbuf_mtod(b[i], void *), 300) ==
		      0);
	rte_pktmbuf_free_bulk(b, 32);
	c.seed = 43;
	if (emu_gen(mp, &c, b, 32, NULL) == 0) {
		unsigned differ = 0;

		for (unsigned i = 0; i < 32; i++)
			differ += memcmp(rte_pktmbuf_mtod(a[i], void *),
					 rte_pktmbuf_mtod(b[i], void *), 300) != 0;
		CHECK_EQ(differ, 32);
		rte_pktmbuf_free_bulk(b, 32);
	}
	rte_pktmbuf_free_bulk(a, 32);
}

/* Packets k of a and b: same length, same bytes. */
static bool same_packet(struct rte_mbuf *a, struct rte_mbuf *b)
{
	return a->pkt_len == b->pkt_len &&
	       memcmp(rte_pktmbuf_mtod(a, void *), rte_pktmbuf_mtod(b, void *), a->pkt_len) == 0;
}

/* Drawing then writing in the order drawn gives rxb_gen_fill's packets byte
 * for byte (UDP, TCP, KV requests); a packet drawn and never written (the
 * NIC dropped it) leaves its gap: the others are still the ones fill wrote,
 * IP id and TCP sequence numbers included. */
static void test_draw_then_write(void)
{
	enum { N = 48 };
	struct rxb_gen_cfg c;
	struct rte_mbuf *a[N], *b[N];
	struct rxb_gen_pkt_info info[N];

	for (int kind = 0; kind < 3; kind++) {
		struct rxb_gen *fill, *split;
		unsigned same = 0, written = 0;

		rxb_gen_cfg_defaults(&c);
		c.proto = kind == 1 ? IPPROTO_TCP : IPPROTO_UDP;
		c.kv.enabled = kind == 2;
		c.kv.n_keys = 100;
		c.kv.n_partitions = 4;
		c.n_flows = 8; /* flows repeat: TCP streams must advance */
		fill = gen_new(&c);
		split = gen_new(&c);
		if (fill == NULL || split == NULL || rte_pktmbuf_alloc_bulk(mp, a, N) != 0) {
			CHECK(0);
			return;
		}
		if (rte_pktmbuf_alloc_bulk(mp, b, N) != 0) {
			CHECK(0);
			rte_pktmbuf_free_bulk(a, N);
			return;
		}
		CHECK_EQ(rxb_gen_fill(fill, a, N, 7, NULL), N);
		rxb_gen_draw(split, info, N);
		for (unsigned i = 0; i < N; i++) {
			if (kind != 0 || i % 3 != 1) { /* UDP: every third one dropped */
				CHECK(rxb_gen_write(split, b[i], 7, &info[i]));
				written++;
				same += same_packet(a[i], b[i]);
			}
		}
		CHECK_EQ(same, written);
		CHECK_EQ(rxb_counter_read(&rxb_gen_stats(split)->packets), N);
		rte_pktmbuf_free_bulk(a, N);
		rte_pktmbuf_free_bulk(b, N);
		rxb_gen_destroy(fill);
		rxb_gen_destroy(split);
	}
}

static bool even_src_port(void *arg, uint32_t flow, const struct rxb_gen_flow *f)
{
	(void)arg;
	(void)flow;
	return f->src_port % 2 == 0;
}

static void test_target_share(void)
{
	enum { N = 20000 };
	static struct rxb_gen_pkt_info info[N];
	struct rxb_gen_cfg c;

	for (int cb = 0; cb < 2; cb++) {
		struct rxb_gen *g;
		unsigned target = 0;

		rxb_gen_cfg_defaults(&c);
		c.n_flows = 1000;
		c.target_share = 0.2;
		c.target_frame_size = 64;
		if (cb)
			c.is_target = even_src_port;
		else
			c.n_target_flows = 10;
		g = gen_new(&c);
		if (g == NULL) {
			CHECK(0);
			continue;
		}
		rxb_gen_draw(g, info, N);
		if (!cb)
			CHECK_EQ(rxb_gen_n_target_flows(g), 10);
		for (unsigned i = 0; i < N; i++) {
			const struct rxb_gen_flow *f = rxb_gen_flow(g, info[i].flow);
			bool t = cb ? f->src_port % 2 == 0 : info[i].flow < 10;

			CHECK_EQ(info[i].target, t);
			CHECK_EQ(info[i].len, t ? 64 : 1500);
			target += t;
		}
		/* sd = sqrt(0.2 * 0.8 / 20000) = 0.0028 */
		CHECK(fabs(target / (double)N - 0.2) < 0.015);
		rxb_gen_destroy(g);
	}
}

/* How many of n packets of the pattern c describes fall on each flow. */
static int flow_counts(const struct rxb_gen_cfg *c, struct rxb_gen_pkt_info *info, unsigned n,
		       unsigned *count)
{
	struct rxb_gen *g = gen_new(c);
	int rc = g != NULL ? 0 : -1;

	if (g != NULL)
		rxb_gen_draw(g, info, n);
	rxb_gen_destroy(g);
	memset(count, 0, c->n_flows * sizeof(*count));
	for (unsigned i = 0; rc == 0 && i < n; i++)
		count[info[i].flow]++;
	return rc;
}

/* Zipf(s) over flows: rank 1 (flow 0) gets 1/H(n, s) of the packets. */
static void test_zipf(void)
{
	enum { N = 40000, FLOWS = 1000 };
	static struct rxb_gen_pkt_info info[N];
	static unsigned count[FLOWS];
	const double s_values[] = { 0.99, 1.0, 0.5 };
	struct rxb_gen_cfg c;
	unsigned min = N, max = 0;

	rxb_gen_cfg_defaults(&c);
	c.n_flows = FLOWS;
	c.flow_dist = RXB_GEN_ZIPF;
	c.frame_size = 64;
	for (unsigned si = 0; si < RTE_DIM(s_values); si++) {
		double s = s_values[si], h = 0;

		c.flow_zipf_s = s;
		if (flow_counts(&c, info, N, count) != 0) {
			CHECK(0);
			continue;
		}
		for (unsigned k = 1; k <= FLOWS; k++)
			h += pow(k, -s);
		for (unsigned r = 1; r <= 3; r++) {
			double want = pow(r, -s) / h, got = count[r - 1] / (double)N;

			if (fabs(got - want) > 4 * sqrt(want / N) + 0.002)
				fprintf(stderr, "zipf s=%g rank %u: %g, want %g\n", s, r, got,
					want);
			CHECK(fabs(got - want) <= 4 * sqrt(want / N) + 0.002);
		}
		CHECK(count[0] > count[9] && count[9] > count[999]);
	}
	/* Uniform: every flow, none wildly over-represented. */
	c.flow_dist = RXB_GEN_UNIFORM;
	c.n_flows = 100;
	if (flow_counts(&c, info, N, count) != 0) {
		CHECK(0);
		return;
	}
	for (unsigned f = 0; f < 100; f++) {
		min = RTE_MIN(min, count[f]);
		max = RTE_MAX(max, count[f]);
	}
	CHECK(min > 300 && max < 500); /* mean 400, sd 20 */
}

/* The sampler itself, where it is hardest: few ranks (the envelope is
 * furthest from the discrete law) and many draws, every rank within 4.5
 * standard deviations of its exact probability. */
static void test_zipf_sampler(void)
{
	enum { RANKS = 10, DRAWS = 1000000 };
	const double s_values[] = { 0.99, 1.0, 2.0, 0.3 };
	struct sim_zipf z;
	struct sim_rng r;

	CHECK_EQ(sim_zipf_init(&z, 0, 1.0, NULL), -EINVAL);
	CHECK_EQ(sim_zipf_init(&z, 10, -1.0, NULL), -EINVAL);
	CHECK_EQ(sim_zipf_init(&z, 10, NAN, NULL), -EINVAL);
	sim_rng_seed(&r, 3, 0);
	for (unsigned si = 0; si < RTE_DIM(s_values); si++) {
		unsigned count[RANKS + 1] = { 0 };
		double h = 0;

		CHECK_EQ(sim_zipf_init(&z, RANKS, s_values[si], NULL), 0);
		for (unsigned i = 0; i < DRAWS; i++) {
			uint64_t k = sim_zipf_draw(&z, &r);

			CHECK(k >= 1 && k <= RANKS);
			if (k >= 1 && k <= RANKS)
				count[k]++;
		}
		for (unsigned k = 1; k <= RANKS; k++)
			h += pow(k, -s_values[si]);
		for (unsigned k = 1; k <= RANKS; k++) {
			double p = pow(k, -s_values[si]) / h;
			double sd = sqrt(p * (1 - p) * DRAWS);

			if (fabs(count[k] - p * DRAWS) > 4.5 * sd)
				fprintf(stderr, "zipf s=%g rank %u: %u draws, want %.0f\n",
					s_values[si], k, count[k], p * DRAWS);
			CHECK(fabs(count[k] - p * DRAWS) <= 4.5 * sd);
		}
	}
}

static void test_bursts_single_flow(void)
{
	enum { N = 960 };
	static struct rxb_gen_pkt_info info[N];
	struct rxb_gen_cfg c;
	struct rxb_gen *g;
	unsigned changes = 0;

	rxb_gen_cfg_defaults(&c);
	c.burst_pkts = 8;
	c.burst_single_flow = true;
	c.frame_size = 64;
	g = gen_new(&c);
	if (g == NULL) {
		CHECK(0);
		return;
	}
	rxb_gen_draw(g, info, N);
	for (unsigned i = 1; i < N; i++) {
		if (i % 8)
			CHECK_EQ(info[i].flow, info[i - 1].flow);
		else
			changes += info[i].flow != info[i - 1].flow;
	}
	CHECK(changes > N / 8 - 5); /* 1024 flows: a repeat is rare */
	rxb_gen_destroy(g);
}

static void test_kv_requests(void)
{
	enum { N = 4032 }; /* whole bursts of 64 */
	static struct rxb_gen_pkt_info info[N];
	struct rxb_gen_cfg c;
	struct rte_mbuf *pkts[64];
	struct rxb_gen *g;
	unsigned gets = 0;

	rxb_gen_cfg_defaults(&c);
	c.kv.enabled = true;
	c.kv.n_keys = 500;
	c.kv.n_partitions = 3;
	g = gen_new(&c);
	if (g == NULL) {
		CHECK(0);
		return;
	}
	CHECK_EQ(rxb_gen_max_frame(g), 14 + 20 + 8 + RXB_KV_MSG_LEN(1024));
	for (unsigned base = 0; base < N; base += 64) {
		if (rte_pktmbuf_alloc_bulk(mp, pkts, 64) != 0)
			break;
		CHECK_EQ(rxb_gen_fill(g, pkts, 64, 5, info + base), 64);
		for (unsigned i = 0; i < 64; i++) {
			const struct rxb_gen_pkt_info *pi = &info[base + i];
			struct rxb_pkt_view v = emu_view(pkts[i]);
			struct rxb_kv_hdr *h = (struct rxb_kv_hdr *)(v.payload + RXB_KV_OFF);
			uint8_t key[RXB_KV_KEY_LEN], val[RXB_KV_VAL_MAX];
			uint16_t val_len = pi->kv_op == RXB_KV_PUT ? 1024 : 0;

			CHECK(emu_pkt_ok(pkts[i]));
			CHECK(pi->kv_key < 500);
			CHECK_EQ(pi->kv_req_id, base + i);
			CHECK_EQ(h->magic, RXB_KV_MAGIC);
			CHECK_EQ(h->op, pi->kv_op);
			CHECK_EQ(rte_be_to_cpu_16(h->val_len), val_len);
			CHECK_EQ(rte_be_to_cpu_64(h->req_id), pi->kv_req_id);
			CHECK_EQ(pkts[i]->pkt_len, 14 + 20 + 8 + RXB_KV_MSG_LEN(val_len));
			rxb_gen_kv_key(pi->kv_key, key);
			CHECK(memcmp(h + 1, key, RXB_KV_KEY_LEN) == 0);
			CHECK_EQ(pi->kv_partition, rxb_kv_partition(key, 3));
			CHECK_EQ(emu_tuple_of(pkts[i]).dst_port,
				 RXB_KV_UDP_PORT + pi->kv_partition);
			if (val_len) {
				rxb_gen_kv_value(pi->kv_key, pi->kv_req_id, val, val_len);
				CHECK(memcmp((uint8_t *)(h + 1) + RXB_KV_KEY_LEN, val, val_len) ==
				      0);
			}
			gets += pi->kv_op == RXB_KV_GET;
		}
		rte_pktmbuf_free_bulk(pkts, 64);
	}
	/* 5% GET: sd = sqrt(0.05 * 0.95 / 4032) = 0.0034 */
	CHECK(fabs(gets / (double)N - 0.05) < 0.015);
	rxb_gen_destroy(g);
}

static void test_stamp(void)
{
	struct rxb_gen_cfg c;
	struct rte_mbuf *pkts[2];

	rxb_gen_cfg_defaults(&c);
	c.proto = IPPROTO_TCP;
	c.frame_size = 62; /* the shortest TCP frame with a stamp */
	if (emu_gen(mp, &c, pkts, 2, NULL) != 0) {
		CHECK(0);
		return;
	}
	CHECK_EQ(rxb_stamp_read_mbuf(pkts[0]), 12345);
	CHECK_EQ(rxb_stamp_mbuf(pkts[0], 0x0123456789abcdefull), 0);
	CHECK_EQ(rxb_stamp_read_mbuf(pkts[0]), 0x0123456789abcdefull);
	CHECK(emu_pkt_ok(pkts[0]));
	rte_pktmbuf_free_bulk(pkts, 2);
	/* Without a stamp the payload is all zero. */
	c.stamp = false;
	c.proto = IPPROTO_UDP;
	c.frame_size = 60;
	if (emu_gen(mp, &c, pkts, 1, NULL) == 0) {
		CHECK_EQ(rxb_stamp_read_mbuf(pkts[0]), 0);
		CHECK(emu_pkt_ok(pkts[0]));
		rte_pktmbuf_free(pkts[0]);
	}
}

/* The checksums the generator sums from the values it writes match DPDK's,
 * recomputed over the frame: both protocols, with and without a stamp or a
 * KV request (of odd length too), at stamps whose words carry. */
static void test_checksums_match_dpdk(void)
{
	static const struct rxb_gen_size mix[] = { { 64, 1 }, { 65, 1 }, { 594, 1 }, { 1514, 1 } };
	static const uint64_t stamps[] = { 1, 0xffff, 0xffffffffffffffffull, 0x8000ffff0000ffffull,
					   0x0123456789abcdefull };
	enum { KINDS = 6 };

	for (unsigned kind = 0; kind < KINDS; kind++) {
		struct rte_mbuf *pkts[32];
		struct rxb_gen_cfg c;
		struct rxb_gen *g;

		rxb_gen_cfg_defaults(&c);
		c.proto = kind & 1 ? IPPROTO_TCP : IPPROTO_UDP;
		c.stamp = (kind & 2) == 0;
		c.sizes = mix;
		c.n_sizes = 4;
		if (kind >= 4) { /* KV: UDP only */
			c.proto = IPPROTO_UDP;
			c.kv.enabled = true;
			c.kv.val_len = kind == 4 ? 33 : 64;
			c.kv.get_ratio = 0.5;
		}
		g = gen_new(&c);
		if (g == NULL) {
			CHECK(0);
			continue;
		}
		for (unsigned k = 0; k < RTE_DIM(stamps); k++) {
			if (rte_pktmbuf_alloc_bulk(mp, pkts, 32) != 0) {
				CHECK(0);
				break;
			}
			CHECK_EQ(rxb_gen_fill(g, pkts, 32, stamps[k], NULL), 32);
			for (unsigned i = 0; i < 32; i++) {
				struct rxb_pkt_view v = emu_view(pkts[i]);
				uint16_t ip_ck = v.ip->hdr_checksum,
					 l4_ck = rxb_pkt_l4_csum_get(&v);

				CHECK(emu_pkt_ok(pkts[i]));
				v.ip->hdr_checksum = 0;
				CHECK_EQ(ip_ck, rte_ipv4_cksum(v.ip));
				v.ip->hdr_checksum = ip_ck;
				rxb_pkt_l4_csum_set(&v, 0);
				CHECK_EQ(l4_ck, rte_ipv4_udptcp_cksum(v.ip, v.l4));
				rxb_pkt_l4_csum_set(&v, l4_ck);
			}
			rte_pktmbuf_free_bulk(pkts, 32);
		}
		rxb_gen_destroy(g);
	}
}

/* What the NIC side writes of a mbuf: its first line, as rte_pktmbuf_reset()
 * leaves it, and not one byte of the second, which the worker that frees the
 * mbuf keeps in its cache (emu/mbuf_rx.h). The generator writes a frame with
 * that reset. */
static void test_first_line_only(void)
{
	struct rte_mbuf *ours, *dpdk;
	uint8_t line1[RTE_CACHE_LINE_MIN_SIZE];
	struct rxb_gen_cfg c;
	struct rxb_gen *g;

	ours = rte_pktmbuf_alloc(mp);
	dpdk = rte_pktmbuf_alloc(mp);
	if (ours == NULL || dpdk == NULL) {
		CHECK(0);
		rte_pktmbuf_free(ours);
		rte_pktmbuf_free(dpdk);
		return;
	}
	for (struct rte_mbuf *m = ours; m != NULL; m = m == ours ? dpdk : NULL) {
		m->data_off = 7;
		m->port = 3;
		m->ol_flags = RTE_MBUF_F_RX_RSS_HASH | RTE_MBUF_F_RX_VLAN;
		m->packet_type = RTE_PTYPE_L2_ETHER;
		m->pkt_len = m->data_len = 60;
		m->vlan_tci = m->vlan_tci_outer = 9;
		m->tx_offload = 0x1234;
	}
	memcpy(line1, (uint8_t *)ours + RTE_CACHE_LINE_MIN_SIZE, sizeof(line1));
	rxb_mbuf_rx_reset(ours);
	rte_pktmbuf_reset(dpdk);
	CHECK_EQ(ours->data_off, dpdk->data_off);
	CHECK_EQ(ours->nb_segs, dpdk->nb_segs);
	CHECK_EQ(ours->port, dpdk->port);
	CHECK_EQ(ours->ol_flags, dpdk->ol_flags);
	CHECK_EQ(ours->packet_type, dpdk->packet_type);
	CHECK_EQ(ours->pkt_len, dpdk->pkt_len);
	CHECK_EQ(ours->data_len, dpdk->data_len);
	CHECK_EQ(ours->vlan_tci, dpdk->vlan_tci);
	CHECK_EQ(ours->vlan_tci_outer, dpdk->vlan_tci_outer);
	CHECK(memcmp(line1, (uint8_t *)ours + RTE_CACHE_LINE_MIN_SIZE, sizeof(line1)) == 0);

	rxb_gen_cfg_defaults(&c);
	g = gen_new(&c);
	CHECK(g != NULL);
	if (g != NULL) {
		dpdk->tx_offload = 0x1234;
		memcpy(line1, (uint8_t *)dpdk + RTE_CACHE_LINE_MIN_SIZE, sizeof(line1));
		CHECK_EQ(rxb_gen_fill(g, &dpdk, 1, 99, NULL), 1);
		CHECK(emu_pkt_ok(dpdk));
		CHECK(memcmp(line1, (uint8_t *)dpdk + RTE_CACHE_LINE_MIN_SIZE, sizeof(line1)) == 0);
		rxb_gen_destroy(g);
	}
	rte_pktmbuf_free(ours);
	rte_pktmbuf_free(dpdk);
}

/* An mbuf too small is refused before the pattern moves. */
static void test_small_mbuf(void)
{
	struct rte_mempool *small = rte_pktmbuf_pool_create(
		"gen_small", 63, 0, 0, RTE_PKTMBUF_HEADROOM + 256, SOCKET_ID_ANY);
	struct rxb_gen_cfg c;
	struct rte_mbuf *m[2], *ref;
	struct rxb_gen *g;

	rxb_gen_cfg_defaults(&c);
	g = gen_new(&c);
	if (small == NULL || g == NULL || emu_gen(mp, &c, &ref, 1, NULL) != 0) {
		CHECK(0);
		rxb_gen_destroy(g);
		rte_mempool_free(small);
		return;
	}
	m[0] = rte_pktmbuf_alloc(small);
	m[1] = rte_pktmbuf_alloc(mp);
	CHECK_EQ(rxb_gen_fill(g, m, 1, 12345, NULL), 0);
	CHECK_EQ(rxb_gen_fill(g, m + 1, 1, 12345, NULL), 1);
	/* The first packet of the pattern, as a fresh generator makes it. */
	CHECK(memcmp(rte_pktmbuf_mtod(m[1], void *), rte_pktmbuf_mtod(ref, void *), 1500) == 0);
	rte_pktmbuf_free(m[0]);
	rte_pktmbuf_free(m[1]);
	rte_pktmbuf_free(ref);
	rxb_gen_destroy(g);
	rte_mempool_free(small);
}

/* One pacer call and what it must return. */
struct due_step {
	uint64_t now;
	unsigned max, want;
};

/* A generator from c driven through steps; returns it for more checks. */
static struct rxb_gen *pace(const struct rxb_gen_cfg *c, const struct due_step *steps, unsigned n)
{
	struct rxb_gen *g = gen_new(c);

	CHECK(g != NULL);
	for (unsigned i = 0; g != NULL && i < n; i++) {
		unsigned got = rxb_gen_due(g, steps[i].now, steps[i].max);

		if (got != steps[i].want)
			fprintf(stderr, "pacer step %u: due(%llu, %u) = %u, want %u\n", i,
				(unsigned long long)steps[i].now, steps[i].max, got, steps[i].want);
		CHECK_EQ(got, steps[i].want);
	}
	return g;
}

static void test_pacer(void)
{
	/* 1e6 pps on a 1 GHz clock: one slot per 1000 cycles (ns). */
	static const struct due_step steady[] = {
		{ 10000, 32, 1 }, /* slot 0 at the first call */
		{ 10999, 32, 0 },
		{ 11000, 32, 1 },
		{ 15000, 32, 4 }, /* slots 2..5 */
		/* Slots 6..25 due, 8 per call: caught up, nothing lost. */
		{ 35000, 8, 8 },
		{ 35000, 8, 8 },
		{ 35000, 8, 4 },
		{ 35000, 8, 0 },
		/* A stall of 1 ms: 1000 slots due, more than the slack of 64.
		 * The call gets its 32, the other 968 are abandoned, and the
		 * schedule restarts at now. */
		{ 1035000, 32, 32 },
		{ 1035000, 32, 1 },
		{ 1035999, 32, 0 },
		{ 1036000, 32, 1 },
	};
	/* On/off: 4 packets, then 10 us of silence after the last slot. */
	static const struct due_step on_off[] = {
		{ 0, 32, 1 },     { 3000, 32, 3 },  { 13999, 32, 0 },
		{ 14000, 32, 1 }, { 17000, 32, 3 }, { 27999, 32, 0 },
	};
	/* Unpaced on/off: a whole burst at once, then the gap from now. */
	static const struct due_step unpaced_on_off[] = {
		{ 500, 32, 4 },
		{ 1499, 32, 0 },
		{ 1500, 32, 4 },
	};
	/* Unpaced, no bursts: whatever is asked. */
	static const struct due_step unpaced[] = { { 0, 17, 17 }, { 0, 3, 3 } };
	struct rxb_gen_cfg c;
	struct rxb_gen *g;

	rxb_gen_cfg_defaults(&c);
	c.tsc_hz = 1000000000;
	c.pps = 1e6;
	g = pace(&c, steady, RTE_DIM(steady));
	if (g != NULL) {
		CHECK_EQ(emu_stat(&rxb_gen_stats(g)->late), 1000 - 32);
		CHECK_EQ(emu_stat(&rxb_gen_stats(g)->stalls), 1);
	}
	rxb_gen_destroy(g);
	c.burst_pkts = 4;
	c.burst_gap_ns = 10000;
	rxb_gen_destroy(pace(&c, on_off, RTE_DIM(on_off)));
	c.pps = 0;
	c.burst_gap_ns = 1000;
	rxb_gen_destroy(pace(&c, unpaced_on_off, RTE_DIM(unpaced_on_off)));
	c.burst_pkts = 0;
	c.burst_gap_ns = 0;
	rxb_gen_destroy(pace(&c, unpaced, RTE_DIM(unpaced)));
}

/* The burst call on the real clock. Every slot of the schedule is sent,
 * abandoned as late (when this thread is descheduled on a busy machine; each
 * abandonment restarts the schedule, which may add one slot), or still in
 * the backlog the pacer would catch up on (at most pace_slack + one call),
 * so the count holds however the test is timed. */
static void test_burst_real_clock(void)
{
	struct rxb_gen_cfg c;
	struct rte_mbuf *pkts[32];
	struct rxb_gen *g;
	uint64_t hz = rte_get_tsc_hz(), first = 0, now = 0, sent = 0, late, stalls, slots;

	rxb_gen_cfg_defaults(&c);
	c.pps = 200000;
	c.frame_size = 64;
	g = gen_new(&c);
	if (g == NULL) {
		CHECK(0);
		return;
	}
	first = rte_rdtsc();
	do { /* 50 ms: 10000 packets */
		unsigned n;

		now = rte_rdtsc();
		n = rxb_gen_burst(g, mp, pkts, 32, now, NULL);
		for (unsigned i = 0; i < n; i++)
			CHECK(emu_pkt_ok(pkts[i]));
		rte_pktmbuf_free_bulk(pkts, n);
		sent += n;
	} while (now - first < hz / 20);
	late = emu_stat(&rxb_gen_stats(g)->late);
	stalls = emu_stat(&rxb_gen_stats(g)->stalls);
	slots = (uint64_t)((double)(now - first) * c.pps / (double)hz) + 1;
	CHECK(sent + late <= slots + stalls);
	CHECK(sent + late + c.pace_slack + 32 >= slots);
	CHECK(sent > 0);
	CHECK(late == 0 || stalls > 0);
	CHECK_EQ(emu_stat(&rxb_gen_stats(g)->packets), sent);
	CHECK_EQ(emu_stat(&rxb_gen_stats(g)->nombuf), 0);
	rxb_gen_destroy(g);
}

/* The wire bytes' RSS input (addresses and ports, network order) hashed by
 * the reference Toeplitz. */
static uint32_t wire_hash_ref(struct rte_mbuf *m)
{
	struct rxb_pkt_view v = emu_view(m);
	uint8_t in[12];

	memcpy(in, &v.ip->src_addr, 4);
	memcpy(in + 4, &v.ip->dst_addr, 4);
	memcpy(in + 8, v.l4, 4); /* UDP and TCP: source then destination port */
	return rxb_toeplitz_ref(rxb_rss_default_key, RXB_RSS_KEY_LEN, in, sizeof(in));
}

/* n packets of c: each carries flow info.flow's rxb_flow_tuple (model m) on
 * the wire, and the emulator's RSS hash of that flow (the tuple through the
 * table Toeplitz, emu_source.c) equals the reference over the wire bytes.
 * Returns the packets' flow ids in ids[]. */
static void check_wire_flows(const struct rxb_gen_cfg *c, const struct rxb_flows *m, uint32_t *ids,
			     unsigned n)
{
	struct rxb_rss rss;
	struct rxb_gen *g = gen_new(c);
	unsigned bad = 0;

	CHECK(g != NULL);
	CHECK_EQ(rxb_rss_init(&rss, rxb_rss_default_key, RXB_RSS_KEY_LEN, NULL), 0);
	for (unsigned base = 0; g != NULL && base < n; base += 32) {
		struct rxb_gen_pkt_info info[32];
		struct rte_mbuf *pkts[32];

		if (rte_pktmbuf_alloc_bulk(mp, pkts, 32) != 0 ||
		    rxb_gen_fill(g, pkts, 32, 1, info) != 32) {
			CHECK(0);
			break;
		}
		for (unsigned i = 0; i < 32 && base + i < n; i++) {
			const struct rxb_gen_flow *f = rxb_gen_flow(g, info[i].flow);
			struct emu_tuple w = emu_tuple_of(pkts[i]);
			struct rxb_flow t;

			rxb_flow_tuple(m, info[i].flow, &t);
			bad += w.src_ip != t.src_ip || w.dst_ip != t.dst_ip ||
			       w.src_port != t.src_port || w.dst_port != t.dst_port;
			bad += f->src_ip != t.src_ip || f->dst_ip != t.dst_ip ||
			       f->proto != t.proto;
			bad += rxb_rss_ipv4_l4(&rss, f->src_ip, f->dst_ip, f->src_port,
					       f->dst_port) != wire_hash_ref(pkts[i]);
			ids[base + i] = info[i].flow;
		}
		rte_pktmbuf_free_bulk(pkts, 32);
	}
	CHECK_EQ(bad, 0);
	rxb_gen_destroy(g);
}

static void test_flows_are_the_simulators(void)
{
	static uint32_t ids[2048];
	struct rxb_gen_cfg c;
	struct rxb_flows m;

	for (uint32_t port = 0; port < 2; port++) {
		rxb_gen_cfg_defaults(&c);
		c.seed = 1234;
		c.port = port;
		c.proto = port ? IPPROTO_TCP : IPPROTO_UDP;
		c.n_flows = 4096;
		rxb_flows_init(&m, 1234, port, c.proto);
		check_wire_flows(&c, &m, ids, RTE_DIM(ids));
	}
}

/* The study's generator profile: source and destination stepped in lock
 * step, lcm(6, 4) = 12 flows visited in turn from the seed's start. */
static void test_generator_ranges(void)
{
	static uint32_t ids[96];
	struct rxb_gen_cfg c;
	struct rxb_flows m;

	rxb_gen_cfg_defaults(&c);
	c.seed = 5;
	c.gen_src = 6;
	c.gen_dst = 4;
	rxb_flows_init(&m, 5, 0, IPPROTO_UDP);
	CHECK_EQ(rxb_flows_ranges(&m, 6, 4, NULL), 0);
	check_wire_flows(&c, &m, ids, RTE_DIM(ids));
	for (unsigned i = 0; i < RTE_DIM(ids); i++)
		CHECK_EQ(ids[i], rxb_flows_gen_id(&m, i));
}

static void test_config_errors(void)
{
	struct {
		const char *field;
	} cases[] = {
		{ "gen.frame_size" },    { "gen.frame_size" },        { "gen.target_share" },
		{ "gen.kv.enabled" },    { "gen.flow_dist" },         { "gen.n_flows" },
		{ "gen.sizes[1].size" }, { "gen.is_target" },         { "gen.burst_gap_ns" },
		{ "gen.kv.val_len" },    { "traffic.gen_src_addrs" }, { "traffic.gen_dst_addrs" },
	};

	for (unsigned i = 0; i < RTE_DIM(cases); i++) {
		struct rxb_gen_cfg c;
		struct rxb_err err = { 0 };
		struct rxb_gen *g = (struct rxb_gen *)1;
		struct rxb_gen_size sizes[2] = { { 64, 1 }, { 20000, 1 } };

		rxb_gen_cfg_defaults(&c);
		switch (i) {
		case 0:
			c.frame_size = 59;
			break;
		case 1:
			c.proto = IPPROTO_TCP;
			c.frame_size = 60;
			break;
		case 2:
			c.target_share = 0.1;
			break;
		case 3:
			c.kv.enabled = true;
			c.proto = IPPROTO_TCP;
			break;
		case 4:
			c.flow_dist = RXB_GEN_ZIPF;
			c.flow_zipf_s = 0;
			break;
		case 5:
			c.n_flows = 0;
			break;
		case 6:
			c.sizes = sizes;
			c.n_sizes = 2;
			break;
		case 7:
			c.is_target = even_src_port;
			c.n_flows = 1;
			c.seed = 0;
			c.target_share = 1;
			break;
		case 8:
			c.burst_gap_ns = 5;
			break;
		case 9:
			c.kv.enabled = true;
			c.kv.val_len = 2000;
			break;
		case 10:
			c.gen_src = 6;
			c.gen_dst = 4;
			c.kv.enabled = true;
			break;
		case 11:
			c.gen_src = 6;
			break;
		}
		if (i == 7) {
			/* Find a seed whose single flow has an odd port. */
			for (c.seed = 1;; c.seed++) {
				struct rxb_gen_cfg u = c;
				struct rxb_gen *t;

				u.is_target = NULL;
				u.target_share = 0;
				t = gen_new(&u);
				if (t == NULL || rxb_gen_flow(t, 0)->src_port % 2) {
					rxb_gen_destroy(t);
					break;
				}
				rxb_gen_destroy(t);
			}
		}
		CHECK(rxb_gen_create(&c, &g, &err) < 0);
		CHECK(g == NULL);
		if (strstr(err.msg, cases[i].field) == NULL)
			fprintf(stderr, "case %u: \"%s\" does not name %s\n", i, err.msg,
				cases[i].field);
		CHECK(strstr(err.msg, cases[i].field) != NULL);
	}
}

int main(void)
{
	mp = emu_test_init("rxb_test_emu_gen");
	RUN(test_valid_packets);
	RUN(test_deterministic);
	RUN(test_draw_then_write);
	RUN(test_target_share);
	RUN(test_zipf);
	RUN(test_zipf_sampler);
	RUN(test_bursts_single_flow);
	RUN(test_kv_requests);
	RUN(test_stamp);
	RUN(test_checksums_match_dpdk);
	RUN(test_first_line_only);
	RUN(test_small_mbuf);
	RUN(test_pacer);
	RUN(test_burst_real_clock);
	RUN(test_flows_are_the_simulators);
	RUN(test_generator_ranges);
	RUN(test_config_errors);
	CHECK_EQ(rte_mempool_in_use_count(mp), 0);
	emu_test_fini();
	return check_summary();
}
