/* SPDX-License-Identifier: BSD-3-Clause
 * Synthetic trace generator: see tracegen.h. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pcap.h"
#include "tracegen.h"

enum { EV_FLOW_ARRIVAL = 1, EV_PACKET = 2 };

void sim_tracegen_cfg_default(struct sim_tracegen_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->seed = 1;
	cfg->duration_ps = 100000000000ull; /* 100 ms */
	cfg->rate_bps = 10e9;
	cfg->flow_alpha = 1.2;
	cfg->flow_min_pkts = 1.0;
	cfg->flow_max_pkts = 1000000;
	cfg->flow_pps_median = 10000.0;
	cfg->flow_pps_sigma = 1.0;
	cfg->size.n = 3;
	cfg->size.len[0] = 64;
	cfg->size.weight[0] = 0.45;
	cfg->size.len[1] = 594; /* 576 B IP datagram, the IPv4 minimum MTU */
	cfg->size.weight[1] = 0.10;
	cfg->size.len[2] = 1518;
	cfg->size.weight[2] = 0.45;
	cfg->tcp_share = 0.8;
}

/* E[min(M, floor(X))] for X ~ Pareto(alpha, xm), xm >= 1:
 * Σ_{k=1..M} P(X >= k) = Σ min(1, (xm / k)^alpha). Exact up to k = 10^5,
 * then the midpoint integral of the smooth tail (relative error < 1e-9). */
static double flow_size_mean(double alpha, double xm, uint32_t max)
{
	uint32_t exact = max < 100000u ? max : 100000u;
	double sum = 0.0;

	if (max > exact) {
		double a = (double)exact + 0.5, b = (double)max + 0.5, c = pow(xm, alpha);

		if (fabs(alpha - 1.0) < 1e-12)
			sum += c * log(b / a);
		else
			sum += c * (pow(b, 1.0 - alpha) - pow(a, 1.0 - alpha)) / (1.0 - alpha);
	}
	for (uint32_t k = exact; k >= 1; k--) /* small terms first */
		sum += (double)k <= xm ? 1.0 : pow(xm / (double)k, alpha);
	return sum;
}

static int start_equilibrium(struct sim_tracegen *g);

/* The flow model: the offered rate, Pareto flow sizes, lognormal flow rates. */
static int check_flows(const struct sim_tracegen_cfg *cfg, struct rxb_err *err)
{
	if (!(cfg->rate_bps > 0.0) || (cfg->line_bps && cfg->rate_bps > (double)cfg->line_bps)) {
		rxb_err_set(err, "tracegen.rate_bps = %g: must be > 0 and at most line_bps",
			    cfg->rate_bps);
		return -EINVAL;
	}
	if (!(cfg->flow_alpha > 0.0 && cfg->flow_alpha <= 10.0)) {
		rxb_err_set(err, "tracegen.flow_alpha = %g: must be in (0, 10]", cfg->flow_alpha);
		return -EINVAL;
	}
	if (!(cfg->flow_min_pkts >= 1.0) || cfg->flow_max_pkts < 1 ||
	    cfg->flow_max_pkts > 100000000u) {
		rxb_err_set(err,
			    "tracegen.flow_min_pkts = %g, flow_max_pkts = %u: need min >= 1 and "
			    "1 <= max <= 1e8",
			    cfg->flow_min_pkts, cfg->flow_max_pkts);
		return -EINVAL;
	}
	if (!(cfg->flow_pps_median > 0.0) || !(cfg->flow_pps_sigma >= 0.0)) {
		rxb_err_set(err,
			    "tracegen.flow_pps_median = %g, flow_pps_sigma = %g: need > 0, >= 0",
			    cfg->flow_pps_median, cfg->flow_pps_sigma);
		return -EINVAL;
	}
	return 0;
}

