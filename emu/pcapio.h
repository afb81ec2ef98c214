/* SPDX-License-Identifier: BSD-3-Clause
 *
 * pcapio.h — the little of the pcap file format the emulator needs: read a
 * trace (microsecond or nanosecond timestamps, either byte order) and write
 * one (microsecond, native order, Ethernet). Used to split a trace by RSS
 * into one file per physical queue, and by the tests.
 */
#ifndef RXB_EMU_PCAPIO_H
#define RXB_EMU_PCAPIO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct rxb_pcap_rd {
	FILE *f;
	bool swap;      /* file written in the other byte order */
	bool nsec;      /* timestamps in nanoseconds */
	uint32_t linktype;
};

struct rxb_pcap_rec {
	uint64_t ts_ns;
	uint32_t caplen, len;
};

/* 0, or -1 with a message in msg (size cap). */
int rxb_pcap_open_read(struct rxb_pcap_rd *r, const char *path, char *msg, size_t cap);
/* 1 with a record (data truncated to `cap` bytes, rec->caplen the stored
 * length), 0 at the end, -1 for a truncated or corrupt file. */
int rxb_pcap_next(struct rxb_pcap_rd *r, struct rxb_pcap_rec *rec, uint8_t *data, uint32_t cap);
void rxb_pcap_close_read(struct rxb_pcap_rd *r);

/* Microsecond pcap, Ethernet link type. NULL on failure (errno). */
FILE *rxb_pcap_open_write(const char *path);
int rxb_pcap_write(FILE *f, uint64_t ts_ns, const void *data, uint32_t len);

#endif /* RXB_EMU_PCAPIO_H */
