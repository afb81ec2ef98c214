/* SPDX-License-Identifier: BSD-3-Clause
 * Network functions on generated packets: registry and configuration
 * errors, checksum helpers (and that a corrupted packet is caught), l3fwd,
 * synthetic NF, atomic counter. NAT/LB and the KV store have their own
 * files. */
#include <errno.h>
#include <pthread.h>

#include <rte_lpm.h>
#include <rte_malloc.h>

#include "check.h"
#include "emu_test.h"
#include "flow.h"
#include "rng.h"

static struct rte_mempool *mp;

static void gen_defaults(struct rxb_gen_cfg *g, uint8_t proto, uint16_t size)
{
	rxb_gen_cfg_defaults(g);
	g->proto = proto;
	g->frame_size = size;
	g->n_flows = 64;
}

static void test_registry(void)
{
	const char *names[] = { "l3fwd", "nat", "lb", "synthetic", "kvs", "counter" };
	struct rxb_nf_cfg cfg;
	struct rxb_err err = { 0 };
	struct rxb_nf *nf = (struct rxb_nf *)1;
	unsigned n = 0;

	for (const struct rxb_nf_ops *const *o = rxb_nf_registry; *o; o++)
		n++;
	CHECK_EQ(n, 6);
	rxb_nf_cfg_defaults(&cfg);
	for (unsigned i = 0; i < 6; i++) {
		const struct rxb_nf_ops *ops = rxb_nf_find(names[i]);

		CHECK(ops != NULL && strcmp(ops->name, names[i]) == 0);
		nf = emu_nf(names[i], &cfg);
		CHECK(nf != NULL && nf->ops == ops);
		rxb_nf_destroy(nf);
	}
	CHECK(rxb_nf_find("l3fw") == NULL);
	CHECK_EQ(rxb_nf_create("firewall", &cfg, SOCKET_ID_ANY, &nf, &err), -ENOENT);
	CHECK(nf == NULL);
	CHECK(strstr(err.msg, "firewall") != NULL && strstr(err.msg, "synthetic") != NULL);
	rxb_nf_destroy(NULL);
}

/* Each bad field must be refused with a message that names it. */
static void test_config_errors(void)
{
	struct rxb_nf_route bad_route = { RXB_IPV4(10, 0, 0, 0), 0, 0 };
	struct rxb_nf_route bad_hop = { RXB_IPV4(10, 0, 0, 0), 8, 7 };
	struct {
		const char *nf, *field;
		void (*set)(struct rxb_nf_cfg *);
	} cases[] = {
		{ "nat", "nat.capacity", NULL },           { "nat", "nat.port_min", NULL },
		{ "nat", "nat.n_public_ips", NULL },       { "lb", "lb.n_backends", NULL },
		{ "synthetic", "synth.buf_bytes", NULL },  { "kvs", "kvs.partition", NULL },
		{ "counter", "counter.n_counters", NULL }, { "l3fwd", "routes[0].depth", NULL },
		{ "l3fwd", "routes[0].hop", NULL },        { "l3fwd", "n_ports", NULL },
	};

	for (unsigned i = 0; i < RTE_DIM(cases); i++) {
		struct rxb_nf_cfg cfg;
		struct rxb_err err = { 0 };
		struct rxb_nf *nf = NULL;
		int rc;

		rxb_nf_cfg_defaults(&cfg);
		switch (i) {
		case 0:
			cfg.nat.capacity = RXB_NF_MAX_FLOWS + 1;
			break;
		case 1:
			cfg.nat.port_min = 2000;
			cfg.nat.port_max = 1000;
			break;
		case 2:
			cfg.nat.n_public_ips = 1;
			cfg.nat.capacity = 70000;
			break;
		case 3:
			cfg.lb.n_backends = 0;
			break;
		case 4:
			cfg.synth.buf_bytes = 8;
			break;
		case 5:
			cfg.kvs.n_partitions = 2;
			cfg.kvs.partition = 2;
			break;
		case 6:
			cfg.counter.n_counters = 0;
			break;
		case 7:
			cfg.routes = &bad_route;
			cfg.n_routes = 1;
			break;
		case 8:
			cfg.routes = &bad_hop;
			cfg.n_routes = 1;
			break;
		case 9:
			cfg.n_ports = 0;
			break;
		}
		rc = rxb_nf_create(cases[i].nf, &cfg, SOCKET_ID_ANY, &nf, &err);
		CHECK_EQ(rc, -EINVAL);
		CHECK(nf == NULL);
		if (strstr(err.msg, cases[i].field) == NULL)
			fprintf(stderr, "case %u: message \"%s\" does not name %s\n", i, err.msg,
				cases[i].field);
		CHECK(strstr(err.msg, cases[i].field) != NULL);
		rxb_nf_destroy(nf);
	}
}

