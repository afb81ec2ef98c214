/* SPDX-License-Identifier: BSD-3-Clause
 *
 * rxb-tracegen --out FILE.pcap [options] — write a synthetic trace with the
 * simulator's heavy-tailed generator (sim/models/tracegen.h), the engine behind
 * `rxb trace gen` (docs/trace-tools.md). Prints one JSON line
 * {"packets": N, "flows": M, "duration_ms": D} on success.
 *
 * Every option maps onto one field of struct sim_tracegen_cfg; its default
 * is sim_tracegen_cfg_default()'s. Exit status as the engines': 0, 2 for a
 * rejected option ("error: --flag VALUE: why; allowed: what"), 3 out of
 * memory, 1 anything else (e.g. an unwritable file).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"
#include "pcap.h"
#include "tracegen.h"

enum opt_kind { OPT_U64, OPT_F64, OPT_U32 };

/* One numeric option: where it goes, its unit factor, its inclusive range. */
struct opt {
	const char *name;
	enum opt_kind kind;
	size_t off;   /* into struct sim_tracegen_cfg */
	double scale; /* value given × scale = field value */
	double lo, hi;
	const char *help;
};

#define F(field) offsetof(struct sim_tracegen_cfg, field)
static const struct opt OPTS[] = {
	{ "seed", OPT_U64, F(seed), 1, 0, 9007199254740992.0, "PRNG seed (exact up to 2^53)" },
	{ "duration-ms", OPT_U64, F(duration_ps), 1e9, 1e-6, 3.6e6, "trace length, ms" },
	{ "rate-gbps", OPT_F64, F(rate_bps), 1e9, 1e-6, 1e5, "mean offered load, Gbps (wire)" },
	{ "line-gbps", OPT_U64, F(line_bps), 1e9, 0, 1e5,
	  "serialise frames at this line rate, Gbps (0: do not)" },
	{ "alpha", OPT_F64, F(flow_alpha), 1, 1e-3, 10,
	  "Pareto shape of flow sizes (skew: lower = heavier tail)" },
	{ "min-pkts", OPT_F64, F(flow_min_pkts), 1, 1, 1e9,
	  "Pareto scale: smallest flow, packets" },
	{ "max-pkts", OPT_U32, F(flow_max_pkts), 1, 1, 4294967295.0, "largest flow, packets" },
	{ "pps-median", OPT_F64, F(flow_pps_median), 1, 1e-3, 1e9,
	  "median per-flow rate, packets/s" },
	{ "pps-sigma", OPT_F64, F(flow_pps_sigma), 1, 0, 10, "lognormal sigma of per-flow rates" },
	{ "tcp-share", OPT_F64, F(tcp_share), 1, 0, 1, "fraction of flows that are TCP" },
};
#undef F
enum { NOPTS = sizeof(OPTS) / sizeof(OPTS[0]), OPT_OUT = NOPTS, OPT_SIZES, OPT_SNAPLEN, OPT_HELP };

static int reject(const char *flag, const char *value, const char *why, const char *allowed)
{
	fprintf(stderr, "error: --%s %s: %s; allowed: %s\n", flag, value, why, allowed);
	return RXB_EXIT_REJECTED;
}

static int set_numeric(struct sim_tracegen_cfg *cfg, const struct opt *o, const char *text)
{
	char *end, allowed[96];
	double v = strtod(text, &end);

	snprintf(allowed, sizeof(allowed), "%g to %g", o->lo, o->hi);
	if (end == text || *end != '\0' || !isfinite(v))
		return reject(o->name, text, "not a number", allowed);
	if (v < o->lo || v > o->hi)
		return reject(o->name, text, "out of range", allowed);
	v *= o->scale;
	switch (o->kind) {
	case OPT_U64:
		*(uint64_t *)((char *)cfg + o->off) = (uint64_t)llround(v);
		break;
	case OPT_U32:
		*(uint32_t *)((char *)cfg + o->off) = (uint32_t)llround(v);
		break;
	default:
		*(double *)((char *)cfg + o->off) = v;
	}
	return 0;
}

