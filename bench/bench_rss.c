/* SPDX-License-Identifier: BSD-3-Clause
 *
 * bench_rss — nanoseconds per Toeplitz hash of each implementation of
 * rxb_rss_hash() this CPU runs (include/rxb/rss.h: the per-byte table,
 * GFNI and CLMUL), on the inputs NICs hash: IPv4 addresses (8 bytes), IPv4 with
 * ports (12), IPv6 with ports (36) as bytes in memory; IPv4 with ports
 * from values (rxb_rss_ipv4_l4, what code that builds the tuple calls); a
 * whole IPv4/UDP frame (rxb_rss_frame: parsing, then the hash in place).
 * Each run hashes a ring of 4096 random inputs over and over (independent
 * hashes, as a NIC lcore's burst is) for --ms milliseconds per
 * implementation and case, the implementations interleaved; the figure is
 * the median over --reps runs, with each vector implementation / table ratio from the same
 * runs. The checksum of the hashes is compared between implementations,
 * so a wrong fast path cannot report a speed.
 *
 * Usage: bench_rss [--reps N] [--ms T] [--json PATH]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rxb/rss.h"

enum { INPUTS = 4096, N_CASE = 5, N_IMPL = 3, MAX_REPS = 101, FRAME = 64 };

/* By enum rxb_rss_impl. */
static const char *const impl_name[N_IMPL] = { "table", "gfni", "clmul" };

static uint8_t inputs[INPUTS][RXB_RSS_MAX_INPUT];
static uint8_t frames[INPUTS][FRAME]; /* Ethernet + IPv4 + UDP, inputs' tuples */

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t raw8(const struct rxb_rss *rss, unsigned i)
{
	return rxb_rss_hash(rss, inputs[i], 8);
}

static uint32_t raw12(const struct rxb_rss *rss, unsigned i)
{
	return rxb_rss_hash(rss, inputs[i], 12);
}

static uint32_t raw36(const struct rxb_rss *rss, unsigned i)
{
	return rxb_rss_hash(rss, inputs[i], 36);
}

static uint32_t values_l4(const struct rxb_rss *rss, unsigned i)
{
	const uint8_t *in = inputs[i];

	return rxb_rss_ipv4_l4(rss, be32(in), be32(in + 4), be16(in + 8), be16(in + 10));
}

static uint32_t frame_l4(const struct rxb_rss *rss, unsigned i)
{
	uint16_t dport;

	return rxb_rss_frame(rss, frames[i], FRAME, &dport);
}

static const struct {
	const char *name;
	size_t bytes; /* hash input */
	uint32_t (*hash)(const struct rxb_rss *rss, unsigned i);
} cases[N_CASE] = {
	{ "ipv4", 8, raw8 },
	{ "ipv4_l4", 12, raw12 },
	{ "ipv6_l4", 36, raw36 },
	{ "ipv4_l4_values", 12, values_l4 },
	{ "frame_ipv4_udp", 12, frame_l4 },
};

/* An IPv4/UDP frame whose addresses and ports are input i's 12 bytes. */
static void make_frame(uint8_t *f, const uint8_t *in)
{
	memset(f, 0, FRAME);
	f[12] = 0x08; /* IPv4 */
	f[14] = 0x45;
	f[14 + 9] = 17; /* UDP */
	memcpy(f + 14 + 12, in, 12);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ns per hash of case c over about ms milliseconds; *sum gets one pass's
 * checksum. */
static double time_hashes(const struct rxb_rss *rss, int c, double ms, uint32_t *sum)
{
	double t0 = now_ns(), t;
	unsigned long passes = 0;
	uint32_t acc = 0;

	do {
		for (unsigned i = 0; i < INPUTS; i++)
			acc += cases[c].hash(rss, i);
		if (passes++ == 0)
			*sum = acc;
		t = now_ns();
	} while (t - t0 < ms * 1e6);
	/* Keeps the loop from being optimised away. */
	__asm__ volatile("" : : "r"(acc));
	return (t - t0) / ((double)passes * INPUTS);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct opts {
	unsigned reps;
	double ms;
	const char *json;
};

static int parse(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){ .reps = 5, .ms = 100 };
	for (int i = 1; i < argc; i += 2) { /* each option takes a value */
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(argv[i], "--reps") == 0 && v != NULL)
			o->reps = (unsigned)strtoul(v, NULL, 10);
		else if (strcmp(argv[i], "--ms") == 0 && v != NULL)
			o->ms = strtod(v, NULL);
		else if (strcmp(argv[i], "--json") == 0 && v != NULL)
			o->json = v;
		else {
			fprintf(stderr,
				"usage: bench_rss [--reps N (1..%d)] [--ms T (> 0)] "
				"[--json PATH]\n",
				MAX_REPS);
			return -1;
		}
	}
	if (o->reps == 0 || o->reps > MAX_REPS || !(o->ms > 0)) {
		fprintf(stderr, "bench_rss: --reps must be in 1..%d and --ms above 0\n", MAX_REPS);
		return -1;
	}
	return 0;
}

