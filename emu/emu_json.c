/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The result record (docs/evaluation.md §4): one JSON object on one line,
 * {"experiment": "emu", "arch", "params", "metrics", ...}, with the metric
 * names of the simulator's output (docs/engine-contract.md §4.1) where the
 * emulator measures the same thing; what it cannot measure is null.
 */
#include <math.h>
#include <string.h>

#include "emu.h"

static void num(FILE *f, const char *key, double v, bool comma)
{
	if (isfinite(v))
		fprintf(f, "\"%s\": %.6g%s", key, v, comma ? ", " : "");
	else
		fprintf(f, "\"%s\": null%s", key, comma ? ", " : "");
}

static void u64(FILE *f, const char *key, uint64_t v, bool comma)
{
	fprintf(f, "\"%s\": %llu%s", key, (unsigned long long)v, comma ? ", " : "");
}

/* A JSON string (paths may hold anything). */
static void str(FILE *f, const char *key, const char *v, bool comma)
{
	fprintf(f, "\"%s\": \"", key);
	for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fprintf(f, "\"%s", comma ? ", " : "");
}

static void drops(FILE *f, const char *key, const uint64_t *d, bool comma)
{
	fprintf(f, "\"%s\": {", key);
	for (int k = 0; k < RXB_DROP_CAUSES; k++)
		u64(f, rxb_drop_cause_name[k], d[k], k + 1 < RXB_DROP_CAUSES);
	fprintf(f, "}%s", comma ? ", " : "");
}

static void params(FILE *f, const struct rxb_emu_cfg *c, const struct rxb_emu_result *r)
{
	char cores[4 * RXB_EMU_MAX_WORKERS + 3];
	size_t off = 0;

	fprintf(f, "\"params\": {");
	str(f, "arch.name", rxb_arch_name[c->scn.arch.name], true);
	fprintf(f, "\"arch.emulated\": %s, ", c->scn.arch.emulated ? "true" : "false");
	u64(f, "arch.rx_size",
	    c->scn.arch.rx_size                           ? c->scn.arch.rx_size
	    : c->scn.arch.name == RXB_ARCH_SMALL_PRIVRING ? RXB_DEFAULT_SMALL_RX_SIZE
							  : RXB_DEFAULT_RX_SIZE,
	    true);
	u64(f, "arch.ax_size", c->scn.arch.ax_size ? c->scn.arch.ax_size : RXB_DEFAULT_AX_SIZE,
	    true);
	u64(f, "arch.bx_size", c->scn.arch.bx_size ? c->scn.arch.bx_size : RXB_DEFAULT_BX_SIZE,
	    true);
	u64(f, "arch.share_degree", c->scn.arch.share_degree, true);
	str(f, "arch.association", rxb_assoc_name[c->scn.arch.association], true);
	u64(f, "arch.batch", c->scn.arch.batch, true);
	u64(f, "arch.buffer_bytes", c->scn.arch.buffer_bytes, true);
	u64(f, "arch.alloc_cache", c->scn.arch.alloc_cache, true);
	if (c->scn.arch.name == RXB_ARCH_SPOOL) {
		str(f, "arch.spool_mode", rxb_spool_mode_name[c->scn.arch.spool_mode], true);
		u64(f, "arch.spool_ports", c->scn.arch.spool_ports, true);
		u64(f, "arch.spool_low", c->scn.arch.spool_low, true);
		u64(f, "arch.spool_high", c->scn.arch.spool_high, true);
	}
	u64(f, "system.cores", c->scn.system.cores, true);
	u64(f, "system.nics", c->scn.system.nics, true);
	off += (size_t)snprintf(cores + off, sizeof(cores) - off, "[");
	for (uint32_t i = 0; i < c->scn.system.stalled_cores.n && off < sizeof(cores); i++)
		off += (size_t)snprintf(cores + off, sizeof(cores) - off, "%s%u", i ? "," : "",
					c->scn.system.stalled_cores.v[i]);
	snprintf(cores + off, sizeof(cores) - off, "]");
	fprintf(f, "\"system.stalled_cores\": %s, ", cores);
	num(f, "traffic.rate_gbps", c->scn.traffic.rate_gbps, true);
	u64(f, "traffic.packet_bytes", c->scn.traffic.packet_bytes, true);
	str(f, "traffic.pattern", rxb_pattern_name[c->scn.traffic.pattern], true);
	num(f, "traffic.target_share", c->scn.traffic.target_share, true);
	u64(f, "traffic.flows", c->scn.traffic.flows, true);
	str(f, "traffic.pcap", c->scn.traffic.pcap, true);
	str(f, "workload.nf", rxb_nf_kind_name[c->scn.workload.nf], true);
	if (c->scn.workload.nf == RXB_NF_KIND_SYNTHETIC) {
		u64(f, "workload.reads", c->scn.workload.reads, true);
		num(f, "workload.buffer_mib", c->scn.workload.buffer_mib, true);
		str(f, "workload.payload", rxb_payload_name[c->scn.workload.payload], true);
	}
	num(f, "workload.compute_ns", c->scn.workload.compute_ns, true);
	num(f, "run.duration_ms", c->scn.run.duration_ms, true);
	num(f, "run.warmup_ms", c->scn.run.warmup_ms, true);
	u64(f, "run.seed", c->scn.run.seed, true);
	str(f, "emu.source", rxb_emu_source_name[c->scn.emu.source], true);
	str(f, "emu.out",
	    c->out == RXB_EMU_OUT_PCAP   ? c->out_pcap
	    : c->out == RXB_EMU_OUT_PORT ? "port"
	    : c->out == RXB_EMU_OUT_RING ? "ring"
					 : "null",
	    true);
	str(f, "emu.rss", c->scn.emu.rss == RXB_EMU_RSS_SW ? "sw" : "auto", true);
	u64(f, "emu.packets", c->scn.emu.packets, true);
	u64(f, "derived.phys_queues", rxb_emu_phys_queues(c), true);
	u64(f, "derived.phys_slots", r->phys_slots, true);
	u64(f, "derived.virt_slots", r->virt_slots, true);
	u64(f, "derived.pool_buffers", r->pool_size, true);
	u64(f, "derived.tsc_hz", r->tsc_hz, false);
	fprintf(f, "}, ");
}

