/* SPDX-License-Identifier: BSD-3-Clause
 *
 * From a checked scenario to what the engines build: "auto" values, the ring
 * library's rxb_iface_config (one mapping for the simulator and the
 * emulator), and the table printed for people (--help) and for the drift
 * test (--keys).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "rng.h"
#include "rxb/shape.h"
#include "scenario.h"

static uint32_t auto_or(uint32_t v, uint32_t resolved)
{
	return v == RXB_SCN_AUTO ? resolved : v;
}

/* Buffer slots of one descriptor: batched RxList holds several. */
static uint32_t slots_per_desc(const struct rxb_scn_arch *a)
{
	return a->name == RXB_ARCH_SHRING_LIST ? a->rxlist_batch : 1;
}

/* arch.share_degree "auto": the library's rule for a default share degree
 * (rxb_share_degree_up_to), over the NICs' core counts, since it must
 * divide each NIC's cores; `most` is the scenario's cap. */
static uint32_t share_auto(const struct rxb_scn *s, uint32_t most)
{
	const struct rxb_scn_list *cpn = &s->system.cores_per_nic;

	return rxb_share_degree_up_to(cpn->v, cpn->n, most);
}

/* The fewest equal blocks of `cores` that are at least `least` and a
 * multiple of `step` (blocks within NIC ports: step = nics); all cores
 * apart when no such count divides them (arch.groups must divide the
 * cores). */
static uint32_t equal_blocks_from(uint32_t cores, uint32_t least, uint32_t step)
{
	for (uint32_t g = (least + step - 1) / step * step; g < cores; g += step)
		if (cores % g == 0)
			return g;
	return cores;
}

/* An emulated run's lcores each need physical queues of their own, and a
 * design has one queue per shared ring or per association set: with M NIC
 * lcores (emu.nic_lcores) "auto" makes at least M of them; with G > 1
 * generator lcores (emu.gen_lcores) every queue stays within one NIC port,
 * and with G above the ports, each port's lcores (G / nics) get one each.
 * A value the user gave stays; the emulator refuses one that leaves an
 * lcore without a queue. Simulated runs keep their "auto": the front end
 * resolves for the simulator with emu.* at its defaults (one lcore each). */
static void shard_lcores(struct rxb_scn *s)
{
	struct rxb_scn_arch *a = &s->arch;
	uint32_t cores = s->system.cores, nics = s->system.nics;
	uint32_t g = s->emu.source == RXB_EMU_SOURCE_GEN ? s->emu.gen_lcores : 1;
	uint32_t m = s->emu.nic_lcores > g ? s->emu.nic_lcores : g;
	uint32_t step = g > 1 ? nics : 1;

	if (!a->emulated || m <= 1)
		return;
	if (a->share_degree == RXB_SCN_AUTO)
		a->share_degree = share_auto(s, cores / m > 1 ? cores / m : 1);
	if (a->association == RXB_ASSOC_AUTO) {
		a->association = RXB_ASSOC_GROUPS;
		a->groups = equal_blocks_from(cores, m, step);
	}
}

void rxb_scn_resolve_arch(struct rxb_scn *s, uint32_t min_cores_per_nic)
{
	struct rxb_scn_arch *a = &s->arch;

	shard_lcores(s);
	if (a->association == RXB_ASSOC_AUTO)
		a->association = RXB_ASSOC_ALL;
	a->rx_size = auto_or(a->rx_size, a->name == RXB_ARCH_SMALL_PRIVRING
						 ? RXB_DEFAULT_SMALL_RX_SIZE
						 : RXB_DEFAULT_RX_SIZE);
	a->cr_size = auto_or(a->cr_size, a->rx_size * slots_per_desc(a));
	if (a->share_degree == RXB_SCN_AUTO)
		a->share_degree = share_auto(s, min_cores_per_nic);
	a->buffer_bytes = auto_or(a->buffer_bytes, a->name == RXB_ARCH_SPOOL ? 4096 : 2048);
}

uint32_t rxb_scn_assoc_groups(const struct rxb_scn *s)
{
	switch (s->arch.association) {
	case RXB_ASSOC_PER_NIC:
		return s->system.nics;
	case RXB_ASSOC_GROUPS:
		return s->arch.groups;
	default:
		return 1;
	}
}

static uint64_t ticks(double ns, double ticks_per_ns)
{
	return (uint64_t)llround(ns * ticks_per_ns);
}

void rxb_scn_iface_config(const struct rxb_scn *s, uint32_t desc_prefetch, double ticks_per_ns,
			  struct rxb_iface_config *ic)
{
	const struct rxb_scn_arch *a = &s->arch;

