/* SPDX-License-Identifier: BSD-3-Clause
 * What the tests of whole emulator runs share: an EAL with enough lcores
 * floating over the CPUs this process may use, a test configuration, the
 * conservation checks, a pcap made by the generator, and the output ring
 * whose packets a test inspects. Include after check.h and emu_test.h;
 * define _GNU_SOURCE before any include (sched_getaffinity). */
#ifndef RXB_EMU_RUN_TEST_H
#define RXB_EMU_RUN_TEST_H

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ring.h>

#include "emu.h"
#include "rundir.h"
#include "pcapio.h"

#define EMU_RT_LCORES 10u /* main + 5 workers + emulator + generator, or 4 + 1 + 4 */
#define EMU_RT_OUT    65536u

static struct rte_ring *emu_rt_out;
static char emu_rt_runtime_dir[256];

/* lcores 0..EMU_RT_LCORES-1 all allowed on every CPU we have: the kernel
 * balances the busy-polling threads, which is what a correctness run on a
 * small machine needs. */
static inline void emu_rt_init(const char *prefix)
{
	static char lcores[256], file_prefix[64];
	char *argv[] = { "emu_run_test",        "--no-huge", "-m",        "1024", "--no-pci",
			 "--log-level=*:error", lcores,      file_prefix, NULL };
	cpu_set_t set;
	size_t off;
	int first = 1;

	off = (size_t)snprintf(lcores, sizeof(lcores), "--lcores=(0-%u)@(", EMU_RT_LCORES - 1);
	if (sched_getaffinity(0, sizeof(set), &set) != 0) {
		CPU_ZERO(&set);
		CPU_SET(0, &set);
	}
	for (int c = 0; c < CPU_SETSIZE && off < sizeof(lcores) - 8; c++)
		if (CPU_ISSET(c, &set)) {
			off += (size_t)snprintf(lcores + off, sizeof(lcores) - off, "%s%d",
						first ? "" : ",", c);
			first = 0;
		}
	snprintf(lcores + off, sizeof(lcores) - off, ")");
	/* pid in the prefix: two builds' ctest runs must not share one */
	snprintf(file_prefix, sizeof(file_prefix), "--file-prefix=%s_%d", prefix, (int)getpid());
	if (rte_eal_init((int)(sizeof(argv) / sizeof(argv[0])) - 1, argv) < 0) {
		fprintf(stderr, "%s: rte_eal_init failed\n", prefix);
		exit(2);
	}
	snprintf(emu_rt_runtime_dir, sizeof(emu_rt_runtime_dir), "%s", rte_eal_get_runtime_dir());
	emu_rt_out = rte_ring_create("emu_rt_out", EMU_RT_OUT, SOCKET_ID_ANY, 0);
	if (emu_rt_out == NULL) {
		fprintf(stderr, "%s: no output ring\n", prefix);
		exit(2);
	}
}

static inline void emu_rt_fini(void)
{
	rte_eal_cleanup();
	rxb_remove_run_dir(emu_rt_runtime_dir);
}

/* A small, quick run: 2 workers, a few thousand packets from the generator
 * at a rate this machine sustains, output into emu_rt_out. */
static inline void emu_rt_cfg(struct rxb_emu_cfg *c, enum rxb_arch arch, uint64_t packets)
{
	rxb_emu_cfg_defaults(c);
	c->scn.arch.name = arch;
	c->scn.system.cores = 2;
	c->scn.emu.packets = packets;
	c->scn.run.duration_ms = 20000;
	c->scn.traffic.rate_gbps = 0.3;
	c->scn.traffic.flows = 256;
	c->scn.traffic.packet_bytes = 600;
	c->scn.emu.telemetry = false;
	c->scn.emu.drain_ms = 10000;
	c->out = RXB_EMU_OUT_RING;
	c->out_ring = emu_rt_out;
}

static inline uint64_t emu_rt_drops(const struct rxb_emu_result *r)
{
	uint64_t n = 0;

	for (int k = 0; k < RXB_DROP_CAUSES; k++)
		n += r->drops[k];
	return n;
}

static inline int emu_rt_run(struct rxb_emu_cfg *c, struct rxb_emu_result *r, const char *what)
{
	struct rxb_err err = { 0 };
	int rc = rxb_emu_run(c, r, &err);

	if (rc != 0) {
		fprintf(stderr, "%s: rxb_emu_run: %s\n", what, err.msg);
		return rc;
	}
	printf("  %-28s offered %6llu delivered %6llu dropped %6llu", what,
	       (unsigned long long)r->offered, (unsigned long long)r->delivered,
	       (unsigned long long)emu_rt_drops(r));
	for (int k = 0; k < RXB_DROP_CAUSES; k++)
		if (r->drops[k] != 0)
			printf(" %s %llu", rxb_drop_cause_name[k], (unsigned long long)r->drops[k]);
	printf(" | nf %llu swaps %llu wall %.2f s\n", (unsigned long long)r->nf_drops,
	       (unsigned long long)r->emu_swaps, r->wall_s);
	return 0;
}

/* Packets and buffers conserved, nothing left in flight, every delivery
 * used the packet's own buffer; `offered` 0 = don't check the count. */
#define EMU_RT_CHECK_CONSERVED(r, want_, what)                                             \
	do {                                                                               \
		if (!(r)->packets_ok)                                                      \
			fprintf(stderr, "%s: %s\n", what, (r)->packets_msg);               \
		if (!(r)->buffers_ok)                                                      \
			fprintf(stderr, "%s: %s\n", what, (r)->buffers_msg);               \
		CHECK((r)->packets_ok);                                                    \
		CHECK((r)->buffers_ok);                                                    \
		CHECK_EQ((r)->emu_mismatch, 0);                                            \
		CHECK_EQ((r)->in_flight, 0);                                               \
		if ((want_) != 0)                                                          \
			CHECK_EQ((r)->offered, (want_));                                   \
		CHECK_EQ((r)->offered, (r)->delivered + emu_rt_drops(r));                  \
		CHECK_EQ((r)->delivered, (r)->tx_packets + (r)->nf_drops + (r)->tx_drops); \
	} while (0)

