/* SPDX-License-Identifier: BSD-3-Clause
 * RSS: the Toeplitz hash against Microsoft's published verification vectors,
 * the table hash against the bit-by-bit reference, and the indirection table.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "check.h"
#include "rxb/rss.h"

/* "Verifying the RSS Hash Calculation", Microsoft Windows driver docs
 * (MicrosoftDocs/windows-driver-docs,
 * windows-driver-docs-pr/network/verifying-the-rss-hash-calculation.md).
 * Same values in DPDK app/test/test_thash.c and FD.io VPP
 * src/vppinfra/vector/test/toeplitz.c. Addresses are written as published so
 * a transcription slip shows up as a failing vector, not a silent change. */
struct ms_vector {
	const char *src, *dst;
	uint16_t sport, dport;
	uint32_t hash_ip, hash_l4;
};

static const struct ms_vector ms_ipv4[] = {
	{ "66.9.149.187", "161.142.100.80", 2794, 1766, 0x323e8fc2, 0x51ccc178 },
	{ "199.92.111.2", "65.69.140.83", 14230, 4739, 0xd718262a, 0xc626b0ea },
	{ "24.19.198.95", "12.22.207.184", 12898, 38024, 0xd2d0a5de, 0x5c2b394a },
	{ "38.27.205.30", "209.142.163.6", 48228, 2217, 0x82989176, 0xafc7327f },
	{ "153.39.163.191", "202.188.127.2", 44251, 1303, 0x5d1809c5, 0x10e828a2 },
};

static const struct ms_vector ms_ipv6[] = {
	{ "3ffe:2501:200:1fff::7", "3ffe:2501:200:3::1", 2794, 1766, 0x2cc18cd5, 0x40207d3d },
	{ "3ffe:501:8::260:97ff:fe40:efab", "ff02::1", 14230, 4739, 0x0f0c461c, 0xdde51bbf },
	{ "3ffe:1900:4545:3:200:f8ff:fe21:67cf", "fe80::200:f8ff:fe21:67cf", 44251, 38024,
	  0x4b61e985, 0x02d1feef },
};

#define N_VECTORS(a) (sizeof(a) / sizeof((a)[0]))

/* Deterministic so a failure reproduces. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint8_t rng_byte(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint8_t)(rng_state >> 32);
}

/* Lay out src, dst, sport, dport in network byte order; returns the length
 * of the address part (8 or 32). */
static size_t build_input(int family, const struct ms_vector *v, uint8_t *in)
{
	size_t alen = family == AF_INET ? 4 : 16;

	CHECK_EQ(inet_pton(family, v->src, in), 1);
	CHECK_EQ(inet_pton(family, v->dst, in + alen), 1);
	in[2 * alen] = v->sport >> 8;
	in[2 * alen + 1] = v->sport & 0xff;
	in[2 * alen + 2] = v->dport >> 8;
	in[2 * alen + 3] = v->dport & 0xff;
	return 2 * alen;
}

/* The implementations this CPU runs, each tested alike; one missing is
 * said on stderr, not passed over in silence. */
static const enum rxb_rss_impl impls[] = { RXB_RSS_TABLE, RXB_RSS_GFNI, RXB_RSS_CLMUL };
static const char *const impl_names[] = { "table", "gfni", "clmul" };

static bool use_impl(struct rxb_rss *rss, size_t i)
{
	if (!rxb_rss_impl_available(impls[i])) {
		fprintf(stderr, "     rss %s: not on this CPU, not tested\n", impl_names[i]);
		return false;
	}
	CHECK_EQ(rxb_rss_select(rss, impls[i], NULL), 0);
	CHECK_EQ(rss->impl, impls[i]);
	return true;
}

