/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Network functions as access and cost profiles (evaluation.md §3): each
 * packet's accesses go through the LLC model at real addresses of the NF's
 * data structures, in dependent steps (one after the other) or independent
 * groups (overlapped up to the core's memory-level parallelism), plus a
 * compute cost. docs/simulator.md lists every structure size and estimate.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "engine.h"

#define HUGE_ALIGN (2ull << 20)

/* Non-memory work per packet (parse, hash, compare, rewrite, checksum),
 * cycles. Estimates, not measurements: docs/simulator.md gives the
 * reasoning; override with workload.compute_ns where it matters. */
double nf_compute_cycles(enum rxb_nf_kind nf)
{
	switch (nf) {
	case RXB_NF_KIND_L3FWD:
		return 60;  /* parse, LPM index, MAC rewrite, TTL and checksum update */
	case RXB_NF_KIND_NAT:
		return 100; /* 5-tuple hash, key compare, address/port rewrite, L3+L4 checksums */
	case RXB_NF_KIND_LB:
		return 80;  /* 5-tuple hash, key compare, backend pick, dst rewrite, checksum */
	case RXB_NF_KIND_SYNTHETIC:
		return 40;  /* loop control of the reads, route lookup index, rewrite */
	case RXB_NF_KIND_KVS:
		return 200; /* parse request, hash a 128 B key, compare it, bookkeeping */
	case RXB_NF_KIND_COUNTER:
		return 20;  /* index, lock-prefixed add, store into the packet */
	default:
		return 0;
	}
}

static uint64_t region(uint64_t *next, uint64_t bytes)
{
	uint64_t base = *next;

	*next = (base + bytes + HUGE_ALIGN - 1) / HUGE_ALIGN * HUGE_ALIGN;
	return base;
}

int nf_init(struct sim *s, uint64_t *next, struct rxb_err *err)
{
	const struct sim_cfg *cfg = s->cfg;
	struct nf_layout *l = &s->nf;
	uint64_t lines;

	/* Route table (l3fwd, synthetic's route lookup): lpm_table_mib. */
	l->lpm_lines = (uint64_t)fmax(1.0, cfg->scn.workload.lpm_table_mib * (double)(1u << 20) / 64.0);
	l->lpm_base = region(next, l->lpm_lines * 64);
	/* Random-read buffer (synthetic, target reads): buffer_mib, shared. */
	l->buf_lines = (uint64_t)fmax(1.0, cfg->scn.workload.buffer_mib * (double)(1u << 20) / 64.0);
	l->buf_base = region(next, l->buf_lines * 64);
	switch (cfg->scn.workload.nf) {
	case RXB_NF_KIND_LB: /* per core: a flow table of 64 B entries */
		l->tbl_lines = cfg->scn.workload.lb_table_entries;
		break;
	case RXB_NF_KIND_NAT: /* per core: 2 entries a flow; buckets of 8 signatures a line */
		l->tbl_lines = 2 * cfg->scn.workload.nat_flows;
		l->bkt_lines = (2 * cfg->scn.workload.nat_flows + 7) / 8;
		break;
	case RXB_NF_KIND_KVS: /* per core (EREW partition): index buckets of 8 keys, items */
		l->keys_per_core = (cfg->scn.workload.kvs_keys + cfg->scn.system.cores - 1) / cfg->scn.system.cores;
		l->tbl_lines = (l->keys_per_core + 7) / 8;
		l->val_lines = (cfg->scn.workload.kvs_key_bytes + cfg->scn.workload.kvs_value_bytes + 63) / 64;
		break;
	default:
		break;
	}
	if (l->tbl_lines) {
		l->tbl_stride = (l->tbl_lines * 64 + HUGE_ALIGN - 1) / HUGE_ALIGN * HUGE_ALIGN;
		l->tbl_base = region(next, l->tbl_stride * cfg->scn.system.cores);
	}
	if (l->bkt_lines) {
		l->bkt_stride = (l->bkt_lines * 64 + HUGE_ALIGN - 1) / HUGE_ALIGN * HUGE_ALIGN;
		l->bkt_base = region(next, l->bkt_stride * cfg->scn.system.cores);
	}
	if (l->val_lines) {
		lines = l->keys_per_core * l->val_lines;
		l->val_stride = (lines * 64 + HUGE_ALIGN - 1) / HUGE_ALIGN * HUGE_ALIGN;
		l->val_base = region(next, l->val_stride * cfg->scn.system.cores);
	}
	/* Counters: 8 B each, packed (a "small array"). */
	l->ctr_base = region(next, (uint64_t)cfg->scn.workload.counter_slots * 8 + 64);
	l->ctr_lines = ((uint64_t)cfg->scn.workload.counter_slots * 8 + 63) / 64;
	l->ctr_last = malloc(l->ctr_lines * sizeof(*l->ctr_last));
	if (l->ctr_last == NULL) {
		rxb_err_set(err, "out of memory");
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < l->ctr_lines; i++)
		l->ctr_last[i] = UINT32_MAX; /* no core holds a counter line yet */
	return 0;
}

static inline uint64_t pick(uint64_t h, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)h * n) >> 64);
}

/* One dependent access: k->t moves by its latency; returns it. */
static uint64_t dep(struct sim *s, struct core *k, unsigned cls, enum sim_llc_op op,
		    uint64_t addr)
{
	uint64_t l = sim_mem_one(s, k->t, cls, op, addr);

	k->t += l;
	return l;
}

