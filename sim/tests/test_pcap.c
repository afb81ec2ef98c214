/* SPDX-License-Identifier: BSD-3-Clause
 * pcap reader/writer and trace generator: round trips in both byte orders
 * and timestamp resolutions, header parsing (VLAN, QinQ, IPv6 extension
 * headers, fragments, raw IP, Linux cooked, non-IP), errors for missing,
 * foreign and truncated files, and a cross-check against libpcap when it is
 * installed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "pcap.h"
#include "tracegen.h"
#ifdef RXB_HAVE_LIBPCAP
#include <pcap/pcap.h>
#endif

static char dir[64];

static const char *tmp(const char *name)
{
	static char path[4][128];
	static int i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/%s", dir, name);
	return path[i];
}

/* 5000 packets of varied sizes and tuples. */
static int make_pkts(struct sim_pkt *pk, int n)
{
	struct sim_traffic_cfg cfg;
	struct sim_traffic g;
	int k = 0;

	sim_traffic_cfg_default(&cfg);
	cfg.main.arrival = SIM_ARRIVAL_POISSON;
	cfg.main.rate_bps = 10000000000ull;
	sim_size_imix(&cfg.main.size);
	cfg.proto = 6;
	cfg.start_ps = 123456789;
	cfg.max_pkts = (uint64_t)n;
	CHECK_EQ(sim_traffic_init(&g, &cfg, NULL), 0);
	while (k < n && sim_traffic_next(&g, &pk[k]))
		k++;
	sim_traffic_free(&g);
	return k;
}

static void round_trip(unsigned flags, uint32_t snaplen)
{
	enum { N = 5000 };
	static struct sim_pkt in[N];
	struct sim_pcap_writer *w;
	struct sim_pcap_reader *r;
	struct sim_pkt p;
	struct rxb_err err;
	uint64_t unit = (flags & SIM_PCAP_NSEC) ? 1000 : 1000000;
	int n = make_pkts(in, N), k = 0, same = 1, rc;

	CHECK_EQ(n, N);
	CHECK_EQ(sim_pcap_create(&w, tmp("rt.pcap"), flags, snaplen, 1700000000, &err), 0);
	for (int i = 0; i < n; i++)
		CHECK_EQ(sim_pcap_write(w, &in[i], &err), 0);
	CHECK_EQ(sim_pcap_finish(w, &err), 0);

	CHECK_EQ(sim_pcap_open(&r, tmp("rt.pcap"), 0, &err), 0);
	CHECK_EQ(sim_pcap_info(r)->swapped, (flags & SIM_PCAP_SWAPPED) ? 1 : 0);
	CHECK_EQ(sim_pcap_info(r)->nsec, (flags & SIM_PCAP_NSEC) ? 1 : 0);
	CHECK_EQ(sim_pcap_info(r)->linktype, 1);
	while ((rc = sim_pcap_next(r, &p, &err)) == 1) {
		/* Times are relative to the first packet, at the file's
		 * resolution. */
		uint64_t want = in[k].t_ps / unit * unit - in[0].t_ps / unit * unit;

		same &= p.t_ps == want && p.len == in[k].len && p.sip == in[k].sip &&
			p.dip == in[k].dip && p.sport == in[k].sport && p.dport == in[k].dport &&
			p.proto == 6 && p.l3 == 4;
		k++;
	}
	CHECK_EQ(rc, 0);
	CHECK_EQ(k, n);
	CHECK(same);
	CHECK_EQ(sim_pcap_info(r)->nonip, 0);
	CHECK_EQ(sim_pcap_info(r)->short_hdr, 0);
	CHECK_EQ(sim_pcap_info(r)->t0_sec, 1700000000);
	sim_pcap_close(r);
}

static void test_round_trip(void)
{
	round_trip(SIM_PCAP_NSEC, 128);
	round_trip(SIM_PCAP_SWAPPED, 64);
	round_trip(SIM_PCAP_NSEC | SIM_PCAP_SWAPPED, 65535);
	round_trip(0, 96);
}

