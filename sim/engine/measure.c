/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Measurements of the simulator core (docs/simulator.md §2.8, §2.9):
 * ring occupancy, time-series samples and the I/O working set, dynamic
 * shRing controller samples and receive-call intervals, the coalescing
 * timer, the start of the measured interval, descriptor-return waits, and
 * the conservation checks.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "engine_int.h"
#include "measure.h"
#include "nic.h"
#include "overload.h"
#include "rxb/shring.h"
#include "stats.h"

/* Receive-call intervals for the dynamic shRing overload rule: from one
 * receive call to the next while the core polls. A core whose call found its
 * ring empty sleeps until a delivery wakes it (its idle polls are not
 * simulated), and that idle time makes no interval: idle polling shows a core
 * that keeps up, not a stall. Counted as intervals of the empty-poll cost,
 * idle time would be the median of every core that has any (~9 ns), and a
 * healthy core's ordinary batch-to-batch intervals (microseconds) would pass
 * sigma > 32 x median. */
void record_interval(struct core *k, uint64_t t)
{
	if (k->ivals != NULL && !k->sleeping_since_poll)
		rxb_hist_add(k->ivals, (t - k->last_poll) / PS_PER_NS);
}

/* Descriptor-return waits are read from the library's own histograms (its
 * clock is ps) twice: here at the start of the measured interval, and by the
 * report at the end (sim_desc_waits). */
void snapshot_desc_waits(struct sim *s)
{
	for (uint32_t g = 0; g < s->nsh; g++)
		rxb_shring_wait_stats(rxb_iface_shring(s->ifc), g, &s->sh_w0[g]);
}

void sim_desc_waits(const struct sim *s, struct rxb_shring_wait *out)
{
	memset(out, 0, sizeof(*out));
	for (uint32_t g = 0; g < s->nsh; g++) {
		struct rxb_shring_wait w;

		rxb_shring_wait_stats(rxb_iface_shring(s->ifc), g, &w);
		out->returned += w.returned - s->sh_w0[g].returned;
		out->wait_sum += w.wait_sum - s->sh_w0[g].wait_sum;
		if (w.wait_max > out->wait_max)
			out->wait_max = w.wait_max; /* over the whole run: a cap only */
		for (unsigned b = 0; b < RXB_SHRING_WAIT_BUCKETS; b++)
			out->hist[b] += w.hist[b] - s->sh_w0[g].hist[b];
	}
}

/* Conservation (docs/simulator.md §2.9): the library's full check, then
 * the engine's own books; the first failure is kept in inv_msg. */
void check_invariants(struct sim *s)
{
	struct rxb_err e = { 0 };
	struct rxb_census c;

	s->checks++;
	if (!s->packets_ok || !s->buffers_ok)
		return;
	/* One full check (it sorts every handle): packet conservation and the
	 * designs' internal invariants, then buffer conservation and "no buffer
	 * in two places". Its message says which failed. */
	if (rxb_iface_check(s->ifc, s->pool, &e) != 0) {
		if (strstr(e.msg, "packet") != NULL)
			s->packets_ok = false;
		else
			s->buffers_ok = false;
		snprintf(s->inv_msg, sizeof(s->inv_msg), "%s", e.msg);
		return;
	}
	/* The engine's own books against the library's census. */
	rxb_iface_census(s->ifc, &c, &e);
	if (s->arrivals_total != c.offered + s->emu.n) {
		s->packets_ok = false;
		snprintf(s->inv_msg, sizeof(s->inv_msg),
			 "engine: %llu packets arrived but the interface was offered %llu (+%u in "
			 "the emulator)",
			 (unsigned long long)s->arrivals_total, (unsigned long long)c.offered,
			 s->emu.n);
	}
}

/* Every 10 µs: occupancy of every reception ring and Tx ring, buffers in use. */
void ev_occ(struct sim *s, uint64_t now)
{
	for (uint32_t r = 0; r < s->nrings; r++) {
		uint32_t o = ring_occupancy(s, r);

		s->cur.occ_sum += o;
		s->cur.occ_n++;
		if (s->mem.warm) {
			s->occ[r].sum += o;
			s->occ[r].n++;
			if (o > s->occ[r].max)
				s->occ[r].max = o;
		}
	}
	if (s->mem.warm) {
		uint64_t in_use = s->pool->cfg.n_bufs - rxb_pool_free_count(s->pool);

		if (in_use > s->in_use_max)
			s->in_use_max = in_use;
		for (uint32_t c = 0; c < s->ncores; c++)
			s->core[c].tx_occ_sum += s->core[c].tx.n;
		if (s->arch == RXB_ARCH_SPOOL) /* the memory the ports hold (spp adapts it) */
			s->spool_posted_sum += rxb_iface_posted(s->ifc);
		s->occ_samples++;
	}
	if (now + s->occ_ps < s->end_ps)
		push(s, now + s->occ_ps, EV_OCC, 0);
}

