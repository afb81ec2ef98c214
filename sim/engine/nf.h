/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/engine/nf.h — the network functions as access and cost profiles
 * (docs/evaluation.md §3, docs/simulator.md §2.6), behind a narrow interface:
 * nf.c knows where each NF's data lives and which accesses a packet makes
 * in which order; the engine issues them (LLC, DRAM, the horizon), keeps
 * the time and adds the compute. nf.c sees no struct sim.
 *
 * A packet's accesses come in steps: a dependent access (it needs the one
 * before it: a hash bucket, then the entry it points to), or one wave of at
 * most system.mlp independent accesses (lines of a value or a payload). The
 * engine asks for the next step only once it may start it — within the
 * horizon of the time rule (docs/simulator.md §1.1); otherwise it yields
 * and resumes later with the packet's state (struct nf_pkt) as it was. So
 * an NF is a small resumable state machine: nf_begin, then nf_step until
 * nf_done. Deterministic: the random draws (a synthetic read's address, a
 * KV request's kind) come from the core's generator at the step that
 * needs them, in the same order whether or not the core yielded between.
 */
#ifndef SIM_NF_H
#define SIM_NF_H

#include <stdbool.h>
#include <stdint.h>

#include "anatomy.h"
#include "mem.h" /* struct acc: the accesses a packet's steps ask for */
#include "rng.h"
#include "scenario.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rxb_err;

/* What the network function does and where its data lives. */
struct nf_ctx {
	/* from the scenario (nf_init) */
	enum rxb_nf_kind kind;
	uint32_t reads;           /* synthetic: dependent random reads */
	enum rxb_payload payload; /* synthetic: what it does with the payload */
	double kvs_put_share;
	uint32_t counter_slots;
	uint32_t mlp;   /* a wave: at most this many independent accesses */
	uint32_t deps;  /* dependent accesses of a packet (then its group) */
	bool hdr_write; /* it rewrites the frame's first line: the prologue
				       * fetches it for writing (a read-for-ownership;
				       * the write itself then hits the core's cache) */
	bool fastclick; /* a FastClick NF (lb, nat, synthetic): its packet
				       * annotations live in the mbuf's private area
				       * (NF_PRIV_BYTES), which shifts the frame to byte 32
				       * of a line; the second header line is read on
				       * demand and the annotation lines written */
	/* from the engine (before nf_step) */
	uint64_t l2_hit_ps;                           /* a private-cache hit */
	uint64_t xfer_ps;                             /* a line another core modified last */
	unsigned cls_main, cls_aux, cls_key, cls_tgt; /* its LLC classes (main: the critical
						      * structure; aux and key: lb and nat's
						      * buckets and key store) */
	unsigned cls_annot;                           /* the mbufs' annotation lines */
	unsigned cls_pool;                            /* nat: its port objects */
	/* layout (nf_init) */
	uint64_t lpm_base, lpm_lines;             /* l3fwd / synthetic route table */
	uint64_t tbl_base, tbl_lines, tbl_stride; /* per core: flow control blocks (lb, nat),
						   * KVS index */
	uint64_t bkt_base, bkt_lines, bkt_stride; /* per core: rte_hash buckets (lb, nat) */
	uint64_t key_base, key_lines, key_stride; /* per core: rte_hash key store (lb, nat) */
	uint64_t fm_entries;                      /* per core: rte_hash entries (lb, nat) */
	uint32_t fcb_bytes;                       /* one flow control block (its stride) */
	uint64_t port_base, port_stride;          /* nat: per core, its port objects */
	uint32_t ports;                           /* nat: port objects per core */
	uint32_t backends;
	uint32_t *load_last;           /* core that wrote each load line last */
	uint64_t val_base, val_stride; /* per core: KVS values */
	uint64_t buf_base, buf_lines;  /* synthetic / target-read buffer */
	uint64_t ctr_base, ctr_lines;  /* counter array */
	uint32_t *ctr_last;            /* core that wrote each counter line last */
	uint32_t val_lines;            /* KVS value lines */
	uint64_t keys_per_core;
};

/* A packet in the network function (one per core): which access comes
 * next. Its accesses are nf_ctx.deps dependent ones, one a step, then a
 * group of `group` independent ones, a wave of at most mlp a step. */
struct nf_pkt {
	uint64_t hdr;             /* address of its first line (the header) */
	uint64_t annot;           /* address of its mbuf's first annotation line */
	uint64_t h;               /* its flow's hash (kvs: its key's) */
	uint32_t order;           /* its flow's order of first arrival at the core, or
			     * NF_ORDER_NONE */
	uint32_t core;            /* whose per-core tables */
	uint32_t nic;             /* the NIC it came from (lb's load counters) */
	uint8_t priv_comp;        /* what the last step's private-cache time is charged to */
	uint32_t dep;             /* dependent accesses issued */
	uint32_t group, in_group; /* independent accesses: how many, how many issued */
	uint8_t cls_pkt;          /* LLC class of the core's packet data */
	bool put;                 /* kvs: a PUT request (else a GET) */
};

/* Bytes of the mbuf's private area a FastClick NF has (its 96 B of packet
 * annotations, docs/workloads.md); 0 for the others. */
#define NF_PRIV_BYTES 96u
static inline bool nf_is_fastclick(enum rxb_nf_kind kind)
{
	return kind == RXB_NF_KIND_LB || kind == RXB_NF_KIND_NAT || kind == RXB_NF_KIND_SYNTHETIC;
}
static inline uint32_t nf_priv_bytes(enum rxb_nf_kind kind)
{
	return nf_is_fastclick(kind) ? NF_PRIV_BYTES : 0;
}

/* Lay out the NF's data from address *next on (2 MiB-aligned regions;
 * *next moves past them) and take its parameters from the scenario. The
 * engine sets l2_hit_ps, xfer_ps and the classes. 0 or -ENOMEM. */
int nf_init(struct nf_ctx *nf, const struct rxb_scn *scn, uint64_t *next, struct rxb_err *err);

/* The NF's critical structure (the one CAT reserves ways for, docs/simulator.md
 * §2.6) as `*n` regions of *lines lines each, region i at base + i * stride:
 * per-core tables give one region per core, shared ones a single region. */
void nf_critical(const struct nf_ctx *nf, uint32_t cores, uint64_t *base, uint64_t *stride,
		 uint64_t *lines, uint32_t *n);
void nf_free(struct nf_ctx *nf);

/* Start packet work at core `core` (its packet class cls_pkt, its
 * generator rng): the frame of len bytes (FCS included) at hdr, its mbuf's
 * annotation lines at annot, of flow `flow` (first seen at the core
 * `order`-th: the flow manager hands table slots out in that order) and
 * KV key `key`. */
#define NF_ORDER_NONE UINT32_MAX /* a flow's first arrival: in no known order */
void nf_begin(const struct nf_ctx *nf, struct nf_pkt *p, uint32_t core, uint32_t nic,
	      unsigned cls_pkt, struct sim_rng *rng, uint32_t flow, uint32_t order, uint32_t key,
	      uint32_t len, uint64_t hdr, uint64_t annot);

/* Nothing left to issue: the NF's compute follows. */
static inline bool nf_done(const struct nf_ctx *nf, const struct nf_pkt *p)
{
	return p->dep == nf->deps && p->in_group == p->group;
}

/* The next step (not nf_done): its accesses in a[] (lines through the LLC;
 * at most ACC_MAX, to be issued together at one time),
 * their number as the result (0: none, only private-cache time), and in
 * *priv the time the core then spends in its private caches or waiting
 * for a line another core holds (no shared resource simulated; charged to
 * p->priv_comp). Counted as issued and its random draws made: call it
 * when the step starts. */
unsigned nf_step(struct nf_ctx *nf, struct nf_pkt *p, struct sim_rng *rng, struct acc *a,
		 uint64_t *priv);

/* The accesses to the state of flow `flow` (its flow id and order, as
 * nf_begin takes them) in core `core`'s tables, for the NFs that keep
 * state per flow (lb, nat: FastClick's flow manager, the rte_hash bucket,
 * its key-store entry, the lines of the flow control block, written; nat's
 * port object) in the order a packet of the flow makes them. Returns how
 * many (at most NF_FLOW_STATE_MAX); 0 for the other NFs. */
#define NF_FLOW_STATE_MAX 5
unsigned nf_flow_state(const struct nf_ctx *nf, uint32_t core, uint32_t flow, uint32_t order,
		       struct acc *a);

/* A target core's extra random read (one dependent access). */
struct acc nf_target_read(const struct nf_ctx *nf, struct sim_rng *rng);

#ifdef __cplusplus
}
#endif
#endif /* SIM_NF_H */
