/* SPDX-License-Identifier: BSD-3-Clause
 * The behaviours the designs are about, emerging from whole emulator runs:
 * a burst to one worker is absorbed by rxBisect and dropped by small
 * privRing; a stalled worker blocks shRing RxArr's other worker but not
 * rxBisect's; the KV store behind the emulator answers every GET with the
 * last PUT; dynamic shRing switches ring sets at run time without losing a
 * packet. Conservation is checked after every run. */
#define _GNU_SOURCE
#include <math.h>

#include "check.h"
#include "emu_test.h"
#include "emu_run_test.h"

static struct emu_rt_out_stats out;

static int run(struct rxb_emu_cfg *c, struct rxb_emu_result *r, const char *what)
{
	memset(&out, 0, sizeof(out));
	c->out_done = emu_rt_out_done;
	c->out_arg = &out;
	if (emu_rt_run(c, r, what) != 0) {
		CHECK(0);
		return -1;
	}
	EMU_RT_CHECK_CONSERVED(r, 0, what);
	CHECK_EQ(out.bad_csum, 0);
	return 0;
}

static uint64_t ring_drops(const struct rxb_emu_ring_res *d)
{
	uint64_t n = 0;

	for (int k = 0; k < RXB_DROP_CAUSES; k++)
		n += d->drops[k];
	return n;
}

static uint64_t worker_bytes(const struct rxb_emu_result *r)
{
	uint64_t n = 0;

	for (uint32_t w = 0; w < r->n_workers; w++)
		n += r->worker[w].bytes;
	return n;
}

/* 900 packets as fast as the generator goes, all to worker 0, which needs
 * 50 µs per packet. rxBisect (Ax 512 x 2 = 1024 buffers, Bx 1024) holds
 * the whole burst; small privRing has 128 buffers for worker 0. */
static void test_burst_absorbed_by_rxbisect_not_small_privring(void)
{
	static const enum rxb_arch archs[] = { RXB_ARCH_RXBISECT, RXB_ARCH_PRIVRING,
					       RXB_ARCH_SMALL_PRIVRING };
	struct rxb_emu_result r;
	struct rxb_emu_cfg c;

	for (size_t i = 0; i < RTE_DIM(archs); i++) {
		char what[64];

		emu_rt_cfg(&c, archs[i], 900);
		c.scn.traffic.rate_gbps = 1000; /* unpaced: as fast as the generator can */
		c.scn.traffic.pattern = RXB_PATTERN_TARGET;
		c.scn.traffic.target_share = 1.0; /* every flow RSS sends to worker 0 */
		c.scn.traffic.target_core = 0;
		c.scn.workload.compute_ns = 50000;
		c.scn.arch.ax_size = 512;
		snprintf(what, sizeof(what), "burst %s", rxb_arch_name[archs[i]]);
		if (run(&c, &r, what) != 0)
			continue;
		CHECK_EQ(r.ring[1].offered, 0);
		if (archs[i] == RXB_ARCH_SMALL_PRIVRING) {
			CHECK(ring_drops(&r.ring[0]) >= 300);
			CHECK(r.ring[0].drops[RXB_DROP_NO_RX_DESC] +
				      r.ring[0].drops[RXB_DROP_PIPELINE] ==
			      ring_drops(&r.ring[0]));
		} else {
			CHECK_EQ(ring_drops(&r.ring[0]), 0);
			CHECK_EQ(r.delivered, 900);
			/* every byte the source wrote reached the worker's count */
			CHECK_EQ(worker_bytes(&r), r.dma_bytes);
		}
	}
}

/* dma_bytes and dma_write_gibps count the frame bytes the source wrote
 * into buffers: not a packet the physical queue had no buffer for (every
 * packet with a buffer reaches the emulator: dispatched), nor the wire's
 * 24 B of FCS, preamble and gap per packet. */
static void test_dma_writes_are_frames_written_into_buffers(void)
{
	struct rxb_emu_result r;
	struct rxb_emu_cfg c;
	uint32_t frame;
	double want;

	/* small privRing's 128 buffers for worker 0 run out in an unpaced burst */
	emu_rt_cfg(&c, RXB_ARCH_SMALL_PRIVRING, 900);
	c.scn.traffic.rate_gbps = 1000;
	c.scn.traffic.pattern = RXB_PATTERN_TARGET;
	c.scn.traffic.target_share = 1.0;
	c.scn.traffic.target_core = 0;
	c.scn.workload.compute_ns = 50000;
	frame = c.scn.traffic.packet_bytes - 4;
	if (run(&c, &r, "dma small_privring burst") == 0) {
		CHECK(r.emu_dispatched + 300 <= r.offered);
		CHECK_EQ(r.dma_bytes, (uint64_t)frame * r.emu_dispatched);
	}
	/* paced, measured from the start: the rate is what was written over
	 * the window, which is the whole run but for the packets written
	 * before the first snapshot; without the fix it read the offered wire
	 * rate, 84/60 of the frames' for 64 B packets before any drop */
	emu_rt_cfg(&c, RXB_ARCH_PRIVRING, 8000);
	c.scn.traffic.packet_bytes = 64;
	c.scn.traffic.rate_gbps = 0.03;
	c.scn.run.warmup_ms = 0;
	frame = c.scn.traffic.packet_bytes - 4;
	if (run(&c, &r, "dma privring paced") == 0) {
		want = (double)r.dma_bytes / r.measured_s / 1073741824.0;
		printf("  dma_write_gibps %.6f, written %.6f GiB/s over %.3f s\n",
		       r.dma_write_gibps, want, r.measured_s);
		CHECK_EQ(r.dma_bytes, (uint64_t)frame * r.emu_dispatched);
		CHECK(r.measured_s > 0);
		CHECK(fabs(r.dma_write_gibps - want) <= 0.1 * want);
	}
}