/* Room for record n of array a of records of sz bytes, whose capacity
 * *cap doubles when full (the time series and dynamic shRing samples). */
static void *grow(void *a, uint32_t n, uint32_t *cap, size_t sz)
{
	if (n < *cap)
		return a;
	*cap = *cap ? 2 * *cap : 64;
	a = realloc(a, *cap * sz);
	if (a == NULL) {
		fprintf(stderr, "error: out of memory\n");
		exit(1);
	}
	return a;
}

/* Every run.sample_ms: a time-series point; the I/O working-set window
 * closes; the invariants when run.check_invariants. */
void ev_sample(struct sim *s, uint64_t now)
{
	struct sim_dram_stats ds;
	struct series_pt *p;
	uint64_t window_start = now - s->sample_ps;

	s->ser = grow(s->ser, s->nser, &s->cap_ser, sizeof(*s->ser));
	sim_dram_stats(&s->mem.dram, now, &ds);
	p = &s->ser[s->nser++];
	*p = s->cur;
	p->t_ms = (double)now / PS_PER_MS;
	p->dram_bytes = ds.rd_bytes + ds.wr_bytes - s->cur.dram_bytes;
	p->ws_bufs = s->ws_count;
	p->in_use = s->pool->cfg.n_bufs - rxb_pool_free_count(s->pool);
	p->mode = rxb_iface_dynctl(s->ifc) != NULL ? (int)rxb_iface_dyn_mode(s->ifc) : -1;
	if (window_start >= s->warm_ps && s->mem.warm) {
		s->ws_sum += (double)s->ws_count;
		s->ws_windows++;
	}
	memset(&s->cur, 0, sizeof(s->cur));
	s->cur.dram_bytes = ds.rd_bytes + ds.wr_bytes; /* baseline of the next window */
	memset(s->ws_bits, 0, ((s->ws_slots + 63) / 64) * sizeof(uint64_t));
	s->ws_count = 0;
	if (s->cfg->scn.run.check_invariants)
		check_invariants(s);
	if (now + s->sample_ps <= s->end_ps)
		push(s, now + s->sample_ps, EV_SAMPLE, 0);
}

/* A wedged core for the overload count: packets wait in its ring, it is not
 * asleep (a sleeping core with packets has a wake-up coming), and it has made
 * no receive call for a whole sample period. The spread rule cannot see it
 * (it needs two intervals) and the library leaves it to the caller. */
static bool core_wedged(struct sim *s, const struct core *k, uint64_t now, uint64_t period_ps)
{
	return k->state != CS_SLEEP && now - k->last_poll >= period_ps &&
	       rxb_iface_occupancy(s->ifc, k->id) > 0;
}

/* Every arch.dyn_sample_ms (dyn_shring): the controller's sample. */
void ev_dyn(struct sim *s, uint64_t now)
{
	const struct sim_cfg *cfg = s->cfg;
	double period_s = cfg->scn.arch.dyn_sample_ms * 1e-3;
	uint64_t period_ps = (uint64_t)llround(cfg->scn.arch.dyn_sample_ms * PS_PER_MS);
	struct sim_dram_stats ds;
	struct rxb_dynctl_sample smp = { 0 };
	struct dyn_pt *p;
	uint64_t dram;
	enum rxb_dyn_decision dec;

	sim_dram_stats(&s->mem.dram, now, &ds);
	dram = ds.rd_bytes + ds.wr_bytes;
	/* The load the ports received from the link (nic_packet), not what the
	 * cores got through: the up-switch is for a load that privRing cannot
	 * carry, whose delivered throughput stays below the threshold. */
	smp.tput_gbps = (double)s->dyn_rx_bits / period_s / 1e9;
	smp.mem_bw_gibps = (double)(dram - s->dyn_dram_bytes) / period_s / (double)(1ull << 30);
	for (uint32_t c = 0; c < s->ncores; c++) {
		struct core *k = &s->core[c];

		if (sim_overloaded(k->ivals, cfg->scn.arch.dyn_overload_factor, s->ival_scratch,
				   IVAL_SCRATCH) == 1 ||
		    core_wedged(s, k, now, period_ps))
			smp.overloaded_cores++;
		rxb_hist_reset(k->ivals);
	}
	dec = rxb_iface_dyn_sample(s->ifc, &smp);
	s->dyn = grow(s->dyn, s->ndyn, &s->cap_dyn, sizeof(*s->dyn));
	p = &s->dyn[s->ndyn++];
	p->t_ms = (double)now / PS_PER_MS;
	p->tput_gbps = smp.tput_gbps;
	p->membw_gibps = smp.mem_bw_gibps;
	p->overloaded = smp.overloaded_cores;
	p->decision = (int)dec;
	p->mode = (int)rxb_iface_dyn_mode(s->ifc);
	s->dyn_rx_bits = 0;
	s->dyn_dram_bytes = dram;
	if (now + period_ps <= s->end_ps)
		push(s, now + period_ps, EV_DYN, 0);
}

