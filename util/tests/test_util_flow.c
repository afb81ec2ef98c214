/* SPDX-License-Identifier: BSD-3-Clause
 * The flows of both engines (flow.h): a pure function of (seed, port, id);
 * drawn tuples inside their ranges, distinct, spread by RSS like random
 * traffic; the generator profile's lock-step ranges; errors naming the key. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "flow.h"
#include "rxb/rss.h"

#define NF 65536u

static int same(const struct rxb_flow *a, const struct rxb_flow *b)
{
	return a->src_ip == b->src_ip && a->dst_ip == b->dst_ip && a->src_port == b->src_port &&
	       a->dst_port == b->dst_port && a->proto == b->proto;
}

static void test_pure(void)
{
	struct rxb_flows m, m2, other_port, other_seed;
	struct rxb_flow a, b;
	unsigned diff_port = 0, diff_seed = 0;

	rxb_flows_init(&m, 42, 0, 17);
	rxb_flows_init(&m2, 42, 0, 17);
	rxb_flows_init(&other_port, 42, 1, 17);
	rxb_flows_init(&other_seed, 43, 0, 17);
	for (uint32_t id = 0; id < 1000; id++) {
		rxb_flow_tuple(&m, id, &a);
		rxb_flow_tuple(&m2, id, &b);
		CHECK(same(&a, &b));
		rxb_flow_tuple(&m, id, &b); /* no state: again the same */
		CHECK(same(&a, &b));
		rxb_flow_tuple(&other_port, id, &b);
		diff_port += !same(&a, &b);
		rxb_flow_tuple(&other_seed, id, &b);
		diff_seed += !same(&a, &b);
	}
	CHECK_EQ(diff_port, 1000);
	CHECK_EQ(diff_seed, 1000);
}

static int cmp_flow(const void *x, const void *y)
{
	return memcmp(x, y, sizeof(struct rxb_flow));
}

/* Drawn tuples: in 10.0.0.0/8 -> 198.19.0.0/16, ports >= 1024, no two
 * flows alike. */
static void test_drawn_ranges(void)
{
	static struct rxb_flow f[NF];
	struct rxb_flows m;
	unsigned dup = 0;

	rxb_flows_init(&m, 7, 0, 6);
	for (uint32_t id = 0; id < NF; id++) {
		memset(&f[id], 0, sizeof(f[id]));
		rxb_flow_tuple(&m, id, &f[id]);
		CHECK_EQ(f[id].src_ip >> 24, 10);
		CHECK_EQ(f[id].dst_ip >> 16, (198u << 8) | 19u);
		CHECK(f[id].src_port >= RXB_FLOW_PORT_MIN && f[id].dst_port >= RXB_FLOW_PORT_MIN);
		CHECK_EQ(f[id].proto, 6);
	}
	qsort(f, NF, sizeof(f[0]), cmp_flow);
	for (uint32_t i = 1; i < NF; i++)
		dup += cmp_flow(&f[i - 1], &f[i]) == 0;
	CHECK_EQ(dup, 0);
}

/* RSS over drawn flows: the table hash equals the reference Toeplitz on
 * every tuple, and 8 queues (hash mod 8) get 1/8 each within 5 %. */
static void test_rss_spread(void)
{
	struct rxb_rss rss;
	struct rxb_flows m;
	unsigned q[8] = { 0 }, bad = 0;

	CHECK_EQ(rxb_rss_init(&rss, rxb_rss_default_key, RXB_RSS_KEY_LEN, NULL), 0);
	rxb_flows_init(&m, 1, 0, 17);
	for (uint32_t id = 0; id < NF; id++) {
		struct rxb_flow f;
		uint8_t in[12];
		uint32_t h;

		rxb_flow_tuple(&m, id, &f);
		in[0] = f.src_ip >> 24, in[1] = f.src_ip >> 16, in[2] = f.src_ip >> 8;
		in[3] = (uint8_t)f.src_ip;
		in[4] = f.dst_ip >> 24, in[5] = f.dst_ip >> 16, in[6] = f.dst_ip >> 8;
		in[7] = (uint8_t)f.dst_ip;
		in[8] = f.src_port >> 8, in[9] = (uint8_t)f.src_port;
		in[10] = f.dst_port >> 8, in[11] = (uint8_t)f.dst_port;
		h = rxb_rss_ipv4_l4(&rss, f.src_ip, f.dst_ip, f.src_port, f.dst_port);
		bad += h != rxb_toeplitz_ref(rxb_rss_default_key, RXB_RSS_KEY_LEN, in, sizeof(in));
		q[h % 8]++;
	}
	CHECK_EQ(bad, 0);
	for (int i = 0; i < 8; i++)
		CHECK(q[i] > NF / 8 * 95 / 100 && q[i] < NF / 8 * 105 / 100);
}

/* The generator profile: src i mod gen_src, dst i mod gen_dst in lock
 * step, lcm flows, port 53; the run's start fixed by the seed. */
static void test_generator(void)
{
	struct rxb_flows m, m2;
	struct rxb_err err;

	rxb_flows_init(&m, 5, 0, 17);
	CHECK_EQ(rxb_flows_ranges(&m, 6, 4, &err), 0);
	CHECK_EQ(m.gen_flows, 12);
	CHECK(m.gen_start < 12);
	for (uint64_t i = 0, next = rxb_flows_gen_id(&m, 0); i < 48; i++) {
		uint32_t id = rxb_flows_gen_id(&m, i);
		struct rxb_flow f;

		rxb_flow_tuple(&m, id, &f);
		CHECK_EQ(id, (m.gen_start + i) % 12);
		CHECK_EQ(id, next); /* the cursor walks the same cycle */
		next = rxb_flows_gen_next(&m, id);
		CHECK_EQ(f.src_ip, RXB_FLOW_GEN_SRC_BASE + (m.gen_start + i) % 6);
		CHECK_EQ(f.dst_ip, RXB_FLOW_GEN_DST_BASE + (m.gen_start + i) % 4);
		CHECK(f.src_port == RXB_FLOW_GEN_PORT && f.dst_port == RXB_FLOW_GEN_PORT);
	}
	rxb_flows_init(&m2, 5, 0, 17);
	CHECK_EQ(rxb_flows_ranges(&m2, 4128254, 4, &err), 0); /* the study's ranges */
	CHECK_EQ(m2.gen_flows, 8256508);
}

static void test_errors(void)
{
	struct rxb_flows m;
	struct rxb_err err;

	rxb_flows_init(&m, 5, 0, 17);
	CHECK_EQ(rxb_flows_ranges(&m, 0, 4, &err), -EINVAL);
	CHECK(strstr(err.msg, "traffic.gen_src_addrs = 0") != NULL);
	CHECK_EQ(rxb_flows_ranges(&m, 4, 0, &err), -EINVAL);
	CHECK(strstr(err.msg, "traffic.gen_dst_addrs = 0") != NULL);
	CHECK_EQ(rxb_flows_ranges(&m, 4294967291u, 4294967279u, &err), -EINVAL);
	CHECK(strstr(err.msg, "at most 2^32 - 1") != NULL);
	CHECK_EQ(m.gen_flows, 0); /* a refused range leaves drawn flows */
}

int main(void)
{
	RUN(test_pure);
	RUN(test_drawn_ranges);
	RUN(test_rss_spread);
	RUN(test_generator);
	RUN(test_errors);
	return check_summary();
}
