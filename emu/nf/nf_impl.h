/* SPDX-License-Identifier: BSD-3-Clause
 *
 * nf/nf_impl.h — what the NF implementations share; not for NF users.
 *
 * Each NF's process() is rxb_nf_run() over its chunk function: the chunk
 * function sees up to RXB_NF_CHUNK packets at once (so hash and LPM lookups
 * can go in bulk) and gives each a verdict; rxb_nf_run() moves the kept
 * packets to the front and publishes the burst's tallies with one store per
 * counter. Both are inline so the chunk function is inlined into process().
 */
#ifndef RXB_EMU_NF_IMPL_H
#define RXB_EMU_NF_IMPL_H

#include <string.h>

#include <rte_common.h>
#include <rte_hash.h>
#include <rte_lpm.h>

#include "nf.h"
#include "pkt.h"

#define RXB_NF_CHUNK 32u /* <= RTE_HASH_LOOKUP_BULK_MAX */

/* verdict[i]: RXB_NF_KEEP, or RXB_NF_VERDICT(enum rxb_nf_drop). */
#define RXB_NF_KEEP           0
#define RXB_NF_VERDICT(cause) ((uint8_t)((cause) + 1))

/* A burst's events, counted on the stack. */
struct rxb_nf_tally {
	uint32_t lookups, misses, inserts;
	uint32_t drop[RXB_NF_DROP_CAUSES];
};

typedef void rxb_nf_chunk_fn(struct rxb_nf *nf, struct rte_mbuf **pkts, unsigned n,
			     uint8_t *verdict, struct rxb_nf_tally *t);

static inline void rxb_nf_publish(struct rxb_nf_stats *s, uint16_t n, uint16_t kept,
				  const struct rxb_nf_tally *t)
{
	rxb_counter_add(&s->packets, n);
	if (t->lookups)
		rxb_counter_add(&s->lookups, t->lookups);
	if (t->misses)
		rxb_counter_add(&s->misses, t->misses);
	if (t->inserts)
		rxb_counter_add(&s->inserts, t->inserts);
	if (kept == n)
		return;
	rxb_counter_add(&s->drops, (uint64_t)(n - kept));
	for (unsigned c = 0; c < RXB_NF_DROP_CAUSES; c++)
		if (t->drop[c])
			rxb_counter_add(&s->drop[c], t->drop[c]);
}

static inline uint16_t rxb_nf_run(struct rxb_nf *nf, struct rte_mbuf **pkts, uint16_t n,
				  rxb_nf_chunk_fn *fn)
{
	struct rxb_nf_tally t = { 0 };
	uint8_t verdict[RXB_NF_CHUNK];
	uint16_t kept = 0;

	/* unsigned, not uint16_t: base + RXB_NF_CHUNK may pass 65535. */
	for (unsigned base = 0; base < n; base += RXB_NF_CHUNK) {
		unsigned c = RTE_MIN(n - base, RXB_NF_CHUNK);

		fn(nf, pkts + base, c, verdict, &t);
		/* Stable partition: pkts[kept..base+i) hold only dropped
		 * packets, so swapping moves a kept packet forward past
		 * dropped ones and never reorders kept ones. */
		for (unsigned i = 0; i < c; i++) {
			struct rte_mbuf *m = pkts[base + i];

			if (verdict[i] != RXB_NF_KEEP) {
				t.drop[verdict[i] - 1]++;
				continue;
			}
			pkts[base + i] = pkts[kept];
			pkts[kept++] = m;
		}
	}
	rxb_nf_publish(&nf->stats, n, kept, &t);
	return kept;
}

/* Parse m into v; with need_l4, a packet without a UDP/TCP header is a
 * parse drop. The IPv4 header checksum is always verified (RFC 1812 asks a
 * router to; it is 20 bytes in cache), which is what makes recomputing it in
 * full after a rewrite safe: a corrupted header is dropped, never given a
 * fresh valid checksum. The L4 checksum, which needs the whole payload, is
 * verified only when the instance asks for it. Returns RXB_NF_KEEP or a drop
 * verdict. */
static inline uint8_t rxb_nf_parse(const struct rxb_nf *nf, struct rte_mbuf *m,
				   struct rxb_pkt_view *v, bool need_l4)
{
	if (rxb_pkt_parse(m, v) != 0 || (need_l4 && v->l4 == NULL))
		return RXB_NF_VERDICT(RXB_NF_DROP_PARSE);
	if (rte_ipv4_cksum(v->ip) != 0 || (nf->verify_csum && !rxb_pkt_csum_ok(v)))
		return RXB_NF_VERDICT(RXB_NF_DROP_CSUM);
	return RXB_NF_KEEP;
}

/* After rewriting headers: IPv4 checksum in full, L4 in full if the
 * instance asked for it (incremental updates were done by rxb_pkt_rewrite). */
static inline void rxb_nf_finish(const struct rxb_nf *nf, const struct rxb_pkt_view *v)
{
	rxb_pkt_ip_csum(v);
	if (nf->l4_csum == RXB_NF_CSUM_FULL)
		rxb_pkt_l4_csum_full(v, false);
}

static inline bool rxb_nf_incremental(const struct rxb_nf *nf)
{
	return nf->l4_csum == RXB_NF_CSUM_INCREMENTAL;
}

/* A packet's 5-tuple as a hash key (NAT, LB), byte order as on the wire.
 * Hashed and compared as 16 raw bytes, so the padding must be zero. */
struct rxb_nf_flow_key {
	rte_be32_t src_ip, dst_ip;
	rte_be16_t src_port, dst_port;
	uint8_t proto;
	uint8_t pad[3];
};