	memset(ic, 0, sizeof(*ic));
	ic->arch = a->name;
	ic->n_cores = s->system.cores;
	ic->rx_size = a->rx_size;
	ic->cr_size = a->cr_size;
	ic->desc_prefetch = desc_prefetch;
	ic->share_degree = a->share_degree;
	ic->rxlist_slots = slots_per_desc(a);
	ic->ax_size = a->ax_size;
	ic->bx_size = a->bx_size;
	ic->ax_policy = a->ax_policy;
	ic->n_groups = a->name == RXB_ARCH_RXBISECT ? rxb_scn_assoc_groups(s) : 1;
	/* Scenarios may go below the vendor minimum on purpose (sizing studies);
	 * the sizing calculator says when they do. */
	ic->enforce_vendor_min = false;
	ic->coalesce = a->coalesce;
	ic->coalesce_timeout = ticks(a->coalesce_timeout_ns, ticks_per_ns);
	/* The NIC's PRNG gets a stream of its own, apart from the traffic's. */
	ic->seed = sim_mix64(s->run.seed ^ 0xb15ec7);
	ic->spool.n_ports = a->spool_ports;
	ic->spool.mode = a->spool_mode;
	ic->spool.depth = a->rx_size;
	ic->spool.basic_queues = s->system.nics;
	ic->spool.low = a->spool_low;
	ic->spool.high = a->spool_high;
	ic->spool.desc_prefetch = desc_prefetch;
	if (a->name == RXB_ARCH_DYN_SHRING) {
		ic->dyn = rxb_dynctl_config_default();
		ic->dyn.tput_gbps_threshold = a->dyn_tput_gbps;
		ic->dyn.mem_bw_gibps_threshold = a->dyn_membw_gibps;
		ic->dyn.window = a->dyn_window;
		ic->dyn.overload_stddev_over_median = a->dyn_overload_factor;
		ic->dyn.sample_period = ticks(a->dyn_sample_ms * 1e6, ticks_per_ns);
		if (ic->dyn.sample_period == 0)
			ic->dyn.sample_period = 1;
	}
}

uint64_t rxb_scn_pool_auto(const struct rxb_scn *s)
{
	const struct rxb_scn_arch *a = &s->arch;
	/* Every ring full at once (rxBisect: Ax posted + Bx delivered; others: a
	 * core's completion ring, rx_size x slots, may hold its whole share). */
	uint64_t ring = a->name == RXB_ARCH_RXBISECT ? (uint64_t)a->ax_size + a->bx_size
						     : (uint64_t)a->rx_size * slots_per_desc(a);
	uint64_t per_core = ring + 2ull * a->alloc_cache + a->tx_size;
	uint64_t ports = a->name == RXB_ARCH_SPOOL
				 ? (uint64_t)a->spool_ports *
					   (a->rx_size > a->spool_high ? a->rx_size : a->spool_high)
				 : 0;
	/* Dynamic shRing keeps its shared set primed beside the private one: a
	 * shared ring per share_degree cores. */
	uint64_t shared = a->name == RXB_ARCH_DYN_SHRING && a->share_degree != 0
				  ? (uint64_t)s->system.cores / a->share_degree * a->rx_size *
					    slots_per_desc(a)
				  : 0;

	return s->system.cores * per_core + ports + shared;
}

bool rxb_nf_keeps_flows(enum rxb_nf_kind nf)
{
	return nf == RXB_NF_KIND_LB || nf == RXB_NF_KIND_NAT;
}

bool rxb_scn_generator_ranges(const struct rxb_scn *s)
{
	const struct rxb_scn_traffic *t = &s->traffic;

	if (t->flow_model != RXB_FLOW_MODEL_AUTO)
		return t->flow_model == RXB_FLOW_MODEL_GENERATOR;
	/* targeting and a load change need flow pools steered to cores,
	 * which drawn flows give */
	return rxb_nf_keeps_flows(s->workload.nf) &&
	       (t->pattern == RXB_PATTERN_CONSTANT || t->pattern == RXB_PATTERN_POISSON ||
		t->pattern == RXB_PATTERN_ONOFF) &&
	       !(t->change_at_ms > 0 && t->change_target_share > 0);
}

uint32_t rxb_scn_fewest_cores(const struct rxb_scn *s)
{
	uint32_t fewest = UINT32_MAX;

	for (uint32_t i = 0; i < s->system.cores_per_nic.n; i++)
		if (s->system.cores_per_nic.v[i] != 0 && s->system.cores_per_nic.v[i] < fewest)
			fewest = s->system.cores_per_nic.v[i];
	return fewest == UINT32_MAX ? s->system.cores : fewest;
}

