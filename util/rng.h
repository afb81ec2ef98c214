/* SPDX-License-Identifier: BSD-3-Clause
 *
 * util/rng.h — deterministic random numbers for the simulator and the
 * emulator (its traffic generator and network functions).
 *
 * Every random choice of a simulation comes from a `struct sim_rng` seeded
 * from the run's seed and a stream number, so a run is reproducible bit for
 * bit and components do not perturb each other's streams: adding a random
 * draw to the traffic model does not change what the cache model draws.
 *
 * Generator: xoshiro256** (Blackman & Vigna, "Scrambled linear pseudorandom
 * number generators", ACM TOMS 2021): 256 bits of state, period 2^256 − 1,
 * about 1 ns a draw, passes BigCrush. State is filled by splitmix64 as its
 * authors recommend, so any 64-bit seed (even 0) gives a good state.
 */
#ifndef SIM_RNG_H
#define SIM_RNG_H

#include <math.h>
#include <stdint.h>

#include "rxb/common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sim_rng {
	uint64_t s[4];
};

/* splitmix64 step: advances *x and returns a well-mixed value. */
static inline uint64_t sim_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Stateless 64-bit mixer (the splitmix64 finaliser): a bijection, used to
 * derive flow tuples from flow ids and cache sets from addresses. */
static inline uint64_t sim_mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Seed stream `stream` of run `seed`. Different streams of one seed are
 * statistically independent (their splitmix64 start points differ by a
 * mixed value, not by a small offset). */
static inline void sim_rng_seed(struct sim_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ sim_mix64(stream + 0x6a09e667f3bcc909ull);

	for (int i = 0; i < 4; i++)
		r->s[i] = sim_splitmix64(&x);
}

static inline uint64_t sim_rotl64(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoshiro256**: the next 64 random bits. */
static inline uint64_t sim_rng_next(struct sim_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = sim_rotl64(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = sim_rotl64(s[3], 45);
	return result;
}

/* Uniform double in [0, 1) with 53 random bits. */
static inline double sim_rng_uniform(struct sim_rng *r)
{
	return (double)(sim_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform integer in [0, n) without modulo bias (Lemire, "Fast random
 * integer generation in an interval", ACM TOMACS 2019): one multiply in the
 * common case, a division only when a rejection zone may be hit. n = 0
 * returns 0. */
static inline uint64_t sim_rng_below(struct sim_rng *r, uint64_t n)
{
	unsigned __int128 m = (unsigned __int128)sim_rng_next(r) * n;
	uint64_t lo = (uint64_t)m;

	if (lo < n) {
		uint64_t thresh = -n % n;

		while (lo < thresh) {
			m = (unsigned __int128)sim_rng_next(r) * n;
			lo = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

/* Exponential with the given mean (inversion; log1p(-u) with u < 1 is
 * finite, so the result is finite and >= 0). */
static inline double sim_rng_exp(struct sim_rng *r, double mean)
{
	return -mean * log1p(-sim_rng_uniform(r));
}

/* Standard normal (Marsaglia polar method; the second value is dropped to
 * keep the state a plain PRNG — normals are not on any hot path). */
static inline double sim_rng_normal(struct sim_rng *r)
{
	double u, v, q;

	do {
		u = 2.0 * sim_rng_uniform(r) - 1.0;
		v = 2.0 * sim_rng_uniform(r) - 1.0;
		q = u * u + v * v;
	} while (q >= 1.0 || q == 0.0);
	return u * sqrt(-2.0 * log(q) / q);
}

/* Pareto(shape alpha, scale xm): P(X > x) = (xm / x)^alpha for x >= xm. */
static inline double sim_rng_pareto(struct sim_rng *r, double alpha, double xm)
{
	/* 1 − u is in (0, 1], so pow() never sees 0. */
	return xm / pow(1.0 - sim_rng_uniform(r), 1.0 / alpha);
}

/* Lognormal: exp(mu + sigma · N(0,1)); the median is exp(mu). */
static inline double sim_rng_lognormal(struct sim_rng *r, double mu, double sigma)
{
	return exp(mu + sigma * sim_rng_normal(r));
}

/* Zipf(s) over ranks 1..n, P(k) ∝ k^−s, by rejection-inversion (Hörmann &
 * Derflinger, "Rejection-inversion to generate variates from monotone
 * discrete distributions", ACM TOMACS 1996). O(1) memory and time whatever
 * n — a table of 10 M keys' CDF would be 80 MB and a cache-missing binary
 * search per draw. Expected draws per sample < 1.1 for s ≤ 2. s = 0 is
 * uniform. */
struct sim_zipf {
	uint64_t n;
	double s;
	double h_x1;   /* H(1.5) − 1 */
	double h_n;    /* H(n + 0.5) */
	double accept; /* squeeze: 2 − H⁻¹(H(2.5) − h(2)) */
};

/* The largest exponent sim_zipf_init takes (traffic.zipf_s's upper bound;
 * at 10 rank 1 already takes 99.9 % of draws). */
#define SIM_ZIPF_S_MAX 10.0
int sim_zipf_init(struct sim_zipf *z, uint64_t n, double s, struct rxb_err *err);

/* A rank in [1, n]; rank 1 is the most popular. */
uint64_t sim_zipf_draw(const struct sim_zipf *z, struct sim_rng *r);

/* P(rank = k) computed exactly (by summing the harmonic number; O(n), for
 * tests and reports, not the hot path). */
double sim_zipf_pmf(const struct sim_zipf *z, uint64_t k);

#ifdef __cplusplus
}
#endif
#endif /* SIM_RNG_H */
