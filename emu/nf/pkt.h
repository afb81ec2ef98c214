/* SPDX-License-Identifier: BSD-3-Clause
 *
 * nf/pkt.h — parsing and checksum helpers shared by the network functions
 * and the traffic generator. Everything works on single-segment mbufs: the
 * generator makes them, and every frame up to 1518 bytes fits the default
 * 2048-byte data room, so the NFs need not walk segment chains.
 *
 * Checksums. The IPv4 header checksum is always recomputed in full
 * (rte_ipv4_cksum: 20 bytes already in cache). The L4 checksum is updated
 * incrementally (RFC 1624) when an NF rewrites addresses, ports or a few
 * payload bytes, as real NFs and NIC offloads do: a full recompute would read
 * the whole payload of every packet and turn "payload untouched" workloads
 * into payload-reading ones, and it would also launder a packet that arrived
 * corrupted into one that looks valid. A full recompute
 * (rte_ipv4_udptcp_cksum) is available as an option and is used wherever an
 * NF rewrites the payload anyway. A UDP checksum of zero means "none" (RFC
 * 768) and is left zero by a middlebox rewrite.
 */
#ifndef RXB_EMU_PKT_H
#define RXB_EMU_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_debug.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "wire.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An IPv4 address in host order. DPDK 22.11's RXB_IPV4() shifts an int
 * left by 24, undefined behaviour for a >= 128 (UBSan reports it). */
