/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Checking and storing scenario values against the key table (scenario.h).
 * The rules and the message shape are those of python/rxbisect/schema.py, so
 * a user sees the same "key = value: why; allowed: what" from either side.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scenario.h"

const char *const rxb_engine_name[RXB_ENGINES] = { "sim", "emu" };

const struct rxb_scn_key *rxb_scn_key_find(const char *full)
{
	for (unsigned i = 0; i < RXB_SCN_N_KEYS; i++)
		if (strcmp(rxb_scn_keys[i].full, full) == 0)
			return &rxb_scn_keys[i];
	return NULL;
}

bool rxb_scn_honours(const struct rxb_scn_key *k, enum rxb_engine e)
{
	return (k->engines & RXB_ENGINE_BIT(e)) != 0;
}

bool rxb_scn_list_has(const struct rxb_scn_list *l, uint32_t v)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (l->v[i] == v)
			return true;
	return false;
}

/* ------------------------------------------------------------- messages */

/* Append to buf (always terminated, never overflowing). */
static void cat(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void cat(char *buf, size_t cap, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	if (len + 1 >= cap)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, cap - len, fmt, ap);
	va_end(ap);
}

/* How the warnings name an engine: where a key is idle, and what it applies to. */
static const char *const engine_place[RXB_ENGINES] = { "in the simulator", "in the emulator" };
static const char *const engine_program[RXB_ENGINES] = { "rxb-sim", "rxb-emu" };

/* "a, b, c": the names whose bit is set in mask. */
static void names_of(unsigned mask, const char *const *names, unsigned n, char *buf, size_t cap)
{
	const char *sep = "";

	for (unsigned i = 0; i < n; i++) {
		if (mask & (1u << i)) {
			cat(buf, cap, "%s%s", sep, names[i]);
			sep = ", ";
		}
	}
}

const char *rxb_scn_no_effect(const struct rxb_scn *s, enum rxb_engine e,
			      const struct rxb_scn_key *k, char *buf, size_t cap)
{
	const struct rxb_scn_limits *l = &k->lim[e];

	buf[0] = '\0';
	if (!rxb_scn_honours(k, e)) {
		cat(buf, cap, "%s has no effect %s (it applies to ", k->full, engine_place[e]);
		names_of(k->engines, engine_program, RXB_ENGINES, buf, cap);
	} else if (!(l->archs & (1u << s->arch.name))) {
		cat(buf, cap, "%s has no effect for arch %s (it applies to ", k->full,
		    rxb_arch_name[s->arch.name]);
		names_of(l->archs, rxb_arch_name, RXB_ARCHS, buf, cap);
	} else if (!(l->patterns & (1u << s->traffic.pattern))) {
		cat(buf, cap, "%s has no effect for pattern %s (it applies to ", k->full,
		    rxb_pattern_name[s->traffic.pattern]);
		names_of(l->patterns, rxb_pattern_name, RXB_PATTERN_COUNT, buf, cap);
	} else if (!(l->sources & (1u << s->emu.source))) {
		cat(buf, cap, "%s has no effect for emu.source %s (it applies to ", k->full,
		    rxb_emu_source_name[s->emu.source]);
		names_of(l->sources, rxb_emu_source_name, RXB_EMU_SOURCE_COUNT, buf, cap);
	} else if (!(l->nfs & (1u << s->workload.nf))) {
		cat(buf, cap, "%s has no effect for workload.nf %s (it applies to ", k->full,
		    rxb_nf_kind_name[s->workload.nf]);
		names_of(l->nfs, rxb_nf_kind_name, RXB_NF_KIND_COUNT, buf, cap);
	} else {
		return NULL;
	}
	cat(buf, cap, ")");
	return buf;
}

/* A bound as the user writes it. An integer key's bound of 2^64 is the
 * table's 18446744073709551615, which no double holds exactly. */
static void bound_text(bool integer, double x, char *buf, size_t cap)
{
	if (integer && x >= 0x1p64)
		snprintf(buf, cap, "%llu", (unsigned long long)UINT64_MAX);
	else
		rxb_scn_num_text(x, buf, cap);
}

