/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The generator source: an lcore that plays the wire and the physical NIC's
 * DMA for a net_ring port. Per packet it draws the next packet of the
 * pattern (emu/gen.h), computes the RSS hash the way a NIC would and picks
 * the physical queue RSS steers it to, takes a buffer from that queue's
 * "rxb_virt" pool (emulated) or the workers' mempool (native), writes the
 * packet into it and enqueues it on the queue's ring. No buffer: the packet
 * is dropped, as a NIC drops it with no posted descriptor. The hash goes
 * into the mbuf (RTE_MBUF_F_RX_RSS_HASH), as a NIC reports it.
 *
 * Each packet is drawn first (what it is: flow, size), then written once,
 * straight into the buffer of the queue its flow's hash picks: no staging
 * copy. With one physical queue the buffers are taken a burst at a time.
 *
 * With system.nics > 1 the lcore plays every NIC port in turn (struct
 * emu_wire): each port has its own generator, paced at the per-port rate,
 * offering that port's flows, and its RSS steers them to the port's own
 * block of cores, as the simulator's NICs do. Several generator lcores
 * share out the ports, or slices of each port's queues (struct
 * emu_gen_lcore): a slice draws the port's whole stream and writes only
 * its queues' packets.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_debug.h>
#include <rte_pause.h>
#include <rte_prefetch.h>

#include "emu_int.h"
#include "rng.h"

/* Where NIC port `port` steers a packet of flow f sent to L4 port dport:
 * its core, and its RSS hash in *hash. */
static uint32_t steer_flow(const struct emu *e, uint32_t port, const struct rxb_gen_flow *f,
			   uint16_t dport, uint32_t *hash)
{
	*hash = rxb_rss_ipv4_l4(&e->rss, f->src_ip, f->dst_ip, f->src_port, dport);
	return emu_core_of(e, port, *hash, dport, true);
}

/* traffic.target_core counts within a port's cores: every port's RSS
 * puts a flow on the same core of its block, so port 0's says. */
static bool is_target_flow(void *arg, uint32_t flow, const struct rxb_gen_flow *f)
{
	const struct emu *e = arg;
	uint32_t hash;

	(void)flow;
	return steer_flow(e, 0, f, f->dst_port, &hash) == e->cfg->scn.traffic.target_core;
}

/* The flows are fixed, and so is where the port steers them: computed once
 * per flow here rather than once per packet (software Toeplitz was the
 * largest part of the generator's cost per packet, and every slice steers
 * every packet of its port). KV requests pick their UDP port per request, so
 * theirs are computed per packet. Needs the RETA (emu_core_of). */
static int cache_flow_steering(struct emu *e, struct emu_wire *w, uint32_t port,
			       struct rxb_err *err)
{
	uint32_t n = rxb_gen_n_flows(w->gen[0]);

	if (e->cfg->scn.workload.nf == RXB_NF_KIND_KVS)
		return 0;
	w->flow_steer = malloc(sizeof(*w->flow_steer) * n);
	if (w->flow_steer == NULL)
		return rxb_err_fail(err, -ENOMEM, "out of memory: the steering of %u flows", n);
	for (uint32_t f = 0; f < n; f++) {
		const struct rxb_gen_flow *fl = rxb_gen_flow(w->gen[0], f);
		struct emu_flow_steer *st = &w->flow_steer[f];

		st->core = steer_flow(e, port, fl, fl->dst_port, &st->hash);
	}
	return 0;
}

static double wire_pps(double gbps, double frame_with_fcs)
{
	return gbps * 1e9 / (8.0 * (frame_with_fcs + 20.0));
}

/* What every port's generator draws (port 0's here), and the packets per
 * second one port offers. */
