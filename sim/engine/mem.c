/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The memory-access path's out-of-line parts (mem.h): waves of independent
 * accesses, the horizon's failure path, set-up allocation.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mem.h"
#include "scenario.h" /* RXB_EXIT_NOMEM */

void *sim_xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz);

	if (p == NULL) {
		fprintf(stderr, "error: out of memory (%zu x %zu bytes)\n", n, sz);
		exit(RXB_EXIT_NOMEM);
	}
	return p;
}

/* The stall of a wave (wmax: its slowest access) shared among its n
 * accesses in proportion to their latencies; the remainder of the integer
 * division goes to the slowest, so the shares sum to wmax exactly. */
static void an_share(struct anat *an, const struct acc *a, const uint64_t *lat, unsigned n,
		     uint64_t wmax)
{
	uint64_t sum = 0, given = 0;
	unsigned slowest = 0;

	for (unsigned j = 0; j < n; j++) {
		sum += lat[j];
		slowest = lat[j] > lat[slowest] ? j : slowest;
	}
	if (sum == 0)
		return;
	for (unsigned j = 0; j < n; j++) {
		uint64_t part = (uint64_t)((unsigned __int128)wmax * lat[j] / sum);

		an->ps[a[j].comp] += part;
		given += part;
	}
	an->ps[a[slowest].comp] += wmax - given;
}

/* A memory access past the horizon (mem.h): counted, and fatal in debug
 * builds. */
__attribute__((noinline, cold)) void sim_over_horizon(struct sim_mem *m, uint64_t t)
{
	m->lead_over++;
	if (t - m->now > m->max_ahead_ps)
		m->max_ahead_ps = t - m->now;
#ifdef RXB_DEBUG
	fprintf(stderr,
		"sim: memory access at %llu ps, %llu ps ahead of the event clock "
		"(horizon %llu ps): a step was not checked against the horizon\n",
		(unsigned long long)t, (unsigned long long)(t - m->now),
		(unsigned long long)m->horizon_ps);
	abort();
#endif
}

/* One wave a[0..n) at tw: each access's latency into lat[], the DRAM
 * traffic at tw; returns the slowest latency. */
static uint64_t mem_wave(struct sim_mem *m, uint64_t tw, uint32_t l2, const struct acc *a,
			 unsigned n, uint64_t *lat, struct anat *an)
{
	uint64_t wmax = 0, rd = 0, wr = 0, dlat;

	if (tw > m->lim)
		sim_over_horizon(m, tw);
	sim_dram_account(&m->dram, tw, 0, 0); /* close finished windows first */
	dlat = sim_dram_latency_ps(&m->dram);
	for (unsigned j = 0; j < n; j++) {
		uint32_t f = 0;
		bool fixed = a[j].cls == ACC_FIXED;

		if (fixed) {
			lat[j] = a[j].addr;
		} else {
			f = sim_llc_core_access(&m->llc, l2, a[j].cls, (enum sim_llc_op)a[j].op,
						a[j].addr);
			lat[j] = access_latency(m, f, dlat);
			rd += f / SIM_LLC_DRAM_RD & 1;
			wr += f / SIM_LLC_DRAM_WR & 1;
		}
		an_access(m, an, a[j].comp, f, fixed, lat[j]);
		wmax = lat[j] > wmax ? lat[j] : wmax;
	}
	sim_dram_add(&m->dram, rd * SIM_LLC_LINE, wr * SIM_LLC_LINE);
	return wmax;
}

/* Independent accesses in waves (mem.h). */
uint64_t sim_mem_par(struct sim_mem *m, uint64_t t, uint32_t l2, const struct acc *a, unsigned n,
		     struct anat *an)
{
	uint64_t total = 0, lat[ACC_MAX];

	for (unsigned j0 = 0; j0 < n; j0 += m->mlp) {
		unsigned end = n - j0 < m->mlp ? n : j0 + m->mlp;
		uint64_t wmax = mem_wave(m, t + total, l2, a + j0, end - j0, lat + j0, an);

		if (an && m->warm)
			an_share(an, a + j0, lat + j0, end - j0, wmax);
		total += wmax;
	}
	return total;
}
