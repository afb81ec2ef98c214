/* SPDX-License-Identifier: BSD-3-Clause
 * Whole emulator runs, every interface: N packets in (the generator over
 * net_ring; net_pcap reading a generated trace; net_null), and out comes
 * exactly what went in minus counted drops, every buffer is back in the
 * mempool, every delivery used the packet's own buffer, and the NF's output
 * is right (checksums valid, LB and NAT mappings consistent). */
#define _GNU_SOURCE
#include "check.h"
#include "emu_test.h"
#include "emu_run_test.h"

#define N_PKTS 3000u

static const enum rxb_arch emulated[] = {
	RXB_ARCH_PRIVRING,    RXB_ARCH_SMALL_PRIVRING, RXB_ARCH_SHRING,
	RXB_ARCH_SHRING_LIST, RXB_ARCH_DYN_SHRING,     RXB_ARCH_RXBISECT,
};

static struct emu_rt_out_stats out;

static void check_output(const struct rxb_emu_result *r)
{
	CHECK_EQ(out.packets, r->tx_packets);
	CHECK_EQ(out.bad_csum, 0);
	CHECK_EQ(out.bad_field, 0);
	CHECK_EQ(out.inconsistent, 0);
}

static void run_one(struct rxb_emu_cfg *c, const char *what, uint64_t offered,
		    void (*check)(struct rte_mbuf *, struct emu_rt_out_stats *), bool lossless)
{
	struct rxb_emu_result r;

	memset(&out, 0, sizeof(out));
	out.check = check;
	c->out_done = emu_rt_out_done;
	c->out_arg = &out;
	if (emu_rt_run(c, &r, what) != 0) {
		CHECK(0);
		return;
	}
	EMU_RT_CHECK_CONSERVED(&r, offered, what);
	check_output(&r);
	CHECK(r.delivered > 0);
	CHECK_EQ(r.nf_drops, 0);
	if (lossless)
		CHECK_EQ(emu_rt_drops(&r), 0);
}

/* Generator + net_ring, LB: all six emulated interfaces and the two native
 * baselines. */
static void test_gen_every_interface(void)
{
	struct rxb_emu_cfg c;
	char what[64];

	for (size_t i = 0; i < RTE_DIM(emulated); i++) {
		emu_rt_cfg(&c, emulated[i], N_PKTS);
		snprintf(what, sizeof(what), "gen %s", rxb_arch_name[emulated[i]]);
		run_one(&c, what, N_PKTS, emu_rt_check_lb, false);
	}
	for (int a = RXB_ARCH_PRIVRING; a <= RXB_ARCH_SMALL_PRIVRING; a++) {
		emu_rt_cfg(&c, (enum rxb_arch)a, N_PKTS);
		c.scn.arch.emulated = false;
		snprintf(what, sizeof(what), "gen native %s", rxb_arch_name[a]);
		run_one(&c, what, N_PKTS, emu_rt_check_lb, false);
	}
}

/* net_pcap reading a trace, NAT. The emulator only polls a queue for as
 * many packets as it has buffers, so nothing is lost at the physical queue;
 * only rxBisect may drop (no Bx slot, when a worker falls behind). */
static void test_pcap_every_interface(void)
{
	char path[64];
	struct rxb_emu_cfg c;
	char what[64];

	CHECK(emu_rt_trace(path, sizeof(path), "emu_ifaces", 7, 300, 400, N_PKTS) == 0);
	for (size_t i = 0; i < RTE_DIM(emulated); i++) {
		if (emulated[i] == RXB_ARCH_DYN_SHRING)
			continue; /* needs a source that can re-steer: covered above */
		emu_rt_cfg(&c, emulated[i], 0);
		c.scn.emu.source = RXB_EMU_SOURCE_PCAP;
		snprintf(c.scn.traffic.pcap, sizeof(c.scn.traffic.pcap), "%s", path);
		c.scn.workload.nf = RXB_NF_KIND_NAT;
		snprintf(what, sizeof(what), "pcap %s", rxb_arch_name[emulated[i]]);
		run_one(&c, what, N_PKTS, emu_rt_check_nat, emulated[i] != RXB_ARCH_RXBISECT);
	}
	emu_rt_cfg(&c, RXB_ARCH_PRIVRING, 0);
	c.scn.arch.emulated = false;
	c.scn.emu.source = RXB_EMU_SOURCE_PCAP;
	snprintf(c.scn.traffic.pcap, sizeof(c.scn.traffic.pcap), "%s", path);
	c.scn.workload.nf = RXB_NF_KIND_NAT;
	run_one(&c, "pcap native privring", N_PKTS, emu_rt_check_nat, true);
	remove(path);
}

/* net_null: an endless stream for a fixed time; workers free unprocessed
 * (the benchmark's setting) or run the counter NF on the prefilled packets
 * (net_null writes no bytes, so a buffer carries whatever the last lap left
 * in it: NFs that rewrite headers would see ever new flows (LB, NAT fill
 * their tables) or age packets (l3fwd's TTL); the counter NF writes only
 * its payload word). */
