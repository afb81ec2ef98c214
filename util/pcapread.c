/* SPDX-License-Identifier: BSD-3-Clause
 * The capture-file reader of both engines, on libpcap: see pcapread.h. */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pcapread.h"

#define MAGIC_US     0xa1b2c3d4u
#define MAGIC_NS     0xa1b23c4du
#define MAGIC_PCAPNG 0x0a0d0d0au
#define FILE_HDR     24u
#define REC_HDR      16u

struct rxb_pcapread {
	pcap_t *p;
	FILE *f;       /* libpcap's stream: offsets come from it */
	uint64_t size; /* file size, to say what a failed read ran into */
	char path[200];
	struct rxb_pcapread_info info;
};

static bool supported_link(int dlt)
{
	switch (dlt) {
	case RXB_LINK_ETHERNET:
	case RXB_LINK_RAW:
	case RXB_LINK_RAW_OBSD:
	case RXB_LINK_SLL:
	case RXB_LINK_IPV4:
	case RXB_LINK_IPV6:
	case RXB_LINK_SLL2:
		return true;
	default:
		return false;
	}
}

/* The format the first 4 bytes announce: 0 classic µs, 1 classic ns, 2 pcapng,
 * -1 none. libpcap's own word for the last is "unknown file format": ours
 * names the magic and what is accepted. */
static int format_of(uint32_t magic, bool *swapped)
{
	uint32_t sw = __builtin_bswap32(magic);

	*swapped = sw == MAGIC_US || sw == MAGIC_NS;
	if (magic == MAGIC_US || sw == MAGIC_US)
		return 0;
	if (magic == MAGIC_NS || sw == MAGIC_NS)
		return 1;
	return magic == MAGIC_PCAPNG ? 2 : -1;
}

static int fail_open(struct rxb_pcapread *r, FILE *f, int rc)
{
	if (f != NULL)
		fclose(f);
	free(r);
	return rc;
}

/* The file's first bytes say which format and which timestamp precision to
 * ask libpcap for: a classic file's own, so its fractions come back
 * unscaled (and checkable against their unit); pcapng in ns. */
static int check_head(struct rxb_pcapread *r, FILE *f, int *fmt, struct rxb_err *err)
{
	uint32_t magic = 0;
	size_t got = fread(&magic, 1, 4, f);
	bool swapped = false;

	if (got == 4)
		*fmt = format_of(magic, &swapped);
	if (got == 4 && *fmt < 0) {
		rxb_err_set(err,
			    "pcap '%s': offset 0: magic 0x%08x is neither pcap (a1b2c3d4, "
			    "a1b23c4d, either byte order) nor pcapng (0a0d0d0a)",
			    r->path, magic);
		return -EBADMSG;
	}
	if (got < 4 || (*fmt < 2 && r->size < FILE_HDR)) {
		rxb_err_set(err,
			    "pcap '%s': offset %llu: truncated file header (got %llu of %u "
			    "bytes)",
			    r->path, (unsigned long long)r->size, (unsigned long long)r->size,
			    FILE_HDR);
		return -EBADMSG;
	}
	r->info.nsec = *fmt != 0;
	r->info.swapped = *fmt < 2 && swapped;
	r->info.pcapng = *fmt == 2;
	rewind(f);
	return 0;
}

int rxb_pcapread_open(struct rxb_pcapread **out, const char *path, struct rxb_err *err)
{
	char eb[PCAP_ERRBUF_SIZE] = "";
	struct rxb_pcapread *r;
	struct stat st;
	int fmt = -1, rc, e;
	FILE *f;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return rxb_err_fail(err, -ENOMEM, "pcap '%s': out of memory", path);
	snprintf(r->path, sizeof(r->path), "%s", path);
	f = fopen(path, "rb");
	if (f == NULL || fstat(fileno(f), &st) != 0) {
		e = errno;
		rxb_err_set(err, "pcap '%s': cannot open: %s", path, strerror(e));
		return fail_open(r, f, -e);
	}
	if (S_ISDIR(st.st_mode)) {
		rxb_err_set(err, "pcap '%s': is a directory, not a trace file", path);
		return fail_open(r, f, -EISDIR);
	}
	r->size = (uint64_t)st.st_size;
	rc = check_head(r, f, &fmt, err);
	if (rc)
		return fail_open(r, f, rc);
	r->p = pcap_fopen_offline_with_tstamp_precision(
		f, fmt == 0 ? PCAP_TSTAMP_PRECISION_MICRO : PCAP_TSTAMP_PRECISION_NANO, eb);
	if (r->p == NULL) {
		rxb_err_set(err, "pcap '%s': offset 0: not a readable %s file: %s", path,
			    fmt == 2 ? "pcapng" : "pcap", eb);
		return fail_open(r, f, -EBADMSG);
	}
	r->f = f; /* libpcap's now: pcap_close closes it */
	r->info.linktype = (uint32_t)pcap_datalink(r->p);
	r->info.snaplen = (uint32_t)pcap_snapshot(r->p);
	if (!supported_link(pcap_datalink(r->p))) {
		rxb_err_set(err,
			    "pcap '%s': link type %u is not supported (Ethernet 1, raw IP "
			    "101/12/14/228/229, Linux cooked 113/276 are)",
			    path, r->info.linktype);
		rxb_pcapread_close(r);
		return -EBADMSG;
	}
	*out = r;
	return 0;
}

