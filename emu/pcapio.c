/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcapio.h"

#define PCAP_MAGIC_US 0xa1b2c3d4u

struct file_hdr {
	uint32_t magic;
	uint16_t major, minor;
	int32_t zone;
	uint32_t sigfigs, snaplen, linktype;
};

struct rec_hdr {
	uint32_t sec, frac, caplen, len;
};

int rxb_pcap_open_read(struct rxb_pcap_rd *r, const char *path, char *msg, size_t cap)
{
	struct rxb_err err = { 0 };
	uint32_t lt;

	memset(r, 0, sizeof(*r));
	if (rxb_pcapread_open(&r->rd, path, &err) != 0) {
		snprintf(msg, cap, "%s", err.msg);
		return -1;
	}
	lt = rxb_pcapread_info(r->rd)->linktype;
	if (lt != RXB_LINK_ETHERNET) {
		snprintf(msg, cap,
			 "pcap '%s': link type %u is not supported (the emulator "
			 "replays Ethernet frames: link type 1)",
			 path, lt);
		rxb_pcap_close_read(r);
		return -1;
	}
	return 0;
}

int rxb_pcap_next(struct rxb_pcap_rd *r, struct rxb_pcap_rec *rec, uint8_t *data, uint32_t cap)
{
	struct rxb_err err = { 0 };
	struct rxb_pcaprec pr;
	int rc = rxb_pcapread_next(r->rd, &pr, &err);

	if (rc <= 0) {
		snprintf(r->msg, sizeof(r->msg), "%s", err.msg);
		return rc < 0 ? -1 : 0;
	}
	r->records++;
	if (r->max_frame != 0 && pr.caplen > r->max_frame) {
		snprintf(r->msg, sizeof(r->msg),
			 "record %llu holds a frame of %u bytes, more than a buffer's %u "
			 "(arch.buffer_bytes)",
			 (unsigned long long)r->records, pr.caplen, r->max_frame);
		return -1;
	}
	rec->ts_ns = pr.sec * 1000000000ull +
		     (uint64_t)pr.frac * (rxb_pcapread_info(r->rd)->nsec ? 1u : 1000u);
	rec->len = pr.orig_len;
	rec->caplen = pr.caplen < cap ? pr.caplen : cap;
	memcpy(data, pr.data, rec->caplen);
	return 1;
}

void rxb_pcap_close_read(struct rxb_pcap_rd *r)
{
	rxb_pcapread_close(r->rd);
	r->rd = NULL;
}

int rxb_pcap_check(const char *path, uint32_t max_frame, char *msg, size_t cap)
{
	struct rxb_pcap_rd r;
	struct rxb_pcap_rec rec;
	uint8_t one;
	int rc;

	if (rxb_pcap_open_read(&r, path, msg, cap) != 0)
		return -1;
	r.max_frame = max_frame;
	while ((rc = rxb_pcap_next(&r, &rec, &one, 0)) == 1)
		;
	if (rc == 0 && r.records == 0) {
		struct rxb_err err = { 0 };

		rc = rxb_pcapread_no_records(path, &err);
		snprintf(r.msg, sizeof(r.msg), "%s", err.msg);
	}
	if (rc < 0)
		snprintf(msg, cap, "%s", r.msg);
	rxb_pcap_close_read(&r);
	return rc < 0 ? -1 : 0;
}

/* The file header on f; f, or NULL (closed) on failure. */
static FILE *with_header(FILE *f)
{
	struct file_hdr h = { PCAP_MAGIC_US, 2, 4, 0, 0, 65535, RXB_LINK_ETHERNET };

	if (f != NULL && fwrite(&h, sizeof(h), 1, f) != 1) {
		fclose(f);
		return NULL;
	}
	return f;
}

FILE *rxb_pcap_open_write(const char *path)
{
	return with_header(fopen(path, "wb"));
}

FILE *rxb_pcap_create_temp(char *templ)
{
	int fd = mkstemp(templ);
	FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;

	if (fd >= 0 && f == NULL)
		close(fd);
	f = with_header(f);
	if (fd >= 0 && f == NULL)
		unlink(templ); /* created, but no capture: nobody else would remove it */
	return f;
}

int rxb_pcap_write(FILE *f, uint64_t ts_ns, const void *data, uint32_t len)
{
	struct rec_hdr h = { (uint32_t)(ts_ns / 1000000000ull),
			     (uint32_t)(ts_ns % 1000000000ull / 1000u), len, len };

	if (fwrite(&h, sizeof(h), 1, f) != 1 || (len != 0 && fwrite(data, len, 1, f) != 1))
		return -1;
	return 0;
}
