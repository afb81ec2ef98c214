/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "gen.h"
#include "mbuf_rx.h"
#include "nf/pkt.h"
#include "rng.h"

#define GEN_TTL 64 /* every frame's IPv4 time to live */

/* Flow set to draw from: flow ids ranked by popularity (rank r -> ids[r-1]). */
struct flow_set {
	uint32_t *ids;
	uint32_t n;
	struct sim_zipf zipf;
};

struct rxb_gen {
	struct rxb_gen_cfg cfg;
	struct rxb_flows fm; /* the flows' 5-tuples (util/flow.h) */
	uint32_t n_flows;    /* cfg.n_flows, or lcm of the generator ranges */
	struct rxb_gen_flow *flows;
	uint32_t *tcp_seq; /* per flow, TCP only */
	struct flow_set target, other, all;
	bool has_target;
	struct sim_zipf key_zipf;
	uint64_t size_weight_total;
	uint16_t max_frame;

	/* Pattern state: everything that decides packet contents. */
	struct sim_rng rng;
	uint64_t seq;       /* packets drawn (IP id) */
	uint64_t req_id;    /* KV requests filled */
	uint32_t burst_pos; /* packets of the current on-period filled */
	uint32_t burst_flow;
	bool burst_flow_target;
	uint32_t gen_next; /* generator ranges: the next packet's flow */

	/* Pacer state: decides only when packets go. */
	bool started;
	uint64_t base;     /* TSC of slot 0 of the current on-period */
	uint64_t k;        /* slots granted since base */
	uint32_t pace_pos; /* packets granted in the current on-period */
	double period;     /* TSC cycles per packet; 0 = unpaced */
	uint64_t gap;      /* off-period in TSC cycles */

	struct rxb_gen_stats stats;
};

void rxb_gen_cfg_defaults(struct rxb_gen_cfg *cfg)
{
	static const struct rte_ether_addr src = { { 0x02, 0, 0, 0, 0xaa, 0x01 } };
	static const struct rte_ether_addr dst = { { 0x02, 0, 0, 0, 0xbb, 0x01 } };

	memset(cfg, 0, sizeof(*cfg));
	cfg->seed = 1;
	cfg->n_flows = 1024;
	cfg->proto = IPPROTO_UDP;
	cfg->src_net = RXB_FLOW_SRC_NET;
	cfg->src_depth = RXB_FLOW_SRC_DEPTH;
	cfg->dst_net = RXB_FLOW_DST_NET;
	cfg->dst_depth = RXB_FLOW_DST_DEPTH;
	cfg->src_mac = src;
	cfg->dst_mac = dst;
	cfg->flow_zipf_s = 0.99;
	cfg->frame_size = 1500;
	cfg->kv.get_ratio = 0.05;
	cfg->kv.n_keys = 1u << 20;
	cfg->kv.zipf_s = 0.99;
	cfg->kv.n_partitions = 1;
	cfg->kv.val_len = RXB_KV_VAL_MAX;
	cfg->stamp = true;
	cfg->pace_slack = 64;
}

static uint16_t l4_hdr_len(uint8_t proto)
{
	return proto == IPPROTO_TCP ? sizeof(struct rte_tcp_hdr) : sizeof(struct rte_udp_hdr);
}

static uint16_t kv_frame(uint16_t val_len)
{
	return (uint16_t)(sizeof(struct rte_ether_hdr) + sizeof(struct rte_ipv4_hdr) +
			  sizeof(struct rte_udp_hdr) + RXB_KV_MSG_LEN(val_len));
}

static int check_frame(const char *field, uint16_t size, uint8_t proto, bool stamp,
		       struct rxb_err *err)
{
	uint16_t min = RXB_GEN_MIN_FRAME;

	if (proto == IPPROTO_TCP && stamp && min < RXB_STAMP_MIN_FRAME_TCP)
		min = RXB_STAMP_MIN_FRAME_TCP;
	if (size < min || size > RXB_GEN_MAX_FRAME) {
		rxb_err_set(err, "%s = %u: must be in [%u, %u] (bytes in the mbuf, FCS excluded%s)",
			    field, size, min, RXB_GEN_MAX_FRAME,
			    min > RXB_GEN_MIN_FRAME ? "; TCP needs room for the stamp" : "");
		return -EINVAL;
	}
	return 0;
}

static int check_dist(const char *field, enum rxb_gen_dist d, double s, struct rxb_err *err)
{
	if (d != RXB_GEN_UNIFORM && d != RXB_GEN_ZIPF) {
		rxb_err_set(err, "%s = %d: must be uniform (0) or zipf (1)", field, (int)d);
		return -EINVAL;
	}
	/* sim_zipf_init's own range (its result is not checked where the sets
	 * are made: this check is what keeps it from failing) */
	if (d == RXB_GEN_ZIPF && !(s > 0 && s <= SIM_ZIPF_S_MAX)) {
		rxb_err_set(err, "%s zipf exponent = %g: must be in (0, %g]", field, s,
			    SIM_ZIPF_S_MAX);
		return -EINVAL;
	}
	return 0;
}