static void test_null_every_interface(void)
{
	struct rxb_emu_cfg c;
	char what[64];

	for (size_t i = 0; i < RTE_DIM(emulated); i++) {
		struct rxb_emu_result r;

		if (emulated[i] == RXB_ARCH_DYN_SHRING)
			continue;
		emu_rt_cfg(&c, emulated[i], 0);
		c.scn.emu.source = RXB_EMU_SOURCE_NULL;
		c.scn.emu.rss = RXB_EMU_RSS_SW;
		c.scn.run.duration_ms = 120;
		c.out = RXB_EMU_OUT_NULL;
		c.scn.emu.sink = i % 2 == 0;
		c.scn.workload.nf = RXB_NF_KIND_COUNTER;
		snprintf(what, sizeof(what), "null %s%s", rxb_arch_name[emulated[i]],
			 c.scn.emu.sink ? " sink" : " counter");
		if (emu_rt_run(&c, &r, what) != 0) {
			CHECK(0);
			continue;
		}
		EMU_RT_CHECK_CONSERVED(&r, 0, what);
		CHECK(r.delivered > 0);
		CHECK_EQ(r.emu_sw_hash, r.emu_dispatched);
		/* every frame as long as traffic.packet_bytes, less the FCS */
		for (uint32_t w = 0; w < r.n_workers; w++)
			CHECK_EQ(r.worker[w].bytes,
				 r.worker[w].received * (c.scn.traffic.packet_bytes - 4));
		if (!c.scn.emu.sink)
			CHECK_EQ(r.nf_drops, 0);
	}
}

/* Two NICs: one port's queues split in two groups (rxBisect: one physical
 * queue and one association set per NIC; shRing: one shared ring each). */
static void test_two_nics(void)
{
	static const enum rxb_arch archs[] = { RXB_ARCH_RXBISECT, RXB_ARCH_SHRING };
	struct rxb_emu_cfg c;
	char what[64];

	for (size_t i = 0; i < RTE_DIM(archs); i++) {
		emu_rt_cfg(&c, archs[i], N_PKTS);
		c.scn.system.cores = 4;
		c.scn.system.nics = 2;
		c.scn.arch.association = RXB_ASSOC_PER_NIC;
		CHECK_EQ(rxb_emu_phys_queues(&c), 2);
		snprintf(what, sizeof(what), "2 NICs %s", rxb_arch_name[archs[i]]);
		run_one(&c, what, N_PKTS, emu_rt_check_lb, false);
	}
}

/* Shared page pool (representor ports): 4 ports, 2 workers, the generator.
 * Each mode: one physical queue per library queue, the port chosen by the
 * RETA over the ports and carried to the NIC verb as meta.dest; packets and
 * buffers conserved, every delivery used the packet's own buffer, and the
 * per-port counters add up to the totals. */
static void test_spool_modes(void)
{
	static const enum rxb_spool_mode modes[] = { RXB_SPOOL_SPP, RXB_SPOOL_NONE,
						     RXB_SPOOL_BASIC };
	struct rxb_emu_cfg c;
	char what[64];

	for (size_t i = 0; i < RTE_DIM(modes); i++) {
		struct rxb_emu_result r;
		uint64_t offered = 0, delivered = 0, dropped = 0, busy = 0;

		emu_rt_cfg(&c, RXB_ARCH_SPOOL, N_PKTS);
		c.scn.arch.spool_mode = modes[i];
		c.scn.arch.spool_ports = 4;
		c.scn.arch.spool_low = 64;
		c.scn.arch.spool_high = 256;
		c.scn.arch.rx_size = 256;
		CHECK_EQ(rxb_emu_phys_queues(&c), modes[i] == RXB_SPOOL_BASIC ? 1 : 4);
		snprintf(what, sizeof(what), "gen spool %s", rxb_spool_mode_name[modes[i]]);
		memset(&out, 0, sizeof(out));
		out.check = emu_rt_check_lb;
		c.out_done = emu_rt_out_done;
		c.out_arg = &out;
		if (emu_rt_run(&c, &r, what) != 0) {
			CHECK(0);
			continue;
		}
		EMU_RT_CHECK_CONSERVED(&r, N_PKTS, what);
		check_output(&r);
		CHECK_EQ(r.nf_drops, 0);
		CHECK_EQ(r.n_rings, 4);
		CHECK_EQ(r.emu_steer_fixups, 0);
		for (uint32_t p = 0; p < r.n_rings; p++) {
			offered += r.ring[p].offered;
			delivered += r.ring[p].delivered;
			for (int k = 0; k < RXB_DROP_CAUSES; k++)
				dropped += r.ring[p].drops[k];
			busy += r.ring[p].offered != 0;
			CHECK(r.ring[p].posted_max > 0);
			if (modes[i] == RXB_SPOOL_SPP)
				CHECK(r.ring[p].posted_max <= 256);
		}
		CHECK_EQ(offered, N_PKTS);
		CHECK_EQ(offered, delivered + dropped);
		CHECK_EQ(busy, 4); /* 256 flows spread over the 4 ports */
		/* queue q is polled by worker q % 2; basic has a single queue */
		if (modes[i] == RXB_SPOOL_BASIC)
			CHECK_EQ(r.worker[1].received, 0);
		else
			CHECK(r.worker[0].received > 0 && r.worker[1].received > 0);
	}
}

int main(void)
{
	emu_rt_init("emu_ifaces");
	RUN(test_gen_every_interface);
	RUN(test_pcap_every_interface);
	RUN(test_null_every_interface);
	RUN(test_two_nics);
	RUN(test_spool_modes);
	emu_rt_fini();
	return check_summary();
}
