/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/models/replay.h — a packet trace as an arrival process: its own timing,
 * scaled by a speed factor or to a chosen mean rate, optionally looped.
 *
 * A capture rarely has the rate an experiment needs (a 10 Gbps backbone
 * segment replayed at 2 × 100 Gbps) nor its length (30 s of trace, minutes
 * of simulated load): the replay divides every gap by one factor, so the
 * trace keeps its burst structure and flow mix, and starts the capture
 * over when it ends.
 *
 *   timing   t = t_capture / scale + loop × period. scale is `speedup`, or,
 *            with `rate_bps` > 0, what makes the mean wire rate over one
 *            pass (all packets' wire bits / period) equal rate_bps.
 *   period   one pass: the capture's span (first to last packet) plus one
 *            mean gap (span / (packets − 1)), so a looped replay keeps its
 *            mean rate across the seam; scaled like every gap.
 *   looping  at the end of the file the reader is opened again and the next
 *            pass starts one period after the previous one.
 * Scaling to a rate and looping read the file once at open to count its
 * packets, wire bits and span; both need at least two packets at distinct
 * times (the error says so otherwise).
 * IPv6 packets carry the NIC's hash when `rss` is given (pcap.h).
 * Time in picoseconds.
 */
#ifndef SIM_REPLAY_H
#define SIM_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "pcap.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sim_replay_cfg {
	const char *path;
	double speedup;            /* gaps divided by this (when rate_bps is 0) */
	double rate_bps;           /* > 0: mean wire rate of the replay instead */
	bool loop;                 /* start over at the end of the file */
	const struct rxb_rss *rss; /* IPv6 hashing key (may be NULL) */
};

struct sim_replay {
	struct sim_replay_cfg cfg;
	struct sim_pcap_reader *r;
	double scale;       /* capture time / replay time */
	uint64_t period_ps; /* one pass, replay time (0 unless counted) */
	uint64_t pass;      /* passes started before the current one */
	/* one pass, counted at open when scaling to a rate or looping */
	uint64_t pkts;
	uint64_t wire_bits;
	uint64_t span_ps; /* capture time from first to last packet */
};

/* 0, or a negative errno with a message naming the file (and what a rate or
 * a loop needs that the capture lacks). */
int sim_replay_open(struct sim_replay *rp, const struct sim_replay_cfg *cfg, struct rxb_err *err);
/* 1 with *p (t_ps in replay time), 0 at the end (never when looping), or a
 * negative errno from the reader. */
int sim_replay_next(struct sim_replay *rp, struct sim_pkt *p, struct rxb_err *err);
void sim_replay_close(struct sim_replay *rp);

#ifdef __cplusplus
}
#endif

#endif /* SIM_REPLAY_H */