/* Generator ranges visit every flow in turn: nothing may pick flows. */
static int check_ranges(const struct rxb_gen_cfg *c, struct rxb_err *err)
{
	const char *why = c->target_share > 0 || c->n_target_flows || c->is_target ? "a target set"
			  : c->kv.enabled        ? "KV requests (keys pick the port)"
			  : c->burst_single_flow ? "single-flow bursts"
						 : NULL;

	if ((c->gen_src || c->gen_dst) && why != NULL) {
		rxb_err_set(err,
			    "traffic.gen_src_addrs = %u, gen_dst_addrs = %u: generator "
			    "ranges visit every flow in turn, so they do not go with %s; use "
			    "drawn flows (flow_model = random) there",
			    c->gen_src, c->gen_dst, why);
		return -EINVAL;
	}
	return 0;
}

/* The flows: how many, their protocol, address blocks and popularity. */
static int check_flows(const struct rxb_gen_cfg *c, struct rxb_err *err)
{
	if (c->n_flows == 0 || c->n_flows > RXB_GEN_MAX_FLOWS) {
		rxb_err_set(err, "gen.n_flows = %u: must be in [1, %u]", c->n_flows,
			    RXB_GEN_MAX_FLOWS);
		return -EINVAL;
	}
	if (c->proto != IPPROTO_UDP && c->proto != IPPROTO_TCP) {
		rxb_err_set(err, "gen.proto = %u: must be UDP (%u) or TCP (%u)", c->proto,
			    IPPROTO_UDP, IPPROTO_TCP);
		return -EINVAL;
	}
	if (c->src_depth > 32 || c->dst_depth > 32) {
		rxb_err_set(err, "gen.%s_depth = %u: must be in [0, 32]",
			    c->src_depth > 32 ? "src" : "dst",
			    c->src_depth > 32 ? c->src_depth : c->dst_depth);
		return -EINVAL;
	}
	return check_dist("gen.flow_dist", c->flow_dist, c->flow_zipf_s, err);
}

/* The target set: its share of the packets, its flows, its frame size. */
static int check_target(const struct rxb_gen_cfg *c, struct rxb_err *err)
{
	if (!(c->target_share >= 0 && c->target_share <= 1)) {
		rxb_err_set(err, "gen.target_share = %g: must be in [0, 1]", c->target_share);
		return -EINVAL;
	}
	if (c->target_share > 0 && c->n_target_flows == 0 && c->is_target == NULL) {
		rxb_err_set(err,
			    "gen.target_share = %g: needs a target set (n_target_flows or "
			    "is_target)",
			    c->target_share);
		return -EINVAL;
	}
	if (c->n_target_flows > c->n_flows) {
		rxb_err_set(err, "gen.n_target_flows = %u: must not exceed gen.n_flows = %u",
			    c->n_target_flows, c->n_flows);
		return -EINVAL;
	}
	if (c->target_frame_size == 0)
		return 0;
	return check_frame("gen.target_frame_size", c->target_frame_size, c->proto, c->stamp, err);
}

/* Frame sizes: the weighted list, or the one frame_size. */
static int check_sizes(const struct rxb_gen_cfg *c, struct rxb_err *err)
{
	if (c->n_sizes > RXB_GEN_MAX_SIZES || (c->n_sizes > 0 && c->sizes == NULL)) {
		rxb_err_set(err, "gen.n_sizes = %u: must be at most %u, with gen.sizes set",
			    c->n_sizes, RXB_GEN_MAX_SIZES);
		return -EINVAL;
	}
	for (uint32_t i = 0; i < c->n_sizes; i++) {
		char field[32];
		int rc;

		snprintf(field, sizeof(field), "gen.sizes[%u].size", i);
		rc = check_frame(field, c->sizes[i].size, c->proto, c->stamp, err);
		if (rc < 0)
			return rc;
	}
	if (c->n_sizes > 0)
		return 0;
	return check_frame("gen.frame_size", c->frame_size, c->proto, c->stamp, err);
}

/* When packets go: the rate and the on/off bursts. */
static int check_timing(const struct rxb_gen_cfg *c, struct rxb_err *err)
{
	if (!(c->pps >= 0 && c->pps < 1e12)) {
		rxb_err_set(err, "gen.pps = %g: must be in [0, 1e12) (0 = unpaced)", c->pps);
		return -EINVAL;
	}
	if (c->burst_gap_ns > 0 && c->burst_pkts == 0) {
		rxb_err_set(err, "gen.burst_gap_ns = %llu: needs gen.burst_pkts > 0",
			    (unsigned long long)c->burst_gap_ns);
		return -EINVAL;
	}
	return 0;
}

