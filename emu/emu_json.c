/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The result record (docs/evaluation.md §4): one JSON object on one line,
 * {"experiment": "emu", "arch", "params", "metrics", ...}, with the metric
 * names of the simulator's output (docs/engine-contract.md §4.1) where the
 * emulator measures the same thing; what it cannot measure is null.
 *
 * Built with jansson, as the simulator builds its record. The metrics the
 * shared table names (scenario/tables/result_metrics.toml) are spelled by its
 * generated constants (RXB_METRIC_*): renaming one there breaks this build
 * instead of leaving a record the front end rejects. What only the emulator
 * reports is spelled here.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emu.h"
#include "emu_jw.h"

/* The JSON name of an object's field in the metric table: its constant reads
 * "object.field", so the name starts one past the object's own name. */
#define FIELD(obj, fld) (RXB_METRIC_##obj##__##fld + sizeof(RXB_METRIC_##obj))

/* Drops by cause, as the ring library names the causes. */
static json_t *drops(const uint64_t *d)
{
	json_t *o = json_object();

	for (int k = 0; k < RXB_DROP_CAUSES; k++)
		jw_u64(o, rxb_drop_cause_name[k], d[k]);
	return o;
}

/* The design's keys, "auto" sizes as the run resolved them. */
static void params_arch(json_t *p, const struct rxb_scn_arch *a)
{
	jw_str(p, "arch.name", rxb_arch_name[a->name]);
	jw_set(p, "arch.emulated", json_boolean(a->emulated));
	jw_u64(p, "arch.rx_size", a->rx_size); /* resolved by rxb_emu_cfg_check() */
	jw_u64(p, "arch.ax_size", a->ax_size ? a->ax_size : RXB_DEFAULT_AX_SIZE);
	jw_u64(p, "arch.bx_size", a->bx_size ? a->bx_size : RXB_DEFAULT_BX_SIZE);
	jw_u64(p, "arch.share_degree", a->share_degree);
	jw_str(p, "arch.association", rxb_assoc_name[a->association]);
	jw_u64(p, "arch.batch", a->batch);
	jw_u64(p, "arch.buffer_bytes", a->buffer_bytes);
	jw_u64(p, "arch.alloc_cache", a->alloc_cache);
	if (a->name == RXB_ARCH_SPOOL) {
		jw_str(p, "arch.spool_mode", rxb_spool_mode_name[a->spool_mode]);
		jw_u64(p, "arch.spool_ports", a->spool_ports);
		jw_u64(p, "arch.spool_low", a->spool_low);
		jw_u64(p, "arch.spool_high", a->spool_high);
	}
}

/* The machine, the traffic and the network function. */
static void params_load(json_t *p, const struct rxb_scn *s)
{
	json_t *stalled = json_array();

	jw_u64(p, "system.cores", s->system.cores);
	jw_u64(p, "system.nics", s->system.nics);
	for (uint32_t i = 0; i < s->system.stalled_cores.n; i++)
		json_array_append_new(stalled, json_integer(s->system.stalled_cores.v[i]));
	jw_set(p, "system.stalled_cores", stalled);
	jw_num(p, "traffic.rate_gbps", s->traffic.rate_gbps);
	jw_u64(p, "traffic.packet_bytes", s->traffic.packet_bytes);
	jw_str(p, "traffic.pattern", rxb_pattern_name[s->traffic.pattern]);
	jw_num(p, "traffic.target_share", s->traffic.target_share);
	jw_u64(p, "traffic.flows", s->traffic.flows);
	jw_str(p, "traffic.pcap", s->traffic.pcap);
	jw_str(p, "workload.nf", rxb_nf_kind_name[s->workload.nf]);
	if (s->workload.nf == RXB_NF_KIND_SYNTHETIC) {
		jw_u64(p, "workload.reads", s->workload.reads);
		jw_num(p, "workload.buffer_mib", s->workload.buffer_mib);
		jw_str(p, "workload.payload", rxb_payload_name[s->workload.payload]);
	}
	jw_num(p, "workload.compute_ns", s->workload.compute_ns);
	if (rxb_nf_keeps_flows(s->workload.nf))
		jw_set(p, "emu.learn_flows", json_boolean(s->emu.learn_flows));
}

