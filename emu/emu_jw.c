/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emu_jw.h"

static json_t *jstr(const char *v)
{
	json_t *s = json_string(v);
	char *ascii;

	if (s)
		return s;
	ascii = strdup(v);
	if (!ascii)
		return NULL;
	for (char *p = ascii; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	s = json_string(ascii);
	free(ascii);
	return s;
}

void jw_set(json_t *o, const char *key, json_t *v)
{
	json_object_set_new(o, key, v);
}

void jw_num(json_t *o, const char *key, double v)
{
	jw_set(o, key, isfinite(v) ? json_real(v) : json_null());
}

void jw_u64(json_t *o, const char *key, uint64_t v)
{
	jw_set(o, key, json_integer((json_int_t)v));
}

void jw_str(json_t *o, const char *key, const char *v)
{
	jw_set(o, key, jstr(v));
}

int jw_write(FILE *f, json_t *root, int digits, const char *what)
{
	/* No indent: one line. jansson writes an integral real as "30.0", so
	 * that it reads back as a real. */
	int rc = json_dumpf(root, f, JSON_REAL_PRECISION(digits));

	if (rc == 0)
		fputc('\n', f);
	else
		fprintf(stderr, "error: %s: could not write it (out of memory?)\n", what);
	json_decref(root);
	fflush(f);
	return rc == 0 ? 0 : -1;
}
