/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/models/traffic.h — packet arrivals at one NIC port.
 *
 * Conventions (IEEE 802.3):
 *   - `len` of a packet is the Ethernet frame length: destination MAC to FCS
 *     inclusive, 64..1518 B for standard frames (a "1500 B packet" — IP MTU
 *     1500 — is a 1518 B frame).
 *   - On the wire every frame also costs a preamble + SFD (8 B) before it and
 *     a minimum inter-frame gap (12 B) after it: wire bytes = len + 20. So
 *     100 Gb/s carries 100e9 / (8 × 1538) = 8.127 Mpps of 1518 B frames and
 *     100e9 / (8 × 84) = 148.8 Mpps of 64 B frames.
 *   - The NIC strips the FCS (the default of ConnectX and of DPDK without
 *     KEEP_CRC): it DMAs len − 4 bytes into the buffer.
 *   - Rates (`*_bps`) count wire bits, overheads included: a 100 Gb/s link
 *     at 100 % load has rate_bps = 100e9.
 *   - Time is in picoseconds (uint64: 213 days; one 64 B frame at 800 Gb/s
 *     lasts 840 ps). A packet's `t_ps` is when its last bit has arrived —
 *     the earliest moment the NIC can act on it.
 *
 * Arrival processes (per stream):
 *   CONST    constant bit rate: each packet starts when the previous one's
 *            wire bits at `rate_bps` have elapsed (exact integer arithmetic,
 *            no drift).
 *   POISSON  exponential gaps with mean E[wire bits] / rate_bps.
 *   ONOFF    bursts of `burst_pkts` packets sent back to back at
 *            rate_bps / duty, then silence so that the long-run rate is
 *            rate_bps: the link is busy a fraction `duty` of the time.
 * Whatever the process, frames are serialised on the link at line rate: a
 * frame never starts before the previous one has left the wire.
 *
 * Flows and steering:
 *   - By default a packet's 5-tuple is that of one of `flows` flows (chosen
 *     uniformly or by Zipf popularity); tuples are pseudo-random, so RSS
 *     spreads them like random traffic.
 *   - Targeting: with target_queue >= 0, the "target" class of packets uses
 *     flows whose RSS queue (computed by the caller's queue_of callback —
 *     the NIC's Toeplitz hash + RETA) is the target, and all other packets
 *     use flows that avoid it. The target gets either a share of the main
 *     stream's packets (target_share), with its own frame sizes, or its own
 *     stream at a fixed rate (target.rate_bps > 0).
 *   - Keys: with keys > 0 every packet carries a key drawn uniformly or by
 *     Zipf popularity (key 0 is the most popular). With key_steer, a packet
 *     uses a flow that RSS sends to sim_key_partition(key, nqueues) — the
 *     client-side steering of an EREW key-value store (MICA).
 *   - A flow id's 5-tuple is the one both engines give it (util/flow.h):
 *     drawn from the run's seed (flow_seed) and the port (nic), so the
 *     emulator offers the same tuples for the same seed.
 *   - Generator ranges (gen_src > 0): instead of drawn flows, the main
 *     stream reproduces a hardware generator's profile (the study's T-Rex,
 *     docs/workloads.md; flow.h): packet i carries source address
 *     RXB_FLOW_GEN_SRC_BASE + i mod gen_src and destination
 *     RXB_FLOW_GEN_DST_BASE + i mod gen_dst, both incremented per packet in
 *     lock step, UDP 53 -> 53. A flow is the pair, so there are
 *     lcm(gen_src, gen_dst) flows, each recurring once per cycle of that
 *     many packets. Not with targeting or key steering.
 * Flow pools for steering are found at init by hashing candidate tuples
 * (about flows × nqueues / (nqueues − 1) callback calls); they cost 4 B per
 * flow.
 */
#ifndef SIM_TRAFFIC_H
#define SIM_TRAFFIC_H

#include <stdint.h>

#include "flow.h"
#include "rng.h"
#include "rxb/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SIM_ETH_PREAMBLE  8u  /* 7 B preamble + 1 B start-of-frame delimiter */
#define SIM_ETH_IFG       12u /* minimum inter-frame gap */
#define SIM_ETH_OVERHEAD  (SIM_ETH_PREAMBLE + SIM_ETH_IFG)
#define SIM_ETH_HDR       14u
#define SIM_ETH_FCS       4u
#define SIM_ETH_MIN_FRAME 64u
#define SIM_ETH_MAX_FRAME 9018u /* jumbo: 9000 B MTU + header + FCS */

#define SIM_PS_PER_S 1000000000000ull

