/* SPDX-License-Identifier: BSD-3-Clause
 *
 * util/flow.h — the flows both engines offer: the 5-tuple of flow `id` of
 * a run's seed at a port. The simulator renders a flow's packets as times,
 * the emulator as bytes; both take the tuple from here, so one seed gives
 * the same 5-tuples, hence the same RSS spread, in either engine.
 *
 * Two flow models:
 *   drawn      flow id's tuple is a hash of (seed, port, id): source address
 *              in src_net/src_depth (default 10.0.0.0/8), destination in
 *              dst_net/dst_depth (default 198.19.0.0/16, the RFC 2544
 *              benchmarking range the emulated NFs route), both ports in
 *              [1024, 65535]. RSS spreads such flows like random traffic.
 *   generator  the study's hardware generator (T-Rex) profile: packet i
 *              carries source RXB_FLOW_GEN_SRC_BASE + i mod gen_src and
 *              destination RXB_FLOW_GEN_DST_BASE + i mod gen_dst, both
 *              incremented in lock step, ports RXB_FLOW_GEN_PORT. A flow is
 *              the address pair, so there are lcm(gen_src, gen_dst) flows
 *              and flow id = i mod lcm; the run meets the generator at a
 *              point of its cycle fixed by the seed (rxb_flows_gen_id).
 *
 * Everything here is a pure function of a struct rxb_flows: no allocation, no
 * state, any number of threads.
 */
#ifndef RXB_UTIL_FLOW_H
#define RXB_UTIL_FLOW_H

#include <stdint.h>

#include "rng.h"
#include "rxb/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A flow's 5-tuple, host byte order. */
struct rxb_flow {
	uint32_t src_ip, dst_ip;
	uint16_t src_port, dst_port;
	uint8_t proto;
};

#define RXB_FLOW_SRC_NET   0x0a000000u /* 10.0.0.0/8 */
#define RXB_FLOW_SRC_DEPTH 8u
#define RXB_FLOW_DST_NET   0xc6130000u /* 198.19.0.0/16 */
#define RXB_FLOW_DST_DEPTH 16u
#define RXB_FLOW_PORT_MIN  1024u /* drawn ports: unprivileged */

/* Generator ranges: first addresses 16.1.1.1 and 48.1.1.1, port 53. */
#define RXB_FLOW_GEN_SRC_BASE 0x10010101u
#define RXB_FLOW_GEN_DST_BASE 0x30010101u
#define RXB_FLOW_GEN_PORT     53u

struct rxb_flows {
	uint64_t key;  /* from the seed and the port */
	uint8_t proto; /* 17 UDP or 6 TCP */
	uint8_t src_depth, dst_depth;
	uint32_t src_net, dst_net; /* drawn flows' address ranges */
	uint32_t gen_src, gen_dst; /* generator ranges; 0: drawn flows */
	uint32_t gen_flows;        /* lcm(gen_src, gen_dst); 0: drawn flows */
	uint32_t gen_start;        /* flow id of the run's first packet */
};

/* Drawn flows of run `seed` at port `port` (two ports of one run carry
 * different flows), default address ranges. */
void rxb_flows_init(struct rxb_flows *m, uint64_t seed, uint32_t port, uint8_t proto);

/* Switch m to generator ranges. 0, or -EINVAL naming
 * traffic.gen_src_addrs / gen_dst_addrs when either is 0 or their lcm
 * exceeds 2^32 - 1. */
int rxb_flows_ranges(struct rxb_flows *m, uint32_t gen_src, uint32_t gen_dst, struct rxb_err *err);

/* An address of net/depth whose host bits are h's low ones. */
static inline uint32_t rxb_flow_in_net(uint32_t net, uint8_t depth, uint32_t h)
{
	uint32_t host_mask = depth >= 32 ? 0 : UINT32_MAX >> depth;

	return (net & ~host_mask) | (h & host_mask);
}

/* A port in [RXB_FLOW_PORT_MIN, 65535] from 16 random bits (multiply-shift:
 * no division, and no modulo bias worth one). */
static inline uint16_t rxb_flow_port(uint32_t h16)
{
	return (uint16_t)(RXB_FLOW_PORT_MIN + ((h16 * (65536u - RXB_FLOW_PORT_MIN)) >> 16));
}

/* The 5-tuple of flow `id` (the same id always gives the same tuple).
 * Inline: the simulator derives one per generated packet when it keeps no
 * per-flow memo. */
static inline void rxb_flow_tuple(const struct rxb_flows *m, uint32_t id, struct rxb_flow *f)
{
	uint64_t h1, h2;

	f->proto = m->proto;
	if (m->gen_flows) {
		/* id = i mod lcm, so i mod gen_src = id mod gen_src (gen_src
		 * divides lcm); likewise for gen_dst */
		f->src_ip = RXB_FLOW_GEN_SRC_BASE + id % m->gen_src;
		f->dst_ip = RXB_FLOW_GEN_DST_BASE + id % m->gen_dst;
		f->src_port = f->dst_port = RXB_FLOW_GEN_PORT;
		return;
	}
	h1 = sim_mix64(m->key ^ ((uint64_t)id * 0x9e3779b97f4a7c15ull));
	h2 = sim_mix64(h1 ^ 0x5851f42d4c957f2dull);
	f->src_ip = rxb_flow_in_net(m->src_net, m->src_depth, (uint32_t)h1);
	f->dst_ip = rxb_flow_in_net(m->dst_net, m->dst_depth, (uint32_t)(h1 >> 32));
	f->src_port = rxb_flow_port((uint32_t)(h2 & 0xffff));
	f->dst_port = rxb_flow_port((uint32_t)((h2 >> 16) & 0xffff));
}

/* Generator ranges: the flow of the run's packet i. */
static inline uint32_t rxb_flows_gen_id(const struct rxb_flows *m, uint64_t i)
{
	return (uint32_t)((m->gen_start + i) % m->gen_flows);
}

/* Generator ranges: the flow of the packet after one of flow id, i.e.
 * rxb_flows_gen_id as a cursor (no division per packet). */
static inline uint32_t rxb_flows_gen_next(const struct rxb_flows *m, uint32_t id)
{
	return id + 1 == m->gen_flows ? 0 : id + 1;
}

#ifdef __cplusplus
}
#endif
#endif /* RXB_UTIL_FLOW_H */
