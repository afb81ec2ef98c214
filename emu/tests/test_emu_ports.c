/* SPDX-License-Identifier: BSD-3-Clause
 * Two NIC ports (system.nics = 2) on the generator source, as the
 * simulator's NICs: port p offers port p's flows at the per-port rate and
 * its RSS spreads them over its own block of cores only. Each core must
 * have been offered exactly the packets a fresh generator of its port,
 * drawn as often as that port offered, puts there through the port's RETA
 * (the NIC lcores steer by the port a packet came in on, with software or
 * the port's hash); the two ports offer alike. Designs whose physical
 * queue spans both ports (rxBisect, one association set) included. */
#define _GNU_SOURCE
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "emu_test.h"
#include "emu_run_test.h"
#include "pcapio.h"
#include "rxb/rss.h"

#define N_PKTS   4000u
#define WORKERS  4u
#define NICS     2u
#define PER_NIC  (WORKERS / NICS)
#define MAX_SKEW 64u /* packets one port may lead by when the count stops them */

/* Per core, the packets port's generator offers in its first n draws. */
static int expected(const struct rxb_emu_cfg *c, uint32_t port, uint64_t n, uint64_t *want)
{
	struct rxb_err err = { 0 };
	struct rxb_gen_pkt_info info[32];
	struct rxb_gen_cfg g;
	struct rxb_gen *gen;
	struct rxb_rss rss;
	struct rxb_reta reta;

	rxb_gen_cfg_defaults(&g);
	g.seed = c->scn.run.seed;
	g.port = port;
	g.n_flows = c->scn.traffic.flows;
	g.frame_size = (uint16_t)(c->scn.traffic.packet_bytes - 4);
	if (rxb_scn_generator_ranges(&c->scn)) {
		g.gen_src = c->scn.traffic.gen_src_addrs;
		g.gen_dst = c->scn.traffic.gen_dst_addrs;
	}
	if (rxb_rss_init(&rss, rxb_rss_default_key, RXB_RSS_KEY_LEN, &err) != 0 ||
	    rxb_reta_init(&reta, RXB_RETA_MLX5_SIZE, PER_NIC, &err) != 0 ||
	    rxb_gen_create(&g, &gen, &err) != 0) {
		fprintf(stderr, "expected: %s\n", err.msg);
		return -1;
	}
	for (uint64_t done = 0; done < n;) {
		unsigned k = (unsigned)RTE_MIN(n - done, (uint64_t)RTE_DIM(info));

		rxb_gen_draw(gen, info, k);
		for (unsigned i = 0; i < k; i++) {
			const struct rxb_gen_flow *f = rxb_gen_flow(gen, info[i].flow);
			uint32_t h = rxb_rss_ipv4_l4(&rss, f->src_ip, f->dst_ip, f->src_port,
						     f->dst_port);

			want[port * PER_NIC + rxb_reta_lookup(&reta, h)]++;
		}
		done += k;
	}
	rxb_gen_destroy(gen);
	rxb_reta_free(&reta);
	return 0;
}

/* One run over both ports, checked; its result in *out. */
static void run_two_ports(struct rxb_emu_cfg *c, const char *what, struct rxb_emu_result *out)
{
	struct rxb_emu_result r;
	uint64_t offered[NICS] = { 0 }, want[WORKERS] = { 0 };

	c->scn.system.cores = WORKERS;
	c->scn.system.nics = NICS;
	c->out = RXB_EMU_OUT_NULL;
	c->scn.emu.sink = true;
	if (emu_rt_run(c, &r, what) != 0) {
		CHECK(0);
		return;
	}
	EMU_RT_CHECK_CONSERVED(&r, N_PKTS, what);
	CHECK_EQ(r.emu_steer_fixups, 0);
	CHECK_EQ(r.n_rings, WORKERS);
	for (uint32_t d = 0; d < WORKERS && d < r.n_rings; d++)
		offered[d / PER_NIC] += r.ring[d].offered;
	CHECK(offered[0] + MAX_SKEW >= offered[1] && offered[1] + MAX_SKEW >= offered[0]);
	for (uint32_t p = 0; p < NICS; p++)
		CHECK_EQ(expected(c, p, offered[p], want), 0);
	for (uint32_t d = 0; d < WORKERS && d < r.n_rings; d++) {
		if (r.ring[d].offered != want[d])
			fprintf(stderr, "%s: core %u offered %llu, its port's RSS gives %llu\n",
				what, d, (unsigned long long)r.ring[d].offered,
				(unsigned long long)want[d]);
		CHECK_EQ(r.ring[d].offered, want[d]);
	}
	*out = r;
}

