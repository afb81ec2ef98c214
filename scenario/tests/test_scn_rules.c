/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The cross-key rules (scn_rules.c), table-driven: each case breaks one rule
 * from the reference scenario and names the one message it must give; every
 * rule of the table has a case, and the reference scenario breaks none.
 */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "rxb/shape.h"
#include "scenario.h"

/* The reference machine: 16 cores per socket, 2 NICs of 100 Gbps, 11 ways. */
static const struct rxb_scn_machine ref = { "ref", 16, 2, 11, 100.0, 22.0, 64 };

struct rule_case {
	const char *rule;
	enum rxb_engine engine; /* from its defaults */
	const char *sets[5];    /* "key=value", NULL-terminated */
	const char *message;    /* what the message starts with */
};

#define SIM RXB_ENGINE_SIM
#define EMU RXB_ENGINE_EMU

static const struct rule_case cases[] = {
	{ "cores fit one socket",
	  SIM,
	  { "system.cores=32" },
	  "system.cores = 32: profile 'ref' has 16 cores per socket and applications run on "
	  "one socket; allowed: 1 to 16" },
	{ "NICs exist", SIM, { "system.nics=4" }, "system.nics = 4: profile 'ref' has 2 NICs" },
	{ "a core per NIC",
	  SIM,
	  { "system.cores=1" },
	  "system.cores = 1: fewer cores than NICs (system.nics = 2); allowed: at least 2" },
	{ "the split adds up",
	  SIM,
	  { "system.cores_per_nic=[4,4]" },
	  "system.cores_per_nic = [4, 4]: needs 2 entries (one per NIC) adding up to "
	  "system.cores = 16" },
	{ "core ids exist",
	  SIM,
	  { "system.slow_cores=[1,16]" },
	  "system.slow_cores = [1, 16]: core 16 does not exist (system.cores = 16); allowed: "
	  "core ids 0 to 15" },
	{ "core ids ascend",
	  SIM,
	  { "system.stalled_cores=[3,1,3]" },
	  "system.stalled_cores = [3, 1, 3]: core 1 is out of order (the list names a set of "
	  "cores); allowed: each core once, in ascending order: [1, 3]" },
	{ "DDIO ways exist",
	  SIM,
	  { "system.ddio_ways=12" },
	  "system.ddio_ways = 12: profile 'ref' LLC has 11 ways; allowed: 0 to 11" },
	{ "CAT leaves a way",
	  SIM,
	  { "system.cat_ways=11" },
	  "system.cat_ways = 11: must leave at least one of the 11 LLC ways" },
	{ "hogs fit the socket",
	  SIM,
	  { "system.hog=stream", "system.hog_instances=2" },
	  "system.hog_instances = 2: with 16 worker cores the socket of profile 'ref' has 0 "
	  "cores left; allowed: 0 to 0" },
	{ "rate fits the link",
	  SIM,
	  { "traffic.rate_gbps=100.5" },
	  "traffic.rate_gbps = 100.5: exceeds the 100 Gbps link of profile 'ref'" },
	{ "bursts fit the link",
	  SIM,
	  { "traffic.pattern=onoff", "traffic.burst_duty=0.25" },
	  "traffic.burst_duty = 0.25: bursts would arrive at rate_gbps / burst_duty = 400 Gbps, "
	  "above the 100 Gbps link; allowed: 1 to 1" },
	/* just above the link: refused here, not by the traffic model's tighter
	 * bound after the front end passed it, and said with all its digits */
	{ "bursts fit the link",
	  SIM,
	  { "traffic.pattern=onoff", "traffic.rate_gbps=50", "traffic.burst_duty=0.4999999999" },
	  "traffic.burst_duty = 0.4999999999: bursts would arrive at rate_gbps / burst_duty = "
	  "100.00000002 Gbps" },
	{ "a trace names its file",
	  SIM,
	  { "traffic.pattern=trace" },
	  "traffic.pcap = '': required when traffic.pattern = 'trace'" },
	{ "a load change has its target",
	  SIM,
	  { "traffic.change_at_ms=1", "traffic.target_core=8" },
	  "traffic.target_core = 8: traffic.change_at_ms needs a target core and a NIC has only "
	  "8 cores; allowed: 0 to 7" },
	{ "targeting has a load",
	  SIM,
	  { "traffic.pattern=target" },
	  "traffic.target_share = 0: pattern 'target' needs a share or traffic.target_rate_gbps" },
	{ "the target rate fits",
	  SIM,
	  { "traffic.pattern=target", "traffic.rate_gbps=50", "traffic.target_rate_gbps=60" },
	  "traffic.target_rate_gbps = 60: more than the NIC's traffic.rate_gbps = 50" },
	{ "the target core exists",
	  SIM,
	  { "traffic.pattern=target", "traffic.target_share=0.5", "traffic.target_core=8" },
	  "traffic.target_core = 8: a NIC has only 8 cores; allowed: 0 to 7" },
	{ "frames fit buffers",
	  SIM,
	  { "traffic.packet_bytes=4000" },
	  "traffic.packet_bytes = 4000: does not fit a buffer of arch.buffer_bytes = 2048 minus "
	  "arch.headroom_bytes = " },
	{ "share degree divides each NIC",
	  SIM,
	  { "arch.name=shring", "arch.share_degree=3" },
	  "arch.share_degree = 3: must divide the cores of every NIC [8, 8]" },
	{ "groups divide the cores",
	  SIM,
	  { "arch.association=groups", "arch.groups=3" },
	  "arch.groups = 3: must divide system.cores = 16" },
	{ "per-NIC sets are even",
	  SIM,
	  { "arch.association=per_nic", "system.cores_per_nic=[6,10]" },
	  "arch.association = 'per_nic': system.cores_per_nic = [6, 10] is uneven" },
	{ "RxList slots fit a ring",
	  SIM,
	  { "arch.name=shring_list", "arch.rx_size=1048576", "arch.rxlist_batch=2" },
	  "arch.rxlist_batch = 2: arch.rx_size x arch.rxlist_batch = 2097152 buffer slots" },
	{ "RxList batches leave each core one",
	  SIM,
	  { "arch.name=shring_list", "arch.rx_size=8", "arch.rxlist_batch=4" },
	  "arch.rx_size = 8: batched RxList (arch.rxlist_batch = 4) needs more descriptors than "
	  "arch.share_degree = 8" },
	{ "a Bx holds its Ax",
	  SIM,
	  { "arch.name=rxbisect", "arch.ax_size=2048", "arch.bx_size=1024" },
	  "arch.bx_size = 1024: smaller than arch.ax_size = 2048" },
	{ "spool queues fit",
	  SIM,
	  { "arch.name=spool", "arch.spool_mode=spp", "arch.spool_ports=70000" },
	  "arch.spool_ports = 70000: spool_mode = 'spp' gives every port a queue of its own" },
	{ "spool low below high",
	  SIM,
	  { "arch.spool_low=2048" },
	  "arch.spool_low = 2048: above arch.spool_high = 1024; allowed: 1 to 1024" },
	{ "the emulator model has the design",
	  SIM,
	  { "arch.name=spool", "arch.emulated=true" },
	  "arch.emulated = true: the simulator models the emulator for privring" },
	{ "NICs share the cores equally",
	  EMU,
	  { "system.cores=3", "system.nics=2" },
	  "system.nics = 2: must divide system.cores = 3 (each NIC serves an equal share of the "
	  "workers)" },
	{ "a trace names its file",
	  EMU,
	  { "emu.source=pcap" },
	  "traffic.pcap = '': required when emu.source = 'pcap'" },
	{ "the target core exists",
	  EMU,
	  { "arch.name=spool", "traffic.pattern=target", "traffic.target_share=0.5",
	    "traffic.target_core=4" },
	  "traffic.target_core = 4: with arch.name = 'spool' the target is one of the 4 "
	  "representor ports; allowed: 0 to 3" },
	{ "a trace is replayed from pcap",
	  EMU,
	  { "traffic.pattern=trace", "traffic.pcap=t.pcap" },
	  "emu.source = 'gen': traffic.pattern = 'trace' is replayed by net_pcap" },
	{ "native runs are privRing",
	  EMU,
	  { "arch.emulated=false" },
	  "arch.emulated = false with arch.name = 'rxbisect': rxBisect needs split Ax/Bx rings" },
	{ "dynamic shRing needs the generator",
	  EMU,
	  { "arch.name=dyn_shring", "emu.source=null" },
	  "emu.source = 'null': arch.name = 'dyn_shring' re-steers traffic" },
	{ "the cache fits the pool",
	  EMU,
	  { "arch.alloc_cache=512", "arch.pool_buffers=600" },
	  "arch.alloc_cache = 512: too large for arch.pool_buffers = 600 (a mempool needs 1.5 x "
	  "its cache); allowed: 0 to 400" },
	{ "the pool primes the rings",
	  SIM,
	  { "arch.pool_buffers=2047" },
	  "arch.pool_buffers = 2047: fewer than the 2048 buffers the rings start with; allowed: "
	  "at least 2048 and a cache's worth (arch.alloc_cache = 256) more per core, or "
	  "\"auto\"" },
	{ "KV requests have a source",
	  EMU,
	  { "workload.nf=kvs", "emu.source=null" },
	  "workload.nf = 'kvs' with emu.source = 'null'" },
	{ "basic queues fit the ports",
	  SIM,
	  { "arch.name=spool", "arch.spool_mode=basic", "arch.spool_ports=1" },
	  "system.nics = 2: spool_mode = 'basic' uses one shared PF queue per NIC" },
	{ "targeting leaves other cores",
	  SIM,
	  { "traffic.pattern=target", "traffic.target_share=0.5", "system.cores=2" },
	  "system.cores_per_nic = [1, 1]: pattern 'target' needs at least 2 cores per NIC" },
	{ "target frames are frames",
	  SIM,
	  { "traffic.target_packet_bytes=32" },
	  "traffic.target_packet_bytes = 32: below the 64 B minimum frame" },
	{ "warm-up ends before the run",
	  SIM,
	  { "run.warmup_ms=10" },
	  "run.warmup_ms = 10: not shorter than run.duration_ms = 10; allowed: 0 to below 10" },
	{ "LLC sampling leaves sets",
	  SIM,
	  { "run.llc_sample_shift=11" },
	  "run.llc_sample_shift = 11: profile 'ref' LLC has 1024 groups of 32 sets, and sampling 1 "
	  "in 2^11 of them leaves none; allowed: 0 to 10" },
	{ "flow tables hold the flows",
	  SIM,
	  { "workload.flow_capacity=1000000" },
	  "workload.flow_capacity = 1000000: each core's flow table has" },
	{ "samples fit",
	  SIM,
	  { "run.sample_ms=0.00001" },
	  "run.sample_ms = 1e-05: run.duration_ms = 10 would take 1000000 samples, more than the "
	  "simulator's 100000" },
	{ "controller samples fit",
	  SIM,
	  { "arch.name=dyn_shring", "arch.dyn_sample_ms=0.00001" },
	  "arch.dyn_sample_ms = 1e-05: run.duration_ms = 10 would take 1000000 controller "
	  "samples" },
	{ "ticks leave the core time",
	  SIM,
	  { "system.tick_us=4000" },
	  "system.tick_us = 4000: a tick every 4000 us (system.tick_hz = 250) that lasts this long "
	  "leaves the core no time; allowed: less than 4000" },
};

