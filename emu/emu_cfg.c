/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The emulator's configuration: --set key=value with the scenario
 * vocabulary of `rxb sim` (docs/engine-contract.md §3.1) where it applies,
 * plus emu.* keys. Every rejection names the key, the value, why, and what
 * is allowed.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rte_config.h>

#include "emu.h"
#include "nf/nf.h"
#include "nf/wire.h"

void rxb_emu_cfg_defaults(struct rxb_emu_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->arch = RXB_ARCH_RXBISECT;
	c->emulated = true;
	c->ax_policy = RXB_AX_RANDOM;
	c->groups = 2;
	c->coalesce_timeout_ns = 1000.0;
	c->batch = 32;
	c->buffer_bytes = 2048;
	c->alloc_cache = 256;
	c->dyn = rxb_dynctl_config_default();
	c->dyn_sample_ms = 10.0;
	c->spool_mode = RXB_SPOOL_SPP;
	c->spool_ports = 4;
	c->spool_low = 128;
	c->spool_high = 1024;

	c->cores = 2;
	c->nics = 1;

	c->rate_gbps = 1.0;
	c->packet_bytes = 1500;
	c->pattern = RXB_EMU_PAT_CONSTANT;
	c->burst_packets = 1024;
	c->burst_duty = 0.5;
	c->pcap_speedup = 1.0;
	c->flows = 65536;
	c->zipf_s = 0.99;

	snprintf(c->nf, sizeof(c->nf), "lb");
	c->reads = 2;
	c->buffer_mib = 40.0;
	c->nat_flows = 65536;
	c->lb_backends = 32;
	c->kvs_put_share = 0.95;
	c->kvs_keys = 1000000;
	c->kvs_value_bytes = 1024;
	c->counter_slots = 64;

	c->duration_ms = 1000.0;
	c->sample_ms = 100.0;
	c->seed = 1;

	c->source = RXB_EMU_SRC_GEN;
	c->out = RXB_EMU_OUT_NULL;
	c->rss = RXB_EMU_RSS_AUTO;
	c->drain_ms = 3000.0;
	c->telemetry = true;
}

/* ------------------------------------------------------------- parsers */

static int bad(struct rxb_err *err, const char *key, const char *val, const char *why)
{
	rxb_err_set(err, "%s = %s: %s", key, val, why);
	return -EINVAL;
}

static int parse_u64(const char *key, const char *val, uint64_t lo, uint64_t hi, bool auto_ok,
		     uint64_t *out, struct rxb_err *err)
{
	char why[160];
	char *end;
	unsigned long long v;

	if (auto_ok && strcmp(val, "auto") == 0) {
		*out = 0;
		return 0;
	}
	errno = 0;
	v = strtoull(val, &end, 0);
	if (errno == 0 && end != val && *end == '\0' && val[0] != '-' && v >= lo && v <= hi) {
		*out = v;
		return 0;
	}
	snprintf(why, sizeof(why), "not an integer in range; allowed: an integer in [%llu, %llu]%s",
		 (unsigned long long)lo, (unsigned long long)hi, auto_ok ? " or auto" : "");
	return bad(err, key, val, why);
}

static int parse_u32(const char *key, const char *val, uint32_t lo, uint32_t hi, bool auto_ok,
		     uint32_t *out, struct rxb_err *err)
{
	uint64_t v;
	int rc = parse_u64(key, val, lo, hi, auto_ok, &v, err);

	if (rc == 0)
		*out = (uint32_t)v;
	return rc;
}

/* A number in [lo, hi] (lo_open: lo itself excluded). */
static int parse_num(const char *key, const char *val, double lo, double hi, bool lo_open,
		     double *out, struct rxb_err *err)
{
	char why[160];
	char *end;
	double v;

	errno = 0;
	v = strtod(val, &end);
	if (errno == 0 && end != val && *end == '\0' && isfinite(v) &&
	    (lo_open ? v > lo : v >= lo) && v <= hi) {
		*out = v;
		return 0;
	}
	snprintf(why, sizeof(why), "not a number in range; allowed: a number in %s%g, %g]",
		 lo_open ? "(" : "[", lo, hi);
	return bad(err, key, val, why);
}

static int parse_bool(const char *key, const char *val, bool *out, struct rxb_err *err)
{
	if (strcasecmp(val, "true") == 0 || strcmp(val, "1") == 0 || strcasecmp(val, "yes") == 0) {
		*out = true;
		return 0;
	}
	if (strcasecmp(val, "false") == 0 || strcmp(val, "0") == 0 || strcasecmp(val, "no") == 0) {
		*out = false;
		return 0;
	}
	return bad(err, key, val, "not a boolean; allowed: true, false");
}

