/* SPDX-License-Identifier: BSD-3-Clause
 *
 * libFuzzer target: the engine's config JSON (simcfg_parse, sim/engine/simcfg.c;
 * docs/engine-contract.md §3), hardware `profile` section and embedded
 * `calibration` included: what `rxb sim` hands rxb-sim, and what a user
 * hands it directly (`rxb-sim CONFIG.json`).
 *
 * Input = the JSON text (a NUL is added; one inside ends the text). Seeds
 * are real configs from `rxb scenario show --json` (gen_seeds.py); the
 * dictionary tests/fuzz/simcfg.dict holds the key names and the enum
 * values, so that mutations keep a config that passes the type checks and
 * reach the cross-key checks at the end of the parser.
 *
 * The target uses the parser only through its public API (simcfg.h:
 * simcfg_parse, simcfg_parse_calibration) and never looks inside struct
 * sim_cfg, whose layout belongs to the engine. jansson reads the same text
 * on the side, and:
 *   - simcfg_parse returns 0, or a negative errno with a message;
 *   - an accepted config obeys every rule of docs/engine-contract.md that
 *     the parser claims to check (check_rules below, in 64-bit or double
 *     arithmetic on the JSON values): core and NIC counts, cores_per_nic
 *     and nic_of_core, stalled and slow cores, batch limits, run times,
 *     profile constants, frame sizes against the buffer, rates,
 *     pattern- and arch-specific rules, workload minimums;
 *   - the same document written again by jansson (keys sorted, indented)
 *     is accepted or rejected alike and, accepted, gives the same struct
 *     byte for byte (both start from the same fill pattern);
 *   - an accepted config without "calibration" gives the same struct as
 *     with the compiled-in default calibration inserted as an object;
 *   - an integer of 2^32 or more in an accepted config is not read modulo
 *     2^32: if replacing it by its low 32 bits gives the same struct while
 *     flipping its lowest bit does not, the parser dropped the high bits.
 * A violation prints one line "fuzz_simcfg: ..." and aborts.
 *
 * "calibration" may name a file the parser reads: a path to anything but
 * a regular file (a FIFO, /dev/stdin, a terminal would block the run) is
 * not passed to the parser.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "fuzz_common.h"
#include "simcfg.h"

#define T         "fuzz_simcfg"
#define FAIL(...) FUZZ_FAIL(T, __VA_ARGS__)
#define FILL      0x5a

/* Generated from sim/calibration/default.json (embed.cmake), compiled into
 * this target by tests/fuzz/CMakeLists.txt. */
extern const char sim_default_calibration_json[];

static json_t *default_cal;
/* A broken rule: one line, then abort(). */
static void violation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void violation(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, T ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* ---- reading the JSON side ---------------------------------------------- */

/* The value at a dotted path ("profile.llc.ways"), or NULL. */
static json_t *at(json_t *root, const char *path)
{
	char buf[96], *save = NULL;
	json_t *v = root;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *t = strtok_r(buf, ".", &save); t && v; t = strtok_r(NULL, ".", &save))
		v = json_is_object(v) ? json_object_get(v, t) : NULL;
	return v;
}

/* An integer key: true with *out when it is a JSON integer. */
static bool jint(json_t *root, const char *path, int64_t *out)
{
	json_t *v = at(root, path);

	if (!json_is_integer(v))
		return false;
	*out = json_integer_value(v);
	return true;
}

/* A number key (integer or real). */
static bool jnum(json_t *root, const char *path, double *out)
{
	json_t *v = at(root, path);

	if (!json_is_number(v))
		return false;
	*out = json_number_value(v);
	return true;
}