/* The run, the emulator's own keys and what the run derived from them. */
static void params_run(json_t *p, const struct rxb_emu_cfg *c, const struct rxb_emu_result *r)
{
	jw_num(p, "run.duration_ms", c->scn.run.duration_ms);
	jw_num(p, "run.warmup_ms", c->scn.run.warmup_ms);
	jw_u64(p, "run.seed", c->scn.run.seed);
	jw_str(p, "emu.source", rxb_emu_source_name[c->scn.emu.source]);
	jw_str(p, "emu.out",
	       c->out == RXB_EMU_OUT_PCAP   ? c->out_pcap
	       : c->out == RXB_EMU_OUT_PORT ? "port"
	       : c->out == RXB_EMU_OUT_RING ? "ring"
					    : "null");
	jw_str(p, "emu.rss", rxb_emu_rss_name[c->scn.emu.rss]);
	jw_u64(p, "emu.packets", c->scn.emu.packets);
	jw_u64(p, "emu.gen_lcores", c->scn.emu.gen_lcores);
	jw_u64(p, "derived.phys_queues", rxb_emu_phys_queues(c));
	jw_u64(p, "derived.phys_slots", r->phys_slots);
	jw_u64(p, "derived.virt_slots", r->virt_slots);
	jw_u64(p, "derived.pool_buffers", r->pool_size);
	jw_u64(p, "derived.tsc_hz", r->tsc_hz);
}

static json_t *params(const struct rxb_emu_cfg *c, const struct rxb_emu_result *r)
{
	json_t *p = json_object();

	params_arch(p, &c->scn.arch);
	params_load(p, &c->scn);
	params_run(p, c, r);
	return p;
}

const char *const rxb_emu_stage_name[RXB_EMU_STAGES] = {
	[RXB_EMU_STAGE_REFILL] = "refill",     [RXB_EMU_STAGE_RECEIVE] = "receive",
	[RXB_EMU_STAGE_CLASSIFY] = "classify", [RXB_EMU_STAGE_DELIVER] = "deliver",
	[RXB_EMU_STAGE_OTHER] = "other",
};

json_t *rxb_emu_stages_json(const double *cyc_per_pkt)
{
	json_t *o = json_object();

	for (int s = 0; s < RXB_EMU_STAGES; s++)
		jw_num(o, rxb_emu_stage_name[s], cyc_per_pkt[s]);
	return o;
}

/* What the emulation costs beyond what the NIC it plays would: the NIC
 * thread's cycles and ns per packet (one lcore, full bursts), where they
 * go, and the latency it adds (time in a NIC lcore's hands). */
static json_t *emulation_cost(const struct rxb_emu_cfg *c, const struct rxb_emu_result *r)
{
	static const double none[RXB_EMU_STAGES] = { [0 ... RXB_EMU_STAGES - 1] = NAN };
	double hz = (double)r->tsc_hz, cyc = r->emu_loaded_cycles_per_pkt;
	bool e = c->scn.arch.emulated;
	json_t *o = json_object();

	jw_num(o, "nic_cycles_per_packet", e ? cyc : NAN);
	jw_num(o, "nic_ns_per_packet", e && hz > 0 ? cyc / hz * 1e9 : NAN);
	jw_set(o, "nic_stage_cycles_per_packet",
	       rxb_emu_stages_json(e ? r->emu_stage_cyc_per_pkt : none));
	jw_num(o, "capacity_mpps", e && cyc > 0 ? hz / cyc * r->emu_nic_lcores / 1e6 : NAN);
	jw_num(o, "added_latency_ns", e ? r->emu_held_ns : NAN);
	return o;
}