/* One of a NULL-terminated list of names; returns its index. */
static int parse_choice(const char *key, const char *val, const char *const *names, int *out,
			struct rxb_err *err)
{
	char why[256];
	size_t off;

	for (int i = 0; names[i] != NULL; i++) {
		if (strcmp(val, names[i]) == 0) {
			*out = i;
			return 0;
		}
	}
	off = (size_t)snprintf(why, sizeof(why), "unknown value; allowed:");
	for (int i = 0; names[i] != NULL && off < sizeof(why); i++)
		off += (size_t)snprintf(why + off, sizeof(why) - off, "%s %s", i ? "," : "",
					names[i]);
	return bad(err, key, val, why);
}

/* A power-of-two ring size (or auto = 0). */
static int parse_ring(const char *key, const char *val, bool auto_ok, uint32_t *out,
		      struct rxb_err *err)
{
	uint32_t v;
	int rc = parse_u32(key, val, RXB_RING_MIN, RXB_RING_MAX, auto_ok, &v, err);

	if (rc != 0)
		return rc;
	if (v != 0 && !rxb_is_pow2(v)) {
		char why[160];

		snprintf(why, sizeof(why), "not a power of two; allowed: a power of two in [%u, %u]%s",
			 RXB_RING_MIN, RXB_RING_MAX, auto_ok ? " or auto" : "");
		return bad(err, key, val, why);
	}
	*out = v;
	return 0;
}

/* A list of core ids "[0, 3]", "0,3" or "[]" into flags[]. */
static int parse_cores(const char *key, const char *val, uint8_t *flags, struct rxb_err *err)
{
	const char *p = val;

	memset(flags, 0, RXB_EMU_MAX_WORKERS);
	while (*p == ' ' || *p == '[')
		p++;
	while (*p != '\0' && *p != ']') {
		char *end;
		long v;

		errno = 0;
		v = strtol(p, &end, 10);
		if (end == p || errno != 0 || v < 0 || v >= (long)RXB_EMU_MAX_WORKERS) {
			char why[128];

			snprintf(why, sizeof(why), "not a list of core ids; allowed: e.g. [0,3] with "
				 "ids in [0, %u)", RXB_EMU_MAX_WORKERS);
			return bad(err, key, val, why);
		}
		flags[v] = 1;
		p = end;
		while (*p == ' ' || *p == ',')
			p++;
	}
	return 0;
}

static int set_string(const char *key, const char *val, char *dst, size_t cap,
		      struct rxb_err *err)
{
	if (strlen(val) >= cap)
		return bad(err, key, val, "too long");
	snprintf(dst, cap, "%s", val);
	return 0;
}

/* Keys of the scenario vocabulary that describe the modelled hardware or
 * the simulator's own machinery: accepted, no effect on a real machine. */
static const char *const ignored_keys[] = {
	"system.profile", "system.cores_per_nic", "system.ddio_ways", "system.cat_ways",
	"system.mlp", "system.hog", "system.hog_instances", "run.llc_sample_shift",
	"arch.headroom_bytes", "workload.kvs_key_bytes", NULL,
};

static const char *const arch_names[] = {
	"privring", "small_privring", "shring", "shring_list", "dyn_shring", "rxbisect", "spool",
	NULL,
};
static const char *const spool_mode_names[] = { "none", "basic", "spp", NULL };
static const char *const policy_names[] = {
	"linked_random", "round_robin", "most_available", NULL,
};
static const char *const assoc_names[] = { "all", "per_nic", "groups", NULL };
static const char *const pattern_names[] = {
	"constant", "poisson", "onoff", "target", "trace", NULL,
};
static const char *const dist_names[] = { "uniform", "zipf", NULL };
static const char *const payload_names[] = { "untouched", "read", "written", NULL };
static const char *const source_names[] = { "gen", "pcap", "null", "port", NULL };
static const char *const rss_names[] = { "auto", "sw", NULL };