/* Every coalesce_timeout_ns / 2 (rxBisect with coalescing): the library's
 * timer; cores whose rings it filled wake. */
void ev_tick(struct sim *s, uint64_t now)
{
	uint64_t period = (uint64_t)llround(s->cfg->scn.arch.coalesce_timeout_ns * PS_PER_NS / 2);

	if (rxb_iface_tick(s->ifc, now) != 0) {
		for (uint32_t c = 0; c < s->ncores; c++)
			if (s->core[c].state == CS_SLEEP && rxb_iface_occupancy(s->ifc, c) > 0)
				wake(s, c, now);
	}
	if (period == 0)
		period = 1;
	if (now + period < s->end_ps)
		push(s, now + period, EV_TICK, 0);
}

/* The measured interval begins: statistics restart from here. */
void ev_warmup(struct sim *s)
{
	struct sim_dram_stats ds;

	s->mem.warm = true;
	sim_llc_reset_stats(&s->mem.llc);
	sim_dram_stats(&s->mem.dram, s->mem.now, &ds);
	s->dram_rd0 = ds.rd_bytes;
	s->dram_wr0 = ds.wr_bytes;
	s->mem.dram_lat_sum = s->mem.dram_lat_n = 0;
	{
		struct rxb_pool_core_stats st;

		rxb_pool_stats(s->pool, RXB_NONE, &st);
		s->pool_empty0 = st.empty;
	}
	for (uint32_t c = 0; c < s->ncores; c++) {
		struct core *k = &s->core[c];

		memset(&k->cost, 0, sizeof(k->cost));
	}
	snapshot_desc_waits(s);
}

/* ------------------------------------------------------------ stats */

json_t *measure_stats_per_ring(const struct sim *s)
{
	json_t *arr = json_array();

	for (uint32_t r = 0; r < s->nrings; r++) {
		json_t *o = json_object(), *occ = json_object();
		uint64_t drops[RXB_DROP_CAUSES] = { 0 }, offered = 0, delivered = 0;

		for (uint32_t d = 0; d < s->ndests; d++) {
			if (cq_ring(s, d) != r)
				continue;
			offered += s->dst[d].offered;
			delivered += s->dst[d].delivered;
			for (int x = 0; x < RXB_DROP_CAUSES; x++)
				drops[x] += s->dst[d].drops[x];
		}
		jset(o, "ring", jcount(r));
		jset(o, "core", jcount(r % s->ncores));
		jset(o, "offered", jcount(offered));
		jset(o, "delivered", jcount(delivered));
		jset(o, "drops_by_cause", jdrops(drops));
		jset(occ, "mean", jnum(s->occ[r].n ? s->occ[r].sum / (double)s->occ[r].n : 0));
		jset(occ, "max", jcount(s->occ[r].max));
		jset(o, "occupancy", occ);
		json_array_append_new(arr, o);
	}
	return arr;
}

json_t *measure_stats_shared_rings(const struct sim *s)
{
	json_t *arr = json_array();
	struct rxb_shring *sh = rxb_iface_shring(s->ifc);

	for (uint32_t g = 0; g < s->nsh; g++) {
		struct rxb_shring_wait w;
		struct rxb_shring_fetch f;
		json_t *o = json_object();

		rxb_shring_wait_stats(sh, g, &w);
		rxb_shring_fetch_stats(sh, g, &f);
		jset(o, "ring", jcount(g));
		jset(o, "cores", jcount(s->cfg->scn.arch.share_degree));
		jset(o, "returned", jcount(w.returned));
		jset(o, "desc_wait_us_mean",
		     w.returned ? jnum((double)w.wait_sum / (double)w.returned / 1e6)
				: json_null());
		jset(o, "desc_wait_us_max", jnum((double)w.wait_max / 1e6));
		jset(o, "held_back_max", jcount(w.held_back_max));
		jset(o, "desc_reads", jcount(f.reads));
		jset(o, "desc_fetched", jcount(f.fetched));
		json_array_append_new(arr, o);
	}
	return arr;
}