/* What a classic record that libpcap could not read ran into, said as the
 * record's own fields: the file size and the record header tell. */
static int classic_fail(struct rxb_pcapread *r, uint64_t off, struct rxb_err *err)
{
	uint64_t left = r->size > off ? r->size - off : 0;
	uint32_t caplen;

	if (left < REC_HDR)
		return rxb_err_fail(err, -EBADMSG,
				    "pcap '%s': offset %llu: truncated record header "
				    "(got %llu of %u bytes)",
				    r->path, (unsigned long long)off, (unsigned long long)left,
				    REC_HDR);
	if (pread(fileno(r->f), &caplen, 4, (off_t)(off + 8)) != 4)
		return rxb_err_fail(err, -EIO, "pcap '%s': offset %llu: read error: %s", r->path,
				    (unsigned long long)off, strerror(errno));
	caplen = r->info.swapped ? __builtin_bswap32(caplen) : caplen;
	if (caplen > RXB_PCAPREAD_MAX_CAPLEN)
		return rxb_err_fail(err, -EBADMSG,
				    "pcap '%s': offset %llu: captured length %u "
				    "exceeds the maximum %u (corrupt record header?)",
				    r->path, (unsigned long long)off, caplen,
				    RXB_PCAPREAD_MAX_CAPLEN);
	if (left - REC_HDR < caplen)
		return rxb_err_fail(err, -EBADMSG,
				    "pcap '%s': offset %llu: truncated packet data "
				    "(record says %u bytes, only %llu present)",
				    r->path, (unsigned long long)(off + REC_HDR), caplen,
				    (unsigned long long)(left - REC_HDR));
	return rxb_err_fail(err, -EBADMSG, "pcap '%s': offset %llu: %s", r->path,
			    (unsigned long long)off, pcap_geterr(r->p));
}

/* Classic pcap stores unsigned 32-bit seconds and fractions; libpcap passes
 * them on sign-extended. A fraction of a second or more is a corrupt record. */
static int set_time(struct rxb_pcapread *r, const struct pcap_pkthdr *h, struct rxb_pcaprec *rec,
		    struct rxb_err *err)
{
	uint32_t one = r->info.nsec ? 1000000000u : 1000000u;

	rec->sec = r->info.pcapng ? (uint64_t)h->ts.tv_sec : (uint32_t)h->ts.tv_sec;
	rec->frac = (uint32_t)h->ts.tv_usec;
	if (rec->frac >= one)
		return rxb_err_fail(err, -EBADMSG,
				    "pcap '%s': offset %llu: timestamp fraction %u "
				    "is not below one second (%s timestamps)",
				    r->path, (unsigned long long)rec->off + 4, rec->frac,
				    r->info.nsec ? "ns" : "us");
	return 0;
}

int rxb_pcapread_next(struct rxb_pcapread *r, struct rxb_pcaprec *rec, struct rxb_err *err)
{
	struct pcap_pkthdr *h;
	const u_char *d;
	long pos = ftell(r->f);
	int rc;

	rec->off = pos < 0 ? 0 : (uint64_t)pos;
	rc = pcap_next_ex(r->p, &h, &d);
	if (rc == PCAP_ERROR_BREAK)
		return 0; /* the end of the file, at a record boundary */
	if (rc != 1 && ferror(r->f))
		return rxb_err_fail(err, -EIO, "pcap '%s': offset %llu: read error: %s", r->path,
				    (unsigned long long)rec->off, pcap_geterr(r->p));
	if (rc != 1 && !r->info.pcapng)
		return classic_fail(r, rec->off, err);
	if (rc != 1)
		return rxb_err_fail(err, -EBADMSG, "pcap '%s': offset %llu: %s", r->path,
				    (unsigned long long)rec->off, pcap_geterr(r->p));
	rec->caplen = h->caplen;
	rec->orig_len = h->len;
	rec->data = d;
	rc = set_time(r, h, rec, err);
	return rc ? rc : 1;
}

const struct rxb_pcapread_info *rxb_pcapread_info(const struct rxb_pcapread *r)
{
	return &r->info;
}

const char *rxb_pcapread_path(const struct rxb_pcapread *r)
{
	return r->path;
}

void rxb_pcapread_close(struct rxb_pcapread *r)
{
	if (r == NULL)
		return;
	if (r->p != NULL)
		pcap_close(r->p);
	free(r);
}

int rxb_pcapread_no_records(const char *path, struct rxb_err *err)
{
	return rxb_err_fail(err, -ENODATA, "pcap '%s': no packets (a trace to replay needs one)",
			    path);
}

int rxb_pcapread_scan(const char *path, uint64_t *records, struct rxb_err *err)
{
	struct rxb_pcapread *r;
	struct rxb_pcaprec rec;
	int rc = rxb_pcapread_open(&r, path, err);

	*records = 0;
	if (rc)
		return rc;
	while ((rc = rxb_pcapread_next(r, &rec, err)) == 1)
		++*records;
	rxb_pcapread_close(r);
	if (rc == 0 && *records == 0)
		return rxb_pcapread_no_records(path, err);
	return rc;
}
