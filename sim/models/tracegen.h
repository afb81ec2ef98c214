/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/models/tracegen.h — synthetic "realistic" packet traces for tests and for
 * users without a backbone capture.
 *
 * Model (each element is a standard traffic-modelling assumption; values in
 * docs/simulator-models.md):
 *   - flows arrive as a Poisson process;
 *   - a flow's size in packets is a truncated Pareto: min(max_pkts,
 *     floor(X)), X ~ Pareto(alpha, min_pkts) — heavy-tailed, so a few
 *     elephant flows carry much of the traffic, which is what makes per-core
 *     RSS rates of real traces uneven;
 *   - each flow sends at its own rate, lognormal across flows, with
 *     exponential gaps between its packets;
 *   - each flow has one frame size drawn from a size mix (bulk transfers send
 *     full frames, acknowledgement streams minimum frames);
 *   - a fraction tcp_share of flows is TCP, the rest UDP;
 *   - flow id i has the 5-tuple both engines give flow i of the seed at
 *     port 0 (util/flow.h), its protocol apart.
 * The flow arrival rate is set so that the mean offered load is rate_bps
 * (wire bits, as in traffic.h): λ = rate / (E[size] · E[wire bits]).
 * Packets come out in time order (a heap of active flows); with line_bps
 * set, frames are also serialised at line rate.
 */
#ifndef SIM_TRACEGEN_H
#define SIM_TRACEGEN_H

#include <stdint.h>

#include "heap.h"
#include "rng.h"
#include "traffic.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sim_tracegen_cfg {
	uint64_t seed;
	uint64_t duration_ps;      /* trace length */
	double rate_bps;           /* mean offered load (wire bits/s) */
	uint64_t line_bps;         /* serialise at this rate; 0 = do not */
	double flow_alpha;         /* Pareto shape of flow sizes, > 0 */
	double flow_min_pkts;      /* Pareto scale, >= 1 */
	uint32_t flow_max_pkts;    /* truncation, >= 1 */
	double flow_pps_median;    /* per-flow packet rate: lognormal median */
	double flow_pps_sigma;     /* lognormal shape */
	struct sim_size_dist size; /* frame sizes, one per flow */
	double tcp_share;          /* fraction of flows that are TCP */
};

/* 100 ms at 10 Gb/s; alpha 1.2, sizes 1..10^6 packets; 10 kpps median
 * per-flow rate, sigma 1; 45 % 64 B, 10 % 594 B, 45 % 1518 B flows; 80 %
 * TCP. */
void sim_tracegen_cfg_default(struct sim_tracegen_cfg *cfg);

struct sim_tracegen_flow {
	uint32_t id;
	uint32_t left; /* packets still to send */
	uint32_t len;
	uint8_t proto;
	double gap_ps; /* mean gap between its packets */
};

struct sim_tracegen {
	struct sim_tracegen_cfg cfg;
	struct sim_rng rng;
	struct sim_heap heap;
	double size_cdf[SIM_SIZE_MAX];
	double mean_flow_pkts;
	double flow_gap_ps; /* mean gap between flow arrivals */
	double pps_mu;      /* log of the median per-flow rate */
	struct sim_tracegen_flow *flows;
	uint32_t nflows_cap;
	uint32_t *free_slots;
	uint32_t nfree;
	uint32_t nslots;
	uint32_t next_id;
	struct rxb_flows fm; /* flow ids' 5-tuples (flow.h; proto per flow) */
	uint64_t link_free_ps;
	uint64_t line_ps_per_bit_q32;
	uint64_t pkts;
	uint64_t flows_started;
};

int sim_tracegen_init(struct sim_tracegen *g, const struct sim_tracegen_cfg *cfg,
		      struct rxb_err *err);
void sim_tracegen_free(struct sim_tracegen *g);
/* 1 with the next packet, 0 when the trace's duration is over, < 0 on
 * allocation failure. */
int sim_tracegen_next(struct sim_tracegen *g, struct sim_pkt *p);

/* Generate a whole trace into a pcap file (SIM_PCAP_* writer flags).
 * *npkts and *nflows (either may be NULL) get the packet and flow counts. */
int sim_tracegen_write_pcap(const struct sim_tracegen_cfg *cfg, const char *path, unsigned flags,
			    uint32_t snaplen, uint64_t *npkts, uint64_t *nflows,
			    struct rxb_err *err);

#ifdef __cplusplus
}
#endif
#endif /* SIM_TRACEGEN_H */