json_t *measure_stats_series(const struct sim *s)
{
	json_t *arr = json_array();
	double w = (double)s->sample_ps / 1e12;

	for (uint32_t i = 0; i < s->nser; i++) {
		const struct series_pt *p = &s->ser[i];
		json_t *o = json_object();

		jset(o, "t_ms", jnum(p->t_ms));
		jset(o, "offered_mpps", jnum((double)p->arrivals / w / 1e6));
		jset(o, "throughput_gbps", jnum((double)p->wire_bits / w / 1e9));
		jset(o, "drops", jcount(p->drops));
		jset(o, "drop_rate",
		     p->arrivals ? jfrac((double)p->drops / (double)p->arrivals) : jnum(0));
		jset(o, "latency_us_mean",
		     p->lat_n ? jnum(p->lat_sum / (double)p->lat_n / 1e6) : json_null());
		jset(o, "mem_bw_gibps", jnum((double)p->dram_bytes / w / (double)(1ull << 30)));
		jset(o, "ring_occupancy_mean", jnum(p->occ_n ? p->occ_sum / (double)p->occ_n : 0));
		jset(o, "io_working_set_mib",
		     jnum((double)p->ws_bufs * s->cfg->scn.arch.buffer_bytes / (double)(1u << 20)));
		jset(o, "buffers_in_use", jcount(p->in_use));
		jset(o, "ddio_hit_rate",
		     p->nic_wr > 0 ? jfrac(p->nic_hit / p->nic_wr) : json_null());
		if (p->mode >= 0)
			jset(o, "mode", json_string(rxb_dyn_mode_name[p->mode]));
		json_array_append_new(arr, o);
	}
	return arr;
}

json_t *measure_stats_dyn(const struct sim *s)
{
	const struct rxb_dynctl *dc = rxb_iface_dynctl(s->ifc);
	json_t *o = json_object(), *arr = json_array();

	for (uint32_t i = 0; i < s->ndyn; i++) {
		const struct dyn_pt *p = &s->dyn[i];
		json_t *e = json_object();

		jset(e, "t_ms", jnum(p->t_ms));
		jset(e, "tput_gbps", jnum(p->tput_gbps));
		jset(e, "mem_bw_gibps", jnum(p->membw_gibps));
		jset(e, "overloaded_cores", jcount(p->overloaded));
		jset(e, "decision", json_string(rxb_dyn_decision_name[p->decision]));
		jset(e, "mode", json_string(rxb_dyn_mode_name[p->mode]));
		json_array_append_new(arr, e);
	}
	jset(o, "mode_final", json_string(rxb_dyn_mode_name[rxb_iface_dyn_mode(s->ifc)]));
	jset(o, "switched_to_shared", jcount(rxb_counter_read(&dc->stats.switched_to_shared)));
	jset(o, "switched_to_private", jcount(rxb_counter_read(&dc->stats.switched_to_private)));
	jset(o, "last_reason", json_string(rxb_dynctl_reason(dc)));
	jset(o, "samples", arr);
	return o;
}

json_t *measure_stats_spool(const struct sim *s)
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
	jset(o, "mode", json_string(rxb_spool_mode_name[s->cfg->scn.arch.spool_mode]));
	jset(o, "ports", jcount(ports));
	jset(o, "queues", jcount(s->nrings));
	jset(o, "memory_bytes", jcount(posted * s->cfg->scn.arch.buffer_bytes));
	jset(o, "memory_bytes_per_port",
	     jnum((double)posted * s->cfg->scn.arch.buffer_bytes / ports));
	/* the same over time: spp's filled depths follow the load */
	jset(o, "memory_bytes_mean",
	     s->occ_samples ? jnum((double)s->spool_posted_sum / (double)s->occ_samples *
				   s->cfg->scn.arch.buffer_bytes)
			    : json_null());
	if (s->cfg->scn.traffic.pattern == RXB_PATTERN_TARGET && s->delivered) /* the noisy port */
		jset(o, "noisy_port_share",
		     jfrac((double)s->dst[s->cfg->scn.traffic.target_core].delivered /
			   (double)s->delivered));
	jset(o, "fairness_jain", nshare && sq > 0 ? jfrac(sum * sum / (nshare * sq)) : json_null());
	return o;
}