/* " from lo to hi" and the like, after the noun; nothing without bounds. */
static void range_text(bool integer, double lo, double hi, bool lo_open, char *buf, size_t cap)
{
	bool has_lo = isfinite(lo), has_hi = isfinite(hi);
	char lo_s[32], hi_s[32];

	bound_text(integer, lo, lo_s, sizeof(lo_s));
	bound_text(integer, hi, hi_s, sizeof(hi_s));
	if (has_lo && has_hi && lo_open)
		cat(buf, cap, " > %s and <= %s", lo_s, hi_s);
	else if (has_lo && has_hi)
		cat(buf, cap, " from %s to %s", lo_s, hi_s);
	else if (has_lo)
		cat(buf, cap, " %s %s", lo_open ? ">" : ">=", lo_s);
	else if (has_hi)
		cat(buf, cap, " <= %s", hi_s);
}

/* Whether engine e takes other values for k than the other engine does. */
static bool range_differs(const struct rxb_scn_key *k, enum rxb_engine e)
{
	const struct rxb_scn_limits *l = &k->lim[e];
	const struct rxb_scn_limits *o =
		&k->lim[e == RXB_ENGINE_SIM ? RXB_ENGINE_EMU : RXB_ENGINE_SIM];

	return l->lo != o->lo || l->hi != o->hi;
}

void rxb_scn_allowed(const struct rxb_scn_key *k, enum rxb_engine e, char *buf, size_t cap)
{
	const struct rxb_scn_limits *l = &k->lim[e];

	buf[0] = '\0';
	switch (k->kind) {
	case RXB_SCN_BOOL:
		cat(buf, cap, "true or false");
		break;
	case RXB_SCN_ENUM:
		cat(buf, cap, "one of ");
		for (unsigned i = 0; i < k->n_names; i++)
			cat(buf, cap, "%s%s", i ? ", " : "", k->names[i]);
		break;
	case RXB_SCN_STR:
		cat(buf, cap, k->path ? "a path to a readable file, or \"\" for none" : "a string");
		break;
	default:
		cat(buf, cap, "%s",
		    k->kind == RXB_SCN_F64    ? "a number"
		    : k->kind == RXB_SCN_LIST ? "a list of integers"
		    : k->pow2                 ? "a power-of-two integer"
					      : "an integer");
		range_text(k->kind != RXB_SCN_F64, l->lo, l->hi, k->lo_open, buf, cap);
	}
	if (k->unit[0] != '\0')
		cat(buf, cap, " (%s)", k->unit);
	if (k->auto_ok)
		cat(buf, cap, ", or \"auto\"");
	/* the engine's reason, where it is the reason for these values: an
	 * override may differ only in scope (the designs, sources it affects) */
	if (l->why[0] != '\0' && rxb_scn_honours(k, e) && range_differs(k, e))
		cat(buf, cap, "; on the %s: %s", e == RXB_ENGINE_EMU ? "emulator" : "simulator",
		    l->why);
}

static int reject(struct rxb_err *err, enum rxb_engine e, const struct rxb_scn_key *k,
		  const struct rxb_scn_val *v, const char *why)
{
	char allowed[512];

	rxb_scn_allowed(k, e, allowed, sizeof(allowed));
	rxb_err_set(err, "%s = %s: %s; allowed: %s", k->full, v->as_text, why, allowed);
	return -EINVAL;
}

/* --------------------------------------------------------------- checks */

/* Why number x is not one profile key k allows (NULL: it is). */
static const char *profile_why(const struct rxb_profile_key *k, double x)
{
	bool integer = strcmp(k->type, "int") == 0;

	if (!isfinite(x))
		return "not a finite number";
	if (x < k->lo || (k->lo_open && x == k->lo) || x > k->hi)
		return "out of range";
	if (integer && x != floor(x))
		return "not an integer";
	if (k->pow2 && (x < 1 || ((uint64_t)x & ((uint64_t)x - 1)) != 0))
		return "not a power of two";
	return NULL;
}