/* ns[impl][case][rep]; an implementation this CPU lacks is skipped. */
static double ns[N_IMPL][N_CASE][MAX_REPS];

static int measure(struct rxb_rss *rss, const struct opts *o, const bool *have)
{
	for (unsigned r = 0; r < o->reps; r++) {
		for (int l = 0; l < N_CASE; l++) {
			uint32_t sums[N_IMPL] = { 0 };

			for (int k = 0; k < N_IMPL; k++) {
				if (!have[k])
					continue;
				rxb_rss_select(rss, (enum rxb_rss_impl)k, NULL);
				ns[k][l][r] = time_hashes(rss, l, o->ms, &sums[k]);
			}
			for (int k = 1; k < N_IMPL; k++) {
				if (have[k] && sums[k] != sums[RXB_RSS_TABLE]) {
					fprintf(stderr,
						"bench_rss: %s: %s and table hashes differ\n",
						cases[l].name, impl_name[k]);
					return -1;
				}
			}
		}
	}
	return 0;
}

/* Median over the runs of impl k's time over the table's in the same run. */
static double median_ratio(const struct opts *o, int k, int l)
{
	double ratio[MAX_REPS];

	for (unsigned r = 0; r < o->reps; r++)
		ratio[r] = ns[k][l][r] / ns[RXB_RSS_TABLE][l][r];
	return median(ratio, o->reps);
}

static void report(const struct opts *o, const bool *have, FILE *json)
{
	printf("%-16s %10s", "input", "table ns");
	for (int k = 1; k < N_IMPL; k++)
		printf(" %8s ns %8s/table", impl_name[k], impl_name[k]);
	printf("\n");
	if (json)
		fprintf(json, "{\n  \"reps\": %u, \"ms\": %g,\n  \"ns_per_hash\": {", o->reps,
			o->ms);
	for (int l = 0; l < N_CASE; l++) {
		printf("%-16s %10.2f", cases[l].name, median(ns[RXB_RSS_TABLE][l], o->reps));
		if (json)
			fprintf(json, "%s\n    \"%s\": {\"bytes\": %zu, \"table\": %.3f",
				l ? "," : "", cases[l].name, cases[l].bytes,
				median(ns[RXB_RSS_TABLE][l], o->reps));
		for (int k = 1; k < N_IMPL; k++) {
			if (!have[k]) {
				printf(" %11s %14s", "-", "-");
				continue;
			}
			printf(" %11.2f %14.3f", median(ns[k][l], o->reps), median_ratio(o, k, l));
			if (json)
				fprintf(json, ", \"%s\": %.3f, \"%s_over_table\": %.4f",
					impl_name[k], median(ns[k][l], o->reps), impl_name[k],
					median_ratio(o, k, l));
		}
		printf("\n");
		if (json)
			fprintf(json, "}");
	}
	if (!json)
		return;
	fprintf(json, "\n  }");
	for (int k = 1; k < N_IMPL; k++)
		fprintf(json, ",\n  \"%s_available\": %s", impl_name[k],
			have[k] ? "true" : "false");
	fprintf(json, "\n}\n");
}

int main(int argc, char **argv)
{
	struct opts o;
	struct rxb_rss rss;
	struct rxb_err err;
	bool have[N_IMPL];
	FILE *json = NULL;
	uint64_t x = 0x9e3779b97f4a7c15ull;

	if (parse(argc, argv, &o) < 0)
		return 2;
	if (rxb_rss_init(&rss, rxb_rss_default_key, RXB_RSS_KEY_LEN, &err) < 0) {
		fprintf(stderr, "bench_rss: %s\n", err.msg);
		return 1;
	}
	for (unsigned i = 0; i < INPUTS; i++) {
		for (unsigned j = 0; j < RXB_RSS_MAX_INPUT; j++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			inputs[i][j] = (uint8_t)x;
		}
		make_frame(frames[i], inputs[i]);
	}
	for (int k = 0; k < N_IMPL; k++)
		have[k] = rxb_rss_impl_available((enum rxb_rss_impl)k);
	if (!have[RXB_RSS_GFNI])
		printf("bench_rss: this CPU has no GFNI with AVX-512 F/BW/VBMI\n");
	if (!have[RXB_RSS_CLMUL])
		printf("bench_rss: this CPU has no PCLMULQDQ\n");
	if (measure(&rss, &o, have) < 0)
		return 1;
	if (o.json && (json = fopen(o.json, "w")) == NULL) {
		perror(o.json);
		return 1;
	}
	report(&o, have, json);
	if (json)
		fclose(json);
	return 0;
}