static void check_ms_vectors_with(const struct rxb_rss *rss, int family,
				  const struct ms_vector *vec, size_t n)
{
	const uint8_t *key = rxb_rss_default_key;
	uint8_t in[RXB_RSS_MAX_INPUT];

	for (size_t i = 0; i < n; i++) {
		const struct ms_vector *v = &vec[i];
		size_t addrs = build_input(family, v, in);
		uint32_t ip, l4, sip, dip;

		CHECK_EQ(rxb_toeplitz_ref(key, RXB_RSS_KEY_LEN, in, addrs), v->hash_ip);
		CHECK_EQ(rxb_toeplitz_ref(key, RXB_RSS_KEY_LEN, in, addrs + 4), v->hash_l4);
		CHECK_EQ(rxb_rss_hash(rss, in, addrs), v->hash_ip);
		CHECK_EQ(rxb_rss_hash(rss, in, addrs + 4), v->hash_l4);

		/* The wrappers must build the same byte order from host-order
		 * IPv4 addresses and ports. */
		if (family == AF_INET) {
			memcpy(&sip, in, 4);
			memcpy(&dip, in + 4, 4);
			ip = rxb_rss_ipv4(rss, ntohl(sip), ntohl(dip));
			l4 = rxb_rss_ipv4_l4(rss, ntohl(sip), ntohl(dip), v->sport, v->dport);
		} else {
			ip = rxb_rss_ipv6(rss, in, in + 16);
			l4 = rxb_rss_ipv6_l4(rss, in, in + 16, v->sport, v->dport);
		}
		CHECK_EQ(ip, v->hash_ip);
		CHECK_EQ(l4, v->hash_l4);
	}
}

/* Check one table of published vectors through every entry point: the
 * reference, each hash implementation, and the wrappers that build the
 * input. */
static void check_ms_vectors(int family, const struct ms_vector *vec, size_t n)
{
	struct rxb_rss rss;

	CHECK_EQ(rxb_rss_init(&rss, rxb_rss_default_key, RXB_RSS_KEY_LEN, NULL), 0);
	for (size_t i = 0; i < N_VECTORS(impls); i++)
		if (use_impl(&rss, i))
			check_ms_vectors_with(&rss, family, vec, n);
}

static void test_ms_vectors_ipv4(void)
{
	CHECK_EQ(N_VECTORS(ms_ipv4), 5);
	check_ms_vectors(AF_INET, ms_ipv4, N_VECTORS(ms_ipv4));
}

static void test_ms_vectors_ipv6(void)
{
	CHECK_EQ(N_VECTORS(ms_ipv6), 3);
	check_ms_vectors(AF_INET6, ms_ipv6, N_VECTORS(ms_ipv6));
}

/* The vectors only pin the default key; a changed key must change the hash,
 * or the key is not really being used. Key bit 39 lies in the window of input
 * bits 8..39, so it matters for any input with one of those bits set (key bit
 * 0 would not do: only input bit 0 sees it, and 66.9.149.187 has it clear). */
static void test_key_is_used(void)
{
	uint8_t key[RXB_RSS_KEY_LEN], in[12];
	struct rxb_rss rss;

	memcpy(key, rxb_rss_default_key, sizeof(key));
	key[4] ^= 0x01;
	build_input(AF_INET, &ms_ipv4[0], in);
	CHECK_EQ(rxb_rss_init(&rss, key, sizeof(key), NULL), 0);
	CHECK(rxb_rss_hash(&rss, in, 12) != ms_ipv4[0].hash_l4);
	CHECK_EQ(rxb_rss_hash(&rss, in, 12), rxb_toeplitz_ref(key, sizeof(key), in, 12));
}

/* Reference on a key shorter than the input needs: the missing key bits read
 * as zero. One set bit at input bit 7 selects key bits 7..38. */
static void test_ref_short_key(void)
{
	const uint8_t key[4] = { 0x80, 0x00, 0x00, 0x01 };
	const uint8_t one = 0x01, top = 0x80;

	CHECK_EQ(rxb_toeplitz_ref(key, sizeof(key), &top, 1), 0x80000001u);
	CHECK_EQ(rxb_toeplitz_ref(key, sizeof(key), &one, 1), 0x00000080u);
	CHECK_EQ(rxb_toeplitz_ref(key, sizeof(key), &one, 0), 0);
}