static int set_arch(struct rxb_emu_cfg *c, const char *k, const char *v, struct rxb_err *err)
{
	int i;
	int rc;

	if (strcmp(k, "arch.name") == 0) {
		rc = parse_choice(k, v, arch_names, &i, err);
		if (rc == 0)
			c->arch = (enum rxb_arch)i;
		return rc;
	}
	if (strcmp(k, "arch.spool_mode") == 0) {
		rc = parse_choice(k, v, spool_mode_names, &i, err);
		if (rc == 0)
			c->spool_mode = (enum rxb_spool_mode)i;
		return rc;
	}
	/* Ranges of the scenario; what this emulator can run is checked with
	 * the other keys (rxb_emu_cfg_check). */
	if (strcmp(k, "arch.spool_ports") == 0)
		return parse_u32(k, v, 1, 1u << 20, false, &c->spool_ports, err);
	if (strcmp(k, "arch.spool_low") == 0)
		return parse_u32(k, v, 1, 1u << 16, false, &c->spool_low, err);
	if (strcmp(k, "arch.spool_high") == 0)
		return parse_ring(k, v, false, &c->spool_high, err);
	if (strcmp(k, "arch.rx_size") == 0)
		return parse_ring(k, v, true, &c->rx_size, err);
	if (strcmp(k, "arch.cr_size") == 0)
		return parse_ring(k, v, true, &c->cr_size, err);
	if (strcmp(k, "arch.ax_size") == 0)
		return parse_ring(k, v, false, &c->ax_size, err);
	if (strcmp(k, "arch.bx_size") == 0)
		return parse_ring(k, v, false, &c->bx_size, err);
	if (strcmp(k, "arch.emulated") == 0)
		return parse_bool(k, v, &c->emulated, err);
	if (strcmp(k, "arch.share_degree") == 0)
		return parse_u32(k, v, 1, RXB_EMU_MAX_WORKERS, true, &c->share_degree, err);
	if (strcmp(k, "arch.rxlist_batch") == 0) {
		uint32_t batch;

		rc = parse_u32(k, v, 1, 64, false, &batch, err);
		if (rc == 0 && batch != 1)
			return bad(err, k, v, "batched RxList cannot be emulated: a physical "
				   "queue's buffer order is fixed before RSS picks the core, while "
				   "the NIC fills each core's descriptor slot by slot; simulate it "
				   "with `rxb sim`; allowed here: 1");
		return rc;
	}
	if (strcmp(k, "arch.ax_policy") == 0) {
		rc = parse_choice(k, v, policy_names, &i, err);
		if (rc == 0)
			c->ax_policy = (enum rxb_ax_policy)i;
		return rc;
	}
	if (strcmp(k, "arch.association") == 0) {
		rc = parse_choice(k, v, assoc_names, &i, err);
		if (rc == 0)
			c->association = (uint32_t)i;
		return rc;
	}
	if (strcmp(k, "arch.groups") == 0)
		return parse_u32(k, v, 1, RXB_EMU_MAX_WORKERS, false, &c->groups, err);
	if (strcmp(k, "arch.coalesce") == 0)
		return parse_bool(k, v, &c->coalesce, err);
	if (strcmp(k, "arch.coalesce_timeout_ns") == 0)
		return parse_num(k, v, 0, 1e12, false, &c->coalesce_timeout_ns, err);
	if (strcmp(k, "arch.batch") == 0)
		return parse_u32(k, v, 1, RXB_BURST_MAX, false, &c->batch, err);
	if (strcmp(k, "arch.buffer_bytes") == 0)
		return parse_u32(k, v, 128, 16384, true, &c->buffer_bytes, err);
	if (strcmp(k, "arch.alloc_cache") == 0)
		return parse_u32(k, v, 0, 512, false, &c->alloc_cache, err);
	if (strcmp(k, "arch.pool_buffers") == 0)
		return parse_u32(k, v, 64, 1u << 24, true, &c->pool_buffers, err);
	if (strcmp(k, "arch.dyn_sample_ms") == 0)
		return parse_num(k, v, 0.1, 10000, false, &c->dyn_sample_ms, err);
	if (strcmp(k, "arch.dyn_window") == 0)
		return parse_u32(k, v, 1, RXB_DYNCTL_WINDOW_MAX, false, &c->dyn.window, err);
	if (strcmp(k, "arch.dyn_tput_gbps") == 0)
		return parse_num(k, v, 0, 1e6, true, &c->dyn.tput_gbps_threshold, err);
	if (strcmp(k, "arch.dyn_membw_gibps") == 0)
		return parse_num(k, v, 0, 1e6, true, &c->dyn.mem_bw_gibps_threshold, err);
	if (strcmp(k, "arch.dyn_overload_factor") == 0)
		return parse_num(k, v, 0, 1e9, true, &c->dyn.overload_stddev_over_median, err);
	return 1; /* not an arch key we know */
}

