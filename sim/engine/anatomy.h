/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/engine/anatomy.h — where a core's time goes, packet by packet (the stall
 * anatomy of the result record, docs/simulator.md "Per-packet stall
 * anatomy"). Every advance of a core's clock is charged to one component:
 * a fixed cycle cost (cpu), a class of memory accesses (access: count,
 * level that served each, latency), a wait, or synchronisation. A wave of
 * overlapped accesses costs the core its slowest member's latency; that
 * stall is shared among the wave's accesses in proportion to their
 * latencies, so the components sum exactly to the core's busy time —
 * which the engine also measures on its own (struct core.busy_ps), as the
 * check of this bookkeeping.
 */
#ifndef SIM_ANATOMY_H
#define SIM_ANATOMY_H

#include <stdint.h>

/* The components, in the order a packet meets them. */
enum an_comp {
	AN_RX_CALL = 0,  /* the receive function's cycles */
	AN_DOORBELL,     /* Rx doorbells */
	AN_CQE,          /* completion entries read */
	AN_MBUF_RX,      /* the driver's write of each received mbuf's line 0 */
	AN_MBUF_ALLOC,   /* the refill's write of reposted mbufs' line 0 */
	AN_SYNC,         /* shRing bitmap and repost lock */
	AN_ALLOC,        /* allocator cycles (pool lock waits included) */
	AN_ALLOC_RETRY,  /* waiting for the allocator to have buffers */
	AN_DMA_WAIT,     /* waiting for a completion's DMA to be visible */
	AN_PAUSE,        /* timer ticks and rare pauses */
	AN_HDR,          /* the frame's first line (prefetched with the burst) */
	AN_HDR2,         /* the frame's second line, read on demand */
	AN_ANNOT,        /* annotation lines written in the mbuf's private area */
	AN_FLOW_BUCKET,  /* flow table: rte_hash bucket */
	AN_FLOW_KEY,     /* flow table: key-store entry */
	AN_FLOW_FCB,     /* flow table: flow control block (written) */
	AN_LB_LOAD,      /* lb: backend load counters shared by a NIC's cores */
	AN_NAT_PORT,     /* nat: the flow's port object */
	AN_ROUTE,        /* route table (l3fwd, synthetic) */
	AN_NF_TABLE,     /* synthetic's buffer reads; kvs' index */
	AN_NF_ITEM,      /* kvs: the item's lines */
	AN_PAYLOAD,      /* payload lines */
	AN_COUNTER,      /* counter: the shared counter's line */
	AN_TARGET_READ,  /* a target core's extra reads */
	AN_COMPUTE,      /* the NF's compute cycles (and workload.compute_ns) */
	AN_TX_FULL_WAIT, /* waiting for a Tx slot (blocking transmit) */
	AN_TX_POST,      /* transmit: the burst call, doorbell, fences */
	AN_TX_WQE,       /* transmit: the WQE written into the send queue */
	AN_MBUF_FREE,    /* the free's read of mbuf line 1 */
	AN_EMPTY_POLL,   /* receive calls that found nothing */
	AN_COMPS
};

enum an_kind { AN_KIND_CPU = 0, AN_KIND_ACCESS, AN_KIND_WAIT, AN_KIND_SYNC };

struct an_info {
	const char *name;
	enum an_kind kind;
};
extern const struct an_info an_info[AN_COMPS];

/* Levels that serve an access. */
enum { AN_L2 = 0, AN_LLC, AN_DRAM, AN_LEVELS };

/* One core's (or a class's) totals. */
struct anat {
	uint64_t ps[AN_COMPS];             /* time charged */
	uint64_t n[AN_COMPS];              /* accesses */
	uint64_t lvl[AN_COMPS][AN_LEVELS]; /* accesses served at each level */
	uint64_t lat_ps[AN_COMPS];         /* their latencies, summed */
};

static inline void an_sum(struct anat *to, const struct anat *a)
{
	for (unsigned c = 0; c < AN_COMPS; c++) {
		to->ps[c] += a->ps[c];
		to->n[c] += a->n[c];
		to->lat_ps[c] += a->lat_ps[c];
		for (unsigned l = 0; l < AN_LEVELS; l++)
			to->lvl[c][l] += a->lvl[c][l];
	}
}

#endif /* SIM_ANATOMY_H */
