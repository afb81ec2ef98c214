/* SPDX-License-Identifier: BSD-3-Clause
 * A packet trace as an arrival process (replay.h). */
#include "replay.h"

#include <errno.h>
#include <string.h>

static int open_reader(struct sim_replay *rp, struct rxb_err *err)
{
	int rc = sim_pcap_open(&rp->r, rp->cfg.path, 0, err);

	if (rc == 0 && rp->cfg.rss)
		sim_pcap_set_rss(rp->r, rp->cfg.rss);
	return rc;
}

/* One pass over the file: packets, wire bits, span. */
static int count_pass(struct sim_replay *rp, struct rxb_err *err)
{
	struct sim_pkt p;
	int rc;

	while ((rc = sim_pcap_next(rp->r, &p, err)) > 0) {
		rp->pkts++;
		rp->wire_bits += 8 * sim_wire_bytes(p.len);
		rp->span_ps = p.t_ps; /* the reader keeps times non-decreasing */
	}
	sim_pcap_close(rp->r);
	rp->r = NULL;
	return rc;
}

static int set_timing(struct sim_replay *rp, struct rxb_err *err)
{
	const char *why = rp->cfg.rate_bps > 0 ? "scaling it to a rate" : "looping it";
	double period;

	if (rp->pkts < 2 || rp->span_ps == 0) {
		rxb_err_set(err,
			    "pcap '%s': %s needs at least two packets at different times "
			    "(it has %llu packet%s spanning %llu ps)",
			    rp->cfg.path, why, (unsigned long long)rp->pkts,
			    rp->pkts == 1 ? "" : "s", (unsigned long long)rp->span_ps);
		return -EINVAL;
	}
	period = (double)rp->span_ps * (double)rp->pkts / (double)(rp->pkts - 1);
	if (rp->cfg.rate_bps > 0) /* the wanted rate / the capture's over a pass */
		rp->scale = rp->cfg.rate_bps * period / ((double)rp->wire_bits * 1e12);
	rp->period_ps = (uint64_t)(period / rp->scale + 0.5);
	return 0;
}

int sim_replay_open(struct sim_replay *rp, const struct sim_replay_cfg *cfg, struct rxb_err *err)
{
	int rc;

	memset(rp, 0, sizeof(*rp));
	rp->cfg = *cfg;
	rp->scale = cfg->speedup > 0 ? cfg->speedup : 1.0;
	if (cfg->rate_bps > 0 || cfg->loop) {
		rc = open_reader(rp, err);
		if (rc == 0)
			rc = count_pass(rp, err);
		if (rc == 0)
			rc = set_timing(rp, err);
		if (rc < 0)
			return rc;
	}
	rc = open_reader(rp, err);
	return rc < 0 ? rc : 0;
}

int sim_replay_next(struct sim_replay *rp, struct sim_pkt *p, struct rxb_err *err)
{
	int rc = sim_pcap_next(rp->r, p, err);

	if (rc == 0 && rp->cfg.loop) {
		sim_pcap_close(rp->r);
		rp->r = NULL;
		rp->pass++;
		rc = open_reader(rp, err);
		if (rc == 0)
			rc = sim_pcap_next(rp->r, p, err);
	}
	if (rc <= 0)
		return rc;
	p->t_ps = (uint64_t)((double)p->t_ps / rp->scale + 0.5) + rp->pass * rp->period_ps;
	return 1;
}

void sim_replay_close(struct sim_replay *rp)
{
	if (rp->r)
		sim_pcap_close(rp->r);
	rp->r = NULL;
}