static int set_system(struct rxb_emu_cfg *c, const char *k, const char *v, struct rxb_err *err)
{
	if (strcmp(k, "system.cores") == 0)
		return parse_u32(k, v, 1, RXB_EMU_MAX_WORKERS, false, &c->cores, err);
	if (strcmp(k, "system.nics") == 0)
		return parse_u32(k, v, 1, 8, false, &c->nics, err);
	if (strcmp(k, "system.stalled_cores") == 0)
		return parse_cores(k, v, c->stalled, err);
	if (strcmp(k, "system.stall_at_ms") == 0)
		return parse_num(k, v, 0, 1e9, false, &c->stall_at_ms, err);
	if (strcmp(k, "system.stall_for_ms") == 0)
		return parse_num(k, v, 0, 1e9, false, &c->stall_for_ms, err);
	if (strcmp(k, "system.slow_cores") == 0)
		return parse_cores(k, v, c->slow, err);
	if (strcmp(k, "system.slow_extra_ns") == 0)
		return parse_num(k, v, 0, 1e9, false, &c->slow_extra_ns, err);
	return 1;
}

static int set_traffic(struct rxb_emu_cfg *c, const char *k, const char *v, struct rxb_err *err)
{
	int i, rc;

	if (strcmp(k, "traffic.rate_gbps") == 0)
		return parse_num(k, v, 0, 1e5, true, &c->rate_gbps, err);
	if (strcmp(k, "traffic.packet_bytes") == 0)
		return parse_u32(k, v, 64, 9018, false, &c->packet_bytes, err);
	if (strcmp(k, "traffic.pattern") == 0) {
		rc = parse_choice(k, v, pattern_names, &i, err);
		if (rc == 0)
			c->pattern = (enum rxb_emu_pattern)i;
		return rc;
	}
	if (strcmp(k, "traffic.target_share") == 0)
		return parse_num(k, v, 0, 1, false, &c->target_share, err);
	if (strcmp(k, "traffic.target_rate_gbps") == 0)
		return parse_num(k, v, 0, 1e5, false, &c->target_rate_gbps, err);
	if (strcmp(k, "traffic.target_packet_bytes") == 0) {
		rc = parse_u32(k, v, 0, 9018, false, &c->target_packet_bytes, err);
		if (rc == 0 && c->target_packet_bytes != 0 && c->target_packet_bytes < 64)
			return bad(err, k, v, "too small; allowed: 0 (= packet_bytes) or [64, 9018]");
		return rc;
	}
	if (strcmp(k, "traffic.target_core") == 0)
		return parse_u32(k, v, 0, RXB_EMU_MAX_WORKERS - 1, false, &c->target_core, err);
	if (strcmp(k, "traffic.burst_packets") == 0)
		return parse_u32(k, v, 1, 1u << 30, false, &c->burst_packets, err);
	if (strcmp(k, "traffic.burst_duty") == 0)
		return parse_num(k, v, 0, 1, true, &c->burst_duty, err);
	if (strcmp(k, "traffic.pcap") == 0)
		return set_string(k, v, c->pcap, sizeof(c->pcap), err);
	if (strcmp(k, "traffic.pcap_speedup") == 0)
		return parse_num(k, v, 0, 1e6, true, &c->pcap_speedup, err);
	if (strcmp(k, "traffic.flows") == 0)
		return parse_u32(k, v, 1, 1u << 26, false, &c->flows, err);
	if (strcmp(k, "traffic.key_dist") == 0) {
		rc = parse_choice(k, v, dist_names, &i, err);
		if (rc == 0)
			c->zipf = i == 1;
		return rc;
	}
	if (strcmp(k, "traffic.zipf_s") == 0)
		return parse_num(k, v, 0, 100, true, &c->zipf_s, err);
	return 1;
}

static int set_workload(struct rxb_emu_cfg *c, const char *k, const char *v, struct rxb_err *err)
{
	int i, rc;

	if (strcmp(k, "workload.nf") == 0) {
		char why[256];
		size_t off;

		if (rxb_nf_find(v) != NULL)
			return set_string(k, v, c->nf, sizeof(c->nf), err);
		off = (size_t)snprintf(why, sizeof(why), "unknown network function; allowed:");
		for (int n = 0; rxb_nf_registry[n] != NULL && off < sizeof(why); n++)
			off += (size_t)snprintf(why + off, sizeof(why) - off, "%s %s", n ? "," : "",
						rxb_nf_registry[n]->name);
		return bad(err, k, v, why);
	}
	if (strcmp(k, "workload.reads") == 0)
		return parse_u32(k, v, 0, 1u << 20, false, &c->reads, err);
	if (strcmp(k, "workload.buffer_mib") == 0)
		return parse_num(k, v, 0, 65536, true, &c->buffer_mib, err);
	if (strcmp(k, "workload.payload") == 0) {
		rc = parse_choice(k, v, payload_names, &i, err);
		if (rc == 0)
			c->payload = i;
		return rc;
	}
	if (strcmp(k, "workload.target_reads") == 0)
		return parse_u32(k, v, 0, 1u << 20, false, &c->target_reads, err);
	if (strcmp(k, "workload.compute_ns") == 0)
		return parse_num(k, v, 0, 1e9, false, &c->compute_ns, err);
	if (strcmp(k, "workload.nat_flows") == 0)
		return parse_u32(k, v, 1, RXB_NF_MAX_FLOWS, false, &c->nat_flows, err);
	if (strcmp(k, "workload.lb_backends") == 0)
		return parse_u32(k, v, 1, RXB_NF_LB_MAX_BACKENDS, false, &c->lb_backends, err);
	if (strcmp(k, "workload.kvs_put_share") == 0)
		return parse_num(k, v, 0, 1, false, &c->kvs_put_share, err);
	if (strcmp(k, "workload.kvs_keys") == 0)
		return parse_u64(k, v, 1, 1ull << 40, false, &c->kvs_keys, err);
	if (strcmp(k, "workload.kvs_value_bytes") == 0)
		return parse_u32(k, v, 0, RXB_KV_VAL_MAX, false, &c->kvs_value_bytes, err);
	if (strcmp(k, "workload.counter_slots") == 0)
		return parse_u32(k, v, 1, 65536, false, &c->counter_slots, err);
	return 1;
}