int rxb_profile_check(const struct rxb_profile_key *k, double x, struct rxb_err *err)
{
	bool integer = strcmp(k->type, "int") == 0;
	const char *why = profile_why(k, x);
	char value[32], allowed[160] = "";

	if (why == NULL)
		return 0;
	rxb_scn_num_text(x, value, sizeof(value));
	cat(allowed, sizeof(allowed), "%s",
	    k->pow2   ? "a power-of-two integer"
	    : integer ? "an integer"
		      : "a number");
	range_text(integer, k->lo, k->hi, k->lo_open, allowed, sizeof(allowed));
	if (k->unit[0] != '\0')
		cat(allowed, sizeof(allowed), " (%s)", k->unit);
	rxb_err_set(err, "profile.%s.%s = %s: %s; allowed: %s", k->section, k->name, value, why,
		    allowed);
	return -EINVAL;
}

static const char *val_noun(enum rxb_scn_val_type t)
{
	static const char *const noun[] = { "a boolean", "an integer", "a number", "a string",
					    "a list" };

	return noun[t];
}

/* One number against the engine's limits; NULL when allowed. */
static const char *out_of_range(const struct rxb_scn_key *k, enum rxb_engine e, double x)
{
	const struct rxb_scn_limits *l = &k->lim[e];

	if (x < l->lo || (k->lo_open && x == l->lo) || x > l->hi)
		return "out of range";
	return NULL;
}

static const char *bad_integer(const struct rxb_scn_key *k, enum rxb_engine e, bool negative,
			       uint64_t u)
{
	const char *why = negative ? "out of range" : out_of_range(k, e, (double)u);

	if (why == NULL && k->lim[e].hi < 0x1p64 && u > (uint64_t)k->lim[e].hi)
		why = "out of range"; /* exact above 2^53, where doubles round */
	if (why == NULL && k->pow2 && (u == 0 || (u & (u - 1)) != 0))
		why = "not a power of two";
	return why;
}

static int set_enum(struct rxb_scn *s, enum rxb_engine e, const struct rxb_scn_key *k,
		    const struct rxb_scn_val *v, struct rxb_err *err)
{
	for (unsigned i = 0; i < k->n_names; i++) {
		if (strcmp(v->s, k->names[i]) == 0) {
			*(unsigned *)((char *)s + k->offset) = i;
			return 0;
		}
	}
	return reject(err, e, k, v, "unknown value");
}

static int set_list(struct rxb_scn *s, enum rxb_engine e, const struct rxb_scn_key *k,
		    const struct rxb_scn_val *v, struct rxb_err *err)
{
	struct rxb_scn_list *l = (struct rxb_scn_list *)((char *)s + k->offset);

	if (v->n > k->size)
		return reject(err, e, k, v, "too many elements");
	for (size_t i = 0; i < v->n; i++) {
		const char *why = bad_integer(k, e, false, v->list[i]);

		if (why != NULL)
			return reject(err, e, k, v, why);
	}
	for (size_t i = 0; i < v->n; i++)
		l->v[i] = (uint32_t)v->list[i];
	l->n = (uint32_t)v->n;
	return 0;
}

static int set_number(struct rxb_scn *s, enum rxb_engine e, const struct rxb_scn_key *k,
		      const struct rxb_scn_val *v, struct rxb_err *err)
{
	double x = v->type == RXB_VAL_NUM ? v->f : v->negative ? -(double)v->u : (double)v->u;
	const char *why = isfinite(x) ? out_of_range(k, e, x) : "not a finite number";

	if (why != NULL)
		return reject(err, e, k, v, why);
	*(double *)((char *)s + k->offset) = x;
	return 0;
}

static int set_integer(struct rxb_scn *s, enum rxb_engine e, const struct rxb_scn_key *k,
		       const struct rxb_scn_val *v, struct rxb_err *err)
{
	const char *why = bad_integer(k, e, v->negative, v->u);

	if (why != NULL)
		return reject(err, e, k, v, why);
	if (k->kind == RXB_SCN_U64)
		*(uint64_t *)((char *)s + k->offset) = v->u;
	else
		*(uint32_t *)((char *)s + k->offset) = (uint32_t)v->u;
	return 0;
}

