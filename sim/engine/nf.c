/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Network functions as access and cost profiles (docs/evaluation.md §3): each
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
#define LINE       64ull

/* FastClick's flow manager (FlowIPManagerIMP, docs/workloads.md): per
 * core (thread) a DPDK rte_hash of next_pow2(capacity / the NIC's cores)
 * entries — buckets of 8 signatures and key indices in one 64 B line, a
 * key store of 32 B entries (the 8 B data pointer + the 16 B flow key,
 * 16 B aligned) — and an array of flow control blocks indexed like the key
 * store. A lookup reads the bucket, then the key-store entry its matching
 * signature points to, then the flow control block: each address depends
 * on the line before it. rte_hash hands key slots out in order and the
 * manager never frees them, so a flow's slot is its order of first
 * arrival at the core: with the generator's ranges, consecutive packets
 * of a core walk the key store and the blocks in order. */
#define FM_BUCKET_ENTRIES  RXB_SCN_FLOW_BUCKET
#define FM_KEY_ENTRY_BYTES 32u

/* A flow control block's bytes, the array's stride (not line-aligned):
 * FastClick's 24 B block header (use count, flags, last-seen time, written
 * per packet) and 4 B stored index, then the NF's flow data — lb's 24 B
 * (the backend), nat's 64 B (FlowIPNAT's 40 B entry, FlowCounter's 24 B)
 * (docs/workloads.md). */
static uint32_t fcb_bytes(enum rxb_nf_kind kind)
{
	return 28 + (kind == RXB_NF_KIND_NAT ? 64 : 24);
}

/* nat's port pool: the 64 512 ports 1024-65535 split evenly over the NIC's
 * cores, each port a 24 B heap object (32 B with malloc's header), handed
 * to new flows round robin. */
#define NAT_PORTS          64512u
#define NAT_PORT_OBJ_BYTES 32u

/* A packet's dependent steps: each needs the one before it. A FastClick
 * NF's first is the frame's second line with the annotation writes (the
 * flow key is parsed from it). */
