/* SPDX-License-Identifier: BSD-3-Clause
 * The KV store against a model: every GET returns the value of the last
 * PUT of its key (or NOT_FOUND), responses go back where requests came
 * from with valid checksums, EREW partitions are enforced, malformed
 * requests are dropped, a full partition says so. */
#include <errno.h>

#include "check.h"
#include "emu_test.h"

static struct rte_mempool *mp;

struct model {
	uint64_t last_put[64]; /* req_id + 1 of the last PUT, 0 = never */
};

static struct rxb_kv_hdr *kv_hdr(struct rte_mbuf *m, struct rxb_pkt_view *v)
{
	*v = emu_view(m);
	if (v->l4 == NULL || v->payload_len < RXB_KV_MSG_LEN(0))
		return NULL;
	return (struct rxb_kv_hdr *)(v->payload + RXB_KV_OFF);
}

/* Check one response against the model and update the model. */
static void check_response(struct rte_mbuf *m, const struct rxb_gen_pkt_info *pi,
			   const struct emu_tuple *req, struct model *md)
{
	uint8_t key[RXB_KV_KEY_LEN], want[RXB_KV_VAL_MAX];
	struct rxb_pkt_view v;
	struct rxb_kv_hdr *h = kv_hdr(m, &v);
	struct emu_tuple t = emu_tuple_of(m);
	uint16_t val_len;

	CHECK(h != NULL);
	if (h == NULL)
		return;
	CHECK(emu_pkt_ok(m));
	/* Back to the client. */
	CHECK_EQ(t.src_ip, req->dst_ip);
	CHECK_EQ(t.dst_ip, req->src_ip);
	CHECK_EQ(t.src_port, req->dst_port);
	CHECK_EQ(t.dst_port, req->src_port);
	CHECK_EQ(h->op, pi->kv_op | RXB_KV_RESP);
	CHECK_EQ(rte_be_to_cpu_64(h->req_id), pi->kv_req_id);
	CHECK_EQ(rxb_stamp_read(&v), 12345);
	rxb_gen_kv_key(pi->kv_key, key);
	CHECK(memcmp(h + 1, key, RXB_KV_KEY_LEN) == 0);
	val_len = rte_be_to_cpu_16(h->val_len);
	if (pi->kv_op == RXB_KV_PUT) {
		CHECK_EQ(h->status, RXB_KV_OK);
		CHECK_EQ(val_len, 0);
		CHECK_EQ(m->pkt_len, 14 + 20 + 8 + RXB_KV_MSG_LEN(0));
		md->last_put[pi->kv_key] = pi->kv_req_id + 1;
		return;
	}
	if (md->last_put[pi->kv_key] == 0) {
		CHECK_EQ(h->status, RXB_KV_NOT_FOUND);
		CHECK_EQ(val_len, 0);
		return;
	}
	CHECK_EQ(h->status, RXB_KV_OK);
	CHECK_EQ(val_len, RXB_KV_VAL_MAX);
	CHECK_EQ(m->pkt_len, 14 + 20 + 8 + RXB_KV_MSG_LEN(RXB_KV_VAL_MAX));
	rxb_gen_kv_value(pi->kv_key, md->last_put[pi->kv_key] - 1, want, RXB_KV_VAL_MAX);
	CHECK(memcmp((uint8_t *)(h + 1) + RXB_KV_KEY_LEN, want, RXB_KV_VAL_MAX) == 0);
}

