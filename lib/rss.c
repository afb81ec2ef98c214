/* SPDX-License-Identifier: BSD-3-Clause */
#include <assert.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "rss_clmul.h"
#include "rss_gfni.h"
#include "rxb/rss.h"

const uint8_t rxb_rss_default_key[RXB_RSS_KEY_LEN] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

const size_t rxb_rss_state_bytes = sizeof(struct rxb_rss);

/* Key bit n, most significant bit of key[0] first; zero past the end so the
 * reference can hash inputs its key does not fully cover. */
static unsigned key_bit(const uint8_t *key, size_t key_len, size_t n)
{
	if (n / 8 >= key_len)
		return 0;
	return (key[n / 8] >> (7 - n % 8)) & 1;
}

uint32_t rxb_toeplitz_ref(const uint8_t *key, size_t key_len, const uint8_t *data, size_t len)
{
	uint32_t result = 0, window = 0;
	size_t next;

	/* window always holds the 32 key bits starting at the current input
	 * bit: load the first 32, then shift one key bit in per input bit. */
	for (next = 0; next < 32; next++)
		window = window << 1 | key_bit(key, key_len, next);
	for (size_t i = 0; i < len; i++) {
		for (int b = 7; b >= 0; b--) {
			if ((data[i] >> b) & 1)
				result ^= window;
			window = window << 1 | key_bit(key, key_len, next++);
		}
	}
	return result;
}

int rxb_rss_init(struct rxb_rss *rss, const uint8_t *key, size_t key_len, struct rxb_err *err)
{
	if (key == NULL) {
		rxb_err_set(err, "rss.key = NULL: must point to %d bytes", RXB_RSS_KEY_LEN);
		return -EINVAL;
	}
	if (key_len != RXB_RSS_KEY_LEN) {
		rxb_err_set(err, "rss.key = %zu bytes: must be exactly %d bytes", key_len,
			    RXB_RSS_KEY_LEN);
		return -EINVAL;
	}

	for (size_t i = 0; i < RXB_RSS_MAX_INPUT; i++) {
		uint32_t window[8];
		uint64_t k = 0;

		/* Key bytes i..i+7 hold every window an input bit of byte i
		 * can start (bits 8i..8i+38); bytes past the key read as 0,
		 * which only the unused low bits of the last rows see. */
		for (size_t j = 0; j < 8; j++)
			k = k << 8 | (i + j < key_len ? key[i + j] : 0);
		for (int b = 0; b < 8; b++)
			window[b] = (uint32_t)(k >> (32 - b));

		/* Linearity: the row for v is the row for v without its lowest
		 * set bit, XOR the window of that bit (input bit 7 - ctz,
		 * since input bits count from the MSB). */
		rss->table[i][0] = 0;
		for (unsigned v = 1; v < 256; v++)
			rss->table[i][v] = rss->table[i][v & (v - 1)] ^
					   window[7 - __builtin_ctz(v)];
	}
	rxb_rss_gfni_matrices(rss->gfni, key);
	rxb_rss_clmul_windows(rss->clmul, key);
	rss->impl = rxb_rss_impl_available(RXB_RSS_GFNI)    ? RXB_RSS_GFNI
		    : rxb_rss_impl_available(RXB_RSS_CLMUL) ? RXB_RSS_CLMUL
							    : RXB_RSS_TABLE;
	return 0;
}

/* Whether this CPU runs impl; the check runs once per implementation, and
 * racing first callers store the same. */
static bool cpu_runs(_Atomic int *known, bool (*usable)(void))
{
	int u = atomic_load_explicit(known, memory_order_relaxed);

	if (u < 0) {
		u = usable();
		atomic_store_explicit(known, u, memory_order_relaxed);
	}
	return u != 0;
}

bool rxb_rss_impl_available(enum rxb_rss_impl impl)
{
	static _Atomic int gfni = -1, clmul = -1;

	switch (impl) {
	case RXB_RSS_TABLE:
		return true;
	case RXB_RSS_GFNI:
		return cpu_runs(&gfni, rxb_rss_gfni_usable);
	case RXB_RSS_CLMUL:
		return cpu_runs(&clmul, rxb_rss_clmul_usable);
	}
	return false;
}