/* What the emulation costs beyond what the NIC it plays would: the NIC
 * thread's cycles and ns per packet (one lcore, full bursts) and the
 * latency it adds (time in a NIC lcore's hands). */
static void emulation_cost(FILE *f, const struct rxb_emu_cfg *c, const struct rxb_emu_result *r)
{
	double hz = (double)r->tsc_hz, cyc = r->emu_loaded_cycles_per_pkt;
	bool e = c->scn.arch.emulated;

	fprintf(f, "\"cost\": {");
	num(f, "nic_cycles_per_packet", e ? cyc : NAN, true);
	num(f, "nic_ns_per_packet", e && hz > 0 ? cyc / hz * 1e9 : NAN, true);
	num(f, "capacity_mpps", e && cyc > 0 ? hz / cyc * r->emu_nic_lcores / 1e6 : NAN, true);
	num(f, "added_latency_ns", e ? r->emu_held_ns : NAN, false);
	fprintf(f, "}, ");
}

/* What was offered and what became of it. */
static void delivery(FILE *f, const struct rxb_emu_result *r)
{
	u64(f, "offered_packets", r->offered, true);
	u64(f, "delivered_packets", r->delivered, true);
	u64(f, "in_flight_packets", r->in_flight, true);
	num(f, "offered_gbps", r->offered_gbps, true);
	num(f, "throughput_gbps", r->throughput_gbps, true);
	num(f, "throughput_mpps", r->throughput_mpps, true);
	num(f, "drop_rate", r->drop_rate, true);
	drops(f, "drops_by_cause", r->drops, true);
}

/* Latency and the ring occupancy that queueing comes from. */
static void latency(FILE *f, const struct rxb_emu_result *r)
{
	num(f, "latency_us_mean", r->lat_mean, true);
	num(f, "latency_us_p50", r->lat_p50, true);
	num(f, "latency_us_p99", r->lat_p99, true);
	num(f, "latency_us_p999", r->lat_p999, true);
	num(f, "latency_us_max", r->lat_max, true);
	u64(f, "latency_samples", r->lat_samples, true);
	fprintf(f, "\"ring_occupancy\": {");
	num(f, "mean", r->occ_mean, true);
	u64(f, "max", r->occ_max, false);
	fprintf(f, "}, ");
}

