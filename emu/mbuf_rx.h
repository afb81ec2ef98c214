/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The reset a NIC's receive path gives a mbuf: its first cache line only.
 */
#ifndef RXB_EMU_MBUF_RX_H
#define RXB_EMU_MBUF_RX_H

#include <rte_mbuf.h>

/* rte_pktmbuf_reset() without its two stores to the mbuf's second line
 * (next, tx_offload), as DPDK's receive paths re-arm a mbuf: a mbuf taken
 * from a mempool has no next segment already (DPDK's rule for a free mbuf),
 * and tx_offload means nothing until the ol_flags cleared here ask for an
 * offload. The lcore that plays the NIC then leaves the second line in the
 * cache of the worker that freed the mbuf, which reads it again when it
 * frees it next: a store there would move the line to the NIC lcore and
 * back for every packet. */
static inline void rxb_mbuf_rx_reset(struct rte_mbuf *m)
{
	RTE_BUILD_BUG_ON(offsetof(struct rte_mbuf, next) < RTE_CACHE_LINE_MIN_SIZE);
	RTE_BUILD_BUG_ON(offsetof(struct rte_mbuf, tx_offload) < RTE_CACHE_LINE_MIN_SIZE);
	m->data_off = (uint16_t)RTE_MIN(RTE_PKTMBUF_HEADROOM, m->buf_len);
	m->nb_segs = 1;
	m->port = RTE_MBUF_PORT_INVALID;
	m->ol_flags &= RTE_MBUF_F_EXTERNAL;
	m->packet_type = 0;
	m->pkt_len = 0;
	m->data_len = 0;
	m->vlan_tci = 0;
	m->vlan_tci_outer = 0;
}

#endif /* RXB_EMU_MBUF_RX_H */
