/* SPDX-License-Identifier: BSD-3-Clause
 *
 * libFuzzer target: the simulator's classic pcap reader (sim/pcap.c), as
 * `rxb sim` feeds it a user's capture (traffic.pattern = "trace").
 *
 * Input = the file, as is. It is written to a memfd and opened through
 * /proc/self/fd/N, so sim_pcap_open() reads it with its own stdio code.
 * Every input is read twice, without and with SIM_PCAP_SKIP_NONIP.
 *
 * The reference model walks the file itself (pcap-savefile(5)): the 24-byte
 * header (magic in either byte order, µs or ns, link type without its FCS
 * bits), then 16-byte record headers and their data. It says which call
 * must fail and how (-EBADMSG with a message: short file header, bad magic,
 * unsupported link type, truncated record header, captured length above
 * SIM_PCAP_MAX_CAPLEN, timestamp fraction of a second or more, truncated
 * data), and for every record the reader returns:
 *   - the packet is what sim_pcap_parse() makes of the record's bytes
 *     (the reader passes caplen, orig_len and the link type through);
 *   - len = max(orig_len, caplen) − the cooked header + the Ethernet
 *     header for non-Ethernet link types + FCS, at least 64 (pcap.h);
 *   - l3 is 0, 4 or 6; a packet with l3 = 0 has a zero tuple; an IPv4
 *     packet on Ethernet or raw IP has the header's addresses;
 *   - t_ps = time since the first returned packet, in ps, never below the
 *     previous packet's (computed here in 128 bits);
 *   - the counters: pkts, nonip, skipped, and short_hdr / frags / oversize
 *     equal in both passes (both parse every record);
 *   - with SKIP_NONIP the reader returns exactly the IP packets of the
 *     first pass, and a clean end stays a clean end.
 * A violation prints one line "fuzz_pcap: ..." and aborts. Known, open bugs
 * are filtered (fuzz_common.h, docs/fuzzing.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "pcap.h"

#define T "fuzz_pcap"
#define FAIL(...) FUZZ_FAIL(T, __VA_ARGS__)

#define MAGIC_US 0xa1b2c3d4u
#define MAGIC_NS 0xa1b23c4du

struct rec {
	uint32_t sec, frac, caplen, orig;
	const uint8_t *data;
	uint64_t off;
};

struct model {
	int open_rc;          /* 0 or -EBADMSG */
	int swapped, nsec;
	uint32_t linktype, snaplen;
	struct rec *r;        /* complete, valid records, in file order */
	size_t n;
	int end_rc;           /* after the last record: 0 (clean end) or -EBADMSG */
};

/* What one pass returned, per record. */
struct pass {
	struct sim_pkt *pkt;  /* indexed by record */
	uint8_t *ip;          /* record counted as IP (not in nonip / skipped) */
	struct sim_pcap_info info;
};

static int fd = -1;
static char path[64];
static const char *known_hit; /* a known bug the current input hit */

/* A broken property that is the known, open bug `name`: abort with
 * RXB_FUZZ_KNOWN_BUGS=1, else note it (the input is dropped at the end). */
static void known(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void known(const char *name, const char *fmt, ...)
{
	va_list ap;

	if (!fuzz_expose_known_bug(name)) {
		known_hit = name;
		return;
	}
	fprintf(stderr, T ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (known bug %s)\n", name);
	abort();
}

static uint32_t rd32(const struct model *m, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return m->swapped ? __builtin_bswap32(v) : v;
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
	if (magic != MAGIC_US && magic != MAGIC_NS) {
		magic = __builtin_bswap32(magic);
		if (magic != MAGIC_US && magic != MAGIC_NS)
			return;
		m->swapped = 1;
	}
	m->nsec = magic == MAGIC_NS;
	m->snaplen = rd32(m, d + 16);
	m->linktype = rd32(m, d + 20) & 0x0fffffffu;
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
		if (r->caplen > SIM_PCAP_MAX_CAPLEN || r->frac >= (m->nsec ? 1000000000u : 1000000u) ||
		    n - off - 16 < r->caplen) {
			m->end_rc = -EBADMSG;
			return;
		}
		r->data = d + off + 16;
		off += 16 + (size_t)r->caplen;
		m->n++;
	}
}

/* Frame length per pcap.h, in 64 bits. */
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
	return len < 64 ? 64 : len;
}

