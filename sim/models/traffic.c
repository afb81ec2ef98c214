/* SPDX-License-Identifier: BSD-3-Clause
 * Traffic generator: see traffic.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traffic.h"

#define ST_MAIN 0
#define ST_TGT  1

void sim_traffic_cfg_default(struct sim_traffic_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->seed = 1;
	cfg->line_bps = 100000000000ull;
	cfg->proto = 17;
	cfg->main.rate_bps = cfg->line_bps;
	cfg->main.arrival = SIM_ARRIVAL_CONST;
	cfg->main.burst_pkts = 32;
	cfg->main.duty = 1.0;
	sim_size_fixed(&cfg->main.size, 1518);
	cfg->main.flows = 65536;
	cfg->target_queue = -1;
	cfg->target.flows = 1;
	sim_size_fixed(&cfg->target.size, 64);
	cfg->target.burst_pkts = 32;
	cfg->target.duty = 1.0;
}

void sim_size_imix(struct sim_size_dist *d)
{
	static const uint32_t len[3] = { 64, 594, 1518 };
	static const double weight[3] = { 7, 4, 1 };

	memset(d, 0, sizeof(*d));
	d->n = 3;
	memcpy(d->len, len, sizeof(len));
	memcpy(d->weight, weight, sizeof(weight));
}

double sim_size_mean(const struct sim_size_dist *d)
{
	double sum = 0.0, wsum = 0.0;

	for (uint32_t i = 0; i < d->n && i < SIM_SIZE_MAX; i++) {
		sum += d->weight[i] * d->len[i];
		wsum += d->weight[i];
	}
	return wsum > 0.0 ? sum / wsum : 0.0;
}

void sim_traffic_tuple(const struct sim_traffic *g, uint32_t id, struct sim_pkt *p)
{
	struct rxb_flow f;

	rxb_flow_tuple(&g->fm, id, &f);
	sim_pkt_set_flow(p, &f, id);
}

/* The flows' 5-tuples (flow.h); generator ranges only for a plain main
 * stream. */
static int flows_init(struct sim_traffic *g, struct rxb_err *err)
{
	const struct sim_traffic_cfg *c = &g->cfg;

	rxb_flows_init(&g->fm, c->flow_seed, c->nic, c->proto);
	if (c->gen_src == 0 && c->gen_dst == 0)
		return 0;
	if (c->target_queue >= 0 || c->key_steer) {
		rxb_err_set(
			err,
			"traffic.flow_model = generator: needs neither a target core (pattern = "
			"target) nor keys steered to partitions (nf = kvs); use flow_model = "
			"random there");
		return -EINVAL;
	}
	if (rxb_flows_ranges(&g->fm, c->gen_src, c->gen_dst, err))
		return -EINVAL;
	g->gen_next = rxb_flows_gen_id(&g->fm, 0);
	return 0;
}

static int check_size(const char *field, const struct sim_size_dist *d, struct rxb_err *err)
{
	double wsum = 0.0;

	if (d->n < 1 || d->n > SIM_SIZE_MAX) {
		rxb_err_set(err, "%s.n = %u: must be in [1, %u]", field, d->n, SIM_SIZE_MAX);
		return -EINVAL;
	}
	for (uint32_t i = 0; i < d->n; i++) {
		if (d->len[i] < SIM_ETH_MIN_FRAME || d->len[i] > SIM_ETH_MAX_FRAME) {
			rxb_err_set(err,
				    "%s.len[%u] = %u: frame length (with FCS) must be in [%u, %u]",
				    field, i, d->len[i], SIM_ETH_MIN_FRAME, SIM_ETH_MAX_FRAME);
			return -EINVAL;
		}
		if (!(d->weight[i] >= 0.0)) {
			rxb_err_set(err, "%s.weight[%u] = %g: must be >= 0", field, i,
				    d->weight[i]);
			return -EINVAL;
		}
		wsum += d->weight[i];
	}
	if (!(wsum > 0.0)) {
		rxb_err_set(err, "%s: weights sum to 0", field);
		return -EINVAL;
	}
	return 0;
}

static void size_cdf(const struct sim_size_dist *d, double *cdf)
{
	double wsum = 0.0, acc = 0.0;

	for (uint32_t i = 0; i < d->n; i++)
		wsum += d->weight[i];
	for (uint32_t i = 0; i < d->n; i++) {
		acc += d->weight[i];
		cdf[i] = acc / wsum;
	}
	cdf[d->n - 1] = 1.0;
}