/* What was offered and what became of it. */
static void delivery(json_t *m, const struct rxb_emu_result *r)
{
	jw_u64(m, RXB_METRIC_OFFERED_PACKETS, r->offered);
	jw_u64(m, RXB_METRIC_DELIVERED_PACKETS, r->delivered);
	jw_u64(m, RXB_METRIC_IN_FLIGHT_PACKETS, r->in_flight);
	jw_num(m, RXB_METRIC_OFFERED_GBPS, r->offered_gbps);
	jw_num(m, RXB_METRIC_THROUGHPUT_GBPS, r->throughput_gbps);
	jw_num(m, RXB_METRIC_THROUGHPUT_MPPS, r->throughput_mpps);
	jw_num(m, RXB_METRIC_DROP_RATE, r->drop_rate);
	jw_set(m, RXB_METRIC_DROPS_BY_CAUSE, drops(r->drops));
}

/* Latency and the ring occupancy that queueing comes from. */
static void latency(json_t *m, const struct rxb_emu_result *r)
{
	json_t *occ = json_object();

	jw_num(m, RXB_METRIC_LATENCY_US_MEAN, r->lat_mean);
	jw_num(m, RXB_METRIC_LATENCY_US_P50, r->lat_p50);
	jw_num(m, RXB_METRIC_LATENCY_US_P99, r->lat_p99);
	jw_num(m, RXB_METRIC_LATENCY_US_P999, r->lat_p999);
	jw_num(m, "latency_us_max", r->lat_max);
	jw_u64(m, "latency_samples", r->lat_samples);
	jw_num(occ, FIELD(RING_OCCUPANCY, MEAN), r->occ_mean);
	jw_u64(occ, FIELD(RING_OCCUPANCY, MAX), r->occ_max);
	jw_set(m, RXB_METRIC_RING_OCCUPANCY, occ);
}

/* The memory system: cache hit rates are the simulator's alone (null). */
static void memory(json_t *m, const struct rxb_emu_cfg *c, const struct rxb_emu_result *r)
{
	double buf_mib = (double)c->scn.arch.buffer_bytes / 1048576.0;

	/* Distinct buffers the source filled in one run.sample_ms window. */
	jw_num(m, RXB_METRIC_IO_WORKING_SET_MIB, (double)r->emu_ws_max * buf_mib);
	jw_set(m, RXB_METRIC_DDIO_HIT_RATE, json_null());
	jw_set(m, RXB_METRIC_LLC_HIT_RATE, json_null());
	jw_num(m, RXB_METRIC_MEM_BW_GIBPS, r->mem_bw_gibps); /* resctrl MBM when present */
	jw_num(m, "dma_write_gibps", r->dma_write_gibps);
}

/* Where the workers' cycles went (sync is not measured here: null). */
static void cycles(json_t *m, const struct rxb_emu_result *r)
{
	json_t *cpp = json_object();

	jw_num(cpp, FIELD(CYCLES_PER_PACKET, RX), r->cpp_rx);
	jw_set(cpp, FIELD(CYCLES_PER_PACKET, SYNC), json_null());
	jw_num(cpp, FIELD(CYCLES_PER_PACKET, ALLOC), r->cpp_alloc);
	jw_num(cpp, FIELD(CYCLES_PER_PACKET, APP), r->cpp_app);
	jw_num(cpp, FIELD(CYCLES_PER_PACKET, TOTAL), r->cpp_total);
	jw_set(m, RXB_METRIC_CYCLES_PER_PACKET, cpp);
	jw_num(m, RXB_METRIC_ALLOC_CYCLE_SHARE, r->alloc_cycle_share);
	if (r->has_desc_wait) {
		jw_num(m, RXB_METRIC_DESC_WAIT_US_MEAN, r->desc_wait_us_mean);
		jw_num(m, "desc_wait_us_max", r->desc_wait_us_max);
		jw_set(m, RXB_METRIC_DESC_WAIT_US_P99, json_null());
	}
}

