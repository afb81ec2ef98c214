/* SPDX-License-Identifier: BSD-3-Clause
 * The simulator core end to end on short runs: every interface simulates
 * the reference setup with both conservation checks holding and packets
 * accounted for; a run is deterministic (same config and seed, same
 * output but for sim_wall_s); configuration errors are rejected with the
 * key named; the emulated variant doubles the posted working set; the
 * time rule holds on overloaded runs (docs/simulator.md §1.1). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check.h"
#include "core.h"
#include "engine.h"
#include "nic.h"

/* `rxb scenario show --json` of the reference setup, 2 ms (profile source
 * and description dropped). */
static const char TEMPLATE[] =
	"{\"contract\":1,\"description\":\"\",\"arch\":{\"name\":\"rxbisect\",\"rx_size\":1024,"
	"\"ax_size"
	"\":128,\"bx_size\":1024,\"cr_size\":1024,\"emulated\":false,\"share_degree\":8,\"rxlist_"
	"batch\":1,\"ax_policy"
	"\":\"random\",\"association\":\"all\",\"groups\":2,\"coalesce\":false,\"coalesce_time"
	"out_ns\":1000.0,\"batch\":32,\"buffer_bytes\":2048,\"headroom_bytes\":0,\"alloc_cache\":2"
	"56,\"tx_size\":1024,\"pool_buffers\":60000,\"spool_mode\":\"spp\",\"spool_ports\":1024,"
	"\"spool_low\":128,\"s"
	"pool_high\":1024,\"dyn_sample_ms\":10.0,\"dyn_window\":16,\"dyn_tput_gbps\":170.0,\"dyn_"
	"membw_gibps\":25.0,\"dyn_overload_factor\":32.0},\"system\":{\"profile\":\"reference\",\"c"
	"ores\":16,\"nics\":2,\"cores_per_nic\":[8,8],\"ddio_ways\":2,\"cat_ways\":0,\"cat_"
	"prefetch\":true,\"mlp\":10,\"rx_cqe_wave\":4,\"sta"
	"lled_cores\":[],\"stall_at_ms\":0.0,\"stall_for_ms\":0.0,\"slow_cores\":[],\"service_cv\":"
	"0.25,\"tick_hz\":250.0,\"tick_us\":2.0,\"pause_hz\":1.0,\"pause_us\":50.0,\"slow_extra_"
	"ns\":0.0,\"hog\":\"none\",\"hog_instances\":0},\"traffic\":{\"rate_gbps\":100.0,\"packet_"
	"byt"
	"es\":1518,\"pattern\":\"constant\",\"target_share\":0.0,\"target_rate_gbps\":0.0,\"target_"
	"packet_bytes\":0,\"target_core\":0,\"burst_packets\":1024,\"burst_duty\":0.5,\"pcap\":"
	"\"\","
	"\"change_at_ms\":0.0,\"change_target_share\":0.0,\"train_packets\":32,\"pcap_speedup\":1."
	"0,\"pcap_rate_gbps\":0.0,\"pcap_loop\":false,\"flows\":65536,\"flow_model\":\"auto\","
	"\"gen_src_addrs\":4128254,\"gen_dst_addrs\":4,\"key_dist\":\"uniform\",\"zipf_s\":0.99},"
	"\"workload\":"
	"{\"nf\":\"lb\",\"reads\":2,\"buffer_mib\":40.0,\"payload\":\"untouched\",\"target_reads\":"
	"0,\"costs\":\"study\",\"nf_cycles\":80,\"c"
	"ompute_ns\":0.0,\"nat_flows\":10000000,\"lb_backends\":32,\"kvs_put_share\":0.95,\"kvs_k"
	"eys\":1000000,\"kvs_key_bytes\":128,\"kvs_value_bytes\":1024,\"counter_slots\":64,\"lpm_"
	"table_mib\":1.0,\"flow_capacity\":10000000},\"run"
	"\":{\"duration_ms\":2.0,\"warmup_ms\":0.5,\"seed\":1,\"sample_ms\":0.5,\"check_"
	"invariants\""
	":false,\"llc_sample_shift\":4},\"profile\":{\"name\":\"reference\",\"cpu\":{\"model\":"
	"\"Intel"
	" Xeon Silver 4216\",\"sockets\":2,\"cores_per_socket\":16,\"freq_ghz\":2.1,\"mlp\":10,\"l1"
	"d_kib\":32,\"l1d_ways\":8,\"l1d_latency_cycles\":5,\"l2_kib\":1024,\"l2_ways\":16,\"l2_lat"
	"ency_cycles\":14,\"xsocket_ns\":130.0},\"llc\":{\"size_mib\":22.0,\"ways\":11,\"line_"
	"bytes\":64,\"latency_cycle"
	"s\":60,\"ddio_ways\":2,\"inclusive\":false},\"dram\":{\"kind\":\"DDR4-2933\",\"channels\":"
	"4,\""
	"dimm_mts\":2933,\"cpu_max_mts\":2400,\"bus_bytes\":8,\"capacity_gib\":64,\"idle_ns\":90.0"
	",\"efficiency\":0.8,\"service_ns\":20.0,\"rho_max\":0.95,\"write_penalty\":0.2599},"
	"\"pcie\":{\"gen\":3,\"lanes\":16,\""
	"gbps\":126.0,\"dma_read_ns\":526.7,\"dma_read_ns_per_byte\":0.302,\"mrrs_bytes\":512,"
	"\"mps_bytes\":256,\"tlp_overhead_bytes\":24,\"dma_write_ns\":263.35},\"nic\":{\"model\":"
	"\"NVIDIA ConnectX-5\",\"count\":2,\"l"
	"ink_gbps\":100.0,\"desc_bytes\":16,\"cqe_bytes\":64,\"desc_prefetch\":8,\"dma_read_"
	"slots\":32,\"reta_size\":512,\"buffer_kib\":256.0"
	"}},\"derived\":{\"nic_of_core\":[0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1],\"wire_bytes\":1538,"
	"\"offered_pps_per_nic\":8127438.231469441,\"llc_bytes\":23068672,\"ddio_bytes\":419430"
	"4,\"dram_peak_gibps\":71.52557373046875,\"posted_buffers\":2048,\"nominal_working_set"
	"_bytes\":4194304}}";