/* --sizes LEN:WEIGHT,LEN:WEIGHT,... (frame bytes incl. FCS; one per flow) */
static int set_sizes(struct sim_size_dist *d, const char *text)
{
	char allowed[128];
	const char *p = text;

	snprintf(allowed, sizeof(allowed), "up to %u LEN:WEIGHT pairs, LEN %u to %u, WEIGHT >= 0",
		 SIM_SIZE_MAX, SIM_ETH_MIN_FRAME, SIM_ETH_MAX_FRAME);
	d->n = 0;
	while (*p) {
		char *end;
		unsigned long len = strtoul(p, &end, 10);
		double w;

		if (end == p || *end != ':' || d->n == SIM_SIZE_MAX)
			return reject("sizes", text, "not a list of LEN:WEIGHT", allowed);
		w = strtod(end + 1, &end);
		if ((*end != ',' && *end != '\0') || len < SIM_ETH_MIN_FRAME ||
		    len > SIM_ETH_MAX_FRAME || !(w >= 0) || !isfinite(w))
			return reject("sizes", text, "a length or weight is out of range", allowed);
		d->len[d->n] = (uint32_t)len;
		d->weight[d->n++] = w;
		p = *end ? end + 1 : end;
	}
	if (d->n == 0)
		return reject("sizes", text, "empty", allowed);
	return 0;
}

static void help(void)
{
	printf("usage: rxb-tracegen --out FILE.pcap [options]\n"
	       "Writes a synthetic heavy-tailed trace (sim/models/tracegen.h) and prints "
	       "{\"packets\", \"flows\", \"duration_ms\"}.\n");
	for (int i = 0; i < NOPTS; i++)
		printf("  --%-12s %s (%g to %g)\n", OPTS[i].name, OPTS[i].help, OPTS[i].lo,
		       OPTS[i].hi);
	printf("  --%-12s %s\n  --%-12s %s\n", "sizes",
	       "frame size mix LEN:WEIGHT,... (one per flow)", "snaplen",
	       "bytes captured per packet (default 128)");
}

int main(int argc, char **argv)
{
	struct option lopts[NOPTS + 5];
	struct sim_tracegen_cfg cfg;
	struct rxb_err err = { 0 };
	const char *out = NULL;
	unsigned long snaplen = 128;
	uint64_t npkts = 0, nflows = 0;
	int c, rc;

	sim_tracegen_cfg_default(&cfg);
	for (int i = 0; i < NOPTS; i++)
		lopts[i] = (struct option){ OPTS[i].name, required_argument, NULL, i };
	lopts[OPT_OUT] = (struct option){ "out", required_argument, NULL, OPT_OUT };
	lopts[OPT_SIZES] = (struct option){ "sizes", required_argument, NULL, OPT_SIZES };
	lopts[OPT_SNAPLEN] = (struct option){ "snaplen", required_argument, NULL, OPT_SNAPLEN };
	lopts[OPT_HELP] = (struct option){ "help", no_argument, NULL, OPT_HELP };
	lopts[OPT_HELP + 1] = (struct option){ 0 };
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		if (c == OPT_HELP) {
			help();
			return 0;
		}
		if (c == '?') {
			fprintf(stderr, "error: %s: unknown option or missing value (see --help)\n",
				argv[optind - 1]);
			return RXB_EXIT_REJECTED;
		}
		if (c == OPT_OUT)
			out = optarg;
		else if (c == OPT_SIZES)
			rc = set_sizes(&cfg.size, optarg);
		else if (c == OPT_SNAPLEN) {
			char *end;

			snaplen = strtoul(optarg, &end, 10);
			if (end == optarg || *end || snaplen < 64 || snaplen > SIM_PCAP_MAX_CAPLEN)
				return reject("snaplen", optarg, "not a byte count in range",
					      "64 to 262144");
		} else
			rc = set_numeric(&cfg, &OPTS[c], optarg);
		if (c != OPT_OUT && c != OPT_SNAPLEN && rc)
			return rc;
	}
	if (!out || optind != argc) {
		fprintf(stderr, "error: %s (see --help)\n",
			out ? "unexpected arguments" : "--out FILE.pcap is required");
		return RXB_EXIT_REJECTED;
	}
	if (cfg.line_bps && cfg.rate_bps > (double)cfg.line_bps) {
		char rate[32];

		snprintf(rate, sizeof(rate), "%g", cfg.rate_bps / 1e9);
		return reject("rate-gbps", rate, "above --line-gbps", "at most the line rate");
	}
	rc = sim_tracegen_write_pcap(&cfg, out, SIM_PCAP_NSEC, (uint32_t)snaplen, &npkts, &nflows,
				     &err);
	if (rc) {
		fprintf(stderr, "error: %s\n", err.msg[0] ? err.msg : strerror(-rc));
		return rxb_engine_exit_code(rc);
	}
	printf("{\"packets\": %llu, \"flows\": %llu, \"duration_ms\": %.6f}\n",
	       (unsigned long long)npkts, (unsigned long long)nflows,
	       (double)cfg.duration_ps / 1e9);
	return 0;
}
