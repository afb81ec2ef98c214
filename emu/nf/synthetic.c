/* SPDX-License-Identifier: BSD-3-Clause
 * Synthetic NF (the "work package"): per packet, R random 8-byte reads in a
 * buffer of S bytes, a route lookup (next-hop MACs, out port), and
 * optionally a read or an overwrite of the whole payload.
 *
 * Reads are one per 64-byte line, so R reads touch R lines. Independent
 * reads draw their line from a per-instance PRNG: nothing orders them, so
 * the core overlaps their misses (memory-level parallelism), also across
 * packets. Dependent reads follow a chain: every line holds the index of the
 * next, laid out as one random cycle through all lines (Sattolo's
 * algorithm), so each read's address comes from the previous read's value
 * and the misses are served one at a time — the cursor carries over from
 * packet to packet. Either way the values are summed into a sink the
 * compiler cannot drop.
 */
#include <errno.h>

#include <rte_malloc.h>

#include "nf_impl.h"
#include "rng.h"

#define LINE           64u
#define WORDS_PER_LINE (LINE / sizeof(uint64_t))

struct synth {
	struct rxb_nf base;
	struct rxb_nf_router router;
	uint64_t *buf;
	uint64_t n_lines;
	uint32_t reads;
	bool dependent;
	enum rxb_nf_payload payload;
	uint64_t cursor; /* dependent chain position (line index) */
	struct sim_rng rng;
	uint64_t sink; /* sum of everything read; exported for tests */
};

static inline uint64_t synth_reads(struct synth *s)
{
	uint64_t sum = 0;

	if (s->dependent) {
		uint64_t c = s->cursor;

		for (uint32_t r = 0; r < s->reads; r++)
			c = s->buf[c * WORDS_PER_LINE];
		s->cursor = c;
		return c;
	}
	for (uint32_t r = 0; r < s->reads; r++)
		sum += s->buf[sim_rng_below(&s->rng, s->n_lines) * WORDS_PER_LINE];
	return sum;
}

static inline uint64_t payload_read(const struct rxb_pkt_view *v)
{
	uint64_t sum = 0, w;
	unsigned i = 0;

	for (; i + 8 <= v->payload_len; i += 8) {
		memcpy(&w, v->payload + i, 8);
		sum += w;
	}
	for (; i < v->payload_len; i++)
		sum += v->payload[i];
	return sum;
}

/* Overwrite everything after the stamp (keeping latency measurable), then
 * the L4 checksum in full: the whole segment was just written anyway. */
static inline void payload_write(const struct rxb_pkt_view *v, uint64_t val)
{
	unsigned off = RXB_STAMP_OFF + RXB_STAMP_LEN;

	if (v->payload_len > off)
		memset(v->payload + off, (int)(val & 0xff), v->payload_len - off);
	rxb_pkt_l4_csum_full(v, false);
}

static void synth_chunk(struct rxb_nf *nf, struct rte_mbuf **pkts, unsigned n, uint8_t *verdict,
			struct rxb_nf_tally *t)
{
	struct synth *s = (struct synth *)nf;
	struct rxb_pkt_view v[RXB_NF_CHUNK];
	uint32_t hop[RXB_NF_CHUNK];
	uint8_t idx[RXB_NF_CHUNK];
	uint64_t sink = 0;
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++) {
		verdict[i] = rxb_nf_parse(nf, pkts[i], &v[i], false);
		if (verdict[i] != RXB_NF_KEEP)
			continue;
		sink += synth_reads(s);
		idx[k++] = (uint8_t)i;
	}
	rxb_nf_route_bulk(&s->router, v, idx, k, hop, verdict, t);
	for (unsigned j = 0; j < k; j++) {
		unsigned i = idx[j];

		if (hop[j] == RXB_NONE)
			continue;
		rxb_nf_router_apply(&s->router, hop[j], pkts[i], &v[i]);
		if (v[i].l4 == NULL)
			continue;
		if (s->payload == RXB_NF_PAYLOAD_READ)
			sink += payload_read(&v[i]);
		else if (s->payload == RXB_NF_PAYLOAD_WRITE)
			payload_write(&v[i], sink + j);
	}
	s->sink += sink;
}