/* KV requests, when enabled: UDP, a GET share, keys, partitions, values. */
static int check_kv(const struct rxb_gen_cfg *c, struct rxb_err *err)
{
	if (!c->kv.enabled)
		return 0;
	if (c->proto != IPPROTO_UDP) {
		rxb_err_set(err, "gen.kv.enabled with gen.proto = %u: KV requests are UDP",
			    c->proto);
		return -EINVAL;
	}
	if (!(c->kv.get_ratio >= 0 && c->kv.get_ratio <= 1)) {
		rxb_err_set(err, "gen.kv.get_ratio = %g: must be in [0, 1]", c->kv.get_ratio);
		return -EINVAL;
	}
	if (c->kv.n_keys == 0 || c->kv.n_partitions == 0) {
		rxb_err_set(err, "gen.kv.%s = 0: must be at least 1",
			    c->kv.n_keys == 0 ? "n_keys" : "n_partitions");
		return -EINVAL;
	}
	if (c->kv.val_len > RXB_KV_VAL_MAX) {
		rxb_err_set(err, "gen.kv.val_len = %u: must be at most %u", c->kv.val_len,
			    RXB_KV_VAL_MAX);
		return -EINVAL;
	}
	return check_dist("gen.kv.dist", c->kv.dist, c->kv.zipf_s, err);
}

/* Every field group in turn; the first mistake is the one reported. */
static int check_cfg(const struct rxb_gen_cfg *c, struct rxb_err *err)
{
	if (check_ranges(c, err) < 0 || check_flows(c, err) < 0 || check_target(c, err) < 0 ||
	    check_sizes(c, err) < 0 || check_timing(c, err) < 0 || check_kv(c, err) < 0)
		return -EINVAL;
	return 0;
}

static int set_init(struct flow_set *s, uint32_t cap)
{
	s->ids = malloc((size_t)(cap ? cap : 1) * sizeof(*s->ids));
	s->n = 0;
	return s->ids != NULL ? 0 : -ENOMEM;
}

static void set_finish(struct flow_set *s, const struct rxb_gen_cfg *c)
{
	if (s->n > 0)
		sim_zipf_init(&s->zipf, s->n, c->flow_dist == RXB_GEN_ZIPF ? c->flow_zipf_s : 0,
			      NULL);
}

/* The flows' 5-tuples for the seed and port (util/flow.h), and how many:
 * n_flows, or the lcm of the generator ranges. */
static int flows_init(struct rxb_gen *g, struct rxb_err *err)
{
	const struct rxb_gen_cfg *c = &g->cfg;

	rxb_flows_init(&g->fm, c->seed, c->port, c->proto);
	g->fm.src_net = c->src_net;
	g->fm.src_depth = c->src_depth;
	g->fm.dst_net = c->dst_net;
	g->fm.dst_depth = c->dst_depth;
	g->n_flows = c->n_flows;
	if (c->gen_src == 0 && c->gen_dst == 0)
		return 0;
	if (rxb_flows_ranges(&g->fm, c->gen_src, c->gen_dst, err) < 0)
		return -EINVAL;
	if (g->fm.gen_flows > RXB_GEN_MAX_FLOWS) {
		rxb_err_set(err,
			    "traffic.gen_src_addrs = %u, gen_dst_addrs = %u: lcm %u flows, "
			    "the emulator's flow table holds at most %u",
			    c->gen_src, c->gen_dst, g->fm.gen_flows, RXB_GEN_MAX_FLOWS);
		return -EINVAL;
	}
	g->n_flows = g->fm.gen_flows;
	g->gen_next = rxb_flows_gen_id(&g->fm, 0);
	return 0;
}

/* The flow table: each flow's tuple, and a TCP flow's first sequence
 * number (its own stream, so it does not change with the rest of cfg). */
static int fill_table(struct rxb_gen *g)
{
	struct sim_rng r;

	g->flows = calloc(g->n_flows, sizeof(*g->flows));
	if (g->flows == NULL)
		return -ENOMEM;
	if (g->cfg.proto == IPPROTO_TCP) {
		g->tcp_seq = calloc(g->n_flows, sizeof(*g->tcp_seq));
		if (g->tcp_seq == NULL)
			return -ENOMEM;
	}
	sim_rng_seed(&r, g->cfg.seed ^ 0xf10f10f10f10f10full, 0);
	for (uint32_t i = 0; i < g->n_flows; i++) {
		struct rxb_gen_flow *f = &g->flows[i];
		struct rxb_flow t;

		rxb_flow_tuple(&g->fm, i, &t);
		f->src_ip = t.src_ip;
		f->dst_ip = t.dst_ip;
		f->src_port = t.src_port;
		f->dst_port = t.dst_port;
		f->proto = t.proto;
		if (g->tcp_seq != NULL)
			g->tcp_seq[i] = (uint32_t)sim_rng_next(&r);
	}
	return 0;
}

