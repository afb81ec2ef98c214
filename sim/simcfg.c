/* SPDX-License-Identifier: BSD-3-Clause
 * Config and calibration parsing: see simcfg.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "rxb/shring.h"
#include "simcfg.h"

/* A cursor over one section; the first error sticks. */
struct rd {
	json_t *obj;
	char sec[64];
	struct rxb_err *err;
	int bad;
};

static json_t *field(struct rd *r, const char *key, int required)
{
	json_t *v = r->obj ? json_object_get(r->obj, key) : NULL;

	if (v == NULL && required && !r->bad) {
		rxb_err_set(r->err, "%s.%s: missing from the config (docs/engine-contract.md §3)",
			    r->sec, key);
		r->bad = 1;
	}
	return v;
}

static void type_error(struct rd *r, const char *key, const char *want)
{
	if (!r->bad)
		rxb_err_set(r->err, "%s.%s: must be %s", r->sec, key, want);
	r->bad = 1;
}

static double num_opt(struct rd *r, const char *key, double dflt, int required)
{
	json_t *v = field(r, key, required);

	if (v == NULL)
		return dflt;
	if (!json_is_number(v)) {
		type_error(r, key, "a number");
		return dflt;
	}
	return json_number_value(v);
}

static double num(struct rd *r, const char *key)
{
	return num_opt(r, key, 0.0, 1);
}

static uint64_t uint_opt(struct rd *r, const char *key, uint64_t dflt, int required)
{
	json_t *v = field(r, key, required);

	if (v == NULL)
		return dflt;
	if (!json_is_integer(v) || json_integer_value(v) < 0) {
		type_error(r, key, "a non-negative integer");
		return dflt;
	}
	return (uint64_t)json_integer_value(v);
}

static uint32_t u32(struct rd *r, const char *key)
{
	uint64_t v = uint_opt(r, key, 0, 1);

	if (v > UINT32_MAX) {
		type_error(r, key, "below 2^32");
		return 0;
	}
	return (uint32_t)v;
}

static bool boolean(struct rd *r, const char *key)
{
	json_t *v = field(r, key, 1);

	if (v != NULL && !json_is_boolean(v)) {
		type_error(r, key, "true or false");
		return false;
	}
	return v != NULL && json_is_true(v);
}

static const char *str(struct rd *r, const char *key)
{
	json_t *v = field(r, key, 1);

	if (v != NULL && !json_is_string(v)) {
		type_error(r, key, "a string");
		return "";
	}
	return v ? json_string_value(v) : "";
}

static void str_copy(struct rd *r, const char *key, char *dst, size_t cap)
{
	const char *s = str(r, key);

	if (strlen(s) >= cap) {
		type_error(r, key, "shorter");
		return;
	}
	strcpy(dst, s);
}

