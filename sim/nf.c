/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Network functions as access and cost profiles (evaluation.md §3): each
 * packet's accesses go to real addresses of the NF's data structures, in
 * dependent steps (one after the other) or independent groups (overlapped
 * up to the core's memory-level parallelism), plus a compute cost. nf.h:
 * the engine asks for them one step at a time. docs/simulator.md lists
 * every structure size and estimate.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "llc.h"
#include "nf.h"
#include "traffic.h"

#define HUGE_ALIGN (2ull << 20)
#define LINE 64ull

/* A packet's dependent accesses: each needs the one before it. */
static uint32_t dependent_count(const struct nf_ctx *nf)
{
	switch (nf->kind) {
	case RXB_NF_KIND_NAT:
		return 2; /* bucket, entry */
	case RXB_NF_KIND_SYNTHETIC:
		return nf->reads + 1; /* the reads, the route lookup */
	case RXB_NF_KIND_L3FWD:
	case RXB_NF_KIND_LB:
	case RXB_NF_KIND_KVS: /* the index bucket (its item: the group) */
	case RXB_NF_KIND_COUNTER:
		return 1;
	default:
		return 0;
	}
}

/* A flow's hash, the index of its tables' entries (nf_begin, nf_flow_state). */
static uint64_t flow_hash(uint32_t flow)
{
	return sim_mix64(flow);
}

static uint64_t region(uint64_t *next, uint64_t bytes)
{
	uint64_t base = *next;

	*next = (base + bytes + HUGE_ALIGN - 1) / HUGE_ALIGN * HUGE_ALIGN;
	return base;
}

void nf_critical(const struct nf_ctx *nf, uint32_t cores, uint64_t *base, uint64_t *stride,
		 uint64_t *lines, uint32_t *n)
{
	*stride = 0;
	*n = 1;
	switch (nf->kind) {
	case RXB_NF_KIND_L3FWD:
		*base = nf->lpm_base, *lines = nf->lpm_lines;
		return;
	case RXB_NF_KIND_SYNTHETIC:
		*base = nf->buf_base, *lines = nf->buf_lines;
		return;
	case RXB_NF_KIND_COUNTER:
		*base = nf->ctr_base, *lines = nf->ctr_lines;
		return;
	default: /* per-core tables: LB flows, NAT entries, the KVS index */
		*base = nf->tbl_base, *lines = nf->tbl_lines;
		*stride = nf->tbl_stride;
		*n = cores;
	}
}

int nf_init(struct nf_ctx *nf, const struct rxb_scn *scn, uint64_t *next, struct rxb_err *err)
{
	const struct rxb_scn_workload *w = &scn->workload;
	uint32_t cores = scn->system.cores;
	uint64_t lines;

	nf->kind = w->nf;
	nf->reads = w->reads;
	nf->payload = w->payload;
	nf->kvs_put_share = w->kvs_put_share;
	nf->counter_slots = w->counter_slots;
	nf->mlp = scn->system.mlp;
	nf->deps = dependent_count(nf);
	/* Forwarders rewrite the headers, all in the frame's first line (14 B
	 * Ethernet + 20 B IPv4 + the L4 header's ports and checksum): l3fwd
	 * the MACs and TTL + IP checksum, lb the destination (address, MAC)
	 * and checksums, nat addresses, ports and both checksums, kvs the
	 * reply's swapped addresses. synthetic and counter leave it. The
	 * engine's prologue then fetches that line for writing (nf.h). */
	nf->hdr_write = w->nf == RXB_NF_KIND_L3FWD || w->nf == RXB_NF_KIND_LB ||
			w->nf == RXB_NF_KIND_NAT || w->nf == RXB_NF_KIND_KVS;
	/* Route table (l3fwd, synthetic's route lookup): lpm_table_mib. */
	nf->lpm_lines = (uint64_t)fmax(1.0, w->lpm_table_mib * (double)(1u << 20) / 64.0);
	nf->lpm_base = region(next, nf->lpm_lines * 64);
	/* Random-read buffer (synthetic, target reads): buffer_mib, shared. */
	nf->buf_lines = (uint64_t)fmax(1.0, w->buffer_mib * (double)(1u << 20) / 64.0);
	nf->buf_base = region(next, nf->buf_lines * 64);
	switch (w->nf) {
	case RXB_NF_KIND_LB: /* per core: a flow table of 64 B entries */
		nf->tbl_lines = w->lb_table_entries;
		break;
	case RXB_NF_KIND_NAT: /* per core: 2 entries a flow; buckets of 8 signatures a line */
		nf->tbl_lines = 2 * w->nat_flows;
		nf->bkt_lines = (2 * w->nat_flows + 7) / 8;
		break;
	case RXB_NF_KIND_KVS: /* per core (EREW partition): index buckets of 8 keys, items */
		nf->keys_per_core = (w->kvs_keys + cores - 1) / cores;
		nf->tbl_lines = (nf->keys_per_core + 7) / 8;
		nf->val_lines = (w->kvs_key_bytes + w->kvs_value_bytes + 63) / 64;
		break;
	default:
		break;
	}
	if (nf->tbl_lines) {
		nf->tbl_stride = (nf->tbl_lines * 64 + HUGE_ALIGN - 1) / HUGE_ALIGN * HUGE_ALIGN;
		nf->tbl_base = region(next, nf->tbl_stride * cores);
	}
	if (nf->bkt_lines) {
		nf->bkt_stride = (nf->bkt_lines * 64 + HUGE_ALIGN - 1) / HUGE_ALIGN * HUGE_ALIGN;
		nf->bkt_base = region(next, nf->bkt_stride * cores);
	}
	if (nf->val_lines) {
		lines = nf->keys_per_core * nf->val_lines;
		nf->val_stride = (lines * 64 + HUGE_ALIGN - 1) / HUGE_ALIGN * HUGE_ALIGN;
		nf->val_base = region(next, nf->val_stride * cores);
	}
	/* Counters: 8 B each, packed (a "small array"). */
	nf->ctr_base = region(next, (uint64_t)w->counter_slots * 8 + 64);
	nf->ctr_lines = ((uint64_t)w->counter_slots * 8 + 63) / 64;
	nf->ctr_last = malloc(nf->ctr_lines * sizeof(*nf->ctr_last));
	if (nf->ctr_last == NULL) {
		rxb_err_set(err, "out of memory");
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < nf->ctr_lines; i++)
		nf->ctr_last[i] = UINT32_MAX; /* no core holds a counter line yet */
	return 0;
}

void nf_free(struct nf_ctx *nf)
{
	free(nf->ctr_last);
	nf->ctr_last = NULL;
}

static inline uint64_t pick(uint64_t h, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)h * n) >> 64);
}

