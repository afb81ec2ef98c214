/* SPDX-License-Identifier: BSD-3-Clause
 *
 * gen.h — the emulator's traffic generator: valid Ethernet/IPv4/UDP or TCP
 * packets with correct checksums, written into mbufs, following a pattern:
 *
 *   flows      n_flows 5-tuples, fixed for a seed and port: the ones the
 *              simulator offers for the same run seed (util/flow.h: src in
 *              src_net/src_depth, dst in dst_net/dst_depth, random ports);
 *              or, with generator ranges (gen_src, gen_dst > 0), the
 *              study's generator profile: packet i carries source
 *              16.1.1.1 + i mod gen_src and destination 48.1.1.1 + i mod
 *              gen_dst, UDP 53 -> 53, lcm(gen_src, gen_dst) flows visited in
 *              turn (no target set, no KV, no single-flow bursts)
 *   popularity which flow a packet belongs to: uniform or Zipf(s); flow 0
 *              is the most popular under Zipf (rank r -> flow r-1 of its set)
 *   target     a target flow set (flows [0, n_target_flows), or those a
 *              callback picks, e.g. "RSS sends it to core 3") receives a
 *              share target_share of the packets, optionally with its own
 *              frame size
 *   sizes      fixed frame_size, or a weighted mix
 *   bursts     on/off: burst_pkts packets, then burst_gap_ns of silence;
 *              optionally one flow per burst (RFC 2544 single-flow bursts)
 *   KV         every packet a MICA-style GET or PUT (nf/wire.h), keys uniform
 *              or Zipf(s), dst port = RXB_KV_UDP_PORT + the key's partition
 *   stamp      the TSC at fill time in the first 8 payload bytes
 *   pacing     packets per second on the TSC; see rxb_gen_due()
 *
 * Frame sizes count the bytes in the mbuf: Ethernet header to end of
 * payload, FCS excluded (a NIC strips it), so the wire adds 24 bytes
 * (preamble 8, FCS 4, inter-frame gap 12). Payload bytes after the stamp are
 * zero unless a KV request fills them.
 *
 * Determinism: packet contents (flows, sizes, keys, values, IP ids) depend
 * only on the configuration and the seed, never on timing: pacing decides
 * when packets go, not which. The stamp is the only timing-dependent field.
 * The flow table depends only on seed, port, n_flows, proto and the address
 * ranges, so changing e.g. target_share keeps the same flows.
 *
 * Threads: a generator belongs to one thread, which draws and paces;
 * rxb_gen_write only reads it, so any thread may write packets; its
 * statistics may be read by others (relaxed).
 */
#ifndef RXB_EMU_GEN_H
#define RXB_EMU_GEN_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "flow.h"
#include "nf/wire.h"
#include "rxb/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A flow's 5-tuple, host byte order: rxb_flow_tuple's (util/flow.h). */
struct rxb_gen_flow {
	uint32_t src_ip, dst_ip;
	uint16_t src_port, dst_port;
	uint8_t proto;
};

enum rxb_gen_dist {
	RXB_GEN_UNIFORM = 0,
	RXB_GEN_ZIPF,
};

struct rxb_gen_size {
	uint16_t size;   /* frame bytes, FCS excluded */
	uint32_t weight; /* relative frequency */
};

#define RXB_GEN_MAX_SIZES 16u
#define RXB_GEN_MIN_FRAME 60u        /* Ethernet minimum without FCS */
#define RXB_GEN_MAX_FRAME 9014u      /* jumbo; must also fit one mbuf segment */
#define RXB_GEN_MAX_FLOWS (1u << 26) /* also the most generator ranges may give */

/* Decides whether a flow is in the target set (called once per flow at
 * create time). */
typedef bool rxb_gen_target_fn(void *arg, uint32_t flow, const struct rxb_gen_flow *f);

struct rxb_gen_cfg {
	uint64_t seed;