static void test_kvs_get_returns_last_put(void)
{
	enum { N = 2048, B = 32, KEYS = 64 };
	static struct rxb_gen_pkt_info info[N];
	static struct emu_tuple req[N];
	struct model md = { { 0 } };
	struct rxb_gen_cfg g;
	struct rxb_nf_cfg cfg;
	struct rxb_gen *gen;
	struct rxb_err err = { 0 };
	struct rxb_nf *kv;
	unsigned gets_hit = 0, gets_miss = 0;

	rxb_gen_cfg_defaults(&g);
	g.kv.enabled = true;
	g.kv.n_keys = KEYS;
	g.kv.get_ratio = 0.5;
	g.kv.dist = RXB_GEN_ZIPF;
	rxb_nf_cfg_defaults(&cfg);
	kv = emu_nf("kvs", &cfg);
	CHECK_EQ(rxb_gen_create(&g, &gen, &err), 0);
	if (kv == NULL || gen == NULL) {
		CHECK(0);
		rxb_nf_destroy(kv);
		rxb_gen_destroy(gen);
		return;
	}
	for (unsigned base = 0; base < N; base += B) {
		struct rte_mbuf *pkts[B];

		if (rte_pktmbuf_alloc_bulk(mp, pkts, B) != 0) {
			CHECK(0);
			break;
		}
		CHECK_EQ(rxb_gen_fill(gen, pkts, B, 12345, info + base), B);
		for (unsigned i = 0; i < B; i++)
			req[base + i] = emu_tuple_of(pkts[i]);
		CHECK_EQ(rxb_nf_process(kv, pkts, B), B);
		/* The store handles requests in order, so the model does. */
		for (unsigned i = 0; i < B; i++) {
			const struct rxb_gen_pkt_info *pi = &info[base + i];

			if (pi->kv_op == RXB_KV_GET)
				md.last_put[pi->kv_key] ? gets_hit++ : gets_miss++;
			check_response(pkts[i], pi, &req[base + i], &md);
		}
		rte_pktmbuf_free_bulk(pkts, B);
	}
	/* Both outcomes were exercised, including a GET and a PUT of one key
	 * within one burst (with 64 Zipf keys, certain). */
	CHECK(gets_hit > 100);
	CHECK(gets_miss > 0);
	CHECK(emu_stat(&kv->stats.inserts) <= KEYS);
	CHECK_EQ(emu_stat(&kv->stats.drops), 0);
	rxb_gen_destroy(gen);
	rxb_nf_destroy(kv);
}

/* Four partitions served by instances 0 and 1: each keeps its own keys. */
static void test_kvs_partitions(void)
{
	enum { N = 256 };
	struct rxb_gen_pkt_info info[N];
	struct rxb_gen_cfg g;
	struct rxb_nf_cfg cfg;
	struct rte_mbuf *pkts[N], *orig[N];

	rxb_gen_cfg_defaults(&g);
	g.kv.enabled = true;
	g.kv.n_keys = 1000;
	g.kv.n_partitions = 4;
	g.kv.val_len = 100;
	rxb_nf_cfg_defaults(&cfg);
	cfg.kvs.n_partitions = 4;
	for (uint32_t p = 0; p < 2; p++) {
		unsigned mine = 0, k = 0;
		struct rxb_nf *kv;
		uint16_t kept;

		cfg.instance = p;
		kv = emu_nf("kvs", &cfg);
		if (kv == NULL || emu_gen(mp, &g, pkts, N, info) != 0) {
			CHECK(0);
			rxb_nf_destroy(kv);
			continue;
		}
		memcpy(orig, pkts, sizeof(pkts));
		for (unsigned i = 0; i < N; i++) {
			uint8_t key[RXB_KV_KEY_LEN];

			rxb_gen_kv_key(info[i].kv_key, key);
			CHECK_EQ(info[i].kv_partition, rxb_kv_partition(key, 4));
			CHECK_EQ(emu_tuple_of(pkts[i]).dst_port,
				 RXB_KV_UDP_PORT + info[i].kv_partition);
			mine += info[i].kv_partition == p;
		}
		kept = rxb_nf_process(kv, pkts, N);
		CHECK_EQ(kept, mine);
		CHECK(mine > N / 8 && mine < N / 2);
		CHECK_EQ(emu_stat(&kv->stats.drop[RXB_NF_DROP_PARTITION]), N - mine);
		for (unsigned i = 0; i < N; i++)
			if (info[i].kv_partition == p)
				CHECK(pkts[k++] == orig[i]);
		rte_pktmbuf_free_bulk(pkts, N);
		rxb_nf_destroy(kv);
	}
}

