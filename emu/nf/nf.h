/* SPDX-License-Identifier: BSD-3-Clause
 *
 * nf/nf.h — the emulator's network functions: one interface, six NFs that
 * do their real work on real packet bytes (parse Ethernet/IPv4/UDP/TCP, look
 * up, rewrite, fix checksums).
 *
 *   name        what it does per packet
 *   "l3fwd"     LPM lookup of dst IPv4, dst/src MAC from the next hop, TTL-1,
 *               out port
 *   "nat"       outbound: src IP/port -> public IP/port (new flows get one);
 *               inbound: back; two hash entries per flow
 *   "lb"        new flows round-robin over 32 backends, remembered; dst
 *               IP/MAC -> backend
 *   "synthetic" R random reads (dependent or independent) in S bytes, a
 *               route lookup, optional payload read or overwrite
 *   "kvs"       MICA-style GET/PUT (nf/wire.h), request -> response in place
 *   "counter"   atomic add on a counter picked by a hash of the flow
 *               (rxb_nf_counter_slot), value written into the payload
 *
 * Threads: an instance belongs to one core; process() is called only by
 * that core, and only it writes the instance's statistics. Any thread may
 * read the statistics (relaxed loads, rxb_counter_read). init/destroy are
 * control-path calls (they allocate, and create named DPDK objects). The
 * counter NF's array may be shared between instances on purpose: that is
 * its workload.
 *
 * process(nf, pkts, n) returns `kept`: pkts[0..kept) are the packets to
 * transmit, in their arrival order, on port m->port (l3fwd and synthetic set
 * it from the route; the others leave the input port: "send back").
 * pkts[kept..n) are the dropped packets, reasons counted in stats.drop[].
 * An NF never frees an mbuf: the caller owns freeing (and timing it).
 */
#ifndef RXB_EMU_NF_H
#define RXB_EMU_NF_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "rxb/common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rte_lpm;
struct rxb_nf_ops;

/* Why an NF did not keep a packet. Never merged. */
enum rxb_nf_drop {
	RXB_NF_DROP_PARSE = 0, /* not Ethernet/IPv4, malformed, multi-segment,
	                         * or no UDP/TCP header where the NF needs one */
	RXB_NF_DROP_CSUM,      /* input IPv4 header checksum wrong, or L4
	                         * checksum wrong (with cfg.verify_csum) */
	RXB_NF_DROP_TTL,       /* TTL expired (l3fwd) */
	RXB_NF_DROP_NO_ROUTE,  /* LPM miss (l3fwd, synthetic) */
	RXB_NF_DROP_NO_FLOW,   /* inbound packet with no NAT mapping */
	RXB_NF_DROP_FULL,      /* flow/key table or public port pool full, or
	                         * no room in the mbuf for a KV response */
	RXB_NF_DROP_REQUEST,   /* malformed KV request; payload too short for
	                         * the counter */
	RXB_NF_DROP_PARTITION, /* KV key of another partition (EREW) */
	RXB_NF_DROP_CAUSES
};

/* Stable snake_case names for reports: "parse", "csum", ... */
extern const char *const rxb_nf_drop_name[RXB_NF_DROP_CAUSES];

/* Counters named after events, one writer (the instance's core), published
 * once per burst. drops == sum of drop[]. */
struct rxb_nf_stats {
	rxb_counter_t packets; /* packets given to process() */
	rxb_counter_t drops;   /* packets not kept */
	rxb_counter_t lookups; /* table lookups: LPM, flow or key hash */
	rxb_counter_t misses;  /* lookups that found nothing */
	rxb_counter_t inserts; /* new flows (NAT, LB) or keys (KV) added */
	rxb_counter_t drop[RXB_NF_DROP_CAUSES];
};

