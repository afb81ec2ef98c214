/* SPDX-License-Identifier: BSD-3-Clause
 * l3fwd: DPDK's layer-3 forwarder in miniature. Per packet: LPM lookup of
 * the destination, MACs from the next hop, TTL - 1, IPv4 checksum, out
 * port. The L4 checksum covers none of these fields and is left alone. */
#include <errno.h>

#include <rte_malloc.h>

#include "nf_impl.h"

struct l3fwd {
	struct rxb_nf base;
	struct rxb_nf_router router;
};

static void l3fwd_chunk(struct rxb_nf *nf, struct rte_mbuf **pkts, unsigned n, uint8_t *verdict,
			struct rxb_nf_tally *t)
{
	struct l3fwd *l = (struct l3fwd *)nf;
	struct rxb_pkt_view v[RXB_NF_CHUNK];
	uint32_t hop[RXB_NF_CHUNK];
	uint8_t idx[RXB_NF_CHUNK];
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++) {
		verdict[i] = rxb_nf_parse(nf, pkts[i], &v[i], false);
		if (verdict[i] != RXB_NF_KEEP)
			continue;
		/* RFC 1812: a router does not forward a packet whose TTL
		 * would reach zero. */
		if (v[i].ip->time_to_live <= 1) {
			verdict[i] = RXB_NF_VERDICT(RXB_NF_DROP_TTL);
			continue;
		}
		idx[k++] = (uint8_t)i;
	}
	rxb_nf_route_bulk(&l->router, v, idx, k, hop, verdict, t);
	for (unsigned j = 0; j < k; j++) {
		unsigned i = idx[j];

		if (hop[j] == RXB_NONE)
			continue;
		v[i].ip->time_to_live--;
		rxb_pkt_ip_csum(&v[i]);
		rxb_nf_router_apply(&l->router, hop[j], pkts[i], &v[i]);
	}
}

static uint16_t l3fwd_process(struct rxb_nf *nf, struct rte_mbuf **pkts, uint16_t n)
{
	return rxb_nf_run(nf, pkts, n, l3fwd_chunk);
}

static void l3fwd_destroy(struct rxb_nf *nf)
{
	struct l3fwd *l = (struct l3fwd *)nf;

	rxb_nf_router_fini(&l->router);
	rte_free(l);
}

static int l3fwd_init(const struct rxb_nf_cfg *cfg, int socket, struct rxb_nf **out,
		      struct rxb_err *err)
{
	struct l3fwd *l = rxb_nf_alloc(&rxb_nf_l3fwd_ops, sizeof(*l), cfg, socket);
	int rc;

	if (l == NULL) {
		rxb_err_set(err, "l3fwd: out of DPDK memory for the instance");
		return -ENOMEM;
	}
	rc = rxb_nf_router_init(&l->router, cfg, socket, err);
	if (rc < 0) {
		rte_free(l);
		return rc;
	}
	*out = &l->base;
	return 0;
}

const struct rxb_nf_ops rxb_nf_l3fwd_ops = {
	.name = "l3fwd",
	.summary = "LPM route on dst IPv4, next-hop MACs, TTL-1, out port",
	.init = l3fwd_init,
	.process = l3fwd_process,
	.destroy = l3fwd_destroy,
};