static int resolve_with(enum rxb_engine e, const char *const *sets, struct rxb_scn *s,
			struct rxb_err *err)
{
	rxb_scn_defaults(s, e);
	for (; *sets != NULL; sets++) {
		char key[64];
		const char *eq = strchr(*sets, '=');

		snprintf(key, sizeof(key), "%.*s", (int)(eq - *sets), *sets);
		if (rxb_scn_set_text(s, e, key, eq + 1, err) < 0)
			return -1;
	}
	return rxb_scn_resolve(s, &ref, e, err);
}

static void test_each_rule_gives_its_message(void)
{
	static struct rxb_scn s;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rxb_err err = { 0 };
		int rc = resolve_with(cases[i].engine, cases[i].sets, &s, &err);

		if (rc != -EINVAL || strncmp(err.msg, cases[i].message, strlen(cases[i].message)))
			fprintf(stderr, "rule '%s': rc %d, got \"%s\"\n", cases[i].rule, rc,
				err.msg);
		CHECK_EQ(rc, -EINVAL);
		CHECK(strncmp(err.msg, cases[i].message, strlen(cases[i].message)) == 0);
	}
}

/* arch.headroom_bytes is the simulator's (the emulator warns that it
 * ignores it): it takes room from a buffer there only. */
static void test_a_key_an_engine_ignores_breaks_no_rule_there(void)
{
	static const char *const sets[] = { "arch.headroom_bytes=1000", NULL };
	static struct rxb_scn s;
	struct rxb_err err = { 0 };

	CHECK_EQ(resolve_with(SIM, sets, &s, &err), -EINVAL);
	CHECK_EQ(resolve_with(EMU, sets, &s, &err), 0);
}