/* Every single input bit at every position: pins each table window. */
static void check_single_bits(const struct rxb_rss *rss, const uint8_t *key)
{
	uint8_t in[RXB_RSS_MAX_INPUT];
	unsigned mismatches = 0, checked = 0;

	for (size_t bit = 0; bit < RXB_RSS_MAX_INPUT * 8; bit++) {
		memset(in, 0, sizeof(in));
		in[bit / 8] = 0x80 >> (bit % 8);
		if (rxb_rss_hash(rss, in, sizeof(in)) !=
		    rxb_toeplitz_ref(key, RXB_RSS_KEY_LEN, in, sizeof(in)))
			mismatches++;
		checked++;
	}
	CHECK_EQ(mismatches, 0);
	CHECK_EQ(checked, RXB_RSS_MAX_INPUT * 8);
}

/* Random inputs of every length against the reference. */
static unsigned check_random_inputs(const struct rxb_rss *rss, const uint8_t *key, size_t impl,
				    unsigned per_len)
{
	uint8_t in[RXB_RSS_MAX_INPUT];
	unsigned mismatches = 0;

	for (size_t len = 1; len <= RXB_RSS_MAX_INPUT; len++) {
		for (unsigned n = 0; n < per_len; n++) {
			uint32_t got, want;

			for (size_t i = 0; i < len; i++)
				in[i] = rng_byte();
			got = rxb_rss_hash(rss, in, len);
			want = rxb_toeplitz_ref(key, RXB_RSS_KEY_LEN, in, len);
			if (got != want && mismatches++ == 0)
				fprintf(stderr, "%s len %zu: %08x, reference %08x\n",
					impl_names[impl], len, got, want);
		}
	}
	CHECK_EQ(rxb_rss_hash(rss, in, 0), 0);
	return mismatches;
}

static void test_impls_match_ref(void)
{
	enum { KEYS = 4, PER_LEN = 400 };
	uint8_t key[RXB_RSS_KEY_LEN];
	unsigned mismatches = 0, tested = 0;
	struct rxb_rss rss;

	for (int k = 0; k < KEYS; k++) {
		for (size_t i = 0; i < sizeof(key); i++)
			key[i] = k == 0 ? rxb_rss_default_key[i] : rng_byte();
		CHECK_EQ(rxb_rss_init(&rss, key, sizeof(key), NULL), 0);
		for (size_t i = 0; i < N_VECTORS(impls); i++) {
			if (!use_impl(&rss, i))
				continue;
			check_single_bits(&rss, key);
			mismatches += check_random_inputs(&rss, key, i, PER_LEN);
			tested++;
		}
	}
	CHECK_EQ(mismatches, 0);
	CHECK(tested >= KEYS); /* the table at least */
}

static uint32_t rng_u32(void)
{
	return (uint32_t)rng_byte() << 24 | (uint32_t)rng_byte() << 16 | (uint32_t)rng_byte() << 8 |
	       rng_byte();
}

/* Mismatches against the reference of `check` run with the default key
 * under each implementation this CPU runs. */
static unsigned over_impls(unsigned (*check)(const struct rxb_rss *rss))
{
	unsigned mismatches = 0;
	struct rxb_rss rss;

	CHECK_EQ(rxb_rss_init(&rss, rxb_rss_default_key, RXB_RSS_KEY_LEN, NULL), 0);
	for (size_t i = 0; i < N_VECTORS(impls); i++)
		if (use_impl(&rss, i))
			mismatches += check(&rss);
	return mismatches;
}

static unsigned ipv4_wrapper_mismatches(const struct rxb_rss *rss)
{
	const uint8_t *key = rxb_rss_default_key;
	unsigned mismatches = 0;

	for (int n = 0; n < 2000; n++) {
		uint32_t sip = rng_u32(), dip = rng_u32(), ports = rng_u32();
		uint16_t sport = (uint16_t)(ports >> 16), dport = (uint16_t)ports;
		uint8_t in[12] = { sip >> 24, sip >> 16, sip >> 8,   sip,   dip >> 24,  dip >> 16,
				   dip >> 8,  dip,       sport >> 8, sport, dport >> 8, dport };

		mismatches += rxb_rss_ipv4(rss, sip, dip) !=
			      rxb_toeplitz_ref(key, RXB_RSS_KEY_LEN, in, 8);
		mismatches += rxb_rss_ipv4_l4(rss, sip, dip, sport, dport) !=
			      rxb_toeplitz_ref(key, RXB_RSS_KEY_LEN, in, 12);
	}
	return mismatches;
}

/* The IPv4 wrappers (GFNI and CLMUL take their input in registers)
 * against the reference on random addresses and ports, each impl. */