/* Write n packets of the pattern g describes into a pcap file. */
static inline int emu_rt_make_pcap(const char *path, const struct rxb_gen_cfg *g, unsigned n)
{
	static struct rte_mempool *mp;
	struct rte_mbuf *pkts[32];
	struct rxb_err err = { 0 };
	struct rxb_gen *gen;
	FILE *f;

	if (mp == NULL)
		mp = rte_pktmbuf_pool_create("emu_rt_pcap", 255, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
					     SOCKET_ID_ANY);
	if (mp == NULL || rxb_gen_create(g, &gen, &err) != 0) {
		fprintf(stderr, "emu_rt_make_pcap: %s\n", err.msg);
		return -1;
	}
	f = rxb_pcap_open_write(path);
	for (unsigned done = 0; f != NULL && done < n;) {
		unsigned k = n - done < 32 ? n - done : 32;

		if (rte_pktmbuf_alloc_bulk(mp, pkts, k) != 0 ||
		    rxb_gen_fill(gen, pkts, k, 1, NULL) != k)
			break;
		for (unsigned i = 0; i < k; i++)
			rxb_pcap_write(f, 1000000000ull + done + i,
				       rte_pktmbuf_mtod(pkts[i], void *), pkts[i]->data_len);
		rte_pktmbuf_free_bulk(pkts, k);
		done += k;
	}
	rxb_gen_destroy(gen);
	if (f == NULL)
		return -1;
	fclose(f);
	return 0;
}

/* A trace of n generated packets (seed, flows, frame bytes) in a file of
 * this process named after tag; the path goes to path (cap bytes). */
static inline int emu_rt_trace(char *path, size_t cap, const char *tag, uint64_t seed,
			       uint32_t flows, uint32_t frame, unsigned n)
{
	struct rxb_gen_cfg g;

	snprintf(path, cap, "/tmp/rxb_test_%s_%d.pcap", tag, (int)getpid());
	rxb_gen_cfg_defaults(&g);
	g.seed = seed;
	g.n_flows = flows;
	g.frame_size = frame;
	return emu_rt_make_pcap(path, &g, n);
}

/* ---- what came out ---- */

struct emu_rt_map { /* a tiny open-addressing map of 64-bit keys */
	uint64_t key[8192], val[8192];
	uint8_t used[8192];
};

static inline int emu_rt_map_put(struct emu_rt_map *m, uint64_t k, uint64_t v)
{
	/* 1 new, 0 same value seen before, -1 another value */
	uint32_t h = (uint32_t)((k * 0x9e3779b97f4a7c15ull) >> 51);

	for (uint32_t i = 0; i < 8192; i++, h = (h + 1) & 8191) {
		if (!m->used[h]) {
			m->used[h] = 1;
			m->key[h] = k;
			m->val[h] = v;
			return 1;
		}
		if (m->key[h] == k)
			return m->val[h] == v ? 0 : -1;
	}
	return -1;
}

struct emu_rt_out_stats {
	uint64_t packets, bad_csum, bad_field, inconsistent;
	struct emu_rt_map fwd, rev;
	void (*check)(struct rte_mbuf *m, struct emu_rt_out_stats *s);
	uint64_t aux[1 << 12]; /* per key state for checks that need it */
};

/* out_done callback: inspect every output packet, then free it. */
static inline void emu_rt_out_done(struct rte_ring *r, void *arg)
{
	struct emu_rt_out_stats *s = arg;
	struct rte_mbuf *m;

	while (rte_ring_sc_dequeue(r, (void **)&m) == 0) {
		s->packets++;
		if (!emu_pkt_ok(m))
			s->bad_csum++;
		else if (s->check != NULL)
			s->check(m, s);
		rte_pktmbuf_free(m);
	}
}

/* LB: the destination is one of the 32 default backends, and every packet
 * of a flow (its source address and port) goes to the same one. */
static inline void emu_rt_check_lb(struct rte_mbuf *m, struct emu_rt_out_stats *s)
{
	struct emu_tuple t = emu_tuple_of(m);
	uint32_t first = RXB_IPV4(10, 10, 0, 1);

	if (t.dst_ip < first || t.dst_ip >= first + 32)
		s->bad_field++;
	if (emu_rt_map_put(&s->fwd, (uint64_t)t.src_ip << 16 | t.src_port, t.dst_ip) < 0)
		s->inconsistent++;
}

/* NAT (outbound): the source became a public address of the instances'
 * RFC 6598 slices, and flows and public pairs map one to one. */
static inline void emu_rt_check_nat(struct rte_mbuf *m, struct emu_rt_out_stats *s)
{
	struct emu_tuple t = emu_tuple_of(m);
	uint64_t remote = (uint64_t)t.dst_ip << 16 | t.dst_port;
	uint64_t pub = (uint64_t)t.src_ip << 16 | t.src_port;

	if ((t.src_ip >> 16) != (RXB_IPV4(100, 64, 0, 0) >> 16))
		s->bad_field++;
	if (emu_rt_map_put(&s->fwd, remote, pub) < 0 || emu_rt_map_put(&s->rev, pub, remote) < 0)
		s->inconsistent++;
}

#endif /* RXB_EMU_RUN_TEST_H */
