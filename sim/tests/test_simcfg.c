/* SPDX-License-Identifier: BSD-3-Clause
 * The engine's config parser (simcfg_parse) on system.cores_per_nic: the
 * regression of simcfg-cpn-wrap (docs/fuzzing.md), where entries summed in
 * 32 bits wrapped around to system.cores ([4294967295, 9] with 8 cores) and
 * parse_root then walked nic_of_core past its 1024 entries; plus the sum
 * rule either side of it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "simcfg.h"

/* `rxb scenario show --json --set system.cores=8 --set arch.name=privring`,
 * trimmed (no description, profile source, derived values the engine does
 * not read), with system.cores, system.cores_per_nic and
 * derived.nic_of_core left to printf. */
static const char config_fmt[] =
	"{\"contract\":1,\"arch\":{\"name\":\"privring\",\"rx_size\":1024,\"ax_size\":128,"
	"\"bx_size\":1024,\"cr_size\":1024,\"emulated\":false,\"share_degree\":4,"
	"\"rxlist_batch\":1,\"ax_policy\":\"random\",\"association\":\"all\",\"groups\":2,"
	"\"coalesce\":false,\"coalesce_timeout_ns\":1000.0,\"batch\":32,\"buffer_bytes\":2048,"
	"\"headroom_bytes\":0,\"alloc_cache\":256,\"tx_size\":1024,\"pool_buffers\":30000,\"spool_"
	"mode\":\"spp\","
	"\"spool_ports\":1024,\"spool_low\":128,\"spool_high\":1024,\"dyn_sample_ms\":10.0,"
	"\"dyn_window\":16,\"dyn_tput_gbps\":170.0,\"dyn_membw_gibps\":25.0,"
	"\"dyn_overload_factor\":32.0},\"system\":{\"profile\":\"reference\",\"cores\":%s,\"nics\":"
	"2,"
	"\"cores_per_nic\":%s,\"ddio_ways\":2,\"cat_ways\":0,\"cat_prefetch\":true,\"mlp\":10,\"rx_"
	"cqe_wave\":4,\"stalled_cores\":[],"
	"\"stall_at_ms\":0.0,\"stall_for_ms\":0.0,\"slow_cores\":[],\"slow_extra_ns\":0.0,"
	"\"service_cv\":0.25,\"tick_hz\":250.0,\"tick_us\":2.0,\"pause_hz\":1.0,\"pause_us\":50.0,"
	"\"hog\":\"none\",\"hog_instances\":0},\"traffic\":{\"rate_gbps\":100.0,"
	"\"packet_bytes\":1518,\"pattern\":\"constant\",\"target_share\":0.0,"
	"\"target_rate_gbps\":0.0,\"target_packet_bytes\":0,\"target_core\":0,"
	"\"burst_packets\":1024,\"burst_duty\":0.5,\"pcap\":\"\",\"change_at_ms\":0.0,\"change_"
	"target_share\":0.0,\"train_packets\":32,\"pcap_speedup\":1.0,\"pcap_rate_gbps\":0.0,"
	"\"pcap_loop\":false,"
	"\"flows\":65536,\"flow_model\":\"auto\",\"gen_src_addrs\":4128254,\"gen_dst_addrs\":4,"
	"\"key_dist\":\"uniform\",\"zipf_s\":0.99},\"workload\":{\"nf\":\"lb\","
	"\"reads\":2,\"buffer_mib\":40.0,\"payload\":\"untouched\",\"target_reads\":0,"
	"\"costs\":\"study\",\"nf_cycles\":80,\"compute_ns\":0.0,\"nat_flows\":10000000,\"lb_"
	"backends\":32,\"kvs_put_share\":0.95,"
	"\"kvs_keys\":1000000,\"kvs_key_bytes\":128,\"kvs_value_bytes\":1024,"
	"\"counter_slots\":64,\"lpm_table_mib\":1.0,\"flow_capacity\":10000000},"
	"\"run\":{\"duration_ms\":10.0,\"warmup_ms\":1.0,\"seed\":1,\"sample_ms\":1.0,"
	"\"check_invariants\":false,\"llc_sample_shift\":4},\"profile\":{\"name\":\"reference\","
	"\"cpu\":{\"model\":\"Intel Xeon Silver 4216\",\"sockets\":2,\"cores_per_socket\":16,"
	"\"freq_ghz\":2.1,\"mlp\":10,\"rx_cqe_wave\":4,\"l1d_kib\":32,\"l1d_ways\":8,\"l1d_latency_"
	"cycles\":5,"
	"\"l2_kib\":1024,\"l2_ways\":16,\"l2_latency_cycles\":14,\"xsocket_ns\":130.0},\"llc\":{"
	"\"size_mib\":22.0,"
	"\"ways\":11,\"line_bytes\":64,\"latency_cycles\":60,\"ddio_ways\":2,\"inclusive\":false},"
	"\"dram\":{\"kind\":\"DDR4-2933\",\"channels\":4,\"dimm_mts\":2933,\"cpu_max_mts\":2400,"
	"\"bus_bytes\":8,\"capacity_gib\":64,\"idle_ns\":90.0,\"efficiency\":0.8,"
	"\"service_ns\":20.0,\"rho_max\":0.95,\"write_penalty\":0.2599},\"pcie\":{\"gen\":3,"
	"\"lanes\":16,\"gbps\":126.0,"
	"\"dma_read_ns\":526.7,\"dma_read_ns_per_byte\":0.302,\"mrrs_bytes\":512,\"mps_bytes\":256,"
	"\"tlp_overhead_bytes\":24,\"dma_write_ns\":263.35},\"nic\":{\"model\":\"NVIDIA "
	"ConnectX-5\",\"count\":2,"
	"\"link_gbps\":100.0,\"desc_bytes\":16,\"cqe_bytes\":64,\"desc_prefetch\":8,\"dma_read_"
	"slots\":32,"
	"\"reta_size\":512,\"buffer_kib\":256.0}},\"derived\":{\"nic_of_core\":%s}}";