static void test_ipv4_wrappers_match_ref(void)
{
	CHECK_EQ(over_impls(ipv4_wrapper_mismatches), 0);
}

/* A selected implementation really reads its own state: flipping `bit` of
 * one word of it changes the hash, and the table still gives the right one. */
static void check_uses_its_state(struct rxb_rss *rss, uint64_t *state, uint64_t bit)
{
	uint8_t in[12] = { 0x42, 0x09, 0x95, 0xbb, 0xa1, 0x8e, 0x64, 0x4f, 0x10, 0x2c, 0x06, 0xe6 };
	uint32_t h = rxb_rss_hash(rss, in, sizeof(in));

	*state ^= bit;
	CHECK(rxb_rss_hash(rss, in, sizeof(in)) != h);
	*state ^= bit;
	CHECK_EQ(rxb_rss_select(rss, RXB_RSS_TABLE, NULL), 0);
	CHECK_EQ(rxb_rss_hash(rss, in, sizeof(in)), h);
}

/* rxb_rss_init picks GFNI where the CPU has it, else CLMUL, else the
 * table; each vector implementation, selected, uses its own state. */
static void test_fastest_is_chosen_and_each_uses_its_state(void)
{
	struct rxb_rss rss;
	bool gfni = rxb_rss_impl_available(RXB_RSS_GFNI);
	bool clmul = rxb_rss_impl_available(RXB_RSS_CLMUL);

	CHECK_EQ(rxb_rss_init(&rss, rxb_rss_default_key, RXB_RSS_KEY_LEN, NULL), 0);
	CHECK_EQ(rss.impl, gfni ? RXB_RSS_GFNI : clmul ? RXB_RSS_CLMUL : RXB_RSS_TABLE);
	/* GFNI lane 5's first row meets the lowest bit of input bytes 2..5
	 * (set in 0x95, 0xbb, 0xa1); CLMUL window 1's bit 40 is key bit 72,
	 * which input bits 41..63 (bytes 5..7, none zero) meet. */
	if (gfni)
		check_uses_its_state(&rss, &rss.gfni[5], 1);
	if (clmul && rxb_rss_select(&rss, RXB_RSS_CLMUL, NULL) == 0)
		check_uses_its_state(&rss, &rss.clmul[1], 1ull << 40);
	if (!gfni || !clmul)
		fprintf(stderr, "     rss: gfni %s, clmul %s on this CPU\n",
			gfni ? "tested" : "not", clmul ? "tested" : "not");
}

static void test_select_refuses_unknown(void)
{
	struct rxb_rss rss;
	struct rxb_err err;

	CHECK_EQ(rxb_rss_init(&rss, rxb_rss_default_key, RXB_RSS_KEY_LEN, NULL), 0);
	CHECK(!rxb_rss_impl_available((enum rxb_rss_impl)7));
	CHECK_EQ(rxb_rss_select(&rss, (enum rxb_rss_impl)7, &err), -ENOTSUP);
	CHECK(strstr(err.msg, "rss.impl") != NULL);
	CHECK(rss.impl == RXB_RSS_TABLE || rss.impl == RXB_RSS_GFNI || rss.impl == RXB_RSS_CLMUL);
}

static void test_reta_round_robin(void)
{
	static const uint32_t sizes[] = { 64, 128, 4096 };
	static const uint32_t queues[] = { 1, 3, 5, 8, 16, 100, 128, 200 };

	for (size_t s = 0; s < N_VECTORS(sizes); s++) {
		for (size_t q = 0; q < N_VECTORS(queues); q++) {
			uint32_t size = sizes[s], n = queues[q];
			uint32_t count[200] = { 0 }, lo = UINT32_MAX, hi = 0;
			uint32_t reached = n < size ? n : size;
			unsigned wrong = 0;
			struct rxb_reta reta;

			CHECK_EQ(rxb_reta_init(&reta, size, n, NULL), 0);
			CHECK_EQ(reta.size, size);
			CHECK_EQ(reta.mask, size - 1);
			for (uint32_t i = 0; i < size; i++) {
				if (reta.queue[i] != i % n)
					wrong++;
				if (reta.queue[i] < n)
					count[reta.queue[i]]++;
			}
			CHECK_EQ(wrong, 0);
			/* Even spread: the queues that fit get sizes differing by
			 * at most one entry, the rest get nothing. */
			for (uint32_t i = 0; i < reached; i++) {
				lo = count[i] < lo ? count[i] : lo;
				hi = count[i] > hi ? count[i] : hi;
			}
			CHECK(hi - lo <= 1);
			CHECK_EQ(lo, size / reached);
			for (uint32_t i = reached; i < n; i++)
				CHECK_EQ(count[i], 0);
			rxb_reta_free(&reta);
			CHECK(reta.queue == NULL);
		}
	}
}

