/* SPDX-License-Identifier: BSD-3-Clause
 * Two NIC lcores (emu.nic_lcores = 2), every design that can be sharded:
 * packets and buffers conserved, every delivery used the packet's own
 * buffer, and each destination was offered exactly the packets whose
 * software Toeplitz hash the RETA maps to it (per-queue RSS, counted from
 * the trace itself); drops and the holes they leave handled by each NIC
 * lcore in its own sources. Designs that cannot be sharded are refused with
 * a line naming emu.nic_lcores and the reason. */
#define _GNU_SOURCE
#include "check.h"
#include "emu_test.h"
#include "emu_run_test.h"
#include "rxb/rss.h"

#define N_PKTS    3000u
#define WORKERS   4u
#define FRAME_MAX 2048u

/* Packets of the trace per destination, as the NIC steers them: its RETA
 * over the cores, or spread over spool's ports. */
static int expected_per_dest(const char *path, uint32_t n_dest, bool spool, uint64_t *want)
{
	struct rxb_err err = { 0 };
	struct rxb_pcap_rd rd;
	struct rxb_pcap_rec rec;
	struct rxb_rss rss;
	struct rxb_reta reta;
	static uint8_t frame[FRAME_MAX];
	char msg[256];
	int rc;

	if (rxb_rss_init(&rss, rxb_rss_default_key, RXB_RSS_KEY_LEN, &err) != 0 ||
	    rxb_reta_init(&reta, RXB_RETA_MLX5_SIZE, n_dest, &err) != 0 ||
	    rxb_pcap_open_read(&rd, path, msg, sizeof(msg)) != 0)
		return -1;
	memset(want, 0, sizeof(*want) * n_dest);
	while ((rc = rxb_pcap_next(&rd, &rec, frame, FRAME_MAX)) == 1) {
		uint16_t dport;
		uint32_t h = rxb_rss_frame(&rss, frame, rec.caplen, &dport);

		want[spool ? rxb_hash_spread(h, n_dest) : rxb_reta_lookup(&reta, h)]++;
	}
	rxb_pcap_close_read(&rd);
	rxb_reta_free(&reta);
	return rc;
}

static void run_sharded(struct rxb_emu_cfg *c, const char *path, const char *what)
{
	struct rxb_emu_result r;
	uint64_t want[RXB_EMU_MAX_WORKERS];
	uint32_t n_dest;

	c->scn.emu.nic_lcores = 2;
	c->scn.emu.source = RXB_EMU_SOURCE_PCAP;
	c->scn.emu.rss = RXB_EMU_RSS_SW;
	c->scn.system.cores = WORKERS;
	snprintf(c->scn.traffic.pcap, sizeof(c->scn.traffic.pcap), "%s", path);
	c->out = RXB_EMU_OUT_NULL;
	c->scn.emu.sink = true;
	n_dest = c->scn.arch.name == RXB_ARCH_SPOOL ? c->scn.arch.spool_ports : WORKERS;
	if (emu_rt_run(c, &r, what) != 0) {
		CHECK(0);
		return;
	}
	EMU_RT_CHECK_CONSERVED(&r, N_PKTS, what);
	CHECK_EQ(r.emu_nic_lcores, 2);
	CHECK_EQ(r.emu_steer_fixups, 0);
	CHECK_EQ(r.emu_sw_hash, N_PKTS);
	CHECK_EQ(expected_per_dest(path, n_dest, c->scn.arch.name == RXB_ARCH_SPOOL, want), 0);
	CHECK_EQ(r.n_rings, n_dest);
	for (uint32_t d = 0; d < n_dest && d < r.n_rings; d++)
		CHECK_EQ(r.ring[d].offered, want[d]);
}

static void test_two_nic_lcores_every_shardable_design(void)
{
	static const enum rxb_arch archs[] = { RXB_ARCH_PRIVRING, RXB_ARCH_SMALL_PRIVRING,
					       RXB_ARCH_SHRING,   RXB_ARCH_SHRING_LIST,
					       RXB_ARCH_RXBISECT, RXB_ARCH_SPOOL };
	struct rxb_emu_cfg c;
	char path[64], what[64];

	CHECK(emu_rt_trace(path, sizeof(path), "emu_nic_lcores", 11, 500, 256, N_PKTS) == 0);
	for (size_t i = 0; i < RTE_DIM(archs); i++) {
		emu_rt_cfg(&c, archs[i], 0);
		c.scn.arch.share_degree = 2; /* shRing: 2 shared rings */
		c.scn.arch.association = RXB_ASSOC_GROUPS;
		c.scn.arch.groups = 2;      /* rxBisect: 2 association sets */
		c.scn.arch.spool_ports = 4; /* spool: 4 queues */
		snprintf(what, sizeof(what), "2 NIC lcores %s", rxb_arch_name[archs[i]]);
		run_sharded(&c, path, what);
	}
	remove(path);
}