/* The memory system: cache hit rates are the simulator's alone (null). */
static void memory(FILE *f, const struct rxb_emu_cfg *c, const struct rxb_emu_result *r)
{
	double buf_mib = (double)c->scn.arch.buffer_bytes / 1048576.0;

	/* Distinct buffers the source filled in one run.sample_ms window. */
	num(f, "io_working_set_mib", (double)r->emu_ws_max * buf_mib, true);
	fprintf(f, "\"ddio_hit_rate\": null, \"llc_hit_rate\": null, ");
	num(f, "mem_bw_gibps", r->mem_bw_gibps, true); /* resctrl MBM when present */
	num(f, "dma_write_gibps",
	    r->measured_s > 0 ? r->offered_gbps / 8.0 * 1e9 / 1073741824.0 : 0, true);
}

/* Where the workers' cycles went (sync is not measured here: null). */
static void cycles(FILE *f, const struct rxb_emu_result *r)
{
	fprintf(f, "\"cycles_per_packet\": {");
	num(f, "rx", r->cpp_rx, true);
	fprintf(f, "\"sync\": null, ");
	num(f, "alloc", r->cpp_alloc, true);
	num(f, "app", r->cpp_app, true);
	num(f, "total", r->cpp_total, false);
	fprintf(f, "}, ");
	num(f, "alloc_cycle_share", r->alloc_cycle_share, true);
	if (r->has_desc_wait) {
		num(f, "desc_wait_us_mean", r->desc_wait_us_mean, true);
		num(f, "desc_wait_us_max", r->desc_wait_us_max, true);
		fprintf(f, "\"desc_wait_us_p99\": null, ");
	}
}

/* Buffers, the dynamic design's mode, the NF and Tx, and the checks that
 * no packet or buffer went missing. */
static void accounting(FILE *f, const struct rxb_emu_cfg *c, const struct rxb_emu_result *r)
{
	uint64_t fails = 0;

	for (uint32_t w = 0; w < r->n_workers; w++)
		fails += r->worker[w].alloc_fail;
	u64(f, "buffers_in_use_max", r->in_use_max, true);
	u64(f, "pool_exhausted", fails, true);
	u64(f, "mode_switches", r->mode_switches, true);
	if (c->scn.arch.name == RXB_ARCH_DYN_SHRING) {
		u64(f, "mode_switches_confirmed", r->mode_switches_confirmed, true);
		str(f, "dyn_mode_end", r->dyn_mode_end, true);
	}
	u64(f, "nf_drops", r->nf_drops, true);
	u64(f, "tx_packets", r->tx_packets, true);
	u64(f, "tx_drops", r->tx_drops, true);
	fprintf(f, "\"conservation\": {\"packets_ok\": %s, \"buffers_ok\": %s}, ",
		r->packets_ok ? "true" : "false", r->buffers_ok ? "true" : "false");
}

/* The emulator core: the NIC lcores' dispatch rate and cost (null for a
 * design the NIC runs itself), then its event counters. */
static void emulator(FILE *f, const struct rxb_emu_cfg *c, const struct rxb_emu_result *r)
{
	bool e = c->scn.arch.emulated;

	fprintf(f, "\"emulator\": {");
	num(f, "dispatch_mpps", e ? r->emu_mpps : NAN, true);
	num(f, "cycles_per_packet", e ? r->emu_cycles_per_pkt : NAN, true);
	num(f, "idle_share", e ? r->emu_idle_share : NAN, true);
	num(f, "loaded_cycles_per_packet", e ? r->emu_loaded_cycles_per_pkt : NAN, true);
	u64(f, "loaded_packets", r->emu_loaded_pkts, true);
	u64(f, "nic_lcores", r->emu_nic_lcores, true);
	emulation_cost(f, c, r);
	u64(f, "dispatched", r->emu_dispatched, true);
	u64(f, "fetched", r->emu_fetched, true);
	u64(f, "buffer_mismatch", r->emu_mismatch, true);
	u64(f, "swaps", r->emu_swaps, true);
	u64(f, "hole_returns", r->emu_hole_returns, true);
	u64(f, "holes_max", r->emu_holes_max, true);
	u64(f, "sw_hash", r->emu_sw_hash, true);
	u64(f, "port_hash", r->emu_port_hash, true);
	u64(f, "steer_fixups", r->emu_steer_fixups, true);
	u64(f, "phys_slots", r->phys_slots, true);
	u64(f, "virt_slots", r->virt_slots, true);
	u64(f, "gen_late", r->gen_late, true);
	u64(f, "pipeline_drops", r->gen_pipeline_drops, true);
	u64(f, "port_imissed", r->port_imissed, true);
	u64(f, "port_rx_nombuf", r->port_rx_nombuf, false);
	fprintf(f, "}, ");
}