uint64_t rxb_scn_flow_table_for(uint64_t keys)
{
	uint64_t e = RXB_SCN_FLOW_BUCKET;

	while (e < keys)
		e <<= 1;
	return e;
}

uint64_t rxb_scn_flow_table_entries(const struct rxb_scn *s)
{
	uint32_t fewest = rxb_scn_fewest_cores(s);

	return rxb_scn_flow_table_for((s->workload.flow_capacity + fewest - 1) / fewest);
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b != 0) {
		uint64_t r = a % b;

		a = b;
		b = r;
	}
	return a;
}

uint64_t rxb_scn_flows_per_nic(const struct rxb_scn *s)
{
	const struct rxb_scn_traffic *t = &s->traffic;

	if (t->pattern == RXB_PATTERN_TRACE)
		return 0;
	if (rxb_scn_generator_ranges(s))
		return t->gen_src_addrs / gcd(t->gen_src_addrs, t->gen_dst_addrs) *
		       t->gen_dst_addrs;
	return t->flows;
}

/* An empty system.cores_per_nic: as even as it gets, the first NICs one
 * core more. */
void rxb_scn_split_cores(struct rxb_scn_system *sy)
{
	if (sy->cores_per_nic.n != 0 || sy->nics == 0 || sy->nics > RXB_SCN_LIST_MAX)
		return;
	for (uint32_t n = 0; n < sy->nics; n++)
		sy->cores_per_nic.v[n] = sy->cores / sy->nics + (n < sy->cores % sy->nics);
	sy->cores_per_nic.n = sy->nics;
}

int rxb_scn_resolve(struct rxb_scn *s, const struct rxb_scn_machine *m, enum rxb_engine e,
		    struct rxb_err *err)
{
	const struct rxb_scn_list *cpn = &s->system.cores_per_nic;
	uint32_t least = UINT32_MAX;
	uint64_t pool;
	int rc;

	rxb_scn_split_cores(&s->system);
	for (uint32_t n = 0; n < cpn->n; n++)
		least = cpn->v[n] < least ? cpn->v[n] : least;
	rxb_scn_resolve_arch(s, cpn->n ? least : 0);
	rc = rxb_scn_check(s, m, e, err);
	if (rc != 0 || s->arch.pool_buffers != RXB_SCN_AUTO)
		return rc;
	pool = rxb_scn_pool_auto(s);
	if (pool > rxb_scn_key_find("arch.pool_buffers")->lim[e].hi)
		return rxb_err_fail(err, -EINVAL,
				    "arch.pool_buffers = \"auto\": %llu buffers, more "
				    "than the pool holds; allowed: fewer cores or smaller rings",
				    (unsigned long long)pool);
	s->arch.pool_buffers = (uint32_t)pool;
	return 0;
}

int rxb_scn_shape(const struct rxb_scn *s, struct rxb_iface_shape *shape, struct rxb_err *err)
{
	struct rxb_iface_config ic;

	rxb_scn_iface_config(s, 0, 1.0, &ic);
	return rxb_iface_shape(&ic, shape, err);
}

size_t rxb_scn_size(void)
{
	return sizeof(struct rxb_scn);
}