/* The template with section.key = value (a JSON text) applied. */
static char *config(const char *const *sets, int n)
{
	json_t *root = json_loads(TEMPLATE, 0, NULL);
	char *out;

	for (int i = 0; i < n; i++) {
		char sec[32], key[64];
		const char *dot = strchr(sets[i], '.'), *eq = strchr(sets[i], '=');
		json_t *v;

		snprintf(sec, sizeof(sec), "%.*s", (int)(dot - sets[i]), sets[i]);
		snprintf(key, sizeof(key), "%.*s", (int)(eq - dot - 1), dot + 1);
		v = json_loads(eq + 1, JSON_DECODE_ANY, NULL);
		json_object_set_new(json_object_get(root, sec), key, v);
	}
	out = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	return out;
}

/* Run a config; the report text in *text (caller frees) unless NULL. */
static int run(const char *const *sets, int n, char **text, struct sim_cfg *cfg, struct sim *s)
{
	char *cf = config(sets, n), *buf = NULL;
	struct rxb_err err = { 0 };
	size_t len = 0;
	FILE *f;
	int rc = simcfg_parse(cfg, cf, &err);

	free(cf);
	if (rc == 0)
		rc = sim_init(s, cfg, &err);
	if (rc == 0)
		rc = sim_run(s, 0, &err);
	if (rc != 0) {
		fprintf(stderr, "run: %s\n", err.msg);
		sim_free(s);
		return rc;
	}
	if (text) {
		f = open_memstream(&buf, &len);
		sim_report(s, f);
		fclose(f);
		*text = buf;
	}
	return 0;
}

