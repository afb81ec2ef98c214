/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Toeplitz with GF2P8AFFINEQB. The hash is linear over GF(2): byte o of the
 * result (o = 0 the most significant) gets, from input byte j, an 8x8 bit
 * matrix times data[j] whose rows are the key's 8-bit windows starting at
 * key bit 8(j + o) + r, r = 0..7. The matrix depends on t = j + o only, so
 * there is one per "lane" t (rxb_rss_gfni_matrices), and GF2P8AFFINEQB
 * applies lane t's matrix to the bytes of qword lane t: byte p (p < 4) of
 * lane t holds data[t - 3 + p] and yields its part of result byte 3 - p
 * (bits 8p..8p+7 of the little-endian 32-bit result). XORing all lanes
 * together leaves the hash in the low 32 bits. An input of len bytes needs
 * lanes 0..len+2: two 512-bit registers for IPv4 with ports, five for IPv6
 * with ports. The instruction's semantics: Intel SDM vol. 2, GF2P8AFFINEQB.
 */
#include "rss_gfni.h"

#include "rxb/rss.h"

/* Key byte i, zero past the key (lanes near the end read one byte past). */
static uint8_t key_byte(const uint8_t *key, size_t i)
{
	return i < RXB_RSS_KEY_LEN ? key[i] : 0;
}

void rxb_rss_gfni_matrices(uint64_t *mat, const uint8_t *key)
{
	for (size_t t = 0; t < RXB_RSS_GFNI_LANES; t++) {
		/* Key bits 8t..8t+15, key bit 8t in bit 15. */
		uint32_t k16 = (uint32_t)key_byte(key, t) << 8 | key_byte(key, t + 1);
		uint64_t m = 0;

		/* Row r (byte r of the qword) produces result bit 7 - r of the
		 * lane's byte: the 8 key bits from 8t + r, the first in its
		 * most significant bit, which the instruction ANDs with the
		 * input byte's most significant bit (input bit 8j). */
		for (unsigned r = 0; r < 8; r++)
			m |= (uint64_t)((k16 >> (8 - r)) & 0xff) << (8 * r);
		mat[t] = m;
	}
}

#if defined(__x86_64__)
#include <immintrin.h>

bool rxb_rss_gfni_usable(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("gfni") && __builtin_cpu_supports("avx512f") &&
	       __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vbmi");
}

/* Byte p < 4 of lane i of the first register takes input byte i + p - 3;
 * VPERMB reads an index modulo 64, so the negative ones wrap (and are
 * masked off) and the next register's indices are these plus 8. */
#define LANE(i) (i) + 61, (i) + 62, (i) + 63, (i) + 64, 0, 0, 0, 0
static const uint8_t first_idx[64] = { LANE(0), LANE(1), LANE(2), LANE(3),
				       LANE(4), LANE(5), LANE(6), LANE(7) };
#undef LANE
/* Bytes 0..3 of every lane; in the first register not those before the
 * input (lane 0 bytes 0-2, lane 1 bytes 0-1, lane 2 byte 0). */
static const __mmask64 low4 = 0x0f0f0f0f0f0f0f0full;
static const __mmask64 first_keep = 0x0f0f0f0f0f0e0c08ull;

#define RXB_GFNI_TARGET __attribute__((target("avx512f,avx512bw,avx512vbmi,gfni")))

/* The hash of the len bytes in the low bytes of `in` (the rest zero). */
static inline RXB_GFNI_TARGET uint32_t hash_vec(const uint64_t *mat, __m512i in, size_t len)
{
	__m512i idx = _mm512_loadu_si512(first_idx);
	__m512i acc = _mm512_setzero_si512();
	__mmask64 keep = first_keep;

	for (size_t lane = 0; lane < len + 3; lane += 8) {
		__m512i x = _mm512_maskz_permutexvar_epi8(keep, idx, in);

		acc = _mm512_xor_si512(
			acc, _mm512_gf2p8affine_epi64_epi8(x, _mm512_loadu_si512(mat + lane), 0));
		idx = _mm512_add_epi8(idx, _mm512_set1_epi8(8));
		keep = low4;
	}
	__m256i h4 = _mm256_xor_si256(_mm512_castsi512_si256(acc),
				      _mm512_extracti64x4_epi64(acc, 1));
	__m128i h2 = _mm_xor_si128(_mm256_castsi256_si128(h4), _mm256_extracti128_si256(h4, 1));
	return (uint32_t)(_mm_cvtsi128_si64(h2) ^ _mm_extract_epi64(h2, 1));
}

RXB_GFNI_TARGET uint32_t rxb_rss_gfni_hash(const uint64_t *mat, const uint8_t *data, size_t len)
{
	/* Masked load: no byte past data[len - 1] is read. */
	return hash_vec(mat, _mm512_maskz_loadu_epi8((1ull << len) - 1, data), len);
}

RXB_GFNI_TARGET uint32_t rxb_rss_gfni_hash16(const uint64_t *mat, uint64_t lo, uint64_t hi,
					     size_t len)
{
	return hash_vec(mat, _mm512_zextsi128_si512(_mm_set_epi64x((long long)hi, (long long)lo)),
			len);
}
#else
bool rxb_rss_gfni_usable(void)
{
	return false;
}

uint32_t rxb_rss_gfni_hash(const uint64_t *mat, const uint8_t *data, size_t len)
{
	(void)mat;
	(void)data;
	(void)len;
	return 0; /* never called: rxb_rss_gfni_usable() is false */
}

uint32_t rxb_rss_gfni_hash16(const uint64_t *mat, uint64_t lo, uint64_t hi, size_t len)
{
	(void)mat;
	(void)lo;
	(void)hi;
	(void)len;
	return 0; /* never called: rxb_rss_gfni_usable() is false */
}
#endif