/* How the L4 checksum follows a header rewrite (see nf/pkt.h). */
enum rxb_nf_l4_csum {
	RXB_NF_CSUM_INCREMENTAL = 0, /* RFC 1624 over the changed bytes (default) */
	RXB_NF_CSUM_FULL,            /* rte_ipv4_udptcp_cksum over the segment */
};

/* What the synthetic NF does with the payload. */
enum rxb_nf_payload {
	RXB_NF_PAYLOAD_NONE = 0, /* untouched */
	RXB_NF_PAYLOAD_READ,     /* every byte read (summed) */
	RXB_NF_PAYLOAD_WRITE,    /* every byte after the stamp overwritten */
};

/* An LPM route: dst prefix/depth (host byte order) -> next hop index. */
struct rxb_nf_route {
	uint32_t prefix;
	uint8_t depth; /* 1..32 */
	uint32_t hop;  /* index into the hop table */
};

/* A next hop: where l3fwd sends a packet and with which MACs. */
struct rxb_nf_hop {
	uint16_t port;
	struct rte_ether_addr src_mac; /* our port's MAC */
	struct rte_ether_addr dst_mac; /* the neighbour's MAC */
};

#define RXB_NF_LB_MAX_BACKENDS 256u
#define RXB_NF_MAX_FLOWS       (10u * 1000 * 1000) /* NAT and LB capacity */
#define RXB_NF_MAX_HOPS        256u

/* Configuration of one instance. rxb_nf_cfg_defaults() fills every field;
 * each NF reads the common part and its own section. Addresses are host
 * byte order. */
/* One LB backend's load, as FastClick's track_load keeps it: two counters
 * on a line of their own that every core of a port updates per packet. */
struct rxb_nf_lb_load {
	_Atomic uint64_t packets, bytes;
} __rte_cache_aligned;

struct rxb_nf_cfg {
	uint32_t instance; /* 0-based core index: default NAT public
	                         * addresses and the KV partition derive from it */
	uint64_t seed;     /* synthetic NF's random reads */
	enum rxb_nf_l4_csum l4_csum;
	bool verify_csum; /* also drop input with a bad L4 checksum
	                         * (reads the payload; off by default, like an
	                         * NF behind a NIC that validates checksums).
	                         * The IPv4 header checksum is always checked. */

	/* Routing (l3fwd, synthetic). routes == NULL: the default table, 256
	 * /24 routes covering 198.19.0.0/16 (the generator's default dst
	 * range), route i -> hop i % n_hops. hops == NULL: n_ports hops, hop
	 * i on port i with MACs 02:00:00:00:00:<i> (src) and
	 * 02:00:00:00:01:<i> (dst). lpm != NULL: share that table (read-only
	 * lookups are safe from many cores; its owner frees it); routes are
	 * then ignored, hops are still used. */
	const struct rxb_nf_route *routes;
	uint32_t n_routes;
	const struct rxb_nf_hop *hops;
	uint32_t n_hops;
	uint16_t n_ports; /* default 2 */
	struct rte_lpm *lpm;

	struct {
		uint32_t capacity;           /* flows, 1..RXB_NF_MAX_FLOWS (2 hash
		                        * entries each); default 65536 */
		uint32_t public_ip;          /* first public address; 0 = 100.64.0.0 +
		                        * 256 * instance (RFC 6598 space) */
		uint32_t n_public_ips;       /* 0 = as many as capacity needs */
		uint16_t port_min, port_max; /* public ports; default 1024..65535 */
	} nat;

	struct {
		uint32_t capacity;           /* flows remembered; default 65536 */
		uint32_t n_backends;         /* 1..RXB_NF_LB_MAX_BACKENDS; default 32 */
		const uint32_t *backend_ips; /* NULL: 10.10.0.1 + i */
		const struct rte_ether_addr *backend_macs; /* NULL: 02:00:00:00:02:<i> */
		uint32_t first_backend;                    /* the round-robin cursor's start */
		/* NULL: private loads. Else n_backends loads shared with the
		 * port's other instances (one cache line each, the workload's
		 * contention: FastClick's track_load) */
		struct rxb_nf_lb_load *load;
	} lb;