static double gen_cfg(struct emu *e, struct rxb_gen_cfg *gc)
{
	const struct rxb_emu_cfg *c = e->cfg;
	struct rxb_gen_cfg g;
	double share = c->scn.traffic.target_share, pps, avg;
	uint32_t tpb = c->scn.traffic.target_packet_bytes ? c->scn.traffic.target_packet_bytes
							  : c->scn.traffic.packet_bytes;

	rxb_gen_cfg_defaults(&g);
	g.seed = c->scn.run.seed;
	g.n_flows = c->scn.traffic.flows;
	g.flow_dist = c->scn.traffic.key_dist == RXB_KEY_DIST_ZIPF ? RXB_GEN_ZIPF : RXB_GEN_UNIFORM;
	g.flow_zipf_s = c->scn.traffic.zipf_s;
	if (rxb_scn_generator_ranges(&c->scn)) {
		g.gen_src = c->scn.traffic.gen_src_addrs;
		g.gen_dst = c->scn.traffic.gen_dst_addrs;
	}
	g.frame_size = (uint16_t)(c->scn.traffic.packet_bytes - 4);
	if (c->scn.traffic.target_rate_gbps > 0) {
		double tp = wire_pps(c->scn.traffic.target_rate_gbps, tpb);
		double op = wire_pps(c->scn.traffic.rate_gbps - c->scn.traffic.target_rate_gbps,
				     c->scn.traffic.packet_bytes);

		share = tp / (tp + op);
	}
	if (share > 0) {
		g.target_share = share;
		g.is_target = is_target_flow;
		g.is_target_arg = e;
		if (c->scn.traffic.target_packet_bytes != 0)
			g.target_frame_size = (uint16_t)(c->scn.traffic.target_packet_bytes - 4);
	}
	avg = share * (tpb + 20.0) + (1 - share) * (c->scn.traffic.packet_bytes + 20.0) - 20.0;
	if (c->scn.workload.nf == RXB_NF_KIND_KVS) {
		double put = c->scn.workload.kvs_put_share;

		g.kv.enabled = true;
		g.kv.get_ratio = 1.0 - put;
		g.kv.n_keys = c->scn.workload.kvs_keys;
		g.kv.dist = c->scn.traffic.key_dist == RXB_KEY_DIST_ZIPF ? RXB_GEN_ZIPF
									 : RXB_GEN_UNIFORM;
		g.kv.zipf_s = c->scn.traffic.zipf_s;
		g.kv.n_partitions = e->cpn; /* a port's cores */
		g.kv.val_len = (uint16_t)c->scn.workload.kvs_value_bytes;
		avg = 14 + 20 + 8 + 4 + put * RXB_KV_MSG_LEN(c->scn.workload.kvs_value_bytes) +
		      (1 - put) * RXB_KV_MSG_LEN(0);
	}
	pps = wire_pps(c->scn.traffic.rate_gbps, avg);
	switch (c->scn.traffic.pattern) {
	case RXB_PATTERN_POISSON:
		g.pps = 0; /* paced here, exponential gaps */
		break;
	case RXB_PATTERN_ONOFF: {
		double on_pps = pps / c->scn.traffic.burst_duty;
		double on_s = c->scn.traffic.burst_packets / on_pps;

		g.pps = on_pps;
		g.burst_pkts = c->scn.traffic.burst_packets;
		g.burst_gap_ns = (uint64_t)(on_s * (1 - c->scn.traffic.burst_duty) /
					    c->scn.traffic.burst_duty * 1e9);
		break;
	}
	default:
		g.pps = pps;
		break;
	}
	*gc = g;
	return pps;
}

/* Port `port`'s wire: g's pattern over the port's own flows, one
 * generator per slice. */
static int wire_create(struct emu *e, struct rxb_gen_cfg g, uint32_t port, double pps,
		       uint32_t slices, struct rxb_err *err)
{
	struct emu_wire *w = &e->wire[port];

	g.port = port;
	w->pps = pps;
	w->gen = calloc(slices, sizeof(*w->gen));
	if (w->gen == NULL)
		return rxb_err_fail(err, -ENOMEM, "out of memory: port %u's generators", port);
	for (uint32_t k = 0; k < slices; k++)
		if (rxb_gen_create(&g, &w->gen[k], err) != 0)
			return -EINVAL;
	if (rxb_gen_max_frame(w->gen[0]) > e->cfg->scn.arch.buffer_bytes) {
		rxb_err_set(err,
			    "arch.buffer_bytes = %u: the generator's largest frame is %u bytes",
			    e->cfg->scn.arch.buffer_bytes, rxb_gen_max_frame(w->gen[0]));
		return -EINVAL;
	}
	return cache_flow_steering(e, w, port, err);
}

/* The generator lcore of each physical queue: its port's, port p on lcore
 * p % G; with S slices per port the port's queues, in the order of the
 * cores they serve, dealt in S contiguous blocks, block k to lcore
 * k * nics + p. rank[q]: q's place among its port's queues. */