struct sim_pkt {
	uint64_t t_ps;     /* last bit received */
	uint32_t len;      /* frame length including FCS */
	uint32_t sip, dip; /* IPv4, host byte order (IPv6 from a trace: folded) */
	uint16_t sport, dport;
	uint8_t proto; /* IP protocol: 6 TCP, 17 UDP; 0 when not IP */
	uint8_t l3;    /* 4, 6, or 0 when not IP */
	uint8_t cls;   /* generator class: 0 main, 1 target */
	uint8_t nic;   /* port it arrives on */
	uint32_t flow; /* flow id (generator); 0 from traces */
	uint32_t key;  /* key of a key-value request, else 0 */
	uint32_t rss;  /* from a trace: the NIC's hash (pcap.h), else 0 */
};

static inline uint64_t sim_wire_bytes(uint32_t len)
{
	return (uint64_t)len + SIM_ETH_OVERHEAD;
}
static inline uint32_t sim_dma_bytes(uint32_t len)
{
	return len - SIM_ETH_FCS;
}

/* Picoseconds per bit at `rate_bps`, in 32.32 fixed point: exact for the
 * usual rates (10 ps at 100 Gb/s, 2.5 at 400, 1.25 at 800), within 2^-32
 * relative otherwise. Times then cost a multiplication, not a division. */
static inline uint64_t sim_ps_per_bit_q32(uint64_t rate_bps)
{
	return (uint64_t)(((unsigned __int128)SIM_PS_PER_S << 32) / rate_bps);
}

static inline uint64_t sim_bits_to_ps(uint64_t bits, uint64_t ps_per_bit_q32)
{
	return (uint64_t)(((unsigned __int128)bits * ps_per_bit_q32) >> 32);
}

/* Packets per second of frames of `len` at `rate_bps` (wire bits). */
static inline double sim_pps(uint64_t rate_bps, uint32_t len)
{
	return (double)rate_bps / (8.0 * sim_wire_bytes(len));
}

/* RSS steering of a tuple, provided by the caller (the NIC model's Toeplitz
 * hash and RETA lookup): returns a queue in [0, nqueues). */
typedef uint32_t (*sim_queue_fn)(void *ctx, const struct sim_pkt *p);

enum sim_arrival {
	SIM_ARRIVAL_CONST = 0,
	SIM_ARRIVAL_POISSON,
	SIM_ARRIVAL_ONOFF,
};

enum sim_popularity {
	SIM_POP_UNIFORM = 0,
	SIM_POP_ZIPF,
};

#define SIM_SIZE_MAX 16u

/* Frame-size distribution: n entries of (len, weight); n = 1 is fixed. */
struct sim_size_dist {
	uint32_t n;
	uint32_t len[SIM_SIZE_MAX];
	double weight[SIM_SIZE_MAX];
};

static inline void sim_size_fixed(struct sim_size_dist *d, uint32_t len)
{
	d->n = 1;
	d->len[0] = len;
	d->weight[0] = 1.0;
}

/* "Simple IMIX": 40 B, 576 B and 1500 B IP packets in the ratio 7:4:1,
 * i.e. 64 B (padded), 594 B and 1518 B frames; mean 361.8 B. */
void sim_size_imix(struct sim_size_dist *d);

double sim_size_mean(const struct sim_size_dist *d);

struct sim_stream_cfg {
	uint64_t rate_bps; /* offered load (wire bits/s); 0 = stream off */
	enum sim_arrival arrival;
	uint32_t burst_pkts; /* ONOFF: packets per burst */
	double duty;         /* ONOFF: fraction of time on, (0, 1] */
	struct sim_size_dist size;
	uint32_t flows; /* number of distinct flows */
	enum sim_popularity flow_pop;
	double flow_zipf_s;
};

struct sim_traffic_cfg {
	uint64_t seed;      /* arrivals, sizes, picks */
	uint64_t flow_seed; /* flows' 5-tuples: the run's seed (flow.h) */
	uint32_t nic;
	uint64_t line_bps; /* link speed */
	uint64_t start_ps; /* first packet's wire slot starts here */
	uint64_t stop_ps;  /* no packet arrives after this; 0 = never */
	uint64_t max_pkts; /* 0 = no limit */
	uint8_t proto;     /* 17 UDP (default) or 6 TCP */
	struct sim_stream_cfg main;
	/* keys */
	uint64_t keys; /* 0 = packets carry no key */
	enum sim_popularity key_pop;
	double key_zipf_s;
	int key_steer;            /* send each key to its partition's queue */
	uint32_t flows_per_queue; /* key_steer: flows per queue (0 → main.flows / nqueues) */
	/* steering (needed by targeting and key_steer) */
	uint32_t nqueues;
	sim_queue_fn queue_of;
	void *queue_ctx;
	int32_t target_queue;      /* -1 = no target */
	int lazy_tuple;            /* packets carry their flow id (and proto, l3)
				     * but not the addresses and ports: the
				     * caller rebuilds them with
				     * sim_traffic_tuple(g, flow, p) when it needs
				     * them (it caches per flow what it derives) */
	uint32_t gen_src, gen_dst; /* generator ranges (0: drawn flows) */
	double target_share;       /* fraction of main-stream packets to the target */
	uint64_t change_ps;        /* > 0: from this time on the share is change_share */
	double change_share;
	struct sim_stream_cfg target; /* size and flows of target packets; with
				       * rate_bps > 0, an own stream at that rate */
};