static uint16_t synth_process(struct rxb_nf *nf, struct rte_mbuf **pkts, uint16_t n)
{
	return rxb_nf_run(nf, pkts, n, synth_chunk);
}

static void synth_destroy(struct rxb_nf *nf)
{
	struct synth *s = (struct synth *)nf;

	rxb_nf_router_fini(&s->router);
	rte_free(s->buf);
	rte_free(s);
}

/* One random cycle through all lines (Sattolo): a chase from any line
 * visits every line before it repeats, so no short loop stays in cache. */
static void build_chain(struct synth *s)
{
	uint64_t n = s->n_lines;

	for (uint64_t i = 0; i < n; i++)
		s->buf[i * WORDS_PER_LINE] = i;
	for (uint64_t i = n - 1; i > 0; i--) {
		uint64_t j = sim_rng_below(&s->rng, i); /* j < i: Sattolo, not Fisher-Yates */
		uint64_t tmp = s->buf[i * WORDS_PER_LINE];

		s->buf[i * WORDS_PER_LINE] = s->buf[j * WORDS_PER_LINE];
		s->buf[j * WORDS_PER_LINE] = tmp;
	}
}

static int synth_init(const struct rxb_nf_cfg *cfg, int socket, struct rxb_nf **out,
		      struct rxb_err *err)
{
	struct synth *s;
	int rc;

	if (cfg->synth.buf_bytes < LINE) {
		rxb_err_set(err, "synth.buf_bytes = %llu: must be at least %u (one cache line)",
			    (unsigned long long)cfg->synth.buf_bytes, LINE);
		return -EINVAL;
	}
	if (cfg->synth.payload > RXB_NF_PAYLOAD_WRITE) {
		rxb_err_set(err, "synth.payload = %d: must be none (0), read (1) or write (2)",
			    (int)cfg->synth.payload);
		return -EINVAL;
	}
	s = rxb_nf_alloc(&rxb_nf_synthetic_ops, sizeof(*s), cfg, socket);
	if (s == NULL) {
		rxb_err_set(err, "synthetic: out of DPDK memory for the instance");
		return -ENOMEM;
	}
	s->n_lines = cfg->synth.buf_bytes / LINE;
	s->reads = cfg->synth.reads;
	s->dependent = cfg->synth.dependent;
	s->payload = cfg->synth.payload;
	sim_rng_seed(&s->rng, cfg->seed ^ ((uint64_t)cfg->instance << 32), 0);
	/* DPDK memory, so the buffer sits on the core's socket and, with
	 * hugepages, costs the TLB what a real NF's tables would. */
	s->buf = rte_malloc_socket("rxb_synth_buf", s->n_lines * LINE, LINE, socket);
	if (s->buf == NULL) {
		rxb_err_set(err,
			    "synth.buf_bytes = %llu: rte_malloc failed (is the EAL's -m "
			    "large enough?)",
			    (unsigned long long)cfg->synth.buf_bytes);
		rte_free(s);
		return -ENOMEM;
	}
	build_chain(s);
	rc = rxb_nf_router_init(&s->router, cfg, socket, err);
	if (rc < 0) {
		rte_free(s->buf);
		rte_free(s);
		return rc;
	}
	*out = &s->base;
	return 0;
}

uint64_t rxb_nf_synthetic_sink(const struct rxb_nf *nf)
{
	return ((const struct synth *)nf)->sink;
}

const struct rxb_nf_ops rxb_nf_synthetic_ops = {
	.name = "synthetic",
	.summary = "R random reads (dependent or not) in S bytes, route lookup, payload op",
	.init = synth_init,
	.process = synth_process,
	.destroy = synth_destroy,
};
