/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The scenario table as the C engines see it: enum names agree with the ring
 * library's own tables, every default parses for both engines, values are
 * checked with the front end's message shape, "auto" and the mapping to
 * rxb_iface_config follow the documented rules.
 */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "scenario.h"

static void test_enum_names_are_the_librarys(void)
{
	for (unsigned i = 0; i < RXB_SCN_N_KEYS; i++) {
		const struct rxb_scn_key *k = &rxb_scn_keys[i];

		if (k->kind != RXB_SCN_ENUM)
			continue;
		for (unsigned n = 0; n < k->n_names; n++)
			if (strcmp(k->names[n], k->listed[n]) != 0)
				fprintf(stderr,
					"%s: scenario_keys.toml lists '%s' where the library "
					"says '%s'\n",
					k->full, k->listed[n], k->names[n]);
		for (unsigned n = 0; n < k->n_names; n++)
			CHECK(strcmp(k->names[n], k->listed[n]) == 0);
	}
}

static void test_every_default_parses_for_each_engine(void)
{
	static struct rxb_scn s;
	struct rxb_err err = { 0 };

	for (int e = 0; e < RXB_ENGINES; e++)
		for (unsigned i = 0; i < RXB_SCN_N_KEYS; i++)
			CHECK(rxb_scn_set_text(&s, e, rxb_scn_keys[i].full,
					       rxb_scn_keys[i].lim[e].dflt, &err) >= 0);
	rxb_scn_defaults(&s, RXB_ENGINE_SIM);
	CHECK_EQ(s.system.cores, 16);
	CHECK_EQ(s.arch.rx_size, RXB_SCN_AUTO);
	CHECK_EQ(s.arch.name, RXB_ARCH_RXBISECT);
	rxb_scn_defaults(&s, RXB_ENGINE_EMU);
	CHECK_EQ(s.system.cores, 2);
	CHECK(s.arch.emulated);
}

/* Returns the whole message (valid until the next call). */
static const char *expect_error(enum rxb_engine e, const char *key, const char *text,
				const char *msg)
{
	static struct rxb_scn s;
	static struct rxb_err err;

	memset(&err, 0, sizeof(err));
	rxb_scn_defaults(&s, e);
	CHECK_EQ(rxb_scn_set_text(&s, e, key, text, &err), -EINVAL);
	CHECK_EQ(err.code, -EINVAL);
	if (strstr(err.msg, msg) == NULL)
		fprintf(stderr, "expected '%s' in '%s'\n", msg, err.msg);
	CHECK(strstr(err.msg, msg) != NULL);
	return err.msg;
}

static void test_errors_name_key_value_and_what_is_allowed(void)
{
	expect_error(RXB_ENGINE_SIM, "arch.batch", "100",
		     "arch.batch = 100: out of range; allowed: an integer from 1 to 64 (packets)");
	expect_error(RXB_ENGINE_SIM, "arch.rx_size", "1000", "not a power of two");
	/* 2^64 - 1 in full, not as the double 1.8446744073709552e+19 */
	expect_error(RXB_ENGINE_EMU, "emu.packets", "-1",
		     "allowed: an integer from 0 to 18446744073709551615 (packets)");
	expect_error(RXB_ENGINE_SIM, "arch.ax_policy", "linked_random",
		     "unknown value; allowed: one of random, round_robin, most_available");
	expect_error(RXB_ENGINE_SIM, "traffic.rate_gbps", "fast", "cannot be read as a number");
	expect_error(RXB_ENGINE_SIM, "traffic.rate_gbps", "0",
		     "out of range; allowed: a number > 0 and <= 100000 (Gbps)");
	expect_error(RXB_ENGINE_SIM, "arch.rx_sise", "1024", "unknown key");
	expect_error(RXB_ENGINE_SIM, "system.stalled_cores", "[1,x]", "cannot be read as a list");
	/* an empty item was skipped: [0,,1] stalled cores 0 and 1 */
	expect_error(RXB_ENGINE_SIM, "system.stalled_cores", "[0,,1]", "cannot be read as a list");
	expect_error(RXB_ENGINE_EMU, "system.stalled_cores", "0,", "cannot be read as a list");
	expect_error(RXB_ENGINE_SIM, "run.seed", "-1", "out of range");
	/* the emulator's narrower range says why */
	expect_error(RXB_ENGINE_EMU, "system.cores", "65",
		     "from 1 to 64 (cores); on the emulator: runs on a 2-CPU laptop");
	expect_error(RXB_ENGINE_EMU, "arch.rxlist_batch", "2", "simulate batched RxList");
	/* rte_hash holds at least 8 entries; the NAT takes two a flow (3 flows
	 * failed as out of memory, advising fewer) */
	expect_error(RXB_ENGINE_EMU, "workload.nat_flows", "3", "an integer from 4 to 10000000");
	/* an override that differs in scope only (the sources the key affects)
	 * gives no reason after the range, which it does not explain */
	CHECK(strstr(expect_error(RXB_ENGINE_EMU, "traffic.zipf_s", "50", "<= 10"), "on the") ==
	      NULL);
}