static void test_kvs_malformed(void)
{
	struct rxb_gen_pkt_info info[6];
	struct rxb_gen_cfg g;
	struct rxb_nf_cfg cfg;
	struct rte_mbuf *pkts[6];
	struct rxb_pkt_view v;
	struct rxb_nf *kv;

	rxb_gen_cfg_defaults(&g);
	g.kv.enabled = true;
	g.kv.get_ratio = 0; /* all PUTs */
	rxb_nf_cfg_defaults(&cfg);
	kv = emu_nf("kvs", &cfg);
	if (kv == NULL || emu_gen(mp, &g, pkts, 6, info) != 0) {
		CHECK(0);
		rxb_nf_destroy(kv);
		return;
	}
	kv_hdr(pkts[0], &v)->magic = 0;
	kv_hdr(pkts[1], &v)->op = 7;
	kv_hdr(pkts[2], &v)->key_len = rte_cpu_to_be_16(16);
	kv_hdr(pkts[3], &v)->val_len = rte_cpu_to_be_16(RXB_KV_VAL_MAX + 1);
	/* A PUT whose value is cut short. */
	v = emu_view(pkts[4]);
	rxb_pkt_set_l3_len(pkts[4], &v, (uint16_t)(rte_be_to_cpu_16(v.ip->total_length) - 10));
	for (unsigned i = 0; i < 5; i++) {
		v = emu_view(pkts[i]);
		rxb_pkt_ip_csum(&v);
		rxb_pkt_l4_csum_full(&v, true);
	}
	CHECK_EQ(rxb_nf_process(kv, pkts, 6), 1);
	CHECK_EQ(emu_stat(&kv->stats.drop[RXB_NF_DROP_REQUEST]), 5);
	CHECK_EQ(kv_hdr(pkts[0], &v)->op, RXB_KV_PUT | RXB_KV_RESP);
	rte_pktmbuf_free_bulk(pkts, 6);
	rxb_nf_destroy(kv);
}

/* A partition holds capacity keys; a PUT of one more new key says FULL. */
static void test_kvs_full(void)
{
	enum { N = 64, CAP = 16 };
	struct rxb_gen_pkt_info info[N];
	struct rxb_gen_cfg g;
	struct rxb_nf_cfg cfg;
	struct rte_mbuf *pkts[N];
	bool seen[1000] = { false };
	unsigned distinct = 0, full = 0;
	struct rxb_nf *kv;

	rxb_gen_cfg_defaults(&g);
	g.kv.enabled = true;
	g.kv.get_ratio = 0;
	g.kv.n_keys = 1000;
	g.kv.val_len = 8;
	rxb_nf_cfg_defaults(&cfg);
	cfg.kvs.capacity = CAP;
	kv = emu_nf("kvs", &cfg);
	if (kv == NULL || emu_gen(mp, &g, pkts, N, info) != 0) {
		CHECK(0);
		rxb_nf_destroy(kv);
		return;
	}
	CHECK_EQ(rxb_nf_process(kv, pkts, N), N);
	for (unsigned i = 0; i < N; i++) {
		struct rxb_pkt_view v;
		struct rxb_kv_hdr *h = kv_hdr(pkts[i], &v);
		bool is_new = !seen[info[i].kv_key];

		seen[info[i].kv_key] = true;
		distinct += is_new;
		full += h->status == RXB_KV_FULL;
		/* Only new keys beyond capacity are refused. */
		if (h->status == RXB_KV_FULL)
			CHECK(distinct > CAP);
		CHECK(emu_pkt_ok(pkts[i]));
	}
	CHECK(distinct > CAP);
	CHECK_EQ(emu_stat(&kv->stats.inserts), CAP);
	CHECK(full >= distinct - CAP);
	rte_pktmbuf_free_bulk(pkts, N);
	rxb_nf_destroy(kv);
}

int main(void)
{
	mp = emu_test_init("rxb_test_emu_kvs");
	RUN(test_kvs_get_returns_last_put);
	RUN(test_kvs_partitions);
	RUN(test_kvs_malformed);
	RUN(test_kvs_full);
	CHECK_EQ(rte_mempool_in_use_count(mp), 0);
	emu_test_fini();
	return check_summary();
}