/* Buffers, the dynamic design's mode, the NF and Tx, and the checks that
 * no packet or buffer went missing. */
static void accounting(json_t *m, const struct rxb_emu_cfg *c, const struct rxb_emu_result *r)
{
	json_t *cons = json_object();
	uint64_t fails = 0, learned = 0, inserts = 0;

	for (uint32_t w = 0; w < r->n_workers; w++) {
		fails += r->worker[w].alloc_fail;
		learned += r->worker[w].flows_learned;
		inserts += r->worker[w].nf_inserts;
	}
	jw_u64(m, RXB_METRIC_BUFFERS_IN_USE_MAX, r->in_use_max);
	jw_u64(m, RXB_METRIC_POOL_EXHAUSTED, fails);
	jw_u64(m, RXB_METRIC_MODE_SWITCHES, r->mode_switches);
	if (c->scn.arch.name == RXB_ARCH_DYN_SHRING) {
		jw_u64(m, "mode_switches_confirmed", r->mode_switches_confirmed);
		jw_str(m, "dyn_mode_end", r->dyn_mode_end);
	}
	jw_u64(m, "nf_drops", r->nf_drops);
	jw_u64(m, "nf_inserts", inserts);
	jw_u64(m, "flows_learned", learned);
	jw_u64(m, "tx_packets", r->tx_packets);
	jw_u64(m, "tx_drops", r->tx_drops);
	jw_set(cons, FIELD(CONSERVATION, PACKETS_OK), json_boolean(r->packets_ok));
	jw_set(cons, FIELD(CONSERVATION, BUFFERS_OK), json_boolean(r->buffers_ok));
	jw_set(m, RXB_METRIC_CONSERVATION, cons);
}

/* The NIC lcores' dispatch rate and cost (null for a design the NIC runs
 * itself). */
static void emulator_rate(json_t *o, const struct rxb_emu_cfg *c, const struct rxb_emu_result *r)
{
	bool e = c->scn.arch.emulated;

	jw_num(o, "dispatch_mpps", e ? r->emu_mpps : NAN);
	jw_num(o, "cycles_per_packet", e ? r->emu_cycles_per_pkt : NAN);
	jw_num(o, "idle_share", e ? r->emu_idle_share : NAN);
	jw_num(o, "loaded_cycles_per_packet", e ? r->emu_loaded_cycles_per_pkt : NAN);
	jw_u64(o, "loaded_packets", r->emu_loaded_pkts);
	jw_u64(o, "nic_lcores", r->emu_nic_lcores);
	jw_set(o, "cost", emulation_cost(c, r));
}

/* The emulator core: its rate and cost, then its event counters. */
static json_t *emulator(const struct rxb_emu_cfg *c, const struct rxb_emu_result *r)
{
	json_t *o = json_object();

	emulator_rate(o, c, r);
	jw_u64(o, "dispatched", r->emu_dispatched);
	jw_u64(o, "fetched", r->emu_fetched);
	jw_u64(o, "buffer_mismatch", r->emu_mismatch);
	jw_u64(o, "swaps", r->emu_swaps);
	jw_u64(o, "hole_returns", r->emu_hole_returns);
	jw_u64(o, "holes_max", r->emu_holes_max);
	jw_u64(o, "sw_hash", r->emu_sw_hash);
	jw_u64(o, "port_hash", r->emu_port_hash);
	jw_u64(o, "steer_fixups", r->emu_steer_fixups);
	jw_u64(o, "phys_slots", r->phys_slots);
	jw_u64(o, "virt_slots", r->virt_slots);
	jw_u64(o, "gen_late", r->gen_late);
	jw_u64(o, "pipeline_drops", r->gen_pipeline_drops);
	jw_u64(o, "gen_lcore_offered_min", r->gen_lcore_offered_min);
	jw_u64(o, "gen_lcore_offered_max", r->gen_lcore_offered_max);
	jw_u64(o, "port_imissed", r->port_imissed);
	jw_u64(o, "port_rx_nombuf", r->port_rx_nombuf);
	return o;
}

