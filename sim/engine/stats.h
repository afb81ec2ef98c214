/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/engine/stats.h — what the mechanisms' stats writers share (each writes its
 * own section of the result object of docs/engine-contract.md §4.1;
 * report.c calls them in the object's order): the contract's number types
 * as jansson values.
 */
#ifndef SIM_STATS_H
#define SIM_STATS_H

#include <math.h>
#include <stdint.h>

#include <jansson.h>

#include "rxb/common.h"

/* A finite non-negative number (the contract's "number"), or null. */
static inline json_t *jnum(double v)
{
	if (!isfinite(v))
		return json_null();
	if (v < 0)
		v = 0;
	return json_real(v);
}

/* A fraction, clamped to [0, 1], or null. */
static inline json_t *jfrac(double v)
{
	if (!isfinite(v))
		return json_null();
	return jnum(v < 0 ? 0 : v > 1 ? 1 : v);
}

static inline json_t *jcount(uint64_t v)
{
	return json_integer((json_int_t)v);
}

static inline void jset(json_t *o, const char *k, json_t *v)
{
	json_object_set_new(o, k, v);
}

/* Drops by cause, as the contract names the causes. */
static inline json_t *jdrops(const uint64_t *d)
{
	json_t *o = json_object();

	for (int c = 0; c < RXB_DROP_CAUSES; c++)
		jset(o, rxb_drop_cause_name[c], jcount(d[c]));
	return o;
}

#endif /* SIM_STATS_H */