/* Worker 1 stops polling from the start. shRing RxArr: its unreturned
 * descriptors pin the shared ring's return index, the ring runs dry and
 * worker 0 starves too. rxBisect: worker 0 keeps refilling its Ax and keeps
 * receiving; worker 1's Bx fills and its packets are dropped (no Bx slot),
 * which also exercises the emulator's hole/swap path. */
static void test_stalled_worker_blocks_shring_not_rxbisect(void)
{
	static const enum rxb_arch archs[] = { RXB_ARCH_SHRING, RXB_ARCH_RXBISECT };
	struct rxb_emu_result r;
	struct rxb_emu_cfg c;

	for (size_t i = 0; i < RTE_DIM(archs); i++) {
		char what[64];
		double share;

		emu_rt_cfg(&c, archs[i], 8000);
		c.scn.traffic.rate_gbps = 0.1;
		CHECK(rxb_emu_cfg_set(&c, "system.stalled_cores", "[1]", NULL) == 0);
		c.scn.system.stall_at_ms = 0;
		c.scn.arch.ax_size = 512;
		snprintf(what, sizeof(what), "stall %s", rxb_arch_name[archs[i]]);
		if (run(&c, &r, what) != 0)
			continue;
		/* Packets lost while the emulator lcore itself was preempted
		 * (pipeline: CPUs shared with the other tests) say nothing
		 * about the design; leave them out for rxBisect. */
		share = (double)r.ring[0].delivered /
			(double)(r.ring[0].offered + 1 -
				 (archs[i] == RXB_ARCH_RXBISECT ? r.ring[0].drops[RXB_DROP_PIPELINE]
								: 0));
		printf("    worker 0 got %.1f%% of its %llu packets (%llu lost to preemption); "
		       "worker 1's drops %llu\n",
		       100 * share, (unsigned long long)r.ring[0].offered,
		       (unsigned long long)r.ring[0].drops[RXB_DROP_PIPELINE],
		       (unsigned long long)ring_drops(&r.ring[1]));
		CHECK(r.ring[0].offered > 2000);
		if (archs[i] == RXB_ARCH_SHRING) {
			CHECK(share < 0.5);
			CHECK(ring_drops(&r.ring[0]) >
			      1000); /* no_rx_desc (pipeline when preempted) */
		} else {
			CHECK(share > 0.9);
			CHECK(r.ring[1].drops[RXB_DROP_NO_BX_SLOT] > 0);
		}
	}
}

/* Whether check_kv compares values: with several ports each port's cores
 * hold their own copy of the key space, and a GET on one port does not see
 * a PUT on another (only fields and counts are checked then). */
static bool kv_one_store;

/* KV responses, in output order (one worker per partition, so per key they
 * come out in request order): a GET hit carries exactly the value of the
 * last PUT of its key that came out before it. */
static void check_kv(struct rte_mbuf *m, struct emu_rt_out_stats *s)
{
	struct rxb_pkt_view v = emu_view(m);
	const struct rxb_kv_hdr *h;
	uint8_t want[RXB_KV_VAL_MAX];
	const uint8_t *key, *val;
	uint64_t k = 0, req;

	if (v.l4 == NULL || v.payload_len < RXB_KV_MSG_LEN(0)) {
		s->bad_field++;
		return;
	}
	h = (const struct rxb_kv_hdr *)(v.payload + RXB_KV_OFF);
	key = (const uint8_t *)(h + 1);
	val = key + RXB_KV_KEY_LEN;
	for (int i = 0; i < 8; i++)
		k = k << 8 | key[i];
	req = rte_be_to_cpu_64(h->req_id);
	if (h->magic != RXB_KV_MAGIC || !(h->op & RXB_KV_RESP) || k >= RTE_DIM(s->aux)) {
		s->bad_field++;
		return;
	}
	if ((h->op & ~RXB_KV_RESP) == RXB_KV_PUT) {
		if (h->status != RXB_KV_OK)
			s->bad_field++;
		s->aux[k] = req + 1;
		s->fwd.key[0]++; /* PUTs seen */
		return;
	}
	s->rev.key[0]++; /* GETs seen */
	if (!kv_one_store)
		return;
	if (s->aux[k] == 0) {
		if (h->status != RXB_KV_NOT_FOUND)
			s->inconsistent++;
		return;
	}
	rxb_gen_kv_value(k, s->aux[k] - 1, want, rte_be_to_cpu_16(h->val_len));
	if (h->status != RXB_KV_OK || memcmp(val, want, rte_be_to_cpu_16(h->val_len)) != 0)
		s->inconsistent++;
	else
		s->rev.val[0]++; /* GET hits checked */
}