static uint64_t drops(const struct sim *s)
{
	uint64_t d = 0;

	for (int c = 0; c < RXB_DROP_CAUSES; c++)
		d += s->dropped[c];
	return d;
}

static void test_every_arch(void)
{
	static const char *const archs[] = { "\"privring\"",   "\"small_privring\"",
					     "\"shring\"",     "\"shring_list\"",
					     "\"dyn_shring\"", "\"rxbisect\"",
					     "\"spool\"" };
	static struct sim_cfg cfg;
	static struct sim s;

	for (unsigned a = 0; a < sizeof(archs) / sizeof(archs[0]); a++) {
		char name[64];
		const char *sets[3] = { name, "arch.spool_ports=64", "arch.pool_buffers=300000" };

		snprintf(name, sizeof(name), "arch.name=%s", archs[a]);
		CHECK(run(sets, 3, NULL, &cfg, &s) == 0);
		CHECK(s.packets_ok);
		CHECK(s.buffers_ok);
		CHECK(s.offered > 20000);
		CHECK(s.delivered + drops(&s) <= s.offered);
		/* 200 Gbps offered, nobody overloaded: (almost) all of it through */
		CHECK(s.departures > s.offered * 9 / 10);
		sim_free(&s);
	}
}

/* Two runs of the config with `sets` applied give the same report, but for
 * its last key, sim_wall_s. */
static void check_deterministic(const char *const *sets, int n)
{
	static struct sim_cfg cfg;
	static struct sim s;
	char *a = NULL, *b = NULL, *wa, *wb;

	CHECK(run(sets, n, &a, &cfg, &s) == 0);
	sim_free(&s);
	CHECK(run(sets, n, &b, &cfg, &s) == 0);
	sim_free(&s);
	wa = a ? strstr(a, "\"sim_wall_s\"") : NULL;
	wb = b ? strstr(b, "\"sim_wall_s\"") : NULL;
	CHECK(wa && wb && wa - a == wb - b);
	if (wa && wb)
		CHECK(memcmp(a, b, (size_t)(wa - a)) == 0);
	free(a);
	free(b);
}

static void test_deterministic(void)
{
	const char *sets[] = { "arch.name=\"shring\"", "system.slow_cores=[1]",
			       "system.slow_extra_ns=1500" };

	check_deterministic(sets, 3);
}

static void test_head_of_line(void)
{
	/* A slow core: shRing drops at the healthy cores of its group too
	 * (docs/interfaces.md §4.1), privRing and rxBisect only at the slow core. */
	static const char *const archs[] = { "arch.name=\"privring\"", "arch.name=\"shring\"",
					     "arch.name=\"rxbisect\"" };
	static struct sim_cfg cfg;
	static struct sim s;

	for (int a = 0; a < 3; a++) {
		const char *sets[] = { archs[a], "system.slow_cores=[0]",
				       "system.slow_extra_ns=3000", "run.duration_ms=4" };
		uint64_t healthy = 0;

		CHECK(run(sets, 4, NULL, &cfg, &s) == 0);
		for (int c = 0; c < RXB_DROP_CAUSES; c++)
			for (uint32_t d = 1; d < 8; d++)
				healthy += s.dst[d].drops[c];
		if (a == 1)
			CHECK(healthy > 1000);
		else
			CHECK(healthy == 0);
		CHECK(s.packets_ok && s.buffers_ok);
		sim_free(&s);
	}
}

static void test_emulated(void)
{
	static struct sim_cfg cfg;
	static struct sim s;
	const char *sets[] = { "arch.name=\"small_privring\"", "arch.emulated=true",
			       "arch.rx_size=128", "arch.cr_size=128" };

	CHECK(run(sets, 4, NULL, &cfg, &s) == 0);
	CHECK(s.packets_ok && s.buffers_ok);
	/* 16 virtual rings of 128 + 16 physical queues of 128 buffers, which
	 * start past the pool's 2 MiB alignment: the working set's slots reach
	 * the last of them */
	uint64_t stride = sim_buf_stride(&s), huge = 2ull << 20;
	uint64_t extras = (s.pool_base + cfg.scn.arch.pool_buffers * stride + huge - 1) &
			  ~(huge - 1);

	CHECK(s.ws_slots > (extras + (16 * 128 - 1) * stride - s.pool_base) / stride);
	CHECK(s.emu.pkts > 10000);
	CHECK(s.departures > s.offered * 9 / 10);
	sim_free(&s);
}