/* The packets: the frame size mix (*wsum: its weights' sum) and the TCP share. */
static int check_mix(const struct sim_tracegen_cfg *cfg, double *wsum, struct rxb_err *err)
{
	*wsum = 0.0;
	if (cfg->size.n < 1 || cfg->size.n > SIM_SIZE_MAX) {
		rxb_err_set(err, "tracegen.size.n = %u: must be in [1, %u]", cfg->size.n,
			    SIM_SIZE_MAX);
		return -EINVAL;
	}
	for (uint32_t i = 0; i < cfg->size.n; i++) {
		if (cfg->size.len[i] < SIM_ETH_MIN_FRAME || cfg->size.len[i] > SIM_ETH_MAX_FRAME ||
		    !(cfg->size.weight[i] >= 0.0)) {
			rxb_err_set(
				err,
				"tracegen.size[%u] = (%u B, %g): need len in [%u, %u], weight >= 0",
				i, cfg->size.len[i], cfg->size.weight[i], SIM_ETH_MIN_FRAME,
				SIM_ETH_MAX_FRAME);
			return -EINVAL;
		}
		*wsum += cfg->size.weight[i];
	}
	if (!(*wsum > 0.0) || !(cfg->tcp_share >= 0.0 && cfg->tcp_share <= 1.0)) {
		rxb_err_set(err,
			    "tracegen: size weights sum to %g, tcp_share = %g: need > 0, [0, 1]",
			    *wsum, cfg->tcp_share);
		return -EINVAL;
	}
	return 0;
}

int sim_tracegen_init(struct sim_tracegen *g, const struct sim_tracegen_cfg *cfg,
		      struct rxb_err *err)
{
	double wsum, acc = 0.0, mean_wire_bits;
	int rc;

	memset(g, 0, sizeof(*g));
	rc = check_flows(cfg, err);
	if (rc == 0)
		rc = check_mix(cfg, &wsum, err);
	if (rc)
		return rc;
	g->cfg = *cfg;
	for (uint32_t i = 0; i < cfg->size.n; i++) {
		acc += cfg->size.weight[i];
		g->size_cdf[i] = acc / wsum;
	}
	g->size_cdf[cfg->size.n - 1] = 1.0;
	mean_wire_bits = 8.0 * (sim_size_mean(&cfg->size) + SIM_ETH_OVERHEAD);
	g->mean_flow_pkts = flow_size_mean(cfg->flow_alpha, cfg->flow_min_pkts, cfg->flow_max_pkts);
	g->flow_gap_ps = g->mean_flow_pkts * mean_wire_bits / cfg->rate_bps * 1e12;
	g->pps_mu = log(cfg->flow_pps_median);
	sim_rng_seed(&g->rng, cfg->seed, 0x7ace);
	if (cfg->line_bps)
		g->line_ps_per_bit_q32 = sim_ps_per_bit_q32(cfg->line_bps);
	rxb_flows_init(&g->fm, cfg->seed, 0, 17);
	rc = sim_heap_init(&g->heap, 1024, err);
	if (rc)
		return rc;
	rc = sim_heap_push(&g->heap, (uint64_t)sim_rng_exp(&g->rng, g->flow_gap_ps),
			   EV_FLOW_ARRIVAL, 0, 0);
	if (rc == 0)
		rc = start_equilibrium(g);
	if (rc) {
		rxb_err_set(err, "tracegen: out of memory");
		sim_tracegen_free(g);
	}
	return rc;
}

void sim_tracegen_free(struct sim_tracegen *g)
{
	sim_heap_free(&g->heap);
	free(g->flows);
	free(g->free_slots);
	g->flows = NULL;
	g->free_slots = NULL;
}

static int alloc_slot(struct sim_tracegen *g, uint32_t *slot)
{
	if (g->nfree) {
		*slot = g->free_slots[--g->nfree];
		return 0;
	}
	if (g->nslots == g->nflows_cap) {
		uint32_t cap = g->nflows_cap ? g->nflows_cap * 2 : 1024;
		struct sim_tracegen_flow *f = realloc(g->flows, cap * sizeof(*f));
		uint32_t *fs;

		if (f == NULL)
			return -ENOMEM;
		g->flows = f;
		fs = realloc(g->free_slots, cap * sizeof(*fs));
		if (fs == NULL)
			return -ENOMEM;
		g->free_slots = fs;
		g->nflows_cap = cap;
	}
	*slot = g->nslots++;
	return 0;
}