/* Does a value of type t fit a key of kind `kind` at all? */
static bool type_fits(enum rxb_scn_kind kind, enum rxb_scn_val_type t)
{
	switch (kind) {
	case RXB_SCN_BOOL:
		return t == RXB_VAL_BOOL;
	case RXB_SCN_U32:
	case RXB_SCN_U64:
		return t == RXB_VAL_INT;
	case RXB_SCN_F64:
		return t == RXB_VAL_INT || t == RXB_VAL_NUM;
	case RXB_SCN_STR:
	case RXB_SCN_ENUM:
		return t == RXB_VAL_STR;
	default:
		return t == RXB_VAL_LIST;
	}
}

int rxb_scn_set(struct rxb_scn *s, enum rxb_engine e, const struct rxb_scn_key *k,
		const struct rxb_scn_val *v, struct rxb_err *err)
{
	char why[64];

	if (k->auto_ok && v->type == RXB_VAL_STR && strcmp(v->s, "auto") == 0) {
		*(uint32_t *)((char *)s + k->offset) = RXB_SCN_AUTO;
		return 0;
	}
	if (!type_fits(k->kind, v->type)) {
		snprintf(why, sizeof(why), "wrong type (%s)", val_noun(v->type));
		return reject(err, e, k, v, why);
	}
	switch (k->kind) {
	case RXB_SCN_BOOL:
		*(bool *)((char *)s + k->offset) = v->b;
		return 0;
	case RXB_SCN_U32:
	case RXB_SCN_U64:
		return set_integer(s, e, k, v, err);
	case RXB_SCN_F64:
		return set_number(s, e, k, v, err);
	case RXB_SCN_ENUM:
		return set_enum(s, e, k, v, err);
	case RXB_SCN_LIST:
		return set_list(s, e, k, v, err);
	default:
		if (strlen(v->s) >= k->size)
			return reject(err, e, k, v, "too long");
		memcpy((char *)s + k->offset, v->s, strlen(v->s) + 1);
		return 0;
	}
}

/* ------------------------------------------------------------ --set text */

#define RXB_SCN_TEXT_MAX 4096 /* the longest string key (a path) */

/* Decimal, or 0x / 0o / 0b prefixed, as Python's int() reads --set values
 * (a leading 0 is not octal). */
static bool parse_u64(const char *t, uint64_t *out, bool *negative)
{
	static const struct {
		char c;
		int base;
	} prefix[] = { { 'x', 16 }, { 'o', 8 }, { 'b', 2 } };
	char *end;
	int base = 10;

	while (*t == ' ')
		t++;
	*negative = *t == '-';
	if (*negative)
		t++;
	for (size_t i = 0; t[0] == '0' && i < sizeof(prefix) / sizeof(prefix[0]); i++) {
		if ((t[1] | 0x20) == prefix[i].c) {
			base = prefix[i].base;
			t += 2;
			break;
		}
	}
	if (!isalnum((unsigned char)*t)) /* strtoull would skip space and take a sign */
		return false;
	errno = 0;
	*out = strtoull(t, &end, base);
	while (*end == ' ')
		end++;
	return errno == 0 && *end == '\0';
}

/* "[1, 2]", "1,2" or "[]" into at most cap integers. An empty item
 * ("[0,,1]", "0,") is refused, not skipped, as the front end does: it
 * would change which cores the list names. */
static bool parse_list(const char *t, uint64_t *out, size_t cap, size_t *n)
{
	char buf[8192];
	char *p, *comma;
	size_t len;

	while (*t == ' ')
		t++;
	len = strlen(t);
	if (len >= sizeof(buf))
		return false;
	memcpy(buf, t, len + 1);
	if (buf[0] == '[') {
		if (len < 2 || buf[len - 1] != ']')
			return false;
		buf[len - 1] = '\0';
		memmove(buf, buf + 1, len - 1);
	}
	*n = 0;
	if (strspn(buf, " ") == strlen(buf))
		return true; /* the empty list */
	for (p = buf;; p = comma + 1) {
		bool negative;

		comma = strchr(p, ',');
		if (comma != NULL)
			*comma = '\0';
		if (*n == cap || !parse_u64(p, &out[*n], &negative) || negative)
			return false; /* parse_u64 refuses a blank item */
		(*n)++;
		if (comma == NULL)
			return true;
	}
}