/* The emulated variant keeps the emulator's queueing (docs/evaluation.md §2.1,
 * docs/simulator.md §2.4), for every design the emulator runs. Two cores
 * with far more work per packet than the offered load allows: a full
 * virtual ring leaves the packet in its physical queue (the model asks
 * rxb_iface_nic_room first), so nothing is dropped at a virtual ring, the
 * physical queues fill to their capacity and the only drops are the
 * physical NIC's at a full physical queue. Not overloaded, the emulated
 * design loses nothing. Both conserve packets and buffers, and the
 * overloaded run is deterministic. */
static void check_backpressure(const char *arch)
{
	static struct sim_cfg cfg;
	static struct sim s;
	const char *over[] = { arch,
			       "arch.emulated=true",
			       "system.cores=2",
			       "system.nics=1",
			       "system.cores_per_nic=[2]",
			       "derived.nic_of_core=[0,0]",
			       "arch.share_degree=2",
			       "workload.compute_ns=900",
			       "run.duration_ms=4",
			       "run.warmup_ms=1",
			       "run.check_invariants=true" };
	const char *normal[] = { arch, "arch.emulated=true", "run.check_invariants=true" };
	const int n_over = (int)(sizeof(over) / sizeof(over[0]));
	uint64_t ring_drops = 0;

	CHECK(run(over, n_over, NULL, &cfg, &s) == 0);
	fprintf(stderr,
		"emulated %s, 2 cores overloaded: %llu of %llu offered departed; "
		"drops no_rx_desc %llu no_ax_buf %llu no_bx_slot %llu cr_full %llu pipeline "
		"%llu (at a full physical queue %llu); physical queue max %u of %u; %llu "
		"retries; emulator busy %.3f\n",
		arch, (unsigned long long)s.departures, (unsigned long long)s.offered,
		(unsigned long long)s.dropped[RXB_DROP_NO_RX_DESC],
		(unsigned long long)s.dropped[RXB_DROP_NO_AX_BUF],
		(unsigned long long)s.dropped[RXB_DROP_NO_BX_SLOT],
		(unsigned long long)s.dropped[RXB_DROP_CR_FULL],
		(unsigned long long)s.dropped[RXB_DROP_PIPELINE],
		(unsigned long long)s.pipeline_phys, s.emu.occ_max, s.emu.pq[0].cap,
		(unsigned long long)s.emu.retries,
		(double)s.emu.busy / (double)(s.end_ps - s.warm_ps));
	for (int c = 0; c < RXB_DROP_CAUSES; c++)
		ring_drops += c == RXB_DROP_PIPELINE ? 0 : s.dropped[c];
	CHECK(s.packets_ok && s.buffers_ok);
	CHECK(s.checks > 1);
	CHECK(s.departures < s.offered / 2); /* the cores, not the load, set the rate */
	CHECK_EQ(ring_drops, 0);
	CHECK(s.dropped[RXB_DROP_PIPELINE] > s.offered / 2);
	CHECK_EQ(s.dropped[RXB_DROP_PIPELINE], s.pipeline_phys);
	CHECK_EQ(s.emu.occ_max, s.emu.pq[0].cap);
	CHECK(s.emu.retries > 0);
	CHECK(s.mem.max_lead_ps <= s.mem.horizon_ps);
	sim_free(&s);
	check_deterministic(over, n_over);

	CHECK(run(normal, 3, NULL, &cfg, &s) == 0);
	CHECK(s.packets_ok && s.buffers_ok);
	CHECK(s.offered > 20000);
	CHECK_EQ(drops(&s), 0);
	CHECK(s.emu.occ_max < s.emu.pq[0].cap);
	sim_free(&s);
}