static json_t *ring_json(const struct rxb_emu_cfg *c, const struct rxb_emu_ring_res *o)
{
	json_t *d = json_object();

	jw_u64(d, "offered", o->offered);
	jw_u64(d, "delivered", o->delivered);
	jw_set(d, "drops", drops(o->drops));
	jw_num(d, "occupancy_mean", o->occ_mean);
	if (c->scn.arch.name == RXB_ARCH_SPOOL) {
		/* per representor port: its queue's posted buffers × buffer
		 * bytes (basic: the shared PF queue the port maps to) */
		jw_num(d, "memory_bytes_mean", o->posted_mean * c->scn.arch.buffer_bytes);
		jw_u64(d, "memory_bytes_max", o->posted_max * c->scn.arch.buffer_bytes);
	}
	jw_u64(d, "occupancy_max", o->occ_max);
	return d;
}

/* Per worker, cycles per packet processed (null for a worker that
 * processed none). */
static json_t *worker_json(const struct rxb_emu_worker_res *o)
{
	double p = o->processed ? (double)o->processed : NAN;
	json_t *w = json_object();

	jw_u64(w, "received", o->received);
	jw_u64(w, "processed", o->processed);
	jw_u64(w, "tx", o->tx);
	jw_u64(w, "nf_drops", o->nf_drops);
	jw_u64(w, "nf_inserts", o->nf_inserts);
	jw_u64(w, "flows_learned", o->flows_learned);
	jw_u64(w, "polls", o->polls);
	jw_u64(w, "empty_polls", o->empty_polls);
	jw_u64(w, "alloc_fail", o->alloc_fail);
	jw_num(w, "cycles_rx", (double)o->cyc_rx / p);
	jw_num(w, "cycles_alloc", (double)o->cyc_alloc / p);
	jw_num(w, "cycles_app", (double)o->cyc_app / p);
	jw_num(w, "idle_share",
	       (double)o->cyc_idle /
		       (double)(o->cyc_idle + o->cyc_rx + o->cyc_alloc + o->cyc_app + 1));
	return w;
}

static json_t *per_ring(const struct rxb_emu_cfg *c, const struct rxb_emu_result *r)
{
	json_t *a = json_array();

	for (uint32_t d = 0; d < r->n_rings; d++)
		json_array_append_new(a, ring_json(c, &r->ring[d]));
	return a;
}

static json_t *per_worker(const struct rxb_emu_result *r)
{
	json_t *a = json_array();

	for (uint32_t w = 0; w < r->n_workers; w++)
		json_array_append_new(a, worker_json(&r->worker[w]));
	return a;
}

static json_t *metrics(const struct rxb_emu_cfg *c, const struct rxb_emu_result *r)
{
	json_t *m = json_object();

	delivery(m, r);
	latency(m, r);
	memory(m, c, r);
	cycles(m, r);
	accounting(m, c, r);
	jw_set(m, "emulator", emulator(c, r));
	jw_set(m, "per_ring", per_ring(c, r));
	jw_set(m, "per_worker", per_worker(r));
	return m;
}

void rxb_emu_print_json(FILE *f, const struct rxb_emu_cfg *c, const struct rxb_emu_result *r)
{
	json_t *root = json_object();

	jw_str(root, "experiment", "emu");
	jw_str(root, "arch", rxb_arch_name[c->scn.arch.name]);
	jw_set(root, "params", params(c, r));
	jw_set(root, "metrics", metrics(c, r));
	if (!r->packets_ok)
		jw_str(root, "packets_error", r->packets_msg);
	if (!r->buffers_ok)
		jw_str(root, "buffers_error", r->buffers_msg);
	jw_num(root, "emu_wall_s", r->wall_s);
	jw_write(f, root, 6, "result record");
}
