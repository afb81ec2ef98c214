/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Writing the emulator's JSON documents (the result record, the --bench
 * object) with jansson, as the simulator writes its record: one library
 * for both engines, one way to spell a missing number (null).
 */
#ifndef RXB_EMU_JW_H
#define RXB_EMU_JW_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

/* Setters: the object takes the value's reference (NULL on no memory: the
 * key is left out, jansson's set fails without leaking). */
void jw_set(json_t *o, const char *key, json_t *v);
/* A number, or null when there is none (NaN, infinite). */
void jw_num(json_t *o, const char *key, double v);
void jw_u64(json_t *o, const char *key, uint64_t v);
/* A string; one that is not UTF-8 (a path) keeps its ASCII bytes and shows
 * '?' for the others, since jansson takes UTF-8 only. */
void jw_str(json_t *o, const char *key, const char *v);

/* Write root on one line with reals to `digits` significant digits, then a
 * newline; drops root's reference. Returns 0, or -1 (said on stderr, naming
 * `what`) when jansson could not encode it. */
int jw_write(FILE *f, json_t *root, int digits, const char *what);

/* A NIC lcore's cycles per packet by step (rxb_emu_result's
 * emu_stage_cyc_per_pkt) as an object keyed by rxb_emu_stage_name: the
 * result record's and the --bench rows' one spelling. */
json_t *rxb_emu_stages_json(const double *cyc_per_pkt);

#endif