/* The verification the other tests rely on must be able to fail, and the
 * incremental update must agree with a full recompute. */
static void test_checksums(void)
{
	struct rxb_gen_cfg g;
	struct rte_mbuf *pkts[64];
	struct sim_rng r;

	sim_rng_seed(&r, 7, 0);
	for (int proto = 0; proto < 2; proto++) {
		gen_defaults(&g, proto ? IPPROTO_TCP : IPPROTO_UDP, 0);
		g.n_sizes = 3;
		g.sizes = (struct rxb_gen_size[]){ { 64, 1 }, { 333, 1 }, { 1500, 1 } };
		if (emu_gen(mp, &g, pkts, 64, NULL) != 0) {
			CHECK(0);
			return;
		}
		for (unsigned i = 0; i < 64; i++) {
			struct rxb_pkt_view v = emu_view(pkts[i]);
			uint8_t save;
			unsigned off;

			CHECK(emu_pkt_ok(pkts[i]));
			/* Corrupt one payload byte: caught, then undone. */
			off = (unsigned)sim_rng_below(&r, v.payload_len);
			save = v.payload[off];
			v.payload[off] ^= 0x10;
			CHECK(!emu_pkt_ok(pkts[i]));
			v.payload[off] = save;
			/* Corrupt the header: caught. */
			v.ip->time_to_live ^= 1;
			CHECK(!emu_pkt_ok(pkts[i]));
			v.ip->time_to_live ^= 1;
			CHECK(emu_pkt_ok(pkts[i]));
			/* Incremental rewrites of addresses, ports and payload
			 * words keep the checksum valid... */
			for (int k = 0; k < 8; k++) {
				uint32_t ip = (uint32_t)sim_rng_next(&r);
				uint16_t port = (uint16_t)sim_rng_next(&r);
				uint64_t w = sim_rng_next(&r);

				rxb_pkt_rewrite(&v, &v.ip->src_addr, &ip, 4, true);
				rxb_pkt_rewrite(&v, &((struct rte_udp_hdr *)v.l4)->dst_port, &port,
						2, true);
				rxb_pkt_rewrite(&v, v.payload, &w, 8, true);
			}
			rxb_pkt_ip_csum(&v); /* the IPv4 header changed too */
			CHECK(emu_pkt_ok(pkts[i]));
			/* ...and a rewrite without the update does not. */
			v.payload[0] ^= 0xff;
			v.payload[1] ^= 0x01;
			CHECK(!emu_pkt_ok(pkts[i]));
		}
		rte_pktmbuf_free_bulk(pkts, 64);
	}
	/* A UDP checksum of 0 ("none") stays 0 through a rewrite. */
	gen_defaults(&g, IPPROTO_UDP, 128);
	if (emu_gen(mp, &g, pkts, 1, NULL) == 0) {
		struct rxb_pkt_view v = emu_view(pkts[0]);
		uint32_t ip = 0x01020304;

		((struct rte_udp_hdr *)v.l4)->dgram_cksum = 0;
		rxb_pkt_rewrite(&v, &v.ip->dst_addr, &ip, 4, true);
		CHECK_EQ(((struct rte_udp_hdr *)v.l4)->dgram_cksum, 0);
		rxb_pkt_ip_csum(&v);
		CHECK(emu_pkt_ok(pkts[0]));
		rte_pktmbuf_free(pkts[0]);
	}
}

/* Corrupted input is never laundered: a bad IPv4 header is dropped by every
 * NF, a bad L4 checksum passes through a rewrite still bad (incremental
 * update) or is dropped with verify_csum. */