static int set_run(struct rxb_emu_cfg *c, const char *k, const char *v, struct rxb_err *err)
{
	if (strcmp(k, "run.duration_ms") == 0)
		return parse_num(k, v, 0, 1e9, true, &c->duration_ms, err);
	if (strcmp(k, "run.warmup_ms") == 0)
		return parse_num(k, v, 0, 1e9, false, &c->warmup_ms, err);
	if (strcmp(k, "run.sample_ms") == 0)
		return parse_num(k, v, 0, 1e9, true, &c->sample_ms, err);
	if (strcmp(k, "run.seed") == 0)
		return parse_u64(k, v, 0, UINT64_MAX, false, &c->seed, err);
	if (strcmp(k, "run.check_invariants") == 0)
		return parse_bool(k, v, &c->check_invariants, err);
	return 1;
}

static int set_emu(struct rxb_emu_cfg *c, const char *k, const char *v, struct rxb_err *err)
{
	int i, rc;

	if (strcmp(k, "emu.source") == 0) {
		rc = parse_choice(k, v, source_names, &i, err);
		if (rc == 0)
			c->source = (enum rxb_emu_source)i;
		return rc;
	}
	if (strcmp(k, "emu.port") == 0) {
		uint32_t p;

		rc = parse_u32(k, v, 0, 1023, false, &p, err);
		if (rc == 0)
			c->port = (uint16_t)p;
		return rc;
	}
	if (strcmp(k, "emu.out") == 0) {
		if (strcmp(v, "null") == 0) {
			c->out = RXB_EMU_OUT_NULL;
			return 0;
		}
		if (strcmp(v, "port") == 0) {
			c->out = RXB_EMU_OUT_PORT;
			return 0;
		}
		if (strncmp(v, "pcap:", 5) == 0 && v[5] != '\0') {
			c->out = RXB_EMU_OUT_PCAP;
			return set_string(k, v + 5, c->out_pcap, sizeof(c->out_pcap), err);
		}
		return bad(err, k, v, "unknown output; allowed: null, port, pcap:<file>");
	}
	if (strcmp(k, "emu.rss") == 0) {
		rc = parse_choice(k, v, rss_names, &i, err);
		if (rc == 0)
			c->rss = (enum rxb_emu_rss)i;
		return rc;
	}
	if (strcmp(k, "emu.packets") == 0)
		return parse_u64(k, v, 0, UINT64_MAX / 2, false, &c->packets, err);
	if (strcmp(k, "emu.drain_ms") == 0)
		return parse_num(k, v, 0, 1e7, false, &c->drain_ms, err);
	if (strcmp(k, "emu.telemetry") == 0)
		return parse_bool(k, v, &c->telemetry, err);
	if (strcmp(k, "emu.progress") == 0)
		return parse_bool(k, v, &c->progress, err);
	if (strcmp(k, "emu.sink") == 0)
		return parse_bool(k, v, &c->sink, err);
	return 1;
}

int rxb_emu_cfg_set(struct rxb_emu_cfg *c, const char *key, const char *value,
		    struct rxb_err *err)
{
	static const struct {
		const char *prefix;
		int (*set)(struct rxb_emu_cfg *, const char *, const char *, struct rxb_err *);
	} sections[] = {
		{ "arch.", set_arch },         { "system.", set_system }, { "traffic.", set_traffic },
		{ "workload.", set_workload }, { "run.", set_run },       { "emu.", set_emu },
	};
	int rc = 1;