static int build_flows(struct rxb_gen *g, struct rxb_err *err)
{
	const struct rxb_gen_cfg *c = &g->cfg;

	if (flows_init(g, err) < 0)
		return -EINVAL;
	if (fill_table(g) < 0)
		goto nomem;
	if (g->fm.gen_flows)
		return 0; /* visited in turn: no sets to draw from */
	if (set_init(&g->all, c->n_flows) < 0 || set_init(&g->target, c->n_flows) < 0 ||
	    set_init(&g->other, c->n_flows) < 0)
		goto nomem;
	g->has_target = c->n_target_flows > 0 || c->is_target != NULL;
	for (uint32_t i = 0; i < c->n_flows; i++) {
		bool t = c->is_target != NULL ? c->is_target(c->is_target_arg, i, &g->flows[i])
					      : i < c->n_target_flows;

		g->all.ids[g->all.n++] = i;
		if (t)
			g->target.ids[g->target.n++] = i;
		else
			g->other.ids[g->other.n++] = i;
	}
	if (g->has_target && c->target_share > 0 && g->target.n == 0) {
		rxb_err_set(err,
			    "gen.is_target: selected none of the %u flows, but "
			    "gen.target_share = %g",
			    c->n_flows, c->target_share);
		return -EINVAL;
	}
	if (g->has_target && c->target_share < 1 && g->other.n == 0) {
		rxb_err_set(err,
			    "gen target set: holds all %u flows, but gen.target_share = %g "
			    "leaves packets for the others",
			    c->n_flows, c->target_share);
		return -EINVAL;
	}
	set_finish(&g->all, c);
	set_finish(&g->target, c);
	set_finish(&g->other, c);
	return 0;
nomem:
	rxb_err_set(err, "gen.n_flows = %u: out of memory for the flow table", g->n_flows);
	return -ENOMEM;
}

int rxb_gen_create(const struct rxb_gen_cfg *cfg, struct rxb_gen **out, struct rxb_err *err)
{
	struct rxb_gen *g;
	uint64_t hz;
	int rc;

	*out = NULL;
	rc = check_cfg(cfg, err);
	if (rc < 0)
		return rc;
	g = calloc(1, sizeof(*g));
	if (g == NULL) {
		rxb_err_set(err, "gen: out of memory");
		return -ENOMEM;
	}
	g->cfg = *cfg;
	g->cfg.sizes = NULL; /* copied below: the caller's array may go away */
	rc = build_flows(g, err);
	if (rc < 0) {
		rxb_gen_destroy(g);
		return rc;
	}
	if (cfg->n_sizes > 0) {
		struct rxb_gen_size *sizes = malloc(cfg->n_sizes * sizeof(*sizes));

		if (sizes == NULL) {
			rxb_gen_destroy(g);
			rxb_err_set(err, "gen: out of memory");
			return -ENOMEM;
		}
		memcpy(sizes, cfg->sizes, cfg->n_sizes * sizeof(*sizes));
		g->cfg.sizes = sizes;
		for (uint32_t i = 0; i < cfg->n_sizes; i++) {
			g->size_weight_total += sizes[i].weight;
			g->max_frame = RTE_MAX(g->max_frame, sizes[i].size);
		}
		if (g->size_weight_total == 0) {
			rxb_gen_destroy(g);
			rxb_err_set(err, "gen.sizes: all %u weights are 0", cfg->n_sizes);
			return -EINVAL;
		}
	} else {
		g->max_frame = cfg->frame_size;
	}
	g->max_frame = RTE_MAX(g->max_frame, cfg->target_frame_size);
	if (cfg->kv.enabled) {
		g->max_frame = kv_frame(cfg->kv.val_len);
		sim_zipf_init(&g->key_zipf, cfg->kv.n_keys,
			      cfg->kv.dist == RXB_GEN_ZIPF ? cfg->kv.zipf_s : 0, NULL);
	}
	sim_rng_seed(&g->rng, cfg->seed, 0);
	hz = cfg->tsc_hz ? cfg->tsc_hz : rte_get_tsc_hz();
	g->period = cfg->pps > 0 ? (double)hz / cfg->pps : 0;
	g->gap = (uint64_t)((double)cfg->burst_gap_ns * (double)hz / 1e9);
	*out = g;
	return 0;
}

void rxb_gen_destroy(struct rxb_gen *g)
{
	if (g == NULL)
		return;
	free(g->flows);
	free(g->tcp_seq);
	free(g->all.ids);
	free(g->target.ids);
	free(g->other.ids);
	free((void *)g->cfg.sizes);
	free(g);
}

const struct rxb_gen_flow *rxb_gen_flow(const struct rxb_gen *g, uint32_t flow)
{
	return flow < g->n_flows ? &g->flows[flow] : NULL;
}