/* 'x' or "x" → x, as the front end reads a --set string; else text itself. */
static const char *unquote(const char *text, char *buf, size_t cap)
{
	size_t len = strlen(text);

	if (len < 2 || len >= cap || text[0] != text[len - 1] ||
	    (text[0] != '\'' && text[0] != '"'))
		return text;
	memcpy(buf, text + 1, len - 2);
	buf[len - 2] = '\0';
	return buf;
}

/* Read text as key k expects; false when it cannot be read as that type.
 * A quoted string is copied into quoted[quoted_cap]. */
static bool read_text(const struct rxb_scn_key *k, const char *text, struct rxb_scn_val *v,
		      uint64_t *list, char *quoted, size_t quoted_cap)
{
	char *end;

	v->as_text = text;
	if (k->auto_ok && strcmp(text, "auto") == 0) {
		v->type = RXB_VAL_STR;
		v->s = text;
		return true;
	}
	switch (k->kind) {
	case RXB_SCN_BOOL:
		v->type = RXB_VAL_BOOL;
		v->b = strcasecmp(text, "true") == 0 || strcasecmp(text, "yes") == 0 ||
		       strcasecmp(text, "on") == 0 || strcmp(text, "1") == 0;
		return v->b || strcasecmp(text, "false") == 0 || strcasecmp(text, "no") == 0 ||
		       strcasecmp(text, "off") == 0 || strcmp(text, "0") == 0;
	case RXB_SCN_U32:
	case RXB_SCN_U64:
		v->type = RXB_VAL_INT;
		return parse_u64(text, &v->u, &v->negative);
	case RXB_SCN_F64:
		v->type = RXB_VAL_NUM;
		errno = 0;
		v->f = strtod(text, &end);
		return errno == 0 && end != text && *end == '\0';
	case RXB_SCN_LIST:
		v->type = RXB_VAL_LIST;
		v->list = list;
		return parse_list(text, list, RXB_SCN_LIST_MAX + 1, &v->n);
	default:
		v->type = RXB_VAL_STR;
		v->s = unquote(text, quoted, quoted_cap);
		return true;
	}
}

int rxb_scn_set_text(struct rxb_scn *s, enum rxb_engine e, const char *full, const char *text,
		     struct rxb_err *err)
{
	static const char *const kind_noun[] = { "true or false", "an integer", "an integer",
						 "a number",      "a string",   "a name",
						 "a list" };
	const struct rxb_scn_key *k = rxb_scn_key_find(full);
	char quoted[RXB_SCN_TEXT_MAX];
	uint64_t *list;
	struct rxb_scn_val v = { 0 };
	int rc;

	if (k == NULL) {
		rxb_err_set(err,
			    "%s = %s: unknown key; allowed: the keys `rxb scenario keys` "
			    "lists",
			    full, text);
		return -EINVAL;
	}
	list = calloc(RXB_SCN_LIST_MAX + 1, sizeof(*list));
	if (list == NULL)
		return rxb_err_fail(err, -ENOMEM, "out of memory: a list value (%zu bytes)",
				    (size_t)(RXB_SCN_LIST_MAX + 1) * sizeof(*list));
	if (!read_text(k, text, &v, list, quoted, sizeof(quoted))) {
		char why[64];

		snprintf(why, sizeof(why), "cannot be read as %s", kind_noun[k->kind]);
		rc = reject(err, e, k, &v, why);
	} else {
		rc = rxb_scn_set(s, e, k, &v, err);
	}
	free(list);
	if (rc == 0 && !rxb_scn_honours(k, e))
		return 1;
	return rc;
}

void rxb_scn_defaults(struct rxb_scn *s, enum rxb_engine e)
{
	struct rxb_err err;

	memset(s, 0, sizeof(*s));
	for (unsigned i = 0; i < RXB_SCN_N_KEYS; i++) {
		int rc = rxb_scn_set_text(s, e, rxb_scn_keys[i].full, rxb_scn_keys[i].lim[e].dflt,
					  &err);

		/* The generator and test_scenario check every default parses. */
		if (rc < 0) {
			fprintf(stderr, "scenario table: default of %s: %s\n", rxb_scn_keys[i].full,
				err.msg);
			abort();
		}
	}
}