static void test_every_rule_has_a_case(void)
{
	for (unsigned r = 0; r < rxb_scn_n_rules(); r++) {
		bool found = false;

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
			found |= strcmp(cases[i].rule, rxb_scn_rule_name(r)) == 0;
		if (!found)
			fprintf(stderr, "rule '%s' has no case\n", rxb_scn_rule_name(r));
		CHECK(found);
	}
	CHECK(rxb_scn_rule_name(rxb_scn_n_rules()) == NULL);
	/* and every case names a rule of the table */
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool known = false;

		for (unsigned r = 0; r < rxb_scn_n_rules(); r++)
			known |= strcmp(cases[i].rule, rxb_scn_rule_name(r)) == 0;
		CHECK(known);
	}
}

/* The reference scenario passes and its "auto" values are the documented ones. */
static void test_reference_resolves(void)
{
	static const char *const none[] = { NULL };
	static struct rxb_scn s;
	struct rxb_iface_shape shape;
	struct rxb_err err = { 0 };
	char text[64];

	CHECK_EQ(resolve_with(SIM, none, &s, &err), 0);
	CHECK_EQ(s.system.cores_per_nic.n, 2);
	CHECK_EQ(s.system.cores_per_nic.v[1], 8);
	CHECK_EQ(s.arch.rx_size, RXB_DEFAULT_RX_SIZE);
	CHECK_EQ(s.arch.share_degree, 8);
	CHECK_EQ(s.arch.pool_buffers, rxb_scn_pool_auto(&s));
	CHECK_EQ(rxb_scn_shape(&s, &shape, &err), 0);
	CHECK_EQ(shape.posted, 16 * s.arch.ax_size);
	CHECK(s.arch.pool_buffers >= shape.needed);
	CHECK_EQ(rxb_scn_get_text(&s, "system.cores_per_nic", text, sizeof(text)), 0);
	CHECK(strcmp(text, "[8, 8]") == 0);
	CHECK_EQ(rxb_scn_get_text(&s, "system.ddio_ways", text, sizeof(text)), 0);
	CHECK(strcmp(text, "auto") == 0);
	CHECK_EQ(rxb_scn_get_text(&s, "no.such", text, sizeof(text)), -EINVAL);
	/* without the machine, its rules are the engine's */
	CHECK_EQ(rxb_scn_set_text(&s, SIM, "traffic.rate_gbps", "1000", &err), 0);
	CHECK_EQ(rxb_scn_check(&s, NULL, SIM, &err), 0);
	CHECK_EQ(rxb_scn_check(&s, &ref, SIM, &err), -EINVAL);
	/* and the emulator's defaults pass its own rules */
	CHECK_EQ(resolve_with(EMU, none, &s, &err), 0);
}