static const char *jstr(json_t *root, const char *path)
{
	json_t *v = at(root, path);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

static bool is(json_t *root, const char *path, const char *s)
{
	const char *v = jstr(root, path);

	return v && strcmp(v, s) == 0;
}

/* An integer key that an accepted config must have. */
static int64_t need_int(json_t *root, const char *path)
{
	int64_t v = 0;

	if (!jint(root, path, &v))
		violation("%s: accepted without an integer there", path);
	return v;
}

static double need_num(json_t *root, const char *path)
{
	double v = 0;

	if (!jnum(root, path, &v))
		violation("%s: accepted without a number there", path);
	return v;
}

/* ---- the rules of an accepted config ------------------------------------ */

/* A list of integers, each in [lo, hi] (hi < 0: no upper bound). */
static size_t need_list(json_t *root, const char *path, int64_t lo, int64_t hi, int64_t *out,
			size_t cap)
{
	json_t *v = at(root, path), *e;
	size_t i;

	if (!json_is_array(v)) {
		violation("%s: accepted without a list there", path);
		return 0;
	}
	json_array_foreach(v, i, e)
	{
		int64_t x = json_is_integer(e) ? json_integer_value(e) : lo - 1;

		if (x < lo || (hi >= 0 && x > hi))
			violation("%s[%zu] = %lld accepted: must be in [%lld, %lld]", path, i,
				  (long long)x, (long long)lo, (long long)hi);
		if (out && i < cap)
			out[i] = x;
	}
	return json_array_size(v);
}

static void check_rules(json_t *root)
{
	int64_t cores = need_int(root, "system.cores"), nics = need_int(root, "system.nics");
	int64_t cpn[64], batch, rxb = 1, pkt, tpkt, head, buf, v;
	double d, w, s, link, rate;
	size_t n;
	uint64_t sum = 0;

	/* System: cores numbered NIC by NIC. */
	if (cores < 1 || cores > RXB_MAX_CORES || nics < 1 || nics > 64) {
		violation("system.cores = %lld, nics = %lld accepted", (long long)cores,
			  (long long)nics);
		return;
	}
	n = need_list(root, "system.cores_per_nic", 1, RXB_MAX_CORES, cpn, 64);
	if ((int64_t)n != nics) {
		violation("system.cores_per_nic: %zu entries for %lld NICs accepted", n,
			  (long long)nics);
		return;
	}
	for (size_t k = 0; k < n && k < 64; k++)
		sum += (uint64_t)cpn[k];
	if (sum != (uint64_t)cores) {
		violation("system.cores_per_nic sums to %llu, system.cores = %lld: "
			  "accepted",
			  (unsigned long long)sum, (long long)cores);
		return;
	}
	if (at(root, "derived.nic_of_core")) {
		int64_t noc[RXB_MAX_CORES];
		size_t m = need_list(root, "derived.nic_of_core", 0, nics - 1, noc, RXB_MAX_CORES);

		if ((int64_t)m != cores)
			violation("derived.nic_of_core: %zu entries for %lld cores accepted", m,
				  (long long)cores);
		for (int64_t k = 0, c = 0; k < nics && m == (size_t)cores; k++)
			for (int64_t j = 0; j < cpn[k]; j++, c++)
				if (noc[c] != k)
					violation("derived.nic_of_core[%lld] = %lld accepted, "
						  "NIC %lld",
						  (long long)c, (long long)noc[c], (long long)k);
	}
	need_list(root, "system.stalled_cores", 0, cores - 1, NULL, 0);
	need_list(root, "system.slow_cores", 0, cores - 1, NULL, 0);
	v = need_int(root, "system.mlp");
	if (v < 1)
		violation("system.mlp = %lld accepted", (long long)v);

	/* Arch. */
	batch = need_int(root, "arch.batch");
	if (batch < 1 || batch > RXB_BURST_MAX)
		violation("arch.batch = %lld accepted", (long long)batch);
	if (at(root, "arch.rxlist_batch") && jint(root, "arch.rxlist_batch", &rxb) &&
	    (rxb < 1 || rxb > 64 || (rxb & (rxb - 1))))
		violation("arch.rxlist_batch = %lld accepted", (long long)rxb);
	if (is(root, "arch.name", "shring_list") && jint(root, "arch.rx_size", &v) &&
	    jint(root, "arch.rxlist_batch", &rxb) && v * rxb > (int64_t)RXB_RING_MAX)
		violation("shring_list: rx_size %lld x rxlist_batch %lld accepted", (long long)v,
			  (long long)rxb);
	if (is(root, "arch.name", "spool") && json_is_true(at(root, "arch.emulated")))
		violation("arch.name = spool with arch.emulated = true accepted");
	if (is(root, "arch.name", "rxbisect") && is(root, "arch.association", "per_nic"))
		for (size_t k = 1; k < n; k++)
			if (cpn[k] != cpn[0])
				violation("rxbisect, association per_nic, uneven "
					  "cores_per_nic accepted");
	if (is(root, "arch.name", "rxbisect") && is(root, "arch.association", "groups") &&
	    jint(root, "arch.groups", &v) && (v < 1 || cores % v))
		violation("rxbisect: arch.groups = %lld with %lld cores accepted", (long long)v,
			  (long long)cores);

	/* Run. */
	d = need_num(root, "run.duration_ms");
	w = need_num(root, "run.warmup_ms");
	s = need_num(root, "run.sample_ms");
	if (!(d > 0) || !(d <= 1e6) || !(w >= 0) || !(w < d) || !(s > 0) || !(d / s <= 100000))
		violation("run: duration_ms %g warmup_ms %g sample_ms %g accepted", d, w, s);
	if (jint(root, "run.llc_sample_shift", &v) && (v < 0 || v > 16))
		violation("run.llc_sample_shift = %lld accepted", (long long)v);

	/* Profile. */
	link = need_num(root, "profile.nic.link_gbps");
	if (!(need_num(root, "profile.cpu.freq_ghz") > 0) ||
	    !(need_num(root, "profile.pcie.gbps") > 0) || !(link > 0))
		violation("profile: freq_ghz, pcie.gbps, nic.link_gbps must be > 0: accepted");
	if (need_int(root, "profile.llc.line_bytes") != 64)
		violation("profile.llc.line_bytes != 64 accepted");
	v = need_int(root, "profile.llc.ways");
	if (need_int(root, "system.ddio_ways") > v || need_int(root, "system.cat_ways") >= v)
		violation("system.ddio_ways / cat_ways beyond the %lld LLC ways accepted",
			  (long long)v);
	v = need_int(root, "profile.nic.cqe_bytes");
	if (v < 1 || v > 4096 || need_int(root, "profile.nic.desc_bytes") < 1)
		violation("profile.nic.cqe_bytes / desc_bytes out of 1..4096 accepted");
	for (unsigned i = 0; i < RXB_N_PROFILE_KEYS; i++) {
		const struct rxb_profile_key *k = &rxb_profile_keys[i];
		char path[96];
		double x;

		snprintf(path, sizeof(path), "profile.%s.%s", k->section, k->name);
		if (jnum(root, path, &x) && (x < k->lo || x > k->hi || (k->lo_open && x == k->lo)))
			violation("%s = %g, beyond the table's %g to %g, accepted", path, x, k->lo,
				  k->hi);
	}

	/* Traffic. */
	pkt = need_int(root, "traffic.packet_bytes");
	tpkt = need_int(root, "traffic.target_packet_bytes");
	if (jint(root, "arch.headroom_bytes", &head) && jint(root, "arch.buffer_bytes", &buf)) {
		if (pkt < 64 || pkt + head > buf)
			violation("traffic.packet_bytes %lld + arch.headroom_bytes %lld > "
				  "arch.buffer_bytes %lld accepted",
				  (long long)pkt, (long long)head, (long long)buf);
		if (tpkt && (tpkt < 64 || tpkt + head > buf))
			violation("traffic.target_packet_bytes %lld + arch.headroom_bytes %lld > "
				  "arch.buffer_bytes %lld accepted",
				  (long long)tpkt, (long long)head, (long long)buf);
	}
	rate = need_num(root, "traffic.rate_gbps");
	if (!(rate > 0) || !(rate <= link * (1 + 1e-9)))
		violation("traffic.rate_gbps = %g with link %g accepted", rate, link);
	if (need_int(root, "traffic.flows") < 1)
		violation("traffic.flows < 1 accepted");
	if (is(root, "traffic.pattern", "target")) {
		double share = 0, trate = 0;

		v = need_int(root, "traffic.target_core");
		for (size_t k = 0; k < n; k++)
			if (v >= cpn[k] || cpn[k] < 2)
				violation("pattern target: target_core %lld, NIC %zu has %lld "
					  "cores: accepted",
					  (long long)v, k, (long long)cpn[k]);
		jnum(root, "traffic.target_share", &share);
		jnum(root, "traffic.target_rate_gbps", &trate);
		if (!(share > 0) && !(trate > 0))
			violation("pattern target without target_share or target_rate_gbps "
				  "accepted");
	}
	if (is(root, "traffic.pattern", "trace") &&
	    !(jstr(root, "traffic.pcap") && jstr(root, "traffic.pcap")[0]))
		violation("pattern trace without traffic.pcap accepted");

	/* Workload. */
	if (is(root, "workload.nf", "kvs") && need_int(root, "workload.kvs_keys") > UINT32_MAX)
		violation("workload.kvs_keys above 2^32 - 1 with nf kvs accepted");
	if (need_int(root, "workload.counter_slots") < 1 ||
	    need_int(root, "workload.lb_backends") < 1 ||
	    need_int(root, "workload.flow_capacity") < 1 || need_int(root, "workload.kvs_keys") < 1)
		violation("workload: counter_slots, lb_backends, flow_capacity, kvs_keys < 1 "
			  "accepted");
	if (!(need_num(root, "workload.buffer_mib") > 0) ||
	    (jnum(root, "workload.lpm_table_mib", &d) && !(d > 0)))
		violation("workload: buffer_mib, lpm_table_mib must be positive: accepted");
	if (need_int(root, "system.rx_cqe_wave") < 1)
		violation("system.rx_cqe_wave < 1 accepted");
}

/* ---- differential runs -------------------------------------------------- */

struct outcome {
	int rc;
	struct sim_cfg *cfg;
	struct rxb_err err;
};

static void parse(struct outcome *o, const char *text)
{
	if (o->cfg == NULL && (o->cfg = malloc(sizeof(*o->cfg))) == NULL)
		FAIL("out of memory");
	memset(o->cfg, FILL, sizeof(*o->cfg));
	memset(&o->err, 0, sizeof(o->err));
	o->rc = simcfg_parse(o->cfg, text, &o->err);
	fuzz_check_outcome(T ": simcfg_parse", o->rc, o->err.msg, sizeof(o->err.msg));
}

static void parse_doc(struct outcome *o, json_t *doc, size_t flags)
{
	char *text = json_dumps(doc, flags | JSON_ENCODE_ANY);

	if (text == NULL)
		FAIL("json_dumps failed");
	parse(o, text);
	free(text);
}

static bool same(const struct outcome *a, const struct outcome *b)
{
	return a->rc == 0 && b->rc == 0 && memcmp(a->cfg, b->cfg, sizeof(*a->cfg)) == 0;
}

/* Integers of 2^32 or more, with where they are (for the narrowing check). */
struct big {
	json_t *parent;
	const char *key; /* object member, or NULL: array element `index` */
	size_t index;
	json_int_t v;
};

static void find_big(json_t *v, json_t *parent, const char *key, size_t index, struct big *out,
		     size_t *n, size_t cap, int depth)
{
	if (*n == cap || depth > 8)
		return;
	if (json_is_integer(v) && json_integer_value(v) > (json_int_t)UINT32_MAX && parent) {
		out[(*n)++] = (struct big){ parent, key, index, json_integer_value(v) };
	} else if (json_is_object(v)) {
		const char *k;
		json_t *e;

		json_object_foreach(v, k, e) find_big(e, v, k, 0, out, n, cap, depth + 1);
	} else if (json_is_array(v)) {
		size_t i;
		json_t *e;

		json_array_foreach(v, i, e) find_big(e, v, NULL, i, out, n, cap, depth + 1);
	}
}

static void set_big(const struct big *b, json_int_t v)
{
	if (b->key)
		json_object_set_new(b->parent, b->key, json_integer(v));
	else
		json_array_set_new(b->parent, b->index, json_integer(v));
}

static char *path_of(const struct big *b, char *buf, size_t cap)
{
	if (b->key)
		snprintf(buf, cap, "...%s", b->key);
	else
		snprintf(buf, cap, "...[%zu]", b->index);
	return buf;
}

static void check_narrowing(json_t *root, const struct outcome *orig, struct outcome *tmp)
{
	struct big big[4];
	size_t n = 0;

	find_big(root, NULL, NULL, 0, big, &n, 4, 0);
	for (size_t i = 0; i < n; i++) {
		char where[96];
		bool low_same, flip_same;

		set_big(&big[i], big[i].v & 0xffffffff);
		parse_doc(tmp, root, JSON_COMPACT);
		low_same = same(orig, tmp);
		set_big(&big[i], big[i].v ^ 1);
		parse_doc(tmp, root, JSON_COMPACT);
		flip_same = same(orig, tmp);
		set_big(&big[i], big[i].v);
		if (low_same && !flip_same)
			violation("%s = %lld is read as %lld (its low 32 bits)",
				  path_of(&big[i], where, sizeof(where)), (long long)big[i].v,
				  (long long)(big[i].v & 0xffffffff));
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	json_error_t je;

	(void)argc; /* libFuzzer's arguments: none of ours */
	(void)argv;
	default_cal = json_loads(sim_default_calibration_json, 0, &je);
	if (!json_is_object(default_cal)) {
		fprintf(stderr, T ": the compiled-in calibration does not parse: %s\n", je.text);
		exit(1);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct outcome a, b;
	char *text = malloc(size + 1);
	json_t *root, *cal;
	int ret = 0;

	if (text == NULL)
		FAIL("out of memory");
	memcpy(text, data, size);
	text[size] = '\0';
	root = json_loads(text, 0, NULL);

	cal = json_object_get(root, "calibration");
	if (json_is_string(cal)) {
		struct stat st;

		if (stat(json_string_value(cal), &st) == 0 && !S_ISREG(st.st_mode)) {
			ret = -1; /* not a file the parser should read (see the top) */
			goto out;
		}
	}
	parse(&a, text);
	if (fuzz_verbose())
		fprintf(stderr, T ": %s\n", a.rc ? a.err.msg : "accepted");
	if (a.rc == 0 && root == NULL)
		FAIL("simcfg_parse accepted a text jansson does not parse");
	if (root == NULL)
		goto out;
	if (a.rc == 0)
		check_rules(root);
	/* The same document, written again. */
	parse_doc(&b, root, JSON_SORT_KEYS | JSON_INDENT(1));
	if ((a.rc == 0) != (b.rc == 0))
		violation("accepted %s, %s after rewriting it with sorted keys (%s)",
			  a.rc ? "no" : "yes", b.rc ? "no" : "yes", a.rc ? a.err.msg : b.err.msg);
	else if (a.rc == 0 && !same(&a, &b))
		violation("a different config after rewriting it with sorted keys");
	if (a.rc != 0)
		goto out;
	/* The default calibration, explicitly. */
	if (cal == NULL && json_is_object(root)) {
		json_object_set(root, "calibration", default_cal);
		parse_doc(&b, root, JSON_COMPACT);
		if (b.rc != 0)
			violation("rejected with the default calibration as an object: %s",
				  b.err.msg);
		else if (!same(&a, &b))
			violation("the default calibration as an object gives another config "
				  "than the compiled-in one");
		json_object_del(root, "calibration");
	}
	check_narrowing(root, &a, &b);
out:
	json_decref(root);
	free(text);
	return ret;
}