static void test_corrupted_input(void)
{
	const char *names[] = { "l3fwd", "nat", "lb", "synthetic", "counter" };
	struct rxb_gen_cfg g;
	struct rte_mbuf *pkts[4];

	gen_defaults(&g, IPPROTO_UDP, 200);
	for (unsigned i = 0; i < RTE_DIM(names); i++) {
		for (int verify = 0; verify < 2; verify++) {
			struct rxb_nf_cfg cfg;
			struct rxb_nf *nf;
			struct rxb_pkt_view v;
			uint16_t kept;

			rxb_nf_cfg_defaults(&cfg);
			cfg.verify_csum = verify;
			nf = emu_nf(names[i], &cfg);
			if (nf == NULL || emu_gen(mp, &g, pkts, 4, NULL) != 0) {
				CHECK(0);
				rxb_nf_destroy(nf);
				continue;
			}
			v = emu_view(pkts[1]);
			v.ip->packet_id ^= 0x0100; /* bad IPv4 header */
			v = emu_view(pkts[2]);
			v.payload[100] ^= 0x40; /* bad L4 checksum */
			kept = rxb_nf_process(nf, pkts, 4);
			CHECK_EQ(kept, verify ? 2 : 3);
			CHECK_EQ(emu_stat(&nf->stats.drop[RXB_NF_DROP_CSUM]), verify ? 2 : 1);
			CHECK(emu_pkt_ok(pkts[0]));
			if (!verify)
				CHECK(!emu_pkt_ok(pkts[1])); /* the bad-L4 packet, moved up */
			rte_pktmbuf_free_bulk(pkts, 4);
			rxb_nf_destroy(nf);
		}
	}
}

static void set_dst(struct rte_mbuf *m, uint32_t dst, uint8_t ttl)
{
	struct emu_tuple t = emu_tuple_of(m);
	struct rxb_pkt_view v = emu_view(m);

	v.ip->time_to_live = ttl;
	t.dst_ip = dst;
	emu_set_tuple(m, &t);
}

static void test_l3fwd(void)
{
	static const struct rxb_nf_route routes[] = {
		{ RXB_IPV4(10, 0, 0, 0), 8, 0 },
		{ RXB_IPV4(10, 1, 0, 0), 16, 1 },
		{ RXB_IPV4(10, 1, 2, 0), 24, 2 },
		{ RXB_IPV4(10, 1, 2, 128), 25, 4 }, /* deeper than 24: tbl8 */
		{ RXB_IPV4(10, 1, 2, 3), 32, 3 },
	};
	struct {
		uint32_t dst;
		uint8_t ttl;
		int port; /* -1: dropped */
		int cause;
	} cases[] = {
		{ RXB_IPV4(10, 9, 9, 9), 64, 0, 0 },
		{ RXB_IPV4(10, 1, 9, 9), 64, 1, 0 },
		{ RXB_IPV4(10, 1, 2, 4), 64, 2, 0 },
		{ RXB_IPV4(10, 1, 2, 3), 64, 3, 0 },
		{ RXB_IPV4(10, 1, 2, 200), 64, 4, 0 },
		{ RXB_IPV4(11, 0, 0, 1), 64, -1, RXB_NF_DROP_NO_ROUTE },
		{ RXB_IPV4(10, 1, 2, 3), 1, -1, RXB_NF_DROP_TTL },
		{ RXB_IPV4(10, 1, 2, 3), 2, 3, 0 },
	};
	enum { N = RTE_DIM(cases) };
	struct rxb_nf_hop hops[5];
	struct rxb_gen_cfg g;
	struct rxb_nf_cfg cfg;
	struct rte_mbuf *pkts[N + 1], *orig[N + 1];
	struct rxb_nf *nf;
	struct rte_lpm *lpm = NULL;
	struct rxb_err err = { 0 };
	uint16_t kept;

	memset(hops, 0, sizeof(hops));
	for (unsigned h = 0; h < 5; h++) {
		hops[h].port = (uint16_t)h;
		hops[h].dst_mac.addr_bytes[0] = 0x02;
		hops[h].dst_mac.addr_bytes[5] = (uint8_t)(0x10 + h);
		hops[h].src_mac.addr_bytes[0] = 0x02;
		hops[h].src_mac.addr_bytes[5] = (uint8_t)(0x20 + h);
	}
	rxb_nf_cfg_defaults(&cfg);
	cfg.routes = routes;
	cfg.n_routes = RTE_DIM(routes);
	cfg.hops = hops;
	cfg.n_hops = 5;
	gen_defaults(&g, IPPROTO_TCP, 300);
	/* Run the cases on an instance with its own table, then on two
	 * instances sharing one. */
	CHECK_EQ(rxb_nf_lpm_create(&cfg, SOCKET_ID_ANY, &lpm, &err), 0);
	for (int shared = 0; shared < 3; shared++) {
		struct rxb_nf_cfg c = cfg;
		unsigned k = 0;

		if (shared)
			c.lpm = lpm;
		nf = emu_nf("l3fwd", &c);
		if (nf == NULL || emu_gen(mp, &g, pkts, N + 1, NULL) != 0) {
			CHECK(0);
			rxb_nf_destroy(nf);
			continue;
		}
		for (unsigned i = 0; i < N; i++)
			set_dst(pkts[i], cases[i].dst, cases[i].ttl);
		/* And one ARP frame: not IPv4. */
		rte_pktmbuf_mtod(pkts[N], struct rte_ether_hdr *)->ether_type = rte_cpu_to_be_16(
			RTE_ETHER_TYPE_ARP);
		memcpy(orig, pkts, sizeof(pkts));
		kept = rxb_nf_process(nf, pkts, N + 1);
		CHECK_EQ(kept, 6);
		for (unsigned i = 0; i < N; i++) {
			struct rxb_pkt_view v;

			if (cases[i].port < 0)
				continue;
			/* Kept packets come first, in arrival order. */
			CHECK(pkts[k] == orig[i]);
			v = emu_view(pkts[k]);
			CHECK_EQ(pkts[k]->port, cases[i].port);
			CHECK_EQ(v.ip->time_to_live, cases[i].ttl - 1);
			CHECK(rte_is_same_ether_addr(&v.eth->dst_addr,
						     &hops[cases[i].port].dst_mac));
			CHECK(rte_is_same_ether_addr(&v.eth->src_addr,
						     &hops[cases[i].port].src_mac));
			CHECK(emu_pkt_ok(pkts[k]));
			k++;
		}
		CHECK_EQ(emu_stat(&nf->stats.packets), N + 1);
		CHECK_EQ(emu_stat(&nf->stats.drops), 3);
		CHECK_EQ(emu_stat(&nf->stats.lookups), N - 1); /* not the TTL-1 one */
		CHECK_EQ(emu_stat(&nf->stats.misses), 1);
		CHECK_EQ(emu_stat(&nf->stats.drop[RXB_NF_DROP_NO_ROUTE]), 1);
		CHECK_EQ(emu_stat(&nf->stats.drop[RXB_NF_DROP_TTL]), 1);
		CHECK_EQ(emu_stat(&nf->stats.drop[RXB_NF_DROP_PARSE]), 1);
		rte_pktmbuf_free_bulk(orig, N + 1);
		rxb_nf_destroy(nf);
	}
	rte_lpm_free(lpm);
}

