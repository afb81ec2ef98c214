/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include "pcapio.h"

#define PCAP_MAGIC_US 0xa1b2c3d4u
#define PCAP_MAGIC_NS 0xa1b23c4du
#define PCAP_LINK_ETHERNET 1u

struct file_hdr {
	uint32_t magic;
	uint16_t major, minor;
	int32_t zone;
	uint32_t sigfigs, snaplen, linktype;
};

struct rec_hdr {
	uint32_t sec, frac, caplen, len;
};

static uint32_t sw32(uint32_t v, bool swap)
{
	return swap ? __builtin_bswap32(v) : v;
}

int rxb_pcap_open_read(struct rxb_pcap_rd *r, const char *path, char *msg, size_t cap)
{
	struct file_hdr h;

	memset(r, 0, sizeof(*r));
	r->f = fopen(path, "rb");
	if (r->f == NULL) {
		snprintf(msg, cap, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (fread(&h, sizeof(h), 1, r->f) != 1) {
		snprintf(msg, cap, "%s: not a pcap file (too short)", path);
		goto fail;
	}
	if (h.magic == PCAP_MAGIC_US || h.magic == PCAP_MAGIC_NS) {
		r->nsec = h.magic == PCAP_MAGIC_NS;
	} else if (h.magic == __builtin_bswap32(PCAP_MAGIC_US) ||
		   h.magic == __builtin_bswap32(PCAP_MAGIC_NS)) {
		r->swap = true;
		r->nsec = h.magic == __builtin_bswap32(PCAP_MAGIC_NS);
	} else {
		snprintf(msg, cap, "%s: not a pcap file (magic %08x; pcapng is not supported)",
			 path, h.magic);
		goto fail;
	}
	r->linktype = sw32(h.linktype, r->swap);
	if (r->linktype != PCAP_LINK_ETHERNET) {
		snprintf(msg, cap, "%s: link type %u, only Ethernet (1) is supported", path,
			 r->linktype);
		goto fail;
	}
	return 0;
fail:
	fclose(r->f);
	r->f = NULL;
	return -1;
}

int rxb_pcap_next(struct rxb_pcap_rd *r, struct rxb_pcap_rec *rec, uint8_t *data, uint32_t cap)
{
	struct rec_hdr h;
	uint32_t keep;

	if (fread(&h, sizeof(h), 1, r->f) != 1)
		return feof(r->f) ? 0 : -1;
	rec->caplen = sw32(h.caplen, r->swap);
	rec->len = sw32(h.len, r->swap);
	rec->ts_ns = (uint64_t)sw32(h.sec, r->swap) * 1000000000ull +
		     (uint64_t)sw32(h.frac, r->swap) * (r->nsec ? 1u : 1000u);
	if (rec->caplen > (1u << 18))
		return -1;
	keep = rec->caplen < cap ? rec->caplen : cap;
	if (keep != 0 && fread(data, keep, 1, r->f) != 1)
		return -1;
	if (rec->caplen > keep && fseek(r->f, (long)(rec->caplen - keep), SEEK_CUR) != 0)
		return -1;
	rec->caplen = keep;
	return 1;
}

void rxb_pcap_close_read(struct rxb_pcap_rd *r)
{
	if (r->f != NULL)
		fclose(r->f);
	r->f = NULL;
}

FILE *rxb_pcap_open_write(const char *path)
{
	struct file_hdr h = { PCAP_MAGIC_US, 2, 4, 0, 0, 65535, PCAP_LINK_ETHERNET };
	FILE *f = fopen(path, "wb");

	if (f != NULL && fwrite(&h, sizeof(h), 1, f) != 1) {
		fclose(f);
		return NULL;
	}
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
