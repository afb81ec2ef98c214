/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/engine/hog.h — co-located memory hogs (sim/engine/hog.c, docs/simulator.md §2.7).
 */
#ifndef SIM_HOG_H
#define SIM_HOG_H

#include <stdint.h>
#include "rng.h"

struct hog {
	uint64_t t, base, lines, pos;
	struct sim_rng rng;
	uint64_t accesses;
};

struct sim;

/* The hogs of system.hog, their regions from *next (which advances). */
void hog_setup(struct sim *s, uint64_t *next);
/* Hog h issues a few waves of accesses at now. */
void ev_hog(struct sim *s, uint32_t h, uint64_t now);

/* Stats: "hog" (when there are hogs). */
struct json_t;
void hog_stats(const struct sim *s, struct json_t *m, double T);

#endif /* SIM_HOG_H */