/* Default table: 198.19.x.0/24 -> hop x % n_ports, the generator's range. */
static void test_l3fwd_default_routes(void)
{
	struct rxb_gen_cfg g;
	struct rxb_nf_cfg cfg;
	struct rte_mbuf *pkts[256];
	struct rxb_nf *nf;
	uint16_t kept;

	rxb_nf_cfg_defaults(&cfg);
	cfg.n_ports = 3;
	gen_defaults(&g, IPPROTO_UDP, 64);
	g.n_flows = 1000;
	nf = emu_nf("l3fwd", &cfg);
	if (nf == NULL || emu_gen(mp, &g, pkts, 256, NULL) != 0) {
		CHECK(0);
		rxb_nf_destroy(nf);
		return;
	}
	kept = rxb_nf_process(nf, pkts, 256);
	CHECK_EQ(kept, 256);
	for (unsigned i = 0; i < kept; i++) {
		struct emu_tuple t = emu_tuple_of(pkts[i]);

		CHECK_EQ(pkts[i]->port, ((t.dst_ip >> 8) & 0xff) % 3);
		CHECK(emu_pkt_ok(pkts[i]));
	}
	rte_pktmbuf_free_bulk(pkts, 256);
	rxb_nf_destroy(nf);
}

/* Default table: the generator ranges' destinations (48.1.1.1 onwards, up
 * to 2^30 addresses) are routed too; l3fwd and synthetic dropped every
 * packet of traffic.flow_model = generator as unrouted. */
