/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The result object of docs/engine-contract.md §4.1: required metrics,
 * the optional ones, and per-core, per-ring and time-series breakdowns.
 * Everything counts the measured interval [warmup_ms, duration_ms).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "engine.h"
#include "rxb/shring.h"
#include "rxb/spool.h"

static const char *const ARCH_KEY[RXB_ARCHS] = { "privring", "small_privring", "shring",
						  "shring_list", "dyn_shring", "rxbisect",
						  "spool" };

/* A finite non-negative number (the contract's "number"), or null. */
static json_t *jnum(double v)
{
	if (!isfinite(v))
		return json_null();
	if (v < 0)
		v = 0;
	return json_real(v);
}

static json_t *jfrac(double v)
{
	if (!isfinite(v))
		return json_null();
	return jnum(v < 0 ? 0 : v > 1 ? 1 : v);
}

static json_t *jcount(uint64_t v)
{
	return json_integer((json_int_t)v);
}

static void set(json_t *o, const char *k, json_t *v)
{
	json_object_set_new(o, k, v);
}

static double ps_to_cycles(const struct sim *s, double ps)
{
	return ps * s->cfg->freq_ghz / 1000.0;
}

static json_t *drops_obj(const uint64_t *d)
{
	json_t *o = json_object();

	for (int c = 0; c < RXB_DROP_CAUSES; c++)
		set(o, rxb_drop_cause_name[c], jcount(d[c]));
	return o;
}

static json_t *cycles_obj(const struct sim *s, const struct ccost *c, uint64_t pkts)
{
	json_t *o = json_object();
	double n = (double)pkts;
	uint64_t total = c->rx + c->sync + c->alloc + c->app;

	if (pkts == 0) {
		set(o, "rx", json_null());
		set(o, "sync", json_null());
		set(o, "alloc", json_null());
		set(o, "app", json_null());
		set(o, "total", json_null());
		return o;
	}
	set(o, "rx", jnum(ps_to_cycles(s, (double)c->rx) / n));
	set(o, "sync", jnum(ps_to_cycles(s, (double)c->sync) / n));
	set(o, "alloc", jnum(ps_to_cycles(s, (double)c->alloc) / n));
	set(o, "app", jnum(ps_to_cycles(s, (double)c->app) / n));
	set(o, "total", jnum(ps_to_cycles(s, (double)total) / n));
	return o;
}

typedef void llc_stats_fn(const struct sim_llc *llc, unsigned cls, enum sim_llc_op op,
			  struct sim_llc_stats *st);

static void llc_sum(const struct sim *s, llc_stats_fn *stats, unsigned cls, enum sim_llc_op op,
		    double *hits, double *acc)
{
	struct sim_llc_stats st;

	stats(&s->llc, cls, op, &st);
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

	set(p, "arch.name", json_string(rxb_arch_name[c->scn.arch.name]));
	set(p, "run.seed", json_integer((json_int_t)c->scn.run.seed));
	set(p, "arch.emulated", json_boolean(c->scn.arch.emulated));
	if (c->scn.arch.name == RXB_ARCH_SHRING_LIST && c->scn.arch.rxlist_batch > 1)
		set(p, "arch.rxlist_batch", jcount(c->scn.arch.rxlist_batch));
	set(p, "system.profile", json_string(c->profile_name));
	set(p, "system.cores", jcount(c->scn.system.cores));
	set(p, "system.nics", jcount(c->scn.system.nics));
	set(p, "traffic.rate_gbps", jnum(c->scn.traffic.rate_gbps));
	set(p, "traffic.packet_bytes", jcount(c->scn.traffic.packet_bytes));
	set(p, "traffic.pattern", json_string((const char *[]){ "constant", "poisson", "onoff",
								  "target", "trace" }[c->scn.traffic.pattern]));
	set(p, "workload.nf", json_string((const char *[]){ "l3fwd", "nat", "lb", "synthetic",
							      "kvs", "counter" }[c->scn.workload.nf]));
	set(p, "run.duration_ms", jnum(c->scn.run.duration_ms));
	set(p, "run.warmup_ms", jnum(c->scn.run.warmup_ms));
	set(p, "run.llc_sample_shift", jcount(c->scn.run.llc_sample_shift));
	return p;
}

/* Per NIC: PCIe bandwidth both ways, its DMA reads (mean latency from issue
 * to data at the NIC, waiting for a read slot included) and the share of
 * the lines its DMA accesses touched that were not in the LLC. */