/* Packets offered, delivered, in flight and dropped; the load and the
 * throughput. */
void measure_stats_traffic(const struct sim *s, json_t *m, double T)
{
	uint64_t drops = 0;

	for (int c = 0; c < RXB_DROP_CAUSES; c++)
		drops += s->dropped[c];
	jset(m, "offered_packets", jcount(s->offered));
	jset(m, "delivered_packets", jcount(s->delivered));
	jset(m, "in_flight_packets", jcount(s->offered - s->delivered - drops));
	jset(m, "offered_gbps", jnum(8.0 * (double)s->offered_wire_bytes / T / 1e9));
	jset(m, "throughput_gbps", jnum(8.0 * (double)s->dep_wire_bytes / T / 1e9));
	jset(m, "throughput_mpps", jnum((double)s->departures / T / 1e6));
	jset(m, "drop_rate", s->offered ? jfrac((double)drops / (double)s->offered) : jnum(0));
	jset(m, "drops_by_cause", jdrops(s->dropped));
}

/* Latency quantiles (null without packets). */
static void latency_stats(const struct sim *s, json_t *m)
{
	static const char *const key[] = { "latency_us_p50", "latency_us_p99", "latency_us_p999" };
	static const double q[] = { 0.5, 0.99, 0.999 };

	jset(m, "latency_us_mean", s->lat.n ? jnum(rxb_hist_mean(&s->lat) / 1e6) : json_null());
	for (unsigned i = 0; i < 3; i++)
		jset(m, key[i],
		     s->lat.n ? jnum(rxb_hist_quantile(&s->lat, q[i]) / 1e6) : json_null());
}

/* Latency, the reception rings' occupancy, the I/O working set. */
void measure_stats_rings(const struct sim *s, json_t *m)
{
	json_t *o = json_object();
	double sum = 0, n = 0;
	uint64_t mx = s->occ_poll_max;

	latency_stats(s, m);
	for (uint32_t r = 0; r < s->nrings; r++) {
		sum += s->occ[r].sum;
		n += (double)s->occ[r].n;
		if (s->occ[r].max > mx)
			mx = s->occ[r].max;
	}
	jset(o, "mean", jnum(n ? sum / n : 0));
	jset(o, "max", jcount(mx));
	jset(m, "ring_occupancy", o);
	jset(m, "io_working_set_mib",
	     jnum((s->ws_windows ? s->ws_sum / (double)s->ws_windows : (double)s->ws_count) *
		  s->cfg->scn.arch.buffer_bytes / (double)(1u << 20)));
}

/* The conservation checks' verdicts, the shared rings' descriptor waits. */
void measure_stats_checks(const struct sim *s, json_t *m)
{
	json_t *o = json_object();
	struct rxb_shring_wait dw;

	jset(o, "packets_ok", json_boolean(s->packets_ok));
	jset(o, "buffers_ok", json_boolean(s->buffers_ok));
	jset(m, "conservation", o);
	if (s->nsh)
		sim_desc_waits(s, &dw);
	if (s->nsh && dw.returned) {
		jset(m, "desc_wait_us_mean", jnum((double)dw.wait_sum / (double)dw.returned / 1e6));
		jset(m, "desc_wait_us_p99",
		     jnum((double)rxb_shring_wait_quantile(&dw, 0.99) / 1e6));
	} else {
		jset(m, "desc_wait_us_mean", json_null());
		jset(m, "desc_wait_us_p99", json_null());
	}
}

/* Work the engine did out of time order (engine.h, dmaeng.h): 0 and 0 in a
 * correct run. */
static json_t *time_order(const struct sim *s)
{
	uint64_t reads_late = 0;

	for (uint32_t i = 0; i < s->cfg->scn.system.nics; i++)
		reads_late += s->nic[i].rd.late;
	return json_pack("{s:o,s:o}", "events_late", jcount(s->events_late), "dma_reads_late",
			 jcount(reads_late));
}

/* What a failed conservation check found, and how many checks ran. */
void measure_stats_invariants(const struct sim *s, json_t *m)
{
	if (!s->packets_ok || !s->buffers_ok)
		jset(m, "conservation_error", json_string(s->inv_msg));
	jset(m, "invariant_checks", jcount(s->checks));
	jset(m, "time_order", time_order(s));
}