static inline uint32_t min32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* ------------------------------------------------------- a packet */

/* A packet of `lines` lines: its independent accesses, after the dependent
 * ones (the group, issued in waves): kvs: the item's lines and as many
 * payload lines (the value comes from or goes into the packet);
 * synthetic: the payload's lines past the header, unless untouched. At
 * most ACC_MAX. (The header line: the engine's prologue, nf_ctx.hdr_write.) */
static uint32_t group_count(const struct nf_ctx *nf, uint32_t lines)
{
	uint32_t beyond_hdr = lines > 1 ? lines - 1 : 0, item;

	switch (nf->kind) {
	case RXB_NF_KIND_KVS:
		item = min32(nf->val_lines, ACC_MAX);
		return item + min32(min32(beyond_hdr, nf->val_lines), ACC_MAX - item);
	case RXB_NF_KIND_SYNTHETIC:
		return nf->payload == RXB_PAYLOAD_UNTOUCHED ? 0 : min32(beyond_hdr, ACC_MAX);
	default:
		return 0;
	}
}

void nf_begin(const struct nf_ctx *nf, struct nf_pkt *p, uint32_t core, unsigned cls_pkt,
	      struct sim_rng *rng, uint32_t flow, uint32_t key, uint32_t len, uint64_t hdr)
{
	p->hdr = hdr;
	p->core = core;
	p->cls_pkt = (uint8_t)cls_pkt;
	/* a KV store's tables are indexed by the request's key, the others'
	 * by the flow */
	p->h = nf->kind == RXB_NF_KIND_KVS ? sim_mix64((uint64_t)key + 0x4b5) : flow_hash(flow);
	/* parsing the request tells its kind (the draw: before any access) */
	p->put = nf->kind == RXB_NF_KIND_KVS && sim_rng_uniform(rng) < nf->kvs_put_share;
	p->dep = 0;
	p->group = group_count(nf, (len - SIM_ETH_FCS + 63) / 64);
	p->in_group = 0;
}