/* Index of s in names[0..n), or -1 with an error naming the choices. */
static int choice(struct rd *r, const char *key, const char *const *names, int n)
{
	const char *s = str(r, key);

	for (int i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	if (!r->bad) {
		char allowed[256] = "";

		for (int i = 0; i < n; i++)
			snprintf(allowed + strlen(allowed), sizeof(allowed) - strlen(allowed), "%s%s",
				 i ? ", " : "", names[i]);
		rxb_err_set(r->err, "%s.%s = '%s': this engine simulates %s", r->sec, key, s,
			    allowed);
		r->bad = 1;
	}
	return 0;
}

static uint32_t u32_list(struct rd *r, const char *key, uint32_t *out, uint32_t cap)
{
	json_t *v = field(r, key, 1), *e;
	size_t i;

	if (v == NULL)
		return 0;
	if (!json_is_array(v) || json_array_size(v) > cap) {
		type_error(r, key, "an array of integers");
		return 0;
	}
	json_array_foreach(v, i, e) {
		if (!json_is_integer(e) || json_integer_value(e) < 0 ||
		    json_integer_value(e) > UINT32_MAX) {
			type_error(r, key, "an array of non-negative integers");
			return 0;
		}
		out[i] = (uint32_t)json_integer_value(e);
	}
	return (uint32_t)json_array_size(v);
}

static struct rd section(json_t *root, const char *sec, struct rxb_err *err, int *bad)
{
	struct rd r = { .obj = json_object_get(root, sec), .err = err, .bad = *bad };

	snprintf(r.sec, sizeof(r.sec), "%s", sec);
	if (!r.bad && !json_is_object(r.obj)) {
		rxb_err_set(err, "%s: missing or not an object (docs/engine-contract.md §3)", sec);
		r.bad = 1;
	}
	return r;
}

static struct rd sub(struct rd *parent, const char *key)
{
	struct rd r = { .obj = field(parent, key, 1), .err = parent->err, .bad = parent->bad };

	if (!r.bad && !json_is_object(r.obj)) {
		type_error(parent, key, "an object");
		r.bad = 1;
	}
	snprintf(r.sec, sizeof(r.sec), "%.30s.%.30s", parent->sec, key);
	return r;
}

static const char *const ARCH_NAMES[] = { "privring", "small_privring", "shring", "shring_list",
					   "dyn_shring", "rxbisect", "spool" };
static const char *const POLICY_NAMES[] = { "linked_random", "round_robin", "most_available" };
static const char *const ASSOC_NAMES[] = { "all", "per_nic", "groups" };
static const char *const SPOOL_NAMES[] = { "none", "basic", "spp" };
static const char *const PATTERN_NAMES[] = { "constant", "poisson", "onoff", "target",
					     "trace" };
static const char *const NF_NAMES[] = { "l3fwd", "nat", "lb", "synthetic", "kvs", "counter" };
static const char *const PAYLOAD_NAMES[] = { "untouched", "read", "written" };
static const char *const HOG_NAMES[] = { "none", "stream", "pagerank" };
static const char *const DIST_NAMES[] = { "uniform", "zipf" };

static void parse_arch(struct sim_cfg *c, struct rd *r)
{
	str_copy(r, "name", c->arch_name, sizeof(c->arch_name));
	c->arch = (enum rxb_arch)choice(r, "name", ARCH_NAMES, RXB_ARCHS);
	c->rx_size = u32(r, "rx_size");
	c->ax_size = u32(r, "ax_size");
	c->bx_size = u32(r, "bx_size");
	c->cr_size = u32(r, "cr_size");
	c->emulated = boolean(r, "emulated");
	c->share_degree = u32(r, "share_degree");
	c->ax_policy = (enum rxb_ax_policy)choice(r, "ax_policy", POLICY_NAMES, 3);
	c->association = (enum sim_assoc)choice(r, "association", ASSOC_NAMES, 3);
	c->groups = u32(r, "groups");
	c->coalesce = boolean(r, "coalesce");
	c->coalesce_timeout_ns = num(r, "coalesce_timeout_ns");
	c->batch = u32(r, "batch");
	/* optional (added with contract 1 in place): older front ends omit it */
	c->rxlist_batch = (uint32_t)uint_opt(r, "rxlist_batch", 1, 0);
	c->buffer_bytes = u32(r, "buffer_bytes");
	c->headroom_bytes = u32(r, "headroom_bytes");
	c->alloc_cache = u32(r, "alloc_cache");
	c->pool_buffers = u32(r, "pool_buffers");
	c->spool_mode = (enum rxb_spool_mode)choice(r, "spool_mode", SPOOL_NAMES, 3);
	c->spool_ports = u32(r, "spool_ports");
	c->spool_low = u32(r, "spool_low");
	c->spool_high = u32(r, "spool_high");
	c->dyn_sample_ms = num(r, "dyn_sample_ms");
	c->dyn_window = u32(r, "dyn_window");
	c->dyn_tput_gbps = num(r, "dyn_tput_gbps");
	c->dyn_membw_gibps = num(r, "dyn_membw_gibps");
	c->dyn_overload_factor = num(r, "dyn_overload_factor");
}

static void parse_system(struct sim_cfg *c, struct rd *r, uint32_t *n_cpn)
{
	c->cores = u32(r, "cores");
	c->nics = u32(r, "nics");
	*n_cpn = u32_list(r, "cores_per_nic", c->cores_per_nic, SIMCFG_MAX_NICS);
	c->ddio_ways = u32(r, "ddio_ways");
	c->cat_ways = u32(r, "cat_ways");
	c->mlp = u32(r, "mlp");
	c->n_stalled = u32_list(r, "stalled_cores", c->stalled, SIMCFG_MAX_LIST);
	c->stall_at_ms = num(r, "stall_at_ms");
	c->stall_for_ms = num(r, "stall_for_ms");
	c->n_slow = u32_list(r, "slow_cores", c->slow, SIMCFG_MAX_LIST);
	c->slow_extra_ns = num(r, "slow_extra_ns");
	c->hog = (enum sim_hog)choice(r, "hog", HOG_NAMES, 3);
	c->hog_instances = u32(r, "hog_instances");
}

static void parse_traffic(struct sim_cfg *c, struct rd *r)
{
	c->rate_gbps = num(r, "rate_gbps");
	c->packet_bytes = u32(r, "packet_bytes");
	c->pattern = (enum sim_pattern)choice(r, "pattern", PATTERN_NAMES, 5);
	c->target_share = num(r, "target_share");
	c->target_rate_gbps = num(r, "target_rate_gbps");
	c->target_packet_bytes = u32(r, "target_packet_bytes");
	c->target_core = u32(r, "target_core");
	c->burst_packets = u32(r, "burst_packets");
	c->burst_duty = num(r, "burst_duty");
	str_copy(r, "pcap", c->pcap, sizeof(c->pcap));
	c->pcap_speedup = num(r, "pcap_speedup");
	c->flows = u32(r, "flows");
	c->zipf = choice(r, "key_dist", DIST_NAMES, 2) == 1;
	c->zipf_s = num(r, "zipf_s");
}

static void parse_workload(struct sim_cfg *c, struct rd *r)
{
	c->nf = (enum sim_nf)choice(r, "nf", NF_NAMES, NF_COUNT);
	c->reads = u32(r, "reads");
	c->buffer_mib = num(r, "buffer_mib");
	c->payload = (enum sim_payload)choice(r, "payload", PAYLOAD_NAMES, 3);
	c->target_reads = u32(r, "target_reads");
	c->compute_ns = num(r, "compute_ns");
	c->nat_flows = uint_opt(r, "nat_flows", 0, 1);
	c->lb_backends = u32(r, "lb_backends");
	c->kvs_put_share = num(r, "kvs_put_share");
	c->kvs_keys = uint_opt(r, "kvs_keys", 0, 1);
	c->kvs_key_bytes = u32(r, "kvs_key_bytes");
	c->kvs_value_bytes = u32(r, "kvs_value_bytes");
	c->counter_slots = u32(r, "counter_slots");
	/* Engine extension keys (optional). */
	c->lpm_table_mib = num_opt(r, "lpm_table_mib", 1.0, 0);
	c->lb_table_entries = uint_opt(r, "lb_table_entries", 1u << 20, 0);
}

static void parse_run(struct sim_cfg *c, struct rd *r)
{
	c->duration_ms = num(r, "duration_ms");
	c->warmup_ms = num(r, "warmup_ms");
	c->seed = uint_opt(r, "seed", 0, 1);
	c->sample_ms = num(r, "sample_ms");
	c->check_invariants = boolean(r, "check_invariants");
	c->llc_sample_shift = u32(r, "llc_sample_shift");
}

static void parse_profile(struct sim_cfg *c, struct rd *r)
{
	struct rd cpu = sub(r, "cpu"), llc, dram, pcie, nic;

	str_copy(r, "name", c->profile_name, sizeof(c->profile_name));
	c->freq_ghz = num(&cpu, "freq_ghz");
	c->cpu_mlp = u32(&cpu, "mlp");
	c->l2_kib = u32(&cpu, "l2_kib");
	c->l2_latency_cycles = u32(&cpu, "l2_latency_cycles");
	c->xsocket_ns = num_opt(&cpu, "xsocket_ns", 130.0, 0);
	r->bad |= cpu.bad;
	llc = sub(r, "llc");
	c->llc_mib = num(&llc, "size_mib");
	c->llc_ways = u32(&llc, "ways");
	c->llc_line = u32(&llc, "line_bytes");
	c->llc_latency_cycles = u32(&llc, "latency_cycles");
	c->llc_inclusive = boolean(&llc, "inclusive");
	r->bad |= llc.bad;
	dram = sub(r, "dram");
	c->dram_channels = u32(&dram, "channels");
	c->dram_dimm_mts = u32(&dram, "dimm_mts");
	c->dram_cpu_max_mts = u32(&dram, "cpu_max_mts");
	c->dram_bus_bytes = u32(&dram, "bus_bytes");
	c->dram_idle_ns = num(&dram, "idle_ns");
	c->dram_efficiency = num(&dram, "efficiency");
	c->dram_service_ns = num(&dram, "service_ns");
	c->dram_rho_max = num(&dram, "rho_max");
	r->bad |= dram.bad;
	pcie = sub(r, "pcie");
	c->pcie_gbps = num(&pcie, "gbps");
	c->dma_read_ns = num(&pcie, "dma_read_ns");
	c->dma_write_ns = num_opt(&pcie, "dma_write_ns", c->dma_read_ns / 2, 0);
	c->mps_bytes = (uint32_t)uint_opt(&pcie, "mps_bytes", 256, 0);
	c->tlp_overhead_bytes = (uint32_t)uint_opt(&pcie, "tlp_overhead_bytes", 24, 0);
	r->bad |= pcie.bad;
	nic = sub(r, "nic");
	c->link_gbps = num(&nic, "link_gbps");
	c->desc_bytes = u32(&nic, "desc_bytes");
	c->cqe_bytes = u32(&nic, "cqe_bytes");
	c->desc_prefetch = u32(&nic, "desc_prefetch");
	c->reta_size = u32(&nic, "reta_size");
	c->nic_buffer_kib = num_opt(&nic, "buffer_kib", 256.0, 0);
	r->bad |= nic.bad;
}

/* ------------------------------------------------------- calibration */

static int parse_calib(struct sim_calib *cal, json_t *doc, struct rxb_err *err)
{
	int bad = 0;
	struct rd top = { .obj = doc, .sec = "calibration", .err = err, .bad = 0 };

	struct rd cy = sub(&top, "cycles"), rx, emu;
	json_t *m;

	bad = top.bad;
	rx = sub(&cy, "rx_per_pkt");
	emu = sub(&cy, "emu_per_pkt");
	for (int a = 0; a < RXB_ARCHS; a++) {
		cal->rx_per_pkt[a] = num(&rx, ARCH_NAMES[a]);
		cal->emu_per_pkt[a] = num(&emu, ARCH_NAMES[a]);
	}
	cal->rx_per_call = num(&cy, "rx_per_call");
	cal->empty_poll = num(&cy, "empty_poll");
	cal->doorbell = num(&cy, "doorbell");
	cal->alloc_per_obj = num(&cy, "alloc_per_obj");
	cal->alloc_bulk = num(&cy, "alloc_bulk");
	cal->alloc_per_obj_shared = num(&cy, "alloc_per_obj_shared");
	cal->lock = num(&cy, "lock");
	cal->bitmap_or = num(&cy, "bitmap_or");
	cal->return_per_desc = num(&cy, "return_per_desc");
	cal->tx_per_pkt = num(&cy, "tx_per_pkt");
	cal->emu_per_batch = num(&cy, "emu_per_batch");
	bad |= cy.bad | rx.bad | emu.bad;
	if (json_is_string(json_object_get(doc, "origin")))
		snprintf(cal->origin, sizeof(cal->origin), "%s",
			 json_string_value(json_object_get(doc, "origin")));
	if (json_is_string(json_object_get(doc, "date")))
		snprintf(cal->date, sizeof(cal->date), "%s",
			 json_string_value(json_object_get(doc, "date")));
	m = json_object_get(doc, "machine");
	if (json_is_object(m) && json_is_string(json_object_get(m, "cpu")))
		snprintf(cal->machine, sizeof(cal->machine), "%s",
			 json_string_value(json_object_get(m, "cpu")));
	return bad ? -EINVAL : 0;
}

static int load_calib(struct sim_cfg *c, json_t *root, struct rxb_err *err)
{
	json_t *v = json_object_get(root, "calibration"), *doc;
	json_error_t je;
	int rc;

	if (v == NULL) {
		doc = json_loads(sim_default_calibration_json, 0, &je);
		if (doc == NULL) {
			rxb_err_set(err, "built-in calibration: line %d: %s", je.line, je.text);
			return -EINVAL;
		}
	} else if (json_is_string(v)) {
		doc = json_load_file(json_string_value(v), 0, &je);
		if (doc == NULL) {
			rxb_err_set(err, "calibration = '%s': %s (line %d)", json_string_value(v),
				    je.text, je.line);
			return -EINVAL;
		}
	} else if (json_is_object(v)) {
		doc = json_incref(v);
	} else {
		rxb_err_set(err, "calibration: must be an object or the path of a JSON file");
		return -EINVAL;
	}
	rc = parse_calib(&c->cal, doc, err);
	json_decref(doc);
	return rc;
}

int simcfg_parse_calibration(struct sim_calib *cal, const char *text, struct rxb_err *err)
{
	json_error_t je;
	json_t *doc = json_loads(text, 0, &je);
	int rc;

	memset(cal, 0, sizeof(*cal));
	if (doc == NULL) {
		rxb_err_set(err, "calibration: line %d: %s", je.line, je.text);
		return -EINVAL;
	}
	rc = parse_calib(cal, doc, err);
	json_decref(doc);
	return rc;
}

/* ---------------------------------------------------------- top level */

static int check(struct sim_cfg *c, uint32_t n_cpn, struct rxb_err *err)
{
	uint32_t sum = 0;

#define REJECT(...)                              \
	do {                                     \
		rxb_err_set(err, __VA_ARGS__);   \
		return -EINVAL;                  \
	} while (0)
	if (c->cores < 1 || c->cores > RXB_MAX_CORES)
		REJECT("system.cores = %u: must be in [1, %u]", c->cores, RXB_MAX_CORES);
	if (c->nics < 1 || c->nics > SIMCFG_MAX_NICS)
		REJECT("system.nics = %u: must be in [1, %u]", c->nics, SIMCFG_MAX_NICS);
	if (n_cpn != c->nics)
		REJECT("system.cores_per_nic: %u entries for %u NICs", n_cpn, c->nics);
	for (uint32_t n = 0; n < c->nics; n++) {
		if (c->cores_per_nic[n] == 0)
			REJECT("system.cores_per_nic[%u] = 0: every NIC needs a core", n);
		sum += c->cores_per_nic[n];
	}
	if (sum != c->cores)
		REJECT("system.cores_per_nic sums to %u, not system.cores = %u", sum, c->cores);
	for (uint32_t i = 0; i < c->n_stalled; i++)
		if (c->stalled[i] >= c->cores)
			REJECT("system.stalled_cores: core %u does not exist", c->stalled[i]);
	for (uint32_t i = 0; i < c->n_slow; i++)
		if (c->slow[i] >= c->cores)
			REJECT("system.slow_cores: core %u does not exist", c->slow[i]);
	if (c->batch < 1 || c->batch > RXB_BURST_MAX)
		REJECT("arch.batch = %u: the ring library receives at most %u packets a call",
		       c->batch, RXB_BURST_MAX);
	if (c->rxlist_batch < 1 || c->rxlist_batch > RXB_SHRING_BATCH_MAX ||
	    !rxb_is_pow2(c->rxlist_batch))
		REJECT("arch.rxlist_batch = %u: must be a power of two from 1 (not batched) to %u",
		       c->rxlist_batch, RXB_SHRING_BATCH_MAX);
	if (c->arch == RXB_ARCH_SHRING_LIST &&
	    (uint64_t)c->rx_size * c->rxlist_batch > RXB_RING_MAX)
		REJECT("arch.rxlist_batch = %u: arch.rx_size x arch.rxlist_batch = %llu buffer "
		       "slots, at most %u", c->rxlist_batch,
		       (unsigned long long)c->rx_size * c->rxlist_batch, RXB_RING_MAX);
	if (!(c->duration_ms > 0) || c->warmup_ms < 0 || c->warmup_ms >= c->duration_ms)
		REJECT("run.warmup_ms = %g, run.duration_ms = %g: need 0 <= warmup < duration",
		       c->warmup_ms, c->duration_ms);
	if (c->duration_ms > 1e6)
		REJECT("run.duration_ms = %g: at most 1000 s of simulated time", c->duration_ms);
	if (!(c->sample_ms > 0))
		REJECT("run.sample_ms = %g: must be > 0", c->sample_ms);
	if (c->duration_ms / c->sample_ms > 100000)
		REJECT("run.sample_ms = %g: more than 100000 samples in run.duration_ms = %g",
		       c->sample_ms, c->duration_ms);
	if (c->llc_sample_shift > 16)
		REJECT("run.llc_sample_shift = %u: must be in [0, 16]", c->llc_sample_shift);
	if (!(c->freq_ghz > 0) || !(c->pcie_gbps > 0) || !(c->link_gbps > 0))
		REJECT("profile: cpu.freq_ghz, pcie.gbps and nic.link_gbps must be > 0");
	if (c->llc_line != 64)
		REJECT("profile.llc.line_bytes = %u: the LLC model has 64 B lines", c->llc_line);
	if (c->ddio_ways > c->llc_ways || c->cat_ways >= c->llc_ways)
		REJECT("system.ddio_ways = %u / cat_ways = %u: the LLC has %u ways", c->ddio_ways,
		       c->cat_ways, c->llc_ways);
	if (c->cqe_bytes == 0 || c->cqe_bytes > 4096 || c->desc_bytes == 0)
		REJECT("profile.nic.cqe_bytes = %u, desc_bytes = %u: must be in 1..4096",
		       c->cqe_bytes, c->desc_bytes);
	if (c->mps_bytes == 0)
		REJECT("profile.pcie.mps_bytes = 0: must be > 0");
	if (c->mlp < 1)
		REJECT("system.mlp = %u: must be >= 1", c->mlp);
	if (c->packet_bytes < 64 || c->packet_bytes + c->headroom_bytes > c->buffer_bytes)
		REJECT("traffic.packet_bytes = %u: does not fit arch.buffer_bytes = %u",
		       c->packet_bytes, c->buffer_bytes);
	if (c->target_packet_bytes &&
	    (c->target_packet_bytes < 64 ||
	     c->target_packet_bytes + c->headroom_bytes > c->buffer_bytes))
		REJECT("traffic.target_packet_bytes = %u: must be 64..%u", c->target_packet_bytes,
		       c->buffer_bytes - c->headroom_bytes);
	if (c->rate_gbps > c->link_gbps * (1 + 1e-9) || !(c->rate_gbps > 0))
		REJECT("traffic.rate_gbps = %g: must be in (0, %g]", c->rate_gbps, c->link_gbps);
	if (c->flows < 1)
		REJECT("traffic.flows = 0: must be >= 1");
	if (c->pattern == PAT_TARGET) {
		for (uint32_t n = 0; n < c->nics; n++)
			if (c->target_core >= c->cores_per_nic[n] || c->cores_per_nic[n] < 2)
				REJECT("traffic.target_core = %u: NIC %u has %u cores (pattern "
				       "target needs 2 or more and the target among them)",
				       c->target_core, n, c->cores_per_nic[n]);
		if (c->target_share <= 0 && c->target_rate_gbps <= 0)
			REJECT("traffic.target_share = 0 and target_rate_gbps = 0: pattern target "
			       "needs one of them");
	}
	if (c->pattern == PAT_TRACE && c->pcap[0] == '\0')
		REJECT("traffic.pcap: required when traffic.pattern = 'trace'");
	if (c->arch == RXB_ARCH_SPOOL && c->emulated)
		REJECT("arch.emulated = true with arch.name = 'spool': the simulator models the "
		       "emulator for privring, small_privring, shring, shring_list, dyn_shring "
		       "and rxbisect");
	if (c->arch == RXB_ARCH_RXBISECT && c->association == ASSOC_PER_NIC) {
		for (uint32_t n = 1; n < c->nics; n++)
			if (c->cores_per_nic[n] != c->cores_per_nic[0])
				REJECT("arch.association = 'per_nic' with uneven "
				       "system.cores_per_nic: the library's association groups "
				       "are equal blocks of cores");
	}
	if (c->arch == RXB_ARCH_RXBISECT && c->association == ASSOC_GROUPS &&
	    (c->groups < 1 || c->cores % c->groups))
		REJECT("arch.groups = %u: must divide system.cores = %u", c->groups, c->cores);
	if (c->nf == NF_KVS && c->kvs_keys > UINT32_MAX)
		REJECT("workload.kvs_keys = %llu: at most 2^32 - 1",
		       (unsigned long long)c->kvs_keys);
	if (c->counter_slots < 1 || c->lb_backends < 1 || c->nat_flows < 1 || c->kvs_keys < 1)
		REJECT("workload: counter_slots, lb_backends, nat_flows and kvs_keys must be >= 1");
	if (!(c->buffer_mib > 0) || !(c->lpm_table_mib > 0))
		REJECT("workload.buffer_mib / lpm_table_mib: must be > 0");
	if (c->lb_table_entries < 1)
		REJECT("workload.lb_table_entries: must be >= 1");
#undef REJECT
	return 0;
}

static int parse_root(struct sim_cfg *c, json_t *root, struct rxb_err *err)
{
	int bad = 0;
	uint32_t n_cpn = 0, n_noc;
	json_t *contract = json_object_get(root, "contract");
	struct rd r, d;

	memset(c, 0, sizeof(*c));
	if (!json_is_object(root)) {
		rxb_err_set(err, "config: not a JSON object");
		return -EINVAL;
	}
	if (!json_is_integer(contract) || json_integer_value(contract) != 1) {
		rxb_err_set(err, "contract: this engine speaks contract 1 (docs/engine-contract.md)");
		return -EINVAL;
	}
	r = section(root, "arch", err, &bad);
	parse_arch(c, &r);
	bad |= r.bad;
	r = section(root, "system", err, &bad);
	parse_system(c, &r, &n_cpn);
	bad |= r.bad;
	r = section(root, "traffic", err, &bad);
	parse_traffic(c, &r);
	bad |= r.bad;
	r = section(root, "workload", err, &bad);
	parse_workload(c, &r);
	bad |= r.bad;
	r = section(root, "run", err, &bad);
	parse_run(c, &r);
	bad |= r.bad;
	r = section(root, "profile", err, &bad);
	parse_profile(c, &r);
	bad |= r.bad;
	d = section(root, "derived", err, &bad);
	n_noc = u32_list(&d, "nic_of_core", c->nic_of_core, RXB_MAX_CORES);
	bad |= d.bad;
	if (bad)
		return -EINVAL;
	if (n_noc != c->cores) {
		rxb_err_set(err, "derived.nic_of_core: %u entries for %u cores", n_noc, c->cores);
		return -EINVAL;
	}
	if (check(c, n_cpn, err) != 0)
		return -EINVAL;
	for (uint32_t k = 0, core = 0; k < c->nics; k++)
		for (uint32_t j = 0; j < c->cores_per_nic[k]; j++, core++)
			if (c->nic_of_core[core] != k) {
				rxb_err_set(err, "derived.nic_of_core[%u] = %u: cores are numbered "
					    "NIC by NIC (expected %u)", core, c->nic_of_core[core], k);
				return -EINVAL;
			}
	return load_calib(c, root, err);
}

int simcfg_parse(struct sim_cfg *c, const char *text, struct rxb_err *err)
{
	json_error_t je;
	json_t *root = json_loads(text, 0, &je);
	int rc;

	if (root == NULL) {
		rxb_err_set(err, "config: line %d: %s", je.line, je.text);
		return -EINVAL;
	}
	rc = parse_root(c, root, err);
	json_decref(root);
	return rc;
}

int simcfg_load(struct sim_cfg *c, const char *path, struct rxb_err *err)
{
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	int rc;

	if (root == NULL) {
		rxb_err_set(err, "config '%s': %s (line %d)", path, je.text, je.line);
		return -EINVAL;
	}
	rc = parse_root(c, root, err);
	json_decref(root);
	return rc;
}