static uint32_t dependent_count(const struct nf_ctx *nf)
{
	switch (nf->kind) {
	case RXB_NF_KIND_LB:
		return 5; /* header line 2, bucket, key, block, backend load */
	case RXB_NF_KIND_NAT:
		return 5; /* header line 2, bucket, key, block, port object */
	case RXB_NF_KIND_SYNTHETIC:
		return 1 + nf->reads + 1; /* header line 2, the reads, the route lookup */
	case RXB_NF_KIND_L3FWD:
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

/* bytes rounded up to whole hugepages */
static uint64_t huge_up(uint64_t bytes)
{
	return (bytes + HUGE_ALIGN - 1) / HUGE_ALIGN * HUGE_ALIGN;
}

static uint64_t region(uint64_t *next, uint64_t bytes)
{
	uint64_t base = *next;

	*next = huge_up(base + bytes);
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

/* The sizes of the per-core tables: the flow manager's (lb, nat), the
 * KV store's index and items. */
static void table_sizes(struct nf_ctx *nf, const struct rxb_scn *scn)
{
	const struct rxb_scn_workload *w = &scn->workload;
	uint32_t cores = scn->system.cores;

	switch (w->nf) {
	case RXB_NF_KIND_LB:
	case RXB_NF_KIND_NAT:
		nf->fm_entries = rxb_scn_flow_table_entries(scn);
		nf->fcb_bytes = fcb_bytes(w->nf);
		nf->tbl_lines = (nf->fm_entries * nf->fcb_bytes + LINE - 1) / LINE;
		nf->bkt_lines = nf->fm_entries / FM_BUCKET_ENTRIES;
		/* entry 0 of the key store is never used (rte_hash's dummy slot) */
		nf->key_lines = (nf->fm_entries + 1) * FM_KEY_ENTRY_BYTES / LINE;
		break;
	case RXB_NF_KIND_KVS: /* per core (EREW partition): index buckets of 8 keys, items */
		nf->keys_per_core = (w->kvs_keys + cores - 1) / cores;
		nf->tbl_lines = (nf->keys_per_core + 7) / 8;
		nf->val_lines = (w->kvs_key_bytes + w->kvs_value_bytes + 63) / 64;
		break;
	default:
		break;
	}
}

/* The per-core tables' regions from *next, the NAT's ports, the LB's
 * backend loads, the counters. */
static int place_tables(struct nf_ctx *nf, const struct rxb_scn *scn, uint64_t *next,
			struct rxb_err *err)
{
	const struct rxb_scn_workload *w = &scn->workload;
	uint32_t cores = scn->system.cores;
	uint64_t lines;

	if (nf->tbl_lines) {
		nf->tbl_stride = huge_up(nf->tbl_lines * LINE);
		nf->tbl_base = region(next, nf->tbl_stride * cores);
	}
	if (nf->bkt_lines) {
		nf->bkt_stride = huge_up(nf->bkt_lines * LINE);
		nf->bkt_base = region(next, nf->bkt_stride * cores);
	}
	if (nf->key_lines) {
		nf->key_stride = huge_up(nf->key_lines * LINE);
		nf->key_base = region(next, nf->key_stride * cores);
	}
	if (w->nf == RXB_NF_KIND_NAT) {
		nf->ports = NAT_PORTS / rxb_scn_fewest_cores(scn);
		nf->port_stride = (uint64_t)nf->ports * NAT_PORT_OBJ_BYTES;
		nf->port_base = region(next, nf->port_stride * cores);
	}
	if (w->nf == RXB_NF_KIND_LB) {
		/* the backends' load counters, one line each, per NIC: not
		 * simulated lines, only who wrote each last (backend_load) */
		nf->backends = w->lb_backends;
		nf->load_last = malloc((size_t)nf->backends * scn->system.nics *
				       sizeof(*nf->load_last));
		if (nf->load_last == NULL) {
			rxb_err_set(err, "out of memory");
			return -ENOMEM;
		}
		for (uint64_t i = 0; i < (uint64_t)nf->backends * scn->system.nics; i++)
			nf->load_last[i] = UINT32_MAX;
	}
	if (nf->val_lines) {
		lines = nf->keys_per_core * nf->val_lines;
		nf->val_stride = huge_up(lines * LINE);
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

int nf_init(struct nf_ctx *nf, const struct rxb_scn *scn, uint64_t *next, struct rxb_err *err)
{
	const struct rxb_scn_workload *w = &scn->workload;

	nf->kind = w->nf;
	nf->reads = w->reads;
	nf->payload = w->payload;
	nf->kvs_put_share = w->kvs_put_share;
	nf->counter_slots = w->counter_slots;
	nf->mlp = scn->system.mlp;
	nf->fastclick = nf_is_fastclick(w->nf);
	nf->deps = dependent_count(nf);
	/* Forwarders rewrite the headers (the frame's first line, and its
	 * second for a FastClick NF: the destination address and the UDP
	 * header): l3fwd the MACs and TTL + IP checksum, lb the destination
	 * (address, MAC) and checksums, nat addresses, ports and both
	 * checksums, kvs the reply's swapped addresses. synthetic and counter
	 * leave it. The engine's prologue then fetches that line for writing
	 * (nf.h). */
	nf->hdr_write = w->nf == RXB_NF_KIND_L3FWD || w->nf == RXB_NF_KIND_LB ||
			w->nf == RXB_NF_KIND_NAT || w->nf == RXB_NF_KIND_KVS;
	/* Route table (l3fwd, synthetic's route lookup): lpm_table_mib. */
	nf->lpm_lines = (uint64_t)fmax(1.0, w->lpm_table_mib * (double)(1u << 20) / 64.0);
	nf->lpm_base = region(next, nf->lpm_lines * 64);
	/* Random-read buffer (synthetic, target reads): buffer_mib, shared. */
	nf->buf_lines = (uint64_t)fmax(1.0, w->buffer_mib * (double)(1u << 20) / 64.0);
	nf->buf_base = region(next, nf->buf_lines * 64);
	table_sizes(nf, scn);
	return place_tables(nf, scn, next, err);
}

void nf_free(struct nf_ctx *nf)
{
	free(nf->ctr_last);
	free(nf->load_last);
	nf->ctr_last = nf->load_last = NULL;
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

void nf_begin(const struct nf_ctx *nf, struct nf_pkt *p, uint32_t core, uint32_t nic,
	      unsigned cls_pkt, struct sim_rng *rng, uint32_t flow, uint32_t order, uint32_t key,
	      uint32_t len, uint64_t hdr, uint64_t annot)
{
	p->order = order;
	p->hdr = hdr;
	p->annot = annot;
	p->core = core;
	p->nic = nic;
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

static unsigned one(struct acc *a, unsigned cls, enum sim_llc_op op, uint64_t addr,
		    enum an_comp comp)
{
	a->addr = addr;
	a->cls = (uint8_t)cls;
	a->op = (uint8_t)op;
	a->comp = (uint8_t)comp;
	return 1;
}

/* Line `line` of core `core`'s part of a per-core table. */
static uint64_t own_line(uint32_t core, uint64_t base, uint64_t stride, uint64_t line)
{
	return base + core * stride + line * LINE;
}

/* The key-store slot (1..entries) of the flow hashed h: its order of
 * first arrival at the core when known, else (drawn flows: they first
 * arrive in random order) a second hash of the flow. */
static uint64_t key_slot(const struct nf_ctx *nf, uint64_t h, uint32_t order)
{
	if (order != NF_ORDER_NONE)
		return 1 + order % nf->fm_entries;
	return 1 + pick(sim_mix64(h ^ 0x6b65795f736c6f74ull), nf->fm_entries);
}

/* The lines of core's flow control block for key slot `slot`, written
 * (last-seen time, the NF's data): 1 or 2, as the block falls. */
static unsigned fcb_acc(const struct nf_ctx *nf, uint32_t core, uint64_t slot, struct acc *a)
{
	uint64_t first = nf->tbl_base + core * nf->tbl_stride + (slot - 1) * nf->fcb_bytes;
	uint64_t line = first & ~(LINE - 1), last = (first + nf->fcb_bytes - 1) & ~(LINE - 1);
	unsigned n = 0;

	for (; line <= last; line += LINE)
		n += one(&a[n], nf->cls_main, SIM_LLC_WR, line, AN_FLOW_FCB);
	return n;
}

/* Step i (1..4) of the flow manager's work on the flow hashed h (first
 * seen `order`-th) in core's tables: the bucket, its key-store entry, the
 * flow control block; nat then the flow's port object (its pointer is in
 * the block). lb's step 4 is not an access (backend_load). */
static unsigned flow_state_acc(const struct nf_ctx *nf, uint32_t core, uint64_t h, uint32_t order,
			       uint32_t i, struct acc *a)
{
	uint64_t slot;

	if (i == 1)
		return one(a, nf->cls_aux, SIM_LLC_RD,
			   own_line(core, nf->bkt_base, nf->bkt_stride, pick(h, nf->bkt_lines)),
			   AN_FLOW_BUCKET);
	slot = key_slot(nf, h, order);
	switch (i) {
	case 2:
		return one(a, nf->cls_key, SIM_LLC_RD,
			   nf->key_base + core * nf->key_stride + slot * FM_KEY_ENTRY_BYTES,
			   AN_FLOW_KEY);
	case 3:
		return fcb_acc(nf, core, slot, a);
	default: /* nat: ports go to new flows round robin, in slot order */
		return one(a, nf->cls_pool, SIM_LLC_RD,
			   nf->port_base + core * nf->port_stride +
				   (slot - 1) % nf->ports * NAT_PORT_OBJ_BYTES,
			   AN_NAT_PORT);
	}
}

unsigned nf_flow_state(const struct nf_ctx *nf, uint32_t core, uint32_t flow, uint32_t order,
		       struct acc *a)
{
	uint32_t last = nf->kind == RXB_NF_KIND_NAT ? 4 : 3;
	unsigned n = 0;

	if (!rxb_nf_keeps_flows(nf->kind))
		return 0;
	for (uint32_t i = 1; i <= last; i++)
		n += flow_state_acc(nf, core, flow_hash(flow), order, i, &a[n]);
	return n;
}

/* A FastClick NF's first step: the frame's second line, read on demand by
 * CheckIPHeader (the destination address and the L4 header are there;
 * rewritten by lb and nat), with the annotation lines of the mbuf's
 * private area written beside it (independent: one wave). */
static unsigned click_prologue(const struct nf_ctx *nf, const struct nf_pkt *p, struct acc *a)
{
	one(&a[0], p->cls_pkt, nf->hdr_write ? SIM_LLC_WR : SIM_LLC_RD, p->hdr + LINE, AN_HDR2);
	one(&a[1], nf->cls_annot, SIM_LLC_WR, p->annot, AN_ANNOT);
	one(&a[2], nf->cls_annot, SIM_LLC_WR, p->annot + LINE, AN_ANNOT);
	return 3;
}

/* lb's track_load: two locked read-modify-writes on the load counter of
 * the flow's backend, one line of 32 shared by the NIC's cores. The line
 * comes from the core that wrote it last (a transfer through the snoop
 * filter, not a simulated line: it lives in that core's private cache),
 * or is still this core's. */
static uint64_t backend_load(struct nf_ctx *nf, const struct nf_pkt *p)
{
	uint64_t i = (uint64_t)p->nic * nf->backends + pick(sim_mix64(p->h + 0x6c62), nf->backends);
	uint32_t *last = &nf->load_last[i];
	uint64_t t = *last == p->core ? nf->l2_hit_ps : nf->xfer_ps;

	*last = p->core;
	return t;
}

/* The route table's line for the flow (l3fwd, synthetic). */
static uint64_t route_line(const struct nf_ctx *nf, const struct nf_pkt *p)
{
	return nf->lpm_base + pick(p->h, nf->lpm_lines) * LINE;
}

/* The counter's atomic increment: a private-cache hit when this core
 * wrote its line last (no access), else an LLC access (the line comes
 * from the core that did). */
static unsigned counter_add(struct nf_ctx *nf, struct nf_pkt *p, struct acc *a, uint64_t *priv)
{
	uint64_t addr = nf->ctr_base + pick(p->h, nf->counter_slots) * 8;
	uint32_t *last = &nf->ctr_last[(addr - nf->ctr_base) >> 6];

	if (*last == p->core) {
		*priv = nf->l2_hit_ps;
		p->priv_comp = AN_COUNTER;
		return 0;
	}
	*last = p->core;
	return one(a, nf->cls_main, SIM_LLC_WR, addr, AN_COUNTER);
}

/* Dependent step i of the packet (i < deps). */
static unsigned dependent(struct nf_ctx *nf, struct nf_pkt *p, uint32_t i, struct sim_rng *rng,
			  struct acc *a, uint64_t *priv)
{
	if (nf->fastclick && i == 0)
		return click_prologue(nf, p, a);
	switch (nf->kind) {
	case RXB_NF_KIND_L3FWD:
		return one(a, nf->cls_main, SIM_LLC_RD, route_line(nf, p), AN_ROUTE);
	case RXB_NF_KIND_LB:
		if (i == 4) { /* then the backend's load (the backend: in the block) */
			*priv = backend_load(nf, p);
			p->priv_comp = AN_LB_LOAD;
			return 0;
		}
		/* fall through */
	case RXB_NF_KIND_NAT: /* the flow manager's lookup */
		return flow_state_acc(nf, p->core, p->h, p->order, i, a);
	case RXB_NF_KIND_SYNTHETIC:
		if (i <= nf->reads) /* a random line of the shared buffer */
			return one(a, nf->cls_main, SIM_LLC_RD,
				   nf->buf_base + sim_rng_below(rng, nf->buf_lines) * LINE,
				   AN_NF_TABLE);
		return one(a, nf->cls_aux, SIM_LLC_RD, route_line(nf, p), AN_ROUTE);
	case RXB_NF_KIND_KVS: /* the key's index bucket, in this core's partition */
		return one(
			a, nf->cls_main, SIM_LLC_RD,
			own_line(p->core, nf->tbl_base, nf->tbl_stride, pick(p->h, nf->tbl_lines)),
			AN_NF_TABLE);
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
		one(a, nf->cls_aux, p->put ? SIM_LLC_WR : SIM_LLC_RD, item + g * LINE, AN_NF_ITEM);
	else /* payload lines from the one after the header */
		one(a, p->cls_pkt, p->put ? SIM_LLC_RD : SIM_LLC_WR,
		    p->hdr + (g - item_lines + 1) * LINE, AN_PAYLOAD);
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
			one(&a[j], p->cls_pkt, op, p->hdr + (j0 + j + 1) * LINE, AN_PAYLOAD);
	}
	return n;
}

unsigned nf_step(struct nf_ctx *nf, struct nf_pkt *p, struct sim_rng *rng, struct acc *a,
		 uint64_t *priv)
{
	*priv = 0;
	p->priv_comp = AN_COMPUTE;
	if (p->dep < nf->deps)
		return dependent(nf, p, p->dep++, rng, a, priv);
	return wave(nf, p, a);
}

struct acc nf_target_read(const struct nf_ctx *nf, struct sim_rng *rng)
{
	struct acc a;

	one(&a, nf->cls_tgt, SIM_LLC_RD, nf->buf_base + sim_rng_below(rng, nf->buf_lines) * LINE,
	    AN_TARGET_READ);
	return a;
}