/* ------------------------------------------------------------- steps */

static unsigned one(struct acc *a, unsigned cls, enum sim_llc_op op, uint64_t addr)
{
	a->addr = addr;
	a->cls = (uint8_t)cls;
	a->op = (uint8_t)op;
	return 1;
}

/* Line `line` of core `core`'s part of a per-core table. */
static uint64_t own_line(uint32_t core, uint64_t base, uint64_t stride, uint64_t line)
{
	return base + core * stride + line * LINE;
}

/* Does the NF keep state per flow (lb, nat)? Its dependent accesses are
 * then that state's lines. */
static bool per_flow_state(const struct nf_ctx *nf)
{
	return nf->kind == RXB_NF_KIND_LB || nf->kind == RXB_NF_KIND_NAT;
}

/* Access i (< deps) of the state of the flow hashed h, in core's tables:
 * lb its entry; nat the bucket of its signature, then the entry that
 * points to, rewritten. */
static unsigned flow_state_acc(const struct nf_ctx *nf, uint32_t core, uint64_t h, uint32_t i,
			       struct acc *a)
{
	if (nf->kind == RXB_NF_KIND_LB)
		return one(a, nf->cls_main, SIM_LLC_RD,
			   own_line(core, nf->tbl_base, nf->tbl_stride, pick(h, nf->tbl_lines)));
	if (i == 0)
		return one(a, nf->cls_aux, SIM_LLC_RD,
			   own_line(core, nf->bkt_base, nf->bkt_stride, pick(h, nf->bkt_lines)));
	return one(a, nf->cls_main, SIM_LLC_WR,
		   own_line(core, nf->tbl_base, nf->tbl_stride, pick(sim_mix64(h), nf->tbl_lines)));
}

unsigned nf_flow_state(const struct nf_ctx *nf, uint32_t core, uint32_t flow, struct acc *a)
{
	if (!per_flow_state(nf))
		return 0;
	for (uint32_t i = 0; i < nf->deps; i++)
		flow_state_acc(nf, core, flow_hash(flow), i, &a[i]);
	return nf->deps;
}

/* The route table's line for the flow (l3fwd, synthetic). */
static uint64_t route_line(const struct nf_ctx *nf, const struct nf_pkt *p)
{
	return nf->lpm_base + pick(p->h, nf->lpm_lines) * LINE;
}

/* The counter's atomic increment: a private-cache hit when this core
 * wrote its line last (no access), else an LLC access (the line comes
 * from the core that did). */
static unsigned counter_add(struct nf_ctx *nf, const struct nf_pkt *p, struct acc *a,
			    uint64_t *priv)
{
	uint64_t addr = nf->ctr_base + pick(p->h, nf->counter_slots) * 8;
	uint32_t *last = &nf->ctr_last[(addr - nf->ctr_base) >> 6];

	if (*last == p->core) {
		*priv = nf->l2_hit_ps;
		return 0;
	}
	*last = p->core;
	return one(a, nf->cls_main, SIM_LLC_WR, addr);
}

