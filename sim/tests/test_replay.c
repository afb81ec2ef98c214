/* SPDX-License-Identifier: BSD-3-Clause
 * Trace replay (replay.h): the capture's own timing, a speed factor, scaling
 * to a mean rate, looping across the seam, and the errors of a capture too
 * short to scale or loop. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "replay.h"

enum { N = 100, LEN = 1518 };
static const uint64_t GAP_PS = 1000000; /* 1 µs between captured packets */
static char path[64];

/* N frames of LEN bytes, GAP_PS apart, starting at 5 s. */
static void write_trace(int n)
{
	struct sim_pcap_writer *w;
	struct rxb_err err;
	struct sim_pkt p;

	memset(&p, 0, sizeof(p));
	CHECK_EQ(sim_pcap_create(&w, path, SIM_PCAP_NSEC, 65535, 0, &err), 0);
	for (int i = 0; i < n; i++) {
		p.t_ps = 5 * SIM_PS_PER_S + (uint64_t)i * GAP_PS;
		p.len = LEN;
		p.l3 = 4;
		p.proto = 17;
		p.sip = 0x0a000001u + (uint32_t)i;
		p.dip = 0x0a000002u;
		CHECK_EQ(sim_pcap_write(w, &p, &err), 0);
	}
	CHECK_EQ(sim_pcap_finish(w, &err), 0);
}

static void test_own_timing_and_speedup(void)
{
	struct sim_replay_cfg cfg = { .path = path, .speedup = 4.0 };
	struct sim_replay rp;
	struct rxb_err err;
	struct sim_pkt p;
	int n = 0;

	write_trace(N);
	CHECK_EQ(sim_replay_open(&rp, &cfg, &err), 0);
	while (sim_replay_next(&rp, &p, &err) == 1) {
		CHECK_EQ(p.t_ps, (uint64_t)n * GAP_PS / 4);
		n++;
	}
	CHECK_EQ(n, N); /* no loop: the end of the file ends the replay */
	sim_replay_close(&rp);
}

/* Scaled to a rate and looped: pass m's packet k comes at
 * (k × gap + m × period) / scale, so the mean rate over whole passes is the
 * rate asked for, the seam included. */
static void test_rate_and_loop(void)
{
	const double rate = 100e9;
	struct sim_replay_cfg cfg = { .path = path, .speedup = 1.0, .rate_bps = rate, .loop = true };
	uint64_t prev = 0, bits = 0, t_end;
	struct sim_replay rp;
	struct rxb_err err;
	struct sim_pkt p;

	write_trace(N);
	CHECK_EQ(sim_replay_open(&rp, &cfg, &err), 0);
	CHECK_EQ(rp.pkts, N);
	CHECK_EQ(rp.span_ps, (N - 1) * GAP_PS);
	for (int i = 0; i < 3 * N; i++) {
		CHECK_EQ(sim_replay_next(&rp, &p, &err), 1);
		CHECK(i == 0 || p.t_ps > prev); /* the seam keeps a full gap */
		prev = p.t_ps;
		bits += 8 * sim_wire_bytes(p.len);
	}
	CHECK_EQ(rp.pass, 2);
	/* three passes end where a fourth would start */
	t_end = 3 * rp.period_ps;
	CHECK(fabs((double)bits * 1e12 / (double)t_end - rate) < rate * 1e-6);
	/* one 1538 B wire frame per µs captured is 12.3 Gbps: 8.13x faster */
	CHECK(fabs(rp.scale - rate / (8.0 * 1538 * 1e6)) < 1e-9);
	sim_replay_close(&rp);
}

static void test_too_short(void)
{
	struct sim_replay_cfg loop = { .path = path, .speedup = 1.0, .loop = true };
	struct sim_replay_cfg rate = { .path = path, .speedup = 1.0, .rate_bps = 1e9 };
	struct sim_replay rp;
	struct rxb_err err;

	write_trace(1);
	CHECK_EQ(sim_replay_open(&rp, &loop, &err), -EINVAL);
	CHECK(strstr(err.msg, "looping it needs at least two packets") != NULL);
	CHECK_EQ(sim_replay_open(&rp, &rate, &err), -EINVAL);
	CHECK(strstr(err.msg, "scaling it to a rate") != NULL);
	printf("  %s\n", err.msg);
	unlink(path);
	CHECK(sim_replay_open(&rp, &loop, &err) < 0); /* missing file: the reader's error */
	CHECK(strstr(err.msg, path) != NULL);
}

int main(void)
{
	snprintf(path, sizeof(path), "/tmp/rxbsim-replay-%d.pcap", (int)getpid());
	RUN(test_own_timing_and_speedup);
	RUN(test_rate_and_loop);
	RUN(test_too_short);
	unlink(path);
	return check_summary();
}