	/* Flows. */
	uint32_t port;             /* whose flows (util/flow.h); default 0 */
	uint32_t n_flows;          /* default 1024; generator ranges: lcm */
	uint32_t gen_src, gen_dst; /* generator ranges; 0: drawn flows */
	uint8_t proto;             /* IPPROTO_UDP (default) or IPPROTO_TCP */
	uint32_t src_net;          /* default 10.0.0.0/8 */
	uint8_t src_depth;
	uint32_t dst_net; /* default 198.19.0.0/16 (RFC 2544 range;
	                              * the NFs' default route table) */
	uint8_t dst_depth;
	struct rte_ether_addr src_mac, dst_mac; /* default 02:00:00:00:aa:01 -> :bb:01 */
	enum rxb_gen_dist flow_dist;
	double flow_zipf_s;

	/* Target flow set. Without one (n_target_flows == 0, is_target ==
	 * NULL), target_share must be 0 and flows are drawn from all. */
	double target_share;     /* 0..1 of the packets */
	uint32_t n_target_flows; /* flows [0, n) when is_target is NULL */
	rxb_gen_target_fn *is_target;
	void *is_target_arg;
	uint16_t target_frame_size; /* 0: like the others */

	/* Frame sizes: sizes[] when n_sizes > 0, else frame_size (default 1500). */
	uint16_t frame_size;
	const struct rxb_gen_size *sizes;
	uint32_t n_sizes;

	/* On/off bursts (burst_pkts == 0: none). */
	uint32_t burst_pkts;
	uint64_t burst_gap_ns;
	bool burst_single_flow;

	/* KV requests instead of plain packets (UDP only). */
	struct {
		bool enabled;
		double get_ratio; /* default 0.05 (95% PUT, as in MICA) */
		uint64_t n_keys;  /* default 1 << 20 */
		enum rxb_gen_dist dist;
		double zipf_s;         /* 0.99 for the skewed workload */
		uint32_t n_partitions; /* default 1 */
		uint16_t val_len;      /* PUT value bytes; default 1024 */
	} kv;

	/* Timing. */
	bool stamp;          /* default true */
	double pps;          /* 0: unpaced */
	uint32_t pace_slack; /* backlog (packets) the pacer still
	                              * catches up on; default 64 */
	uint64_t tsc_hz;     /* 0: rte_get_tsc_hz(); tests set it */
};

/* What the generator put in one packet. */
struct rxb_gen_pkt_info {
	uint32_t flow;
	uint16_t len;  /* frame bytes */
	bool target;   /* flow is in the target set */
	uint8_t kv_op; /* 0, RXB_KV_GET or RXB_KV_PUT */
	uint32_t kv_partition;
	uint64_t kv_key; /* key index */
	uint64_t kv_req_id;
	uint16_t ip_id;   /* the packet's number, as drawn */
	uint32_t tcp_seq; /* TCP: the flow's stream position, as drawn */
};

struct rxb_gen_stats {
	rxb_counter_t packets; /* drawn (rxb_gen_fill: filled) */
	rxb_counter_t bytes;   /* their frame bytes */
	rxb_counter_t late;    /* packets the pacer abandoned: behind by more
	                          * than pace_slack */
	rxb_counter_t stalls;  /* times it did so (and restarted the schedule) */
	rxb_counter_t nombuf;  /* due packets lost: the mempool was empty */
};

struct rxb_gen;

void rxb_gen_cfg_defaults(struct rxb_gen_cfg *cfg);

/* Validate cfg and build the flow table (16 B a flow: the study's
 * generator ranges take 132 MB). 0 or a negative errno with err naming the
 * field. */
int rxb_gen_create(const struct rxb_gen_cfg *cfg, struct rxb_gen **out, struct rxb_err *err);
void rxb_gen_destroy(struct rxb_gen *g);

const struct rxb_gen_flow *rxb_gen_flow(const struct rxb_gen *g, uint32_t flow);
/* Flows rxb_gen_flow() knows: cfg.n_flows, or under the generator ranges
 * every pair they make (their lcm). */
uint32_t rxb_gen_n_flows(const struct rxb_gen *g);
/* Under generator ranges, the flow of the pattern's first packet: packet i
 * is flow (first + i) mod rxb_gen_n_flows(). Drawn flows: 0. */
