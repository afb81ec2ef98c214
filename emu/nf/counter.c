/* SPDX-License-Identifier: BSD-3-Clause
 * Atomic counter: per packet, add one to the counter a hash of the flow
 * picks from a small array (rxb_nf_counter_slot) and write the new value
 * into the payload at RXB_COUNTER_OFF (big-endian), keeping the L4 checksum
 * valid. The array is plain contiguous uint64_t, as a real program's would
 * be: when instances share it (cfg.counter.shared), cores contend for its
 * cache lines, which is the point of the workload.
 */
#include <errno.h>

#include <rte_malloc.h>

#include "nf_impl.h"
#include "rng.h"

struct counter {
	struct rxb_nf base;
	_Atomic uint64_t *arr;
	bool own;
	uint32_t n;
};

uint32_t rxb_nf_counter_slot(const struct rxb_pkt_view *v, uint32_t n)
{
	/* UDP and TCP put their ports first: the UDP header's view reads both */
	const struct rte_udp_hdr *l4 = v->l4;
	uint64_t addrs = (uint64_t)v->ip->src_addr << 32 | v->ip->dst_addr;
	uint64_t ports = (uint64_t)l4->src_port << 16 | l4->dst_port;

	return (uint32_t)(sim_mix64(addrs ^ sim_mix64(ports)) % n);
}

static void counter_chunk(struct rxb_nf *nf, struct rte_mbuf **pkts, unsigned n, uint8_t *verdict,
			  struct rxb_nf_tally *t)
{
	struct counter *c = (struct counter *)nf;
	bool incr = rxb_nf_incremental(nf);

	(void)t; /* counting touches no flow table: nothing to tally */

	for (unsigned i = 0; i < n; i++) {
		struct rxb_pkt_view v;
		uint32_t which;
		uint64_t val;

		verdict[i] = rxb_nf_parse(nf, pkts[i], &v, true);
		if (verdict[i] != RXB_NF_KEEP)
			continue;
		if (v.payload_len < RXB_COUNTER_OFF + RXB_COUNTER_LEN) {
			verdict[i] = RXB_NF_VERDICT(RXB_NF_DROP_REQUEST);
			continue;
		}
		which = rxb_nf_counter_slot(&v, c->n);
		/* Relaxed: the counter is the only shared datum and a
		 * read-modify-write on one location is atomic in any order,
		 * so every packet gets a distinct value. Nothing else is
		 * published through it. */
		val = atomic_fetch_add_explicit(&c->arr[which], 1, memory_order_relaxed) + 1;
		val = rte_cpu_to_be_64(val);
		rxb_pkt_rewrite(&v, v.payload + RXB_COUNTER_OFF, &val, RXB_COUNTER_LEN, incr);
		rxb_nf_finish(nf, &v);
	}
}

static uint16_t counter_process(struct rxb_nf *nf, struct rte_mbuf **pkts, uint16_t n)
{
	return rxb_nf_run(nf, pkts, n, counter_chunk);
}

static void counter_destroy(struct rxb_nf *nf)
{
	struct counter *c = (struct counter *)nf;

	if (c->own)
		rte_free((void *)c->arr);
	rte_free(c);
}

static int counter_init(const struct rxb_nf_cfg *cfg, int socket, struct rxb_nf **out,
			struct rxb_err *err)
{
	struct counter *c;

	if (cfg->counter.n_counters == 0 || cfg->counter.n_counters > 65536) {
		rxb_err_set(err, "counter.n_counters = %u: must be in [1, 65536]",
			    cfg->counter.n_counters);
		return -EINVAL;
	}
	c = rxb_nf_alloc(&rxb_nf_counter_ops, sizeof(*c), cfg, socket);
	if (c == NULL) {
		rxb_err_set(err, "counter: out of DPDK memory for the instance");
		return -ENOMEM;
	}
	c->n = cfg->counter.n_counters;
	c->arr = cfg->counter.shared;
	if (c->arr == NULL) {
		c->own = true;
		c->arr = rte_zmalloc_socket("rxb_counters", c->n * sizeof(*c->arr),
					    RTE_CACHE_LINE_SIZE, socket);
		if (c->arr == NULL) {
			rxb_err_set(err, "counter.n_counters = %u: out of DPDK memory", c->n);
			rte_free(c);
			return -ENOMEM;
		}
	}
	*out = &c->base;
	return 0;
}

const struct rxb_nf_ops rxb_nf_counter_ops = {
	.name = "counter",
	.summary = "atomic add on a counter picked by the L4 source port, value into the payload",
	.init = counter_init,
	.process = counter_process,
	.destroy = counter_destroy,
};
