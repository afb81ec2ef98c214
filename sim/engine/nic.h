/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/engine/nic.h — the NICs (sim/engine/nic.c, docs/simulator.md §2.1, §2.3): each
 * NIC's steering, generator and PCIe state; arrivals (generated or
 * replayed) and what happens to a packet until its completion.
 */
#ifndef SIM_NIC_H
#define SIM_NIC_H

#include <stdbool.h>
#include <stdint.h>

#include "dmaeng.h"
#include "rxb/rss.h"
#include "replay.h"
#include "traffic.h"

struct sim;
struct rxb_err;

struct nic {
	struct sim *s;
	uint32_t id, first_core, ncores;
	/* What its steering picks: destinations first_dest .. + n_dests - 1,
	 * through its RETA, or spread over them without a table (spool's
	 * representor ports, which every NIC shares). */
	uint32_t first_dest, n_dests;
	bool spread;
	struct rxb_reta reta;
	struct sim_traffic gen;
	bool gen_ok;
	struct sim_replay replay;      /* trace: the capture, of which its share is its own */
	struct sim_pkt next;           /* its next packet, generated or replayed */
	uint64_t up_free;              /* PCIe NIC -> host direction free at */
	uint64_t last_vis;             /* completions become visible in order */
	uint64_t link_free;            /* trace replay: link serialisation */
	uint64_t up_bytes, down_bytes; /* after warm-up */
	unsigned cls_wr;               /* LLC class of its packet DMA writes */
	struct sim_dmaeng rd;          /* DMA read engines + the host -> NIC link */
	/* after warm-up: DMA reads (issue to data at the NIC, summed), and the
	 * lines its DMA accesses (reads and writes) touched / found outside
	 * the LLC */
	uint64_t reads, read_ps, pcie_lines, pcie_missed;
	/* PCIe requests (a read request of at most MRRS bytes, a write TLP of
	 * at most MPS bytes), and those touching a line outside the LLC */
	uint64_t pcie_reqs, pcie_reqs_missed;
	/* Generated flows have fixed 5-tuples (flow.h, from their id), so
	 * their RSS hash and flow identity are computed once per flow id. */
	struct flow_memo {
		uint32_t h, fid;
	} * memo; /* one line miss per packet, not two */
	uint64_t *hvalid;
	uint32_t nmemo;
};

/* Each NIC's RETA and traffic generator (or the replay of a trace). */
int nic_setup(struct sim *s, struct rxb_err *err);
/* Warm start of the per-flow state the NF keeps (docs/simulator.md, "Flow
 * state at the start"). */
void nic_warm_flow_state(struct sim *s);
/* NIC n receives packet p at t. */
void nic_packet(struct sim *s, struct nic *n, const struct sim_pkt *p, uint64_t t);
/* NIC n's next replayed packet into n->next: 1, 0 at the trace's end (or
 * past the run), or a negative errno. */
int trace_next(struct sim *s, struct nic *n, struct rxb_err *err);
/* Descriptors fetched so far for a destination. */
uint64_t dest_fetched(struct sim *s, uint32_t dest);

/* Stats writers: distinct flows per NIC; "pcie" and the NICs' DMA figures;
 * "trace". */
struct json_t;
struct json_t *nic_stats_flows(const struct sim *s);
void nic_stats_pcie(const struct sim *s, struct json_t *m, double T);
void nic_stats_trace(const struct sim *s, struct json_t *m);

#endif /* SIM_NIC_H */