/* Two ports: each port's cores split the key space, as the generator and
 * the steering do (the NFs once partitioned it over all cores: half the
 * requests of a 2-port run were dropped as another core's); values are
 * compared with one port. */
static void test_kvs(void)
{
	struct rxb_emu_result r;
	struct rxb_emu_cfg c;
	static const struct {
		enum rxb_arch arch;
		uint32_t nics;
	} cases[] = { { RXB_ARCH_RXBISECT, 1 }, { RXB_ARCH_SHRING, 1 }, { RXB_ARCH_PRIVRING, 2 } };

	for (size_t i = 0; i < RTE_DIM(cases); i++) {
		char what[64];

		emu_rt_cfg(&c, cases[i].arch, 4000);
		c.scn.system.nics = cases[i].nics;
		kv_one_store = cases[i].nics == 1;
		c.scn.workload.nf = RXB_NF_KIND_KVS;
		c.scn.workload.kvs_keys = 200;
		c.scn.workload.kvs_put_share = 0.5;
		c.scn.workload.kvs_value_bytes = 256;
		snprintf(what, sizeof(what), "kvs %s, %u NIC(s)", rxb_arch_name[cases[i].arch],
			 cases[i].nics);
		memset(&out, 0, sizeof(out));
		out.check = check_kv;
		c.out_done = emu_rt_out_done;
		c.out_arg = &out;
		if (emu_rt_run(&c, &r, what) != 0) {
			CHECK(0);
			continue;
		}
		EMU_RT_CHECK_CONSERVED(&r, 4000, what);
		printf("    %llu PUT, %llu GET responses, %llu GET hits checked\n",
		       (unsigned long long)out.fwd.key[0], (unsigned long long)out.rev.key[0],
		       (unsigned long long)out.rev.val[0]);
		CHECK_EQ(out.packets, r.tx_packets);
		CHECK_EQ(out.bad_csum, 0);
		CHECK_EQ(out.bad_field, 0);
		CHECK_EQ(out.inconsistent, 0);
		CHECK_EQ(r.nf_drops, 0); /* steering put every key on its partition */
		CHECK(!kv_one_store || out.rev.val[0] > 20); /* some GET hits were checked */
	}
}

/* Dynamic shRing with thresholds this machine exceeds: it moves to the
 * shared ring set; a worker that stops calling receive is overloaded and
 * moves it back. No packet is lost in either switch. (A worker descheduled
 * for a whole sample period also counts as overloaded and holds the switch
 * up, so on a crowded machine only the first switch is certain.) */
static void test_dyn_shring_switches(void)
{
	struct rxb_emu_result r;
	struct rxb_emu_cfg c;

	emu_rt_cfg(&c, RXB_ARCH_DYN_SHRING, 0);
	c.scn.run.duration_ms = 700;
	c.scn.traffic.rate_gbps = 0.1;
	c.scn.arch.dyn_tput_gbps = 1e-6;
	c.scn.arch.dyn_membw_gibps = 1e-9;
	c.scn.arch.dyn_window = 3;
	c.scn.arch.dyn_sample_ms = 25;
	c.scn.arch.dyn_overload_factor = 1e9;
	CHECK(rxb_emu_cfg_set(&c, "system.stalled_cores", "[1]", NULL) == 0);
	c.scn.system.stall_at_ms = 450;
	if (run(&c, &r, "dyn_shring") != 0)
		return;
	printf("    %llu mode switches, ends %s\n", (unsigned long long)r.mode_switches,
	       r.dyn_mode_end);
	CHECK(r.mode_switches >= 1); /* to shared (and back when worker 1 stalls) */
}

int main(void)
{
	emu_rt_init("emu_behaviour");
	RUN(test_burst_absorbed_by_rxbisect_not_small_privring);
	RUN(test_dma_writes_are_frames_written_into_buffers);
	RUN(test_stalled_worker_blocks_shring_not_rxbisect);
	RUN(test_kvs);
	RUN(test_dyn_shring_switches);
	emu_rt_fini();
	return check_summary();
}
