/* SPDX-License-Identifier: BSD-3-Clause
 *
 * util/pcapread.h — the one capture-file reader of the simulator (sim/models/pcap.c)
 * and the emulator (emu/pcapio.c): pcap in both byte orders with µs or ns
 * timestamps, and pcapng.
 *
 * Built on libpcap rather than a reader of our own: it reads both formats
 * (pcapng's sections, interfaces and their timestamp resolutions included),
 * it is maintained with the formats, and it is what DPDK's net_pcap, the
 * emulator's pcap port, reads the same files with — so the engines accept
 * exactly the files the emulator's port does. What it leaves to us, done
 * here: errors that name the file, the byte offset and what was wrong
 * (truncated header or data, implausible captured length, a timestamp
 * fraction of a second or more), classic pcap's 32-bit unsigned seconds
 * (libpcap hands them on as signed), and refusing link types no parser of
 * ours reads.
 *
 * A record's captured bytes are what libpcap returns: at most the file's
 * snapshot length (libpcap cuts longer records to it) and at most
 * RXB_PCAPREAD_MAX_CAPLEN.
 */
#ifndef RXB_UTIL_PCAPREAD_H
#define RXB_UTIL_PCAPREAD_H

#include <stdbool.h>
#include <stdint.h>

#include "rxb/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RXB_PCAPREAD_MAX_CAPLEN 262144u /* libpcap's MAXIMUM_SNAPLEN */

/* Link types as libpcap reports them (pcap_datalink: LINKTYPE_RAW 101 comes
 * back as DLT_RAW 12); the frame parsers read these and no others. */
enum rxb_pcap_link {
	RXB_LINK_ETHERNET = 1,
	RXB_LINK_RAW = 12,      /* raw IP (file link type 101 or 12) */
	RXB_LINK_RAW_OBSD = 14, /* raw IP as OpenBSD numbers it */
	RXB_LINK_SLL = 113,     /* Linux cooked v1 */
	RXB_LINK_IPV4 = 228,
	RXB_LINK_IPV6 = 229,
	RXB_LINK_SLL2 = 276, /* Linux cooked v2 */
};

struct rxb_pcapread_info {
	uint32_t linktype; /* enum rxb_pcap_link */
	uint32_t snaplen;  /* as libpcap reads it (an invalid one: the maximum) */
	bool nsec;         /* record fractions are ns (else µs) */
	bool swapped;      /* file byte order differs from the host's */
	bool pcapng;
};

struct rxb_pcaprec {
	uint64_t sec;        /* timestamp seconds (classic pcap: its unsigned 32 bits) */
	uint32_t frac;       /* fraction of a second, ns or µs (info.nsec) */
	uint32_t caplen;     /* bytes at data */
	uint32_t orig_len;   /* length on the wire */
	const uint8_t *data; /* valid until the next call */
	uint64_t off;        /* file offset of the record (pcapng: of its block) */
};

struct rxb_pcapread;

/* 0, or a negative errno with a one-line message naming the file: cannot
 * open (-errno), neither pcap nor pcapng, truncated file header, an
 * unsupported link type (all -EBADMSG). */
int rxb_pcapread_open(struct rxb_pcapread **out, const char *path, struct rxb_err *err);
/* 1 with *rec, 0 at the end of the file, or -EBADMSG with a message naming
 * the file and the offset. After an error the reader is only to be closed. */
int rxb_pcapread_next(struct rxb_pcapread *r, struct rxb_pcaprec *rec, struct rxb_err *err);
const struct rxb_pcapread_info *rxb_pcapread_info(const struct rxb_pcapread *r);
const char *rxb_pcapread_path(const struct rxb_pcapread *r);
void rxb_pcapread_close(struct rxb_pcapread *r);
/* Reads the capture at path to its end: 0 with *records (at least 1), or a
 * negative errno with the reader's message. A capture without a record is
 * -ENODATA, with the message of rxb_pcapread_no_records. The engines read
 * a trace while they run; this finds a cut or empty file before they start. */
int rxb_pcapread_scan(const char *path, uint64_t *records, struct rxb_err *err);
/* -ENODATA and the one message for a capture that holds no record: a trace
 * replays its packets, so one without any would run a silent 0 Gbps. */
int rxb_pcapread_no_records(const char *path, struct rxb_err *err);

#ifdef __cplusplus
}
#endif
#endif /* RXB_UTIL_PCAPREAD_H */
