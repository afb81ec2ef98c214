/* SPDX-License-Identifier: BSD-3-Clause
 * NAT (network address and port translation), one instance per core.
 *
 * A packet is inbound when its destination is one of this instance's public
 * addresses, outbound otherwise. Every flow has two entries in the
 * instance's rte_hash, each keyed by the 5-tuple as packets of that
 * direction carry it:
 *   outbound (priv_ip, remote_ip, priv_port, remote_port, proto) -> flow index
 *   inbound  (remote_ip, pub_ip, remote_port, pub_port, proto)   -> priv ip:port
 * so one bulk lookup serves a mixed burst. The flow index alone determines
 * the public (ip, port) (index / ports-per-ip, index % ports-per-ip), so
 * there is no flow array to read and nothing to free: flows are never
 * expired (an emulation run is bounded; capacity is sized for it), and once
 * capacity is reached new flows are dropped (drop "full").
 */
#include <errno.h>

#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_malloc.h>

#include "nf_impl.h"

#define NAT_DEFAULT_PUBLIC           RXB_IPV4(100, 64, 0, 0) /* RFC 6598 shared space */
#define NAT_DEFAULT_IPS_PER_INSTANCE 256u

struct nat {
	struct rxb_nf base;
	struct rte_hash *h;
	uint32_t pub_first; /* host order */
	uint32_t n_pub;
	uint16_t port_min;
	uint32_t n_port;   /* ports per public address */
	uint32_t capacity; /* flows */
	uint32_t n_flows;
};

static inline bool is_inbound(const struct nat *t, const struct rxb_pkt_view *v)
{
	return rte_be_to_cpu_32(v->ip->dst_addr) - t->pub_first < t->n_pub;
}

/* Inbound entry data: the private address and port, packed. */
static inline void *priv_pack(rte_be32_t ip, rte_be16_t port)
{
	return (void *)(uintptr_t)(((uint64_t)ip << 16) | port);
}

static inline void priv_unpack(const void *d, rte_be32_t *ip, rte_be16_t *port)
{
	uint64_t x = (uintptr_t)d;

	*ip = (rte_be32_t)(x >> 16);
	*port = (rte_be16_t)x;
}

static inline void pub_of(const struct nat *t, uint32_t idx, rte_be32_t *ip, rte_be16_t *port)
{
	*ip = rte_cpu_to_be_32(t->pub_first + idx / t->n_port);
	*port = rte_cpu_to_be_16((uint16_t)(t->port_min + idx % t->n_port));
}

/* A new outbound flow: allocate the next public pair, add both entries.
 * Returns the flow index, or -1 with nothing added when full. */
static int64_t nat_new_flow(struct nat *t, const struct rxb_nf_flow_key *out_key)
{
	struct rxb_nf_flow_key in_key = { 0 };
	uint32_t idx = t->n_flows;

	if (idx >= t->capacity)
		return -1;
	in_key.src_ip = out_key->dst_ip;
	in_key.src_port = out_key->dst_port;
	pub_of(t, idx, &in_key.dst_ip, &in_key.dst_port);
	in_key.proto = out_key->proto;
	if (rte_hash_add_key_data(t->h, out_key, (void *)(uintptr_t)idx) < 0)
		return -1;
	if (rte_hash_add_key_data(t->h, &in_key, priv_pack(out_key->src_ip, out_key->src_port)) <
	    0) {
		/* Roll back: a flow with one direction would translate one
		 * way and drop the replies. */
		rte_hash_del_key(t->h, out_key);
		return -1;
	}
	t->n_flows++;
	return idx;
}

static void nat_chunk(struct rxb_nf *nf, struct rte_mbuf **pkts, unsigned n, uint8_t *verdict,
		      struct rxb_nf_tally *t)
{
	struct nat *nat = (struct nat *)nf;
	struct rxb_nf_flow_chunk fc;
	bool incr = rxb_nf_incremental(nf);

	rxb_nf_flow_lookup(nf, nat->h, pkts, n, verdict, &fc, t);
	for (unsigned j = 0; j < fc.k; j++) {
		struct rxb_pkt_view *pv = &fc.v[fc.idx[j]];
		struct rte_udp_hdr *l4 = pv->l4; /* ports sit alike in UDP and TCP */
		bool hit = rxb_nf_flow_hit(nat->h, &fc, j, t);
		rte_be32_t ip;
		rte_be16_t port;

		if (is_inbound(nat, pv)) {
			if (!hit) {
				t->misses++;
				verdict[fc.idx[j]] = RXB_NF_VERDICT(RXB_NF_DROP_NO_FLOW);
				continue;
			}
			priv_unpack(fc.data[j], &ip, &port);
			rxb_pkt_rewrite(pv, &pv->ip->dst_addr, &ip, 4, incr);
			rxb_pkt_rewrite(pv, &l4->dst_port, &port, 2, incr);
		} else {
			int64_t flow = (int64_t)(uintptr_t)fc.data[j];

			if (!hit) {
				t->misses++;
				flow = nat_new_flow(nat, &fc.keys[j]);
				if (flow < 0) {
					verdict[fc.idx[j]] = RXB_NF_VERDICT(RXB_NF_DROP_FULL);
					continue;
				}
				t->inserts++;
				fc.inserted = true;
			}
			pub_of(nat, (uint32_t)flow, &ip, &port);
			rxb_pkt_rewrite(pv, &pv->ip->src_addr, &ip, 4, incr);
			rxb_pkt_rewrite(pv, &l4->src_port, &port, 2, incr);
		}
		rxb_nf_finish(nf, pv);
	}
}

