/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/models/cacheset.h — the operations on one set of a set-associative cache
 * with exact LRU that the LLC (llc.c) and the cores' L2s (l2.c) share.
 * A set keeps, per way, an 8-bit signature (a hash) of its tag, an 8-bit
 * LRU rank (0 = MRU; the ranks of the ways are a permutation of 0..W−1,
 * padding slots hold 255 so that they never move) and the tag (a line
 * number); valid ways are a bit mask. Up to 16 ways in one 16-byte vector,
 * up to 32 in two (`wide`).
 */
#ifndef SIM_CACHESET_H
#define SIM_CACHESET_H

#include <stdint.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define CS_RANK_PAD 255
#define CS_TAG_NONE UINT64_MAX /* never a line number: lines are addr >> 6 */

typedef uint8_t cs_v16u8 __attribute__((vector_size(16), aligned(8)));

/* A tag's signature: the top byte of a multiplicative hash of the line. */
static inline uint8_t cs_sig(uint64_t line)
{
	return (uint8_t)((line * 0x9e3779b97f4a7c15ull) >> 56);
}

/* Make way w the MRU: every way more recent than w ages by one. Vector
 * compare-and-subtract over the 16 or 32 rank slots (the comparison yields
 * −1 where true). */
static inline __attribute__((always_inline)) void cs_touch(uint8_t *rank, int wide, uint32_t w)
{
	uint8_t r = rank[w];
	cs_v16u8 rv = { r, r, r, r, r, r, r, r, r, r, r, r, r, r, r, r };
	cs_v16u8 x;

	__builtin_memcpy(&x, rank, 16);
	x -= (cs_v16u8)(x < rv);
	__builtin_memcpy(rank, &x, 16);
	if (wide) {
		__builtin_memcpy(&x, rank + 16, 16);
		x -= (cs_v16u8)(x < rv);
		__builtin_memcpy(rank + 16, &x, 16);
	}
	rank[w] = 0;
}

/* Ways (among way_bits, the ways that exist) whose tag is `line`: at most
 * one bit. The signatures of all ways are compared at once (one 16-byte
 * compare per 16 ways); only ways whose signature matches have their full
 * tag compared, so the result is exact. */
static inline __attribute__((always_inline)) uint32_t cs_match(const uint8_t *sig,
							       const uint64_t *tag, int wide,
							       uint32_t way_bits, uint64_t line)
{
	uint32_t cand = 0, m = 0;
	uint8_t sg = cs_sig(line);

#if defined(__SSE2__)
	__m128i key = _mm_set1_epi8((char)sg);

	cand = (uint32_t)_mm_movemask_epi8(
		_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)sig), key));
	if (wide)
		cand |= (uint32_t)_mm_movemask_epi8(
				_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(sig + 16)), key))
			<< 16;
#else
	for (uint32_t w = 0; w < 32 && (way_bits >> w); w++)
		cand |= (uint32_t)(sig[w] == sg) << w;
#endif
	cand &= way_bits;
	while (cand) {
		uint32_t w = (uint32_t)__builtin_ctz(cand);

		m |= (uint32_t)(tag[w] == line) << w;
		cand &= cand - 1;
	}
	return m;
}

/* The allocation victim among `mask` (of a set of `ways` ways): an invalid
 * way if any, else the least recently used (highest rank). */
static inline __attribute__((always_inline)) uint32_t cs_victim(const uint8_t *rank, uint32_t valid,
								int wide, uint32_t ways,
								uint32_t mask)
{
	uint32_t free_ways = mask & ~valid;

	if (free_ways)
		return (uint32_t)__builtin_ctz(free_ways);
#if defined(__SSE2__)
	if (!wide) {
		/* The ranks of the allowed ways (the others as 0), their
		 * maximum, and the allowed way that holds it: ranks are
		 * distinct, so there is exactly one. */
		static const uint8_t bit[16] = { 1, 2, 4, 8, 16, 32, 64, 128,
						 1, 2, 4, 8, 16, 32, 64, 128 };
		__m128i sel = _mm_loadu_si128((const __m128i *)bit);
		__m128i m = _mm_cvtsi32_si128((int)mask), r, x;

		m = _mm_unpacklo_epi8(m, m);
		m = _mm_unpacklo_epi16(m, m);
		m = _mm_unpacklo_epi32(m, m); /* bytes 0-7: mask & 0xff, 8-15: mask >> 8 */
		m = _mm_cmpeq_epi8(_mm_and_si128(m, sel), sel);
		r = _mm_and_si128(_mm_loadu_si128((const __m128i *)rank), m);
		x = _mm_max_epu8(r, _mm_srli_si128(r, 8));
		x = _mm_max_epu8(x, _mm_srli_si128(x, 4));
		x = _mm_max_epu8(x, _mm_srli_si128(x, 2));
		x = _mm_max_epu8(x, _mm_srli_si128(x, 1));
		x = _mm_set1_epi8((char)_mm_cvtsi128_si32(x));
		return (uint32_t)__builtin_ctz((uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(r, x)) &
					       mask);
	}
#endif
	{
		/* key = rank · 256 + way for allowed ways, −1 for the others;
		 * ranks are distinct, so the largest key names the LRU allowed
		 * way. A plain max compiles to conditional moves. */
		int best = -1;

		for (uint32_t j = 0; j < ways; j++) {
			int key = ((int)rank[j] << 8 | (int)j) | -(int)(((mask >> j) & 1) ^ 1);

			best = key > best ? key : best;
		}
		return (uint32_t)best & 0xff;
	}
}

#endif /* SIM_CACHESET_H */