static void test_reta_lookup(void)
{
	struct rxb_reta reta;
	struct rxb_err err = { 0 };
	struct rxb_rss rss;

	CHECK_EQ(rxb_reta_init(&reta, RXB_RETA_DEFAULT_SIZE, 4, &err), 0);
	/* Low 7 bits index the table; the high bits are ignored. */
	CHECK_EQ(rxb_reta_lookup(&reta, 5), 1);
	CHECK_EQ(rxb_reta_lookup(&reta, 0xffffff80u | 5), 1);
	CHECK_EQ(rxb_reta_lookup(&reta, 127), 3);
	CHECK_EQ(rxb_reta_lookup(&reta, 128), 0);

	CHECK_EQ(rxb_reta_set(&reta, 5, 3, 4, &err), 0);
	CHECK_EQ(rxb_reta_lookup(&reta, 5), 3);
	CHECK_EQ(rxb_reta_lookup(&reta, 5 + 128 * 1000), 3);
	CHECK_EQ(rxb_reta_lookup(&reta, 6), 2);
	CHECK_EQ(rxb_reta_lookup(&reta, 4), 0);
	rxb_reta_free(&reta);

	/* End to end: the first published IPv4/TCP flow, 0x51ccc178, has low
	 * bits 0x78 = 120 and lands on queue 120 % 16 = 8 of a default table. */
	CHECK_EQ(rxb_rss_init(&rss, rxb_rss_default_key, RXB_RSS_KEY_LEN, &err), 0);
	CHECK_EQ(rxb_reta_init(&reta, RXB_RETA_DEFAULT_SIZE, 16, &err), 0);
	CHECK_EQ(
		rxb_reta_lookup(&reta, rxb_rss_ipv4_l4(&rss, 0x420995bbu, 0xa18e6450u, 2794, 1766)),
		8);
	rxb_reta_free(&reta);
	rxb_reta_free(&reta); /* twice is harmless */
}

/* Spreading without a table: multiply-shift keeps hash order, so each of
 * n values takes one contiguous 1/n of the hash space. */
static void test_hash_spread(void)
{
	CHECK_EQ(rxb_hash_spread(0, 5), 0);
	CHECK_EQ(rxb_hash_spread(0xffffffffu, 5), 4);
	CHECK_EQ(rxb_hash_spread(0x80000000u, 2), 1);
	CHECK_EQ(rxb_hash_spread(0x7fffffffu, 2), 0);
	CHECK_EQ(rxb_hash_spread(0x33333333u, 5), 0); /* just below 1/5 */
	CHECK_EQ(rxb_hash_spread(0x33333334u, 5), 1);
	CHECK_EQ(rxb_hash_spread(12345, 1), 0);
}

/* ECMP over two ports, then a 512-entry RETA over 4 queues, by the same
 * hash: every (port, queue) pair takes its eighth of the hashes (within 5
 * %), so the port does not bias the RETA's pick; a flow's port is fixed. */
static void test_ecmp_independent_of_reta(void)
{
	enum { PORTS = 2, QUEUES = 4, N = 80000 };
	uint32_t count[PORTS][QUEUES] = { { 0 } };
	struct rxb_err err = { 0 };
	struct rxb_reta reta;
	uint64_t x = 0x243f6a8885a308d3ull;

	CHECK_EQ(rxb_reta_init(&reta, RXB_RETA_MLX5_SIZE, QUEUES, &err), 0);
	for (int i = 0; i < N; i++) {
		uint32_t h;

		x = x * 6364136223846793005ull + 1442695040888963407ull;
		h = (uint32_t)(x >> 32);
		CHECK_EQ(rxb_ecmp_port(h, PORTS), rxb_ecmp_port(h, PORTS));
		count[rxb_ecmp_port(h, PORTS)][rxb_reta_lookup(&reta, h)]++;
	}
	for (int p = 0; p < PORTS; p++)
		for (int q = 0; q < QUEUES; q++)
			CHECK(count[p][q] > N / 8 * 95 / 100 && count[p][q] < N / 8 * 105 / 100);
	rxb_reta_free(&reta);
}

