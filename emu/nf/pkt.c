/* SPDX-License-Identifier: BSD-3-Clause */
#include "pkt.h"

int rxb_pkt_parse(struct rte_mbuf *m, struct rxb_pkt_view *v)
{
	uint32_t len = rte_pktmbuf_data_len(m);
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t ihl, total, l4_len, l4_hdr;

	/* A chained mbuf could split a header; the generator never makes one
	 * and every frame up to 1518 bytes fits one default segment. */
	if (m->nb_segs != 1 || len < sizeof(struct rte_ether_hdr) + sizeof(struct rte_ipv4_hdr))
		return -1;
	v->eth = (struct rte_ether_hdr *)p;
	if (v->eth->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
		return -1;
	v->ip = (struct rte_ipv4_hdr *)(p + sizeof(struct rte_ether_hdr));
	if ((v->ip->version_ihl >> 4) != 4)
		return -1;
	ihl = (uint32_t)(v->ip->version_ihl & 0xf) * 4;
	total = rte_be_to_cpu_16(v->ip->total_length);
	/* total_length, not data_len, bounds the packet: short frames carry
	 * Ethernet padding that belongs to no header. */
	if (ihl < sizeof(struct rte_ipv4_hdr) || total < ihl ||
	    sizeof(struct rte_ether_hdr) + total > len)
		return -1;
	v->proto = v->ip->next_proto_id;
	v->l4 = NULL;
	v->payload = NULL;
	v->payload_len = 0;
	v->l4_len = (uint16_t)(total - ihl);
	/* A fragment other than the first has no L4 header, and the first
	 * has an L4 checksum over bytes it does not hold: neither can be
	 * rewritten. Not an error for a route lookup, so report no L4. */
	if (v->ip->fragment_offset &
	    rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK))
		return 0;
	l4_len = total - ihl;
	if (v->proto == IPPROTO_UDP) {
		struct rte_udp_hdr *udp = (struct rte_udp_hdr *)((uint8_t *)v->ip + ihl);

		if (l4_len < sizeof(*udp) || rte_be_to_cpu_16(udp->dgram_len) != l4_len)
			return -1;
		l4_hdr = sizeof(*udp);
	} else if (v->proto == IPPROTO_TCP) {
		struct rte_tcp_hdr *tcp = (struct rte_tcp_hdr *)((uint8_t *)v->ip + ihl);

		if (l4_len < sizeof(*tcp))
			return -1;
		l4_hdr = (uint32_t)(tcp->data_off >> 4) * 4;
		if (l4_hdr < sizeof(*tcp) || l4_hdr > l4_len)
			return -1;
	} else {
		return 0;
	}
	v->l4 = (uint8_t *)v->ip + ihl;
	v->payload = (uint8_t *)v->l4 + l4_hdr;
	v->payload_len = (uint16_t)(l4_len - l4_hdr);
	return 0;
}

bool rxb_pkt_csum_ok(const struct rxb_pkt_view *v)
{
	uint32_t sum;

	/* Summed over a header that includes its checksum, a valid header
	 * gives 0xffff, whose complement rte_ipv4_cksum returns as 0. */
	if (rte_ipv4_cksum(v->ip) != 0)
		return false;
	if (v->l4 == NULL)
		return true;
	if (v->proto == IPPROTO_UDP && rxb_pkt_l4_csum_get(v) == 0)
		return true;
	/* Like rte_ipv4_udptcp_cksum_verify(), which is still experimental
	 * API in DPDK 22.11: over a segment that includes its checksum, a
	 * valid one sums to 0xffff. */
	sum = rte_raw_cksum(v->l4, v->l4_len) + rte_ipv4_phdr_cksum(v->ip, 0);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

void rxb_pkt_set_l3_len(struct rte_mbuf *m, struct rxb_pkt_view *v, uint16_t ip_total)
{
	uint16_t ihl = rte_ipv4_hdr_len(v->ip);
	uint16_t frame = (uint16_t)(sizeof(struct rte_ether_hdr) + ip_total);

	v->ip->total_length = rte_cpu_to_be_16(ip_total);
	v->l4_len = (uint16_t)(ip_total - ihl);
	if (v->l4 != NULL) {
		if (v->proto == IPPROTO_UDP)
			((struct rte_udp_hdr *)v->l4)->dgram_len = rte_cpu_to_be_16(v->l4_len);
		v->payload_len = (uint16_t)(v->l4_len - (v->payload - (uint8_t *)v->l4));
	}
	/* Ethernet minimum frame without FCS: shorter responses are padded,
	 * as a NIC would, and the padding is excluded by total_length. */
	if (frame < RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN)
		frame = RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN;
	m->data_len = frame;
	m->pkt_len = frame;
}

int rxb_stamp_mbuf(struct rte_mbuf *m, uint64_t tsc)
{
	struct rxb_pkt_view v;

	if (rxb_pkt_parse(m, &v) != 0)
		return -1;
	return rxb_stamp_write(&v, tsc);
}

uint64_t rxb_stamp_read_mbuf(struct rte_mbuf *m)
{
	struct rxb_pkt_view v;

	if (rxb_pkt_parse(m, &v) != 0)
		return 0;
	return rxb_stamp_read(&v);
}
