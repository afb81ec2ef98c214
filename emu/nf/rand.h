/* SPDX-License-Identifier: BSD-3-Clause
 *
 * nf/rand.h — small deterministic random number generators for the
 * emulator's traffic generator and network functions.
 *
 * Why not rte_rand(): it has one state per lcore seeded once per process, so
 * two generators on one lcore would interleave and a run could not be
 * repeated from its seed. Every user here owns its state.
 */
#ifndef RXB_EMU_RAND_H
#define RXB_EMU_RAND_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* splitmix64: used to expand a seed into a full state, and as a cheap
 * stateless mixer (key bytes, value bytes) where a value must depend only on
 * its inputs. */
static inline uint64_t rxb_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* xoshiro256** (Blackman & Vigna): fast, 256-bit state, good enough for
 * workloads; not for cryptography. */
struct rxb_rng {
	uint64_t s[4];
};

static inline void rxb_rng_seed(struct rxb_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = rxb_splitmix64(&seed);
}

static inline uint64_t rxb_rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t rxb_rng_u64(struct rxb_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rxb_rng_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rxb_rng_rotl(s[3], 45);
	return result;
}

/* Uniform in [0, n) by multiply-shift (Lemire). The bias is below n / 2^64,
 * invisible at the sizes used here, and there is no division on the path. */
static inline uint64_t rxb_rng_below(struct rxb_rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rxb_rng_u64(r) * n) >> 64);
}

/* Uniform double in [0, 1) with 53 random bits. */
static inline double rxb_rng_double(struct rxb_rng *r)
{
	return (double)(rxb_rng_u64(r) >> 11) * 0x1.0p-53;
}

/* Zipf(s) over ranks 1..n by rejection-inversion (Hörmann & Derflinger,
 * "Rejection-inversion to generate variates from monotone discrete
 * distributions", 1996): O(1) memory and expected time for any n, so 10 M
 * keys need no CDF table. s = 0 is accepted and means uniform. */
struct rxb_zipf {
	uint64_t n;
	double s;
	double h_x1;   /* H(1.5) - 1 */
	double h_n;    /* H(n + 0.5) */
	double sv;     /* squeeze bound */
};

/* Returns 0, or -EINVAL when n == 0 or s < 0 (or not a number). */
int rxb_zipf_init(struct rxb_zipf *z, uint64_t n, double s);

/* Rank in [1, n]; rank 1 is the most popular. */
uint64_t rxb_zipf_sample(const struct rxb_zipf *z, struct rxb_rng *r);

#ifdef __cplusplus
}
#endif
#endif /* RXB_EMU_RAND_H */