/* Expect -EINVAL and a message that names `field`. */
#define CHECK_EINVAL(call, err, field)                     \
	do {                                               \
		(err).msg[0] = '\0';                       \
		CHECK_EQ((call), -EINVAL);                 \
		CHECK(strstr((err).msg, (field)) != NULL); \
	} while (0)

static void test_bad_config(void)
{
	static const uint32_t bad_sizes[] = { 0, 1, 32, 100, 129, 8192 };
	struct rxb_err err;
	struct rxb_rss rss;
	struct rxb_reta reta;
	const uint8_t *key = rxb_rss_default_key;

	CHECK_EINVAL(rxb_rss_init(&rss, key, 39, &err), err, "rss.key");
	CHECK_EINVAL(rxb_rss_init(&rss, key, 41, &err), err, "rss.key");
	CHECK_EINVAL(rxb_rss_init(&rss, NULL, RXB_RSS_KEY_LEN, &err), err, "rss.key");
	CHECK_EQ(rxb_rss_init(&rss, key, 39, NULL), -EINVAL);

	for (size_t i = 0; i < N_VECTORS(bad_sizes); i++) {
		reta.queue = (uint16_t *)&reta; /* must be reset, not freed */
		CHECK_EINVAL(rxb_reta_init(&reta, bad_sizes[i], 4, &err), err, "reta.size");
		CHECK(reta.queue == NULL);
		CHECK_EQ(reta.size, 0);
		rxb_reta_free(&reta);
	}
	CHECK_EINVAL(rxb_reta_init(&reta, 128, 0, &err), err, "reta.n_queues");
	CHECK_EINVAL(rxb_reta_init(&reta, 128, RXB_RETA_MAX_QUEUES + 1, &err), err,
		     "reta.n_queues");
	CHECK_EQ(rxb_reta_init(&reta, 128, 0, NULL), -EINVAL);
	CHECK_EQ(rxb_reta_init(&reta, 128, RXB_RETA_MAX_QUEUES, &err), 0);
	rxb_reta_free(&reta);

	CHECK_EQ(rxb_reta_init(&reta, 128, 4, &err), 0);
	CHECK_EINVAL(rxb_reta_set(&reta, 128, 0, 4, &err), err, "reta.entry");
	CHECK_EINVAL(rxb_reta_set(&reta, UINT32_MAX, 0, 4, &err), err, "reta.entry");
	CHECK_EINVAL(rxb_reta_set(&reta, 0, 4, 4, &err), err, "reta.queue");
	CHECK_EINVAL(rxb_reta_set(&reta, 0, 0, 0, &err), err, "reta.n_queues");
	CHECK_EQ(rxb_reta_set(&reta, 0, 4, 4, NULL), -EINVAL);
	/* Failed updates leave the table as it was. */
	for (uint32_t i = 0; i < 128; i++)
		CHECK_EQ(reta.queue[i], i % 4);
	CHECK_EQ(rxb_reta_set(&reta, 127, 0, 4, &err), 0);
	CHECK_EQ(reta.queue[127], 0);
	rxb_reta_free(&reta);
	/* An empty table has no valid entry. */
	CHECK_EINVAL(rxb_reta_set(&reta, 0, 0, 4, &err), err, "reta.entry");
}

/* An IPv4/UDP frame behind `tags` VLAN tags of these EtherTypes, carrying
 * the first Microsoft vector: its length. */
