/* SPDX-License-Identifier: BSD-3-Clause
 *
 * libFuzzer target: the simulator's classic pcap reader (sim/models/pcap.c), as
 * `rxb sim` feeds it a user's capture (traffic.pattern = "trace").
 *
 * Input = the file, as is. It is written to a memfd and opened through
 * /proc/self/fd/N, so sim_pcap_open() reads it with its own stdio code.
 * Every input is read twice, without and with SIM_PCAP_SKIP_NONIP.
 *
 * The reader sits on libpcap (util/pcapread.c). The reference model walks a
 * classic version-2.4 file itself as libpcap reads it (pcap-savefile(5)):
 * the 24-byte header (magic in either byte order, µs or ns; link type
 * without its FCS bits, LINKTYPE_RAW 101 coming back as DLT_RAW 12; a
 * snapshot length of 0 or negative as an int read as SIM_PCAP_MAX_CAPLEN),
 * then 16-byte record headers and their data, a record longer than the
 * snapshot length cut down to it. It says which call must fail and how
 * (-EBADMSG with a message: short file header, bad magic, unsupported link
 * type, truncated record header, captured length above SIM_PCAP_MAX_CAPLEN,
 * timestamp fraction of a second or more, truncated data), and for every
 * record the reader returns:
 *   - the packet is what sim_pcap_parse() makes of the record's bytes
 *     (the reader passes caplen, orig_len and the link type through), and
 *     it is counted as IP (not in nonip, not skipped) exactly when
 *     sim_pcap_parse() says it is;
 *   - len = max(orig_len, caplen) − the cooked header (captured whole or
 *     not) + the Ethernet header for non-Ethernet link types + FCS, at
 *     least 64, computed in 64 bits and saturated at 2^32 − 1 (pcap.h);
 *   - l3 is 4 or 6 for an IP packet and 0 for the others, which have a zero
 *     tuple; an IPv4 packet on Ethernet or raw IP has the header's
 *     addresses, and a raw-IP IPv4 header cut below 20 bytes is l3 = 4
 *     with the source address when it was captured;
 *   - t_ps = time since the first returned packet, in ps, never below the
 *     previous packet's (computed here in 128 bits; `reordered` counts the
 *     clamped ones); a packet more than 2^64 − 1 ps after the first makes
 *     sim_pcap_next fail with -EBADMSG and a message, and that pass ends;
 *   - the counters: pkts, nonip, skipped, reordered, and short_hdr / frags
 *     / oversize as sim_pcap_parse() counts the records read;
 *   - with SKIP_NONIP the reader returns exactly the IP packets of the
 *     first pass, and a clean end stays a clean end.
 * Files the model does not walk (pcapng, other savefile versions, the
 * Kuznetzov variant, reserved link-type bits: libpcap's own rules) are read
 * to the end for robustness only: every call returns 0, 1 or -EBADMSG with
 * a message, and a failed open leaves no reader.
 * A violation prints one line "fuzz_pcap: ..." and aborts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "pcap.h"

#define T         "fuzz_pcap"
#define FAIL(...) FUZZ_FAIL(T, __VA_ARGS__)

#define MAGIC_US        0xa1b2c3d4u
#define MAGIC_NS        0xa1b23c4du
#define MAGIC_KUZNETZOV 0xa1b2cd34u
#define MAGIC_PCAPNG    0x0a0d0d0au /* a section header block, the same in both orders */
#define LINKTYPE_RAW    101u
#define DLT_RAW         12u
#define LT_RESERVED     0x0c000000u

struct rec {
	uint32_t sec, frac, caplen, orig;
	const uint8_t *data;
	uint64_t off;
};

struct model {
	int unmodelled; /* libpcap's own rules decide: robustness checks only */
	int open_rc;    /* 0 or -EBADMSG */
	int swapped, nsec;
	uint32_t linktype, snaplen;
	struct rec *r; /* complete, valid records, in file order */
	size_t n;
	int end_rc; /* after the last record: 0 (clean end) or -EBADMSG */
};

/* sim_pcap_parse() of each record on its own: the packet, whether it is IP,
 * and what it adds to the counters. */
struct ref {
	struct sim_pkt pkt;
	uint8_t ip;
	uint8_t short_hdr, frags, oversize;
};

/* What one pass expects (computed before it runs) and got. */
struct pass {
	const uint8_t *sel;  /* records returned: NULL = all */
	uint64_t *t;         /* expected t_ps, by record */
	size_t stop;         /* the record whose time overflows (-EBADMSG), or n */
	uint64_t reordered;  /* expected `reordered` */
	struct sim_pkt *pkt; /* returned, by record (those before stop) */
	struct sim_pcap_info info;
};

