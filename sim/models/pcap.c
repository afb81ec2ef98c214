/* SPDX-License-Identifier: BSD-3-Clause
 * What a capture's packets are to the simulator, and a classic pcap writer:
 * see pcap.h. Files are read by the engines' one reader (util/pcapread.h),
 * Ethernet framing by the one parser (rxb_eth_l3). Writer file format: the
 * pcap file format as documented by libpcap (pcap-savefile(5)) and the
 * IETF draft "PCAP Capture File Format" (draft-ietf-opsawg-pcap). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcap.h"
#include "pcapread.h"

#define MAGIC_US 0xa1b2c3d4u
#define MAGIC_NS 0xa1b23c4du
#define IO_BUF   (1u << 20)

struct sim_pcap_reader {
	struct rxb_pcapread *rd;
	unsigned flags;
	uint64_t prev_t;
	int have_t0;
	uint64_t rec;    /* records read (skipped ones too) */
	uint64_t t0_rec; /* the first packet returned: record 1, 2, ... */
	struct sim_pcap_info info;
	const struct rxb_rss *rss; /* packets get the NIC's hash (sim_pcap_set_rss) */
};

static inline uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* ---- parsing ------------------------------------------------------------ */

static void parse_l4(const uint8_t *d, uint32_t n, uint8_t proto, struct sim_pkt *p,
		     struct sim_pcap_info *info)
{
	if (proto != 6 && proto != 17 && proto != 132)
		return; /* no ports */
	if (n < 4) {
		if (info)
			info->short_hdr++;
		return;
	}
	p->sport = be16(d);
	p->dport = be16(d + 2);
}

static int parse_ipv4_tuple(const uint8_t *d, uint32_t n, struct sim_pkt *p,
			    struct sim_pcap_info *info)
{
	uint32_t ihl;

	if (n < 20) {
		/* Cut by the snapshot length. Whether it is IP is decided as for a
		 * whole header, by the version nibble (nothing captured: not IP).
		 * If it is, it is returned as IP, l3 = 4 with the fields that were
		 * captured and the rest of the tuple zero (pcap.h: "captured bytes
		 * that end inside a header leave the rest of the tuple zero").
		 * l3 = 0 means non-IP in pcap.h and to the simulator: counted in
		 * nonip, dropped by SIM_PCAP_SKIP_NONIP, hash 0 in the engine's RSS
		 * (nic.c pkt_hash). A packet that was IP on the wire stays IP
		 * traffic when a small snaplen cut it: replayed, steered as IP. */
		if (info)
			info->short_hdr++;
		if (n < 1 || (d[0] >> 4) != 4)
			return 0;
		p->l3 = 4;
		if (n >= 10)
			p->proto = d[9];
		if (n >= 16)
			p->sip = be32(d + 12);
		return 1;
	}
	if ((d[0] >> 4) != 4)
		return 0;
	ihl = (uint32_t)(d[0] & 15) * 4;
	p->l3 = 4;
	p->proto = d[9];
	p->sip = be32(d + 12);
	p->dip = be32(d + 16);
	if (ihl < 20)
		return 1; /* malformed: keep addresses, no ports */
	if (be16(d + 6) & 0x1fff) {
		/* Non-first fragment: no L4 header, as RSS hardware sees it. */
		if (info)
			info->frags++;
		return 1;
	}
	if (n < ihl) {
		if (info)
			info->short_hdr++;
		return 1;
	}
	parse_l4(d + ihl, n - ihl, p->proto, p, info);
	return 1;
}

static uint32_t fold128(const uint8_t *a)
{
	return be32(a) ^ be32(a + 4) ^ be32(a + 8) ^ be32(a + 12);
}

static int parse_ipv6_tuple(const uint8_t *d, uint32_t n, struct sim_pkt *p,
			    struct sim_pcap_info *info)
{
	uint32_t off = 40;
	uint8_t nh;