static void test_each_port_offers_its_flows_to_its_cores(void)
{
	static const struct {
		enum rxb_arch arch;
		enum rxb_assoc assoc;
		enum rxb_emu_rss rss;
		const char *what;
	} runs[] = {
		{ RXB_ARCH_PRIVRING, RXB_ASSOC_PER_NIC, RXB_EMU_RSS_SW, "2 ports privring sw" },
		{ RXB_ARCH_PRIVRING, RXB_ASSOC_PER_NIC, RXB_EMU_RSS_PORT, "2 ports privring port" },
		{ RXB_ARCH_SHRING, RXB_ASSOC_PER_NIC, RXB_EMU_RSS_SW, "2 ports shring" },
		{ RXB_ARCH_RXBISECT, RXB_ASSOC_PER_NIC, RXB_EMU_RSS_SW,
		  "2 ports rxbisect per_nic" },
		{ RXB_ARCH_RXBISECT, RXB_ASSOC_ALL, RXB_EMU_RSS_PORT, "2 ports rxbisect all" },
	};
	struct rxb_emu_result r;
	struct rxb_emu_cfg c;

	for (size_t i = 0; i < RTE_DIM(runs); i++) {
		emu_rt_cfg(&c, runs[i].arch, N_PKTS);
		c.scn.arch.association = runs[i].assoc;
		c.scn.emu.rss = runs[i].rss;
		run_two_ports(&c, runs[i].what, &r);
	}
}

/* A generator lcore per port (emu.gen_lcores = 2): the same packets reach
 * the same cores, each port's share of emu.packets exactly. */
static void test_a_generator_lcore_per_port(void)
{
	static const enum rxb_arch archs[] = { RXB_ARCH_PRIVRING, RXB_ARCH_SHRING,
					       RXB_ARCH_RXBISECT };
	struct rxb_emu_result r;
	struct rxb_emu_cfg c;
	char what[64];

	for (size_t i = 0; i < RTE_DIM(archs); i++) {
		emu_rt_cfg(&c, archs[i], N_PKTS);
		c.scn.arch.association = RXB_ASSOC_PER_NIC;
		c.scn.emu.gen_lcores = NICS;
		snprintf(what, sizeof(what), "2 gen lcores %s", rxb_arch_name[archs[i]]);
		run_two_ports(&c, what, &r);
	}
}

/* Two generator lcores per port (emu.gen_lcores = 4), each feeding half of
 * its port's queues and drawing the port's whole stream to find their
 * packets: together they offer exactly what one lcore per port does, and
 * each offers its part. */
static void test_generator_lcores_split_a_port(void)
{
	static const struct {
		enum rxb_arch arch;
		enum rxb_assoc assoc;
		uint32_t share, groups;
	} runs[] = {
		{ RXB_ARCH_PRIVRING, RXB_ASSOC_PER_NIC, 0, 0 },
		{ RXB_ARCH_SHRING, RXB_ASSOC_PER_NIC, 1, 0 },
		{ RXB_ARCH_RXBISECT, RXB_ASSOC_GROUPS, 0, WORKERS },
	};
	struct rxb_emu_result r;
	struct rxb_emu_cfg c;
	char what[64];

	for (size_t i = 0; i < RTE_DIM(runs); i++) {
		emu_rt_cfg(&c, runs[i].arch, N_PKTS);
		c.scn.arch.association = runs[i].assoc;
		c.scn.arch.groups = runs[i].groups;
		if (runs[i].share != 0)
			c.scn.arch.share_degree = runs[i].share;
		c.scn.emu.gen_lcores = 2 * NICS;
		snprintf(what, sizeof(what), "4 gen lcores %s", rxb_arch_name[runs[i].arch]);
		run_two_ports(&c, what, &r);
		/* every lcore fed its half of a port: a quarter of the packets,
		 * give or take what RSS puts on each core */
		CHECK(r.gen_lcore_offered_min >= N_PKTS / (2 * NICS) / 2);
		CHECK(r.gen_lcore_offered_max <= N_PKTS / (2 * NICS) * 3 / 2);
	}
}