static json_t *pcie(const struct sim *s, double T)
{
	json_t *pc = json_array();

	for (uint32_t i = 0; i < s->cfg->scn.system.nics; i++) {
		const struct nic *n = &s->nic[i];

		json_array_append_new(
			pc, json_pack("{s:I,s:o,s:o,s:I,s:o,s:o}", "nic", (json_int_t)i, "up_gbps",
				      jnum(8.0 * (double)n->up_bytes / T / 1e9), "down_gbps",
				      jnum(8.0 * (double)n->down_bytes / T / 1e9), "dma_reads",
				      (json_int_t)n->reads, "dma_read_latency_ns_mean",
				      n->reads ? jnum((double)n->read_ps / (double)n->reads / 1e3) :
						 json_null(),
				      "llc_miss_share",
				      n->pcie_lines ? jfrac((double)n->pcie_missed /
							    (double)n->pcie_lines) :
						      json_null()));
	}
	return pc;
}

/* The same over every NIC: docs/calibration.md's "NIC PCIe read latency" and
 * "share of PCIe accesses missing the LLC". */
static void nic_reads(const struct sim *s, json_t *m)
{
	uint64_t reads = 0, ps = 0, lines = 0, missed = 0, reqs = 0, reqs_missed = 0;

	for (uint32_t i = 0; i < s->cfg->scn.system.nics; i++) {
		reads += s->nic[i].reads;
		ps += s->nic[i].read_ps;
		lines += s->nic[i].pcie_lines;
		missed += s->nic[i].pcie_missed;
		reqs += s->nic[i].pcie_reqs;
		reqs_missed += s->nic[i].pcie_reqs_missed;
	}
	set(m, "nic_pcie_request_miss_share", reqs ? jfrac((double)reqs_missed / (double)reqs) :
						      json_null());
	set(m, "nic_partial_line_reads", jcount(s->partial_reads));
	set(m, "nic_dma_read_latency_ns_mean", reads ? jnum((double)ps / (double)reads / 1e3) :
						      json_null());
	set(m, "nic_pcie_llc_miss_share", lines ? jfrac((double)missed / (double)lines) :
						   json_null());
}

/* Distinct flows each NIC's generator offers (0: a trace's). */
static json_t *flows_per_nic(const struct sim *s)
{
	json_t *a = json_array();

	for (uint32_t i = 0; i < s->cfg->scn.system.nics; i++)
		json_array_append_new(a, jcount(s->nic[i].gen_ok ? sim_traffic_flows(&s->nic[i].gen) :
								     0));
	return a;
}

static json_t *per_core(const struct sim *s, double T)
{
	json_t *arr = json_array();

	for (uint32_t c = 0; c < s->ncores; c++) {
		const struct core *k = &s->core[c];
		json_t *o = json_object();
		uint64_t drops[RXB_DROP_CAUSES] = { 0 }, offered = 0, total;

		for (uint32_t d = 0; d < s->ndests; d++) {
			if (s->arch == RXB_ARCH_SPOOL ?
				    rxb_spool_queue_of(rxb_iface_spool(s->ifc), d) % s->ncores != c :
				    d != c)
				continue;
			offered += s->dst[d].offered;
			for (int x = 0; x < RXB_DROP_CAUSES; x++)
				drops[x] += s->dst[d].drops[x];
		}
		total = k->cost.rx + k->cost.sync + k->cost.alloc + k->cost.app;
		set(o, "core", jcount(c));
		set(o, "nic", jcount(k->nic));
		set(o, "offered", jcount(offered));
		set(o, "delivered", jcount(k->pkts));
		set(o, "throughput_gbps", jnum(8.0 * (double)k->wire_bytes / T / 1e9));
		set(o, "drops_by_cause", drops_obj(drops));
		set(o, "cycles_per_packet", cycles_obj(s, &k->cost, k->pkts));
		set(o, "alloc_cycle_share", total ? jfrac((double)k->cost.alloc / (double)total) :
						    json_null());
		set(o, "busy_fraction", jfrac((double)total / (T * 1e12)));
		set(o, "paused_fraction", jfrac((double)k->paused / (T * 1e12)));
		set(o, "tx_full_waits", jcount(k->tx_full_waits));
		set(o, "tx_ring_mean", s->occ_samples ? jnum((double)k->tx_occ_sum /
							      (double)s->occ_samples) : json_null());
		set(o, "latency_us_mean", k->lat_n ? jnum(k->lat_sum / (double)k->lat_n / 1e6) :
						     json_null());
		set(o, "polls", jcount(k->polls));
		set(o, "empty_polls", jcount(k->empty_polls));
		set(o, "alloc_refused_polls", jcount(k->alloc_fail_polls));
		set(o, "slow", json_boolean(k->slow));
		set(o, "stalls", json_boolean(k->stall_from != UINT64_MAX));
		set(o, "target", json_boolean(k->target));
		json_array_append_new(arr, o);
	}
	return arr;
}