#define RXB_IPV4(a, b, c, d) \
	(((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (uint32_t)(d))

/* A parsed Ethernet/IPv4 packet. Pointers point into the mbuf's data. */
struct rxb_pkt_view {
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	void *l4;             /* UDP or TCP header; NULL for other protocols
	                        * and for IPv4 fragments */
	uint8_t *payload;     /* first byte after the L4 header (NULL without l4) */
	uint16_t payload_len; /* from IPv4 total_length: Ethernet padding excluded */
	uint16_t l4_len;      /* L4 header + payload */
	uint8_t proto;        /* ip->next_proto_id */
};

/* Parse m. Returns 0 for a well-formed IPv4 packet (v->l4 may be NULL), -1
 * for anything else: multi-segment, not IPv4 (no VLAN support), header
 * lengths inconsistent with each other or with the buffer. Never reads past
 * data_len. */
int rxb_pkt_parse(struct rte_mbuf *m, struct rxb_pkt_view *v);

/* Non-zero when the IPv4 header checksum and (UDP with non-zero checksum,
 * TCP) the L4 checksum are valid. */
bool rxb_pkt_csum_ok(const struct rxb_pkt_view *v);

/* The L4 checksum field, read and written through memcpy: the headers are
 * packed structs, and a pointer to one of their fields may be unaligned. */
static inline void *rxb_pkt_l4_csum_ptr(const struct rxb_pkt_view *v)
{
	return (uint8_t *)v->l4 + (v->proto == IPPROTO_UDP
					   ? offsetof(struct rte_udp_hdr, dgram_cksum)
					   : offsetof(struct rte_tcp_hdr, cksum));
}

static inline uint16_t rxb_pkt_l4_csum_get(const struct rxb_pkt_view *v)
{
	uint16_t c;

	memcpy(&c, rxb_pkt_l4_csum_ptr(v), sizeof(c));
	return c;
}

static inline void rxb_pkt_l4_csum_set(const struct rxb_pkt_view *v, uint16_t c)
{
	memcpy(rxb_pkt_l4_csum_ptr(v), &c, sizeof(c));
}

/* One's-complement sum of len bytes (len even) as raw 16-bit words, without
 * folding beyond 32 bits; only for the few bytes of an incremental update. */
static inline uint32_t rxb_cksum_words(const void *p, unsigned len)
{
	const uint8_t *b = (const uint8_t *)p;
	uint32_t sum = 0;

	for (unsigned i = 0; i < len; i += 2) {
		uint16_t w;

		memcpy(&w, b + i, 2);
		sum += w;
	}
	return sum;
}

/* RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'), for a region of len bytes (even,
 * at an even offset of the checksummed data) changing from old to new. */
static inline uint16_t rxb_cksum_adjust(uint16_t cksum, const void *old_bytes,
					const void *new_bytes, unsigned len)
{
	uint32_t sum = (uint16_t)~cksum;

	/* ~m summed word by word equals (0xffff * words) - sum(m) modulo the
	 * one's-complement fold, so add the complement of the folded sum. */
	uint32_t o = rxb_cksum_words(old_bytes, len);

	o = (o & 0xffff) + (o >> 16);
	o = (o & 0xffff) + (o >> 16);
	sum += (uint16_t)~o;
	sum += rxb_cksum_words(new_bytes, len);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Overwrite len bytes (even, at an even offset of the L4 segment, or an
 * IPv4 address, which the pseudo-header covers) at field with val, keeping
 * the L4 checksum valid when `incremental` is set. With incremental unset
 * the caller recomputes the checksum afterwards (rxb_pkt_l4_csum_full). */
static inline void rxb_pkt_rewrite(const struct rxb_pkt_view *v, void *field, const void *val,
				   unsigned len, bool incremental)
{
	if (incremental && v->l4 != NULL) {
		uint16_t ck = rxb_pkt_l4_csum_get(v);
		uint8_t old[16];

		/* UDP checksum 0 = "not computed": stays 0 (RFC 768). */
		if (!(v->proto == IPPROTO_UDP && ck == 0)) {
			RTE_ASSERT(len <= sizeof(old) && len % 2 == 0);
			memcpy(old, field, len);
			ck = rxb_cksum_adjust(ck, old, val, len);
			if (ck == 0 && v->proto == IPPROTO_UDP)
				ck = 0xffff; /* 0 is reserved for "none" */
			rxb_pkt_l4_csum_set(v, ck);
		}
	}
	memcpy(field, val, len);
}

/* Recompute the IPv4 header checksum in full. */
static inline void rxb_pkt_ip_csum(const struct rxb_pkt_view *v)
{
	v->ip->hdr_checksum = 0;
	v->ip->hdr_checksum = rte_ipv4_cksum(v->ip);
}

/* Recompute the L4 checksum in full (reads the whole payload). A zero UDP
 * checksum stays zero unless `force` is set (the KV server, which is the
 * sender of its responses). */
static inline void rxb_pkt_l4_csum_full(const struct rxb_pkt_view *v, bool force)
{
	if (v->l4 == NULL)
		return;
	if (v->proto == IPPROTO_UDP && rxb_pkt_l4_csum_get(v) == 0 && !force)
		return;
	rxb_pkt_l4_csum_set(v, 0);
	rxb_pkt_l4_csum_set(v, rte_ipv4_udptcp_cksum(v->ip, v->l4));
}

/* Set a new IPv4 total length and keep mbuf lengths (and the UDP length)
 * consistent; the caller has made sure the buffer holds it. Checksums are
 * the caller's business. */
void rxb_pkt_set_l3_len(struct rte_mbuf *m, struct rxb_pkt_view *v, uint16_t ip_total);

/* ---- timestamp stamp (wire.h) ------------------------------------------- */

/* Write tsc into the stamp and keep the L4 checksum valid incrementally.
 * Returns -1 (nothing written) when the payload is shorter than the stamp. */
static inline int rxb_stamp_write(const struct rxb_pkt_view *v, uint64_t tsc)
{
	uint64_t le = rte_cpu_to_le_64(tsc);

	if (v->l4 == NULL || v->payload_len < RXB_STAMP_OFF + RXB_STAMP_LEN)
		return -1;
	rxb_pkt_rewrite(v, v->payload + RXB_STAMP_OFF, &le, RXB_STAMP_LEN, true);
	return 0;
}

/* The stamp, or 0 when the packet has none. */
static inline uint64_t rxb_stamp_read(const struct rxb_pkt_view *v)
{
	uint64_t le;

	if (v->l4 == NULL || v->payload_len < RXB_STAMP_OFF + RXB_STAMP_LEN)
		return 0;
	memcpy(&le, v->payload + RXB_STAMP_OFF, sizeof(le));
	return rte_le_to_cpu_64(le);
}

/* Parse, then stamp: for callers holding only the mbuf. */
int rxb_stamp_mbuf(struct rte_mbuf *m, uint64_t tsc);
uint64_t rxb_stamp_read_mbuf(struct rte_mbuf *m);

#ifdef __cplusplus
}
#endif
#endif /* RXB_EMU_PKT_H */
