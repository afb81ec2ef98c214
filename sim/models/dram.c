/* SPDX-License-Identifier: BSD-3-Clause
 * DRAM model: see dram.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dram.h"

#define GIB 1073741824.0

void sim_dram_cfg_reference(struct sim_dram_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->channels = 4;       /* 4 DIMMs, one per channel */
	cfg->dimm_mts = 2933;    /* DDR4-2933 DIMMs (docs/evaluation.md §2.4) */
	cfg->cpu_max_mts = 2400; /* Xeon Silver 4216: DDR4-2400 max (Intel ARK) */
	cfg->bus_bytes = 8;      /* 64-bit DDR4 channel */
	cfg->efficiency = 0.80;  /* assumption, see docs/simulator-models.md */
	cfg->idle_ns = 85.9;     /* fitted: scripts/fit_dram.py, docs/simulator-models.md */
	cfg->service_ns = 32.2;  /* fitted with idle_ns */
	cfg->rho_max = 0.95;
	/* C(0.5) = 0.885 C(0): Intel MLC --max_bandwidth, 1:1 read:write
	 * against all reads on a Cascade Lake Xeon (docs/simulator-models.md) */
	cfg->write_penalty = 2.0 * (1.0 / 0.885 - 1.0); /* 0.25989 */
	cfg->window_ps = 1000000;                       /* 1 µs ≈ 10 idle latencies */
	cfg->late_ps = 1000000;                         /* the simulator's horizon */
}

static uint32_t effective_mts(const struct sim_dram_cfg *cfg)
{
	if (cfg->cpu_max_mts && cfg->cpu_max_mts < cfg->dimm_mts)
		return cfg->cpu_max_mts;
	return cfg->dimm_mts;
}

double sim_dram_peak_Bps(const struct sim_dram_cfg *cfg)
{
	return (double)cfg->channels * effective_mts(cfg) * 1e6 * cfg->bus_bytes;
}

double sim_dram_sustainable_Bps(const struct sim_dram_cfg *cfg)
{
	return sim_dram_peak_Bps(cfg) * cfg->efficiency;
}

double sim_dram_capacity_Bps(const struct sim_dram_cfg *cfg, double write_share)
{
	double w = write_share > 0.0 ? (write_share < 1.0 ? write_share : 1.0) : 0.0;

	return sim_dram_sustainable_Bps(cfg) / (1.0 + cfg->write_penalty * w);
}

double sim_dram_latency_ns_at(const struct sim_dram_cfg *cfg, double rho)
{
	if (!(rho > 0.0))
		rho = 0.0;
	if (rho > cfg->rho_max)
		rho = cfg->rho_max;
	return cfg->idle_ns + cfg->service_ns * rho / (2.0 * (1.0 - rho));
}

int sim_dram_init(struct sim_dram *d, const struct sim_dram_cfg *cfg, struct rxb_err *err)
{
	memset(d, 0, sizeof(*d));
	if (cfg->channels < 1 || cfg->channels > 64) {
		rxb_err_set(err, "dram.channels = %u: must be in [1, 64]", cfg->channels);
		return -EINVAL;
	}
	if (cfg->dimm_mts < 100 || cfg->dimm_mts > 20000) {
		rxb_err_set(err, "dram.dimm_mts = %u: must be in [100, 20000] MT/s", cfg->dimm_mts);
		return -EINVAL;
	}
	if (cfg->cpu_max_mts && (cfg->cpu_max_mts < 100 || cfg->cpu_max_mts > 20000)) {
		rxb_err_set(err, "dram.cpu_max_mts = %u: must be 0 (no limit) or in [100, 20000]",
			    cfg->cpu_max_mts);
		return -EINVAL;
	}
	if (cfg->bus_bytes < 1 || cfg->bus_bytes > 64) {
		rxb_err_set(err, "dram.bus_bytes = %u: must be in [1, 64]", cfg->bus_bytes);
		return -EINVAL;
	}
	if (!(cfg->efficiency > 0.0 && cfg->efficiency <= 1.0)) {
		rxb_err_set(err, "dram.efficiency = %g: must be in (0, 1]", cfg->efficiency);
		return -EINVAL;
	}
	if (!(cfg->idle_ns >= 0.0 && cfg->idle_ns < 1e6)) {
		rxb_err_set(err, "dram.idle_ns = %g: must be in [0, 1e6)", cfg->idle_ns);
		return -EINVAL;
	}
	if (!(cfg->service_ns >= 0.0 && cfg->service_ns < 1e6)) {
		rxb_err_set(err, "dram.service_ns = %g: must be in [0, 1e6)", cfg->service_ns);
		return -EINVAL;
	}
	if (!(cfg->rho_max > 0.0 && cfg->rho_max < 1.0)) {
		rxb_err_set(err, "dram.rho_max = %g: must be in (0, 1)", cfg->rho_max);
		return -EINVAL;
	}
	if (!(cfg->write_penalty >= 0.0 && cfg->write_penalty <= 4.0)) {
		rxb_err_set(err, "dram.write_penalty = %g: must be in [0, 4]", cfg->write_penalty);
		return -EINVAL;
	}
	if (cfg->window_ps < 1000) {
		rxb_err_set(err, "dram.window_ps = %llu: must be at least 1000 (1 ns)",
			    (unsigned long long)cfg->window_ps);
		return -EINVAL;
	}
	d->cfg = *cfg;
	d->mts = effective_mts(cfg);
	d->peak_Bps = sim_dram_peak_Bps(cfg);
	d->sust_Bps = sim_dram_sustainable_Bps(cfg);
	d->win_capacity = d->sust_Bps * (double)cfg->window_ps * 1e-12;
	d->last_cap_Bps = d->sust_Bps;
	d->lat_ps = (uint64_t)llround(cfg->idle_ns * 1000.0);
	return 0;
}