static struct sim_cfg cfg;

static int parse(const char *cores, const char *cpn, const char *noc, struct rxb_err *err)
{
	static char text[sizeof(config_fmt) + 256];

	snprintf(text, sizeof(text), config_fmt, cores, cpn, noc);
	memset(err, 0, sizeof(*err));
	return simcfg_parse(&cfg, text, err);
}

static void test_cores_per_nic(void)
{
	static const char noc8[] = "[0,0,0,0,1,1,1,1]";
	struct rxb_err err;
	int rc;

	/* The config as the front end writes it, and an uneven split. */
	rc = parse("8", "[4,4]", noc8, &err);
	CHECK_EQ(rc, 0);
	if (rc)
		printf("  %s\n", err.msg);
	CHECK(cfg.scn.system.cores == 8 && cfg.scn.system.cores_per_nic.n == 2 &&
	      cfg.nic_of_core[7] == 1);
	CHECK_EQ(parse("8", "[5,3]", "[0,0,0,0,0,1,1,1]", &err), 0);

	/* The fuzz target's input: 4294967295 + 9 is 8 in 32 bits. */
	CHECK_EQ(parse("8", "[4294967295,9]", "[0,0,0,0,0,0,0,0]", &err), -EINVAL);
	printf("  %s\n", err.msg);
	CHECK(strstr(err.msg, "system.cores_per_nic") != NULL);
	/* Other wrap-arounds: to 8 modulo 2^32 in three terms, and with
	 * entries the table accepts on their own but that do not add up. */
	CHECK_EQ(parse("8", "[2147483648,2147483648,8]", noc8, &err), -EINVAL);
	CHECK(strstr(err.msg, "system.cores_per_nic") != NULL);
	CHECK_EQ(parse("8", "[1024,1024]", noc8, &err), -EINVAL);
	printf("  %s\n", err.msg);
	CHECK(strstr(err.msg, "[1024, 1024]: needs 2 entries (one per NIC) adding up to "
			      "system.cores = 8") != NULL);
	CHECK_EQ(parse("8", "[4,5]", noc8, &err), -EINVAL);
	CHECK(strstr(err.msg, "[4, 5]: needs 2 entries") != NULL);
	/* Each entry is at most RXB_MAX_CORES (the scenario table's bound). */
	CHECK_EQ(parse("8", "[1025,1]", noc8, &err), -EINVAL);
	printf("  %s\n", err.msg);
	CHECK(strstr(err.msg, "system.cores_per_nic") != NULL && strstr(err.msg, "1024") != NULL);
}

/* The reference config with its first `from` replaced by `to`. */
static int parse_edited(const char *from, const char *to, struct rxb_err *err)
{
	static char text[sizeof(config_fmt) + 256], edited[sizeof(text) + 64];
	char *at;

	snprintf(text, sizeof(text), config_fmt, "8", "[4,4]", "[0,0,0,0,1,1,1,1]");
	at = strstr(text, from);
	CHECK(at != NULL);
	if (at == NULL)
		return 0;
	snprintf(edited, sizeof(edited), "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	memset(err, 0, sizeof(*err));
	return simcfg_parse(&cfg, edited, err);
}

/* Every profile number within its key's limits, as the front end checks a
 * profile file: with pcie.mrrs_bytes = 0 the DMA model's split never ended. */
static void test_profile_limits(void)
{
	struct rxb_err err;

	CHECK_EQ(parse_edited("\"mrrs_bytes\":512", "\"mrrs_bytes\":0", &err), -EINVAL);
	printf("  %s\n", err.msg);
	CHECK(strcmp(err.msg, "profile.pcie.mrrs_bytes = 0: out of range; allowed: a "
			      "power-of-two integer from 64 to 4096 (bytes)") == 0);
	CHECK_EQ(parse_edited("\"mrrs_bytes\":512", "\"mrrs_bytes\":500", &err), -EINVAL);
	CHECK(strstr(err.msg, "mrrs_bytes = 500: not a power of two") != NULL);
	CHECK_EQ(parse_edited("\"freq_ghz\":2.1", "\"freq_ghz\":0", &err), -EINVAL);
	CHECK(strstr(err.msg, "profile.cpu.freq_ghz = 0: out of range; allowed: a number from "
			      "0.1 to 10 (GHz)") != NULL);
	CHECK_EQ(parse_edited("\"mrrs_bytes\":512", "\"mrrs_bytes\":4096", &err), 0);
}

int main(void)
{
	RUN(test_cores_per_nic);
	RUN(test_profile_limits);
	return check_summary();
}