static void deal_port_queues(struct emu *e, uint32_t p, uint32_t slices, uint32_t *rank)
{
	uint32_t n = 0;

	for (uint32_t c = p * e->cpn; c < (p + 1) * e->cpn; c++) {
		uint32_t q = emu_pq_of_core(e, c, 0);

		if (rank[q] == UINT32_MAX)
			rank[q] = n++;
	}
	for (uint32_t c = p * e->cpn; c < (p + 1) * e->cpn; c++) {
		uint32_t q = emu_pq_of_core(e, c, 0);

		e->pq_gen[q] = slices > 1 ? rank[q] * slices / n * e->n_wire + p : p % e->n_gen;
	}
}

static int map_gen_queues(struct emu *e, struct rxb_err *err)
{
	uint32_t slices = rxb_emu_gen_slices(e->cfg), *rank;

	e->pq_gen = calloc(e->n_pq, sizeof(*e->pq_gen));
	rank = malloc(sizeof(*rank) * e->n_pq);
	if (e->pq_gen == NULL || rank == NULL) {
		free(rank);
		return rxb_err_fail(err, -ENOMEM, "out of memory: %u queues' generators", e->n_pq);
	}
	/* one lcore feeds every queue, spool's (whose destinations are
	 * ports, not cores) included */
	for (uint32_t p = 0; e->n_gen > 1 && p < e->n_wire; p++) {
		for (uint32_t q = 0; q < e->n_pq; q++)
			rank[q] = UINT32_MAX;
		deal_port_queues(e, p, slices, rank);
	}
	free(rank);
	return 0;
}

int emu_gen_setup(struct emu *e, struct rxb_err *err)
{
	uint32_t n = e->cfg->scn.system.nics;
	struct rxb_gen_cfg g;
	double pps = gen_cfg(e, &g);
	uint32_t slices = rxb_emu_gen_slices(e->cfg);
	int rc = 0;

	e->wire = calloc(n, sizeof(*e->wire));
	if (e->wire == NULL)
		return rxb_err_fail(err, -ENOMEM, "out of memory: %u NIC ports' generators", n);
	e->n_wire = n;
	e->n_gen = e->cfg->scn.emu.gen_lcores;
	for (uint32_t p = 0; rc == 0 && p < n; p++)
		rc = wire_create(e, g, p, pps, slices, err);
	if (rc == 0)
		rc = map_gen_queues(e, err);
	if (rc != 0)
		return rc;
	e->gen = rte_zmalloc("rxb_gen_lcores", sizeof(*e->gen) * e->n_gen, RTE_CACHE_LINE_SIZE);
	if (e->gen == NULL)
		return rxb_err_fail(err, -ENOMEM, "out of memory: %u generator lcores", e->n_gen);
	for (uint32_t k = 0; k < e->n_gen; k++)
		e->gen[k] = (struct emu_gen_lcore){ .e = e, .id = k, .slice = k / n % slices };
	/* relaxed: before the launch, which publishes it */
	atomic_store_explicit(&e->gen_running, e->n_gen, memory_order_relaxed);
	return 0;
}

void emu_gen_destroy(struct emu *e)
{
	uint32_t slices = rxb_emu_gen_slices(e->cfg);

	for (uint32_t p = 0; e->wire != NULL && p < e->n_wire; p++) {
		for (uint32_t k = 0; e->wire[p].gen != NULL && k < slices; k++)
			rxb_gen_destroy(e->wire[p].gen[k]);
		free(e->wire[p].gen);
		free(e->wire[p].flow_steer);
	}
	free(e->wire);
	e->wire = NULL;
	e->n_wire = 0;
	free(e->pq_gen);
	e->pq_gen = NULL;
	rte_free(e->gen);
	e->gen = NULL;
	e->n_gen = 0;
}

/* Poisson arrivals: exponential gaps around the mean period. */
struct pois {
	double period; /* TSC cycles */
	double next;
	struct sim_rng rng;
	bool started;
};

