/* SPDX-License-Identifier: BSD-3-Clause
 * Registry, configuration defaults, and what the NFs share on the control
 * path (instance allocation, unique names, the route table). */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "nf_impl.h"

const char *const rxb_nf_drop_name[RXB_NF_DROP_CAUSES] = {
	[RXB_NF_DROP_PARSE] = "parse",     [RXB_NF_DROP_CSUM] = "csum",
	[RXB_NF_DROP_TTL] = "ttl",         [RXB_NF_DROP_NO_ROUTE] = "no_route",
	[RXB_NF_DROP_NO_FLOW] = "no_flow", [RXB_NF_DROP_FULL] = "full",
	[RXB_NF_DROP_REQUEST] = "request", [RXB_NF_DROP_PARTITION] = "partition",
};

const struct rxb_nf_ops *const rxb_nf_registry[] = {
	&rxb_nf_l3fwd_ops, &rxb_nf_nat_ops,     &rxb_nf_lb_ops, &rxb_nf_synthetic_ops,
	&rxb_nf_kvs_ops,   &rxb_nf_counter_ops, NULL,
};

const struct rxb_nf_ops *rxb_nf_find(const char *name)
{
	for (const struct rxb_nf_ops *const *o = rxb_nf_registry; *o != NULL; o++)
		if (strcmp((*o)->name, name) == 0)
			return *o;
	return NULL;
}

void rxb_nf_cfg_defaults(struct rxb_nf_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->seed = 1;
	cfg->n_ports = 2;
	cfg->nat.capacity = 65536;
	cfg->nat.port_min = 1024;
	cfg->nat.port_max = 65535;
	cfg->lb.capacity = 65536;
	cfg->lb.n_backends = 32;
	cfg->synth.buf_bytes = 1u << 20;
	cfg->synth.reads = 2;
	cfg->kvs.capacity = 65536;
	cfg->kvs.partition = UINT32_MAX; /* = instance */
	cfg->kvs.n_partitions = 1;
	cfg->counter.n_counters = 16;
}

int rxb_nf_create(const char *name, const struct rxb_nf_cfg *cfg, int socket, struct rxb_nf **out,
		  struct rxb_err *err)
{
	const struct rxb_nf_ops *ops = rxb_nf_find(name);
	char names[128] = "";

	*out = NULL;
	if (ops == NULL) {
		for (const struct rxb_nf_ops *const *o = rxb_nf_registry; *o != NULL; o++) {
			strncat(names, (*o)->name, sizeof(names) - strlen(names) - 1);
			if (o[1] != NULL)
				strncat(names, ", ", sizeof(names) - strlen(names) - 1);
		}
		rxb_err_set(err, "nf = \"%s\": unknown network function (known: %s)", name, names);
		return -ENOENT;
	}
	if (cfg->l4_csum != RXB_NF_CSUM_INCREMENTAL && cfg->l4_csum != RXB_NF_CSUM_FULL) {
		rxb_err_set(err, "l4_csum = %d: must be incremental (0) or full (1)",
			    (int)cfg->l4_csum);
		return -EINVAL;
	}
	return ops->init(cfg, socket, out, err);
}

void rxb_nf_destroy(struct rxb_nf *nf)
{
	if (nf != NULL)
		nf->ops->destroy(nf);
}

void *rxb_nf_alloc(const struct rxb_nf_ops *ops, size_t size, const struct rxb_nf_cfg *cfg,
		   int socket)
{
	struct rxb_nf *nf = rte_zmalloc_socket(ops->name, size, RTE_CACHE_LINE_SIZE, socket);

	if (nf == NULL)
		return NULL;
	nf->ops = ops;
	nf->instance = cfg->instance;
	nf->l4_csum = cfg->l4_csum;
	nf->verify_csum = cfg->verify_csum;
	return nf;
}