static void test_tracegen(void)
{
	struct sim_tracegen_cfg cfg;
	struct sim_tracegen g;
	struct sim_pcap_reader *r;
	struct sim_pkt a, b;
	struct rxb_err err;
	uint64_t n = 0, k = 0, small = 0, big = 0, maxflow = 0, prev_t = 0, first = 0;
	int same = 1, ordered = 1;

	sim_tracegen_cfg_default(&cfg);
	cfg.duration_ps = 5000000000ull; /* 5 ms at 10 Gb/s */
	cfg.line_bps = 100000000000ull;
	CHECK_EQ(sim_tracegen_write_pcap(&cfg, tmp("trace.pcap"), SIM_PCAP_NSEC, 128, &n, &err), 0);
	CHECK(n > 3000);
	CHECK_EQ(sim_tracegen_init(&g, &cfg, NULL), 0);
	CHECK_EQ(sim_pcap_open(&r, tmp("trace.pcap"), 0, &err), 0);
	while (sim_pcap_next(r, &b, &err) == 1) {
		if (sim_tracegen_next(&g, &a) != 1) {
			same = 0;
			break;
		}
		if (k == 0)
			first = a.t_ps;
		same &= a.len == b.len && a.sip == b.sip && a.dport == b.dport &&
			a.proto == b.proto && b.t_ps == a.t_ps / 1000 * 1000 - first / 1000 * 1000;
		ordered &= b.t_ps >= prev_t;
		prev_t = b.t_ps;
		small += a.len == 64;
		big += a.len == 1518;
		if (a.flow > maxflow)
			maxflow = a.flow;
		k++;
	}
	CHECK(same);
	CHECK(ordered);
	CHECK_EQ(k, n);
	printf("  tracegen: %llu packets, %llu flows, %.2f small, %.2f full-size\n",
	       (unsigned long long)n, (unsigned long long)maxflow + 1, (double)small / k,
	       (double)big / k);
	CHECK(small > k / 10 && big > k / 10);
	CHECK(maxflow > 500);
	CHECK_EQ(sim_pcap_info(r)->reordered, 0);
	sim_pcap_close(r);
	sim_tracegen_free(&g);
}

/* The trace starts in steady state: its offered load is near the
 * configured rate from the first millisecond on. */
static double trace_rate(uint32_t max_pkts, uint64_t seed, uint64_t *flows)
{
	struct sim_tracegen_cfg cfg;
	struct sim_tracegen g;
	struct sim_pkt p;
	double bits = 0.0;

	sim_tracegen_cfg_default(&cfg);
	cfg.duration_ps = 20000000000ull; /* 20 ms */
	cfg.flow_max_pkts = max_pkts;
	cfg.seed = seed;
	CHECK_EQ(sim_tracegen_init(&g, &cfg, NULL), 0);
	while (sim_tracegen_next(&g, &p) == 1)
		bits += 8.0 * sim_wire_bytes(p.len);
	*flows = g.flows_started;
	sim_tracegen_free(&g);
	return bits / 20e-3;
}

static void test_tracegen_rate(void)
{
	uint64_t flows;
	double sum = 0.0;

	/* A light tail (flows of at most 1000 packets) averages out within
	 * 20 ms; five seeds' mean is within a few % of the 10 Gb/s. */
	for (uint64_t seed = 1; seed <= 5; seed++)
		sum += trace_rate(1000, seed, &flows);
	printf("  tracegen rate, flows <= 1000 pkts: %.4g b/s (configured 1e10), %llu flows\n",
	       sum / 5, (unsigned long long)flows);
	CHECK(fabs(sum / 5 / 1e10 - 1.0) < 0.05);
	/* The default tail (up to 10^6 packets) has most of its mean in rare
	 * elephants: 20 ms see less than the mean, but not an empty link. */
	sum = trace_rate(1000000, 1, &flows);
	printf("  tracegen rate, default tail: %.4g b/s, %llu flows\n", sum,
	       (unsigned long long)flows);
	CHECK(sum > 0.3e10 && sum < 3e10);
}

static size_t put(uint8_t *b, size_t off, const void *src, size_t n)
{
	memcpy(b + off, src, n);
	return off + n;
}