static unsigned pois_due(struct pois *p, uint64_t now, unsigned max, rxb_counter_t *late)
{
	unsigned n = 0;

	if (!p->started) {
		p->next = (double)now;
		p->started = true;
	}
	if ((double)now - p->next > 64 * p->period) {
		/* Fell behind by more than 64 packets: drop the backlog, as the
		 * generator's own pacer does. */
		rxb_counter_add(late, (uint64_t)(((double)now - p->next) / p->period));
		p->next = (double)now;
	}
	while (n < max && p->next <= (double)now) {
		double u = sim_rng_uniform(&p->rng);

		p->next += -log(1.0 - u) * p->period;
		n++;
	}
	return n;
}

/* A NIC lcore's loop counter as this generator lcore last saw it move, and
 * when (count_drop). */
struct beat {
	uint64_t loops, at;
};

/* A generator lcore's scratch, private to it. */
struct gen_ctx {
	struct rxb_gen_pkt_info info[EMU_BURST];
	uint32_t hash[EMU_BURST], core[EMU_BURST], q[EMU_BURST]; /* per packet */
	struct rte_mbuf **out; /* [n_pq][EMU_BURST]: the burst's buffers of each queue */
	unsigned *n_out;       /* per queue: buffers of out written so far */
	unsigned *want, *got;  /* per queue: packets steered there, buffers taken */
	struct pois *pois;     /* per port: Poisson arrivals */
	struct beat *beat;     /* per NIC lcore */
	struct emu_gen_lcore *g;
	bool direct; /* one emulated queue: burst_direct() */
};

/* This lcore's generator of port `port` (its slice's). */
static struct rxb_gen *port_gen(const struct emu *e, const struct gen_ctx *x, uint32_t port)
{
	return e->wire[port].gen[x->g->slice];
}

static uint32_t flow_core(struct emu *e, const struct gen_ctx *x, uint32_t port,
			  const struct rxb_gen_pkt_info *pi, uint32_t *hash)
{
	const struct emu_wire *w = &e->wire[port];
	const struct rxb_gen_flow *f;
	uint16_t dport;

	if (w->flow_steer != NULL) {
		*hash = w->flow_steer[pi->flow].hash;
		return w->flow_steer[pi->flow].core;
	}
	f = rxb_gen_flow(port_gen(e, x, port), pi->flow);
	dport = pi->kv_op != 0 ? (uint16_t)(RXB_KV_UDP_PORT + pi->kv_partition) : f->dst_port;
	return steer_flow(e, port, f, dport, hash);
}

/* Why a packet found no buffer in physical queue pq: the design's cause
 * (its rings had no buffer for the queue), or RXB_DROP_PIPELINE when the
 * NIC lcore serving the queue was not running at all (its loop counter has
 * not moved for 50 µs: it was preempted, which happens when lcores share
 * CPUs). An
 * emulator that runs but cannot keep up shows as an idle share near 0 and a
 * standing backlog on the physical side (emulator.backlog_max), with drops
 * of the design's cause: no instantaneous test tells "an infinitely fast
 * emulator would have had a buffer" apart from "the worker is slow". */
static void count_drop(struct emu *e, struct gen_ctx *x, const struct emu_pq *pq, uint32_t core,
		       uint64_t now)
{
	enum rxb_drop_cause cause = emu_nodesc_cause(e);

	if (e->cfg->scn.arch.emulated) {
		struct beat *b = &x->beat[pq->nic];
		uint64_t loops = rxb_counter_read(&e->nic[pq->nic].ns.loops);

		if (loops != b->loops) {
			b->loops = loops;
			b->at = now;
		} else if (now - b->at > e->hz / 20000) {
			cause = RXB_DROP_PIPELINE;
			rxb_counter_add(&x->g->pipeline, 1);
		}
	}
	rxb_counter_add(&e->d[core].drops[cause], 1);
}

/* A packet left the wire for core's queue (delivered or dropped after). */
static void count_offered(struct emu *e, uint32_t core, uint32_t bytes)
{
	rxb_counter_add(&e->d[core].offered, 1);
	rxb_counter_add(&e->d[core].bytes, bytes);
}

/* The hash as a NIC reports it, and the port the packet arrived on. */
static void mark(struct rte_mbuf *m, uint32_t port, uint32_t hash)
{
	m->hash.rss = hash;
	m->ol_flags |= RTE_MBUF_F_RX_RSS_HASH;
	m->port = (uint16_t)port;
}