const char *rxb_scn_list_text(const struct rxb_scn_list *l, char *buf, size_t cap)
{
	size_t len = (size_t)snprintf(buf, cap, "[");

	for (uint32_t i = 0; i < l->n && len < cap; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%u", i ? ", " : "", l->v[i]);
	if (len < cap)
		snprintf(buf + len, cap - len, "]");
	return buf;
}

int rxb_scn_get_text(const struct rxb_scn *s, const char *full, char *buf, size_t cap)
{
	const struct rxb_scn_key *k = rxb_scn_key_find(full);
	const void *v;

	if (k == NULL)
		return -EINVAL;
	v = (const char *)s + k->offset;
	if (k->auto_ok && *(const uint32_t *)v == RXB_SCN_AUTO) {
		snprintf(buf, cap, "auto");
		return 0;
	}
	switch (k->kind) {
	case RXB_SCN_BOOL:
		snprintf(buf, cap, "%s", *(const bool *)v ? "true" : "false");
		break;
	case RXB_SCN_U32:
		snprintf(buf, cap, "%u", *(const uint32_t *)v);
		break;
	case RXB_SCN_U64:
		snprintf(buf, cap, "%llu", (unsigned long long)*(const uint64_t *)v);
		break;
	case RXB_SCN_F64:
		rxb_scn_num_text(*(const double *)v, buf, cap);
		break;
	case RXB_SCN_ENUM:
		snprintf(buf, cap, "%s", k->names[*(const unsigned *)v]);
		break;
	case RXB_SCN_LIST:
		rxb_scn_list_text(v, buf, cap);
		break;
	default:
		snprintf(buf, cap, "%s", (const char *)v);
	}
	return 0;
}

int rxb_engine_exit_code(int rc)
{
	switch (rc) {
	case 0:
		return 0;
	case -EINVAL:  /* a key or a combination of keys rejected */
	case -ENOBUFS: /* the pool cannot fill the rings */
	case -ENOENT:  /* a file the scenario names is missing */
	case -EBADMSG: /* a file the scenario names is malformed */
	case -EISDIR:  /* a file to write is a directory */
	case -ENOTDIR: /* a path through something that is not a directory */
	case -EACCES:  /* a file the user may not read or write */
		return RXB_EXIT_REJECTED;
	case -ENOMEM:
		return RXB_EXIT_NOMEM;
	default:
		return RXB_EXIT_FAILED;
	}
}

/* ---------------------------------------------------------------- output */

void rxb_scn_print_keys(FILE *f, enum rxb_engine e)
{
	for (unsigned i = 0; i < RXB_SCN_N_KEYS; i++) {
		const struct rxb_scn_key *k = &rxb_scn_keys[i];
		char allowed[512];

		rxb_scn_allowed(k, e, allowed, sizeof(allowed));
		fprintf(f, "%-28s %s%s\n%-28s default %s; %s\n", k->full, k->doc,
			rxb_scn_honours(k, e) ? "" : " [no effect here]", "", k->lim[e].dflt,
			allowed);
	}
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void json_bound(FILE *f, double x)
{
	if (isfinite(x))
		fprintf(f, "%.17g", x);
	else
		fputs("null", f);
}

/* ["a", "b"]: the names whose bit is set in mask (a key's scope). */
static void json_names(FILE *f, unsigned mask, const char *const *names, unsigned n)
{
	const char *sep = "";

	fputc('[', f);
	for (unsigned i = 0; i < n; i++) {
		if (mask & (1u << i)) {
			fputs(sep, f);
			json_str(f, names[i]);
			sep = ", ";
		}
	}
	fputc(']', f);
}

static void dump_key(FILE *f, const struct rxb_scn_key *k)
{
	static const char *const kind[] = {
		"bool", "int", "int", "float", "string", "enum", "list"
	};

	json_str(f, k->full);
	fprintf(f, ": {\"type\": \"%s\", \"auto\": %s, \"pow2\": %s, \"lo_open\": %s, ",
		kind[k->kind], k->auto_ok ? "true" : "false", k->pow2 ? "true" : "false",
		k->lo_open ? "true" : "false");
	fputs("\"names\": [", f);
	for (unsigned n = 0; n < k->n_names; n++) {
		fputs(n ? ", " : "", f);
		json_str(f, k->names[n]);
	}
	fputs("], \"engines\": {", f);
	for (int e = 0; e < RXB_ENGINES; e++) {
		fprintf(f, "%s\"%s\": {\"honours\": %s, \"lo\": ", e ? ", " : "",
			rxb_engine_name[e], rxb_scn_honours(k, e) ? "true" : "false");
		json_bound(f, k->lim[e].lo);
		fputs(", \"hi\": ", f);
		json_bound(f, k->lim[e].hi);
		fputs(", \"default\": ", f);
		json_str(f, k->lim[e].dflt);
		fputs(", \"archs\": ", f);
		json_names(f, k->lim[e].archs, rxb_arch_name, RXB_ARCHS);
		fputs(", \"patterns\": ", f);
		json_names(f, k->lim[e].patterns, rxb_pattern_name, RXB_PATTERN_COUNT);
		fputs(", \"sources\": ", f);
		json_names(f, k->lim[e].sources, rxb_emu_source_name, RXB_EMU_SOURCE_COUNT);
		fputs(", \"nfs\": ", f);
		json_names(f, k->lim[e].nfs, rxb_nf_kind_name, RXB_NF_KIND_COUNT);
		fputc('}', f);
	}
	fputs("}}", f);
}

void rxb_scn_dump_json(FILE *f)
{
	fputs("{", f);
	for (unsigned i = 0; i < RXB_SCN_N_KEYS; i++) {
		fputs(i ? ",\n " : "\n ", f);
		dump_key(f, &rxb_scn_keys[i]);
	}
	fputs("\n}\n", f);
}