static void test_parse(void)
{
	static const uint8_t eth_vlan_ipv4_udp[] = {
		0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0x81, 0x00, 0x00, 0x64, 0x08, 0x00,
		0x45, 0, 0, 28, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 192, 168, 1, 2,
		0x30, 0x39, 0x00, 0x35, 0, 8, 0, 0
	};
	static const uint8_t eth_qinq_ipv4_tcp[] = {
		0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0x88, 0xa8, 0x00, 0x01, 0x81, 0x00, 0x00, 0x02,
		0x08, 0x00, 0x46, 0, 0, 44, 0, 0, 0, 0, 64, 6, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8,
		1, 1, 1, 1, /* 4 bytes of IP options (IHL 6) */
		0x01, 0xbb, 0xc0, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0x50, 0x10, 0xff, 0xff, 0, 0, 0, 0
	};
	static const uint8_t arp[42] = { [12] = 0x08, [13] = 0x06 };
	uint8_t b[256];
	struct sim_pkt p;
	struct sim_pcap_info info;
	size_t n;

	memset(&info, 0, sizeof(info));
	CHECK_EQ(sim_pcap_parse(eth_vlan_ipv4_udp, sizeof(eth_vlan_ipv4_udp), 60, 1, &p, &info),
		 1);
	CHECK(p.sip == 0x0a000001 && p.dip == 0xc0a80102 && p.sport == 12345 && p.dport == 53 &&
	      p.proto == 17 && p.l3 == 4 && p.len == 64);

	CHECK_EQ(sim_pcap_parse(eth_qinq_ipv4_tcp, sizeof(eth_qinq_ipv4_tcp), 1514, 1, &p, &info),
		 1);
	CHECK(p.sip == 0x01020304 && p.dip == 0x05060708 && p.sport == 443 && p.dport == 49152 &&
	      p.proto == 6 && p.len == 1518);

	/* ARP: not IP, zero tuple, minimum frame. */
	CHECK_EQ(sim_pcap_parse(arp, sizeof(arp), 42, 1, &p, &info), 0);
	CHECK(p.l3 == 0 && p.sip == 0 && p.dip == 0 && p.sport == 0 && p.proto == 0 &&
	      p.len == 64);

	/* IPv6, hop-by-hop options header, then UDP. */
	{
		uint8_t h6[40] = { 0x60, 0, 0, 0, 0, 16, 0 /* next: hop-by-hop */, 64 };
		uint8_t hbh[8] = { 17, 0 };
		uint8_t udp[8] = { 0x11, 0x11, 0x22, 0x22, 0, 8, 0, 0 };

		for (int i = 0; i < 16; i++) {
			h6[8 + i] = (uint8_t)i;
			h6[24 + i] = (uint8_t)(0xf0 + i);
		}
		n = 0;
		memset(b, 0, 14);
		b[12] = 0x86;
		b[13] = 0xdd;
		n = put(b, 14, h6, 40);
		n = put(b, n, hbh, 8);
		n = put(b, n, udp, 8);
		CHECK_EQ(sim_pcap_parse(b, (uint32_t)n, (uint32_t)n, 1, &p, &info), 1);
		CHECK(p.l3 == 6 && p.proto == 17 && p.sport == 0x1111 && p.dport == 0x2222);
		CHECK(p.sip == (0x00010203u ^ 0x04050607u ^ 0x08090a0bu ^ 0x0c0d0e0fu));
		/* Raw IPv6 link type: the same packet without the Ethernet
		 * header; its frame length gains header + FCS. */
		CHECK_EQ(sim_pcap_parse(b + 14, (uint32_t)n - 14, (uint32_t)n - 14, 101, &p, &info),
			 1);
		CHECK(p.dport == 0x2222 && p.len == n + 4);
		CHECK_EQ(sim_pcap_parse(b + 14, (uint32_t)n - 14, (uint32_t)n - 14, 228, &p, &info),
			 0); /* LINKTYPE_IPV4 carries no IPv6 */
	}

	/* Non-first IPv4 fragment: addresses, no ports. */
	memcpy(b, eth_vlan_ipv4_udp, sizeof(eth_vlan_ipv4_udp));
	b[18 + 6] = 0x00;
	b[18 + 7] = 0x10; /* fragment offset 16 */
	CHECK_EQ(sim_pcap_parse(b, sizeof(eth_vlan_ipv4_udp), 60, 1, &p, &info), 1);
	CHECK(p.sip == 0x0a000001 && p.sport == 0 && p.dport == 0);
	CHECK_EQ(info.frags, 1);

	/* Linux cooked capture v1: 16-byte header, protocol at 14. */
	memset(b, 0, 16);
	b[14] = 0x08;
	b[15] = 0x00;
	n = put(b, 16, eth_vlan_ipv4_udp + 18, 28);
	CHECK_EQ(sim_pcap_parse(b, (uint32_t)n, (uint32_t)n, 113, &p, &info), 1);
	CHECK(p.dport == 53 && p.len == 64);

	/* Captured bytes end inside the UDP header. */
	CHECK_EQ(sim_pcap_parse(eth_vlan_ipv4_udp, 18 + 20 + 2, 1000, 1, &p, &info), 1);
	CHECK(p.sip == 0x0a000001 && p.sport == 0);
	CHECK_EQ(info.short_hdr, 1);
	CHECK_EQ(p.len, 1004);
}