/* The lines the generator touches in each of n buffers it took: the mbuf's
 * first (rxb_gen_write reads its room and data pointer, then resets it)
 * and the frame's first (the headers, after the headroom the reset gives).
 * The worker that freed a buffer holds them last. Without this, each
 * packet's first load of its mbuf waits for that transfer in turn, before
 * anything of the next packet starts: on a 16-core server a third of a
 * generator lcore's time went there. Here a burst's transfers overlap. */
static void prefetch_taken(struct rte_mbuf *const *m, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		rte_prefetch0(m[i]);
	for (unsigned i = 0; i < n; i++)
		rte_prefetch0((char *)m[i]->buf_addr + RTE_PKTMBUF_HEADROOM);
}

/* One queue, emulated: generate port's packets into the queue's own
 * buffers. Returns the packets offered (all n). */
static unsigned burst_direct(struct emu *e, struct gen_ctx *x, uint32_t port, unsigned n,
			     uint64_t now)
{
	struct rxb_gen *gen = port_gen(e, x, port);
	struct emu_pq *pq = &e->pq[0];
	struct rte_mbuf *bufs[EMU_BURST];
	unsigned k = RTE_MIN(n, emu_pq_avail(pq)), filled = 0;
	uint64_t written = 0;

	if (k != 0 && emu_pq_take(pq, bufs, k) == 0) {
		prefetch_taken(bufs, k);
		filled = rxb_gen_fill(gen, bufs, k, now, x->info);
	} else
		k = 0;
	if (filled < k) /* cannot happen: frames were checked to fit */
		rte_mempool_put_bulk(pq->vpool, (void **)(bufs + filled), k - filled);
	for (unsigned i = 0; i < filled; i++) {
		uint32_t hash, core = flow_core(e, x, port, &x->info[i], &hash);

		mark(bufs[i], port, hash);
		count_offered(e, core, bufs[i]->pkt_len);
		written += bufs[i]->pkt_len;
	}
	rxb_counter_add(&x->g->dma_bytes, written);
	if (filled != 0)
		rte_ring_sp_enqueue_bulk(pq->wire, (void **)bufs, filled, NULL);
	/* What found no buffer still left the wire: draw it to know where
	 * RSS would have sent it. */
	if (n > filled) {
		rxb_gen_draw(gen, x->info, n - filled);
		for (unsigned i = 0; i < n - filled; i++) {
			uint32_t hash, core = flow_core(e, x, port, &x->info[i], &hash);

			count_offered(e, core, x->info[i].len);
			count_drop(e, x, pq, core, now);
		}
	}
	return n;
}

/* Take up to x->want[q] buffers of queue q into its row of x->out, in one
 * go: the ones the NIC posted there (emulated), or fresh mbufs while the
 * queue's ring has room (native). A NIC fetches descriptors in bursts too,
 * and one ring operation per queue and burst, not per packet, is what
 * keeps the generator's cost per packet near that of writing the packet. */
static void take_buffers(struct emu *e, struct gen_ctx *x, uint32_t q)
{
	struct rte_mbuf **row = x->out + q * EMU_BURST;
	unsigned k;

	if (e->cfg->scn.arch.emulated) {
		k = RTE_MIN(x->want[q], emu_pq_avail(&e->pq[q]));
		x->got[q] = k != 0 && emu_pq_take(&e->pq[q], row, k) == 0 ? k : 0;
	} else {
		/* this lcore alone enqueues there: the room read now stays */
		k = RTE_MIN(x->want[q], rte_ring_free_count(e->pq[q].wire));
		x->got[q] = k != 0 && rte_pktmbuf_alloc_bulk(e->wpool, row, k) == 0 ? k : 0;
	}
	prefetch_taken(row, x->got[q]);
}

/* Draw port's burst and steer each packet: its hash, core and queue. The
 * packets bound for queues another lcore feeds (slices) are left out:
 * returns how many are this lcore's, first in x, in the order drawn. */
static unsigned steer_burst(struct emu *e, struct gen_ctx *x, uint32_t port, unsigned n,
			    uint32_t mode)
{
	unsigned mine = 0;

	rxb_gen_draw(port_gen(e, x, port), x->info, n);
	for (unsigned i = 0; i < n; i++) {
		uint32_t hash, core = flow_core(e, x, port, &x->info[i], &hash);
		uint32_t q = emu_pq_of_core(e, core, mode);

		if (e->pq_gen[q] != x->g->id)
			continue;
		x->info[mine] = x->info[i];
		x->hash[mine] = hash;
		x->core[mine] = core;
		x->q[mine++] = q;
		x->want[q]++;
	}
	return mine;
}