uint32_t rxb_gen_n_flows(const struct rxb_gen *g)
{
	return g->n_flows;
}

uint32_t rxb_gen_first_flow(const struct rxb_gen *g)
{
	return g->fm.gen_flows ? rxb_flows_gen_id(&g->fm, 0) : 0;
}

uint32_t rxb_gen_n_target_flows(const struct rxb_gen *g)
{
	return g->has_target ? g->target.n : 0;
}

uint16_t rxb_gen_max_frame(const struct rxb_gen *g)
{
	return g->max_frame;
}

const struct rxb_gen_stats *rxb_gen_stats(const struct rxb_gen *g)
{
	return &g->stats;
}

/* ---- KV keys and values -------------------------------------------------- */

void rxb_gen_kv_key(uint64_t k, uint8_t key[RXB_KV_KEY_LEN])
{
	uint64_t x = k, w = rte_cpu_to_be_64(k);

	memcpy(key, &w, 8);
	for (unsigned i = 8; i < RXB_KV_KEY_LEN; i += 8) {
		w = sim_splitmix64(&x);
		memcpy(key + i, &w, 8);
	}
}

void rxb_gen_kv_value(uint64_t k, uint64_t req_id, uint8_t *val, uint16_t len)
{
	uint8_t head[16];
	uint64_t w;

	w = rte_cpu_to_be_64(k);
	memcpy(head, &w, 8);
	w = rte_cpu_to_be_64(req_id);
	memcpy(head + 8, &w, 8);
	memcpy(val, head, RTE_MIN(len, (uint16_t)sizeof(head)));
	if (len > sizeof(head))
		memset(val + sizeof(head), (int)(req_id & 0xff), len - sizeof(head));
}

/* ---- packet pattern ------------------------------------------------------ */

static uint32_t draw(struct sim_rng *r, const struct flow_set *s)
{
	return s->ids[sim_zipf_draw(&s->zipf, r) - 1];
}

static uint32_t pick_flow(struct rxb_gen *g, bool *target)
{
	const struct rxb_gen_cfg *c = &g->cfg;
	uint32_t f;

	if (c->burst_single_flow && c->burst_pkts > 0 && g->burst_pos > 0) {
		*target = g->burst_flow_target;
		return g->burst_flow;
	}
	if (g->fm.gen_flows) {
		*target = false;
		f = g->gen_next;
		g->gen_next = rxb_flows_gen_next(&g->fm, f);
	} else if (!g->has_target) {
		*target = false;
		f = draw(&g->rng, &g->all);
	} else {
		/* Draw the set even when target_share is 0 or 1, so the
		 * random stream has one shape for every share. */
		*target = sim_rng_uniform(&g->rng) < c->target_share;
		f = draw(&g->rng, *target ? &g->target : &g->other);
	}
	g->burst_flow = f;
	g->burst_flow_target = *target;
	return f;
}

static uint16_t pick_size(struct rxb_gen *g, bool target)
{
	const struct rxb_gen_cfg *c = &g->cfg;
	uint64_t w;

	if (target && c->target_frame_size != 0)
		return c->target_frame_size;
	if (c->n_sizes == 0)
		return c->frame_size;
	w = sim_rng_below(&g->rng, g->size_weight_total);
	for (uint32_t i = 0;; i++) {
		if (w < c->sizes[i].weight)
			return c->sizes[i].size;
		w -= c->sizes[i].weight;
	}
}

/* ---- checksums, from the values written ---------------------------------- */

/* A frame's checksums are summed from the values its fields are written
 * from, not read back from the frame: a load that spans several stores made
 * a moment before cannot take its bytes from them and waits for them to
 * reach the cache. A sum is kept as the 64-bit sum of the fields as they lie
 * in the frame (network order, as a native load reads them): a 32-bit field
 * adds its two 16-bit words at once, since 2^16 = 1 modulo 0xffff. Only
 * bytes written by a bulk copy (a KV request) are read back.
 *
 * The fields in network order, for the frame and its sums alike. Not
 * rte_cpu_to_be_16/32: on x86 they swap a variable with a volatile asm,
 * which the compiler must run again for every use. */
static inline uint16_t be16(uint16_t v)
{
	return RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN ? __builtin_bswap16(v) : v;
}

static inline uint32_t be32(uint32_t v)
{
	return RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN ? __builtin_bswap32(v) : v;
}

/* A field's words, added to a sum. */
static inline uint64_t csum_be16(uint16_t v)
{
	return be16(v);
}

static inline uint64_t csum_be32(uint32_t v)
{
	return be32(v);
}

/* The one's-complement sum (16 bits, end-around carries) of sum s. */
static inline uint16_t csum_fold(uint64_t s)
{
	s = (s & 0xffffffffu) + (s >> 32);
	s = (s & 0xffffffffu) + (s >> 32);
	s = (s & 0xffffu) + (s >> 16);
	s = (s & 0xffffu) + (s >> 16);
	return (uint16_t)s;
}