static void test_text_reads_as_the_front_end_does(void)
{
	static struct rxb_scn s;
	struct rxb_err err = { 0 };

	rxb_scn_defaults(&s, RXB_ENGINE_SIM);
	CHECK_EQ(rxb_scn_set_text(&s, RXB_ENGINE_SIM, "traffic.flows", "010", &err), 0);
	CHECK_EQ(s.traffic.flows, 10); /* not octal */
	CHECK_EQ(rxb_scn_set_text(&s, RXB_ENGINE_SIM, "traffic.flows", "0x10", &err), 0);
	CHECK_EQ(s.traffic.flows, 16);
	CHECK_EQ(rxb_scn_set_text(&s, RXB_ENGINE_SIM, "traffic.flows", "0b101", &err), 0);
	CHECK_EQ(s.traffic.flows, 5);
	CHECK_EQ(rxb_scn_set_text(&s, RXB_ENGINE_SIM, "arch.name", "'privring'", &err), 0);
	CHECK_EQ(s.arch.name, RXB_ARCH_PRIVRING);
	CHECK_EQ(rxb_scn_set_text(&s, RXB_ENGINE_SIM, "arch.coalesce", "yes", &err), 0);
	CHECK(s.arch.coalesce);
	CHECK_EQ(rxb_scn_set_text(&s, RXB_ENGINE_SIM, "system.slow_cores", "[]", &err), 0);
	CHECK_EQ(s.system.slow_cores.n, 0);
	CHECK_EQ(rxb_scn_set_text(&s, RXB_ENGINE_SIM, "system.slow_cores", "[0, 3]", &err), 0);
	CHECK_EQ(s.system.slow_cores.n, 2);
	CHECK(rxb_scn_list_has(&s.system.slow_cores, 3));
	CHECK_EQ(rxb_scn_set_text(&s, RXB_ENGINE_SIM, "traffic.rate_gbps", "inf", &err), -EINVAL);
}

static void test_keys_an_engine_does_not_honour(void)
{
	static struct rxb_scn s;
	struct rxb_err err = { 0 };

	rxb_scn_defaults(&s, RXB_ENGINE_EMU);
	CHECK_EQ(rxb_scn_set_text(&s, RXB_ENGINE_EMU, "system.hog", "stream", &err), 1);
	CHECK_EQ(s.system.hog, RXB_HOG_STREAM);
	CHECK_EQ(rxb_scn_set_text(&s, RXB_ENGINE_SIM, "emu.sink", "true", &err), 1);
	CHECK_EQ(rxb_scn_set_text(&s, RXB_ENGINE_EMU, "emu.sink", "true", &err), 0);
}