	for (int i = 0; ignored_keys[i] != NULL; i++)
		if (strcmp(key, ignored_keys[i]) == 0)
			return 1;
	for (size_t s = 0; s < RTE_DIM(sections); s++) {
		if (strncmp(key, sections[s].prefix, strlen(sections[s].prefix)) == 0) {
			rc = sections[s].set(c, key, value, err);
			break;
		}
	}
	if (rc == 1) {
		rxb_err_set(err, "%s = %s: unknown key; allowed: the keys `rxb-emu --help` lists "
			    "(sections arch, system, traffic, workload, run, emu)", key, value);
		return -EINVAL;
	}
	return rc;
}

/* ------------------------------------------------------------- checks */

uint32_t rxb_emu_phys_queues(const struct rxb_emu_cfg *c)
{
	uint32_t share = c->share_degree ? c->share_degree : c->cores / c->nics;

	switch (c->arch) {
	case RXB_ARCH_PRIVRING:
	case RXB_ARCH_SMALL_PRIVRING:
		return c->cores;
	case RXB_ARCH_SHRING:
	case RXB_ARCH_SHRING_LIST:
		return c->cores / share;
	case RXB_ARCH_DYN_SHRING:
		return c->cores + c->cores / share;
	case RXB_ARCH_RXBISECT:
		return c->association == RXB_EMU_ASSOC_ALL ? 1 :
		       c->association == RXB_EMU_ASSOC_PER_NIC ? c->nics : c->groups;
	case RXB_ARCH_SPOOL: /* rxb_spool_n_queues: basic's PF queues = system.nics */
		return c->spool_mode == RXB_SPOOL_BASIC ? c->nics : c->spool_ports;
	default:
		return 1;
	}
}

uint32_t rxb_emu_lcores_needed(const struct rxb_emu_cfg *c)
{
	return c->cores + (c->emulated ? 1 : 0) + (c->source == RXB_EMU_SRC_GEN ? 1 : 0);
}

/* Set the message and return -EINVAL, in one expression. */
#define CFG_FAIL(err, ...) (rxb_err_set((err), __VA_ARGS__), -EINVAL)