/* v must have an L4 header (UDP and TCP carry the ports alike). */
static inline void rxb_nf_flow_key_of(struct rxb_nf_flow_key *k, const struct rxb_pkt_view *v)
{
	const struct rte_udp_hdr *l4 = v->l4;

	k->src_ip = v->ip->src_addr;
	k->dst_ip = v->ip->dst_addr;
	k->src_port = l4->src_port;
	k->dst_port = l4->dst_port;
	k->proto = v->proto;
	memset(k->pad, 0, sizeof(k->pad));
}

/* A chunk of a flow-table NF (NAT, LB) after the bulk lookup: key j
 * belongs to packet idx[j]; bit j of hits is set when it was found, with
 * its data in data[j]. */
struct rxb_nf_flow_chunk {
	struct rxb_pkt_view v[RXB_NF_CHUNK];
	struct rxb_nf_flow_key keys[RXB_NF_CHUNK];
	void *data[RXB_NF_CHUNK];
	uint8_t idx[RXB_NF_CHUNK];
	uint64_t hits;
	unsigned k;
	bool inserted; /* the NF added an entry while handling this chunk */
};

/* Parse a chunk (verdict[] gets the parse drops) and look its 5-tuples up
 * in h in bulk. */
void rxb_nf_flow_lookup(struct rxb_nf *nf, struct rte_hash *h, struct rte_mbuf **pkts, unsigned n,
			uint8_t *verdict, struct rxb_nf_flow_chunk *fc, struct rxb_nf_tally *t);

/* Whether key j is in the table, data in fc->data[j]. The bulk lookup ran
 * before any packet of the chunk was handled, so when the NF has since
 * added entries (fc->inserted) a miss is looked up again: an earlier packet
 * may have created this flow. */
static inline bool rxb_nf_flow_hit(struct rte_hash *h, struct rxb_nf_flow_chunk *fc, unsigned j,
				   struct rxb_nf_tally *t)
{
	if ((fc->hits >> j) & 1)
		return true;
	if (!fc->inserted)
		return false;
	t->lookups++;
	return rte_hash_lookup_data(h, &fc->keys[j], &fc->data[j]) >= 0;
}

/* Hash parameters for a per-core flow or key table: CRC32-C
 * (rxb_hash_crc, alignment-safe) and extendable buckets, so that all
 * `entries` fit whatever cuckoo displacement finds ("full" means capacity,
 * not bad luck). No concurrency flags: one core reads and writes its table.
 * Writes a unique name into name (RTE_HASH_NAMESIZE bytes). */
void rxb_nf_hash_params(struct rte_hash_parameters *hp, char *name, const char *what,
			uint32_t entries, uint32_t key_len, int socket);

/* Route lookup and next hops, shared by l3fwd and synthetic. */
struct rxb_nf_router {
	struct rte_lpm *lpm;
	bool own_lpm;
	uint32_t n_hops;
	struct rxb_nf_hop hops[RXB_NF_MAX_HOPS];
};

int rxb_nf_router_init(struct rxb_nf_router *r, const struct rxb_nf_cfg *cfg, int socket,
		       struct rxb_err *err);
void rxb_nf_router_fini(struct rxb_nf_router *r);

/* Look up the destinations of the chunk's packets pkt[0..k) in bulk.
 * Leaves in hop[j] the next hop of packet pkt[j], or RXB_NONE after
 * setting its NO_ROUTE verdict (a miss, or a hop a shared table names but
 * this instance lacks). */
static inline void rxb_nf_route_bulk(const struct rxb_nf_router *r, const struct rxb_pkt_view *v,
				     const uint8_t *pkt, unsigned k, uint32_t *hop,
				     uint8_t *verdict, struct rxb_nf_tally *t)
{
	uint32_t ips[RXB_NF_CHUNK];

	for (unsigned j = 0; j < k; j++)
		ips[j] = rte_be_to_cpu_32(v[pkt[j]].ip->dst_addr);
	rte_lpm_lookup_bulk(r->lpm, ips, hop, k);
	t->lookups += k;
	for (unsigned j = 0; j < k; j++) {
		uint32_t h = hop[j] & 0x00ffffff; /* next hops are 24 bits */

		if (!(hop[j] & RTE_LPM_LOOKUP_SUCCESS) || h >= r->n_hops) {
			t->misses++;
			verdict[pkt[j]] = RXB_NF_VERDICT(RXB_NF_DROP_NO_ROUTE);
			hop[j] = RXB_NONE;
		} else {
			hop[j] = h;
		}
	}
}

/* Rewrite the MACs for hop h and set the out port. No checksum covers them. */
static inline void rxb_nf_router_apply(const struct rxb_nf_router *r, uint32_t h,
				       struct rte_mbuf *m, struct rxb_pkt_view *v)
{
	const struct rxb_nf_hop *hop = &r->hops[h];

	rte_ether_addr_copy(&hop->dst_mac, &v->eth->dst_addr);
	rte_ether_addr_copy(&hop->src_mac, &v->eth->src_addr);
	m->port = hop->port;
}

/* Zeroed, cache-aligned instance of `size` bytes on `socket` with the
 * common part filled from cfg; NULL when out of memory. Free with rte_free. */
void *rxb_nf_alloc(const struct rxb_nf_ops *ops, size_t size, const struct rxb_nf_cfg *cfg,
		   int socket);

/* A process-unique name for a DPDK object (LPM, hash, memzone): DPDK
 * names are global to the process and limited to 32 bytes. */
void rxb_nf_unique_name(char *buf, size_t len, const char *what);

extern const struct rxb_nf_ops rxb_nf_l3fwd_ops, rxb_nf_nat_ops, rxb_nf_lb_ops,
	rxb_nf_synthetic_ops, rxb_nf_kvs_ops, rxb_nf_counter_ops;

#endif /* RXB_EMU_NF_IMPL_H */