int rxb_rss_select(struct rxb_rss *rss, enum rxb_rss_impl impl, struct rxb_err *err)
{
	if (!rxb_rss_impl_available(impl)) {
		rxb_err_set(err,
			    "rss.impl = %d: this CPU cannot run it (table = %d always can; gfni = "
			    "%d needs GFNI with AVX-512 F, BW and VBMI; clmul = %d needs "
			    "PCLMULQDQ)",
			    (int)impl, RXB_RSS_TABLE, RXB_RSS_GFNI, RXB_RSS_CLMUL);
		return -ENOTSUP;
	}
	rss->impl = impl;
	return 0;
}

static uint32_t table_hash(const struct rxb_rss *rss, const uint8_t *data, size_t len)
{
	uint32_t h = 0;

	for (size_t i = 0; i < len; i++)
		h ^= rss->table[i][data[i]];
	return h;
}

/* rxb_rss_hash's body, which this file's frame hash calls directly: the
 * library is position-independent, so its calls to its own exported
 * functions are never inlined (they could be interposed), and on the
 * per-packet path the call and the registers it saves cost more than the
 * parsing itself. */
static inline uint32_t hash_impl(const struct rxb_rss *rss, const uint8_t *data, size_t len)
{
	assert(len <= RXB_RSS_MAX_INPUT);
	if (rss->impl == RXB_RSS_GFNI)
		return rxb_rss_gfni_hash(rss->gfni, data, len);
	if (rss->impl == RXB_RSS_CLMUL)
		return rxb_rss_clmul_hash(rss->clmul, data, len);
	return table_hash(rss, data, len);
}

uint32_t rxb_rss_hash(const struct rxb_rss *rss, const uint8_t *data, size_t len)
{
	return hash_impl(rss, data, len);
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

/* The addresses in network order as the little-endian word of their 8
 * input bytes (GFNI and CLMUL take IPv4 inputs in registers, not through
 * bytes just stored: rxb_rss_gfni_hash16, rxb_rss_clmul_words). */
static uint64_t ipv4_word(uint32_t sip, uint32_t dip)
{
	return (uint64_t)__builtin_bswap32(dip) << 32 | __builtin_bswap32(sip);
}

uint32_t rxb_rss_ipv4(const struct rxb_rss *rss, uint32_t sip, uint32_t dip)
{
	uint8_t in[8];

	if (rss->impl == RXB_RSS_GFNI)
		return rxb_rss_gfni_hash16(rss->gfni, ipv4_word(sip, dip), 0, sizeof(in));
	if (rss->impl == RXB_RSS_CLMUL)
		return rxb_rss_clmul_words(rss->clmul, (const uint32_t[]){ sip, dip }, 2);
	put_be32(in, sip);
	put_be32(in + 4, dip);
	return table_hash(rss, in, sizeof(in));
}

uint32_t rxb_rss_ipv4_l4(const struct rxb_rss *rss, uint32_t sip, uint32_t dip, uint16_t sport,
			 uint16_t dport)
{
	uint8_t in[12];

	if (rss->impl == RXB_RSS_GFNI)
		return rxb_rss_gfni_hash16(rss->gfni, ipv4_word(sip, dip),
					   (uint64_t)__builtin_bswap16(dport) << 16 |
						   __builtin_bswap16(sport),
					   sizeof(in));
	if (rss->impl == RXB_RSS_CLMUL)
		return rxb_rss_clmul_words(
			rss->clmul, (const uint32_t[]){ sip, dip, (uint32_t)sport << 16 | dport },
			3);
	put_be32(in, sip);
	put_be32(in + 4, dip);
	put_be16(in + 8, sport);
	put_be16(in + 10, dport);
	return table_hash(rss, in, sizeof(in));
}

/* IPv6 addresses (and ports) laid out as the hash reads them. */
static size_t ipv6_input(uint8_t *in, const uint8_t sip[16], const uint8_t dip[16])
{
	memcpy(in, sip, 16);
	memcpy(in + 16, dip, 16);
	return 32;
}

uint32_t rxb_rss_ipv6(const struct rxb_rss *rss, const uint8_t sip[16], const uint8_t dip[16])
{
	uint8_t in[32];

	return rxb_rss_hash(rss, in, ipv6_input(in, sip, dip));
}

uint32_t rxb_rss_ipv6_l4(const struct rxb_rss *rss, const uint8_t sip[16], const uint8_t dip[16],
			 uint16_t sport, uint16_t dport)
{
	uint8_t in[RXB_RSS_MAX_INPUT];
	size_t n = ipv6_input(in, sip, dip);

	put_be16(in + n, sport);
	put_be16(in + n + 2, dport);
	return rxb_rss_hash(rss, in, n + 4);
}

static uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)get_be16(p) << 16 | get_be16(p + 2);
}