int rxb_emu_cfg_check(const struct rxb_emu_cfg *c, struct rxb_err *err)
{
	const char *arch = rxb_arch_name[c->arch];
	uint32_t cpn = c->cores / c->nics;
	uint32_t share = c->share_degree ? c->share_degree : cpn;
	uint32_t groups = rxb_emu_phys_queues(c);

	if (c->arch == RXB_ARCH_SPOOL) {
		uint32_t q = rxb_emu_phys_queues(c);
		uint32_t vmax = c->source == RXB_EMU_SRC_GEN ? RTE_PMD_RING_MAX_RX_RINGS :
				c->source == RXB_EMU_SRC_PCAP ? 64 : RXB_EMU_MAX_WORKERS;

		if (!c->emulated)
			return CFG_FAIL(err, "arch.emulated = false with arch.name = spool: no PMD "
					"exposes representor queues fed from one shared page pool; "
					"allowed with emulated = false: privring, small_privring");
		if (c->spool_ports > RXB_EMU_MAX_WORKERS)
			return CFG_FAIL(err, "arch.spool_ports = %u: the emulator drives at most %u "
					"representor ports (one result row each); simulate more with "
					"`rxb sim`; allowed: 1..%u", c->spool_ports,
					RXB_EMU_MAX_WORKERS, RXB_EMU_MAX_WORKERS);
		if (q > vmax)
			return CFG_FAIL(err, "arch.spool_ports = %u: spool_mode = %s needs %u physical "
					"Rx queues and the %s vdev has at most %u; allowed: "
					"arch.spool_ports <= %u (or spool_mode = basic)", c->spool_ports,
					rxb_spool_mode_name[c->spool_mode], q,
					c->source == RXB_EMU_SRC_GEN ? "generator's net_ring" :
					c->source == RXB_EMU_SRC_PCAP ? "net_pcap" : "input",
					vmax, vmax);
		if (c->spool_mode == RXB_SPOOL_BASIC && c->nics > c->spool_ports)
			return CFG_FAIL(err, "system.nics = %u: spool_mode = basic uses one shared PF "
					"queue per NIC, at most arch.spool_ports = %u", c->nics,
					c->spool_ports);
		if (c->spool_mode == RXB_SPOOL_SPP && c->spool_low > c->spool_high)
			return CFG_FAIL(err, "arch.spool_low = %u: must not exceed arch.spool_high = "
					"%u", c->spool_low, c->spool_high);
		if (c->target_core >= c->spool_ports)
			return CFG_FAIL(err, "traffic.target_core = %u: with arch.name = spool the "
					"target is a representor port; allowed: 0..%u",
					c->target_core, c->spool_ports - 1);
		if (strcmp(c->nf, "kvs") == 0)
			return CFG_FAIL(err, "workload.nf = kvs with arch.name = spool: KV requests are "
					"steered to their partition's core, spool steers to ports; "
					"allowed: l3fwd, nat, lb, synthetic, counter");
	} else if (c->cores % c->nics != 0) {
		rxb_err_set(err, "system.nics = %u: must divide system.cores = %u (each NIC "
			    "serves an equal share of the workers)", c->nics, c->cores);
		return -EINVAL;
	}
	if (!c->emulated && c->arch != RXB_ARCH_PRIVRING && c->arch != RXB_ARCH_SMALL_PRIVRING)
		return CFG_FAIL(err, "arch.emulated = false with arch.name = %s: %s; allowed "
				"with emulated = false: privring, small_privring", arch,
				c->arch == RXB_ARCH_RXBISECT ?
				"rxBisect needs split Ax/Bx rings that no NIC implements" :
				"shRing needs one Rx ring whose descriptors several cores "
				"re-arm out of order, which no standard PMD exposes");
	if ((c->arch == RXB_ARCH_SHRING || c->arch == RXB_ARCH_SHRING_LIST ||
	     c->arch == RXB_ARCH_DYN_SHRING) &&
	    (cpn % share != 0 || c->cores % share != 0)) {
		rxb_err_set(err, "arch.share_degree = %u: must divide the %u cores of each NIC",
			    share, cpn);
		return -EINVAL;
	}
	if (c->arch == RXB_ARCH_RXBISECT && (groups == 0 || c->cores % groups != 0)) {
		rxb_err_set(err, "arch.groups = %u: must divide system.cores = %u", groups,
			    c->cores);
		return -EINVAL;
	}
	if (c->arch == RXB_ARCH_DYN_SHRING && c->source != RXB_EMU_SRC_GEN)
		return CFG_FAIL(err, "arch.name = %s with emu.source = %s: the switch re-steers "
				"traffic between two sets of physical queues, which only the "
				"built-in generator can do here; allowed: emu.source = gen", arch,
				source_names[c->source]);
	for (uint32_t w = c->cores; w < RXB_EMU_MAX_WORKERS; w++) {
		if (c->stalled[w] || c->slow[w]) {
			rxb_err_set(err, "system.%s_cores contains %u: core ids must be below "
				    "system.cores = %u", c->stalled[w] ? "stalled" : "slow", w,
				    c->cores);
			return -EINVAL;
		}
	}
	if (c->arch != RXB_ARCH_SPOOL && c->target_core >= cpn) {
		rxb_err_set(err, "traffic.target_core = %u: must be below the %u cores of a NIC",
			    c->target_core, cpn);
		return -EINVAL;
	}
	if (c->warmup_ms >= c->duration_ms) {
		rxb_err_set(err, "run.warmup_ms = %g: must be below run.duration_ms = %g",
			    c->warmup_ms, c->duration_ms);
		return -EINVAL;
	}
	if (c->packet_bytes - 4 > c->buffer_bytes) {
		rxb_err_set(err, "traffic.packet_bytes = %u: the frame (without FCS) must fit "
			    "arch.buffer_bytes = %u", c->packet_bytes, c->buffer_bytes);
		return -EINVAL;
	}
	if (c->pattern == RXB_EMU_PAT_TARGET && c->target_share <= 0 && c->target_rate_gbps <= 0)
		return CFG_FAIL(err, "traffic.pattern = target: needs traffic.target_share > 0 or "
				"traffic.target_rate_gbps > 0");
	if (c->target_rate_gbps > c->rate_gbps) {
		rxb_err_set(err, "traffic.target_rate_gbps = %g: must not exceed "
			    "traffic.rate_gbps = %g", c->target_rate_gbps, c->rate_gbps);
		return -EINVAL;
	}
	if ((c->source == RXB_EMU_SRC_PCAP || c->pattern == RXB_EMU_PAT_TRACE) &&
	    c->pcap[0] == '\0')
		return CFG_FAIL(err, "traffic.pcap = '': a trace is needed (emu.source = pcap or "
				"traffic.pattern = trace); allowed: the path of a pcap file");
	if (c->pattern == RXB_EMU_PAT_TRACE && c->source != RXB_EMU_SRC_PCAP)
		return CFG_FAIL(err, "traffic.pattern = trace with emu.source = %s: traces are "
				"replayed by net_pcap; allowed: emu.source = pcap",
				source_names[c->source]);
	if (c->out == RXB_EMU_OUT_PORT && c->source != RXB_EMU_SRC_PORT)
		return CFG_FAIL(err, "emu.out = port with emu.source = %s: only a real port can "
				"send back; allowed: null, pcap:<file>", source_names[c->source]);
	if (strcmp(c->nf, "kvs") == 0 && c->source == RXB_EMU_SRC_NULL)
		return CFG_FAIL(err, "workload.nf = kvs with emu.source = null: KV requests come "
				"from the generator or a trace; allowed: emu.source = gen, pcap, port");
	if (c->alloc_cache > 0 && c->pool_buffers > 0 &&
	    c->alloc_cache * 3 / 2 > c->pool_buffers) {
		rxb_err_set(err, "arch.alloc_cache = %u: too large for arch.pool_buffers = %u "
			    "(DPDK needs pool >= 1.5 x cache)", c->alloc_cache, c->pool_buffers);
		return -EINVAL;
	}
	return 0;
}