void rxb_nf_unique_name(char *buf, size_t len, const char *what)
{
	/* Relaxed: only uniqueness matters, no data is published with it. */
	static atomic_uint seq;
	unsigned id = atomic_fetch_add_explicit(&seq, 1, memory_order_relaxed);

	snprintf(buf, len, "rxb_%s_%u", what, id);
}

/* ---- flow tables --------------------------------------------------------- */

void rxb_nf_flow_lookup(struct rxb_nf *nf, struct rte_hash *h, struct rte_mbuf **pkts, unsigned n,
			uint8_t *verdict, struct rxb_nf_flow_chunk *fc, struct rxb_nf_tally *t)
{
	const void *kp[RXB_NF_CHUNK];
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++) {
		verdict[i] = rxb_nf_parse(nf, pkts[i], &fc->v[i], true);
		if (verdict[i] != RXB_NF_KEEP)
			continue;
		rxb_nf_flow_key_of(&fc->keys[k], &fc->v[i]);
		kp[k] = &fc->keys[k];
		fc->idx[k++] = (uint8_t)i;
	}
	fc->k = k;
	fc->hits = 0;
	fc->inserted = false;
	if (k > 0)
		rte_hash_lookup_bulk_data(h, kp, k, &fc->hits, fc->data);
	t->lookups += k;
}

void rxb_nf_hash_params(struct rte_hash_parameters *hp, char *name, const char *what,
			uint32_t entries, uint32_t key_len, int socket)
{
	memset(hp, 0, sizeof(*hp));
	rxb_nf_unique_name(name, RTE_HASH_NAMESIZE, what);
	hp->name = name;
	hp->entries = entries;
	hp->key_len = key_len;
	hp->hash_func = rxb_hash_crc;
	hp->socket_id = socket;
	hp->extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE;
}

/* ---- routes ---------------------------------------------------------------- */

static void default_hop(struct rxb_nf_hop *h, uint32_t i, uint16_t n_ports)
{
	memset(h, 0, sizeof(*h));
	h->port = (uint16_t)(i % n_ports);
	h->src_mac.addr_bytes[0] = 0x02; /* locally administered, unicast */
	h->src_mac.addr_bytes[5] = (uint8_t)i;
	h->dst_mac.addr_bytes[0] = 0x02;
	h->dst_mac.addr_bytes[4] = 0x01;
	h->dst_mac.addr_bytes[5] = (uint8_t)i;
}

static int add_route(struct rte_lpm *lpm, const struct rxb_nf_route *r, uint32_t idx,
		     uint32_t n_hops, struct rxb_err *err)
{
	int rc;

	if (r->depth < 1 || r->depth > 32) {
		rxb_err_set(err, "routes[%u].depth = %u: must be in [1, 32]", idx, r->depth);
		return -EINVAL;
	}
	if (r->hop >= n_hops) {
		rxb_err_set(err, "routes[%u].hop = %u: must be below the number of hops (%u)", idx,
			    r->hop, n_hops);
		return -EINVAL;
	}
	rc = rte_lpm_add(lpm, r->prefix, r->depth, r->hop);
	if (rc < 0) {
		rxb_err_set(err, "routes[%u] = %u.%u.%u.%u/%u: rte_lpm_add failed: %s", idx,
			    r->prefix >> 24, (r->prefix >> 16) & 0xff, (r->prefix >> 8) & 0xff,
			    r->prefix & 0xff, r->depth, rte_strerror(-rc));
		return rc;
	}
	return 0;
}

static uint32_t hop_count(const struct rxb_nf_cfg *cfg)
{
	return cfg->hops != NULL ? cfg->n_hops : cfg->n_ports;
}

static int check_hops(const struct rxb_nf_cfg *cfg, struct rxb_err *err)
{
	if (cfg->hops != NULL && (cfg->n_hops == 0 || cfg->n_hops > RXB_NF_MAX_HOPS)) {
		rxb_err_set(err, "n_hops = %u: must be in [1, %u]", cfg->n_hops, RXB_NF_MAX_HOPS);
		return -EINVAL;
	}
	if (cfg->hops == NULL && (cfg->n_ports == 0 || cfg->n_ports > RXB_NF_MAX_HOPS)) {
		rxb_err_set(err, "n_ports = %u: must be in [1, %u] (default hops: one per port)",
			    cfg->n_ports, RXB_NF_MAX_HOPS);
		return -EINVAL;
	}
	return 0;
}