static void test_emulated_backpressure(void)
{
	/* small privRing is privRing with a smaller ring: the same path. */
	static const char *const archs[] = { "arch.name=\"privring\"", "arch.name=\"shring\"",
					     "arch.name=\"shring_list\"",
					     "arch.name=\"dyn_shring\"", "arch.name=\"rxbisect\"" };

	for (size_t a = 0; a < sizeof(archs) / sizeof(archs[0]); a++)
		check_backpressure(archs[a]);
}

/* A full reception ring drops its packet instead of blocking the physical
 * queue it shares with other cores, as emu/ does: emulated rxBisect with
 * one core taking 90 % of 40 Gbps and no time for it keeps serving the
 * other core of its association set. Core 1's deliveries match the native
 * design's (a blocked shared queue let through a third of them), the
 * overloaded Bx drops no_bx_slot, and nothing waits for long enough to
 * fill the physical queue. */
static void test_emulated_full_bx_does_not_block_the_set(void)
{
	static struct sim_cfg cfg;
	static struct sim s;
	const char *sets[] = { "arch.name=\"rxbisect\"",
			       "arch.emulated=false",
			       "system.cores=2",
			       "system.nics=1",
			       "system.cores_per_nic=[2]",
			       "derived.nic_of_core=[0,0]",
			       "traffic.pattern=\"target\"",
			       "traffic.target_share=0.9",
			       "traffic.target_core=0",
			       "traffic.rate_gbps=40",
			       "workload.compute_ns=900",
			       "run.duration_ms=6",
			       "run.warmup_ms=1" };
	const int n = (int)(sizeof(sets) / sizeof(sets[0]));
	uint64_t native;

	CHECK(run(sets, n, NULL, &cfg, &s) == 0);
	native = s.core[1].pkts;
	sim_free(&s);
	sets[1] = "arch.emulated=true";
	CHECK(run(sets, n, NULL, &cfg, &s) == 0);
	fprintf(stderr,
		"emulated rxBisect, core 0 overloaded: core 1 %llu packets (native %llu); "
		"drops no_bx_slot %llu no_ax_buf %llu pipeline %llu\n",
		(unsigned long long)s.core[1].pkts, (unsigned long long)native,
		(unsigned long long)s.dropped[RXB_DROP_NO_BX_SLOT],
		(unsigned long long)s.dropped[RXB_DROP_NO_AX_BUF],
		(unsigned long long)s.dropped[RXB_DROP_PIPELINE]);
	CHECK(s.packets_ok && s.buffers_ok);
	CHECK(s.core[1].pkts * 100 >= native * 95);
	CHECK(s.dropped[RXB_DROP_NO_BX_SLOT] > 0);
	CHECK_EQ(s.dropped[RXB_DROP_PIPELINE], 0);
	sim_free(&s);
}

/* Total library lock acquisitions of the shared rings (the cores' last
 * snapshots of RXB_SW_LOCK_ACQUIRES). */
static uint64_t lock_acquires(const struct sim *s)
{
	uint64_t n = 0;

	for (uint32_t c = 0; c < s->ncores; c++)
		n += s->core[c].sw_lock;
	return n;
}

