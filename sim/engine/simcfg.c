/* SPDX-License-Identifier: BSD-3-Clause
 * Config and calibration parsing: see simcfg.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "simcfg.h"

/* A cursor over one section; the first error sticks. */
struct rd {
	json_t *obj;
	char sec[64];
	struct rxb_err *err;
	int bad;
};

static json_t *field(struct rd *r, const char *key)
{
	json_t *v = r->obj ? json_object_get(r->obj, key) : NULL;

	if (v == NULL && !r->bad) {
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

static double num(struct rd *r, const char *key)
{
	json_t *v = field(r, key);

	if (v == NULL)
		return 0.0;
	if (!json_is_number(v)) {
		type_error(r, key, "a number");
		return 0.0;
	}
	return json_number_value(v);
}

static uint64_t u64(struct rd *r, const char *key)
{
	json_t *v = field(r, key);

	if (v == NULL)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0) {
		type_error(r, key, "a non-negative integer");
		return 0;
	}
	return (uint64_t)json_integer_value(v);
}

static uint32_t u32(struct rd *r, const char *key)
{
	uint64_t v = u64(r, key);

	if (v > UINT32_MAX) {
		type_error(r, key, "below 2^32");
		return 0;
	}
	return (uint32_t)v;
}

static bool boolean(struct rd *r, const char *key)
{
	json_t *v = field(r, key);

	if (v != NULL && !json_is_boolean(v)) {
		type_error(r, key, "true or false");
		return false;
	}
	return v != NULL && json_is_true(v);
}

static const char *str(struct rd *r, const char *key)
{
	json_t *v = field(r, key);

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

static uint32_t u32_list(struct rd *r, const char *key, uint32_t *out, uint32_t cap)
{
	json_t *v = field(r, key), *e;
	size_t i;

	if (v == NULL)
		return 0;
	if (!json_is_array(v) || json_array_size(v) > cap) {
		type_error(r, key, "an array of integers");
		return 0;
	}
	json_array_foreach(v, i, e)
	{
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
	struct rd r = { .obj = field(parent, key), .err = parent->err, .bad = parent->bad };

	if (!r.bad && !json_is_object(r.obj)) {
		type_error(parent, key, "an object");
		r.bad = 1;
	}
	snprintf(r.sec, sizeof(r.sec), "%.30s.%.30s", parent->sec, key);
	return r;
}

/* ------------------------------------------------------------- scenario */

/* A JSON value as the scenario table's checker reads it. `list` has room for
 * RXB_SCN_LIST_MAX + 1 elements (one more is "too many"). */
static int json_val(json_t *j, struct rxb_scn_val *v, uint64_t *list)
{
	size_t i;
	json_t *e;

	if (json_is_boolean(j)) {
		v->type = RXB_VAL_BOOL;
		v->b = json_is_true(j);
	} else if (json_is_integer(j)) {
		v->type = RXB_VAL_INT;
		v->negative = json_integer_value(j) < 0;
		v->u = v->negative ? 0 - (uint64_t)json_integer_value(j)
				   : (uint64_t)json_integer_value(j);
	} else if (json_is_real(j)) {
		v->type = RXB_VAL_NUM;
		v->f = json_real_value(j);
	} else if (json_is_string(j)) {
		v->type = RXB_VAL_STR;
		v->s = json_string_value(j);
	} else if (json_is_array(j)) {
		v->type = RXB_VAL_LIST;
		v->list = list;
		v->n = json_array_size(j) > RXB_SCN_LIST_MAX ? RXB_SCN_LIST_MAX + 1
							     : json_array_size(j);
		json_array_foreach(j, i, e)
		{
			if (i > RXB_SCN_LIST_MAX)
				break;
			if (!json_is_integer(e) || json_integer_value(e) < 0)
				return -1;
			list[i] = (uint64_t)json_integer_value(e);
		}
	} else {
		return -1;
	}
	return 0;
}

/* One key of the scenario from its section object. Keys the simulator does
 * not honour (emu.*) may be absent; every other key is required. */
static int scn_key(struct sim_cfg *c, json_t *root, const struct rxb_scn_key *k, uint64_t *list,
		   struct rxb_err *err)
{
	json_t *j = json_object_get(json_object_get(root, k->section), k->name);
	struct rxb_scn_val v = { 0 };
	char *text;
	int rc;

	if (j == NULL) {
		if (!rxb_scn_honours(k, RXB_ENGINE_SIM))
			return 0;
		rxb_err_set(err, "%s: missing from the config (docs/engine-contract.md §3)",
			    k->full);
		return -EINVAL;
	}
	text = json_dumps(j, JSON_ENCODE_ANY);
	v.as_text = text ? text : "?";
	if (json_val(j, &v, list) != 0) {
		rxb_err_set(err, "%s = %s: wrong type", k->full, v.as_text);
		rc = -EINVAL;
	} else {
		rc = rxb_scn_set(&c->scn, RXB_ENGINE_SIM, k, &v, err);
	}
	free(text);
	return rc;
}

static int parse_scenario(struct sim_cfg *c, json_t *root, struct rxb_err *err)
{
	static const char *const sections[] = { "arch", "system", "traffic", "workload", "run" };
	uint64_t *list = calloc(RXB_SCN_LIST_MAX + 1, sizeof(*list));
	int rc = 0;

	if (list == NULL)
		return rxb_err_fail(err, -ENOMEM, "out of memory: a list value");
	for (size_t i = 0; rc == 0 && i < sizeof(sections) / sizeof(sections[0]); i++) {
		if (!json_is_object(json_object_get(root, sections[i]))) {
			rxb_err_set(err,
				    "%s: missing or not an object (docs/engine-contract.md §3)",
				    sections[i]);
			rc = -EINVAL;
		}
	}
	rxb_scn_defaults(&c->scn, RXB_ENGINE_SIM);
	for (unsigned i = 0; rc == 0 && i < RXB_SCN_N_KEYS; i++)
		rc = scn_key(c, root, &rxb_scn_keys[i], list, err);
	free(list);
	return rc;
}

static void parse_profile(struct sim_cfg *c, struct rd *r)
{
	struct rd cpu = sub(r, "cpu"), llc, dram, pcie, nic;

	str_copy(r, "name", c->profile_name, sizeof(c->profile_name));
	c->freq_ghz = num(&cpu, "freq_ghz");
	c->cores_per_socket = u32(&cpu, "cores_per_socket");
	c->cpu_mlp = u32(&cpu, "mlp");
	c->l2_kib = u32(&cpu, "l2_kib");
	c->l2_ways = u32(&cpu, "l2_ways");
	c->l2_latency_cycles = u32(&cpu, "l2_latency_cycles");
	c->xsocket_ns = num(&cpu, "xsocket_ns");
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
	c->dram_write_penalty = num(&dram, "write_penalty");
	r->bad |= dram.bad;
	pcie = sub(r, "pcie");
	c->pcie_gbps = num(&pcie, "gbps");
	c->dma_read_ns = num(&pcie, "dma_read_ns");
	c->dma_read_ns_per_byte = num(&pcie, "dma_read_ns_per_byte");
	c->mrrs_bytes = u32(&pcie, "mrrs_bytes");
	c->dma_write_ns = num(&pcie, "dma_write_ns");
	c->mps_bytes = u32(&pcie, "mps_bytes");
	c->tlp_overhead_bytes = u32(&pcie, "tlp_overhead_bytes");
	r->bad |= pcie.bad;
	nic = sub(r, "nic");
	c->link_gbps = num(&nic, "link_gbps");
	c->nics = u32(&nic, "count");
	c->desc_bytes = u32(&nic, "desc_bytes");
	c->cqe_bytes = u32(&nic, "cqe_bytes");
	c->desc_prefetch = u32(&nic, "desc_prefetch");
	c->dma_read_slots = u32(&nic, "dma_read_slots");
	c->reta_size = u32(&nic, "reta_size");
	c->nic_buffer_kib = num(&nic, "buffer_kib");
	r->bad |= nic.bad;
}

/* ------------------------------------------------------- calibration */

/* A cost of calibration key k: a number from 0 to k->hi (a 1e308 cycle cost
 * overflowed the engine's integer clock and ran faster than a 1e12 one). */
static double cost(struct rd *r, const char *key, const struct rxb_calib_key *k)
{
	double v = num(r, key);

	if (!r->bad && !(v >= 0 && v <= k->hi)) {
		rxb_err_set(r->err, "%s.%s = %g: allowed: a number from 0 to %g (%s)", r->sec, key,
			    v, k->hi, k->unit);
		r->bad = 1;
	}
	return v;
}

static bool is_calib_key(const char *name)
{
	for (unsigned i = 0; i < RXB_N_CALIB_KEYS; i++)
		if (strcmp(rxb_calib_keys[i].name, name) == 0)
			return true;
	return false;
}

static bool is_arch(const char *name)
{
	for (int a = 0; a < RXB_ARCHS; a++)
		if (strcmp(rxb_arch_name[a], name) == 0)
			return true;
	return false;
}

/* A member of r's object that `known` refuses is an error: a misspelt cost would
 * otherwise be a silent default. */
static void no_unknown(struct rd *r, bool (*known)(const char *), const char *allowed)
{
	const char *key;
	json_t *v;

	if (r->bad)
		return;
	json_object_foreach(r->obj, key, v)
	{
		if (!known(key)) {
			rxb_err_set(r->err, "%s.%s: unknown key; allowed: %s", r->sec, key,
				    allowed);
			r->bad = 1;
			return;
		}
	}
}

/* One key of the table: a number, or an object with one number per design. */
static void calib_key(struct rd *cy, const struct rxb_calib_key *k, struct rxb_calib_cycles *out)
{
	double *dst = (double *)((char *)out + k->offset);
	char designs[256];
	struct rd per;

	if (!k->per_arch) {
		*dst = cost(cy, k->name, k);
		return;
	}
	per = sub(cy, k->name);
	for (int a = 0; a < RXB_ARCHS; a++)
		dst[a] = cost(&per, rxb_arch_name[a], k);
	rxb_scn_allowed(rxb_scn_key_find("arch.name"), RXB_ENGINE_SIM, designs, sizeof(designs));
	no_unknown(&per, is_arch, designs);
	cy->bad |= per.bad;
}

/* The document's provenance, as the report prints it; all of it optional. */
static void calib_provenance(struct sim_calib *cal, json_t *doc)
{
	json_t *m = json_object_get(doc, "machine");

	if (json_is_string(json_object_get(doc, "origin")))
		snprintf(cal->origin, sizeof(cal->origin), "%s",
			 json_string_value(json_object_get(doc, "origin")));
	if (json_is_string(json_object_get(doc, "date")))
		snprintf(cal->date, sizeof(cal->date), "%s",
			 json_string_value(json_object_get(doc, "date")));
	if (json_is_object(m) && json_is_string(json_object_get(m, "cpu")))
		snprintf(cal->machine, sizeof(cal->machine), "%s",
			 json_string_value(json_object_get(m, "cpu")));
}

/* Every key of the calibration table, required, and no other. */
static int parse_calib(struct sim_calib *cal, json_t *doc, struct rxb_err *err)
{
	struct rd top = { .obj = doc, .sec = "calibration", .err = err, .bad = 0 };
	struct rd cy = sub(&top, RXB_CALIB_SECTION);

	for (unsigned i = 0; i < RXB_N_CALIB_KEYS; i++)
		calib_key(&cy, &rxb_calib_keys[i], &cal->cycles);
	no_unknown(&cy, is_calib_key, RXB_CALIB_KEY_NAMES);
	calib_provenance(cal, doc);
	return top.bad || cy.bad ? -EINVAL : 0;
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

/* A rejected configuration: the message, and -EINVAL from the check. */
#define REJECT(...)                            \
	do {                                   \
		rxb_err_set(err, __VA_ARGS__); \
		return -EINVAL;                \
	} while (0)

/* No "auto" left: the front end resolves every one before it writes the
 * config (the engine contract). */
static int check_resolved(const struct sim_cfg *c, struct rxb_err *err)
{
	for (unsigned i = 0; i < RXB_SCN_N_KEYS; i++) {
		const struct rxb_scn_key *k = &rxb_scn_keys[i];

		if (k->auto_ok &&
		    *(const uint32_t *)((const char *)&c->scn + k->offset) == RXB_SCN_AUTO)
			REJECT("%s = \"auto\": the front end resolves every \"auto\" "
			       "(docs/engine-contract.md §3)",
			       k->full);
	}
	return 0;
}

/* Every number of the profile within its key's limits (profile_keys.toml),
 * as the front end checks a profile file: the models divide by them, index
 * with them and loop in steps of them (pcie.mrrs_bytes = 0 never ended). */
static int check_profile_limits(json_t *profile, struct rxb_err *err)
{
	for (unsigned i = 0; i < RXB_N_PROFILE_KEYS; i++) {
		const struct rxb_profile_key *k = &rxb_profile_keys[i];
		json_t *v = json_object_get(json_object_get(profile, k->section), k->name);

		/* a value of the wrong type was refused as it was read */
		if (json_is_number(v) && rxb_profile_check(k, json_number_value(v), err) != 0)
			return -EINVAL;
	}
	return 0;
}

/* What the models need beyond the table's limits. */
static int check_profile(const struct sim_cfg *c, struct rxb_err *err)
{
	if (c->llc_line != 64)
		REJECT("profile.llc.line_bytes = %u: the LLC model has 64 B lines", c->llc_line);
	return 0;
}

/* The key-value store indexes its keys in 32 bits. */
static int check_kvs(const struct sim_cfg *c, struct rxb_err *err)
{
	if (c->scn.workload.nf == RXB_NF_KIND_KVS && c->scn.workload.kvs_keys > UINT32_MAX)
		REJECT("workload.kvs_keys = %llu: at most 2^32 - 1",
		       (unsigned long long)c->scn.workload.kvs_keys);
	return 0;
}
#undef REJECT

/* Rules that involve several keys or the profile (single-key ranges are the
 * table's, checked as each key is read): the scenario library's rules, the
 * same ones and the same messages the front end and the emulator give, then
 * what only this engine needs. The profile goes first: the rules divide by
 * its numbers. */
static int check(const struct sim_cfg *c, struct rxb_err *err)
{
	const struct rxb_scn_machine machine = {
		.name = c->profile_name,
		.cores_per_socket = c->cores_per_socket,
		.nics = c->nics,
		.llc_ways = c->llc_ways,
		.link_gbps = c->link_gbps,
		.llc_mib = c->llc_mib,
		.llc_line_bytes = c->llc_line,
	};
	int rc = check_profile(c, err);

	if (rc == 0)
		rc = check_resolved(c, err);
	if (rc == 0)
		rc = rxb_scn_check(&c->scn, &machine, RXB_ENGINE_SIM, err);
	if (rc == 0)
		rc = check_kvs(c, err);
	return rc;
}

static int parse_root(struct sim_cfg *c, json_t *root, struct rxb_err *err)
{
	int bad = 0;
	uint32_t n_noc;
	json_t *contract = json_object_get(root, "contract");
	struct rd r, d;
	int rc;

	memset(c, 0, sizeof(*c));
	if (!json_is_object(root)) {
		rxb_err_set(err, "config: not a JSON object");
		return -EINVAL;
	}
	if (!json_is_integer(contract) || json_integer_value(contract) != 1) {
		rxb_err_set(err,
			    "contract: this engine speaks contract 1 (docs/engine-contract.md)");
		return -EINVAL;
	}
	rc = parse_scenario(c, root, err);
	if (rc != 0)
		return rc;
	r = section(root, "profile", err, &bad);
	parse_profile(c, &r);
	bad |= r.bad;
	d = section(root, "derived", err, &bad);
	n_noc = u32_list(&d, "nic_of_core", c->nic_of_core, RXB_MAX_CORES);
	bad |= d.bad;
	if (bad || check_profile_limits(json_object_get(root, "profile"), err) != 0)
		return -EINVAL;
	/* the library's rules first: a split that does not add up is the
	 * scenario's error, whatever list the front end derived from it */
	if (check(c, err) != 0)
		return -EINVAL;
	if (n_noc != c->scn.system.cores) {
		rxb_err_set(err, "derived.nic_of_core: %u entries for %u cores", n_noc,
			    c->scn.system.cores);
		return -EINVAL;
	}
	for (uint32_t k = 0, core = 0; k < c->scn.system.nics; k++)
		for (uint32_t j = 0; j < c->scn.system.cores_per_nic.v[k]; j++, core++)
			if (c->nic_of_core[core] != k) {
				rxb_err_set(err,
					    "derived.nic_of_core[%u] = %u: cores are numbered "
					    "NIC by NIC (expected %u)",
					    core, c->nic_of_core[core], k);
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