/* Several queues (or native): draw the packets, take each queue's buffers
 * for them, then write each packet into the next buffer of its queue, in
 * the order drawn; a packet its queue had no buffer for is dropped.
 * Returns the packets this lcore offered (its slice's of the n drawn). */
static unsigned burst_steered(struct emu *e, struct gen_ctx *x, uint32_t port, unsigned n,
			      uint64_t now, uint32_t mode)
{
	uint64_t written = 0;

	n = steer_burst(e, x, port, n, mode);
	for (unsigned i = 0; i < n; i++)
		if (x->want[x->q[i]] != 0) {
			take_buffers(e, x, x->q[i]);
			x->want[x->q[i]] = 0;
		}
	for (unsigned i = 0; i < n; i++) {
		uint32_t q = x->q[i], core = x->core[i];
		struct rte_mbuf *m;

		count_offered(e, core, x->info[i].len);
		if (x->n_out[q] == x->got[q]) {
			count_drop(e, x, &e->pq[q], core, now);
			continue;
		}
		m = x->out[q * EMU_BURST + x->n_out[q]++];
		/* the frames were checked to fit the buffers at set-up */
		RTE_VERIFY(rxb_gen_write(port_gen(e, x, port), m, now, &x->info[i]));
		mark(m, port, x->hash[i]);
		written += x->info[i].len;
	}
	rxb_counter_add(&x->g->dma_bytes, written);
	for (unsigned i = 0; i < n; i++) {
		uint32_t q = x->q[i];

		if (x->got[q] == 0)
			continue;
		rte_ring_sp_enqueue_bulk(e->pq[q].wire, (void **)(x->out + q * EMU_BURST),
					 x->got[q], NULL);
		x->got[q] = 0;
		x->n_out[q] = 0;
	}
	return n;
}

static void ctx_free(struct gen_ctx *x)
{
	rte_free(x->out);
	rte_free(x->n_out);
	rte_free(x->want);
	rte_free(x->got);
	rte_free(x->pois);
	rte_free(x->beat);
}

/* The lcore's scratch for every queue and port; -ENOMEM (what was
 * allocated is left for ctx_free()). */
static int ctx_alloc(struct emu_gen_lcore *g, struct gen_ctx *x)
{
	struct emu *e = g->e;

	memset(x, 0, sizeof(*x));
	x->g = g;
	x->out = rte_zmalloc("rxb_gen_out", sizeof(*x->out) * EMU_BURST * e->n_pq, 0);
	x->n_out = rte_zmalloc("rxb_gen_nout", sizeof(*x->n_out) * e->n_pq, 0);
	x->want = rte_zmalloc("rxb_gen_want", sizeof(*x->want) * e->n_pq, 0);
	x->got = rte_zmalloc("rxb_gen_got", sizeof(*x->got) * e->n_pq, 0);
	x->pois = rte_zmalloc("rxb_gen_pois", sizeof(*x->pois) * e->n_wire, 0);
	x->beat = rte_zmalloc("rxb_gen_beat", sizeof(*x->beat) * RTE_MAX(e->n_nic, 1u), 0);
	if (x->out == NULL || x->n_out == NULL || x->want == NULL || x->got == NULL ||
	    x->pois == NULL || x->beat == NULL)
		return -ENOMEM;
	x->direct = e->cfg->scn.arch.emulated && e->n_pq == 1;
	for (uint32_t p = 0; p < e->n_wire; p++) {
		x->pois[p].period = (double)e->hz / e->wire[p].pps;
		sim_rng_seed(&x->pois[p].rng, e->cfg->scn.run.seed ^ 0x9e3779b97f4a7c15ull, p);
	}
	return 0;
}