	struct {
		uint64_t buf_bytes; /* S; >= 64; default 1 MiB */
		uint32_t reads;     /* R per packet; default 2 */
		bool dependent;     /* pointer chasing (no memory-level
		                        * parallelism) instead of independent reads */
		enum rxb_nf_payload payload;
	} synth;

	struct {
		uint32_t capacity;     /* keys in this partition; default 65536 */
		uint32_t partition;    /* this core's partition; default = instance */
		uint32_t n_partitions; /* default 1: every key is ours */
	} kvs;

	struct {
		uint32_t n_counters; /* 1..65536; default 16 */
		/* NULL: private array. Else n_counters counters shared with
		 * other instances (the point of the workload): must stay valid
		 * until destroy. */
		_Atomic uint64_t *shared;
	} counter;
};

/* The part of every instance the caller may look at. Each NF embeds it
 * first in its own state. */
struct rxb_nf {
	const struct rxb_nf_ops *ops;
	uint32_t instance;
	enum rxb_nf_l4_csum l4_csum;
	bool verify_csum;
	struct rxb_nf_stats stats RXB_CACHE_ALIGNED; /* read by other threads */
};

struct rxb_nf_ops {
	const char *name;    /* registry key */
	const char *summary; /* one line for --help and reports */
	/* Validate cfg, allocate the instance on `socket` (SOCKET_ID_ANY
	 * allowed), build its tables. 0 or a negative errno with err naming
	 * the field. */
	int (*init)(const struct rxb_nf_cfg *cfg, int socket, struct rxb_nf **out,
		    struct rxb_err *err);
	/* See the top of this file for the contract. */
	uint16_t (*process)(struct rxb_nf *nf, struct rte_mbuf **pkts, uint16_t n);
	void (*destroy)(struct rxb_nf *nf);
};

/* NULL-terminated, in the order of the table above. */
extern const struct rxb_nf_ops *const rxb_nf_registry[];

/* The NF named `name`, or NULL. */
const struct rxb_nf_ops *rxb_nf_find(const char *name);

/* Fill cfg with the defaults documented above (instance 0). */
void rxb_nf_cfg_defaults(struct rxb_nf_cfg *cfg);

/* Look up `name` and init an instance. -ENOENT (and the list of names in
 * err) for an unknown name. */
int rxb_nf_create(const char *name, const struct rxb_nf_cfg *cfg, int socket, struct rxb_nf **out,
		  struct rxb_err *err);

static inline uint16_t rxb_nf_process(struct rxb_nf *nf, struct rte_mbuf **pkts, uint16_t n)
{
	return nf->ops->process(nf, pkts, n);
}

/* NULL is a no-op. */
void rxb_nf_destroy(struct rxb_nf *nf);

/* The synthetic NF's sink: the sum of everything it read (payload reads
 * included; for dependent reads, of the chain positions reached). Lets tests
 * see that the reads happened and where a chain went. */
uint64_t rxb_nf_synthetic_sink(const struct rxb_nf *nf);

/* The counter NF's counter for a parsed UDP/TCP packet: a hash of its
 * addresses and ports mod n, as the simulator picks it by the flow's hash
 * (the source port alone put every generator-range flow, port 53, on one). */
struct rxb_pkt_view;
uint32_t rxb_nf_counter_slot(const struct rxb_pkt_view *v, uint32_t n);

/* Build a read-only route table from cfg (routes, or the default table) to
 * share between instances through cfg.lpm. Free with rte_lpm_free(). */
int rxb_nf_lpm_create(const struct rxb_nf_cfg *cfg, int socket, struct rte_lpm **out,
		      struct rxb_err *err);

#ifdef __cplusplus
}
#endif
#endif /* RXB_EMU_NF_H */