enum {
	ETH_HDR = 14,
	VLAN_TAG = 4,
	ETYPE_IPV4 = 0x0800,
	ETYPE_IPV6 = 0x86dd,
	ETYPE_8021Q = 0x8100,
	ETYPE_8021AD = 0x88a8,
	ETYPE_QINQ_OLD = 0x9100,
	PROTO_TCP = 6,
	PROTO_UDP = 17
};

static bool is_vlan(uint16_t type)
{
	return type == ETYPE_8021Q || type == ETYPE_8021AD || type == ETYPE_QINQ_OLD;
}

/* rxb_eth_l3's body, for the frame hash (as hash_impl). */
static inline uint32_t eth_l3(const uint8_t *frame, uint32_t len, uint16_t *type)
{
	uint32_t off = ETH_HDR;

	*type = 0;
	if (len < ETH_HDR)
		return 0;
	*type = get_be16(frame + 12);
	for (int i = 0; i < RXB_ETH_MAX_TAGS && is_vlan(*type); i++) {
		if (len < off + VLAN_TAG) {
			*type = 0;
			return 0; /* cut inside a tag */
		}
		*type = get_be16(frame + off + 2);
		off += VLAN_TAG;
	}
	return off;
}

uint32_t rxb_eth_l3(const uint8_t *frame, uint32_t len, uint16_t *type)
{
	return eth_l3(frame, len, type);
}

static bool is_tcp_udp(uint8_t proto)
{
	return proto == PROTO_TCP || proto == PROTO_UDP;
}

/* A frame's hash input is hashed where it lies whenever its fields are
 * contiguous there (addresses, then the ports when no IPv4 option or IPv6
 * extension header comes between): no copy, and no vector load of bytes
 * just stored (GFNI; rxb_rss_gfni_hash16). */
static uint32_t hash_ipv4(const struct rxb_rss *rss, const uint8_t *ip, uint32_t len, bool l4,
			  uint16_t *dport)
{
	uint32_t ihl = (ip[0] & 0xfu) * 4u;
	bool fragment = (get_be16(ip + 6) & 0x3fff) != 0;

	if (ihl < 20 || len < ihl)
		return 0;
	if (l4 && !fragment && is_tcp_udp(ip[9]) && len >= ihl + 4) {
		*dport = get_be16(ip + ihl + 2);
		if (ihl == 20) /* no options: the ports follow the addresses */
			return hash_impl(rss, ip + 12, 12);
		return rxb_rss_ipv4_l4(rss, get_be32(ip + 12), get_be32(ip + 16),
				       get_be16(ip + ihl), *dport);
	}
	return hash_impl(rss, ip + 12, 8);
}

static uint32_t hash_ipv6(const struct rxb_rss *rss, const uint8_t *ip, uint32_t len, bool l4,
			  uint16_t *dport)
{
	if (len < 40)
		return 0;
	if (l4 && is_tcp_udp(ip[6]) && len >= 44) { /* the ports follow the addresses */
		*dport = get_be16(ip + 42);
		return hash_impl(rss, ip + 8, 36);
	}
	return hash_impl(rss, ip + 8, 32);
}