void rxb_emu_cfg_print_keys(FILE *f)
{
	fprintf(f,
		"arch.name            privring | small_privring | shring | shring_list | dyn_shring | rxbisect | spool\n"
		"arch.emulated        true (software NIC) | false (native: privring, small_privring)\n"
		"arch.rx_size         power of two | auto (1024; 128 for small_privring)\n"
		"arch.cr_size         power of two | auto (= rx_size)\n"
		"arch.ax_size         power of two (128)       arch.bx_size   power of two (1024)\n"
		"arch.share_degree    cores per shared ring | auto (cores of a NIC)\n"
		"arch.rxlist_batch    1 (batched RxList is simulator-only)\n"
		"arch.ax_policy       linked_random | round_robin | most_available\n"
		"                     (recorded; in emulation the physical buffer order picks the Ax)\n"
		"arch.association     all | per_nic | groups    arch.groups    integer (2)\n"
		"arch.coalesce        bool (false)           arch.coalesce_timeout_ns  number (1000)\n"
		"arch.batch           1..64 (32)             arch.buffer_bytes  data room (2048)\n"
		"arch.alloc_cache     0..512 (256)           arch.pool_buffers  integer | auto\n"
		"arch.dyn_sample_ms, dyn_window, dyn_tput_gbps, dyn_membw_gibps, dyn_overload_factor\n"
		"arch.spool_mode      none | basic | spp (spp)  arch.spool_ports  1..64 (4; <= 16 with emu.source = gen)\n"
		"arch.spool_low (128), arch.spool_high (1024): spp watermarks; none/basic depth = arch.rx_size;\n"
		"                     basic: system.nics = shared PF queues\n"
		"system.cores         workers 1..64 (2)      system.nics    queue groups (1)\n"
		"system.stalled_cores [ids]  system.stall_at_ms  system.stall_for_ms (0 = to the end)\n"
		"system.slow_cores    [ids]  system.slow_extra_ns\n"
		"traffic.rate_gbps    per NIC on the wire (1)  traffic.packet_bytes  64..9018 incl. FCS (1500)\n"
		"traffic.pattern      constant | poisson | onoff | target | trace\n"
		"traffic.target_share, target_rate_gbps, target_packet_bytes, target_core\n"
		"traffic.burst_packets, burst_duty       traffic.pcap  file   traffic.flows (65536)\n"
		"traffic.key_dist     uniform | zipf         traffic.zipf_s (0.99)\n"
		"workload.nf          l3fwd | nat | lb | synthetic | kvs | counter (lb)\n"
		"workload.reads, buffer_mib, payload (untouched|read|written), target_reads, compute_ns\n"
		"workload.nat_flows, lb_backends, kvs_put_share, kvs_keys, kvs_value_bytes, counter_slots\n"
		"run.duration_ms (1000)  run.warmup_ms (0)  run.seed (1)  run.sample_ms  run.check_invariants\n"
		"emu.source           gen | pcap | null | port (gen)   emu.port  ethdev port id\n"
		"emu.out              null | pcap:<file> | port (null)\n"
		"emu.rss              auto (port hash if any) | sw (always software Toeplitz)\n"
		"emu.packets          stop the source after N packets (0 = run.duration_ms)\n"
		"emu.drain_ms (3000)  emu.telemetry (true)  emu.progress (false)\n"
		"emu.sink             workers free packets unprocessed (benchmarks) (false)\n"
		"Accepted without effect: system.profile, ddio_ways, cat_ways, mlp, hog*, cores_per_nic,\n"
		"                         run.llc_sample_shift, arch.headroom_bytes\n");
}