/* The default table's routes beyond drawn flows' 198.19.0.0/16: the
 * generator ranges' destinations (util/flow.h: from 48.1.1.1, up to 2^30
 * addresses, so within 32.0.0.0 - 127.255.255.255), whose packets l3fwd
 * and synthetic otherwise dropped as unrouted, every one. */
static const struct rxb_nf_route gen_routes[] = {
	{ .prefix = RXB_IPV4(32, 0, 0, 0), .depth = 3 },
	{ .prefix = RXB_IPV4(64, 0, 0, 0), .depth = 2 },
};

int rxb_nf_lpm_create(const struct rxb_nf_cfg *cfg, int socket, struct rte_lpm **out,
		      struct rxb_err *err)
{
	struct rte_lpm_config lc = { 0 };
	uint32_t n_hops, n_routes = cfg->routes != NULL ? cfg->n_routes : RTE_DIM(gen_routes) + 256;
	uint32_t deep = 0;
	char name[RTE_LPM_NAMESIZE];
	struct rte_lpm *lpm;
	int rc;

	*out = NULL;
	rc = check_hops(cfg, err);
	if (rc < 0)
		return rc;
	n_hops = hop_count(cfg);
	if (cfg->routes != NULL && cfg->n_routes == 0) {
		rxb_err_set(err, "n_routes = 0: give at least one route, or routes = NULL for the "
				 "default table");
		return -EINVAL;
	}
	for (uint32_t i = 0; cfg->routes != NULL && i < n_routes; i++)
		deep += cfg->routes[i].depth > 24;
	lc.max_rules = n_routes;
	/* One tbl8 group per route longer than /24 is the worst case. */
	lc.number_tbl8s = RTE_MAX(deep, 16u);
	rxb_nf_unique_name(name, sizeof(name), "lpm");
	lpm = rte_lpm_create(name, socket, &lc);
	if (lpm == NULL) {
		rxb_err_set(err,
			    "routes: rte_lpm_create(%u rules) failed: %s (the table needs "
			    "~64 MiB: is the EAL's -m large enough?)",
			    n_routes, rte_strerror(rte_errno));
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n_routes; i++) {
		struct rxb_nf_route def = {
			.prefix = RXB_IPV4(198, 19, i, 0),
			.depth = 24,
			.hop = i % n_hops,
		};

		if (cfg->routes == NULL && i >= 256) {
			def.prefix = gen_routes[i - 256].prefix;
			def.depth = gen_routes[i - 256].depth;
		}
		rc = add_route(lpm, cfg->routes != NULL ? &cfg->routes[i] : &def, i, n_hops, err);
		if (rc < 0) {
			rte_lpm_free(lpm);
			return rc;
		}
	}
	*out = lpm;
	return 0;
}

int rxb_nf_router_init(struct rxb_nf_router *r, const struct rxb_nf_cfg *cfg, int socket,
		       struct rxb_err *err)
{
	int rc = check_hops(cfg, err);

	if (rc < 0)
		return rc;
	r->n_hops = hop_count(cfg);
	for (uint32_t i = 0; i < r->n_hops; i++) {
		if (cfg->hops != NULL)
			r->hops[i] = cfg->hops[i];
		else
			default_hop(&r->hops[i], i, cfg->n_ports);
	}
	if (cfg->lpm != NULL) {
		r->lpm = cfg->lpm;
		r->own_lpm = false;
		return 0;
	}
	r->own_lpm = true;
	return rxb_nf_lpm_create(cfg, socket, &r->lpm, err);
}

void rxb_nf_router_fini(struct rxb_nf_router *r)
{
	if (r->own_lpm)
		rte_lpm_free(r->lpm);
	r->lpm = NULL;
}