static inline uint32_t size_draw(struct sim_rng *r, const struct sim_size_dist *d,
				 const double *cdf)
{
	double u;

	if (d->n == 1)
		return d->len[0];
	u = sim_rng_uniform(r);
	for (uint32_t i = 0; i + 1 < d->n; i++)
		if (u < cdf[i])
			return d->len[i];
	return d->len[d->n - 1];
}

static int check_stream(const char *field, const struct sim_stream_cfg *s, uint64_t line_bps,
			struct rxb_err *err)
{
	char sub[64];
	int rc;

	if (s->rate_bps > line_bps) {
		rxb_err_set(err, "%s.rate_bps = %llu: exceeds traffic.line_bps = %llu", field,
			    (unsigned long long)s->rate_bps, (unsigned long long)line_bps);
		return -EINVAL;
	}
	if (s->arrival != SIM_ARRIVAL_CONST && s->arrival != SIM_ARRIVAL_POISSON &&
	    s->arrival != SIM_ARRIVAL_ONOFF) {
		rxb_err_set(err, "%s.arrival = %d: must be const (0), poisson (1) or onoff (2)",
			    field, (int)s->arrival);
		return -EINVAL;
	}
	if (s->arrival == SIM_ARRIVAL_ONOFF) {
		if (s->burst_pkts < 1) {
			rxb_err_set(err, "%s.burst_pkts = %u: must be >= 1", field, s->burst_pkts);
			return -EINVAL;
		}
		if (!(s->duty > 0.0 && s->duty <= 1.0)) {
			rxb_err_set(err, "%s.duty = %g: must be in (0, 1]", field, s->duty);
			return -EINVAL;
		}
		/* as the scenario rule "bursts fit the link" bounds it: rounding
		 * within it is clamped to the line rate (stream_init) */
		if ((double)s->rate_bps / s->duty > (double)line_bps * (1.0 + 1e-12)) {
			rxb_err_set(err,
				    "%s.duty = %g: bursts at rate_bps / duty = %.4g b/s exceed "
				    "traffic.line_bps = %llu; raise duty or lower rate_bps",
				    field, s->duty, (double)s->rate_bps / s->duty,
				    (unsigned long long)line_bps);
			return -EINVAL;
		}
	}
	if (s->flows < 1) {
		rxb_err_set(err, "%s.flows = 0: must be >= 1", field);
		return -EINVAL;
	}
	if (s->flow_pop != SIM_POP_UNIFORM && s->flow_pop != SIM_POP_ZIPF) {
		rxb_err_set(err, "%s.flow_pop = %d: must be uniform (0) or zipf (1)", field,
			    (int)s->flow_pop);
		return -EINVAL;
	}
	snprintf(sub, sizeof(sub), "%s.size", field);
	rc = check_size(sub, &s->size, err);
	return rc;
}

static int stream_init(struct sim_traffic *g, int i, const struct sim_stream_cfg *c,
		       struct rxb_err *err)
{
	struct sim_tstream *s = &g->st[i];
	int rc;