/* Dynamic shRing: the ring set the controller asks for, passed on to E. */
static uint32_t follow_mode(struct emu *e, uint32_t mode)
{
	/* acquire: pairs with the release in dyn_sample() (emu_run.c); the
	 * switch the controller requested in the library is visible, and
	 * passed on with gen_mode. */
	uint32_t cm = atomic_load_explicit(&e->ctl_mode, memory_order_acquire);

	if (cm != mode)
		/* release: pairs with the acquire in emu_nic_main(); every
		 * packet steered to the old set is enqueued before the emulator
		 * sees the switch. */
		atomic_store_explicit(&e->gen_mode, cm, memory_order_release);
	return cm;
}

/* One turn over this lcore's ports: each port's packets due now (at most
 * `left` in all) drawn, and its own onto its queues. Returns the packets
 * drawn: a slice draws its port's whole stream, so emu.packets stops every
 * slice at the same packet. */
static uint64_t serve_ports(struct emu *e, struct gen_ctx *x, uint64_t left, uint32_t mode)
{
	uint64_t now = rte_rdtsc(), sent = 0;

	for (uint32_t p = x->g->id % e->n_wire; p < e->n_wire && sent < left; p += e->n_gen) {
		unsigned n = e->cfg->scn.traffic.pattern == RXB_PATTERN_POISSON
				     ? pois_due(&x->pois[p], now, EMU_BURST, &x->g->late)
				     : rxb_gen_due(port_gen(e, x, p), now, EMU_BURST);

		n = (unsigned)RTE_MIN((uint64_t)n, left - sent);
		if (n == 0)
			continue;
		rxb_counter_add(&x->g->offered, x->direct ? burst_direct(e, x, p, n, now)
							  : burst_steered(e, x, p, n, now, mode));
		sent += n;
	}
	return sent;
}

void emu_gen_offered_range(const struct emu *e, uint64_t *min, uint64_t *max)
{
	*min = e->n_gen != 0 ? UINT64_MAX : 0;
	*max = 0;
	for (uint32_t k = 0; k < e->n_gen; k++) {
		uint64_t n = rxb_counter_read(&e->gen[k].offered);

		*min = RTE_MIN(*min, n);
		*max = RTE_MAX(*max, n);
	}
}

/* emu.packets shared out between the ports, and so between the lcores:
 * lcore g's ports' shares. */
static uint64_t lcore_cap(const struct emu *e, const struct emu_gen_lcore *g)
{
	uint64_t all = e->cfg->scn.emu.packets, cap = 0;

	for (uint32_t p = g->id % e->n_wire; p < e->n_wire; p += e->n_gen)
		cap += all / e->n_wire + (p < all % e->n_wire);
	return cap;
}

int emu_gen_main(void *arg)
{
	struct emu_gen_lcore *g = arg;
	struct emu *e = g->e;
	const bool limited = e->cfg->scn.emu.packets != 0;
	const uint64_t cap = lcore_cap(e, g);
	struct gen_ctx x;
	uint64_t drawn = 0;
	uint32_t mode = RXB_DYN_PRIVATE;

	if (ctx_alloc(g, &x) != 0)
		emu_abort(e, -ENOMEM, "out of memory: generator lcore %u's scratch for %u queues",
			  g->id, e->n_pq);
	while (!atomic_load_explicit(&e->gen_stop, memory_order_relaxed) &&
	       !atomic_load_explicit(&e->quit, memory_order_relaxed)) {
		uint64_t n;

		if (limited && drawn >= cap)
			break;
		if (e->cfg->scn.arch.name == RXB_ARCH_DYN_SHRING) /* one lcore (emu_cfg.c) */
			mode = follow_mode(e, mode);
		n = serve_ports(e, &x, limited ? cap - drawn : UINT64_MAX, mode);
		if (n == 0)
			rte_pause();
		drawn += n;
	}
	for (uint32_t p = g->id % e->n_wire; p < e->n_wire; p += e->n_gen)
		rxb_counter_add(&g->late,
				rxb_counter_read(&rxb_gen_stats(port_gen(e, &x, p))->late));
	ctx_free(&x);
	/* acq_rel: each lcore's release pairs with the acquire of the last one
	 * out, whose release of src_done then pairs with the acquires in
	 * rxb_emu_run()'s drain and in drained() (emu_worker.c): every lcore's
	 * packets enqueued and counted. */
	if (atomic_fetch_sub_explicit(&e->gen_running, 1, memory_order_acq_rel) == 1)
		atomic_store_explicit(&e->src_done, 1, memory_order_release);
	return 0;
}
