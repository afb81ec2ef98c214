/* SPDX-License-Identifier: BSD-3-Clause
 * What the emulator tests share: EAL start-up, a mempool, packets from the
 * generator, and checks on packet bytes. Include after check.h. */
#ifndef RXB_EMU_TEST_H
#define RXB_EMU_TEST_H

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "eal_runtime_dir.h"

#include "gen.h"
#include "nf/nf.h"
#include "nf/pkt.h"

#define EMU_TEST_POOL 4095u

/* Start the EAL the way every emulator test does: no hugepages, no PCI,
 * 512 MiB, and a file prefix of its own so tests run in parallel, its
 * runtime directory removed at exit. Exits on
 * failure: nothing else can run without it. */
static inline struct rte_mempool *emu_test_init(const char *prefix)
{
	char file_prefix[64];
	char *argv[] = { "emu_test", "--no-huge",           "-m",        "512",
			 "--no-pci", "--log-level=*:error", file_prefix, NULL };
	struct rte_mempool *mp;

	/* pid in the prefix: two builds' ctest runs (say, the plain and the
	 * sanitizer build in one `make test`) must not share one */
	snprintf(file_prefix, sizeof(file_prefix), "--file-prefix=%s_%d", prefix, (int)getpid());
	if (rte_eal_init(7, argv) < 0) {
		fprintf(stderr, "%s: rte_eal_init failed\n", prefix);
		exit(2);
	}
	rxb_test_eal_dir_remove_at_exit();
	mp = rte_pktmbuf_pool_create("emu_test_pool", EMU_TEST_POOL, 0, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (mp == NULL) {
		fprintf(stderr, "%s: mempool creation failed\n", prefix);
		exit(2);
	}
	return mp;
}

static inline void emu_test_fini(void)
{
	rte_eal_cleanup();
}

/* n packets of the pattern cfg describes (n <= EMU_TEST_POOL). */
static inline int emu_gen(struct rte_mempool *mp, const struct rxb_gen_cfg *cfg,
			  struct rte_mbuf **pkts, unsigned n, struct rxb_gen_pkt_info *info)
{
	struct rxb_err err = { 0 };
	struct rxb_gen *g;
	unsigned filled;

	if (rxb_gen_create(cfg, &g, &err) != 0) {
		fprintf(stderr, "emu_gen: %s\n", err.msg);
		return -1;
	}
	if (rte_pktmbuf_alloc_bulk(mp, pkts, n) != 0) {
		rxb_gen_destroy(g);
		return -1;
	}
	filled = rxb_gen_fill(g, pkts, n, 12345, info);
	rxb_gen_destroy(g);
	if (filled != n) {
		rte_pktmbuf_free_bulk(pkts, n);
		return -1;
	}
	return 0;
}

/* Parses as IPv4 with UDP/TCP and every checksum is right. */
static inline bool emu_pkt_ok(struct rte_mbuf *m)
{
	struct rxb_pkt_view v;

	return rxb_pkt_parse(m, &v) == 0 && v.l4 != NULL && rxb_pkt_csum_ok(&v);
}

static inline struct rxb_pkt_view emu_view(struct rte_mbuf *m)
{
	struct rxb_pkt_view v;

	memset(&v, 0, sizeof(v));
	if (rxb_pkt_parse(m, &v) != 0)
		memset(&v, 0, sizeof(v));
	return v;
}

/* A 5-tuple in host order, read from a packet. */
struct emu_tuple {
	uint32_t src_ip, dst_ip;
	uint16_t src_port, dst_port;
};

static inline struct emu_tuple emu_tuple_of(struct rte_mbuf *m)
{
	struct rxb_pkt_view v = emu_view(m);
	struct emu_tuple t = { 0 };

	if (v.l4 == NULL)
		return t;
	t.src_ip = rte_be_to_cpu_32(v.ip->src_addr);
	t.dst_ip = rte_be_to_cpu_32(v.ip->dst_addr);
	t.src_port = rte_be_to_cpu_16(((struct rte_udp_hdr *)v.l4)->src_port);
	t.dst_port = rte_be_to_cpu_16(((struct rte_udp_hdr *)v.l4)->dst_port);
	return t;
}

/* Rewrite a packet's addresses and ports (host order) and recompute both
 * checksums in full: how a test makes replies and special destinations. */
static inline void emu_set_tuple(struct rte_mbuf *m, const struct emu_tuple *t)
{
	struct rxb_pkt_view v = emu_view(m);

	v.ip->src_addr = rte_cpu_to_be_32(t->src_ip);
	v.ip->dst_addr = rte_cpu_to_be_32(t->dst_ip);
	if (v.l4 != NULL) {
		((struct rte_udp_hdr *)v.l4)->src_port = rte_cpu_to_be_16(t->src_port);
		((struct rte_udp_hdr *)v.l4)->dst_port = rte_cpu_to_be_16(t->dst_port);
	}
	rxb_pkt_ip_csum(&v);
	rxb_pkt_l4_csum_full(&v, true);
}

static inline bool emu_tuple_eq(const struct emu_tuple *a, const struct emu_tuple *b)
{
	return a->src_ip == b->src_ip && a->dst_ip == b->dst_ip && a->src_port == b->src_port &&
	       a->dst_port == b->dst_port;
}

static inline struct rxb_nf *emu_nf(const char *name, const struct rxb_nf_cfg *cfg)
{
	struct rxb_err err = { 0 };
	struct rxb_nf *nf = NULL;

	if (rxb_nf_create(name, cfg, SOCKET_ID_ANY, &nf, &err) != 0)
		fprintf(stderr, "emu_nf(%s): %s\n", name, err.msg);
	return nf;
}

static inline uint64_t emu_stat(const rxb_counter_t *c)
{
	return rxb_counter_read(c);
}

#endif /* RXB_EMU_TEST_H */