	memset(s, 0, sizeof(*s));
	s->cfg = *c;
	s->on = c->rate_bps > 0;
	if (!s->on)
		return 0;
	size_cdf(&c->size, s->cdf);
	s->mean_wire_bits = 8.0 * (sim_size_mean(&c->size) + SIM_ETH_OVERHEAD);
	s->rate_bps = c->arrival == SIM_ARRIVAL_ONOFF ? (uint64_t)((double)c->rate_bps / c->duty)
						      : c->rate_bps;
	if (s->rate_bps > g->cfg.line_bps)
		s->rate_bps = g->cfg.line_bps; /* rounding of rate / duty */
	s->ps_per_bit_q32 = sim_ps_per_bit_q32(s->rate_bps);
	s->tq = (double)g->cfg.start_ps;
	if (c->arrival == SIM_ARRIVAL_POISSON)
		s->tq += sim_rng_exp(&g->rng, s->mean_wire_bits * 1e12 / (double)c->rate_bps);
	s->burst_left = c->burst_pkts;
	/* Target flows are picked with g->tz, shared by both target modes. */
	if (i == ST_MAIN && c->flow_pop == SIM_POP_ZIPF) {
		rc = sim_zipf_init(&s->fz, c->flows, c->flow_zipf_s, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* Choose the next packet of stream i (class, length) and its wire-slot
 * start, then advance the stream's clock past it. */
static void stream_prepare(struct sim_traffic *g, int i)
{
	struct sim_tstream *s = &g->st[i];
	/* the share in force at the stream's clock (its previous packet) */
	double share = g->cfg.change_ps && s->next_ps >= g->cfg.change_ps ? g->cfg.change_share
									  : g->cfg.target_share;
	uint64_t wbits;

	if (i == ST_MAIN && share > 0.0 && sim_rng_uniform(&g->rng) < share) {
		s->next_cls = 1;
		s->next_len = size_draw(&g->rng, &g->tsize, g->tcdf);
	} else {
		s->next_cls = (uint8_t)i;
		s->next_len = size_draw(&g->rng, &s->cfg.size, s->cdf);
	}
	wbits = 8ull * sim_wire_bytes(s->next_len);

	switch (s->cfg.arrival) {
	case SIM_ARRIVAL_CONST:
		/* Exact: start_n = start + (bits before n) / rate. */
		s->next_ps = g->cfg.start_ps + sim_bits_to_ps(s->bits, s->ps_per_bit_q32);
		s->bits += wbits;
		break;
	case SIM_ARRIVAL_POISSON: {
		/* frames arrive at the rate of the mean frame: the main
		 * sizes' and, with a share to the target, the target's mixed
		 * in (its size often differs; the main mean alone offered a
		 * third of the rate with 90 % of 64 B frames) */
		double bits = i == ST_MAIN && share > 0.0
				      ? share * g->tmean_wire_bits +
						(1.0 - share) * s->mean_wire_bits
				      : s->mean_wire_bits;

		s->next_ps = (uint64_t)s->tq;
		s->tq += sim_rng_exp(&g->rng, bits * 1e12 / (double)s->rate_bps);
		break;
	}
	case SIM_ARRIVAL_ONOFF:
		s->next_ps = (uint64_t)s->tq;
		s->tq += (double)wbits * 1e12 / (double)s->rate_bps;
		s->burst_bits += (double)wbits;
		if (--s->burst_left == 0) {
			/* The burst lasted burst_bits / on-rate; stay silent so
			 * that on-time / (on + off) = duty. */
			double on_ps = s->burst_bits * 1e12 / (double)s->rate_bps;

			s->tq += on_ps * (1.0 - s->cfg.duty) / s->cfg.duty;
			s->burst_bits = 0.0;
			s->burst_left = s->cfg.burst_pkts;
		}
		break;
	}
}

static inline uint32_t pick(struct sim_rng *r, enum sim_popularity pop, const struct sim_zipf *z,
			    uint32_t n)
{
	if (pop == SIM_POP_ZIPF)
		return (uint32_t)(sim_zipf_draw(z, r) - 1);
	return (uint32_t)sim_rng_below(r, n);
}

/* The pools came out short after `limit` tuples: which one, and why. */
static void pools_short(const struct sim_traffic *g, const uint32_t *fill_q, uint64_t limit,
			struct rxb_err *err)
{
	const struct sim_traffic_cfg *c = &g->cfg;
	int targeting = c->target_queue >= 0;

	if (targeting && g->npool_tgt < c->target.flows) {
		rxb_err_set(err,
			    "traffic.target_queue = %d: after %llu tuples queue_of gave it "
			    "only %u of traffic.target.flows = %u flows; does the RETA map "
			    "any bucket to it?",
			    c->target_queue, (unsigned long long)limit, g->npool_tgt,
			    c->target.flows);
	} else if (targeting) {
		rxb_err_set(err,
			    "traffic.target_queue = %d: after %llu tuples only %u of "
			    "traffic.main.flows = %u flows avoid it; does RSS send "
			    "everything there?",
			    c->target_queue, (unsigned long long)limit, g->npool_main,
			    c->main.flows);
	} else {
		uint32_t q = 0;

		while (q + 1 < c->nqueues && fill_q[q] == g->fpq)
			q++;
		rxb_err_set(err,
			    "traffic.key_steer: after %llu tuples queue_of gave queue %u "
			    "only %u of %u flows; does the RETA map any bucket to it?",
			    (unsigned long long)limit, q, fill_q[q], g->fpq);
	}
}

/* Find flows whose RSS queue fits each pool by hashing candidate tuples. */
static int build_pools(struct sim_traffic *g, struct rxb_err *err)
{
	const struct sim_traffic_cfg *c = &g->cfg;
	uint64_t want, found = 0, limit;
	uint32_t *fill_q = NULL;
	struct sim_pkt p;
	int targeting = c->target_queue >= 0;

	if (targeting) {
		g->pool_main = malloc((size_t)c->main.flows * sizeof(uint32_t));
		g->pool_tgt = malloc((size_t)c->target.flows * sizeof(uint32_t));
		if (g->pool_main == NULL || g->pool_tgt == NULL)
			goto nomem;
		want = (uint64_t)c->main.flows + c->target.flows;
	} else {
		g->fpq = c->flows_per_queue ? c->flows_per_queue : c->main.flows / c->nqueues;
		if (g->fpq == 0)
			g->fpq = 1;
		g->pool_q = malloc((size_t)c->nqueues * g->fpq * sizeof(uint32_t));
		fill_q = calloc(c->nqueues, sizeof(uint32_t));
		if (g->pool_q == NULL || fill_q == NULL)
			goto nomem;
		want = (uint64_t)c->nqueues * g->fpq;
	}
	/* A queue that gets 1/n of random tuples needs about n tries per
	 * flow; 64 × want + slack fails only when RSS (almost) never picks it. */
	limit = want * 64 + 65536;
	if (limit > UINT32_MAX)
		limit = UINT32_MAX;
	memset(&p, 0, sizeof(p));
	for (uint64_t id = 0; id < limit && found < want; id++) {
		uint32_t q;

		sim_traffic_tuple(g, (uint32_t)id, &p);
		q = c->queue_of(c->queue_ctx, &p);
		if (q >= c->nqueues) {
			rxb_err_set(err,
				    "traffic.queue_of returned queue %u, but traffic.nqueues = %u",
				    q, c->nqueues);
			free(fill_q);
			return -EINVAL;
		}
		if (targeting) {
			if (q == (uint32_t)c->target_queue) {
				if (g->npool_tgt < c->target.flows) {
					g->pool_tgt[g->npool_tgt++] = (uint32_t)id;
					found++;
				}
			} else if (g->npool_main < c->main.flows) {
				g->pool_main[g->npool_main++] = (uint32_t)id;
				found++;
			}
		} else if (fill_q[q] < g->fpq) {
			g->pool_q[(size_t)q * g->fpq + fill_q[q]++] = (uint32_t)id;
			found++;
		}
	}
	if (found < want) {
		pools_short(g, fill_q, limit, err);
		free(fill_q);
		return -EINVAL;
	}
	free(fill_q);
	return 0;
nomem:
	free(fill_q);
	rxb_err_set(err, "traffic: out of memory for flow pools");
	return -ENOMEM;
}

/* The target stream's keys: a target queue it can be steered to, shares
 * in [0, 1], a share or a rate (not both); none without a target queue. */
static int check_target(const struct sim_traffic_cfg *cfg, struct rxb_err *err)
{
	if (cfg->target_queue >= 0) {
		if (cfg->queue_of == NULL || cfg->nqueues < 2 ||
		    (uint32_t)cfg->target_queue >= cfg->nqueues) {
			rxb_err_set(err,
				    "traffic.target_queue = %d: needs queue_of and nqueues >= 2 "
				    "with target_queue < nqueues (nqueues = %u)",
				    cfg->target_queue, cfg->nqueues);
			return -EINVAL;
		}
		if (!(cfg->target_share >= 0.0 && cfg->target_share <= 1.0) ||
		    !(cfg->change_share >= 0.0 && cfg->change_share <= 1.0)) {
			rxb_err_set(err,
				    "traffic.target_share = %g, change_share = %g: must be in "
				    "[0, 1]",
				    cfg->target_share, cfg->change_share);
			return -EINVAL;
		}
		if (cfg->target_share > 0.0 && cfg->target.rate_bps > 0) {
			rxb_err_set(err,
				    "traffic.target_share = %g and traffic.target.rate_bps = %llu: "
				    "give one of them, not both",
				    cfg->target_share, (unsigned long long)cfg->target.rate_bps);
			return -EINVAL;
		}
		return check_stream("traffic.target", &cfg->target, cfg->line_bps, err);
	} else if (cfg->target_share > 0.0 || cfg->target.rate_bps > 0 || cfg->change_share > 0.0) {
		rxb_err_set(err, "traffic.target_queue = %d: target traffic needs a target queue",
			    cfg->target_queue);
		return -EINVAL;
	}
	return 0;
}

/* The configuration's checks: 0, or -EINVAL with a message naming the key. */
static int check_cfg(const struct sim_traffic_cfg *cfg, struct rxb_err *err)
{
	int rc;

	if (cfg->line_bps < 1000000ull || cfg->line_bps > 100000000000000ull) {
		rxb_err_set(err, "traffic.line_bps = %llu: must be in [1e6, 1e14]",
			    (unsigned long long)cfg->line_bps);
		return -EINVAL;
	}
	rc = check_stream("traffic.main", &cfg->main, cfg->line_bps, err);
	if (rc == 0)
		rc = check_target(cfg, err);
	if (rc)
		return rc;
	if (cfg->main.rate_bps == 0 && cfg->target.rate_bps == 0) {
		rxb_err_set(err, "traffic.main.rate_bps = 0: no stream sends anything");
		return -EINVAL;
	}
	if (cfg->key_steer) {
		if (cfg->keys == 0 || cfg->queue_of == NULL || cfg->nqueues < 1 ||
		    cfg->target_queue >= 0) {
			rxb_err_set(err,
				    "traffic.key_steer = 1: needs keys > 0, queue_of, nqueues >= 1 "
				    "and no target_queue");
			return -EINVAL;
		}
	}
	if (cfg->keys > UINT32_MAX) {
		rxb_err_set(err, "traffic.keys = %llu: at most 2^32 - 1",
			    (unsigned long long)cfg->keys);
		return -EINVAL;
	}
	if (cfg->nic > 255) {
		rxb_err_set(err, "traffic.nic = %u: must be in [0, 255]", cfg->nic);
		return -EINVAL;
	}
	if (cfg->proto != 6 && cfg->proto != 17) {
		rxb_err_set(err, "traffic.proto = %u: must be 6 (TCP) or 17 (UDP)", cfg->proto);
		return -EINVAL;
	}
	return 0;
}

/* The target stream's sizes and flow popularity, the keys' popularity. */
static int init_pops(struct sim_traffic *g, const struct sim_traffic_cfg *cfg, struct rxb_err *err)
{
	int rc;

	if (cfg->target_queue >= 0) {
		g->tsize = cfg->target.size;
		size_cdf(&g->tsize, g->tcdf);
		g->tmean_wire_bits = 8.0 * (sim_size_mean(&g->tsize) + SIM_ETH_OVERHEAD);
		if (cfg->target.flow_pop == SIM_POP_ZIPF) {
			rc = sim_zipf_init(&g->tz, cfg->target.flows, cfg->target.flow_zipf_s, err);
			if (rc)
				return rc;
		}
	}
	if (cfg->keys) {
		if (cfg->key_pop == SIM_POP_ZIPF) {
			rc = sim_zipf_init(&g->kz, cfg->keys, cfg->key_zipf_s, err);
			if (rc)
				return rc;
		} else if (cfg->key_pop != SIM_POP_UNIFORM) {
			rxb_err_set(err, "traffic.key_pop = %d: must be uniform (0) or zipf (1)",
				    (int)cfg->key_pop);
			return -EINVAL;
		}
	}
	return 0;
}

int sim_traffic_init(struct sim_traffic *g, const struct sim_traffic_cfg *cfg, struct rxb_err *err)
{
	int rc;

	memset(g, 0, sizeof(*g));
	g->cfg = *cfg;
	rc = check_cfg(cfg, err);
	if (rc)
		return rc;
	sim_rng_seed(&g->rng, cfg->seed, 0x7a0 + cfg->nic);
	g->link_free_ps = cfg->start_ps;
	g->line_ps_per_bit_q32 = sim_ps_per_bit_q32(cfg->line_bps);
	rc = stream_init(g, ST_MAIN, &cfg->main, err);
	if (rc == 0)
		rc = stream_init(g, ST_TGT, &cfg->target, err);
	if (rc == 0)
		rc = flows_init(g, err);
	if (rc == 0)
		rc = init_pops(g, cfg, err);
	if (rc)
		return rc;
	if (cfg->target_queue >= 0 || cfg->key_steer) { /* flows steered to queues */
		rc = build_pools(g, err);
		if (rc) {
			sim_traffic_free(g);
			return rc;
		}
	}
	for (int i = 0; i < 2; i++)
		if (g->st[i].on)
			stream_prepare(g, i);
	return 0;
}

void sim_traffic_free(struct sim_traffic *g)
{
	free(g->pool_main);
	free(g->pool_tgt);
	free(g->pool_q);
	g->pool_main = g->pool_tgt = g->pool_q = NULL;
}

/* 5-tuple, flow and key of a packet of class cls. */
static inline void fill_flow(struct sim_traffic *g, struct sim_pkt *p, uint8_t cls)
{
	const struct sim_traffic_cfg *c = &g->cfg;
	uint32_t id, key = 0;

	if (c->keys)
		key = c->key_pop == SIM_POP_ZIPF ? (uint32_t)(sim_zipf_draw(&g->kz, &g->rng) - 1)
						 : (uint32_t)sim_rng_below(&g->rng, c->keys);
	if (cls == 1) {
		id = g->pool_tgt[pick(&g->rng, c->target.flow_pop, &g->tz, g->npool_tgt)];
	} else if (c->key_steer) {
		uint32_t q = sim_key_partition(key, c->nqueues);

		id = g->pool_q[(size_t)q * g->fpq + sim_rng_below(&g->rng, g->fpq)];
	} else if (g->fm.gen_flows) {
		id = g->gen_next;
		g->gen_next = rxb_flows_gen_next(&g->fm, id);
	} else {
		id = pick(&g->rng, c->main.flow_pop, &g->st[ST_MAIN].fz, c->main.flows);
		if (g->pool_main)
			id = g->pool_main[id];
	}
	if (c->lazy_tuple) {
		p->sip = p->dip = 0;
		p->sport = p->dport = 0;
		p->proto = c->proto;
		p->l3 = 4;
		p->flow = id;
	} else {
		sim_traffic_tuple(g, id, p);
	}
	p->key = key;
}

int sim_traffic_next(struct sim_traffic *g, struct sim_pkt *p)
{
	struct sim_tstream *s;
	uint64_t start, t;
	uint32_t len;
	int i;

	if (g->cfg.max_pkts && g->emitted >= g->cfg.max_pkts)
		return 0;
	/* Merge the two streams by start time; ties go to the main stream. */
	if (!g->st[ST_TGT].on ||
	    (g->st[ST_MAIN].on && g->st[ST_MAIN].next_ps <= g->st[ST_TGT].next_ps))
		i = ST_MAIN;
	else
		i = ST_TGT;
	s = &g->st[i];
	len = s->next_len;
	start = s->next_ps;
	if (start < g->link_free_ps) {
		start = g->link_free_ps; /* the previous frame is still on the wire */
		g->stats.delayed++;
	}
	t = start + sim_bits_to_ps(8ull * (SIM_ETH_PREAMBLE + len), g->line_ps_per_bit_q32);
	if (g->cfg.stop_ps && t > g->cfg.stop_ps)
		return 0;
	/* Floor: slot lengths are exact at the usual rates (10 ps per bit at
	 * 100 Gb/s); flooring never lets rounding accumulate into a slowdown. */
	g->link_free_ps = start +
			  sim_bits_to_ps(8ull * sim_wire_bytes(len), g->line_ps_per_bit_q32);

	p->t_ps = t;
	p->len = len;
	p->cls = s->next_cls;
	p->nic = (uint8_t)g->cfg.nic;
	fill_flow(g, p, s->next_cls);

	g->stats.pkts[p->cls]++;
	g->stats.frame_bytes[p->cls] += len;
	g->stats.wire_bytes[p->cls] += sim_wire_bytes(len);
	g->stats.link_busy_ps += g->link_free_ps - start;
	if (g->emitted++ == 0)
		g->stats.first_ps = t;
	g->stats.last_ps = t;
	stream_prepare(g, i);
	return 1;
}