static void test_batched_rxlist(void)
{
	/* Batched RxList (arch.rxlist_batch, the library's iface batch): runs,
	 * conserves packets and buffers, carries the load, and appends a
	 * descriptor (one lock) only once per `batch` packets received. */
	static struct sim_cfg cfg;
	static struct sim s;
	const char *plain[] = { "arch.name=\"shring_list\"", "arch.pool_buffers=300000" };
	const char *batched[] = { "arch.name=\"shring_list\"", "arch.pool_buffers=300000",
				  "arch.rxlist_batch=8", "arch.cr_size=8192",
				  "run.check_invariants=true" };
	uint64_t locks_plain, locks_batched, pkts_plain, pkts_batched;
	char *text = NULL;

	CHECK(run(plain, 2, NULL, &cfg, &s) == 0);
	CHECK(s.packets_ok && s.buffers_ok);
	locks_plain = lock_acquires(&s);
	pkts_plain = s.departures;
	sim_free(&s);

	CHECK(run(batched, 5, &text, &cfg, &s) == 0);
	CHECK(cfg.scn.arch.rxlist_batch == 8);
	CHECK(s.packets_ok && s.buffers_ok);
	CHECK(s.checks > 1); /* conservation checked at every sample, too */
	CHECK(s.offered > 20000);
	CHECK(s.delivered + drops(&s) <= s.offered);
	CHECK(s.departures > s.offered * 9 / 10);
	locks_batched = lock_acquires(&s);
	pkts_batched = s.departures;
	CHECK(pkts_plain > 0 && pkts_batched > 0);
	/* per packet, at most half the locks of unbatched RxList */
	CHECK(locks_batched * pkts_plain * 2 < locks_plain * pkts_batched);
	CHECK(text && strstr(text, "\"arch.rxlist_batch\": 8") != NULL);
	free(text);
	sim_free(&s);
}

/* The time rule (docs/simulator.md §1.1): with the cores pushed past
 * saturation, no core touches a shared resource more than the horizon
 * ahead of the event clock, the DRAM model gets no access out of time
 * order by more than the horizon, and no DRAM window sees a demand far
 * above what the memory can serve (the old engine charged a burst's reads
 * in one step: one core ran milliseconds ahead, and the single DRAM window
 * every other source then accounted into saw thousands of times its
 * capacity). Also one overloaded run per other kind of access: a hog, the
 * shared rings' locks, and every network function — the ones of several
 * dependent accesses or waves (kvs, nat, synthetic with its payload
 * touched) step each of them, so not even their later accesses run past
 * the horizon (lead_over: the engine counts any access that does). */
static void test_time_order(void)
{
	static const char *const cases[][10] = {
		{ "arch.name=\"privring\"", "workload.compute_ns=900", "run.duration_ms=20",
		  "run.warmup_ms=2", NULL },
		{ "arch.name=\"rxbisect\"", "workload.compute_ns=1100", "run.duration_ms=10",
		  "run.warmup_ms=2", NULL },
		{ "arch.name=\"shring\"", "workload.compute_ns=900", "run.duration_ms=10",
		  "run.warmup_ms=2", "arch.pool_buffers=300000", NULL },
		/* the hog's cores and the application's fit one socket of 16 */
		{ "arch.name=\"privring\"", "workload.compute_ns=800", "system.hog=\"stream\"",
		  "system.hog_instances=4", "system.cores=12", "system.cores_per_nic=[6,6]",
		  "derived.nic_of_core=[0,0,0,0,0,0,1,1,1,1,1,1]", "run.duration_ms=10", NULL },
		/* the network functions (lb: the cases above) */
		{ "arch.name=\"privring\"", "workload.nf=\"kvs\"", "workload.compute_ns=700",
		  "run.duration_ms=10", "run.warmup_ms=2", NULL },
		{ "arch.name=\"privring\"", "workload.nf=\"nat\"", "workload.compute_ns=900",
		  "run.duration_ms=10", "run.warmup_ms=2", NULL },
		{ "arch.name=\"privring\"", "workload.nf=\"synthetic\"", "workload.reads=4",
		  "workload.payload=\"written\"", "workload.compute_ns=700", "run.duration_ms=10",
		  NULL },
		{ "arch.name=\"privring\"", "workload.nf=\"l3fwd\"", "workload.compute_ns=1000",
		  "run.duration_ms=10", "run.warmup_ms=2", NULL },
		{ "arch.name=\"privring\"", "workload.nf=\"counter\"", "workload.compute_ns=900",
		  "run.duration_ms=10", "run.warmup_ms=2", NULL },
	};
	static struct sim_cfg cfg;
	static struct sim s;

	for (unsigned c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		int n = 0;

		while (n < 10 && cases[c][n])
			n++;
		if (run(cases[c], n, NULL, &cfg, &s) != 0) {
			CHECK(!"the run failed");
			continue;
		}
		fprintf(stderr,
			"time order, case %u (%s %s): max lead %.3f us at a step; %llu accesses "
			"over the horizon (max lead %.3f us); DRAM: busiest window %.2f x "
			"capacity, %llu accesses late (oldest %.3f us before its window), "
			"%.1f ns mean latency; %llu of %llu offered departed\n",
			c, cases[c][0], cases[c][1], s.mem.max_lead_ps / 1e6,
			(unsigned long long)s.mem.lead_over, s.mem.max_ahead_ps / 1e6,
			s.mem.dram.peak_util, (unsigned long long)s.mem.dram.late,
			s.mem.dram.max_age_ps / 1e6,
			s.mem.dram_lat_n
				? (double)s.mem.dram_lat_sum / (double)s.mem.dram_lat_n / 1e3
				: 0.0,
			(unsigned long long)s.departures, (unsigned long long)s.offered);
		CHECK(s.packets_ok && s.buffers_ok);
		/* every step of the engine's own starts within the horizon */
		CHECK(s.mem.max_lead_ps <= s.mem.horizon_ps);
		/* and so does every memory access, a network function's later
		 * ones included */
		CHECK_EQ(s.mem.lead_over, 0);
		CHECK_EQ(s.mem.max_ahead_ps, 0);
		/* every event at or after the event clock, and every NIC read
		 * request in time order (a read issued at a core's clock, ahead
		 * of the NIC's, once made later ones wait behind it) */
		CHECK_EQ(s.events_late, 0);
		for (uint32_t i = 0; i < s.cfg->scn.system.nics; i++)
			CHECK_EQ(s.nic[i].rd.late, 0);
		/* the DRAM model got every access in time order within the horizon */
		CHECK_EQ(s.mem.dram.late, 0);
		CHECK(s.mem.dram.max_age_ps <= s.mem.horizon_ps);
		/* no window crammed with other windows' traffic */
		CHECK(s.mem.dram.peak_util <= 4.0);
		/* overloaded: the cores, not the offered load, set the rate */
		CHECK(s.departures < s.offered);
		sim_free(&s);
	}
}