	if (n < 40) {
		/* Cut by the snapshot length: IP all the same, as in parse_ipv4
		 * (l3 = 6, what was captured, the rest of the tuple zero). */
		if (info)
			info->short_hdr++;
		if (n < 1 || (d[0] >> 4) != 6)
			return 0;
		p->l3 = 6;
		if (n >= 7)
			p->proto = d[6];
		if (n >= 24)
			p->sip = fold128(d + 8);
		return 1;
	}
	if ((d[0] >> 4) != 6)
		return 0;
	p->l3 = 6;
	p->sip = fold128(d + 8);
	p->dip = fold128(d + 24);
	nh = d[6];
	/* Walk the extension headers (at most 8: anything longer is not a
	 * packet a NIC would parse for RSS either). */
	for (int i = 0; i < 8; i++) {
		uint32_t hl;

		if (nh != 0 && nh != 43 && nh != 44 && nh != 51 && nh != 60)
			break;
		if (off + 8 > n) {
			if (info)
				info->short_hdr++;
			p->proto = nh;
			return 1;
		}
		if (nh == 44) {
			if (be16(d + off + 2) & 0xfff8) {
				if (info)
					info->frags++;
				p->proto = d[off];
				return 1;
			}
			hl = 8;
		} else if (nh == 51) {
			hl = ((uint32_t)d[off + 1] + 2) * 4;
		} else {
			hl = ((uint32_t)d[off + 1] + 1) * 8;
		}
		nh = d[off];
		off += hl;
	}
	p->proto = nh;
	if (off > n) {
		if (info)
			info->short_hdr++;
		return 1;
	}
	parse_l4(d + off, n - off, nh, p, info);
	return 1;
}

/* The hash a NIC computes (rxb_rss_frame's rules), which the tuple alone
 * cannot give: IPv6 over its full addresses, not the folded ones; the ports
 * only for TCP and UDP, and neither for any IPv4 fragment (the first
 * included: its flow's other fragments have no ports) nor past IPv6
 * extension headers. Bytes the capture cut read as zero. */
static uint32_t ipv4_rss(const struct rxb_rss *rss, const uint8_t *d, uint32_t n,
			 const struct sim_pkt *p)
{
	uint32_t ihl = n >= 1 ? (uint32_t)(d[0] & 15) * 4 : 0;
	bool l4 = n >= 20 && ihl >= 20 && n >= ihl + 4 && !(be16(d + 6) & 0x3fff) &&
		  (p->proto == 6 || p->proto == 17);

	return l4 ? rxb_rss_ipv4_l4(rss, p->sip, p->dip, p->sport, p->dport)
		  : rxb_rss_ipv4(rss, p->sip, p->dip);
}

static uint32_t ipv6_rss(const struct rxb_rss *rss, const uint8_t *d, uint32_t n,
			 const struct sim_pkt *p)
{
	uint8_t addr[32] = { 0 };

	if (n > 8)
		memcpy(addr, d + 8, n - 8 < 32 ? n - 8 : 32);
	if (n >= 44 && (d[6] == 6 || d[6] == 17))
		return rxb_rss_ipv6_l4(rss, addr, addr + 16, p->sport, p->dport);
	return rxb_rss_ipv6(rss, addr, addr + 16);
}

static int parse_ipv4(const uint8_t *d, uint32_t n, struct sim_pkt *p, struct sim_pcap_info *info,
		      const struct rxb_rss *rss)
{
	int ip = parse_ipv4_tuple(d, n, p, info);

	if (ip && rss)
		p->rss = ipv4_rss(rss, d, n, p);
	return ip;
}

static int parse_ipv6(const uint8_t *d, uint32_t n, struct sim_pkt *p, struct sim_pcap_info *info,
		      const struct rxb_rss *rss)
{
	int ip = parse_ipv6_tuple(d, n, p, info);

	if (ip && rss)
		p->rss = ipv6_rss(rss, d, n, p);
	return ip;
}

static int parse_ethertype(uint16_t type, const uint8_t *d, uint32_t n, struct sim_pkt *p,
			   struct sim_pcap_info *info, const struct rxb_rss *rss)
{
	if (type == 0x0800)
		return parse_ipv4(d, n, p, info, rss);
	if (type == 0x86dd)
		return parse_ipv6(d, n, p, info, rss);
	return 0;
}

/* An Ethernet frame: its captured length already counts the Ethernet header. */
static int parse_eth(const uint8_t *d, uint32_t caplen, struct sim_pkt *p,
		     struct sim_pcap_info *info, const struct rxb_rss *rss)
{
	uint16_t type;
	uint32_t off = rxb_eth_l3(d, caplen, &type);