/* The counter's line: private-cache hit when this core wrote it last,
 * otherwise an LLC access (the line comes from the other core). */
static uint64_t counter_access(struct sim *s, struct core *k, uint64_t addr)
{
	uint32_t *last = s->nf.ctr_last;
	uint64_t line = (addr - s->nf.ctr_base) >> 6, l;

	if (last[line] == k->id) {
		l = s->c.l2_hit;
		k->t += l;
		return l;
	}
	last[line] = k->id;
	return dep(s, k, s->nf.cls_main, SIM_LLC_WR, addr);
}

void nf_packet(struct sim *s, struct core *k, rxb_buf_t b, const struct pinfo *pi)
{
	const struct sim_cfg *cfg = s->cfg;
	const struct nf_layout *l = &s->nf;
	uint64_t t0 = k->t, hdr = sim_buf_addr(s, b) + cfg->scn.arch.headroom_bytes;
	uint64_t h = sim_mix64(pi->flow), compute;
	uint32_t payload = (pi->len - SIM_ETH_FCS + 63) / 64; /* lines of the frame */
	struct acc a[ACC_MAX];
	unsigned n = 0;

	switch (cfg->scn.workload.nf) {
	case RXB_NF_KIND_L3FWD:
		dep(s, k, l->cls_main, SIM_LLC_RD, l->lpm_base + pick(h, l->lpm_lines) * 64);
		break;
	case RXB_NF_KIND_LB:
		dep(s, k, l->cls_main, SIM_LLC_RD,
		    l->tbl_base + k->id * l->tbl_stride + pick(h, l->tbl_lines) * 64);
		k->t += s->c.l2_hit; /* backend table: a few lines, private-cache resident */
		break;
	case RXB_NF_KIND_NAT:
		dep(s, k, l->cls_aux, SIM_LLC_RD,
		    l->bkt_base + k->id * l->bkt_stride + pick(h, l->bkt_lines) * 64);
		dep(s, k, l->cls_main, SIM_LLC_WR,
		    l->tbl_base + k->id * l->tbl_stride + pick(sim_mix64(h), l->tbl_lines) * 64);
		break;
	case RXB_NF_KIND_SYNTHETIC:
		for (uint32_t r = 0; r < cfg->scn.workload.reads; r++)
			dep(s, k, l->cls_main, SIM_LLC_RD,
			    l->buf_base + sim_rng_below(&k->rng, l->buf_lines) * 64);
		dep(s, k, l->cls_aux, SIM_LLC_RD, l->lpm_base + pick(h, l->lpm_lines) * 64);
		if (cfg->scn.workload.payload != RXB_PAYLOAD_UNTOUCHED) {
			for (uint32_t j = 1; j < payload && n < ACC_MAX; j++, n++) {
				a[n].addr = hdr + 64ull * j;
				a[n].cls = (uint8_t)k->cls_pkt;
				a[n].op = cfg->scn.workload.payload == RXB_PAYLOAD_READ ? SIM_LLC_RD : SIM_LLC_WR;
			}
			k->t += sim_mem_par(s, k->t, a, n);
		}
		break;
	case RXB_NF_KIND_KVS: {
		uint64_t kh = sim_mix64((uint64_t)pi->key + 0x4b5), item;
		bool put = sim_rng_uniform(&k->rng) < cfg->scn.workload.kvs_put_share;
		uint32_t plines = payload > 1 ? payload - 1 : 0;

		dep(s, k, l->cls_main, SIM_LLC_RD,
		    l->tbl_base + k->id * l->tbl_stride + pick(kh, l->tbl_lines) * 64);
		item = l->val_base + k->id * l->val_stride +
		       pick(sim_mix64(kh), l->keys_per_core) * l->val_lines * 64;
		/* PUT: read the value from the packet, write the item; GET: read
		 * the item, write the value into the reply. */
		for (uint32_t j = 0; j < l->val_lines && n < ACC_MAX; j++, n++) {
			a[n].addr = item + 64ull * j;
			a[n].cls = (uint8_t)l->cls_aux;
			a[n].op = put ? SIM_LLC_WR : SIM_LLC_RD;
		}
		for (uint32_t j = 0; j < plines && j < l->val_lines && n < ACC_MAX; j++, n++) {
			a[n].addr = hdr + 64ull * (j + 1);
			a[n].cls = (uint8_t)k->cls_pkt;
			a[n].op = put ? SIM_LLC_RD : SIM_LLC_WR;
		}
		k->t += sim_mem_par(s, k->t, a, n);
		break;
	}
	case RXB_NF_KIND_COUNTER:
		counter_access(s, k, l->ctr_base + pick(h, cfg->scn.workload.counter_slots) * 8);
		break;
	default:
		break;
	}
	compute = s->c.nf_compute + s->c.compute_extra + (k->slow ? s->c.slow_extra : 0);
	k->t += compute;
	k->cost.app += k->t - t0;
}

uint64_t nf_target_access(struct sim *s, struct core *k)
{
	return sim_mem_one(s, k->t, s->nf.cls_tgt, SIM_LLC_RD,
			   s->nf.buf_base + sim_rng_below(&k->rng, s->nf.buf_lines) * 64);
}