/* "auto" pools fill every ring, at any ring size: dynamic shRing's came
 * short of its shared set's rings, which large rings no longer hid in the
 * caches' and Tx rings' share ("could post only ..." from the engine). */
static void test_auto_pools_hold_the_rings(void)
{
	static const char *const archs[] = { "privring",    "small_privring", "shring",
					     "shring_list", "dyn_shring",     "rxbisect" };
	static struct rxb_scn s;

	for (size_t a = 0; a < sizeof(archs) / sizeof(archs[0]); a++) {
		char name[64];
		const char *sets[] = { name, "arch.rx_size=65536", NULL };
		struct rxb_iface_shape shape;
		struct rxb_err err = { 0 };

		snprintf(name, sizeof(name), "arch.name=%s", archs[a]);
		CHECK_EQ(resolve_with(SIM, sets, &s, &err), 0);
		CHECK_EQ(rxb_scn_shape(&s, &shape, &err), 0);
		if (s.arch.pool_buffers < shape.needed)
			fprintf(stderr, "%s: pool %u < needed %llu\n", archs[a],
				s.arch.pool_buffers, (unsigned long long)shape.needed);
		CHECK(s.arch.pool_buffers >= shape.needed);
	}
}

int main(void)
{
	RUN(test_each_rule_gives_its_message);
	RUN(test_a_key_an_engine_ignores_breaks_no_rule_there);
	RUN(test_every_rule_has_a_case);
	RUN(test_reference_resolves);
	RUN(test_auto_pools_hold_the_rings);
	return check_summary();
}