/* Known bug pcap-short-cooked-len: a Linux cooked (SLL/SLL2) record
 * whose captured bytes end inside the cooked header keeps max(orig_len,
 * caplen) + 4 as its length, without replacing the cooked header by an
 * Ethernet header (sim_pcap_parse leaves the switch before that): 2 bytes
 * (SLL) or 6 bytes (SLL2) more than the same packet captured whole. */
static bool short_cooked(const struct model *m, const struct rec *r)
{
	return (m->linktype == 113 && r->caplen < 16) || (m->linktype == 276 && r->caplen < 20);
}

/* Expected t_ps of the returned records (sel[i]: record i is returned) with
 * the reader's formula in 128 bits. Returns false when the reader's 64-bit
 * signed arithmetic overflows on one of them (a known bug, undefined
 * behaviour in sim_pcap_next). */
static bool model_times(const struct model *m, const uint8_t *sel, uint64_t *t)
{
	const __int128 lim = INT64_MAX, unit = m->nsec ? 1000 : 1000000;
	const struct rec *t0 = NULL;
	uint64_t prev = 0;

	for (size_t i = 0; i < m->n; i++) {
		__int128 prod, rel;

		if (sel && !sel[i])
			continue;
		if (t0 == NULL)
			t0 = &m->r[i];
		prod = ((__int128)m->r[i].sec - t0->sec) * (__int128)SIM_PS_PER_S;
		rel = prod + ((__int128)m->r[i].frac - t0->frac) * unit;
		if (prod > lim || prod < -lim - 1 || rel > lim || rel < -lim - 1)
			return false;
		t[i] = rel > 0 ? (uint64_t)rel : 0;
		if (t[i] < prev)
			t[i] = prev;
		prev = t[i];
	}
	return true;
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

/* Independent spot check: IPv4 addresses where the header puts them. */
static void check_ipv4_addrs(const struct model *m, const struct rec *r, const struct sim_pkt *p,
			     size_t i)
{
	const uint8_t *ip = NULL;
	uint32_t n = 0;

	if (m->linktype == 1 && r->caplen >= 14 + 20 && r->data[12] == 0x08 && r->data[13] == 0)
		ip = r->data + 14, n = r->caplen - 14;
	else if ((m->linktype == 101 || m->linktype == 228) && r->caplen >= 20)
		ip = r->data, n = r->caplen;
	if (ip == NULL || n < 20 || ip[0] >> 4 != 4)
		return;
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

/* One pass. sel == NULL: every record is returned (no SKIP_NONIP), and
 * out->ip learns which are IP; else only the records with sel[i]. */
static void run_pass(const struct model *m, const uint8_t *sel, const uint64_t *t,
		     struct pass *out, const struct pass *first)
{
	struct sim_pcap_reader *rd = NULL;
	struct rxb_err err;
	unsigned flags = sel ? SIM_PCAP_SKIP_NONIP : 0;
	const char *what = sel ? "skip pass" : "first pass";
	const struct sim_pcap_info *info;
	uint64_t returned = 0, nonip = 0;
	int rc;

	memset(&err, 0, sizeof(err));
	rc = sim_pcap_open(&rd, path, flags, &err);
	check_err(rc, 0, &err, "sim_pcap_open");
	if (rd == NULL)
		FAIL("sim_pcap_open returned 0 without a reader");
	info = sim_pcap_info(rd);
	if (info->linktype != m->linktype || info->snaplen != m->snaplen ||
	    info->nsec != m->nsec || info->swapped != m->swapped)
		FAIL("header: linktype %u snaplen %u nsec %d swapped %d, expected %u %u %d %d",
		     info->linktype, info->snaplen, info->nsec, info->swapped, m->linktype,
		     m->snaplen, m->nsec, m->swapped);
	for (size_t i = 0; i < m->n; i++) {
		const struct rec *r = &m->r[i];
		struct sim_pkt p, q;
		uint64_t nonip_before = info->nonip, len;

		if (sel && !sel[i])
			continue;
		memset(&p, 0xa5, sizeof(p));
		rc = sim_pcap_next(rd, &p, &err);
		if (rc != 1)
			FAIL("%s: record %zu at offset %llu: sim_pcap_next returned %d (%s)", what, i,
			     (unsigned long long)r->off, rc, err.msg);
		returned++;
		if (sel == NULL) {
			out->ip[i] = info->nonip == nonip_before;
			nonip += !out->ip[i];
		} else if (info->nonip != 0) {
			FAIL("%s: nonip = %llu with SKIP_NONIP", what,
			     (unsigned long long)info->nonip);
		}
		if (p.t_ps != t[i])
			FAIL("%s: record %zu (sec %u frac %u): t_ps %llu, expected %llu", what, i,
			     r->sec, r->frac, (unsigned long long)p.t_ps, (unsigned long long)t[i]);
		if (p.nic != 0)
			FAIL("%s: record %zu: nic %u", what, i, p.nic);
		memset(&q, 0, sizeof(q));
		sim_pcap_parse(r->data, r->caplen, r->orig, m->linktype, &q, NULL);
		same_pkt(&p, &q, "reader vs sim_pcap_parse of the record", i);
		len = model_len(m, r);
		if (p.len != len && short_cooked(m, r) &&
		    p.len == (r->orig > r->caplen ? r->orig : r->caplen) + 4u)
			known("pcap-short-cooked-len",
			      "%s: record %zu: Linux cooked record of %u captured bytes (orig %u): "
			      "len %u, expected %llu", what, i, r->caplen, r->orig, p.len,
			      (unsigned long long)len);
		else if (p.len != len)
			FAIL("%s: record %zu (caplen %u orig %u): len %u, expected %llu", what, i,
			     r->caplen, r->orig, p.len, (unsigned long long)len);
		if (p.l3 != 0 && p.l3 != 4 && p.l3 != 6)
			FAIL("%s: record %zu: l3 = %u", what, i, p.l3);
		if (p.l3 == 0 && (p.sip || p.dip || p.sport || p.dport || p.proto))
			FAIL("%s: record %zu: l3 = 0 with a tuple (proto %u)", what, i, p.proto);
		/* Known bug pcap-short-ip-l3: a record whose IPv4/IPv6 header is
		 * cut by the snapshot length is counted as IP (not in nonip,
		 * not skipped by SKIP_NONIP) but comes back with l3 = 0, which
		 * pcap.h reserves for non-IP packets ("nonip: returned with
		 * l3 = 0"). */
		if (p.l3 == 0 && (sel ? 1 : out->ip[i]))
			known("pcap-short-ip-l3", "%s: record %zu: counted as IP, returned with "
			      "l3 = 0", what, i);
		check_ipv4_addrs(m, r, &p, i);
		if (first)
			same_pkt(&p, &first->pkt[i], "skip pass vs first pass", i);
		out->pkt[i] = p;
	}
	rc = sim_pcap_next(rd, &(struct sim_pkt){ 0 }, &err);
	check_err(rc, m->end_rc, &err, "sim_pcap_next after the last record");
	if (rc == 0) {
		rc = sim_pcap_next(rd, &(struct sim_pkt){ 0 }, &err);
		check_err(rc, 0, &err, "sim_pcap_next after the end");
	}
	if (info->pkts != returned || info->nonip != nonip)
		FAIL("%s: counted pkts %llu nonip %llu, returned %llu of which %llu non-IP", what,
		     (unsigned long long)info->pkts, (unsigned long long)info->nonip,
		     (unsigned long long)returned, (unsigned long long)nonip);
	if (returned && (info->t0_sec != m->r[0].sec || info->t0_frac != m->r[0].frac) && !sel)
		FAIL("%s: t0 %llu.%u, first record %u.%u", what, (unsigned long long)info->t0_sec,
		     info->t0_frac, m->r[0].sec, m->r[0].frac);
	out->info = *info;
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
	uint64_t *t = NULL;
	size_t n_ip = 0;
	bool wrap = false, ovf;
	int rc;

	memset(&err, 0, sizeof(err));
	known_hit = NULL;
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		FAIL("cannot write the input to the memfd");
	walk(&m, data, size);
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
	/* Known bug pcap-len-wrap: max(orig_len, caplen) + the added headers
	 * (up to 18 bytes) is computed in 32 bits in sim_pcap_parse: an
	 * orig_len near 2^32 wraps around to a 64-byte frame instead of an
	 * oversize one. */
	for (size_t i = 0; i < m.n; i++)
		wrap |= (uint64_t)(m.r[i].orig > m.r[i].caplen ? m.r[i].orig : m.r[i].caplen) + 18 >
			UINT32_MAX;
	t = calloc(m.n + 1, sizeof(*t));
	a.pkt = calloc(m.n + 1, sizeof(*a.pkt));
	b.pkt = calloc(m.n + 1, sizeof(*b.pkt));
	a.ip = calloc(m.n + 1, 1);
	if (t == NULL || a.pkt == NULL || b.pkt == NULL || a.ip == NULL)
		FAIL("out of memory");
	/* Known bug pcap-time-overflow: (sec - t0_sec) * 10^12 in int64_t in
	 * sim_pcap_next overflows (UBSan: signed integer overflow) once two
	 * returned packets are more than 9223372 s (~107 days) apart. */
	ovf = !model_times(&m, NULL, t);
	wrap = wrap && !fuzz_expose_known_bug("pcap-len-wrap");
	ovf = ovf && !fuzz_expose_known_bug("pcap-time-overflow");
	if (wrap || ovf)
		goto skip;

	run_pass(&m, NULL, t, &a, NULL);
	for (size_t i = 0; i < m.n; i++)
		n_ip += a.ip[i];
	if (!model_times(&m, a.ip, t) && !fuzz_expose_known_bug("pcap-time-overflow")) {
		ovf = true;
		goto skip;
	}
	run_pass(&m, a.ip, t, &b, &a);
	if (b.info.skipped != m.n - n_ip || b.info.pkts != n_ip)
		FAIL("skip pass: skipped %llu pkts %llu, expected %zu and %zu",
		     (unsigned long long)b.info.skipped, (unsigned long long)b.info.pkts, m.n - n_ip,
		     n_ip);
	if (a.info.skipped != 0)
		FAIL("first pass: skipped %llu without SKIP_NONIP",
		     (unsigned long long)a.info.skipped);
	if (a.info.short_hdr != b.info.short_hdr || a.info.frags != b.info.frags ||
	    a.info.oversize != b.info.oversize)
		FAIL("counters differ between the passes: short_hdr %llu/%llu frags %llu/%llu "
		     "oversize %llu/%llu",
		     (unsigned long long)a.info.short_hdr, (unsigned long long)b.info.short_hdr,
		     (unsigned long long)a.info.frags, (unsigned long long)b.info.frags,
		     (unsigned long long)a.info.oversize, (unsigned long long)b.info.oversize);
	if (fuzz_verbose())
		fprintf(stderr, T ": linktype %u %s%s: %zu records (%zu IP), end %d, short_hdr %llu "
			"frags %llu oversize %llu reordered %llu\n", m.linktype,
			m.nsec ? "ns" : "us", m.swapped ? " swapped" : "", m.n, n_ip, m.end_rc,
			(unsigned long long)a.info.short_hdr, (unsigned long long)a.info.frags,
			(unsigned long long)a.info.oversize, (unsigned long long)a.info.reordered);
	if (known_hit)
		goto skip;
	free(t);
	free(a.pkt);
	free(b.pkt);
	free(a.ip);
	free(m.r);
	return 0;
skip:
	if (fuzz_verbose())
		fprintf(stderr, T ": known bug %s: input skipped (RXB_FUZZ_KNOWN_BUGS=1 runs it)\n",
			ovf ? "pcap-time-overflow" : wrap ? "pcap-len-wrap" : known_hit);
	free(t);
	free(a.pkt);
	free(b.pkt);
	free(a.ip);
	free(m.r);
	return -1;
}