/* The config with `sets` applied is rejected with a message containing msg. */
static void expect_rejected(const char *const *sets, int n, const char *msg)
{
	static struct sim_cfg cfg;
	struct rxb_err err = { 0 };
	char *c = config(sets, n);

	CHECK(simcfg_parse(&cfg, c, &err) == -EINVAL);
	CHECK(strstr(err.msg, msg) != NULL);
	free(c);
}

static void test_errors(void)
{
	static struct sim_cfg cfg;
	struct rxb_err err = { 0 };
	const char *bad1[] = { "arch.name=\"ringo\"" };
	const char *bad2[] = { "arch.batch=100" };
	const char *bad3[] = { "traffic.packet_bytes=\"big\"" };
	const char *bad4[] = { "arch.name=\"shring_list\"", "arch.rxlist_batch=3" };
	const char *bad5[] = { "arch.name=\"shring_list\"", "arch.rxlist_batch=128" };

	expect_rejected(bad1, 1, "arch.name");
	expect_rejected(bad2, 1, "arch.batch");
	expect_rejected(bad3, 1, "traffic.packet_bytes");
	expect_rejected(bad4, 2, "arch.rxlist_batch = 3");
	expect_rejected(bad5, 2, "arch.rxlist_batch = 128");
	CHECK(simcfg_parse(&cfg, "{\"contract\": 2}", &err) == -EINVAL);
	CHECK(strstr(err.msg, "contract") != NULL);
}

int main(void)
{
	RUN(test_every_arch);
	RUN(test_deterministic);
	RUN(test_head_of_line);
	RUN(test_emulated);
	RUN(test_emulated_backpressure);
	RUN(test_emulated_full_bx_does_not_block_the_set);
	RUN(test_batched_rxlist);
	RUN(test_time_order);
	RUN(test_errors);
	return check_summary();
}