uint32_t rxb_gen_first_flow(const struct rxb_gen *g);
/* Size of the target set (0 without one). */
uint32_t rxb_gen_n_target_flows(const struct rxb_gen *g);
/* Largest frame the pattern can produce: mbufs must hold it in one segment. */
uint16_t rxb_gen_max_frame(const struct rxb_gen *g);
const struct rxb_gen_stats *rxb_gen_stats(const struct rxb_gen *g);

/* Write the next n packets of the pattern into pkts (allocated, not yet
 * used: they are reset), stamped with tsc when cfg.stamp. info (may be NULL)
 * receives what each packet is. Returns n; or, if pkts[i] cannot hold
 * rxb_gen_max_frame() bytes, i, with pkts[i..n) untouched and the pattern not
 * advanced past packet i - 1. */
unsigned rxb_gen_fill(struct rxb_gen *g, struct rte_mbuf **pkts, unsigned n, uint64_t tsc,
		      struct rxb_gen_pkt_info *info);

/* rxb_gen_fill in two steps, for a caller that must know what a packet is
 * before it picks the buffer (the generator source: the flow's RSS hash
 * decides the queue, hence the buffer). rxb_gen_draw advances the pattern by
 * n packets and describes them in info (KV partition included); stats count
 * them as generated, written or not (a NIC drops what finds no buffer).
 * rxb_gen_write then writes one of them into m, exactly as rxb_gen_fill
 * would have; packets must be written in the order drawn (TCP sequence
 * numbers, IP ids), and a packet left unwritten is simply skipped. false,
 * m untouched, when m cannot hold rxb_gen_max_frame() bytes. Writing only
 * reads the generator (everything a packet holds is in pi): several
 * threads may write packets of one generator at once (the emulator's
 * workers each write one packet of every flow they learn). */
void rxb_gen_draw(struct rxb_gen *g, struct rxb_gen_pkt_info *info, unsigned n);
bool rxb_gen_write(const struct rxb_gen *g, struct rte_mbuf *m, uint64_t tsc,
		   const struct rxb_gen_pkt_info *pi);

/* The pacer: how many packets may go at `now` (TSC), at most max.
 *
 * Packet k of an on-period is due at start + k / pps; after burst_pkts
 * packets the next period starts burst_gap_ns after the last one's slot
 * (unpaced: after `now`). Unpaced without bursts: always max.
 *
 * When the caller cannot keep up (it polls too rarely, or each call is
 * capped by max), packets pile up. A backlog of up to pace_slack packets is
 * caught up on by later calls (returning max each time), so short stalls
 * do not lower the rate. A longer backlog is abandoned: it is added to
 * stats.late, stats.stalls counts one, and the schedule restarts at `now`
 * (its phase moves, so over a run sent + late may exceed the ideal slot
 * count by up to `stalls`). The generator therefore
 * never emits a catch-up burst longer than pace_slack beyond its pattern,
 * and a target rate it cannot reach shows as offered < target with the
 * difference in `late`, not as distorted burstiness. */
unsigned rxb_gen_due(struct rxb_gen *g, uint64_t now, unsigned max);

/* The generator loop's one call: rxb_gen_due, allocate that many mbufs from
 * mp (all or nothing; on failure the due packets are lost and counted in
 * stats.nombuf), rxb_gen_fill with tsc = now. Returns the packets in pkts. */
unsigned rxb_gen_burst(struct rxb_gen *g, struct rte_mempool *mp, struct rte_mbuf **pkts,
		       unsigned max, uint64_t now, struct rxb_gen_pkt_info *info);

/* Key bytes of key index k: big-endian k, then bytes that depend only on
 * k, so every client and any test derive the same key. */
void rxb_gen_kv_key(uint64_t k, uint8_t key[RXB_KV_KEY_LEN]);
/* Value bytes a PUT with req_id writes for key k (len <= 1024): big-endian
 * k and req_id, then the low byte of req_id repeated. */
void rxb_gen_kv_value(uint64_t k, uint64_t req_id, uint8_t *val, uint16_t len);

#ifdef __cplusplus
}
#endif
#endif /* RXB_EMU_GEN_H */