/* The warning of a key given for a design, pattern or engine it does not
 * affect: the same text python/rxbisect/scenario.py no_effect prints (a test
 * there pins the same lines). */
static void test_keys_without_effect_for_the_design_or_pattern(void)
{
	static struct rxb_scn s;
	char buf[256];

	rxb_scn_defaults(&s, RXB_ENGINE_SIM);
	s.arch.name = RXB_ARCH_PRIVRING;
	CHECK(strcmp(rxb_scn_no_effect(&s, RXB_ENGINE_SIM, rxb_scn_key_find("arch.ax_size"), buf,
				       sizeof(buf)),
		     "arch.ax_size has no effect for arch privring (it applies to rxbisect)") == 0);
	CHECK(strcmp(rxb_scn_no_effect(&s, RXB_ENGINE_SIM, rxb_scn_key_find("arch.share_degree"),
				       buf, sizeof(buf)),
		     "arch.share_degree has no effect for arch privring (it applies to shring, "
		     "shring_list, dyn_shring)") == 0);
	CHECK(strcmp(rxb_scn_no_effect(&s, RXB_ENGINE_SIM, rxb_scn_key_find("traffic.pcap"), buf,
				       sizeof(buf)),
		     "traffic.pcap has no effect for pattern constant (it applies to trace)") == 0);
	CHECK(strcmp(rxb_scn_no_effect(&s, RXB_ENGINE_SIM, rxb_scn_key_find("emu.sink"), buf,
				       sizeof(buf)),
		     "emu.sink has no effect in the simulator (it applies to rxb-emu)") == 0);
	CHECK(rxb_scn_no_effect(&s, RXB_ENGINE_SIM, rxb_scn_key_find("arch.rx_size"), buf,
				sizeof(buf)) == NULL);
	/* the emulator's pcap source replays traffic.pcap whatever the pattern; no other
	 * source reads it */
	s.emu.source = RXB_EMU_SOURCE_PCAP;
	CHECK(rxb_scn_no_effect(&s, RXB_ENGINE_EMU, rxb_scn_key_find("traffic.pcap"), buf,
				sizeof(buf)) == NULL);
	s.emu.source = RXB_EMU_SOURCE_GEN;
	CHECK(strcmp(rxb_scn_no_effect(&s, RXB_ENGINE_EMU, rxb_scn_key_find("traffic.pcap"), buf,
				       sizeof(buf)),
		     "traffic.pcap has no effect for emu.source gen (it applies to pcap)") == 0);
	CHECK(strcmp(rxb_scn_no_effect(&s, RXB_ENGINE_EMU, rxb_scn_key_find("emu.port"), buf,
				       sizeof(buf)),
		     "emu.port has no effect for emu.source gen (it applies to port)") == 0);
	CHECK(rxb_scn_no_effect(&s, RXB_ENGINE_EMU, rxb_scn_key_find("emu.learn_flows"), buf,
				sizeof(buf)) == NULL);
	/* a key of another network function (a grid of workload.reads under lb was
	 * the same run at every point, without a word) ... */
	CHECK(strcmp(rxb_scn_no_effect(&s, RXB_ENGINE_SIM, rxb_scn_key_find("workload.reads"), buf,
				       sizeof(buf)),
		     "workload.reads has no effect for workload.nf lb (it applies to "
		     "synthetic)") == 0);
	/* ... and one whose network functions differ by engine: every NF's target
	 * reads in the simulator, the synthetic NF's in the emulator */
	s.workload.nf = RXB_NF_KIND_NAT;
	CHECK(rxb_scn_no_effect(&s, RXB_ENGINE_SIM, rxb_scn_key_find("workload.target_reads"), buf,
				sizeof(buf)) == NULL);
	CHECK(strcmp(rxb_scn_no_effect(&s, RXB_ENGINE_EMU,
				       rxb_scn_key_find("workload.target_reads"), buf, sizeof(buf)),
		     "workload.target_reads has no effect for workload.nf nat (it applies to "
		     "synthetic)") == 0);
	s.workload.nf = RXB_NF_KIND_LB;
	s.emu.source = RXB_EMU_SOURCE_NULL;
	CHECK(strcmp(rxb_scn_no_effect(&s, RXB_ENGINE_EMU, rxb_scn_key_find("emu.learn_flows"), buf,
				       sizeof(buf)),
		     "emu.learn_flows has no effect for emu.source null (it applies to gen)") == 0);
	/* only the generator stops on emu.packets (the null source ran 838384 packets with
	 * emu.packets = 1000, without a word) */
	CHECK(strcmp(rxb_scn_no_effect(&s, RXB_ENGINE_EMU, rxb_scn_key_find("emu.packets"), buf,
				       sizeof(buf)),
		     "emu.packets has no effect for emu.source null (it applies to gen)") == 0);
	s.arch.name = RXB_ARCH_RXBISECT;
	s.traffic.pattern = RXB_PATTERN_TRACE;
	CHECK(rxb_scn_no_effect(&s, RXB_ENGINE_SIM, rxb_scn_key_find("arch.ax_size"), buf,
				sizeof(buf)) == NULL);
	CHECK(rxb_scn_no_effect(&s, RXB_ENGINE_SIM, rxb_scn_key_find("traffic.pcap"), buf,
				sizeof(buf)) == NULL);
}