static json_t *per_ring(const struct sim *s)
{
	json_t *arr = json_array();

	for (uint32_t r = 0; r < s->nrings; r++) {
		json_t *o = json_object(), *occ = json_object();
		uint64_t drops[RXB_DROP_CAUSES] = { 0 }, offered = 0, delivered = 0;

		for (uint32_t d = 0; d < s->ndests; d++) {
			if ((s->arch == RXB_ARCH_SPOOL ?
				     rxb_spool_queue_of(rxb_iface_spool(s->ifc), d) :
				     d) != r)
				continue;
			offered += s->dst[d].offered;
			delivered += s->dst[d].delivered;
			for (int x = 0; x < RXB_DROP_CAUSES; x++)
				drops[x] += s->dst[d].drops[x];
		}
		set(o, "ring", jcount(r));
		set(o, "core", jcount(r % s->ncores));
		set(o, "offered", jcount(offered));
		set(o, "delivered", jcount(delivered));
		set(o, "drops_by_cause", drops_obj(drops));
		set(occ, "mean", jnum(s->occ[r].n ? s->occ[r].sum / (double)s->occ[r].n : 0));
		set(occ, "max", jcount(s->occ[r].max));
		set(o, "occupancy", occ);
		json_array_append_new(arr, o);
	}
	return arr;
}

static json_t *shared_rings(const struct sim *s)
{
	json_t *arr = json_array();
	struct rxb_shring *sh = rxb_iface_shring(s->ifc);

	for (uint32_t g = 0; g < s->nsh; g++) {
		struct rxb_shring_wait w;
		struct rxb_shring_fetch f;
		json_t *o = json_object();

		rxb_shring_wait_stats(sh, g, &w);
		rxb_shring_fetch_stats(sh, g, &f);
		set(o, "ring", jcount(g));
		set(o, "cores", jcount(s->cfg->scn.arch.share_degree));
		set(o, "returned", jcount(w.returned));
		set(o, "desc_wait_us_mean",
		    w.returned ? jnum((double)w.wait_sum / (double)w.returned / 1e6) : json_null());
		set(o, "desc_wait_us_max", jnum((double)w.wait_max / 1e6));
		set(o, "held_back_max", jcount(w.held_back_max));
		set(o, "desc_reads", jcount(f.reads));
		set(o, "desc_fetched", jcount(f.fetched));
		json_array_append_new(arr, o);
	}
	return arr;
}

static json_t *series(const struct sim *s)
{
	json_t *arr = json_array();
	double w = (double)s->sample_ps / 1e12;

	for (uint32_t i = 0; i < s->nser; i++) {
		const struct series_pt *p = &s->ser[i];
		json_t *o = json_object();

		set(o, "t_ms", jnum(p->t_ms));
		set(o, "offered_mpps", jnum((double)p->arrivals / w / 1e6));
		set(o, "throughput_gbps", jnum((double)p->wire_bits / w / 1e9));
		set(o, "drops", jcount(p->drops));
		set(o, "drop_rate", p->arrivals ? jfrac((double)p->drops / (double)p->arrivals) :
						  jnum(0));
		set(o, "latency_us_mean", p->lat_n ? jnum(p->lat_sum / (double)p->lat_n / 1e6) :
						     json_null());
		set(o, "mem_bw_gibps", jnum((double)p->dram_bytes / w / (double)(1ull << 30)));
		set(o, "ring_occupancy_mean", jnum(p->occ_n ? p->occ_sum / (double)p->occ_n : 0));
		set(o, "io_working_set_mib",
		    jnum((double)p->ws_bufs * s->cfg->scn.arch.buffer_bytes / (double)(1u << 20)));
		set(o, "buffers_in_use", jcount(p->in_use));
		set(o, "ddio_hit_rate", p->nic_wr > 0 ? jfrac(p->nic_hit / p->nic_wr) : json_null());
		if (p->mode >= 0)
			set(o, "mode", json_string(rxb_dyn_mode_name[p->mode]));
		json_array_append_new(arr, o);
	}
	return arr;
}

