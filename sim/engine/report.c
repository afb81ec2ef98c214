/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The result object of docs/engine-contract.md §4.1, as a driver: each
 * mechanism writes its own sections (nic.c, core.c, emu_model.c, hog.c,
 * measure.c, anatomy.c: their *_stats functions), called here in the
 * object's fixed order; what belongs to no one mechanism — the memory
 * system's rates, the run's parameters, whole-system ratios — is written
 * here. Everything counts the measured interval [warmup_ms, duration_ms).
 */
#include <math.h>
#include <stdio.h>

#include "core.h"
#include "emu_model.h"
#include "engine.h"
#include "hog.h"
#include "measure.h"
#include "nic.h"
#include "stats.h"

static const char *const ARCH_KEY[RXB_ARCHS] = { "privring",    "small_privring", "shring",
						 "shring_list", "dyn_shring",     "rxbisect",
						 "spool" };
static const char *const PATTERN_KEY[] = { "constant", "poisson", "onoff", "target", "trace" };
static const char *const NF_KEY[] = { "l3fwd", "nat", "lb", "synthetic", "kvs", "counter" };

typedef void llc_stats_fn(const struct sim_llc *llc, unsigned cls, enum sim_llc_op op,
			  struct sim_llc_stats *st);

static void llc_sum(const struct sim *s, llc_stats_fn *stats, unsigned cls, enum sim_llc_op op,
		    double *hits, double *acc)
{
	struct sim_llc_stats st;

	stats(&s->mem.llc, cls, op, &st);
	*hits += st.hits;
	*acc += (double)st.accesses;
}

/* Hit rate of `stats` (the LLC's, or the L2s') over the cores' packet and
 * NF accesses; null without any. */
static json_t *core_hit_rate(const struct sim *s, llc_stats_fn *stats)
{
	double hits = 0, acc = 0;

	for (uint32_t c = 0; c < s->ncls_pkt; c++)
		llc_sum(s, stats, s->core[c].cls_pkt, SIM_LLC_OPS, &hits, &acc);
	llc_sum(s, stats, s->nf.cls_main, SIM_LLC_OPS, &hits, &acc);
	llc_sum(s, stats, s->nf.cls_aux, SIM_LLC_OPS, &hits, &acc);
	llc_sum(s, stats, s->nf.cls_tgt, SIM_LLC_OPS, &hits, &acc);
	return acc > 0 ? jfrac(hits / acc) : json_null();
}

static json_t *params(const struct sim *s)
{
	const struct sim_cfg *c = s->cfg;
	json_t *p = json_object();

	jset(p, "arch.name", json_string(rxb_arch_name[c->scn.arch.name]));
	jset(p, "run.seed", json_integer((json_int_t)c->scn.run.seed));
	jset(p, "arch.emulated", json_boolean(c->scn.arch.emulated));
	if (c->scn.arch.name == RXB_ARCH_SHRING_LIST && c->scn.arch.rxlist_batch > 1)
		jset(p, "arch.rxlist_batch", jcount(c->scn.arch.rxlist_batch));
	jset(p, "system.profile", json_string(c->profile_name));
	jset(p, "system.cores", jcount(c->scn.system.cores));
	jset(p, "system.nics", jcount(c->scn.system.nics));
	jset(p, "traffic.rate_gbps", jnum(c->scn.traffic.rate_gbps));
	jset(p, "traffic.packet_bytes", jcount(c->scn.traffic.packet_bytes));
	jset(p, "traffic.pattern", json_string(PATTERN_KEY[c->scn.traffic.pattern]));
	jset(p, "workload.nf", json_string(NF_KEY[c->scn.workload.nf]));
	jset(p, "run.duration_ms", jnum(c->scn.run.duration_ms));
	jset(p, "run.warmup_ms", jnum(c->scn.run.warmup_ms));
	jset(p, "run.llc_sample_shift", jcount(c->scn.run.llc_sample_shift));
	return p;
}

/* The memory system: DDIO's hit rate, the cores' LLC and L2 hit rates
 * (with L2s, llc_hit_rate counts the accesses that missed the L2), DRAM
 * bandwidth. */
static void mem_stats(const struct sim *s, json_t *m, double T)
{
	const struct sim_cfg *cfg = s->cfg;
	struct sim_dram_stats ds;
	double nh = 0, na = 0;

	for (uint32_t n = 0; n < cfg->scn.system.nics && n < 4; n++)
		llc_sum(s, sim_llc_stats, s->nic[n].cls_wr, SIM_LLC_WR, &nh, &na);
	jset(m, "ddio_hit_rate",
	     cfg->scn.system.ddio_ways == 0 ? jnum(0)
	     : na > 0                       ? jfrac(nh / na)
					    : json_null());
	jset(m, "llc_hit_rate", core_hit_rate(s, sim_llc_stats));
	jset(m, "l2_hit_rate", s->mem.llc.l2 ? core_hit_rate(s, sim_llc_l2_stats) : json_null());
	sim_dram_stats(&s->mem.dram, s->end_ps, &ds);
	jset(m, "mem_bw_gibps",
	     jnum((double)(ds.rd_bytes + ds.wr_bytes - s->dram_rd0 - s->dram_wr0) / T /
		  (double)(1ull << 30)));
}

