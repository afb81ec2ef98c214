/* SPDX-License-Identifier: BSD-3-Clause
 * The flows of both engines: see flow.h. */
#include <errno.h>

#include "flow.h"
#include "rng.h"

void rxb_flows_init(struct rxb_flows *m, uint64_t seed, uint32_t port, uint8_t proto)
{
	*m = (struct rxb_flows){
		/* mixing the port first keeps (seed, port) and (seed', port')
		 * apart even when seed ^ seed' is a small number */
		.key = sim_mix64(seed ^ sim_mix64(0x7c9ull + port)),
		.proto = proto,
		.src_depth = RXB_FLOW_SRC_DEPTH,
		.dst_depth = RXB_FLOW_DST_DEPTH,
		.src_net = RXB_FLOW_SRC_NET,
		.dst_net = RXB_FLOW_DST_NET,
	};
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t r = a % b;

		a = b;
		b = r;
	}
	return a;
}

int rxb_flows_ranges(struct rxb_flows *m, uint32_t gen_src, uint32_t gen_dst, struct rxb_err *err)
{
	uint64_t l;

	if (gen_src == 0 || gen_dst == 0) {
		rxb_err_set(err,
			    "traffic.gen_%s_addrs = 0: generator ranges need at least 1 address",
			    gen_src == 0 ? "src" : "dst");
		return -EINVAL;
	}
	l = (uint64_t)gen_src / gcd64(gen_src, gen_dst) * gen_dst;
	if (l > UINT32_MAX) {
		rxb_err_set(err,
			    "traffic.gen_src_addrs = %u and gen_dst_addrs = %u: lcm %llu flows, "
			    "at most 2^32 - 1",
			    gen_src, gen_dst, (unsigned long long)l);
		return -EINVAL;
	}
	m->gen_src = gen_src;
	m->gen_dst = gen_dst;
	m->gen_flows = (uint32_t)l;
	m->gen_start = (uint32_t)(sim_mix64(m->key ^ 0x9e4ull) % l);
	return 0;
}