	if (off == 0) {
		if (info)
			info->short_hdr++;
		return 0;
	}
	return parse_ethertype(type, d + off, caplen - off, p, info, rss);
}

/* Linux cooked capture (SLL, SLL2): the cooked header leaves *len whether or not the
 * capture holds all of it (the frame's length does not depend on the snapshot length);
 * the caller adds an Ethernet header in its place. */
static int parse_cooked(const uint8_t *d, uint32_t caplen, uint32_t linktype, uint64_t *len,
			struct sim_pkt *p, struct sim_pcap_info *info, const struct rxb_rss *rss)
{
	uint32_t hl = linktype == RXB_LINK_SLL ? 16 : 20;

	*len = *len >= hl ? *len - hl : 0;
	if (caplen < hl) {
		if (info)
			info->short_hdr++;
		return 0;
	}
	return parse_ethertype(be16(d + (linktype == RXB_LINK_SLL ? 14 : 0)), d + hl, caplen - hl,
			       p, info, rss);
}

/* Raw IP: the version nibble says which, unless the link type fixes it. */
static int parse_raw(const uint8_t *d, uint32_t caplen, uint32_t linktype, struct sim_pkt *p,
		     struct sim_pcap_info *info, const struct rxb_rss *rss)
{
	if (caplen >= 1 && (d[0] >> 4) == 4 && linktype != RXB_LINK_IPV6)
		return parse_ipv4(d, caplen, p, info, rss);
	if (caplen >= 1 && (d[0] >> 4) == 6 && linktype != RXB_LINK_IPV4)
		return parse_ipv6(d, caplen, p, info, rss);
	return 0;
}

/* The frame on the wire: its FCS added, at least the minimum frame. Oversize frames are
 * kept (pcap.h); one beyond 32 bits as the longest a sim_pkt holds. */
static uint32_t wire_len(uint64_t len, struct sim_pcap_info *info)
{
	len += SIM_ETH_FCS;
	if (len < SIM_ETH_MIN_FRAME)
		len = SIM_ETH_MIN_FRAME;
	if (len > SIM_ETH_MAX_FRAME && info)
		info->oversize++;
	return len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
}

/* What the IP parsers fill in: nothing of it stays from a frame that is not IP. */
static void clear_ip(struct sim_pkt *p)
{
	p->sip = p->dip = 0;
	p->sport = p->dport = 0;
	p->proto = 0;
	p->l3 = 0;
	p->rss = 0;
}

static int parse_frame(const uint8_t *d, uint32_t caplen, uint32_t orig_len, uint32_t linktype,
		       struct sim_pkt *p, struct sim_pcap_info *info, const struct rxb_rss *rss)
{
	/* 64 bits: an orig_len within 18 bytes of 2^32 (a corrupt record)
	 * plus the headers added below would wrap around in 32. */
	uint64_t len = orig_len > caplen ? orig_len : caplen;
	int ip = 0;

	clear_ip(p);
	p->flow = 0;
	p->key = 0;
	p->cls = 0;
	switch (linktype) {
	case RXB_LINK_ETHERNET:
		ip = parse_eth(d, caplen, p, info, rss);
		break;
	case RXB_LINK_SLL:
	case RXB_LINK_SLL2:
		ip = parse_cooked(d, caplen, linktype, &len, p, info, rss);
		len += SIM_ETH_HDR;
		break;
	case 101: /* LINKTYPE_RAW: libpcap reports it as RXB_LINK_RAW */
	case RXB_LINK_RAW:
	case RXB_LINK_RAW_OBSD:
	case RXB_LINK_IPV4:
	case RXB_LINK_IPV6:
		ip = parse_raw(d, caplen, linktype, p, info, rss);
		len += SIM_ETH_HDR;
		break;
	default:
		break;
	}
	p->len = wire_len(len, info);
	if (!ip)
		clear_ip(p);
	return ip;
}

int sim_pcap_parse(const uint8_t *d, uint32_t caplen, uint32_t orig_len, uint32_t linktype,
		   struct sim_pkt *p, struct sim_pcap_info *info)
{
	return parse_frame(d, caplen, orig_len, linktype, p, info, NULL);
}