static uint32_t draw_len(struct sim_tracegen *g)
{
	double u = sim_rng_uniform(&g->rng);

	for (uint32_t i = 0; i + 1 < g->cfg.size.n; i++)
		if (u < g->size_cdf[i])
			return g->cfg.size.len[i];
	return g->cfg.size.len[g->cfg.size.n - 1];
}

/* Add a flow of `left` packets whose rate is lognormal(mu, sigma). Its
 * first packet is at t, or one exponential gap after t for a flow already
 * in progress (memoryless gaps). */
static int add_flow(struct sim_tracegen *g, uint32_t left, double mu, uint64_t t, int in_progress)
{
	struct sim_tracegen_flow *f;
	uint32_t slot;
	int rc = alloc_slot(g, &slot);

	if (rc)
		return rc;
	f = &g->flows[slot];
	f->id = g->next_id++;
	f->left = left;
	f->gap_ps = 1e12 / sim_rng_lognormal(&g->rng, mu, g->cfg.flow_pps_sigma);
	f->len = draw_len(g);
	f->proto = sim_rng_uniform(&g->rng) < g->cfg.tcp_share ? 6 : 17;
	g->flows_started++;
	if (in_progress)
		t += (uint64_t)sim_rng_exp(&g->rng, f->gap_ps);
	return sim_heap_push(&g->heap, t, EV_PACKET, slot, 0);
}

/* A new flow arrives at t: a truncated-Pareto number of packets. */
static int start_flow(struct sim_tracegen *g, uint64_t t)
{
	double x = floor(sim_rng_pareto(&g->rng, g->cfg.flow_alpha, g->cfg.flow_min_pkts));
	uint32_t left = x >= (double)g->cfg.flow_max_pkts ? g->cfg.flow_max_pkts : (uint32_t)x;

	return add_flow(g, left, g->pps_mu, t, 0);
}

/* Remaining packets m >= 1 of a flow in progress at a random instant:
 * P(m) ∝ P(S > m) = w(m + 1), w(j) = min(1, (xm / j)^alpha) for j <= max
 * (a flow spends one mean gap with each count of packets left). Drawn by
 * rejection from the continuous density h(u) = min(1, (xm / u)^alpha) on
 * [1, max), j = floor(u) + 1; h(u) >= w(j) on [j − 1, j), and the
 * acceptance ratio is at least 2^-alpha. */
static uint32_t draw_remaining(struct sim_tracegen *g)
{
	double a = g->cfg.flow_alpha, xm = g->cfg.flow_min_pkts, m = g->cfg.flow_max_pkts;
	double lo = xm > 1.0 ? xm : 1.0, flat, tail, c = pow(xm, a);

	if (lo > m)
		lo = m;
	flat = lo - 1.0;
	if (fabs(a - 1.0) < 1e-12)
		tail = c * log(m / lo);
	else
		tail = c * (pow(m, 1.0 - a) - pow(lo, 1.0 - a)) / (1.0 - a);
	for (;;) {
		double q = sim_rng_uniform(&g->rng) * (flat + tail), u, j, w;

		if (q < flat) {
			u = 1.0 + q;
		} else {
			q = (q - flat) / tail;
			if (fabs(a - 1.0) < 1e-12)
				u = lo * pow(m / lo, q);
			else
				u = pow(pow(lo, 1.0 - a) + q * (pow(m, 1.0 - a) - pow(lo, 1.0 - a)),
					1.0 / (1.0 - a));
		}
		j = floor(u) + 1.0;
		if (j > m)
			j = m;
		w = j <= xm ? 1.0 : pow(xm / j, a);
		if (sim_rng_uniform(&g->rng) * (u <= xm ? 1.0 : pow(xm / u, a)) < w)
			return (uint32_t)j - 1;
	}
}

/* Start the trace in steady state rather than with an empty link: with
 * heavy-tailed flows an empty start takes as long as the longest flows to
 * fill up. Flows in progress at time 0 of a Poisson flow-arrival process
 * (an M/G/inf system): their number is Poisson with mean λ · E[1/R] ·
 * (E[S] − 1), their rates are length-biased (density ∝ f(r) / r: for a
 * lognormal, mu − sigma^2), their remaining sizes follow draw_remaining(),
 * and by memorylessness their next packet comes after one exponential gap. */
