/* SPDX-License-Identifier: BSD-3-Clause
 *
 * pcapio.h — the emulator's pcap files: read a trace through the engines'
 * one reader (util/pcapread.h: pcap or pcapng, µs or ns timestamps, either
 * byte order), Ethernet frames only — they go to the wire as they are —
 * and write one (microsecond, native order, Ethernet). Used to split a
 * trace by RSS into one file per physical queue, and by the tests.
 */
#ifndef RXB_EMU_PCAPIO_H
#define RXB_EMU_PCAPIO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pcapread.h"

struct rxb_pcap_rd {
	struct rxb_pcapread *rd;
	uint32_t max_frame; /* 0, or a record holding more bytes is an error */
	uint64_t records;   /* read so far */
	char msg[256];      /* what rxb_pcap_next's -1 was */
};

struct rxb_pcap_rec {
	uint64_t ts_ns;
	uint32_t caplen, len;
};

/* 0, or -1 with a one-line message in msg (size cap). */
int rxb_pcap_open_read(struct rxb_pcap_rd *r, const char *path, char *msg, size_t cap);
/* 1 with a record (data truncated to `cap` bytes, rec->caplen the kept
 * length), 0 at the end, -1 for a truncated or corrupt file or a frame
 * above r->max_frame (r->msg says where and what). */
int rxb_pcap_next(struct rxb_pcap_rd *r, struct rxb_pcap_rec *rec, uint8_t *data, uint32_t cap);
void rxb_pcap_close_read(struct rxb_pcap_rd *r);
/* Read every record of the file: 0, or -1 with a one-line message in msg
 * (the first error: open, link type, truncated or corrupt record, a frame
 * above max_frame bytes, no record at all). For a trace handed whole to net_pcap, which
 * stops at a bad record silently and chains a frame larger than a buffer. */
int rxb_pcap_check(const char *path, uint32_t max_frame, char *msg, size_t cap);

/* Microsecond pcap, Ethernet link type. NULL on failure (errno). */
FILE *rxb_pcap_open_write(const char *path);
/* The same in a new file of its own: templ ends in "XXXXXX", which mkstemp
 * replaces (templ then names the file). Never an existing file or a link
 * someone placed at a name they could guess. */
FILE *rxb_pcap_create_temp(char *templ);
int rxb_pcap_write(FILE *f, uint64_t ts_ns, const void *data, uint32_t len);

#endif /* RXB_EMU_PCAPIO_H */