static void test_auto_rules(void)
{
	static struct rxb_scn s;
	struct rxb_err err = { 0 };

	rxb_scn_defaults(&s, RXB_ENGINE_SIM);
	CHECK_EQ(rxb_scn_set_text(&s, RXB_ENGINE_SIM, "arch.name", "shring_list", &err), 0);
	CHECK_EQ(rxb_scn_set_text(&s, RXB_ENGINE_SIM, "arch.rxlist_batch", "4", &err), 0);
	rxb_scn_resolve_arch(&s, 8);
	CHECK_EQ(s.arch.rx_size, 1024);
	CHECK_EQ(s.arch.cr_size, 4096);
	CHECK_EQ(s.arch.share_degree, 8);
	CHECK_EQ(s.arch.buffer_bytes, 2048);
	CHECK_EQ(s.arch.pool_buffers, RXB_SCN_AUTO); /* the engine's own */
	rxb_scn_defaults(&s, RXB_ENGINE_SIM);
	CHECK_EQ(rxb_scn_set_text(&s, RXB_ENGINE_SIM, "arch.name", "small_privring", &err), 0);
	rxb_scn_resolve_arch(&s, 8);
	CHECK_EQ(s.arch.rx_size, 128);
	CHECK_EQ(s.arch.cr_size, 128);
	/* NICs of 6 and 4 cores: "auto" is their largest common divisor (the
	 * library's rxb_share_degree_up_to), not the fewest (4), which does
	 * not divide 6 and was refused */
	rxb_scn_defaults(&s, RXB_ENGINE_SIM);
	CHECK_EQ(rxb_scn_set_text(&s, RXB_ENGINE_SIM, "arch.name", "shring", &err), 0);
	CHECK_EQ(rxb_scn_set_text(&s, RXB_ENGINE_SIM, "system.cores", "10", &err), 0);
	CHECK_EQ(rxb_scn_set_text(&s, RXB_ENGINE_SIM, "system.cores_per_nic", "[6, 4]", &err), 0);
	rxb_scn_resolve_arch(&s, 4);
	CHECK_EQ(s.arch.share_degree, 2);
	CHECK_EQ(rxb_scn_check(&s, NULL, RXB_ENGINE_SIM, &err), 0);
}

/* An emulator scenario of `cores` workers, `lcores` NIC lcores and one more
 * key (or none), resolved as rxb-emu resolves it. */