void sim_pcap_set_rss(struct sim_pcap_reader *r, const struct rxb_rss *rss)
{
	r->rss = rss;
}

/* ---- reader ------------------------------------------------------------- */

/* Time of a record since the first packet (sec.frac vs t0), in ps, into *t:
 * 0 when it is not later (the caller clamps it to the previous packet's).
 * Returns false when it is more than UINT64_MAX ps (~213.5 days) later. */
static bool time_since_t0(const struct sim_pcap_reader *r, uint64_t sec, uint32_t frac, uint64_t *t)
{
	uint64_t unit = r->info.nsec ? 1000u : 1000000u; /* ps per fraction unit */
	uint64_t f = frac * unit, f0 = r->info.t0_frac * unit, ds;

	if (sec < r->info.t0_sec || (sec == r->info.t0_sec && f <= f0)) {
		*t = 0;
		return true;
	}
	ds = sec - r->info.t0_sec;
	if (ds > UINT64_MAX / SIM_PS_PER_S)
		return false;
	*t = ds * SIM_PS_PER_S;
	if (f >= f0) {
		if (f - f0 > UINT64_MAX - *t)
			return false;
		*t += f - f0;
	} else {
		*t -= f0 - f; /* ds >= 1 here: *t >= 10^12 > f0 - f */
	}
	return true;
}

int sim_pcap_open(struct sim_pcap_reader **out, const char *path, unsigned flags,
		  struct rxb_err *err)
{
	const struct rxb_pcapread_info *fi;
	struct sim_pcap_reader *r;
	int rc;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return rxb_err_fail(err, -ENOMEM, "pcap '%s': out of memory", path);
	rc = rxb_pcapread_open(&r->rd, path, err);
	if (rc) {
		free(r);
		return rc;
	}
	fi = rxb_pcapread_info(r->rd);
	r->flags = flags;
	r->info.linktype = fi->linktype;
	r->info.snaplen = fi->snaplen;
	r->info.nsec = fi->nsec;
	r->info.swapped = fi->swapped;
	*out = r;
	return 0;
}

void sim_pcap_close(struct sim_pcap_reader *r)
{
	if (r == NULL)
		return;
	rxb_pcapread_close(r->rd);
	free(r);
}

const struct sim_pcap_info *sim_pcap_info(const struct sim_pcap_reader *r)
{
	return &r->info;
}

/* A packet later than t_ps can hold is not something to replay (merged
 * captures, a corrupt timestamp): an error naming the record and the gap. */
static int too_far(const struct sim_pcap_reader *r, const struct rxb_pcaprec *rec, uint64_t n,
		   struct rxb_err *err)
{
	uint32_t one = r->info.nsec ? 1000000000u : 1000000u;
	uint64_t gs = rec->sec - r->info.t0_sec;
	uint32_t gf = rec->frac;

	if (gf < r->info.t0_frac) {
		gs--;
		gf += one;
	}
	gf -= r->info.t0_frac;
	return rxb_err_fail(err, -EBADMSG,
			    "pcap '%s': offset %llu: record %llu: %llu.%0*u s after the first "
			    "packet (record %llu), beyond the %llu.%03llu s (213 days) a 64-bit "
			    "ps time holds",
			    rxb_pcapread_path(r->rd), (unsigned long long)rec->off,
			    (unsigned long long)n, (unsigned long long)gs, r->info.nsec ? 9 : 6, gf,
			    (unsigned long long)r->t0_rec,
			    (unsigned long long)(UINT64_MAX / SIM_PS_PER_S),
			    (unsigned long long)(UINT64_MAX % SIM_PS_PER_S / 1000000000u));
}

/* The packet's time since the first packet returned, which it may be. */
static int set_time(struct sim_pcap_reader *r, const struct rxb_pcaprec *rec, uint64_t n,
		    struct sim_pkt *p, struct rxb_err *err)
{
	uint64_t t;