static int start_equilibrium(struct sim_tracegen *g)
{
	double sigma = g->cfg.flow_pps_sigma;
	double mean_inv_rate = exp(-g->pps_mu + sigma * sigma / 2); /* E[1/R], s */
	double mean = 1e12 / g->flow_gap_ps * mean_inv_rate * (g->mean_flow_pkts - 1.0);
	double acc = sim_rng_exp(&g->rng, 1.0);

	if (g->cfg.flow_max_pkts < 2)
		return 0;
	/* Poisson(mean) as the number of unit-rate arrivals before `mean`. */
	while (acc < mean) {
		int rc = add_flow(g, draw_remaining(g), g->pps_mu - sigma * sigma, 0, 1);

		if (rc)
			return rc;
		acc += sim_rng_exp(&g->rng, 1.0);
	}
	return 0;
}

int sim_tracegen_next(struct sim_tracegen *g, struct sim_pkt *p)
{
	struct sim_event ev;

	while (sim_heap_pop(&g->heap, &ev)) {
		struct sim_tracegen_flow *f;
		struct rxb_flow tuple;
		uint64_t t = ev.t;
		int rc;

		if (t > g->cfg.duration_ps) {
			sim_heap_clear(&g->heap); /* the rest is later still */
			return 0;
		}
		if (ev.type == EV_FLOW_ARRIVAL) {
			rc = start_flow(g, t);
			if (rc == 0)
				rc = sim_heap_push(
					&g->heap,
					t + (uint64_t)sim_rng_exp(&g->rng, g->flow_gap_ps),
					EV_FLOW_ARRIVAL, 0, 0);
			if (rc)
				return rc;
			continue;
		}
		f = &g->flows[ev.arg];
		if (g->cfg.line_bps) {
			if (t < g->link_free_ps)
				t = g->link_free_ps;
			g->link_free_ps = t + sim_bits_to_ps(8ull * sim_wire_bytes(f->len),
							     g->line_ps_per_bit_q32);
		}
		memset(p, 0, sizeof(*p));
		rxb_flow_tuple(&g->fm, f->id, &tuple);
		tuple.proto = f->proto;
		sim_pkt_set_flow(p, &tuple, f->id);
		p->t_ps = t;
		p->len = f->len;
		g->pkts++;
		if (--f->left > 0) {
			uint64_t gap = 1 + (uint64_t)sim_rng_exp(&g->rng, f->gap_ps);

			rc = sim_heap_push(&g->heap, ev.t + gap, EV_PACKET, ev.arg, 0);
			if (rc)
				return rc;
		} else {
			g->free_slots[g->nfree++] = ev.arg;
		}
		return 1;
	}
	return 0;
}

int sim_tracegen_write_pcap(const struct sim_tracegen_cfg *cfg, const char *path, unsigned flags,
			    uint32_t snaplen, uint64_t *npkts, uint64_t *nflows,
			    struct rxb_err *err)
{
	struct sim_tracegen g;
	struct sim_pcap_writer *w;
	struct sim_pkt p;
	uint64_t n = 0;
	int rc;

	rc = sim_tracegen_init(&g, cfg, err);
	if (rc)
		return rc;
	rc = sim_pcap_create(&w, path, flags, snaplen, 1600000000ull, err);
	if (rc) {
		sim_tracegen_free(&g);
		return rc;
	}
	for (;;) {
		rc = sim_tracegen_next(&g, &p);
		if (rc == 0)
			break;
		if (rc < 0) {
			rxb_err_set(err, "tracegen: out of memory after %llu packets",
				    (unsigned long long)n);
			break;
		}
		rc = sim_pcap_write(w, &p, err);
		if (rc)
			break;
		n++;
	}
	if (rc == 0)
		rc = sim_pcap_finish(w, err);
	else
		sim_pcap_finish(w, NULL);
	if (nflows)
		*nflows = g.flows_started;
	sim_tracegen_free(&g);
	if (npkts)
		*npkts = n;
	return rc;
}