static void test_default_routes_cover_the_generator_ranges(void)
{
	struct rxb_err err = { 0 };
	struct rxb_nf_cfg cfg;
	struct rte_lpm *lpm;
	uint32_t hop;

	rxb_nf_cfg_defaults(&cfg);
	if (rxb_nf_lpm_create(&cfg, SOCKET_ID_ANY, &lpm, &err) != 0) {
		CHECK(0);
		return;
	}
	CHECK_EQ(rte_lpm_lookup(lpm, RXB_FLOW_GEN_DST_BASE, &hop), 0);
	CHECK_EQ(rte_lpm_lookup(lpm, RXB_FLOW_GEN_DST_BASE + (1u << 30) - 1, &hop), 0);
	CHECK_EQ(rte_lpm_lookup(lpm, RXB_IPV4(198, 19, 5, 7), &hop), 0);
	CHECK_EQ(hop, 5 % cfg.n_ports);
	CHECK(rte_lpm_lookup(lpm, RXB_IPV4(10, 0, 0, 1), &hop) != 0); /* still a miss */
	rte_lpm_free(lpm);
}

static void test_synthetic(void)
{
	struct rxb_gen_cfg g;
	struct rxb_nf_cfg cfg;
	struct rte_mbuf *pkts[64];
	uint8_t before[64][1500];
	struct rxb_nf *nf;

	gen_defaults(&g, IPPROTO_UDP, 1500);
	for (int mode = RXB_NF_PAYLOAD_NONE; mode <= RXB_NF_PAYLOAD_WRITE; mode++) {
		uint16_t kept;

		rxb_nf_cfg_defaults(&cfg);
		cfg.synth.reads = 4;
		cfg.synth.payload = mode;
		nf = emu_nf("synthetic", &cfg);
		if (nf == NULL || emu_gen(mp, &g, pkts, 64, NULL) != 0) {
			CHECK(0);
			rxb_nf_destroy(nf);
			continue;
		}
		for (unsigned i = 0; i < 64; i++) {
			struct rxb_pkt_view v = emu_view(pkts[i]);

			v.payload[20] = (uint8_t)(i + 1); /* make payloads non-zero */
			rxb_pkt_l4_csum_full(&v, true);
			memcpy(before[i], v.payload, v.payload_len);
		}
		kept = rxb_nf_process(nf, pkts, 64);
		CHECK_EQ(kept, 64);
		CHECK_EQ(emu_stat(&nf->stats.lookups), 64);
		for (unsigned i = 0; i < kept; i++) {
			struct rxb_pkt_view v = emu_view(pkts[i]);
			bool same = memcmp(before[i], v.payload, v.payload_len) == 0;

			CHECK(emu_pkt_ok(pkts[i]));
			CHECK_EQ(rxb_stamp_read(&v), 12345); /* stamp kept in every mode */
			CHECK(mode == RXB_NF_PAYLOAD_WRITE ? !same : same);
			if (mode == RXB_NF_PAYLOAD_WRITE)
				CHECK_EQ(v.payload[v.payload_len - 1], v.payload[RXB_STAMP_LEN]);
		}
		/* Reads happened: an empty buffer chain would sum to a
		 * constant, payload reads add the marker bytes. */
		CHECK(rxb_nf_synthetic_sink(nf) != 0);
		rte_pktmbuf_free_bulk(pkts, 64);
		rxb_nf_destroy(nf);
	}
}

/* Dependent reads follow one cycle through all lines: with one read per
 * packet, N packets visit N distinct lines, and N reads come back to the
 * start. */
static void test_synthetic_chain(void)
{
	enum { LINES = 1024 };
	struct rxb_gen_cfg g;
	struct rxb_nf_cfg cfg;
	struct rte_mbuf *pkts[32];
	struct rxb_nf *nf;
	uint64_t sink = 0;

	gen_defaults(&g, IPPROTO_UDP, 64);
	rxb_nf_cfg_defaults(&cfg);
	cfg.synth.buf_bytes = LINES * 64;
	cfg.synth.dependent = true;
	cfg.synth.reads = 1;
	nf = emu_nf("synthetic", &cfg);
	if (nf == NULL || emu_gen(mp, &g, pkts, 32, NULL) != 0) {
		CHECK(0);
		rxb_nf_destroy(nf);
		return;
	}
	/* The same 32 packets again and again: they only carry the reads. */
	for (unsigned b = 0; b < LINES / 32; b++)
		CHECK_EQ(rxb_nf_process(nf, pkts, 32), 32);
	/* Each visited line reported once: the sum of all line indices. */
	sink = rxb_nf_synthetic_sink(nf);
	CHECK_EQ(sink, (uint64_t)LINES * (LINES - 1) / 2);
	rxb_nf_destroy(nf);

	cfg.synth.reads = LINES;
	nf = emu_nf("synthetic", &cfg);
	CHECK(nf != NULL);
	if (nf != NULL) {
		CHECK_EQ(rxb_nf_process(nf, pkts, 1), 1);
		CHECK_EQ(rxb_nf_synthetic_sink(nf), 0); /* back at line 0 */
		rxb_nf_destroy(nf);
	}
	rte_pktmbuf_free_bulk(pkts, 32);
}