	if (!r->have_t0) {
		r->have_t0 = 1;
		r->info.t0_sec = rec->sec;
		r->info.t0_frac = rec->frac;
		r->t0_rec = n;
	}
	/* Relative time: absolute ps since 1970 would overflow 64 bits. */
	if (!time_since_t0(r, rec->sec, rec->frac, &t))
		return too_far(r, rec, n, err);
	if (t < r->prev_t) {
		t = r->prev_t;
		r->info.reordered++;
	}
	r->prev_t = t;
	p->t_ps = t;
	return 0;
}

int sim_pcap_next(struct sim_pcap_reader *r, struct sim_pkt *p, struct rxb_err *err)
{
	struct rxb_pcaprec rec;
	int rc;

	while ((rc = rxb_pcapread_next(r->rd, &rec, err)) == 1) {
		uint64_t n = ++r->rec; /* numbered from 1, as Wireshark numbers frames */
		int ip = parse_frame(rec.data, rec.caplen, rec.orig_len, r->info.linktype, p,
				     &r->info, r->rss);

		if (!ip && (r->flags & SIM_PCAP_SKIP_NONIP)) {
			r->info.skipped++;
			continue;
		}
		rc = set_time(r, &rec, n, p, err);
		if (rc)
			return rc;
		p->nic = 0;
		if (!ip)
			r->info.nonip++;
		r->info.pkts++;
		return 1;
	}
	return rc;
}

/* ---- writer ------------------------------------------------------------- */

struct sim_pcap_writer {
	FILE *f;
	char path[200];
	unsigned flags;
	uint32_t snaplen;
	uint64_t epoch;
	uint64_t off;
	uint16_t ipid;
	uint8_t buf[SIM_ETH_MAX_FRAME];
};

static inline uint32_t out32(const struct sim_pcap_writer *w, uint32_t v)
{
	return (w->flags & SIM_PCAP_SWAPPED) ? __builtin_bswap32(v) : v;
}

static inline uint16_t out16(const struct sim_pcap_writer *w, uint16_t v)
{
	return (w->flags & SIM_PCAP_SWAPPED) ? __builtin_bswap16(v) : v;
}

static inline void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static int write_bytes(struct sim_pcap_writer *w, const void *b, size_t n, struct rxb_err *err)
{
	if (fwrite(b, 1, n, w->f) != n) {
		rxb_err_set(err, "pcap '%s': offset %llu: write failed: %s", w->path,
			    (unsigned long long)w->off, strerror(errno));
		return -EIO;
	}
	w->off += n;
	return 0;
}

int sim_pcap_create(struct sim_pcap_writer **out, const char *path, unsigned flags,
		    uint32_t snaplen, uint64_t epoch_sec, struct rxb_err *err)
{
	struct sim_pcap_writer *w;
	uint32_t h32[5];
	uint16_t v[2];
	int e, rc;

	*out = NULL;
	if (snaplen < 64 || snaplen > SIM_PCAP_MAX_CAPLEN) {
		rxb_err_set(err, "pcap.snaplen = %u: must be in [64, %u]", snaplen,
			    SIM_PCAP_MAX_CAPLEN);
		return -EINVAL;
	}
	if (epoch_sec > UINT32_MAX / 2) {
		rxb_err_set(err, "pcap.epoch_sec = %llu: classic pcap seconds are 32-bit",
			    (unsigned long long)epoch_sec);
		return -EINVAL;
	}
	w = calloc(1, sizeof(*w));
	if (w == NULL) {
		rxb_err_set(err, "pcap '%s': out of memory", path);
		return -ENOMEM;
	}
	snprintf(w->path, sizeof(w->path), "%s", path);
	w->flags = flags;
	w->snaplen = snaplen;
	w->epoch = epoch_sec;
	w->f = fopen(path, "wb");
	if (w->f == NULL) {
		e = errno;
		rxb_err_set(err, "pcap '%s': cannot create: %s", path, strerror(e));
		free(w);
		return -e;
	}
	setvbuf(w->f, NULL, _IOFBF, IO_BUF);
	h32[0] = out32(w, (flags & SIM_PCAP_NSEC) ? MAGIC_NS : MAGIC_US);
	v[0] = out16(w, 2);
	v[1] = out16(w, 4);
	h32[1] = 0; /* thiszone */
	h32[2] = 0; /* sigfigs */
	h32[3] = out32(w, snaplen);
	h32[4] = out32(w, RXB_LINK_ETHERNET);
	rc = write_bytes(w, &h32[0], 4, err);
	if (rc == 0)
		rc = write_bytes(w, v, 4, err);
	if (rc == 0)
		rc = write_bytes(w, &h32[1], 16, err);
	if (rc) {
		fclose(w->f);
		free(w);
		return rc;
	}
	*out = w;
	return 0;
}