/* Dependent access i of the packet (i < deps). */
static unsigned dependent(struct nf_ctx *nf, const struct nf_pkt *p, uint32_t i,
			  struct sim_rng *rng, struct acc *a, uint64_t *priv)
{
	switch (nf->kind) {
	case RXB_NF_KIND_L3FWD:
		return one(a, nf->cls_main, SIM_LLC_RD, route_line(nf, p));
	case RXB_NF_KIND_LB:
		/* then the backend table: a few lines, private-cache resident */
		*priv = nf->l2_hit_ps;
		/* fall through */
	case RXB_NF_KIND_NAT: /* the dependent chain is the flow's state */
		return flow_state_acc(nf, p->core, p->h, i, a);
	case RXB_NF_KIND_SYNTHETIC:
		if (i < nf->reads) /* a random line of the shared buffer */
			return one(a, nf->cls_main, SIM_LLC_RD,
				   nf->buf_base + sim_rng_below(rng, nf->buf_lines) * LINE);
		return one(a, nf->cls_aux, SIM_LLC_RD, route_line(nf, p));
	case RXB_NF_KIND_KVS: /* the key's index bucket, in this core's partition */
		return one(a, nf->cls_main, SIM_LLC_RD,
			   own_line(p->core, nf->tbl_base, nf->tbl_stride, pick(p->h, nf->tbl_lines)));
	case RXB_NF_KIND_COUNTER:
		return counter_add(nf, p, a, priv);
	default:
		return 0;
	}
}

/* Access g of a KV request's group at its item (first line `item`): PUT
 * reads the value from the packet and writes the item, GET reads the item
 * and writes the value into the reply. */
static void kvs_access(const struct nf_ctx *nf, const struct nf_pkt *p, uint64_t item, uint32_t g,
		       struct acc *a)
{
	uint32_t item_lines = min32(nf->val_lines, ACC_MAX);

	if (g < item_lines)
		one(a, nf->cls_aux, p->put ? SIM_LLC_WR : SIM_LLC_RD, item + g * LINE);
	else /* payload lines from the one after the header */
		one(a, p->cls_pkt, p->put ? SIM_LLC_RD : SIM_LLC_WR,
		    p->hdr + (g - item_lines + 1) * LINE);
}

/* The next wave of the packet's group: at most mlp accesses. */
static unsigned wave(const struct nf_ctx *nf, struct nf_pkt *p, struct acc *a)
{
	uint32_t j0 = p->in_group, n = min32(p->group - j0, nf->mlp);

	p->in_group += n;
	if (nf->kind == RXB_NF_KIND_KVS) {
		uint64_t item = own_line(p->core, nf->val_base, nf->val_stride,
					 pick(sim_mix64(p->h), nf->keys_per_core) * nf->val_lines);

		for (uint32_t j = 0; j < n; j++)
			kvs_access(nf, p, item, j0 + j, &a[j]);
	} else { /* synthetic: the payload's lines from the one after the header */
		enum sim_llc_op op = nf->payload == RXB_PAYLOAD_READ ? SIM_LLC_RD : SIM_LLC_WR;

		for (uint32_t j = 0; j < n; j++)
			one(&a[j], p->cls_pkt, op, p->hdr + (j0 + j + 1) * LINE);
	}
	return n;
}

unsigned nf_step(struct nf_ctx *nf, struct nf_pkt *p, struct sim_rng *rng, struct acc *a,
		 uint64_t *priv)
{
	*priv = 0;
	if (p->dep < nf->deps)
		return dependent(nf, p, p->dep++, rng, a, priv);
	return wave(nf, p, a);
}

struct acc nf_target_read(const struct nf_ctx *nf, struct sim_rng *rng)
{
	struct acc a;

	one(&a, nf->cls_tgt, SIM_LLC_RD, nf->buf_base + sim_rng_below(rng, nf->buf_lines) * LINE);
	return a;
}