static uint16_t nat_process(struct rxb_nf *nf, struct rte_mbuf **pkts, uint16_t n)
{
	return rxb_nf_run(nf, pkts, n, nat_chunk);
}

static void nat_destroy(struct rxb_nf *nf)
{
	struct nat *t = (struct nat *)nf;

	rte_hash_free(t->h);
	rte_free(t);
}

static int nat_check(const struct rxb_nf_cfg *cfg, uint32_t *pub_first, uint32_t *n_pub,
		     struct rxb_err *err)
{
	uint32_t cap = cfg->nat.capacity, n_port;

	if (cap == 0 || cap > RXB_NF_MAX_FLOWS) {
		rxb_err_set(err, "nat.capacity = %u: must be in [1, %u] flows", cap,
			    RXB_NF_MAX_FLOWS);
		return -EINVAL;
	}
	if (cfg->nat.port_min == 0 || cfg->nat.port_min > cfg->nat.port_max) {
		rxb_err_set(err, "nat.port_min..port_max = %u..%u: need 1 <= port_min <= port_max",
			    cfg->nat.port_min, cfg->nat.port_max);
		return -EINVAL;
	}
	n_port = (uint32_t)cfg->nat.port_max - cfg->nat.port_min + 1;
	*n_pub = cfg->nat.n_public_ips ? cfg->nat.n_public_ips : (cap + n_port - 1) / n_port;
	if ((uint64_t)*n_pub * n_port < cap) {
		rxb_err_set(err,
			    "nat.n_public_ips = %u: %u addresses x %u ports hold fewer "
			    "flows than nat.capacity = %u",
			    *n_pub, *n_pub, n_port, cap);
		return -EINVAL;
	}
	if (cfg->nat.public_ip != 0) {
		*pub_first = cfg->nat.public_ip;
		if ((uint64_t)*pub_first + *n_pub > UINT32_MAX + 1ull) {
			rxb_err_set(err,
				    "nat.public_ip + n_public_ips: %u addresses do not fit "
				    "above the first one",
				    *n_pub);
			return -EINVAL;
		}
		return 0;
	}
	/* Default: a /24-sized slice of 100.64.0.0/10 per instance, so
	 * instances never share a public address and a reply can only be
	 * translated by the instance that made the mapping. */
	if (*n_pub > NAT_DEFAULT_IPS_PER_INSTANCE || cfg->instance >= 16384) {
		rxb_err_set(err,
			    "nat.public_ip = 0 (default slice of 100.64.0.0/10) cannot hold "
			    "%u addresses for instance %u: set nat.public_ip",
			    *n_pub, cfg->instance);
		return -EINVAL;
	}
	*pub_first = NAT_DEFAULT_PUBLIC + NAT_DEFAULT_IPS_PER_INSTANCE * cfg->instance;
	return 0;
}

static int nat_init(const struct rxb_nf_cfg *cfg, int socket, struct rxb_nf **out,
		    struct rxb_err *err)
{
	struct rte_hash_parameters hp;
	char name[RTE_HASH_NAMESIZE];
	uint32_t pub_first, n_pub;
	struct nat *t;
	int rc;

	rc = nat_check(cfg, &pub_first, &n_pub, err);
	if (rc < 0)
		return rc;
	t = rxb_nf_alloc(&rxb_nf_nat_ops, sizeof(*t), cfg, socket);
	if (t == NULL) {
		rxb_err_set(err, "nat: out of DPDK memory for the instance");
		return -ENOMEM;
	}
	t->pub_first = pub_first;
	t->n_pub = n_pub;
	t->port_min = cfg->nat.port_min;
	t->n_port = (uint32_t)cfg->nat.port_max - cfg->nat.port_min + 1;
	t->capacity = cfg->nat.capacity;
	rxb_nf_hash_params(&hp, name, "nat", 2 * cfg->nat.capacity, sizeof(struct rxb_nf_flow_key),
			   socket);
	t->h = rte_hash_create(&hp);
	if (t->h == NULL) {
		rxb_err_set(err, "nat.capacity = %u: rte_hash_create(%u entries) failed: %s",
			    cfg->nat.capacity, hp.entries, rte_strerror(rte_errno));
		rte_free(t);
		return -ENOMEM;
	}
	*out = &t->base;
	return 0;
}

const struct rxb_nf_ops rxb_nf_nat_ops = {
	.name = "nat",
	.summary = "source NAT with per-core flow tables, two entries per flow",
	.init = nat_init,
	.process = nat_process,
	.destroy = nat_destroy,
};