/* The largest burst process() accepts, and a drop in its last chunk: one
 * packet repeated (the synthetic NF only reads it). */
static void test_largest_burst(void)
{
	static struct rte_mbuf *pkts[UINT16_MAX];
	struct rxb_gen_cfg g;
	struct rxb_nf_cfg cfg;
	struct rte_mbuf *m[2];
	struct rxb_nf *nf;

	gen_defaults(&g, IPPROTO_UDP, 64);
	rxb_nf_cfg_defaults(&cfg);
	cfg.synth.reads = 0;
	nf = emu_nf("synthetic", &cfg);
	if (nf == NULL || emu_gen(mp, &g, m, 2, NULL) != 0) {
		CHECK(0);
		rxb_nf_destroy(nf);
		return;
	}
	rte_pktmbuf_mtod(m[1], struct rte_ether_hdr *)->ether_type = 0;
	for (unsigned i = 0; i < UINT16_MAX; i++)
		pkts[i] = m[0];
	pkts[UINT16_MAX - 2] = m[1];
	CHECK_EQ(rxb_nf_process(nf, pkts, UINT16_MAX), UINT16_MAX - 1);
	CHECK(pkts[UINT16_MAX - 1] == m[1]);
	CHECK_EQ(emu_stat(&nf->stats.packets), UINT16_MAX);
	CHECK_EQ(emu_stat(&nf->stats.drop[RXB_NF_DROP_PARSE]), 1);
	rte_pktmbuf_free_bulk(m, 2);
	rxb_nf_destroy(nf);
}

static uint64_t counter_value(struct rte_mbuf *m)
{
	struct rxb_pkt_view v = emu_view(m);
	uint64_t be;

	memcpy(&be, v.payload + RXB_COUNTER_OFF, 8);
	return rte_be_to_cpu_64(be);
}

static void test_counter(void)
{
	enum { N = 512, C = 16 };
	struct rxb_gen_cfg g;
	struct rxb_nf_cfg cfg;
	struct rte_mbuf *pkts[N];
	uint64_t last[C] = { 0 };
	_Atomic uint64_t *shared = rte_zmalloc("test_counters", C * sizeof(*shared), 64);
	struct rxb_nf *a, *b;

	gen_defaults(&g, IPPROTO_UDP, 64);
	g.n_flows = 200;
	rxb_nf_cfg_defaults(&cfg);
	cfg.counter.n_counters = C;
	cfg.counter.shared = shared;
	a = emu_nf("counter", &cfg);
	cfg.instance = 1;
	cfg.l4_csum = RXB_NF_CSUM_FULL;
	b = emu_nf("counter", &cfg);
	if (shared == NULL || a == NULL || b == NULL || emu_gen(mp, &g, pkts, N, NULL) != 0) {
		CHECK(0);
		goto out;
	}
	/* Alternate bursts between two instances on one array: each
	 * counter's values come out 1, 2, 3, ... in processing order. */
	for (unsigned base = 0; base < N; base += 32) {
		struct rxb_nf *nf = (base / 32) % 2 ? b : a;

		CHECK_EQ(rxb_nf_process(nf, pkts + base, 32), 32);
		for (unsigned i = base; i < base + 32; i++) {
			struct rxb_pkt_view v = emu_view(pkts[i]);
			unsigned c = rxb_nf_counter_slot(&v, C);

			CHECK_EQ(counter_value(pkts[i]), last[c] + 1);
			last[c] = counter_value(pkts[i]);
			CHECK(emu_pkt_ok(pkts[i]));
		}
	}
	for (unsigned c = 0; c < C; c++)
		CHECK_EQ(atomic_load_explicit(&shared[c], memory_order_relaxed), last[c]);
	rte_pktmbuf_free_bulk(pkts, N);
	/* TCP at 62 bytes has an 8-byte payload: no room for the value. */
	gen_defaults(&g, IPPROTO_TCP, 62);
	if (emu_gen(mp, &g, pkts, 4, NULL) == 0) {
		CHECK_EQ(rxb_nf_process(a, pkts, 4), 0);
		CHECK_EQ(emu_stat(&a->stats.drop[RXB_NF_DROP_REQUEST]), 4);
		rte_pktmbuf_free_bulk(pkts, 4);
	}
out:
	rxb_nf_destroy(a);
	rxb_nf_destroy(b);
	rte_free(shared);
}

