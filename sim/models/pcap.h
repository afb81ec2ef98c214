/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/models/pcap.h — a capture's packets as the simulator sees them; write
 * classic pcap files.
 *
 * Reading goes through the engines' one reader (util/pcapread.h, libpcap):
 * pcap in both byte orders with microsecond (0xa1b2c3d4) or nanosecond
 * (0xa1b23c4d) timestamps, and pcapng; link types Ethernet (1, with up to
 * RXB_ETH_MAX_TAGS 802.1Q / 802.1ad VLAN tags, parsed by rxb_eth_l3 as the
 * NIC hash parses them), raw IP (101, and the DLT values 12 and 14 some
 * writers use for it), IPv4 (228), IPv6 (229), Linux cooked v1 (113) and v2
 * (276); IPv4 and IPv6 (skipping extension headers) with TCP, UDP or SCTP
 * ports.
 *
 * What a packet becomes (struct sim_pkt, see traffic.h):
 *   t_ps   time since the first packet of the file, in ps. Timestamps that
 *          go backwards (merged captures) are clamped to the previous
 *          packet's time and counted in `reordered`. A packet more than
 *          2^64 - 1 ps (18446744.07 s, 213 days) after the first cannot be
 *          given a time: sim_pcap_next fails with -EBADMSG, naming the record
 *          and the gap.
 *   len    the Ethernet frame length with FCS, from the record's original
 *          (on-the-wire) length: captures do not include the FCS, so +4;
 *          raw-IP captures have no Ethernet header either, so +18; cooked
 *          captures replace the SLL header by an Ethernet header (also when
 *          the capture ends inside it). At least 64. Lengths above 9018
 *          (offloaded captures) are kept and counted in `oversize`; one
 *          above 2^32 - 1 (an orig_len near 2^32: a corrupt record) becomes
 *          2^32 - 1.
 *   tuple  addresses in host byte order; IPv6 addresses folded to 32 bits
 *          (XOR of their four words: a flow identity). Non-first fragments
 *          and protocols without ports have ports 0 (`frags` counts the
 *          former).
 *   rss    only from a reader given an RSS key (sim_pcap_set_rss): the hash
 *          a NIC computes, by rxb_rss_frame's rules — IPv6 over the full
 *          addresses (the tuple holds them folded), the ports only for TCP
 *          and UDP and not for IPv4 fragments nor past IPv6 extension
 *          headers; bytes the capture cut read as zero; 0 for non-IP.
 *          Otherwise 0.
 *   non-IP (ARP, LLDP, ...): returned with l3 = 0 and a zero tuple, and
 *          counted in `nonip`; with SIM_PCAP_SKIP_NONIP they are skipped
 *          and counted in `skipped` instead.
 *   Captured bytes that end inside a header leave the rest of the tuple
 *   zero and count in `short_hdr`. A packet whose IP header is cut is IP
 *   all the same when its version nibble was captured: l3 = 4 or 6, with
 *   the fields that were captured (proto, source address).
 *
 * Errors name the file, the byte offset and what was wrong: those of the
 * reader (util/pcapread.h: unreadable file, bad magic, unsupported link
 * type, truncated record header or data, implausible captured length,
 * timestamp fraction of a second or more) and a packet too far after the
 * first. After an error the reader is only to be closed.
 *
 * Writing produces Ethernet/IPv4/UDP-or-TCP frames rebuilt from each
 * packet's tuple (IPv4 header checksum computed, L4 checksums 0, payload
 * zero), captured up to `snaplen` bytes, original length len − 4 (no FCS).
 */
#ifndef SIM_PCAP_H
#define SIM_PCAP_H

#include <stdint.h>

#include "pcapread.h"
#include "rxb/common.h"
#include "rxb/rss.h"
#include "traffic.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SIM_PCAP_NSEC       1u /* writer: nanosecond timestamps (else µs) */
#define SIM_PCAP_SWAPPED    2u /* writer: the byte order opposite to the host's */
#define SIM_PCAP_SKIP_NONIP 4u /* reader: skip non-IP packets */

#define SIM_PCAP_MAX_CAPLEN RXB_PCAPREAD_MAX_CAPLEN

struct sim_pcap_info {
	uint32_t linktype;
	uint32_t snaplen;
	int nsec;           /* nanosecond timestamps */
	int swapped;        /* file byte order differs from the host's */
	uint64_t t0_sec;    /* first packet's timestamp as in the file */
	uint32_t t0_frac;   /* µs or ns */
	uint64_t pkts;      /* packets returned */
	uint64_t nonip;     /* returned with l3 = 0 */
	uint64_t skipped;   /* non-IP packets skipped (SIM_PCAP_SKIP_NONIP) */
	uint64_t short_hdr; /* headers cut by the snapshot length */
	uint64_t frags;     /* non-first IP fragments (no ports) */
	uint64_t reordered; /* timestamps clamped to the previous packet's */
	uint64_t oversize;  /* len > SIM_ETH_MAX_FRAME */
};

struct sim_pcap_reader;

int sim_pcap_open(struct sim_pcap_reader **out, const char *path, unsigned flags,
		  struct rxb_err *err);
/* Returns 1 with *p filled, 0 at the end of the file, or a negative errno
 * (-EBADMSG for a malformed or truncated file, -EIO for a read error). */
int sim_pcap_next(struct sim_pcap_reader *r, struct sim_pkt *p, struct rxb_err *err);
/* Give packets the NIC's hash with this key from now on (`rss` must outlive
 * the reader). */
void sim_pcap_set_rss(struct sim_pcap_reader *r, const struct rxb_rss *rss);
const struct sim_pcap_info *sim_pcap_info(const struct sim_pcap_reader *r);
void sim_pcap_close(struct sim_pcap_reader *r);

/* Parse one captured frame of `linktype` into the tuple fields of *p
 * (t_ps untouched). Returns 1 for IP, 0 otherwise. `orig_len` is the
 * on-the-wire length from the record. info (may be NULL) gets the counts. */
int sim_pcap_parse(const uint8_t *data, uint32_t caplen, uint32_t orig_len, uint32_t linktype,
		   struct sim_pkt *p, struct sim_pcap_info *info);

struct sim_pcap_writer;

/* epoch_sec: the timestamp (seconds) that packet time 0 maps to. */
int sim_pcap_create(struct sim_pcap_writer **out, const char *path, unsigned flags,
		    uint32_t snaplen, uint64_t epoch_sec, struct rxb_err *err);
int sim_pcap_write(struct sim_pcap_writer *w, const struct sim_pkt *p, struct rxb_err *err);
/* Flush and close; reports a failed flush. Always frees w. */
int sim_pcap_finish(struct sim_pcap_writer *w, struct rxb_err *err);

#ifdef __cplusplus
}
#endif
#endif /* SIM_PCAP_H */