static void per_ring(FILE *f, const struct rxb_emu_cfg *c, const struct rxb_emu_result *r)
{
	fprintf(f, "\"per_ring\": [");
	for (uint32_t d = 0; d < r->n_rings; d++) {
		const struct rxb_emu_ring_res *o = &r->ring[d];

		fprintf(f, "%s{", d ? ", " : "");
		u64(f, "offered", o->offered, true);
		u64(f, "delivered", o->delivered, true);
		drops(f, "drops", o->drops, true);
		num(f, "occupancy_mean", o->occ_mean, true);
		if (c->scn.arch.name == RXB_ARCH_SPOOL) {
			/* per representor port: its queue's posted buffers × buffer
			 * bytes (basic: the shared PF queue the port maps to) */
			num(f, "memory_bytes_mean", o->posted_mean * c->scn.arch.buffer_bytes,
			    true);
			u64(f, "memory_bytes_max", o->posted_max * c->scn.arch.buffer_bytes, true);
		}
		u64(f, "occupancy_max", o->occ_max, false);
		fprintf(f, "}");
	}
	fprintf(f, "]");
}

/* Per worker, cycles per packet processed (null for a worker that
 * processed none). */
static void per_worker(FILE *f, const struct rxb_emu_result *r)
{
	fprintf(f, "\"per_worker\": [");
	for (uint32_t w = 0; w < r->n_workers; w++) {
		const struct rxb_emu_worker_res *o = &r->worker[w];
		double p = o->processed ? (double)o->processed : NAN;

		fprintf(f, "%s{", w ? ", " : "");
		u64(f, "received", o->received, true);
		u64(f, "processed", o->processed, true);
		u64(f, "tx", o->tx, true);
		u64(f, "nf_drops", o->nf_drops, true);
		u64(f, "polls", o->polls, true);
		u64(f, "empty_polls", o->empty_polls, true);
		u64(f, "alloc_fail", o->alloc_fail, true);
		num(f, "cycles_rx", (double)o->cyc_rx / p, true);
		num(f, "cycles_alloc", (double)o->cyc_alloc / p, true);
		num(f, "cycles_app", (double)o->cyc_app / p, true);
		num(f, "idle_share",
		    (double)o->cyc_idle /
			    (double)(o->cyc_idle + o->cyc_rx + o->cyc_alloc + o->cyc_app + 1),
		    false);
		fprintf(f, "}");
	}
	fprintf(f, "]");
}

static void metrics(FILE *f, const struct rxb_emu_cfg *c, const struct rxb_emu_result *r)
{
	fprintf(f, "\"metrics\": {");
	delivery(f, r);
	latency(f, r);
	memory(f, c, r);
	cycles(f, r);
	accounting(f, c, r);
	emulator(f, c, r);
	per_ring(f, c, r);
	fprintf(f, ", ");
	per_worker(f, r);
	fprintf(f, "}, ");
}

void rxb_emu_print_json(FILE *f, const struct rxb_emu_cfg *c, const struct rxb_emu_result *r)
{
	fprintf(f, "{\"experiment\": \"emu\", ");
	str(f, "arch", rxb_arch_name[c->scn.arch.name], true);
	params(f, c, r);
	metrics(f, c, r);
	if (!r->packets_ok)
		str(f, "packets_error", r->packets_msg, true);
	if (!r->buffers_ok)
		str(f, "buffers_error", r->buffers_msg, true);
	num(f, "emu_wall_s", r->wall_s, false);
	fprintf(f, "}\n");
	fflush(f);
}