/* The generator's source (net_ring) with two NIC lcores. */
static void test_two_nic_lcores_generator(void)
{
	struct rxb_emu_cfg c;
	struct rxb_emu_result r;

	emu_rt_cfg(&c, RXB_ARCH_PRIVRING, N_PKTS);
	c.scn.emu.nic_lcores = 2;
	c.out = RXB_EMU_OUT_NULL;
	if (emu_rt_run(&c, &r, "2 NIC lcores gen privring") != 0) {
		CHECK(0);
		return;
	}
	EMU_RT_CHECK_CONSERVED(&r, N_PKTS, "2 NIC lcores gen privring");
}

/* rxBisect, 2 association sets, a stalled worker in each: both NIC lcores
 * drop for want of a Bx slot, so both keep holes and fill them by swaps
 * in their own sources, and every delivery still used its packet's buffer. */
static void test_two_nic_lcores_holes(void)
{
	struct rxb_emu_cfg c;
	struct rxb_emu_result r;

	emu_rt_cfg(&c, RXB_ARCH_RXBISECT, 8000);
	c.scn.emu.nic_lcores = 2;
	c.scn.system.cores = WORKERS;
	c.scn.arch.association = RXB_ASSOC_GROUPS;
	c.scn.arch.groups = 2;
	c.scn.traffic.rate_gbps = 0.1;
	CHECK(rxb_emu_cfg_set(&c, "system.stalled_cores", "[1,3]", NULL) == 0);
	c.scn.system.stall_at_ms = 0;
	if (emu_rt_run(&c, &r, "2 NIC lcores rxbisect holes") != 0) {
		CHECK(0);
		return;
	}
	EMU_RT_CHECK_CONSERVED(&r, 8000, "2 NIC lcores rxbisect holes");
	/* a stalled core's Bx fills: its packets drop (no Bx slot, or no Ax
	 * buffer once the stalled core's own Ax rings run dry) */
	CHECK(r.ring[1].offered - r.ring[1].delivered > 0);
	CHECK(r.ring[3].offered - r.ring[3].delivered > 0);
	CHECK(r.drops[RXB_DROP_NO_BX_SLOT] > 0);
	CHECK(r.emu_swaps > 0);
}

static void refused(struct rxb_emu_cfg *c, const char *why)
{
	struct rxb_err err = { 0 };

	c->scn.emu.nic_lcores = 2;
	CHECK_EQ(rxb_emu_cfg_check(c, &err), -EINVAL);
	CHECK(strstr(err.msg, "emu.nic_lcores = 2") != NULL);
	CHECK(strstr(err.msg, why) != NULL);
	if (strstr(err.msg, why) == NULL)
		fprintf(stderr, "message: %s\n", err.msg);
}

static void test_unshardable_refused(void)
{
	struct rxb_emu_cfg c;

	emu_rt_cfg(&c, RXB_ARCH_DYN_SHRING, 0);
	refused(&c, "dyn_shring");
	emu_rt_cfg(&c, RXB_ARCH_RXBISECT, 0); /* one association set: one queue */
	c.scn.arch.association = RXB_ASSOC_ALL;
	refused(&c, "1 physical queue");
	emu_rt_cfg(&c, RXB_ARCH_RXBISECT, 0);
	c.scn.arch.association = RXB_ASSOC_GROUPS;
	c.scn.arch.groups = 2;
	c.scn.arch.coalesce = true;
	refused(&c, "arch.coalesce");
	emu_rt_cfg(&c, RXB_ARCH_PRIVRING, 0);
	c.scn.arch.emulated = false;
	refused(&c, "arch.emulated = false");
	emu_rt_cfg(&c, RXB_ARCH_SHRING, 0); /* one shared ring for both cores */
	c.scn.arch.share_degree = 2;
	refused(&c, "shared ring");
}

int main(void)
{
	emu_rt_init("rxb_test_emu_nic_lcores");
	RUN(test_unshardable_refused);
	RUN(test_two_nic_lcores_every_shardable_design);
	RUN(test_two_nic_lcores_generator);
	RUN(test_two_nic_lcores_holes);
	emu_rt_fini();
	return check_summary();
}