static void write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");

	CHECK(f != NULL);
	if (f) {
		CHECK_EQ(fwrite(data, 1, n, f), n);
		fclose(f);
	}
}

static int read_all(const char *path, unsigned flags, struct rxb_err *err, uint64_t *n)
{
	struct sim_pcap_reader *r;
	struct sim_pkt p;
	int rc = sim_pcap_open(&r, path, flags, err);

	*n = 0;
	if (rc)
		return rc;
	while ((rc = sim_pcap_next(r, &p, err)) == 1)
		(*n)++;
	sim_pcap_close(r);
	return rc;
}

/* Bytes of a record written with snaplen 128. */
static size_t rec(const struct sim_pkt *p)
{
	return 16 + (p->len - 4 < 128 ? p->len - 4 : 128);
}

static void test_errors(void)
{
	struct sim_pcap_writer *w;
	struct sim_pkt pk[3];
	struct rxb_err err;
	uint8_t buf[4096];
	uint64_t n;
	size_t len;
	FILE *f;

	CHECK_EQ(read_all(tmp("missing.pcap"), 0, &err, &n), -ENOENT);
	CHECK(strstr(err.msg, "missing.pcap") != NULL);

	write_file(tmp("junk.pcap"), "hello, this is not a capture file", 33);
	CHECK_EQ(read_all(tmp("junk.pcap"), 0, &err, &n), -EBADMSG);
	CHECK(strstr(err.msg, "junk.pcap") != NULL && strstr(err.msg, "magic") != NULL);

	{
		uint8_t ng[28] = { 0x0a, 0x0d, 0x0d, 0x0a };

		write_file(tmp("ng.pcap"), ng, sizeof(ng));
		CHECK_EQ(read_all(tmp("ng.pcap"), 0, &err, &n), -EBADMSG);
		CHECK(strstr(err.msg, "pcapng") != NULL);
	}

	write_file(tmp("short.pcap"), "\xd4\xc3\xb2\xa1\x02\x00", 6);
	CHECK_EQ(read_all(tmp("short.pcap"), 0, &err, &n), -EBADMSG);
	CHECK(strstr(err.msg, "file header") != NULL);

	/* A valid 3-packet file (one non-IP), then truncations of it. */
	make_pkts(pk, 3);
	pk[1].l3 = 0;
	CHECK_EQ(sim_pcap_create(&w, tmp("ok.pcap"), 0, 128, 0, &err), 0);
	for (int i = 0; i < 3; i++)
		sim_pcap_write(w, &pk[i], &err);
	CHECK_EQ(sim_pcap_finish(w, &err), 0);
	CHECK_EQ(read_all(tmp("ok.pcap"), 0, &err, &n), 0);
	CHECK_EQ(n, 3);
	CHECK_EQ(read_all(tmp("ok.pcap"), SIM_PCAP_SKIP_NONIP, &err, &n), 0);
	CHECK_EQ(n, 2);

	f = fopen(tmp("ok.pcap"), "rb");
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	/* Cut inside the first record's data. */
	write_file(tmp("cut1.pcap"), buf, 24 + 16 + 10);
	CHECK_EQ(read_all(tmp("cut1.pcap"), 0, &err, &n), -EBADMSG);
	printf("  %s\n", err.msg);
	CHECK(strstr(err.msg, "cut1.pcap") != NULL && strstr(err.msg, "offset 40") != NULL &&
	      strstr(err.msg, "truncated packet data") != NULL);
	/* Cut inside the last record's header: two packets, then the error. */
	write_file(tmp("cut2.pcap"), buf, 24 + rec(&pk[0]) + rec(&pk[1]) + 7);
	CHECK_EQ(read_all(tmp("cut2.pcap"), 0, &err, &n), -EBADMSG);
	printf("  %s\n", err.msg);
	CHECK_EQ(n, 2);
	CHECK(strstr(err.msg, "truncated record header") != NULL);
	/* An absurd captured length. */
	buf[24 + 8] = 0xff;
	buf[24 + 9] = 0xff;
	buf[24 + 10] = 0xff;
	write_file(tmp("huge.pcap"), buf, len);
	CHECK_EQ(read_all(tmp("huge.pcap"), 0, &err, &n), -EBADMSG);
	CHECK(strstr(err.msg, "captured length") != NULL && strstr(err.msg, "offset 24") != NULL);
}

