/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Co-located memory hogs (docs/simulator.md §2.7): background cores that
 * issue waves of accesses through the LLC and DRAM, STREAM triad or
 * PageRank-like, competing with the network functions for both.
 */
#include <math.h>

#include "engine_int.h"
#include "hog.h"
#include "stats.h"

/* Hog h from time `now`: waves of system.mlp accesses (at most 64) while
 * its clock is within the horizon, then its next event. */
void ev_hog(struct sim *s, uint32_t h, uint64_t now)
{
	struct hog *g = &s->hog[h];
	uint64_t limit = now + s->mem.horizon_ps, third = g->lines / 3;
	struct acc a[64];
	unsigned m = s->cfg->scn.system.mlp < 64 ? s->cfg->scn.system.mlp : 64;

	if (g->t < now)
		g->t = now;
	while (g->t <= limit) {
		for (unsigned j = 0; j < m; j++) {
			a[j].cls = (uint8_t)s->cls_hog;
			if (s->cfg->scn.system.hog == RXB_HOG_STREAM) {
				/* triad a[i] = b[i] + s * c[i]: read b, read c, write a */
				uint64_t which = g->pos % 3, line = (g->pos / 3) % third;

				a[j].addr = g->base + (which * third + line) * SIM_LLC_LINE;
				a[j].op = which == 2 ? SIM_LLC_WR : SIM_LLC_RD;
				g->pos++;
			} else {
				a[j].addr = g->base +
					    sim_rng_below(&g->rng, g->lines) * SIM_LLC_LINE;
				a[j].op = SIM_LLC_RD;
			}
		}
		{ /* the DRAM latency statistics are the cores' */
			uint64_t ls = s->mem.dram_lat_sum, ln = s->mem.dram_lat_n;

			sim_note_step(&s->mem, g->t);
			g->t += sim_mem_par(&s->mem, g->t, s->ncores + h, a, m, NULL);
			s->mem.dram_lat_sum = ls;
			s->mem.dram_lat_n = ln;
		}
		if (s->mem.warm)
			g->accesses += m;
	}
	push(s, g->t, EV_HOG, h);
}

/* The hogs' data, from address *next on (which moves past it), and their
 * staggered start times. */
void hog_setup(struct sim *s, uint64_t *next)
{
	const struct sim_cfg *cfg = s->cfg;
	uint64_t llc = (uint64_t)llround(cfg->llc_mib * (double)(1u << 20));

	if (cfg->scn.system.hog == RXB_HOG_NONE || cfg->scn.system.hog_instances == 0)
		return;
	s->hog = sim_xcalloc(cfg->scn.system.hog_instances, sizeof(*s->hog));
	for (uint32_t h = 0; h < cfg->scn.system.hog_instances; h++) {
		struct hog *g = &s->hog[h];
		/* STREAM: three arrays of 4 x LLC (STREAM's own sizing rule);
		 * PageRank-like: 1 GiB of graph. */
		uint64_t bytes = cfg->scn.system.hog == RXB_HOG_STREAM ? 3 * 4 * llc : 1ull << 30;

		g->base = *next;
		g->lines = bytes / SIM_LLC_LINE / 3 * 3;
		*next = align_up(*next + bytes, HUGE_ALIGN);
		sim_rng_seed(&g->rng, cfg->scn.run.seed, 0x7000 + h);
		g->t = h * 37 * PS_PER_NS; /* staggered starts */
	}
}

/* ------------------------------------------------------------ stats */

/* "hog" (when there are hogs): their kind, number and bandwidth. */
void hog_stats(const struct sim *s, json_t *m, double T)
{
	const struct rxb_scn_system *sys = &s->cfg->scn.system;
	uint64_t a = 0;

	if (s->hog == NULL)
		return;
	for (uint32_t h = 0; h < sys->hog_instances; h++)
		a += s->hog[h].accesses;
	jset(m, "hog",
	     json_pack("{s:s,s:I,s:o}", "kind", sys->hog == RXB_HOG_STREAM ? "stream" : "pagerank",
		       "instances", (json_int_t)sys->hog_instances, "gibps",
		       jnum((double)a * 64 / T / (double)(1ull << 30))));
}