/* Flows of the generator ranges all leave from port 53: they still spread
 * over the counters (picked by the source port, they all took one). */
static void test_counter_spreads_generator_flows(void)
{
	enum { N = 256, C = 64 };
	struct rxb_gen_cfg g;
	struct rte_mbuf *pkts[N];
	uint64_t used = 0;

	gen_defaults(&g, IPPROTO_UDP, 64);
	g.gen_src = 64;
	g.gen_dst = 4;
	if (emu_gen(mp, &g, pkts, N, NULL) != 0) {
		CHECK(0);
		return;
	}
	for (unsigned i = 0; i < N; i++) {
		struct rxb_pkt_view v = emu_view(pkts[i]);

		CHECK_EQ(emu_tuple_of(pkts[i]).src_port, RXB_FLOW_GEN_PORT);
		used |= 1ull << rxb_nf_counter_slot(&v, C);
	}
	CHECK(__builtin_popcountll(used) > C / 2);
	rte_pktmbuf_free_bulk(pkts, N);
}

/* Two threads, two instances, one shared array: every increment lands. */
struct counter_thread {
	struct rxb_nf *nf;
	struct rte_mbuf **pkts;
	unsigned rounds;
};

static void *counter_worker(void *arg)
{
	struct counter_thread *t = arg;

	for (unsigned r = 0; r < t->rounds; r++)
		rxb_nf_process(t->nf, t->pkts, 32);
	return NULL;
}

static void test_counter_threads(void)
{
	enum { ROUNDS = 20000 };
	struct rxb_gen_cfg g;
	struct rxb_nf_cfg cfg;
	struct rte_mbuf *pkts[64];
	_Atomic uint64_t *shared = rte_zmalloc("test_counters2", 2 * sizeof(*shared), 64);
	struct counter_thread t[2];
	pthread_t th[2];
	uint64_t total;

	gen_defaults(&g, IPPROTO_UDP, 64);
	rxb_nf_cfg_defaults(&cfg);
	cfg.counter.n_counters = 2;
	cfg.counter.shared = shared;
	if (shared == NULL || emu_gen(mp, &g, pkts, 64, NULL) != 0) {
		CHECK(0);
		rte_free(shared);
		return;
	}
	for (int i = 0; i < 2; i++) {
		cfg.instance = (uint32_t)i;
		t[i].nf = emu_nf("counter", &cfg);
		t[i].pkts = pkts + 32 * i;
		t[i].rounds = ROUNDS;
		CHECK(t[i].nf != NULL);
	}
	if (t[0].nf && t[1].nf) {
		for (int i = 0; i < 2; i++)
			pthread_create(&th[i], NULL, counter_worker, &t[i]);
		for (int i = 0; i < 2; i++)
			pthread_join(th[i], NULL);
	}
	/* relaxed: pthread_join() ordered the workers' increments before us */
	total = atomic_load_explicit(&shared[0], memory_order_relaxed) +
		atomic_load_explicit(&shared[1], memory_order_relaxed);
	CHECK_EQ(total, 2ull * 32 * ROUNDS);
	for (int i = 0; i < 2; i++)
		rxb_nf_destroy(t[i].nf);
	rte_pktmbuf_free_bulk(pkts, 64);
	rte_free(shared);
}

int main(void)
{
	mp = emu_test_init("rxb_test_emu_nf");
	RUN(test_registry);
	RUN(test_config_errors);
	RUN(test_checksums);
	RUN(test_corrupted_input);
	RUN(test_l3fwd);
	RUN(test_l3fwd_default_routes);
	RUN(test_default_routes_cover_the_generator_ranges);
	RUN(test_synthetic);
	RUN(test_synthetic_chain);
	RUN(test_largest_burst);
	RUN(test_counter);
	RUN(test_counter_spreads_generator_flows);
	RUN(test_counter_threads);
	CHECK_EQ(rte_mempool_in_use_count(mp), 0);
	emu_test_fini();
	return check_summary();
}