/* The IPv4 pseudo-header of an L4 segment of l4_len bytes of flow f. */
static inline uint64_t csum_pseudo(const struct rxb_gen_flow *f, uint8_t proto, uint16_t l4_len)
{
	return csum_be32(f->src_ip) + csum_be32(f->dst_ip) + csum_be16(proto) + csum_be16(l4_len);
}

/* The L4 checksum of a segment whose pseudo-header, header and payload sum
 * to s (zero-filled bytes add nothing, so the payload's zeroed rest need not
 * be summed). */
static uint16_t l4_csum(uint64_t s, uint8_t proto)
{
	uint16_t ck = (uint16_t)~csum_fold(s);

	if (ck == 0 && proto == IPPROTO_UDP)
		ck = 0xffff; /* RFC 768: 0 means "no checksum" */
	return ck;
}

/* Write the KV request for this packet after the stamp; returns its length
 * from the start of the payload. */
static uint32_t fill_kv(const struct rxb_gen *g, uint8_t *payload,
			const struct rxb_gen_pkt_info *pi)
{
	const struct rxb_gen_cfg *c = &g->cfg;
	struct rxb_kv_hdr *h = (struct rxb_kv_hdr *)(payload + RXB_KV_OFF);
	uint8_t *key = payload + RXB_KV_OFF + RXB_KV_HDR_LEN;
	uint16_t val_len = pi->kv_op == RXB_KV_PUT ? c->kv.val_len : 0;

	h->magic = RXB_KV_MAGIC;
	h->op = pi->kv_op;
	h->status = 0;
	h->reserved = 0;
	h->val_len = be16(val_len);
	h->key_len = be16(RXB_KV_KEY_LEN);
	h->req_id = rte_cpu_to_be_64(pi->kv_req_id);
	rxb_gen_kv_key(pi->kv_key, key);
	if (val_len > 0)
		rxb_gen_kv_value(pi->kv_key, pi->kv_req_id, key + RXB_KV_KEY_LEN, val_len);
	return RXB_KV_MSG_LEN(val_len);
}

/* The partition that serves key index k (it picks the UDP port, and so the
 * queue RSS steers the request to: known before the packet is written). */
static uint32_t kv_partition_of(uint64_t k, uint32_t n_partitions)
{
	uint8_t key[RXB_KV_KEY_LEN];

	rxb_gen_kv_key(k, key);
	return rxb_kv_partition(key, n_partitions);
}

/* What the next packet is (flow, KV request, length): every draw from the
 * pattern's random stream, in the order that fixes the stream's shape. */
static void draw_packet(struct rxb_gen *g, struct rxb_gen_pkt_info *pi)
{
	const struct rxb_gen_cfg *c = &g->cfg;

	memset(pi, 0, sizeof(*pi));
	pi->flow = pick_flow(g, &pi->target);
	if (c->kv.enabled) {
		pi->kv_op = sim_rng_uniform(&g->rng) < c->kv.get_ratio ? RXB_KV_GET : RXB_KV_PUT;
		pi->kv_key = sim_zipf_draw(&g->key_zipf, &g->rng) - 1;
		pi->kv_req_id = g->req_id++;
		pi->kv_partition = kv_partition_of(pi->kv_key, c->kv.n_partitions);
		pi->len = kv_frame(pi->kv_op == RXB_KV_PUT ? c->kv.val_len : 0);
	} else {
		pi->len = pick_size(g, pi->target);
	}
	if (c->burst_pkts > 0 && ++g->burst_pos == c->burst_pkts)
		g->burst_pos = 0;
	/* numbered as sent: one the NIC then drops leaves its gap */
	pi->ip_id = (uint16_t)g->seq++;
	if (c->proto == IPPROTO_TCP) {
		pi->tcp_seq = g->tcp_seq[pi->flow];
		g->tcp_seq[pi->flow] += pi->len - sizeof(struct rte_ether_hdr) -
					sizeof(struct rte_ipv4_hdr) - sizeof(struct rte_tcp_hdr);
	}
}

/* The mbuf's metadata (its first line: rxb_mbuf_rx_reset), the Ethernet
 * and the IPv4 header of a len-byte frame of flow f; returns the IPv4
 * header. */