/* End the current window: serve what the memory can, carry the rest, and
 * set the latency the next window's accesses see. The mix enters as
 * read-equivalent bytes, rd + (1 + k)·wr against the read-only capacity:
 * the same ρ as demand / C(w), without a division by the demand (0 in a
 * quiet window), and exactly today's when k = 0. */
static void close_window(struct sim_dram *d)
{
	double demand = (double)(d->win_rd + d->win_wr);
	double eff = demand + d->cfg.write_penalty * (double)d->win_wr;
	double rho = eff / d->win_capacity;
	double queued = d->backlog + eff - d->win_capacity;
	double lat_ns;

	d->backlog = queued > 0.0 ? queued : 0.0;
	lat_ns = sim_dram_latency_ns_at(&d->cfg, rho) + d->backlog / d->sust_Bps * 1e9;
	d->lat_ps = (uint64_t)llround(lat_ns * 1000.0);

	d->rd_bytes += d->win_rd;
	d->wr_bytes += d->win_wr;
	d->last_rd = d->win_rd;
	d->last_wr = d->win_wr;
	d->last_util = rho;
	d->last_cap_Bps = eff > 0.0 ? d->sust_Bps * demand / eff : d->sust_Bps;
	if (demand / ((double)d->cfg.window_ps * 1e-12) > d->peak_win_Bps)
		d->peak_win_Bps = demand / ((double)d->cfg.window_ps * 1e-12);
	if (rho > d->peak_util)
		d->peak_util = rho;
	d->windows++;
	d->win_start += d->cfg.window_ps;
	d->win_rd = d->win_wr = 0;
}

void sim_dram_advance(struct sim_dram *d, uint64_t now_ps)
{
	uint64_t w = d->cfg.window_ps;

	while (now_ps >= d->win_start + w) {
		close_window(d);
		/* A quiet stretch: idle windows change nothing but the clock
		 * once the backlog is gone, so jump over them in one step. */
		if (d->backlog == 0.0 && !(d->win_rd | d->win_wr) && now_ps >= d->win_start + w) {
			uint64_t skip = (now_ps - d->win_start) / w;

			d->win_start += skip * w;
			d->windows += skip;
			d->last_rd = d->last_wr = 0;
			d->last_util = 0.0;
			d->last_cap_Bps = d->sust_Bps;
			d->lat_ps = (uint64_t)llround(d->cfg.idle_ns * 1000.0);
		}
	}
}

void sim_dram_outside(struct sim_dram *d, uint64_t now_ps)
{
	if (now_ps < d->win_start)
		sim_dram_early(d, now_ps);
	else
		sim_dram_advance(d, now_ps);
}

void sim_dram_early(struct sim_dram *d, uint64_t now_ps)
{
	uint64_t age = d->win_start - now_ps;

	d->early++;
	if (age > d->max_age_ps)
		d->max_age_ps = age;
	if (age > d->cfg.late_ps) {
		d->late++;
#ifdef RXB_DEBUG
		fprintf(stderr,
			"sim_dram: access at %llu ps, %llu ps before the current window "
			"(tolerance %llu ps): callers out of time order\n",
			(unsigned long long)now_ps, (unsigned long long)age,
			(unsigned long long)d->cfg.late_ps);
		abort();
#endif
	}
}

void sim_dram_stats(const struct sim_dram *d, uint64_t elapsed_ps, struct sim_dram_stats *st)
{
	double secs = (double)elapsed_ps * 1e-12;
	double wsecs = (double)d->cfg.window_ps * 1e-12;

	memset(st, 0, sizeof(*st));
	st->rd_bytes = d->rd_bytes + d->win_rd;
	st->wr_bytes = d->wr_bytes + d->win_wr;
	if (secs > 0.0) {
		st->rd_gibps = (double)st->rd_bytes / secs / GIB;
		st->wr_gibps = (double)st->wr_bytes / secs / GIB;
		st->mean_gibps = st->rd_gibps + st->wr_gibps;
	}
	st->last_gibps = (double)(d->last_rd + d->last_wr) / wsecs / GIB;
	st->peak_gibps = d->peak_win_Bps / GIB;
	st->last_util = d->last_util;
	st->peak_util = d->peak_util;
	st->last_cap_gibps = d->last_cap_Bps / GIB;
	if (d->last_rd + d->last_wr)
		st->last_write_share = (double)d->last_wr / (double)(d->last_rd + d->last_wr);
	st->late = d->late;
	st->backlog_bytes = d->backlog;
	st->windows = d->windows;
}