static uint32_t tagged_frame(uint8_t *f, const uint16_t *tpid, int tags)
{
	static const uint8_t ip_udp[28] = {
		0x45, 0,   0,   28, 0,         0,           0,         0,
		64,   17,  0,   0,  66,        9,           149,       187,
		161,  142, 100, 80, 2794 >> 8, 2794 & 0xff, 1766 >> 8, 1766 & 0xff,
	};
	uint32_t off = 12;

	memset(f, 0, 64);
	for (int i = 0; i < tags; i++, off += 4) {
		f[off] = (uint8_t)(tpid[i] >> 8);
		f[off + 1] = (uint8_t)tpid[i];
	}
	f[off] = 0x08; /* IPv4 */
	memcpy(f + off + 2, ip_udp, sizeof(ip_udp));
	return off + 2 + (uint32_t)sizeof(ip_udp);
}

/* The frame parser takes as many tags as the trace readers do: QinQ (802.1ad
 * outer, 802.1Q inner), the pre-standard 0x9100 and three tags hash as the
 * untagged frame; a frame cut inside a tag, or with one tag too many, does
 * not. (One 802.1Q tag was all it took before; QinQ then hashed to 0.) */
static void test_frame_vlan_tags(void)
{
	static const uint16_t qinq[] = { 0x88a8, 0x8100 }, old[] = { 0x9100, 0x8100 },
			      three[] = { 0x88a8, 0x8100, 0x8100, 0x8100 };
	struct rxb_rss rss;
	struct rxb_err err;
	uint8_t f[80];
	uint16_t dport, type;
	uint32_t n;

	CHECK_EQ(rxb_rss_init(&rss, rxb_rss_default_key, RXB_RSS_KEY_LEN, &err), 0);
	n = tagged_frame(f, qinq, 2);
	CHECK_EQ(rxb_eth_l3(f, n, &type), 22);
	CHECK_EQ(type, 0x0800);
	CHECK_EQ(rxb_rss_frame(&rss, f, n, &dport), 0x51ccc178u);
	CHECK_EQ(dport, 1766);
	CHECK_EQ(rxb_rss_frame_l3(&rss, f, n), 0x323e8fc2u);
	n = tagged_frame(f, old, 2);
	CHECK_EQ(rxb_rss_frame(&rss, f, n, &dport), 0x51ccc178u);
	n = tagged_frame(f, three, RXB_ETH_MAX_TAGS);
	CHECK_EQ(rxb_eth_l3(f, n, &type), 14 + 4 * RXB_ETH_MAX_TAGS);
	CHECK_EQ(rxb_rss_frame(&rss, f, n, &dport), 0x51ccc178u);
	CHECK_EQ(rxb_eth_l3(f, 14 + 4 + 3, &type), 0); /* cut inside the second tag */
	CHECK_EQ(type, 0);
	CHECK_EQ(rxb_eth_l3(f, 13, &type), 0);
	n = tagged_frame(f, three, RXB_ETH_MAX_TAGS + 1);
	CHECK_EQ(rxb_eth_l3(f, n, &type), 14 + 4 * RXB_ETH_MAX_TAGS);
	CHECK_EQ(type, 0x8100);
	CHECK_EQ(rxb_rss_frame(&rss, f, n, &dport), 0);
}

/* The untagged IPv4 frame without options is hashed by a shortcut (lib/rss.c,
 * plain_ipv4_l4); each of its conditions failing falls back to the general
 * parse, and both agree: a fragment (offset or more-fragments bit) and a
 * frame cut before the ports hash the addresses only; a version nibble the
 * parse does not check hashes as the plain frame. */
static void test_frame_plain_ipv4_shortcut(void)
{
	struct rxb_rss rss;
	struct rxb_err err;
	uint8_t f[80];
	uint16_t dport;
	uint32_t n;

	CHECK_EQ(rxb_rss_init(&rss, rxb_rss_default_key, RXB_RSS_KEY_LEN, &err), 0);
	n = tagged_frame(f, NULL, 0);
	CHECK_EQ(f[14], 0x45);
	CHECK_EQ(rxb_rss_frame(&rss, f, n, &dport), 0x51ccc178u);
	CHECK_EQ(dport, 1766);
	CHECK_EQ(rxb_rss_frame(&rss, f, 14 + 20 + 3, &dport), 0x323e8fc2u);
	CHECK_EQ(dport, 0);
	f[14] = 0x65;
	CHECK_EQ(rxb_rss_frame(&rss, f, n, &dport), 0x51ccc178u);
	f[14] = 0x45;
	for (int bit = 0; bit < 14; bit++) { /* the offset's 13 bits, then MF */
		uint16_t frag = (uint16_t)(1u << bit);

		f[14 + 6] = (uint8_t)(frag >> 8);
		f[14 + 7] = (uint8_t)frag;
		CHECK_EQ(rxb_rss_frame(&rss, f, n, &dport), 0x323e8fc2u);
		CHECK_EQ(dport, 0);
	}
}