static struct rte_ipv4_hdr *fill_l2_l3(const struct rxb_gen *g, struct rte_mbuf *m,
				       const struct rxb_gen_pkt_info *pi)
{
	const struct rxb_gen_cfg *c = &g->cfg;
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	const struct rxb_gen_flow *f = &g->flows[pi->flow];
	uint16_t len = pi->len, ip_len = (uint16_t)(len - sizeof(*eth));
	uint16_t ttl_proto = (uint16_t)(GEN_TTL << 8 | c->proto);

	rxb_mbuf_rx_reset(m);
	m->data_len = len;
	m->pkt_len = len;
	m->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 |
			 (c->proto == IPPROTO_TCP ? RTE_PTYPE_L4_TCP : RTE_PTYPE_L4_UDP);

	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	rte_ether_addr_copy(&c->dst_mac, &eth->dst_addr);
	rte_ether_addr_copy(&c->src_mac, &eth->src_addr);
	eth->ether_type = be16(RTE_ETHER_TYPE_IPV4);

	ip = (struct rte_ipv4_hdr *)(eth + 1);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->type_of_service = 0;
	ip->total_length = be16(ip_len);
	ip->packet_id = be16(pi->ip_id);
	ip->fragment_offset = 0;
	ip->time_to_live = GEN_TTL;
	ip->next_proto_id = c->proto;
	ip->src_addr = be32(f->src_ip);
	ip->dst_addr = be32(f->dst_ip);
	/* the header's words, fragment_offset and the checksum itself 0 */
	ip->hdr_checksum = (uint16_t)~csum_fold(
		csum_be16(RTE_IPV4_VHL_DEF << 8) + csum_be16(ip_len) + csum_be16(pi->ip_id) +
		csum_be16(ttl_proto) + csum_be32(f->src_ip) + csum_be32(f->dst_ip));
	return ip;
}

/* A TCP segment of the flow's stream: its sequence number (drawn) advances by the
 * payload, so a receiver sees one in-order stream per flow. Returns the sum
 * of the header's words. */
static uint64_t fill_tcp(const struct rxb_gen *g, struct rte_tcp_hdr *tcp,
			 const struct rxb_gen_pkt_info *pi)
{
	const struct rxb_gen_flow *f = &g->flows[pi->flow];
	const uint8_t off = (sizeof(*tcp) / 4) << 4, flags = RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG;
	const uint16_t win = 65535;

	tcp->src_port = be16(f->src_port);
	tcp->dst_port = be16(f->dst_port);
	tcp->sent_seq = be32(pi->tcp_seq);
	tcp->recv_ack = 0;
	tcp->data_off = off;
	tcp->tcp_flags = flags;
	tcp->rx_win = be16(win);
	tcp->cksum = 0;
	tcp->tcp_urp = 0;
	return csum_be16(f->src_port) + csum_be16(f->dst_port) + csum_be32(pi->tcp_seq) +
	       csum_be16((uint16_t)(off << 8 | flags)) + csum_be16(win);
}

/* A UDP datagram, carrying the KV request when KV is on; returns the sum of
 * the header's words and of the KV request's. */
static uint64_t fill_udp(const struct rxb_gen *g, struct rte_udp_hdr *udp, uint32_t payload_len,
			 const struct rxb_gen_pkt_info *pi)
{
	const struct rxb_gen_flow *f = &g->flows[pi->flow];
	uint8_t *payload = (uint8_t *)(udp + 1);
	uint16_t dgram_len = (uint16_t)(sizeof(*udp) + payload_len), dport = f->dst_port;
	uint64_t sum = 0;

	if (g->cfg.kv.enabled) {
		uint32_t written = fill_kv(g, payload, pi);

		/* the request's bytes, mostly bulk copies (key, value):
		 * read back */
		sum = rte_raw_cksum(payload + RXB_KV_OFF, written - RXB_KV_OFF);
		/* MICA steers by destination port: one port per partition. */
		dport = (uint16_t)(RXB_KV_UDP_PORT + pi->kv_partition);
	}
	udp->src_port = be16(f->src_port);
	udp->dst_port = be16(dport);
	udp->dgram_len = be16(dgram_len);
	udp->dgram_cksum = 0;
	return sum + csum_be16(f->src_port) + csum_be16(dport) + csum_be16(dgram_len);
}

static void write_packet(const struct rxb_gen *g, struct rte_mbuf *m, uint64_t tsc,
			 const struct rxb_gen_pkt_info *pi)
{
	const struct rxb_gen_cfg *c = &g->cfg;
	const struct rxb_gen_flow *f = &g->flows[pi->flow];
	uint16_t l4h = l4_hdr_len(c->proto), ck, l4_len;
	struct rte_ipv4_hdr *ip;
	uint32_t payload_len;
	uint8_t *l4, *payload;
	uint64_t sum;

	ip = fill_l2_l3(g, m, pi);
	l4 = (uint8_t *)(ip + 1);
	payload = l4 + l4h;
	l4_len = (uint16_t)(pi->len - sizeof(struct rte_ether_hdr) - sizeof(*ip));
	payload_len = l4_len - l4h;
	/* zero-filled: what is not written below adds nothing to the sum */
	memset(payload, 0, payload_len);
	sum = csum_pseudo(f, c->proto, l4_len) +
	      (c->proto == IPPROTO_TCP ? fill_tcp(g, (struct rte_tcp_hdr *)l4, pi)
				       : fill_udp(g, (struct rte_udp_hdr *)l4, payload_len, pi));
	if (c->stamp) {
		uint64_t le = rte_cpu_to_le_64(tsc);

		memcpy(payload + RXB_STAMP_OFF, &le, RXB_STAMP_LEN);
		/* its four 16-bit words, two at a time (RXB_STAMP_OFF is even) */
		sum += (le & 0xffffffffu) + (le >> 32);
	}
	ck = l4_csum(sum, c->proto);
	if (c->proto == IPPROTO_TCP)
		((struct rte_tcp_hdr *)l4)->cksum = ck;
	else
		((struct rte_udp_hdr *)l4)->dgram_cksum = ck;
}