static void emu_resolved(struct rxb_scn *s, const char *cores, const char *lcores, const char *key,
			 const char *value)
{
	struct rxb_err err = { 0 };

	rxb_scn_defaults(s, RXB_ENGINE_EMU);
	CHECK_EQ(rxb_scn_set_text(s, RXB_ENGINE_EMU, "system.cores", cores, &err), 0);
	CHECK_EQ(rxb_scn_set_text(s, RXB_ENGINE_EMU, "emu.nic_lcores", lcores, &err), 0);
	if (key != NULL)
		CHECK_EQ(rxb_scn_set_text(s, RXB_ENGINE_EMU, key, value, &err), 0);
	rxb_scn_split_cores(&s->system);
	rxb_scn_resolve_arch(s, s->system.cores_per_nic.v[0]);
}

/* Several NIC lcores: "auto" gives each its own shared rings and
 * association sets; one NIC lcore, the simulator and given values keep
 * what they had. */
static void test_auto_shards_nic_lcores(void)
{
	static struct rxb_scn s;
	struct rxb_err err = { 0 };

	emu_resolved(&s, "8", "1", NULL, NULL);
	CHECK_EQ(s.arch.share_degree, 8);
	CHECK_EQ(s.arch.association, RXB_ASSOC_ALL);
	CHECK_EQ(s.arch.groups, 2);
	emu_resolved(&s, "8", "2", NULL, NULL);
	CHECK_EQ(s.arch.share_degree, 4);
	CHECK_EQ(s.arch.association, RXB_ASSOC_GROUPS);
	CHECK_EQ(s.arch.groups, 2);
	CHECK_EQ(rxb_scn_check(&s, NULL, RXB_ENGINE_EMU, &err), 0);
	emu_resolved(&s, "8", "3", NULL, NULL); /* 3 does not divide 8: 4 of each */
	CHECK_EQ(s.arch.share_degree, 2);
	CHECK_EQ(s.arch.groups, 4);
	CHECK_EQ(rxb_scn_check(&s, NULL, RXB_ENGINE_EMU, &err), 0);
	emu_resolved(&s, "6", "4", NULL, NULL);
	CHECK_EQ(s.arch.share_degree, 1);
	CHECK_EQ(s.arch.groups, 6);
	emu_resolved(&s, "2", "4", NULL, NULL); /* fewer cores than lcores: all apart */
	CHECK_EQ(s.arch.share_degree, 1);
	CHECK_EQ(s.arch.groups, 2);
	emu_resolved(&s, "8", "2", "arch.share_degree", "8");
	CHECK_EQ(s.arch.share_degree, 8);
	emu_resolved(&s, "8", "2", "arch.association", "all");
	CHECK_EQ(s.arch.association, RXB_ASSOC_ALL);
	emu_resolved(&s, "8", "2", "arch.association", "per_nic");
	CHECK_EQ(s.arch.association, RXB_ASSOC_PER_NIC);
	emu_resolved(&s, "8", "2", "arch.emulated", "false");
	CHECK_EQ(s.arch.share_degree, 8);
	CHECK_EQ(s.arch.association, RXB_ASSOC_ALL);
	emu_resolved(&s, "8", "4", "system.nics", "2"); /* a divisor of each NIC's 4 */
	CHECK_EQ(s.arch.share_degree, 2);
	CHECK_EQ(rxb_scn_check(&s, NULL, RXB_ENGINE_EMU, &err), 0);
	rxb_scn_defaults(&s, RXB_ENGINE_SIM); /* the simulator's default is all */
	CHECK_EQ(s.arch.association, RXB_ASSOC_ALL);
}

/* Generator lcores: "auto" keeps every queue within a NIC port, and with
 * more lcores than ports gives each port's lcores a queue each. */
