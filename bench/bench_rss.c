/* SPDX-License-Identifier: BSD-3-Clause
 *
 * bench_rss — nanoseconds per Toeplitz hash of each implementation of
 * rxb_rss_hash() this CPU runs (include/rxb/rss.h: the per-byte table and
 * GFNI), on the inputs NICs hash: IPv4 addresses (8 bytes), IPv4 with
 * ports (12), IPv6 with ports (36). Each run hashes a ring of 4096 random
 * inputs over and over (independent hashes, as a NIC lcore's burst is) for
 * --ms milliseconds per implementation and length, the implementations
 * interleaved; the figure is the median over --reps runs, with the GFNI /
 * table ratio from the same runs. The checksum of the hashes is compared
 * between implementations, so a wrong fast path cannot report a speed.
 *
 * Usage: bench_rss [--reps N] [--ms T] [--json PATH]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rxb/rss.h"

enum { INPUTS = 4096, N_LEN = 3, N_IMPL = 2, MAX_REPS = 101 };

static const size_t lens[N_LEN] = { 8, 12, 36 };
static const char *const len_names[N_LEN] = { "ipv4", "ipv4_l4", "ipv6_l4" };

static uint8_t inputs[INPUTS][RXB_RSS_MAX_INPUT];

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ns per hash over about ms milliseconds; *sum gets one pass's checksum. */
static double time_hashes(const struct rxb_rss *rss, size_t len, double ms, uint32_t *sum)
{
	double t0 = now_ns(), t;
	unsigned long passes = 0;
	uint32_t acc = 0;

	do {
		for (unsigned i = 0; i < INPUTS; i++)
			acc += rxb_rss_hash(rss, inputs[i], len);
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
	for (int i = 1; i < argc; i++) {
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
		i++;
	}
	if (o->reps == 0 || o->reps > MAX_REPS || !(o->ms > 0)) {
		fprintf(stderr, "bench_rss: --reps must be in 1..%d and --ms above 0\n", MAX_REPS);
		return -1;
	}
	return 0;
}

/* ns[impl][len][rep]; NAN-free: an implementation this CPU lacks is skipped. */
static double ns[N_IMPL][N_LEN][MAX_REPS];

static int measure(struct rxb_rss *rss, const struct opts *o, const bool *have)
{
	for (unsigned r = 0; r < o->reps; r++) {
		for (int l = 0; l < N_LEN; l++) {
			uint32_t sums[N_IMPL] = { 0 };

			for (int k = 0; k < N_IMPL; k++) {
				if (!have[k])
					continue;
				rxb_rss_select(rss, (enum rxb_rss_impl)k, NULL);
				ns[k][l][r] = time_hashes(rss, lens[l], o->ms, &sums[k]);
			}
			if (have[RXB_RSS_GFNI] && sums[RXB_RSS_GFNI] != sums[RXB_RSS_TABLE]) {
				fprintf(stderr, "bench_rss: %s: gfni and table hashes differ\n",
					len_names[l]);
				return -1;
			}
		}
	}
	return 0;
}

static void report(const struct opts *o, const bool *have, FILE *json)
{
	printf("%-8s %10s %10s %12s\n", "input", "table ns", "gfni ns", "gfni/table");
	if (json)
		fprintf(json, "{\n  \"reps\": %u, \"ms\": %g,\n  \"ns_per_hash\": {", o->reps,
			o->ms);
	for (int l = 0; l < N_LEN; l++) {
		double med[N_IMPL] = { 0 }, ratio[MAX_REPS];

		for (int k = 0; k < N_IMPL; k++)
			if (have[k])
				med[k] = median(ns[k][l], o->reps);
		for (unsigned r = 0; have[RXB_RSS_GFNI] && r < o->reps; r++)
			ratio[r] = ns[RXB_RSS_GFNI][l][r] / ns[RXB_RSS_TABLE][l][r];
		printf("%-8s %10.2f ", len_names[l], med[RXB_RSS_TABLE]);
		if (have[RXB_RSS_GFNI])
			printf("%10.2f %12.3f\n", med[RXB_RSS_GFNI], median(ratio, o->reps));
		else
			printf("%10s %12s\n", "-", "-");
		if (!json)
			continue;
		fprintf(json, "%s\n    \"%s\": {\"bytes\": %zu, \"table\": %.3f", l ? "," : "",
			len_names[l], lens[l], med[RXB_RSS_TABLE]);
		if (have[RXB_RSS_GFNI])
			fprintf(json, ", \"gfni\": %.3f, \"gfni_over_table\": %.4f",
				med[RXB_RSS_GFNI], median(ratio, o->reps));
		fprintf(json, "}");
	}
	if (json)
		fprintf(json, "\n  },\n  \"gfni_available\": %s\n}\n",
			have[RXB_RSS_GFNI] ? "true" : "false");
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
	for (unsigned i = 0; i < INPUTS; i++)
		for (unsigned j = 0; j < RXB_RSS_MAX_INPUT; j++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			inputs[i][j] = (uint8_t)x;
		}
	for (int k = 0; k < N_IMPL; k++)
		have[k] = rxb_rss_impl_available((enum rxb_rss_impl)k);
	if (!have[RXB_RSS_GFNI])
		printf("bench_rss: this CPU has no GFNI with AVX-512 F/BW/VBMI: table only\n");
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