/* Can m hold any frame of the pattern (room after rxb_mbuf_rx_reset())?
 * Not whether m has a next segment: it was allocated, and a mempool holds
 * no chained mbuf (DPDK's rule for a free one); reading m->next would take
 * the mbuf's second line from the worker that freed it, as a store there
 * would (emu/mbuf_rx.h). */
static bool fits(const struct rxb_gen *g, const struct rte_mbuf *m)
{
	uint32_t room = m->buf_len - RTE_MIN((uint32_t)RTE_PKTMBUF_HEADROOM, m->buf_len);

	return room >= g->max_frame;
}

void rxb_gen_draw(struct rxb_gen *g, struct rxb_gen_pkt_info *info, unsigned n)
{
	uint64_t bytes = 0;

	for (unsigned i = 0; i < n; i++) {
		draw_packet(g, &info[i]);
		bytes += info[i].len;
	}
	rxb_counter_add(&g->stats.packets, n);
	rxb_counter_add(&g->stats.bytes, bytes);
}

bool rxb_gen_write(const struct rxb_gen *g, struct rte_mbuf *m, uint64_t tsc,
		   const struct rxb_gen_pkt_info *pi)
{
	if (!fits(g, m))
		return false;
	write_packet(g, m, tsc, pi);
	return true;
}

unsigned rxb_gen_fill(struct rxb_gen *g, struct rte_mbuf **pkts, unsigned n, uint64_t tsc,
		      struct rxb_gen_pkt_info *info)
{
	struct rxb_gen_pkt_info scratch;
	unsigned i;

	for (i = 0; i < n; i++) {
		struct rxb_gen_pkt_info *pi = info != NULL ? &info[i] : &scratch;

		/* checked before drawing, so a refused mbuf leaves the pattern
		 * where it was */
		if (!fits(g, pkts[i]))
			break;
		rxb_gen_draw(g, pi, 1);
		write_packet(g, pkts[i], tsc, pi);
	}
	return i;
}

/* ---- pacing ---------------------------------------------------------------- */

unsigned rxb_gen_due(struct rxb_gen *g, uint64_t now, unsigned max)
{
	const struct rxb_gen_cfg *c = &g->cfg;
	unsigned granted = 0;

	if (g->period == 0 && c->burst_pkts == 0)
		return max;
	if (!g->started) {
		g->started = true;
		g->base = now;
	}
	while (granted < max) {
		if (g->base + (uint64_t)((double)g->k * g->period) > now)
			break;
		granted++;
		g->k++;
		if (c->burst_pkts > 0 && ++g->pace_pos == c->burst_pkts) {
			/* Off-period: from the end of the last slot (paced),
			 * or from now (unpaced: the burst went out now). */
			uint64_t end = g->period > 0
					       ? g->base + (uint64_t)((double)g->k * g->period)
					       : now;

			g->base = end + g->gap;
			g->k = 0;
			g->pace_pos = 0;
		}
	}
	if (granted == max && g->period > 0) {
		uint64_t next = g->base + (uint64_t)((double)g->k * g->period);

		if (now > next) {
			/* Slots already due beyond this call: the backlog. */
			uint64_t backlog = (uint64_t)((double)(now - next) / g->period) + 1;

			if (backlog > c->pace_slack) {
				rxb_counter_add(&g->stats.late, backlog);
				rxb_counter_add(&g->stats.stalls, 1);
				g->base = now;
				g->k = 0;
			}
		}
	}
	return granted;
}

unsigned rxb_gen_burst(struct rxb_gen *g, struct rte_mempool *mp, struct rte_mbuf **pkts,
		       unsigned max, uint64_t now, struct rxb_gen_pkt_info *info)
{
	unsigned n = rxb_gen_due(g, now, max), filled;

	if (n == 0)
		return 0;
	if (rte_pktmbuf_alloc_bulk(mp, pkts, n) != 0) {
		rxb_counter_add(&g->stats.nombuf, n);
		return 0;
	}
	filled = rxb_gen_fill(g, pkts, n, now, info);
	if (filled < n)
		rte_pktmbuf_free_bulk(pkts + filled, n - filled);
	return filled;
}
