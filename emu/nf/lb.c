/* SPDX-License-Identifier: BSD-3-Clause
 * LB: a layer-4 load balancer. Each new flow (5-tuple) is assigned to the
 * next backend round-robin and remembered with one hash entry; every packet
 * of the flow gets the backend's address and MAC as destination. Like the
 * NAT, flows are not expired and new flows beyond capacity are dropped
 * ("full"): silently balancing them without memory would break the
 * stickiness the workload is about. As FastClick's FlowIPLoadBalancer with
 * track_load (docs/workloads.md), every packet adds to its backend's load,
 * two atomic adds on a line the port's cores share, and each instance's
 * round-robin starts at its own backend.
 */
#include <errno.h>

#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_malloc.h>

#include "nf_impl.h"

struct lb {
	struct rxb_nf base;
	struct rte_hash *h;
	uint32_t n_backends;
	uint32_t next; /* round-robin cursor */
	uint32_t capacity;
	uint32_t n_flows;
	struct rxb_nf_lb_load *load; /* n_backends, shared or this instance's */
	bool own_load;
	rte_be32_t ip[RXB_NF_LB_MAX_BACKENDS];
	struct rte_ether_addr mac[RXB_NF_LB_MAX_BACKENDS];
};

static void lb_chunk(struct rxb_nf *nf, struct rte_mbuf **pkts, unsigned n, uint8_t *verdict,
		     struct rxb_nf_tally *t)
{
	struct lb *lb = (struct lb *)nf;
	struct rxb_nf_flow_chunk fc;
	bool incr = rxb_nf_incremental(nf);

	rxb_nf_flow_lookup(nf, lb->h, pkts, n, verdict, &fc, t);
	for (unsigned j = 0; j < fc.k; j++) {
		struct rxb_pkt_view *pv = &fc.v[fc.idx[j]];
		uint32_t b = lb->next;

		if (rxb_nf_flow_hit(lb->h, &fc, j, t)) {
			b = (uint32_t)(uintptr_t)fc.data[j];
		} else {
			t->misses++;
			if (lb->n_flows >= lb->capacity ||
			    rte_hash_add_key_data(lb->h, &fc.keys[j], (void *)(uintptr_t)b) < 0) {
				verdict[fc.idx[j]] = RXB_NF_VERDICT(RXB_NF_DROP_FULL);
				continue;
			}
			lb->next = b + 1 == lb->n_backends ? 0 : b + 1;
			lb->n_flows++;
			t->inserts++;
			fc.inserted = true;
		}
		/* Relaxed: the loads are statistics nothing is published
		 * through; the adds are what costs (a line other cores write) */
		atomic_fetch_add_explicit(&lb->load[b].packets, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&lb->load[b].bytes, rte_pktmbuf_pkt_len(pkts[fc.idx[j]]),
					  memory_order_relaxed);
		rxb_pkt_rewrite(pv, &pv->ip->dst_addr, &lb->ip[b], 4, incr);
		rte_ether_addr_copy(&lb->mac[b], &pv->eth->dst_addr);
		rxb_nf_finish(nf, pv);
	}
}

static uint16_t lb_process(struct rxb_nf *nf, struct rte_mbuf **pkts, uint16_t n)
{
	return rxb_nf_run(nf, pkts, n, lb_chunk);
}

static void lb_destroy(struct rxb_nf *nf)
{
	struct lb *lb = (struct lb *)nf;

	rte_hash_free(lb->h);
	if (lb->own_load)
		rte_free(lb->load);
	rte_free(lb);
}

static int lb_init(const struct rxb_nf_cfg *cfg, int socket, struct rxb_nf **out,
		   struct rxb_err *err)
{
	struct rte_hash_parameters hp;
	char name[RTE_HASH_NAMESIZE];
	struct lb *lb;

	if (cfg->lb.n_backends == 0 || cfg->lb.n_backends > RXB_NF_LB_MAX_BACKENDS) {
		rxb_err_set(err, "lb.n_backends = %u: must be in [1, %u]", cfg->lb.n_backends,
			    RXB_NF_LB_MAX_BACKENDS);
		return -EINVAL;
	}
	if (cfg->lb.capacity == 0 || cfg->lb.capacity > RXB_NF_MAX_FLOWS) {
		rxb_err_set(err, "lb.capacity = %u: must be in [1, %u] flows", cfg->lb.capacity,
			    RXB_NF_MAX_FLOWS);
		return -EINVAL;
	}
	lb = rxb_nf_alloc(&rxb_nf_lb_ops, sizeof(*lb), cfg, socket);
	if (lb == NULL) {
		rxb_err_set(err, "lb: out of DPDK memory for the instance");
		return -ENOMEM;
	}
	lb->n_backends = cfg->lb.n_backends;
	lb->capacity = cfg->lb.capacity;
	lb->next = cfg->lb.first_backend % lb->n_backends;
	lb->load = cfg->lb.load;
	lb->own_load = lb->load == NULL;
	if (lb->own_load)
		lb->load = rte_zmalloc_socket("lb_load", sizeof(*lb->load) * lb->n_backends,
					      RTE_CACHE_LINE_SIZE, socket);
	if (lb->load == NULL) {
		rxb_err_set(err, "lb: out of DPDK memory for the backends' loads");
		rte_free(lb);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < lb->n_backends; i++) {
		uint32_t ip = cfg->lb.backend_ips ? cfg->lb.backend_ips[i]
						  : RXB_IPV4(10, 10, 0, 1) + i;

		lb->ip[i] = rte_cpu_to_be_32(ip);
		if (cfg->lb.backend_macs != NULL) {
			lb->mac[i] = cfg->lb.backend_macs[i];
		} else {
			lb->mac[i].addr_bytes[0] = 0x02;
			lb->mac[i].addr_bytes[4] = 0x02;
			lb->mac[i].addr_bytes[5] = (uint8_t)i;
		}
	}
	rxb_nf_hash_params(&hp, name, "lb", cfg->lb.capacity, sizeof(struct rxb_nf_flow_key),
			   socket);
	lb->h = rte_hash_create(&hp);
	if (lb->h == NULL) {
		rxb_err_set(err, "lb.capacity = %u: rte_hash_create failed: %s", cfg->lb.capacity,
			    rte_strerror(rte_errno));
		if (lb->own_load)
			rte_free(lb->load);
		rte_free(lb);
		return -ENOMEM;
	}
	*out = &lb->base;
	return 0;
}

const struct rxb_nf_ops rxb_nf_lb_ops = {
	.name = "lb",
	.summary = "L4 load balancer: new flows round-robin over backends, sticky",
	.init = lb_init,
	.process = lb_process,
	.destroy = lb_destroy,
};