/* A random IPv4 (ihl 5 or 6: with an option) or IPv6 frame with TCP, UDP
 * or (IPv6) a hop-by-hop header first, and the hash input a NIC takes
 * from it (addresses, then the ports when it hashes them): *n_in bytes. */
static uint32_t random_frame(uint8_t *f, bool v6, uint32_t ihl, uint8_t proto, uint8_t *in,
			     size_t *n_in)
{
	uint32_t l3 = 14, addrs = v6 ? 32 : 8, l4 = l3 + (v6 ? 40 : ihl);
	bool ports = proto != 0;

	memset(f, 0, 128);
	for (uint32_t i = 0; i < 128; i++)
		f[i] = i >= l3 ? rng_byte() : 0;
	f[12] = v6 ? 0x86 : 0x08;
	f[13] = v6 ? 0xdd : 0x00;
	if (v6) {
		f[l3] = 0x60;
		f[l3 + 6] = ports ? proto : 0; /* 0: hop-by-hop options first */
	} else {
		f[l3] = (uint8_t)(0x40 | ihl / 4);
		f[l3 + 6] = f[l3 + 7] = 0; /* not a fragment */
		f[l3 + 9] = ports ? proto : 17;
	}
	memcpy(in, f + l3 + (v6 ? 8 : 12), addrs);
	if (ports)
		memcpy(in + addrs, f + l4, 4);
	*n_in = addrs + (ports ? 4 : 0);
	return 128;
}

static unsigned frame_mismatches(const struct rxb_rss *rss)
{
	static const struct {
		bool v6;
		uint32_t ihl;
		uint8_t proto;
	} kinds[] = { { false, 20, 17 }, { false, 20, 6 }, { false, 24, 17 },
		      { true, 40, 17 },  { true, 40, 6 },  { true, 40, 0 } };
	const uint8_t *key = rxb_rss_default_key;
	uint8_t f[128], in[RXB_RSS_MAX_INPUT];
	unsigned mismatches = 0;

	for (size_t k = 0; k < N_VECTORS(kinds); k++)
		for (int n = 0; n < 200; n++) {
			size_t n_in;
			uint32_t len = random_frame(f, kinds[k].v6, kinds[k].ihl, kinds[k].proto,
						    in, &n_in);
			uint16_t dport;

			mismatches += rxb_rss_frame(rss, f, len, &dport) !=
				      rxb_toeplitz_ref(key, RXB_RSS_KEY_LEN, in, n_in);
			mismatches += rxb_rss_frame_l3(rss, f, len) !=
				      rxb_toeplitz_ref(key, RXB_RSS_KEY_LEN, in,
						       kinds[k].v6 ? 32 : 8);
		}
	return mismatches;
}

/* Every frame path (in place and from values) against the reference,
 * each implementation: IPv4 with and without options, IPv6 with L4 and
 * with an extension header. */
static void test_frames_match_ref(void)
{
	CHECK_EQ(over_impls(frame_mismatches), 0);
}

int main(void)
{
	RUN(test_ms_vectors_ipv4);
	RUN(test_ms_vectors_ipv6);
	RUN(test_key_is_used);
	RUN(test_ref_short_key);
	RUN(test_impls_match_ref);
	RUN(test_ipv4_wrappers_match_ref);
	RUN(test_fastest_is_chosen_and_each_uses_its_state);
	RUN(test_select_refuses_unknown);
	RUN(test_reta_round_robin);
	RUN(test_reta_lookup);
	RUN(test_hash_spread);
	RUN(test_ecmp_independent_of_reta);
	RUN(test_bad_config);
	RUN(test_frame_vlan_tags);
	RUN(test_frame_plain_ipv4_shortcut);
	RUN(test_frames_match_ref);
	return check_summary();
}