/* The frame most traffic is: untagged IPv4 without options (version 4,
 * IHL 5), not a fragment, carrying TCP or UDP. Its hash input (addresses,
 * then ports) lies at a fixed offset, so it is tested for first, in one
 * pass over bytes the general parse reads anyway; anything else takes the
 * general parse, which hashes this frame alike. */
static inline bool plain_ipv4_l4(const uint8_t *frame, uint32_t len)
{
	const uint8_t *ip = frame + ETH_HDR;

	return len >= ETH_HDR + 20 + 4 && get_be16(frame + 12) == ETYPE_IPV4 && ip[0] == 0x45 &&
	       (get_be16(ip + 6) & 0x3fff) == 0 && is_tcp_udp(ip[9]);
}

static uint32_t hash_frame(const struct rxb_rss *rss, const uint8_t *frame, uint32_t len, bool l4,
			   uint16_t *dport)
{
	uint16_t type;
	uint32_t l2;

	if (l4 && plain_ipv4_l4(frame, len)) {
		*dport = get_be16(frame + ETH_HDR + 20 + 2);
		return hash_impl(rss, frame + ETH_HDR + 12, 12);
	}
	l2 = eth_l3(frame, len, &type);
	*dport = 0;
	if (type == ETYPE_IPV4)
		return hash_ipv4(rss, frame + l2, len - l2, l4, dport);
	if (type == ETYPE_IPV6)
		return hash_ipv6(rss, frame + l2, len - l2, l4, dport);
	return 0;
}

uint32_t rxb_rss_frame(const struct rxb_rss *rss, const uint8_t *frame, uint32_t len,
		       uint16_t *dport)
{
	return hash_frame(rss, frame, len, true, dport);
}

uint32_t rxb_rss_frame_l3(const struct rxb_rss *rss, const uint8_t *frame, uint32_t len)
{
	uint16_t dport;

	return hash_frame(rss, frame, len, false, &dport);
}

static int check_n_queues(uint32_t n_queues, struct rxb_err *err)
{
	if (n_queues == 0 || n_queues > RXB_RETA_MAX_QUEUES) {
		rxb_err_set(err, "reta.n_queues = %u: must be in [1, %u]", n_queues,
			    RXB_RETA_MAX_QUEUES);
		return -EINVAL;
	}
	return 0;
}

int rxb_reta_init(struct rxb_reta *reta, uint32_t size, uint32_t n_queues, struct rxb_err *err)
{
	int ret;

	reta->size = 0;
	reta->mask = 0;
	reta->queue = NULL;
	if (size < RXB_RETA_MIN || size > RXB_RETA_MAX || !rxb_is_pow2(size)) {
		rxb_err_set(err, "reta.size = %u: must be a power of two in [%u, %u]", size,
			    RXB_RETA_MIN, RXB_RETA_MAX);
		return -EINVAL;
	}
	ret = check_n_queues(n_queues, err);
	if (ret)
		return ret;

	reta->queue = rxb_malloc(size * sizeof(*reta->queue));
	if (reta->queue == NULL)
		return rxb_err_nomem(err, size * sizeof(*reta->queue), "RETA of %u entries", size);
	for (uint32_t i = 0; i < size; i++)
		reta->queue[i] = (uint16_t)(i % n_queues);
	reta->size = size;
	reta->mask = size - 1;
	return 0;
}

int rxb_reta_set(struct rxb_reta *reta, uint32_t entry, uint32_t queue, uint32_t n_queues,
		 struct rxb_err *err)
{
	int ret = check_n_queues(n_queues, err);

	if (ret)
		return ret;
	if (entry >= reta->size) {
		rxb_err_set(err, "reta.entry = %u: must be below the table size %u", entry,
			    reta->size);
		return -EINVAL;
	}
	if (queue >= n_queues) {
		rxb_err_set(err, "reta.queue = %u: must be below n_queues = %u", queue, n_queues);
		return -EINVAL;
	}
	reta->queue[entry] = (uint16_t)queue;
	return 0;
}

void rxb_reta_free(struct rxb_reta *reta)
{
	free(reta->queue);
	reta->queue = NULL;
	reta->size = 0;
	reta->mask = 0;
}