/* 100 Gb/s, constant rate at line rate, 1518 B frames, 65536 uniform UDP
 * flows, no keys, no target (target settings, when a target_queue is set:
 * 1 flow, 64 B frames). */
void sim_traffic_cfg_default(struct sim_traffic_cfg *cfg);

struct sim_tstream {
	struct sim_stream_cfg cfg;
	double cdf[SIM_SIZE_MAX];
	double mean_wire_bits;
	uint64_t rate_bps;       /* rate while sending (ONOFF: rate / duty) */
	uint64_t ps_per_bit_q32; /* 1e12 / rate_bps, 32.32 fixed point */
	uint64_t bits;           /* CONST: wire bits sent so far */
	double tq;               /* POISSON/ONOFF: next start, ps (exact as double) */
	uint32_t burst_left;
	double burst_bits;
	struct sim_zipf fz;
	/* pending candidate packet */
	uint64_t next_ps;
	uint32_t next_len;
	uint8_t next_cls;
	uint8_t on; /* stream produces packets */
};

struct sim_traffic_stats {
	uint64_t pkts[2]; /* per class: main, target */
	uint64_t frame_bytes[2];
	uint64_t wire_bytes[2];
	uint64_t first_ps, last_ps; /* arrival times of first and last packet */
	uint64_t link_busy_ps;      /* total wire time of all packets */
	uint64_t delayed;           /* packets that waited for the link */
};

struct sim_traffic {
	struct sim_traffic_cfg cfg;
	struct sim_rng rng;
	struct rxb_flows fm;        /* the flows' 5-tuples */
	struct sim_tstream st[2];   /* [0] main, [1] target stream (rate mode) */
	struct sim_size_dist tsize; /* sizes of share-mode target packets */
	double tcdf[SIM_SIZE_MAX];
	double tmean_wire_bits;       /* their mean on the wire (Poisson's gaps) */
	struct sim_zipf tz;           /* target flow popularity */
	struct sim_zipf kz;           /* key popularity */
	uint64_t link_free_ps;        /* end of the previous frame's wire slot */
	uint64_t line_ps_per_bit_q32; /* 1e12 / line_bps, 32.32 fixed point */
	uint32_t *pool_main;          /* flow ids of main-class flows, or NULL */
	uint32_t npool_main;
	uint32_t *pool_tgt; /* flow ids that RSS sends to the target */
	uint32_t npool_tgt;
	uint32_t *pool_q; /* key_steer: nqueues × fpq flow ids */
	uint32_t fpq;
	uint64_t emitted;
	uint32_t gen_next; /* generator ranges: the next packet's flow id
				     * (rxb_flows_gen_id, kept as a cursor: no
				     * division per packet) */
	struct sim_traffic_stats stats;
};

int sim_traffic_init(struct sim_traffic *g, const struct sim_traffic_cfg *cfg, struct rxb_err *err);
void sim_traffic_free(struct sim_traffic *g);

/* Next arriving packet. Returns 1, or 0 at the end (stop_ps / max_pkts). */
int sim_traffic_next(struct sim_traffic *g, struct sim_pkt *p);

/* Packet p carries flow `id` of tuple f (IPv4). */
static inline void sim_pkt_set_flow(struct sim_pkt *p, const struct rxb_flow *f, uint32_t id)
{
	p->sip = f->src_ip;
	p->dip = f->dst_ip;
	p->sport = f->src_port;
	p->dport = f->dst_port;
	p->proto = f->proto;
	p->l3 = 4;
	p->flow = id;
}

/* The 5-tuple of flow `id` of generator g, whichever flow model it runs
 * (what a lazy_tuple caller rebuilds). */
void sim_traffic_tuple(const struct sim_traffic *g, uint32_t id, struct sim_pkt *p);

/* Flows of generator g's main stream: lcm(gen_src, gen_dst) with generator
 * ranges, else cfg.main.flows. */
static inline uint32_t sim_traffic_flows(const struct sim_traffic *g)
{
	return g->fm.gen_flows ? g->fm.gen_flows : g->cfg.main.flows;
}

/* Partition (core) owning a key in an EREW key-value store: a hash of the
 * key reduced to [0, n). The application model must use the same function. */
static inline uint32_t sim_key_partition(uint32_t key, uint32_t n)
{
	return (uint32_t)(((sim_mix64(key) >> 32) * (uint64_t)n) >> 32);
}

#ifdef __cplusplus
}
#endif
#endif /* SIM_TRAFFIC_H */