/* A per-packet mean of `total` (divided by `unit`), or null. */
static json_t *per_packet(const struct sim *s, double total, double unit)
{
	return s->departures ? jnum(total / (double)s->departures / unit) : json_null();
}

/* The buffers: the allocator's share of the cycles, the most in use, the
 * pool's exhaustions, dynamic shRing's switches, the buffers posted now. */
static void buffer_stats(const struct sim *s, json_t *m, const struct ccost *tot)
{
	double cp = (double)(tot->rx + tot->sync + tot->alloc + tot->app);
	const struct rxb_dynctl *dc = rxb_iface_dynctl(s->ifc); /* dynamic shRing's */
	struct rxb_pool_core_stats pst;
	uint64_t posted;

	jset(m, "alloc_cycle_share", cp > 0 ? jfrac((double)tot->alloc / cp) : json_null());
	jset(m, "buffers_in_use_max", jcount(s->in_use_max));
	rxb_pool_stats(s->pool, RXB_NONE, &pst);
	jset(m, "pool_exhausted", jcount(pst.empty - s->pool_empty0));
	jset(m, "mode_switches",
	     jcount(dc ? rxb_counter_read(&dc->stats.switched_to_shared) +
				    rxb_counter_read(&dc->stats.switched_to_private)
		       : 0));
	/* posted now: the interface's, plus the emulator's physical queues */
	posted = rxb_iface_posted(s->ifc) + emumodel_posted(s);
	jset(m, "nominal_working_set_mib",
	     jnum((double)posted * s->cfg->scn.arch.buffer_bytes / (double)(1u << 20)));
}

/* Per-packet costs: service time, DRAM misses and their latency, waits. */
static void cost_stats(const struct sim *s, json_t *m, const struct ccost *tot)
{
	double cp = (double)(tot->rx + tot->sync + tot->alloc + tot->app);

	jset(m, "service_ns_per_packet", per_packet(s, cp, 1e3));
	jset(m, "dram_latency_ns_mean",
	     s->mem.dram_lat_n ? jnum((double)s->mem.dram_lat_sum / (double)s->mem.dram_lat_n / 1e3)
			       : json_null());
	jset(m, "dram_misses_per_packet", per_packet(s, (double)s->mem.dram_lat_n, 1));
	jset(m, "sync_wait_ns_per_packet", per_packet(s, (double)s->sync_wait, 1e3));
	jset(m, "pool_lock_wait_ns_per_packet", per_packet(s, (double)s->plock_wait, 1e3));
	jset(m, "pipeline_drops",
	     json_pack("{s:I,s:I}", "nic_buffer", (json_int_t)s->pipeline_nicbuf, "emulator",
		       (json_int_t)s->pipeline_phys));
}

/* The breakdowns: per core, per ring, per shared ring, the design's own,
 * the time series; then where the costs came from. */
static void breakdowns(const struct sim *s, json_t *m, double T)
{
	const struct sim_cfg *cfg = s->cfg;

	jset(m, "per_core", core_stats_per_core(s, T));
	jset(m, "per_ring", measure_stats_per_ring(s));
	if (s->nsh)
		jset(m, "shared_rings", measure_stats_shared_rings(s));
	if (s->arch == RXB_ARCH_DYN_SHRING)
		jset(m, "dyn_shring", measure_stats_dyn(s));
	if (s->arch == RXB_ARCH_SPOOL)
		jset(m, "spool", measure_stats_spool(s));
	jset(m, "series", measure_stats_series(s));
	jset(m, "calibration",
	     json_pack("{s:s,s:s,s:s}", "origin", cfg->cal.origin, "machine", cfg->cal.machine,
		       "date", cfg->cal.date));
	jset(m, "arch_key", json_string(ARCH_KEY[s->arch]));
}

int sim_report(struct sim *s, FILE *out)
{
	double T = (double)(s->end_ps - s->warm_ps) / 1e12;
	json_t *root = json_object(), *m = json_object();
	struct ccost tot;
	int rc;

	core_cost_total(s, &tot);
	measure_stats_traffic(s, m, T);
	jset(m, "anatomy", anatomy_json(s));
	jset(m, "flows_per_nic", nic_stats_flows(s));
	measure_stats_rings(s, m);
	mem_stats(s, m, T);
	jset(m, "cycles_per_packet", core_cycles_json(s, &tot, s->departures));
	measure_stats_checks(s, m);
	buffer_stats(s, m, &tot);
	cost_stats(s, m, &tot);
	nic_stats_pcie(s, m, T);
	emumodel_stats(s, m, T);
	hog_stats(s, m, T);
	nic_stats_trace(s, m);
	measure_stats_invariants(s, m);
	breakdowns(s, m, T);

	jset(root, "params", params(s));
	jset(root, "metrics", m);
	jset(root, "sim_packets", jcount(s->arrivals_total));
	jset(root, "sim_wall_s", json_real(round(s->wall_s * 1e4) / 1e4));
	rc = json_dumpf(root, out, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
	fputc('\n', out);
	json_decref(root);
	return rc;
}