static uint16_t ip_checksum(const uint8_t *h, uint32_t n)
{
	uint32_t sum = 0;

	for (uint32_t i = 0; i + 1 < n; i += 2)
		sum += be16(h + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Build the first `cap` bytes of the frame (without FCS) into w->buf. */
static void build_frame(struct sim_pcap_writer *w, const struct sim_pkt *p, uint32_t cap)
{
	static const uint8_t dst[6] = { 0x02, 0, 0, 0, 0, 0x02 }; /* locally administered */
	static const uint8_t src[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	uint32_t flen = p->len - SIM_ETH_FCS, iplen = flen - SIM_ETH_HDR;
	uint8_t *b = w->buf, *ip = b + SIM_ETH_HDR, *l4 = ip + 20;

	memset(b, 0, cap);
	memcpy(b, dst, 6);
	memcpy(b + 6, src, 6);
	if (p->l3 == 0) {
		put16(b + 12, 0x88b5); /* IEEE 802 local experimental EtherType */
		return;
	}
	put16(b + 12, 0x0800);
	ip[0] = 0x45;
	put16(ip + 2, (uint16_t)iplen);
	put16(ip + 4, w->ipid++);
	put16(ip + 6, 0x4000); /* DF */
	ip[8] = 64;
	ip[9] = p->proto;
	put32(ip + 12, p->sip);
	put32(ip + 16, p->dip);
	put16(ip + 10, ip_checksum(ip, 20));
	put16(l4, p->sport);
	put16(l4 + 2, p->dport);
	if (p->proto == 17) {
		put16(l4 + 4, (uint16_t)(iplen - 20));
	} else if (p->proto == 6) {
		l4[12] = 0x50; /* data offset: 5 words */
		l4[13] = 0x10; /* ACK */
		put16(l4 + 14, 65535);
	}
}

int sim_pcap_write(struct sim_pcap_writer *w, const struct sim_pkt *p, struct rxb_err *err)
{
	uint32_t flen, cap, rec[4];
	uint64_t sec = p->t_ps / SIM_PS_PER_S, rem = p->t_ps % SIM_PS_PER_S;
	int rc;

	if (p->len < SIM_ETH_MIN_FRAME || p->len > SIM_ETH_MAX_FRAME) {
		rxb_err_set(err, "pcap '%s': offset %llu: packet len = %u: must be in [%u, %u]",
			    w->path, (unsigned long long)w->off, p->len, SIM_ETH_MIN_FRAME,
			    SIM_ETH_MAX_FRAME);
		return -EINVAL;
	}
	if (w->epoch + sec > UINT32_MAX) {
		rxb_err_set(err, "pcap '%s': t_ps = %llu: beyond the 32-bit seconds of pcap",
			    w->path, (unsigned long long)p->t_ps);
		return -EINVAL;
	}
	flen = p->len - SIM_ETH_FCS;
	cap = flen < w->snaplen ? flen : w->snaplen;
	build_frame(w, p, cap);
	rec[0] = out32(w, (uint32_t)(w->epoch + sec));
	rec[1] = out32(w, (uint32_t)((w->flags & SIM_PCAP_NSEC) ? rem / 1000u : rem / 1000000u));
	rec[2] = out32(w, cap);
	rec[3] = out32(w, flen);
	rc = write_bytes(w, rec, sizeof(rec), err);
	if (rc == 0)
		rc = write_bytes(w, w->buf, cap, err);
	return rc;
}

int sim_pcap_finish(struct sim_pcap_writer *w, struct rxb_err *err)
{
	int rc = 0;

	if (w == NULL)
		return 0;
	if (fclose(w->f) != 0) {
		rxb_err_set(err, "pcap '%s': closing failed: %s", w->path, strerror(errno));
		rc = -EIO;
	}
	free(w);
	return rc;
}