static json_t *dyn_obj(const struct sim *s)
{
	const struct rxb_dynctl *dc = rxb_iface_dynctl(s->ifc);
	json_t *o = json_object(), *arr = json_array();

	for (uint32_t i = 0; i < s->ndyn; i++) {
		const struct dyn_pt *p = &s->dyn[i];
		json_t *e = json_object();

		set(e, "t_ms", jnum(p->t_ms));
		set(e, "tput_gbps", jnum(p->tput_gbps));
		set(e, "mem_bw_gibps", jnum(p->membw_gibps));
		set(e, "overloaded_cores", jcount(p->overloaded));
		set(e, "decision", json_string(rxb_dyn_decision_name[p->decision]));
		set(e, "mode", json_string(rxb_dyn_mode_name[p->mode]));
		json_array_append_new(arr, e);
	}
	set(o, "mode_final", json_string(rxb_dyn_mode_name[rxb_iface_dyn_mode(s->ifc)]));
	set(o, "switched_to_shared", jcount(rxb_counter_read(&dc->stats.switched_to_shared)));
	set(o, "switched_to_private", jcount(rxb_counter_read(&dc->stats.switched_to_private)));
	set(o, "last_reason", json_string(rxb_dynctl_reason(dc)));
	set(o, "samples", arr);
	return o;
}

static json_t *spool_obj(const struct sim *s)
{
	struct rxb_spool *sp = rxb_iface_spool(s->ifc);
	json_t *o = json_object();
	uint32_t ports = s->cfg->scn.arch.spool_ports;
	uint64_t posted = 0;
	double sum = 0, sq = 0;
	uint32_t nshare = 0;

	for (uint32_t q = 0; q < s->nrings; q++)
		posted += rxb_spool_posted(sp, q);
	/* Jain's fairness index over the ports that were offered traffic, of
	 * each port's delivered share of its offered load. */
	for (uint32_t p = 0; p < ports; p++) {
		if (s->dst[p].offered == 0)
			continue;
		double x = (double)s->dst[p].delivered / (double)s->dst[p].offered;

		sum += x;
		sq += x * x;
		nshare++;
	}
	set(o, "mode", json_string(rxb_spool_mode_name[s->cfg->scn.arch.spool_mode]));
	set(o, "ports", jcount(ports));
	set(o, "queues", jcount(s->nrings));
	set(o, "memory_bytes", jcount(posted * s->cfg->scn.arch.buffer_bytes));
	set(o, "memory_bytes_per_port", jnum((double)posted * s->cfg->scn.arch.buffer_bytes / ports));
	/* the same over time: spp's filled depths follow the load */
	set(o, "memory_bytes_mean", s->occ_samples ?
					    jnum((double)s->spool_posted_sum / (double)s->occ_samples *
						 s->cfg->scn.arch.buffer_bytes) :
					    json_null());
	if (s->cfg->scn.traffic.pattern == RXB_PATTERN_TARGET && s->delivered) /* the noisy port */
		set(o, "noisy_port_share",
		    jfrac((double)s->dst[s->cfg->scn.traffic.target_core].delivered /
			  (double)s->delivered));
	set(o, "fairness_jain", nshare && sq > 0 ? jfrac(sum * sum / (nshare * sq)) : json_null());
	return o;
}