#ifdef RXB_HAVE_LIBPCAP
/* libpcap reads what we write, and we read what libpcap writes. */
static void test_libpcap(void)
{
	enum { N = 500 };
	static struct sim_pkt in[N];
	struct sim_pcap_writer *w;
	struct sim_pcap_reader *r;
	struct rxb_err err;
	char perr[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	struct sim_pkt p;
	pcap_t *pc;
	pcap_dumper_t *d;
	int n = make_pkts(in, N), k = 0, ok = 1;

	for (int swapped = 0; swapped <= 1; swapped++) {
		unsigned flags = SIM_PCAP_NSEC | (swapped ? SIM_PCAP_SWAPPED : 0);

		CHECK_EQ(sim_pcap_create(&w, tmp("ours.pcap"), flags, 256, 1000, &err), 0);
		for (int i = 0; i < n; i++)
			sim_pcap_write(w, &in[i], &err);
		CHECK_EQ(sim_pcap_finish(w, &err), 0);
		pc = pcap_open_offline_with_tstamp_precision(tmp("ours.pcap"),
							     PCAP_TSTAMP_PRECISION_NANO, perr);
		CHECK(pc != NULL);
		if (pc == NULL)
			return;
		k = 0;
		while (pcap_next_ex(pc, &h, &data) == 1) {
			uint64_t ns = (uint64_t)(h->ts.tv_sec - 1000) * 1000000000ull +
				      (uint64_t)h->ts.tv_usec;

			ok &= h->len == in[k].len - 4 &&
			      h->caplen == (h->len < 256 ? h->len : 256) && ns == in[k].t_ps / 1000;
			/* The IPv4 source address, as libpcap's user sees it. */
			ok &= (uint32_t)data[26] << 24 == (in[k].sip & 0xff000000u);
			k++;
		}
		pcap_close(pc);
		CHECK_EQ(k, n);
		CHECK(ok);
	}

	/* libpcap writes (µs, native order), we read. */
	pc = pcap_open_dead(DLT_EN10MB, 65535);
	d = pcap_dump_open(pc, tmp("theirs.pcap"));
	CHECK(d != NULL);
	if (d == NULL)
		return;
	for (int i = 0; i < n; i++) {
		struct pcap_pkthdr ph;
		uint8_t frame[SIM_ETH_MAX_FRAME] = { 0 };

		ph.ts.tv_sec = 5 + (time_t)(in[i].t_ps / 1000000000000ull);
		ph.ts.tv_usec = (suseconds_t)(in[i].t_ps % 1000000000000ull / 1000000);
		ph.len = in[i].len - 4;
		ph.caplen = ph.len < 64 ? ph.len : 64;
		frame[12] = 0x08;
		frame[14] = 0x45;
		frame[23] = 17;
		frame[26] = (uint8_t)(in[i].sip >> 24);
		frame[27] = (uint8_t)(in[i].sip >> 16);
		frame[28] = (uint8_t)(in[i].sip >> 8);
		frame[29] = (uint8_t)in[i].sip;
		frame[34] = (uint8_t)(in[i].sport >> 8);
		frame[35] = (uint8_t)in[i].sport;
		pcap_dump((u_char *)d, &ph, frame);
	}
	pcap_dump_close(d);
	pcap_close(pc);
	CHECK_EQ(sim_pcap_open(&r, tmp("theirs.pcap"), 0, &err), 0);
	k = 0;
	ok = 1;
	while (sim_pcap_next(r, &p, &err) == 1) {
		uint64_t want = in[k].t_ps / 1000000 * 1000000 - in[0].t_ps / 1000000 * 1000000;

		ok &= p.len == in[k].len && p.sip == in[k].sip && p.sport == in[k].sport &&
		      p.proto == 17 && p.t_ps == want;
		k++;
	}
	sim_pcap_close(r);
	CHECK_EQ(k, n);
	CHECK(ok);
}
#endif

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/rxbsim-pcap-XXXXXX");
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_round_trip);
	RUN(test_tracegen);
	RUN(test_tracegen_rate);
	RUN(test_parse);
	RUN(test_errors);
#ifdef RXB_HAVE_LIBPCAP
	RUN(test_libpcap);
#else
	printf("skip test_libpcap (libpcap-dev not found at build time)\n");
#endif
	{
		const char *names[] = { "rt.pcap",   "trace.pcap", "junk.pcap",  "ng.pcap",
					"short.pcap", "ok.pcap",   "cut1.pcap",  "cut2.pcap",
					"huge.pcap", "ours.pcap",  "theirs.pcap", "missing.pcap" };

		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			unlink(tmp(names[i]));
		rmdir(dir);
	}
	return check_summary();
}