static void gen_resolved(struct rxb_scn *s, const char *nics, const char *gen)
{
	struct rxb_err err = { 0 };

	rxb_scn_defaults(s, RXB_ENGINE_EMU);
	CHECK_EQ(rxb_scn_set_text(s, RXB_ENGINE_EMU, "system.cores", "8", &err), 0);
	CHECK_EQ(rxb_scn_set_text(s, RXB_ENGINE_EMU, "system.nics", nics, &err), 0);
	CHECK_EQ(rxb_scn_set_text(s, RXB_ENGINE_EMU, "emu.source", "gen", &err), 0);
	CHECK_EQ(rxb_scn_set_text(s, RXB_ENGINE_EMU, "emu.gen_lcores", gen, &err), 0);
	rxb_scn_split_cores(&s->system);
	rxb_scn_resolve_arch(s, s->system.cores_per_nic.v[0]);
}

static void test_auto_shards_gen_lcores(void)
{
	static struct rxb_scn s;
	struct rxb_err err = { 0 };

	gen_resolved(&s, "2", "2"); /* a generator lcore per port: a set per port */
	CHECK_EQ(s.arch.share_degree, 4);
	CHECK_EQ(s.arch.association, RXB_ASSOC_GROUPS);
	CHECK_EQ(s.arch.groups, 2);
	gen_resolved(&s, "2", "4"); /* two per port: two rings and sets per port */
	CHECK_EQ(s.arch.share_degree, 2);
	CHECK_EQ(s.arch.groups, 4);
	CHECK_EQ(rxb_scn_check(&s, NULL, RXB_ENGINE_EMU, &err), 0);
	gen_resolved(&s, "4", "2"); /* an lcore plays two ports: sets stay per port */
	CHECK_EQ(s.arch.groups, 4);
	gen_resolved(&s, "2", "6"); /* three per port: 8 cores give 4 per port, 1 each */
	CHECK_EQ(s.arch.share_degree, 1);
	CHECK_EQ(s.arch.groups, 8);
	gen_resolved(&s, "2", "1"); /* one generator lcore: as before */
	CHECK_EQ(s.arch.association, RXB_ASSOC_ALL);
}

static void test_iface_mapping(void)
{
	static struct rxb_scn s;
	struct rxb_iface_config ic;
	struct rxb_err err = { 0 };

	rxb_scn_defaults(&s, RXB_ENGINE_SIM);
	CHECK_EQ(rxb_scn_set_text(&s, RXB_ENGINE_SIM, "arch.association", "per_nic", &err), 0);
	rxb_scn_resolve_arch(&s, 8);
	rxb_scn_iface_config(&s, 8, 1000.0, &ic);
	CHECK_EQ(ic.arch, RXB_ARCH_RXBISECT);
	CHECK_EQ(ic.n_cores, 16);
	CHECK_EQ(ic.n_groups, 2);
	CHECK_EQ(ic.ax_size, 128);
	CHECK_EQ(ic.coalesce_timeout, 1000000); /* 1000 ns in ps */
	CHECK_EQ(ic.desc_prefetch, 8);
	CHECK(!ic.enforce_vendor_min);
	CHECK_EQ(rxb_scn_set_text(&s, RXB_ENGINE_SIM, "arch.name", "dyn_shring", &err), 0);
	rxb_scn_iface_config(&s, 0, 1000.0, &ic);
	CHECK_EQ(ic.n_groups, 1);
	CHECK_EQ(ic.dyn.window, 16);
	CHECK_EQ(ic.dyn.sample_period, 10000000000ull); /* 10 ms in ps */
}

int main(void)
{
	RUN(test_enum_names_are_the_librarys);
	RUN(test_every_default_parses_for_each_engine);
	RUN(test_errors_name_key_value_and_what_is_allowed);
	RUN(test_text_reads_as_the_front_end_does);
	RUN(test_keys_an_engine_does_not_honour);
	RUN(test_keys_without_effect_for_the_design_or_pattern);
	RUN(test_auto_rules);
	RUN(test_auto_shards_nic_lcores);
	RUN(test_auto_shards_gen_lcores);
	RUN(test_iface_mapping);
	return check_summary();
}