int sim_report(struct sim *s, FILE *out)
{
	const struct sim_cfg *cfg = s->cfg;
	double T = (double)(s->end_ps - s->warm_ps) / 1e12;
	json_t *root = json_object(), *m = json_object(), *o;
	uint64_t drops = 0, in_flight;
	struct ccost tot = { 0 };
	struct sim_dram_stats ds;
	double nh = 0, na = 0, cp;
	struct rxb_pool_core_stats pst;
	struct rxb_shring_wait dw;
	char hex[24];
	int rc;

	for (int c = 0; c < RXB_DROP_CAUSES; c++)
		drops += s->dropped[c];
	in_flight = s->offered - s->delivered - drops;
	for (uint32_t c = 0; c < s->ncores; c++) {
		tot.rx += s->core[c].cost.rx;
		tot.sync += s->core[c].cost.sync;
		tot.alloc += s->core[c].cost.alloc;
		tot.app += s->core[c].cost.app;
	}
	set(m, "offered_packets", jcount(s->offered));
	set(m, "delivered_packets", jcount(s->delivered));
	set(m, "in_flight_packets", jcount(in_flight));
	set(m, "offered_gbps", jnum(8.0 * (double)s->offered_wire_bytes / T / 1e9));
	set(m, "throughput_gbps", jnum(8.0 * (double)s->dep_wire_bytes / T / 1e9));
	set(m, "throughput_mpps", jnum((double)s->departures / T / 1e6));
	set(m, "drop_rate", s->offered ? jfrac((double)drops / (double)s->offered) : jnum(0));
	set(m, "drops_by_cause", drops_obj(s->dropped));
	set(m, "anatomy", anatomy_json(s));
	set(m, "flows_per_nic", flows_per_nic(s));
	if (s->lat.n) {
		set(m, "latency_us_mean", jnum(sim_hist_mean(&s->lat) / 1e6));
		set(m, "latency_us_p50", jnum(sim_hist_quantile(&s->lat, 0.5) / 1e6));
		set(m, "latency_us_p99", jnum(sim_hist_quantile(&s->lat, 0.99) / 1e6));
		set(m, "latency_us_p999", jnum(sim_hist_quantile(&s->lat, 0.999) / 1e6));
	} else {
		set(m, "latency_us_mean", json_null());
		set(m, "latency_us_p50", json_null());
		set(m, "latency_us_p99", json_null());
		set(m, "latency_us_p999", json_null());
	}
	{
		double sum = 0, n = 0;
		uint64_t mx = s->occ_poll_max;

		for (uint32_t r = 0; r < s->nrings; r++) {
			sum += s->occ[r].sum;
			n += (double)s->occ[r].n;
			if (s->occ[r].max > mx)
				mx = s->occ[r].max;
		}
		o = json_object();
		set(o, "mean", jnum(n ? sum / n : 0));
		set(o, "max", jcount(mx));
		set(m, "ring_occupancy", o);
	}
	set(m, "io_working_set_mib",
	    jnum((s->ws_windows ? s->ws_sum / (double)s->ws_windows : (double)s->ws_count) *
		 cfg->scn.arch.buffer_bytes / (double)(1u << 20)));
	for (uint32_t n = 0; n < cfg->scn.system.nics && n < 4; n++)
		llc_sum(s, sim_llc_stats, s->nic[n].cls_wr, SIM_LLC_WR, &nh, &na);
	set(m, "ddio_hit_rate", cfg->scn.system.ddio_ways == 0 ? jnum(0) : na > 0 ? jfrac(nh / na) :
									   json_null());
	/* with L2s, llc_hit_rate counts the accesses that missed the L2 */
	set(m, "llc_hit_rate", core_hit_rate(s, sim_llc_stats));
	set(m, "l2_hit_rate", s->llc.l2 ? core_hit_rate(s, sim_llc_l2_stats) : json_null());
	sim_dram_stats(&s->dram, s->end_ps, &ds);
	set(m, "mem_bw_gibps", jnum((double)(ds.rd_bytes + ds.wr_bytes - s->dram_rd0 - s->dram_wr0) /
				    T / (double)(1ull << 30)));
	set(m, "cycles_per_packet", cycles_obj(s, &tot, s->departures));
	o = json_object();
	set(o, "packets_ok", json_boolean(s->packets_ok));
	set(o, "buffers_ok", json_boolean(s->buffers_ok));
	set(m, "conservation", o);
	if (s->nsh)
		sim_desc_waits(s, &dw);
	if (s->nsh && dw.returned) {
		set(m, "desc_wait_us_mean", jnum((double)dw.wait_sum / (double)dw.returned / 1e6));
		set(m, "desc_wait_us_p99", jnum((double)rxb_shring_wait_quantile(&dw, 0.99) / 1e6));
	} else {
		set(m, "desc_wait_us_mean", json_null());
		set(m, "desc_wait_us_p99", json_null());
	}
	cp = (double)(tot.rx + tot.sync + tot.alloc + tot.app);
	set(m, "alloc_cycle_share", cp > 0 ? jfrac((double)tot.alloc / cp) : json_null());
	set(m, "buffers_in_use_max", jcount(s->in_use_max));
	rxb_pool_stats(s->pool, RXB_NONE, &pst);
	set(m, "pool_exhausted", jcount(pst.empty - s->pool_empty0));
	set(m, "mode_switches",
	    jcount(s->arch == RXB_ARCH_DYN_SHRING ?
			   rxb_counter_read(&rxb_iface_dynctl(s->ifc)->stats.switched_to_shared) +
				   rxb_counter_read(
					   &rxb_iface_dynctl(s->ifc)->stats.switched_to_private) :
			   0));
	/* engine extras */
	{ /* posted now: the interface's, plus the emulator's physical queues */
		uint64_t posted = rxb_iface_posted(s->ifc);

		for (uint32_t q = 0; q < s->emu.npq; q++)
			posted += s->emu.pq[q].n;
		set(m, "nominal_working_set_mib",
		    jnum((double)posted * cfg->scn.arch.buffer_bytes / (double)(1u << 20)));
	}
	set(m, "service_ns_per_packet", s->departures ? jnum(cp / (double)s->departures / 1e3) :
							json_null());
	set(m, "dram_latency_ns_mean",
	    s->dram_lat_n ? jnum((double)s->dram_lat_sum / (double)s->dram_lat_n / 1e3) :
			    json_null());
	set(m, "dram_misses_per_packet",
	    s->departures ? jnum((double)s->dram_lat_n / (double)s->departures) : json_null());
	set(m, "sync_wait_ns_per_packet",
	    s->departures ? jnum((double)s->sync_wait / (double)s->departures / 1e3) : json_null());
	set(m, "pool_lock_wait_ns_per_packet",
	    s->departures ? jnum((double)s->plock_wait / (double)s->departures / 1e3) : json_null());
	set(m, "pipeline_drops", json_pack("{s:I,s:I}", "nic_buffer", (json_int_t)s->pipeline_nicbuf,
					   "emulator", (json_int_t)s->pipeline_phys));
	set(m, "pcie", pcie(s, T));
	nic_reads(s, m);
	if (cfg->scn.arch.emulated) /* every physical queue has the same depth */
		set(m, "emulator",
		    json_pack("{s:o,s:I,s:o,s:I,s:I,s:I}", "busy_fraction",
			      jfrac((double)s->emu.busy / (T * 1e12)), "packets",
			      (json_int_t)s->emu.pkts, "ns_per_packet",
			      jnum((double)s->c.emu_pkt / 1e3), "physical_occupancy_max",
			      (json_int_t)s->emu.occ_max, "physical_queue_depth",
			      (json_int_t)s->emu.pq[0].cap, "retries", (json_int_t)s->emu.retries));
	if (s->hog) {
		uint64_t a = 0;

		for (uint32_t h = 0; h < cfg->scn.system.hog_instances; h++)
			a += s->hog[h].accesses;
		set(m, "hog", json_pack("{s:s,s:I,s:o}", "kind",
					cfg->scn.system.hog == RXB_HOG_STREAM ? "stream" : "pagerank", "instances",
					(json_int_t)cfg->scn.system.hog_instances, "gibps",
					jnum((double)a * 64 / T / (double)(1ull << 30))));
	}
	snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)s->trace_sum);
	set(m, "trace", json_pack("{s:I,s:o}", "packets", (json_int_t)s->arrivals_total,
				  "tuple_checksum", s->trace ? json_string(hex) : json_null()));
	if (!s->packets_ok || !s->buffers_ok)
		set(m, "conservation_error", json_string(s->inv_msg));
	set(m, "invariant_checks", jcount(s->checks));
	set(m, "per_core", per_core(s, T));
	set(m, "per_ring", per_ring(s));
	if (s->nsh)
		set(m, "shared_rings", shared_rings(s));
	if (s->arch == RXB_ARCH_DYN_SHRING)
		set(m, "dyn_shring", dyn_obj(s));
	if (s->arch == RXB_ARCH_SPOOL)
		set(m, "spool", spool_obj(s));
	set(m, "series", series(s));
	set(m, "calibration", json_pack("{s:s,s:s,s:s}", "origin", cfg->cal.origin, "machine",
					cfg->cal.machine, "date", cfg->cal.date));
	set(m, "arch_key", json_string(ARCH_KEY[s->arch]));

	set(root, "params", params(s));
	set(root, "metrics", m);
	set(root, "sim_packets", jcount(s->arrivals_total));
	set(root, "sim_wall_s", json_real(round(s->wall_s * 1e4) / 1e4));
	rc = json_dumpf(root, out, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
	fputc('\n', out);
	json_decref(root);
	return rc;
}