static int fd = -1;
static char path[64];

static uint32_t rd32(const struct model *m, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return m->swapped ? __builtin_bswap32(v) : v;
}

static uint16_t rd16(const struct model *m, const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return m->swapped ? __builtin_bswap16(v) : v;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int supported(uint32_t lt)
{
	return lt == 1 || lt == 12 || lt == 14 || lt == 101 || lt == 113 || lt == 276 ||
	       lt == 228 || lt == 229;
}

static void walk(struct model *m, const uint8_t *d, size_t n)
{
	uint32_t magic;
	size_t off = 24;

	memset(m, 0, sizeof(*m));
	m->open_rc = -EBADMSG;
	if (n < 24)
		return;
	memcpy(&magic, d, 4);
	if (magic == MAGIC_PCAPNG || magic == MAGIC_KUZNETZOV ||
	    __builtin_bswap32(magic) == MAGIC_KUZNETZOV) {
		m->unmodelled = 1;
		return;
	}
	if (magic != MAGIC_US && magic != MAGIC_NS) {
		magic = __builtin_bswap32(magic);
		if (magic != MAGIC_US && magic != MAGIC_NS)
			return;
		m->swapped = 1;
	}
	m->nsec = magic == MAGIC_NS;
	if (rd16(m, d + 4) != 2 || rd16(m, d + 6) != 4 || rd32(m, d + 20) & LT_RESERVED) {
		m->unmodelled = 1;
		return;
	}
	m->snaplen = rd32(m, d + 16);
	if ((int32_t)m->snaplen <= 0) /* libpcap keeps any positive one */
		m->snaplen = SIM_PCAP_MAX_CAPLEN;
	m->linktype = rd32(m, d + 20) & 0x03ffffffu;
	if (m->linktype == LINKTYPE_RAW)
		m->linktype = DLT_RAW;
	if (!supported(m->linktype))
		return;
	m->open_rc = 0;
	m->r = malloc((n / 16 + 1) * sizeof(*m->r));
	if (m->r == NULL)
		FAIL("out of memory");
	for (;;) {
		struct rec *r = &m->r[m->n];

		if (off == n) {
			m->end_rc = 0;
			return;
		}
		if (n - off < 16) {
			m->end_rc = -EBADMSG;
			return;
		}
		r->sec = rd32(m, d + off);
		r->frac = rd32(m, d + off + 4);
		r->caplen = rd32(m, d + off + 8);
		r->orig = rd32(m, d + off + 12);
		r->off = off;
		if (r->caplen > SIM_PCAP_MAX_CAPLEN ||
		    r->frac >= (m->nsec ? 1000000000u : 1000000u) || n - off - 16 < r->caplen) {
			m->end_rc = -EBADMSG;
			return;
		}
		r->data = d + off + 16;
		off += 16 + (size_t)r->caplen;
		if (r->caplen > m->snaplen)
			r->caplen = m->snaplen; /* the rest is read and dropped */
		m->n++;
	}
}

/* Frame length per pcap.h, in 64 bits, saturated as a sim_pkt holds it. The
 * cooked header is taken off whether or not the record captured all of it:
 * the length is the packet's, not the capture's. */
static uint64_t model_len(const struct model *m, const struct rec *r)
{
	uint64_t len = r->orig > r->caplen ? r->orig : r->caplen, l2 = 14;

	if (m->linktype == 1) {
		l2 = 0;
	} else if (m->linktype == 113 || m->linktype == 276) {
		uint64_t hl = m->linktype == 113 ? 16 : 20;

		len = len >= hl ? len - hl : 0;
	}
	len += l2 + 4;
	len = len < 64 ? 64 : len;
	return len > UINT32_MAX ? UINT32_MAX : len;
}

/* Expected t_ps of the records a pass returns (ps->sel), in 128 bits: the
 * time since the first of them, 0 when earlier, clamped to the previous
 * one's (counted in ps->reordered). ps->stop: the first whose time is above
 * UINT64_MAX, where the reader must fail, or m->n. */
static void model_times(const struct model *m, struct pass *ps)
{
	const __int128 unit = m->nsec ? 1000 : 1000000;
	const struct rec *t0 = NULL;
	uint64_t prev = 0;

	ps->stop = m->n;
	ps->reordered = 0;
	for (size_t i = 0; i < m->n; i++) {
		__int128 rel;
		uint64_t t;

		if (ps->sel && !ps->sel[i])
			continue;
		if (t0 == NULL)
			t0 = &m->r[i];
		rel = ((__int128)m->r[i].sec - t0->sec) * (__int128)SIM_PS_PER_S +
		      ((__int128)m->r[i].frac - t0->frac) * unit;
		if (rel > (__int128)UINT64_MAX) {
			ps->stop = i;
			return;
		}
		t = rel > 0 ? (uint64_t)rel : 0;
		if (t < prev) {
			t = prev;
			ps->reordered++;
		}
		ps->t[i] = prev = t;
	}
}

static void same_pkt(const struct sim_pkt *a, const struct sim_pkt *b, const char *what, size_t i)
{
	if (a->len != b->len || a->sip != b->sip || a->dip != b->dip || a->sport != b->sport ||
	    a->dport != b->dport || a->proto != b->proto || a->l3 != b->l3 || a->cls != b->cls ||
	    a->flow != b->flow || a->key != b->key)
		FAIL("record %zu: %s: len %u/%u l3 %u/%u proto %u/%u sip %08x/%08x dip %08x/%08x "
		     "ports %u>%u / %u>%u",
		     i, what, a->len, b->len, a->l3, b->l3, a->proto, b->proto, a->sip, b->sip,
		     a->dip, b->dip, a->sport, a->dport, b->sport, b->dport);
}

/* Independent spot check: IPv4 addresses where the header puts them; a
 * raw-IP IPv4 header cut short is IPv4 with what it holds (pcap.h). */
static void check_ipv4_addrs(const struct model *m, const struct rec *r, const struct sim_pkt *p,
			     size_t i)
{
	const uint8_t *ip = NULL;
	uint32_t n = 0;

	if (m->linktype == 1 && r->caplen >= 14 + 20 && r->data[12] == 0x08 && r->data[13] == 0)
		ip = r->data + 14, n = r->caplen - 14;
	else if ((m->linktype == DLT_RAW || m->linktype == 228) && r->caplen >= 1)
		ip = r->data, n = r->caplen;
	if (ip == NULL || ip[0] >> 4 != 4)
		return;
	if (n < 20) {
		if (p->l3 != 4 || p->sip != (n >= 16 ? be32(ip + 12) : 0) || p->dip != 0 ||
		    p->proto != (n >= 10 ? ip[9] : 0) || p->sport || p->dport)
			FAIL("record %zu: IPv4 header cut at %u bytes read as l3 %u proto %u "
			     "%08x > %08x",
			     i, n, p->l3, p->proto, p->sip, p->dip);
		return;
	}
	if (p->l3 != 4 || p->sip != be32(ip + 12) || p->dip != be32(ip + 16))
		FAIL("record %zu: IPv4 %08x > %08x read as l3 %u %08x > %08x", i, be32(ip + 12),
		     be32(ip + 16), p->l3, p->sip, p->dip);
}

static void check_err(int rc, int want, const struct rxb_err *err, const char *what)
{
	if (rc != want)
		FAIL("%s: returned %d, expected %d (%s)", what, rc, want, err->msg);
	if (rc < 0 && err->msg[0] == '\0')
		FAIL("%s: failed (%d) without a message", what, rc);
}

/* One pass over the file: SKIP_NONIP when ps->sel (the IP records). */
static void run_pass(const struct model *m, const struct ref *ref, struct pass *ps,
		     const struct pass *first)
{
	struct sim_pcap_reader *rd = NULL;
	struct rxb_err err;
	unsigned flags = ps->sel ? SIM_PCAP_SKIP_NONIP : 0;
	const char *what = ps->sel ? "skip pass" : "first pass";
	const struct sim_pcap_info *info;
	uint64_t returned = 0, nonip = 0, skipped = 0, short_hdr = 0, frags = 0, oversize = 0;
	int rc;

	memset(&err, 0, sizeof(err));
	rc = sim_pcap_open(&rd, path, flags, &err);
	check_err(rc, 0, &err, "sim_pcap_open");
	if (rd == NULL)
		FAIL("sim_pcap_open returned 0 without a reader");
	info = sim_pcap_info(rd);
	if (info->linktype != m->linktype || info->snaplen != m->snaplen || info->nsec != m->nsec ||
	    info->swapped != m->swapped)
		FAIL("header: linktype %u snaplen %u nsec %d swapped %d, expected %u %u %d %d",
		     info->linktype, info->snaplen, info->nsec, info->swapped, m->linktype,
		     m->snaplen, m->nsec, m->swapped);
	for (size_t i = 0; i < m->n; i++) {
		const struct rec *r = &m->r[i];
		struct sim_pkt p;
		uint64_t nonip_before = info->nonip, len;

		/* The reader parses every record it reads, the failing one too. */
		short_hdr += ref[i].short_hdr;
		frags += ref[i].frags;
		oversize += ref[i].oversize;
		if (ps->sel && !ps->sel[i]) {
			skipped++;
			continue;
		}
		memset(&p, 0xa5, sizeof(p));
		memset(&err, 0, sizeof(err));
		rc = sim_pcap_next(rd, &p, &err);
		if (i == ps->stop) {
			/* More than 2^64 - 1 ps after the first packet returned. */
			check_err(rc, -EBADMSG, &err,
				  "sim_pcap_next of a packet too far after the first");
			if (fuzz_verbose())
				fprintf(stderr, T ": %s: %s\n", what, err.msg);
			break;
		}
		if (rc != 1)
			FAIL("%s: record %zu at offset %llu: sim_pcap_next returned %d (%s)", what,
			     i, (unsigned long long)r->off, rc, err.msg);
		returned++;
		if ((info->nonip == nonip_before) != ref[i].ip)
			FAIL("%s: record %zu: %s in nonip, sim_pcap_parse says %s", what, i,
			     info->nonip == nonip_before ? "not counted" : "counted",
			     ref[i].ip ? "IP" : "not IP");
		nonip += !ref[i].ip;
		if (p.t_ps != ps->t[i])
			FAIL("%s: record %zu (sec %u frac %u): t_ps %llu, expected %llu", what, i,
			     r->sec, r->frac, (unsigned long long)p.t_ps,
			     (unsigned long long)ps->t[i]);
		if (p.nic != 0)
			FAIL("%s: record %zu: nic %u", what, i, p.nic);
		same_pkt(&p, &ref[i].pkt, "reader vs sim_pcap_parse of the record", i);
		len = model_len(m, r);
		if (p.len != len)
			FAIL("%s: record %zu (caplen %u orig %u): len %u, expected %llu", what, i,
			     r->caplen, r->orig, p.len, (unsigned long long)len);
		if (ref[i].ip ? p.l3 != 4 && p.l3 != 6 : p.l3 != 0)
			FAIL("%s: record %zu: l3 = %u for a%s IP packet", what, i, p.l3,
			     ref[i].ip ? "n" : " non-");
		if (p.l3 == 0 && (p.sip || p.dip || p.sport || p.dport || p.proto))
			FAIL("%s: record %zu: l3 = 0 with a tuple (proto %u)", what, i, p.proto);
		check_ipv4_addrs(m, r, &p, i);
		if (first && i < first->stop)
			same_pkt(&p, &first->pkt[i], "skip pass vs first pass", i);
		ps->pkt[i] = p;
	}
	if (ps->stop == m->n) {
		rc = sim_pcap_next(rd, &(struct sim_pkt){ 0 }, &err);
		check_err(rc, m->end_rc, &err, "sim_pcap_next after the last record");
		if (rc == 0) {
			rc = sim_pcap_next(rd, &(struct sim_pkt){ 0 }, &err);
			check_err(rc, 0, &err, "sim_pcap_next after the end");
		}
	}
	if (info->pkts != returned || info->nonip != nonip || info->skipped != skipped ||
	    info->reordered != ps->reordered)
		FAIL("%s: counted pkts %llu nonip %llu skipped %llu reordered %llu, expected "
		     "%llu %llu %llu %llu",
		     what, (unsigned long long)info->pkts, (unsigned long long)info->nonip,
		     (unsigned long long)info->skipped, (unsigned long long)info->reordered,
		     (unsigned long long)returned, (unsigned long long)nonip,
		     (unsigned long long)skipped, (unsigned long long)ps->reordered);
	if (info->short_hdr != short_hdr || info->frags != frags || info->oversize != oversize)
		FAIL("%s: counted short_hdr %llu frags %llu oversize %llu, the records read add "
		     "up to %llu %llu %llu",
		     what, (unsigned long long)info->short_hdr, (unsigned long long)info->frags,
		     (unsigned long long)info->oversize, (unsigned long long)short_hdr,
		     (unsigned long long)frags, (unsigned long long)oversize);
	if (returned && (info->t0_sec != m->r[0].sec || info->t0_frac != m->r[0].frac) && !ps->sel)
		FAIL("%s: t0 %llu.%u, first record %u.%u", what, (unsigned long long)info->t0_sec,
		     info->t0_frac, m->r[0].sec, m->r[0].frac);
	ps->info = *info;
	sim_pcap_close(rd);
}

/* A file libpcap's own rules decide: whatever it makes of it, every call
 * answers 0, 1 or -EBADMSG with a message, and the reading ends. */
static void read_unmodelled(size_t size)
{
	struct sim_pcap_reader *rd = NULL;
	struct sim_pkt p;
	struct rxb_err err;
	int rc;

	memset(&err, 0, sizeof(err));
	rc = sim_pcap_open(&rd, path, 0, &err);
	if (rc != 0) {
		check_err(rc, -EBADMSG, &err, "sim_pcap_open (unmodelled file)");
		if (rd != NULL)
			FAIL("sim_pcap_open failed but left a reader");
		return;
	}
	for (size_t i = 0;; i++) {
		if (i > size / 8 + 1)
			FAIL("more packets than a %zu-byte file can hold", size);
		rc = sim_pcap_next(rd, &p, &err);
		if (rc == 1)
			continue;
		if (rc != 0)
			check_err(rc, -EBADMSG, &err, "sim_pcap_next (unmodelled file)");
		break;
	}
	sim_pcap_close(rd);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; /* libFuzzer's arguments: none of ours */
	(void)argv;

	fd = memfd_create("fuzz_pcap", 0);
	if (fd < 0) {
		perror("fuzz_pcap: memfd_create");
		exit(1);
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct model m;
	struct pass a = { 0 }, b = { 0 };
	struct rxb_err err;
	struct ref *ref = NULL;
	uint8_t *ip = NULL;
	size_t n_ip = 0;
	int rc;

	memset(&err, 0, sizeof(err));
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		FAIL("cannot write the input to the memfd");
	walk(&m, data, size);
	if (m.unmodelled) {
		read_unmodelled(size);
		return 0;
	}
	if (m.open_rc != 0) {
		struct sim_pcap_reader *rd = (struct sim_pcap_reader *)&m; /* must be cleared */

		rc = sim_pcap_open(&rd, path, 0, &err);
		check_err(rc, m.open_rc, &err, "sim_pcap_open");
		if (rd != NULL)
			FAIL("sim_pcap_open failed but left a reader");
		if (fuzz_verbose())
			fprintf(stderr, T ": open: %s\n", err.msg);
		return 0;
	}
	ref = calloc(m.n + 1, sizeof(*ref));
	ip = calloc(m.n + 1, 1);
	a.t = calloc(m.n + 1, sizeof(*a.t));
	b.t = calloc(m.n + 1, sizeof(*b.t));
	a.pkt = calloc(m.n + 1, sizeof(*a.pkt));
	b.pkt = calloc(m.n + 1, sizeof(*b.pkt));
	if (ref == NULL || ip == NULL || a.t == NULL || b.t == NULL || a.pkt == NULL ||
	    b.pkt == NULL)
		FAIL("out of memory");
	for (size_t i = 0; i < m.n; i++) {
		struct sim_pcap_info ci = { 0 };

		ref[i].ip = ip[i] = (uint8_t)sim_pcap_parse(m.r[i].data, m.r[i].caplen, m.r[i].orig,
							    m.linktype, &ref[i].pkt, &ci);
		if (ci.short_hdr > 1 || ci.frags > 1 || ci.oversize > 1)
			FAIL("record %zu: sim_pcap_parse counted short_hdr %llu frags %llu "
			     "oversize %llu",
			     i, (unsigned long long)ci.short_hdr, (unsigned long long)ci.frags,
			     (unsigned long long)ci.oversize);
		ref[i].short_hdr = (uint8_t)ci.short_hdr;
		ref[i].frags = (uint8_t)ci.frags;
		ref[i].oversize = (uint8_t)ci.oversize;
		if ((model_len(&m, &m.r[i]) > 9018) != ci.oversize)
			FAIL("record %zu (caplen %u orig %u): oversize %llu for a %llu-byte frame",
			     i, m.r[i].caplen, m.r[i].orig, (unsigned long long)ci.oversize,
			     (unsigned long long)model_len(&m, &m.r[i]));
		n_ip += ip[i];
	}
	model_times(&m, &a);
	run_pass(&m, ref, &a, NULL);
	b.sel = ip;
	model_times(&m, &b);
	run_pass(&m, ref, &b, &a);
	if (fuzz_verbose())
		fprintf(stderr,
			T ": linktype %u %s%s: %zu records (%zu IP), end %d, stop %zu/%zu, "
			  "short_hdr %llu frags %llu oversize %llu reordered %llu\n",
			m.linktype, m.nsec ? "ns" : "us", m.swapped ? " swapped" : "", m.n, n_ip,
			m.end_rc, a.stop, b.stop, (unsigned long long)a.info.short_hdr,
			(unsigned long long)a.info.frags, (unsigned long long)a.info.oversize,
			(unsigned long long)a.info.reordered);
	free(ref);
	free(ip);
	free(a.t);
	free(b.t);
	free(a.pkt);
	free(b.pkt);
	free(m.r);
	return 0;
}
