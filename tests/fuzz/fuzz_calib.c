/* SPDX-License-Identifier: BSD-3-Clause
 *
 * libFuzzer target: the calibration file (simcfg_parse_calibration,
 * sim/engine/simcfg.c), the shape of sim/calibration/default.json that
 * `rxb calibrate` writes and `rxb sim --calibration FILE` hands the engine.
 *
 * Input = the JSON text (a NUL is added). Seeded with default.json and
 * variants of it (gen_seeds.py); the dictionary is tests/fuzz/simcfg.dict
 * (it has the calibration keys too).
 *
 * The target uses the parser only through simcfg.h and does not look inside
 * struct sim_calib. jansson reads the same text on the side, and:
 *   - the result is 0, or a negative errno with a message;
 *   - an accepted document has every number the default calibration has
 *     under "cycles" (cycles.rx_per_pkt.ARCH, cycles.lock, ...: they are
 *     all required), each a JSON number;
 *   - the same document written again by jansson (keys sorted, indented)
 *     is accepted or rejected alike and, accepted, gives the same struct
 *     byte for byte (both start from the same fill pattern);
 *   - every required number matters: in an accepted document, changing one
 *     of them (which one depends on the input) gives another struct, if
 *     the new value is accepted.
 * A violation prints one line "fuzz_calib: ..." and aborts.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fuzz_common.h"
#include "simcfg.h"

#define T         "fuzz_calib"
#define FAIL(...) FUZZ_FAIL(T, __VA_ARGS__)
#define FILL      0x5a

extern const char sim_default_calibration_json[];

/* The required numbers: every leaf of the default's "cycles", as a path
 * of at most two levels below it. */
#define MAX_LEAVES 64
static struct leaf {
	char sub[48], key[48]; /* sub == "": directly under cycles */
} leaves[MAX_LEAVES];
static size_t n_leaves;

struct outcome {
	int rc;
	struct sim_calib cal;
	struct rxb_err err;
};

static void parse(struct outcome *o, const char *text)
{
	memset(&o->cal, FILL, sizeof(o->cal));
	memset(&o->err, 0, sizeof(o->err));
	o->rc = simcfg_parse_calibration(&o->cal, text, &o->err);
	fuzz_check_outcome(T ": simcfg_parse_calibration", o->rc, o->err.msg, sizeof(o->err.msg));
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
	return a->rc == 0 && b->rc == 0 && memcmp(&a->cal, &b->cal, sizeof(a->cal)) == 0;
}

static json_t *leaf_parent(json_t *root, const struct leaf *l)
{
	json_t *cy = json_object_get(root, "cycles");

	return l->sub[0] ? json_object_get(cy, l->sub) : cy;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	json_t *def = json_loads(sim_default_calibration_json, 0, NULL), *cy, *v, *e;
	const char *k, *k2;

	(void)argc; /* libFuzzer's arguments: none of ours */
	(void)argv;
	cy = json_object_get(def, "cycles");
	json_object_foreach(cy, k, v)
	{
		if (json_is_number(v) && n_leaves < MAX_LEAVES) {
			snprintf(leaves[n_leaves++].key, sizeof(leaves[0].key), "%s", k);
		} else if (json_is_object(v)) {
			json_object_foreach(v, k2, e)
			{
				if (json_is_number(e) && n_leaves < MAX_LEAVES) {
					snprintf(leaves[n_leaves].sub, sizeof(leaves[0].sub), "%s",
						 k);
					snprintf(leaves[n_leaves++].key, sizeof(leaves[0].key),
						 "%s", k2);
				}
			}
		}
	}
	if (n_leaves == 0) {
		fprintf(stderr, T ": no numbers under cycles in the compiled-in calibration\n");
		exit(1);
	}
	json_decref(def);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct outcome a, b;
	char *text = malloc(size + 1);
	json_t *root;
	uint32_t h = 2166136261u;

	if (text == NULL)
		FAIL("out of memory");
	memcpy(text, data, size);
	text[size] = '\0';
	parse(&a, text);
	if (fuzz_verbose())
		fprintf(stderr, T ": %s\n", a.rc ? a.err.msg : "accepted");
	root = json_loads(text, 0, NULL);
	if (a.rc == 0 && root == NULL)
		FAIL("accepted a text jansson does not parse");
	if (root == NULL)
		goto out;
	if (a.rc == 0) {
		for (size_t i = 0; i < n_leaves; i++)
			if (!json_is_number(
				    json_object_get(leaf_parent(root, &leaves[i]), leaves[i].key)))
				FAIL("accepted without a number at cycles.%s%s%s", leaves[i].sub,
				     leaves[i].sub[0] ? "." : "", leaves[i].key);
	}
	parse_doc(&b, root, JSON_SORT_KEYS | JSON_INDENT(1));
	if ((a.rc == 0) != (b.rc == 0))
		FAIL("accepted %s, %s after rewriting it with sorted keys (%s)",
		     a.rc ? "no" : "yes", b.rc ? "no" : "yes", a.rc ? a.err.msg : b.err.msg);
	if (a.rc == 0 && !same(&a, &b))
		FAIL("a different calibration after rewriting it with sorted keys");
	if (a.rc == 0) {
		const struct leaf *l;
		json_t *p, *v;
		double x, y;

		for (size_t i = 0; i < size; i++)
			h = (h ^ data[i]) * 16777619u;
		l = &leaves[h % n_leaves];
		p = leaf_parent(root, l);
		v = json_object_get(p, l->key);
		x = json_number_value(v);
		y = x == 0 ? 1.0 : fabs(x) > 1e300 ? x / 2 : x * 2;
		json_object_set_new(p, l->key, json_real(y));
		parse_doc(&b, root, JSON_COMPACT);
		/* Rejected: a range check the parser may have; no conclusion. */
		if (b.rc == 0 && same(&a, &b))
			FAIL("cycles.%s%s%s: %.17g and %.17g give the same calibration", l->sub,
			     l->sub[0] ? "." : "", l->key, x, y);
	}
out:
	json_decref(root);
	free(text);
	return 0;
}
