/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Toeplitz with PCLMULQDQ. The hash XORs, for every set input bit j (the
 * most significant bit of data[0] first), the 32 key bits from key bit j:
 * result bit 31 - b is the sum over j of d[j] k[j + b]. Cut the input into
 * 32-bit words: word c holds input bits 32c..32c+31, as a big-endian load
 * gives them (input bit 32c + m in bit 31 - m). Put key bits 32c..32c+63
 * in a 64-bit window the other way round (key bit 32c + i in bit i). In
 * the carry-less product of word and window, bit 31 + b collects
 * d[32c + m] k[32c + i] with (31 - m) + i = 31 + b, i.e. i = m + b: word
 * c's share of result bit 31 - b. XOR the products of all words, take bits
 * 31..62 and reverse their order: the hash. One multiplication per 4 input
 * bytes, 72 bytes of state. A 36-byte input reaches key bit 32 * 8 + 63 =
 * 319, the key's last. The instruction's semantics: Intel SDM vol. 2,
 * PCLMULQDQ.
 */
#include "rss_clmul.h"

#include <string.h>

#include "rxb/rss.h"

/* Key bit n, the most significant bit of key[0] first; zero past the key. */
static unsigned key_bit(const uint8_t *key, size_t n)
{
	return n / 8 < RXB_RSS_KEY_LEN ? (key[n / 8] >> (7 - n % 8)) & 1u : 0;
}

void rxb_rss_clmul_windows(uint64_t *win, const uint8_t *key)
{
	for (size_t c = 0; c < RXB_RSS_CLMUL_WORDS; c++) {
		uint64_t w = 0;

		for (unsigned i = 0; i < 64; i++)
			w |= (uint64_t)key_bit(key, 32 * c + i) << i;
		win[c] = w;
	}
}

#if defined(__x86_64__)
#include <immintrin.h>

/* The 32 bits of x in the opposite order. */
static uint32_t reverse32(uint32_t x)
{
	x = (x & 0x55555555u) << 1 | (x >> 1 & 0x55555555u);
	x = (x & 0x33333333u) << 2 | (x >> 2 & 0x33333333u);
	x = (x & 0x0f0f0f0fu) << 4 | (x >> 4 & 0x0f0f0f0fu);
	return __builtin_bswap32(x);
}

bool rxb_rss_clmul_usable(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("pclmul");
}

#define RXB_CLMUL_TARGET __attribute__((target("pclmul")))

static inline RXB_CLMUL_TARGET __m128i word_product(uint32_t word, uint64_t win)
{
	return _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)word), _mm_cvtsi64_si128((long long)win),
				    0);
}

/* The hash from the XOR of the words' products. */
static inline RXB_CLMUL_TARGET uint32_t hash_of(__m128i acc)
{
	return reverse32((uint32_t)((uint64_t)_mm_cvtsi128_si64(acc) >> 31));
}

/* The XOR of the products of the n whole words at data. Always inlined, so
 * that a constant n unrolls the loop (the pragma). */
static inline RXB_CLMUL_TARGET __attribute__((always_inline)) __m128i whole_words(
	const uint64_t *win, const uint8_t *data, size_t n)
{
	__m128i acc = _mm_setzero_si128();

#pragma GCC unroll 9 /* RXB_RSS_CLMUL_WORDS: -O2 does not unroll it by itself */
	for (size_t c = 0; c < n; c++) {
		uint32_t word;

		memcpy(&word, data + 4 * c, sizeof(word));
		acc = _mm_xor_si128(acc, word_product(__builtin_bswap32(word), win[c]));
	}
	return acc;
}

/* Any length: the whole words, then a last partial one, whose missing
 * bytes are zero bits, which add nothing (no byte past data[len - 1] is
 * read). */
static RXB_CLMUL_TARGET uint32_t hash_any(const uint64_t *win, const uint8_t *data, size_t len)
{
	size_t c = len / 4;
	__m128i acc = whole_words(win, data, c);
	uint32_t last = 0;

	if (4 * c == len)
		return hash_of(acc);
	for (size_t i = 4 * c; i < len; i++)
		last |= (uint32_t)data[i] << (24 - 8 * (i - 4 * c));
	return hash_of(_mm_xor_si128(acc, word_product(last, win[c])));
}

RXB_CLMUL_TARGET uint32_t rxb_rss_clmul_hash(const uint64_t *win, const uint8_t *data, size_t len)
{
	/* The inputs NICs hash (IPv4 addresses, with ports; IPv6 addresses,
	 * with ports) get their loop unrolled: the loop's own instructions
	 * were a third of the hash's. */
	switch (len) {
	case 8:
		return hash_of(whole_words(win, data, 2));
	case 12:
		return hash_of(whole_words(win, data, 3));
	case 32:
		return hash_of(whole_words(win, data, 8));
	case 36:
		return hash_of(whole_words(win, data, 9));
	default:
		return hash_any(win, data, len);
	}
}

RXB_CLMUL_TARGET uint32_t rxb_rss_clmul_words(const uint64_t *win, const uint32_t *word, size_t n)
{
	__m128i acc = _mm_setzero_si128();

	for (size_t c = 0; c < n; c++)
		acc = _mm_xor_si128(acc, word_product(word[c], win[c]));
	return hash_of(acc);
}
#else
bool rxb_rss_clmul_usable(void)
{
	return false;
}

uint32_t rxb_rss_clmul_hash(const uint64_t *win, const uint8_t *data, size_t len)
{
	(void)win;
	(void)data;
	(void)len;
	return 0; /* never called: rxb_rss_clmul_usable() is false */
}

uint32_t rxb_rss_clmul_words(const uint64_t *win, const uint32_t *word, size_t n)
{
	(void)win;
	(void)word;
	(void)n;
	return 0; /* never called: rxb_rss_clmul_usable() is false */
}
#endif