/* rxBisect with a set per NIC, a generator lcore per port: valid. */
static void gen_lcore_per_port(struct rxb_emu_cfg *c)
{
	emu_rt_cfg(c, RXB_ARCH_RXBISECT, N_PKTS);
	c->scn.system.cores = WORKERS;
	c->scn.system.nics = NICS;
	c->scn.arch.association = RXB_ASSOC_PER_NIC;
	c->scn.emu.gen_lcores = NICS;
}

/* What the generator lcores cannot feed is refused, naming the key. */
static void test_generator_lcores_refused_where_queues_span_them(void)
{
	static const struct {
		const char *key, *value, *why;
	} bad[] = {
		{ "arch.association", "all", "serves cores of NIC ports different" },
		{ "arch.name", "spool", "ports every NIC port shares" },
		{ "arch.name", "dyn_shring", "ring sets switch at run time" },
		{ "emu.source", "null", "only the generator source" },
		/* one port, one set: nothing for a second lcore to feed */
		{ "system.nics", "1", "2 generator lcores per NIC port split its physical" },
		{ "emu.gen_lcores", "3", "allowed: 1..2 or a multiple of 2" },
		{ "emu.gen_lcores", "4", "has 1 per port here" },
	};
	struct rxb_emu_cfg c;
	struct rxb_err err;

	for (size_t i = 0; i < RTE_DIM(bad); i++) {
		gen_lcore_per_port(&c);
		CHECK_EQ(rxb_emu_cfg_check(&c, &err), 0); /* the valid twin */
		gen_lcore_per_port(&c);
		err.msg[0] = '\0';
		CHECK(rxb_emu_cfg_set(&c, bad[i].key, bad[i].value, &err) == 0);
		CHECK(rxb_emu_cfg_check(&c, &err) != 0);
		if (strstr(err.msg, "emu.gen_lcores = ") == NULL ||
		    strstr(err.msg, bad[i].why) == NULL)
			fprintf(stderr, "%s = %s: got \"%s\"\n", bad[i].key, bad[i].value, err.msg);
		CHECK(strstr(err.msg, "emu.gen_lcores = ") != NULL);
		CHECK(strstr(err.msg, bad[i].why) != NULL);
	}
}

/* The per-queue captures a pcap source splits a trace into are new files
 * of their own: never an existing file, nor a link placed at a name one
 * could guess (rxb-emu often runs as root). */
static void test_split_captures_are_new_files(void)
{
	char a[] = "/tmp/rxb-test-split-XXXXXX", b[] = "/tmp/rxb-test-split-XXXXXX";
	FILE *fa = rxb_pcap_create_temp(a), *fb = rxb_pcap_create_temp(b);
	struct stat st;

	CHECK(fa != NULL && fb != NULL);
	CHECK(strcmp(a, b) != 0 && strstr(a, "XXXXXX") == NULL);
	if (fa != NULL)
		fclose(fa);
	if (fb != NULL)
		fclose(fb);
	CHECK(lstat(a, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 24); /* the header */
	unlink(a);
	unlink(b);
}

int main(void)
{
	emu_rt_init("emu_ports");
	RUN(test_split_captures_are_new_files);
	RUN(test_each_port_offers_its_flows_to_its_cores);
	RUN(test_a_generator_lcore_per_port);
	RUN(test_generator_lcores_split_a_port);
	RUN(test_generator_lcores_refused_where_queues_span_them);
	emu_rt_fini();
	return check_summary();
}
