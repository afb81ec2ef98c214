/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The NIC side of the simulator core (docs/simulator.md §2.1, §2.3): a
 * packet's arrival (generated or replayed), RSS steering, the on-NIC
 * buffer, the PCIe link NIC -> host, the DMA writes through the LLC and
 * DRAM, the completion's visibility, and waking the core that polls it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core.h"
#include "dma.h"
#include "emu_model.h"
#include "engine_int.h"
#include "nf.h"
#include "nic.h"
#include "replay.h"
#include "rxb/privring.h"
#include "rxb/shring.h"
#include "stats.h"
#include "traffic.h"

static inline uint32_t pkt_hash(const struct sim *s, const struct sim_pkt *p)
{
	if (s->trace)
		return p->rss; /* the reader hashed the frame as the NIC does (pcap.h) */
	if (p->l3 == 0)
		return 0; /* not IP: the NIC computes no hash (RETA entry 0) */
	if (p->proto == 6 || p->proto == 17 || p->proto == 132)
		return rxb_rss_ipv4_l4(&s->rss, p->sip, p->dip, p->sport, p->dport);
	return rxb_rss_ipv4(&s->rss, p->sip, p->dip);
}

/* Queue of a hash within a NIC: a core of the NIC, or a representor port. */
static inline uint32_t steer_local(const struct nic *n, uint32_t h)
{
	return n->spread ? rxb_hash_spread(h, n->n_dests) : rxb_reta_lookup(&n->reta, h);
}

/* The destination a packet of hash h arriving at NIC n is steered to. */
static inline uint32_t nic_dest(const struct nic *n, uint32_t h)
{
	return steer_local(n, h) + n->first_dest;
}

/* The generator's view of steering (target traffic, KV keys): the same
 * RSS + RETA as the NIC's. */
static uint32_t gen_queue_of(void *ctx, const struct sim_pkt *p)
{
	const struct nic *n = ctx;

	return steer_local(n, pkt_hash(n->s, p));
}

/* Flow identity: a hash of the 5-tuple (the NFs' table index). */
static inline uint32_t flow_id(const struct sim_pkt *p)
{
	uint64_t a = ((uint64_t)p->sip << 32) | p->dip;
	uint64_t b = ((uint64_t)p->sport << 24) | ((uint64_t)p->dport << 8) | p->proto;

	return (uint32_t)(sim_mix64(a ^ sim_mix64(b + 0x1234567ull)) >> 32);
}

/* Checksum of the offered 5-tuples (order-independent sum; the Python
 * tests recompute it): Σ mix64((sip << 32 | dip) ^ mix64(sport << 24 |
 * dport << 8 | proto)) mod 2^64. */
static inline uint64_t tuple_sum(const struct sim_pkt *p)
{
	uint64_t a = ((uint64_t)p->sip << 32) | p->dip;
	uint64_t b = ((uint64_t)p->sport << 24) | ((uint64_t)p->dport << 8) | p->proto;

	return sim_mix64(a ^ sim_mix64(b));
}

/* Descriptors fetched so far for a destination (both ring sets of a
 * dynamic shRing, so the count only grows). */
uint64_t dest_fetched(struct sim *s, uint32_t dest)
{
	if (s->arch == RXB_ARCH_DYN_SHRING)
		return rxb_counter_read(&rxb_privring_nic_stats(rxb_iface_privring(s->ifc), dest)
						 ->c[RXB_NIC_DESC_FETCHED]) +
		       rxb_counter_read(&rxb_shring_nic_stats(rxb_iface_shring(s->ifc), dest)
						 ->c[RXB_NIC_DESC_FETCHED]);
	return rxb_counter_read(&rxb_iface_nic_stats(s->ifc, dest)->c[RXB_NIC_DESC_FETCHED]);
}

/* A packet's flow's order of first arrival at its core (nf.h). Generator
 * ranges visit flow ids in order, and RSS spreads them evenly: among a
 * core's flows, flow id f arrives about f / (the NIC's cores)-th. Drawn
 * flows and a trace's arrive in no order the engine knows. */
static inline uint32_t flow_order(const struct nic *n, const struct sim_pkt *p)
{
	return n->gen_ok && n->gen.fm.gen_flows ? p->flow / n->ncores : NF_ORDER_NONE;
}

/* RSS hash and flow identity of a packet: memoized per generated flow id
 * (a trace's packets carry no id: computed every time). */
static inline void pkt_ids(struct sim *s, struct nic *n, const struct sim_pkt *p, uint32_t *h,
			   uint32_t *fid)
{
	uint32_t id = p->flow;
	struct sim_pkt full;

	if (n->memo == NULL || id >= n->nmemo) {
		if (n->gen.cfg.lazy_tuple) { /* the generator left the tuple to us */
			full = *p;
			sim_traffic_tuple(&n->gen, id, &full);
			p = &full;
		}
		*h = pkt_hash(s, p);
		*fid = flow_id(p);
		return;
	}
	if (!(n->hvalid[id >> 6] >> (id & 63) & 1)) {
		if (n->gen.cfg.lazy_tuple) {
			full = *p;
			sim_traffic_tuple(&n->gen, id, &full);
			p = &full;
		}
		n->memo[id].h = pkt_hash(s, p);
		n->memo[id].fid = flow_id(p);
		n->hvalid[id >> 6] |= 1ull << (id & 63);
	}
	*h = n->memo[id].h;
	*fid = n->memo[id].fid;
}

static inline uint64_t later(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* NIC n's fetch state of source ring src. */
static struct src_fetch *src_fetch_at(struct sim *s, const struct nic *n, uint32_t src)
{
	return &s->src_fetch[(size_t)n->id * s->nsrcs + src];
}

/* A delivery at t took the first descriptor of a new batch from source
 * ring src (the library fetched it: rxb_delivery.desc_reads). The NIC
 * fetches a ring's descriptors one batch ahead, so this batch was
 * requested when the previous one started (the ring's first before
 * traffic) and the packet waits only for that read; the NIC now requests
 * the next batch, of as many descriptors as this one held. It asks at t,
 * not once this batch is in: its read engines take requests in time order
 * (dmaeng.h). Returns when the packet's descriptor is at the NIC. */
static uint64_t next_desc_batch(struct sim *s, struct nic *n, uint32_t src, uint32_t dest,
				uint64_t t)
{
	struct src_fetch *f = src_fetch_at(s, n, src);
	uint64_t fetched = dest_fetched(s, dest), batch = fetched - s->fetched_seen[dest];
	uint64_t ready = later(f->ahead_ps, t);

	s->fetched_seen[dest] = fetched;
	f->cur_ps = f->ahead_ps;
	f->ahead_ps = nic_dma_read(s, n, t, 0, (uint32_t)(batch ? batch : 1) * s->cfg->desc_bytes,
				   false);
	return ready;
}

/* The NIC receives a packet at time t. */
void nic_packet(struct sim *s, struct nic *n, const struct sim_pkt *p, uint64_t t)
{
	const struct sim_cfg *cfg = s->cfg;
	uint32_t h, fid, dma = p->len - SIM_ETH_FCS;
	uint32_t dest, src;
	bool cohort = t >= s->warm_ps;
	struct rxb_rx_meta m = { .len = dma, .now = t };
	struct rxb_delivery d;
	uint64_t start, ready, backlog, vis;
	uint32_t rings[2];
	int rc;

	pkt_ids(s, n, p, &h, &fid);
	dest = nic_dest(n, h);
	m.hash = h;
	m.dest = dest;

	s->arrivals_total++;
	if (s->trace)
		s->trace_sum += tuple_sum(p);
	s->cur.arrivals++;
	s->dyn_rx_bits += 8ull * sim_wire_bytes(p->len); /* dynamic shRing: the load received */
	if (cohort) {
		s->offered++;
		s->offered_wire_bytes += sim_wire_bytes(p->len);
		s->dst[dest].offered++;
	}
	/* The packet waits in the on-NIC buffer for PCIe and for its
	 * descriptor: in the batch of its source ring the NIC holds, which
	 * every packet taking from that ring waits for (a shared ring's other
	 * cores too). Its source is the one the destination's last delivery
	 * took from: the design's fixed ring, rxBisect's linked Ax until it
	 * runs dry, dynamic shRing's set until it switches. A turn to another
	 * ring, or to the ring's next batch, is found by the delivery below,
	 * which waits for that batch instead, after the on-NIC buffer's check
	 * was made with the batch expected. */
	src = s->last_src[dest];
	ready = later(src_fetch_at(s, n, src)->cur_ps, t);
	start = n->up_free > ready ? n->up_free : ready;
	backlog = start > t ? (uint64_t)((double)(start - t) / s->c.pcie_ps_per_byte) : 0;
	if (backlog + dma > s->nicbuf_bytes) {
		rxb_iface_drop_pipeline(s->ifc, dest);
		count_drop(s, dest, RXB_DROP_PIPELINE, cohort);
		s->pipeline_nicbuf += cohort;
		return;
	}
	if (cfg->scn.arch.emulated) {
		emumodel_packet(s, n, p, t, h, fid, flow_order(n, p), dest, cohort);
		return;
	}
	rc = rxb_iface_deliver(s->ifc, &m, &d);
	if (rc < 0) {
		fprintf(stderr, "error: rxb_iface_deliver(dest %u) failed: %d\n", dest, rc);
		exit(1);
	}
	if (rc == 1) {
		count_drop(s, dest, (unsigned)d.drop, cohort);
		return;
	}
	rings[0] = d.ring;
	rings[1] = d.notify_ring;
	if (d.src_ring != src) { /* another ring than expected: its batch, not that one's */
		src = s->last_src[dest] = d.src_ring;
		ready = later(src_fetch_at(s, n, src)->cur_ps, t);
	}
	if (d.desc_reads)
		ready = next_desc_batch(s, n, src, dest, t);
	if (cohort) {
		s->desc_wait_ps += ready - t;
		s->desc_waited++;
	}
	if (n->up_free < ready) /* the data waits for its descriptor on the NIC */
		n->up_free = ready;
	vis = dma_complete(s, n, t, sim_frame_addr(s, d.buf), dma, rings,
			   d.notify_ring != RXB_NONE ? 2 : 1, d.cmpl_writes ? d.cmpl_writes : 1, 0,
			   NULL);
	ws_mark(s, d.buf);
	deliver_done(s, &d, vis, t, fid, flow_order(n, p), p->key, p->len, (uint8_t)n->id, p->cls,
		     dest);
}

/* A hardware generator's constant rate is trains of traffic.train_packets
 * frames back to back at line rate, then idle (it transmits DPDK bursts):
 * the on/off process with bursts at line rate and the duty cycle that
 * keeps the mean. At line rate the trains join: frames back to back. */
static void generator_trains(struct sim_traffic_cfg *tc, const struct sim_cfg *cfg)
{
	double duty = cfg->scn.traffic.rate_gbps / cfg->link_gbps;

	if (cfg->scn.traffic.train_packets < 2 || duty >= 1.0)
		return;
	tc->main.arrival = SIM_ARRIVAL_ONOFF;
	tc->main.burst_pkts = cfg->scn.traffic.train_packets;
	tc->main.duty = duty;
}

/* Flow `id` of NIC n's generator: its state's accesses through the L2 of
 * the core RSS sends it to (pkt_ids and nic_dest, as its packets), when
 * that core's quota of warm flows is not spent. Returns whether it was. */
static bool warm_flow(struct sim *s, struct nic *n, uint32_t id, uint64_t *quota)
{
	struct acc a[NF_FLOW_STATE_MAX];
	struct sim_pkt p = { 0 };
	uint32_t h, fid, core;
	unsigned k;

	sim_traffic_tuple(&n->gen, id, &p);
	pkt_ids(s, n, &p, &h, &fid);
	core = ring_core(s, nic_dest(n, h));
	if (quota[core] == 0)
		return false;
	quota[core]--;
	k = nf_flow_state(&s->nf, core, fid, flow_order(n, &p), a);
	for (unsigned j = 0; j < k; j++)
		sim_llc_core_access(&s->mem.llc, core, a[j].cls, (enum sim_llc_op)a[j].op,
				    a[j].addr);
	return true;
}

/* Warm start of the per-flow state (nf_flow_state: lb, nat). The study
 * measured for seconds with a fixed population of flows, so every flow's
 * state had long been created and was as cached as its reuse allows; a
 * cold start instead spends the first tens of ms on compulsory misses.
 * The rule (docs/simulator.md, "Flow state at the start"): a core can keep
 * cached the state of `room` / (state bytes a flow) flows, room being its
 * L2 and its share of the LLC.
 *   - Drawn flows (uniform or Zipf) recur at random: in steady state the
 *     cached flows are as good as any set of that many, so each core's
 *     quota of flows is touched once, in flow order, by the core it is
 *     steered to (all of them when they fit).
 *   - Generator ranges visit every flow once per cycle, in order: between
 *     two packets of a flow its core touches every other flow's state, so
 *     the state is cached only if all of it fits — then all is warmed —
 *     else none is: it lives in DRAM, where an empty start leaves it.
 * Then the rates drawn for unsampled sets are learned afresh from the
 * run's own accesses. A trace's flows are not known in advance: replay
 * starts cold. */
void nic_warm_flow_state(struct sim *s)
{
	struct acc a[NF_FLOW_STATE_MAX];
	unsigned lines = nf_flow_state(&s->nf, 0, 0, NF_ORDER_NONE, a); /* any flow would do */
	uint64_t room = ((uint64_t)s->cfg->l2_kib << 10) +
			(uint64_t)(s->cfg->llc_mib * (double)(1u << 20)) / s->ncores;
	uint64_t per_core = lines ? room / (lines * SIM_LLC_LINE) : 0;
	uint64_t *quota;

	if (s->trace || lines == 0)
		return;
	quota = sim_xcalloc(s->ncores, sizeof(*quota));
	for (uint32_t i = 0; i < s->cfg->scn.system.nics; i++) {
		struct nic *n = &s->nic[i];
		const struct sim_traffic *g = &n->gen;
		uint64_t flows = sim_traffic_flows(g), left = 0;

		if (!n->gen_ok || (g->fm.gen_flows && flows > per_core * n->ncores))
			continue;
		for (uint32_t c = n->first_core; c < n->first_core + n->ncores; c++)
			quota[c] = per_core, left += per_core;
		for (uint64_t j = 0; left && j < (g->pool_main ? g->npool_main : flows); j++)
			left -= warm_flow(s, n, g->pool_main ? g->pool_main[j] : (uint32_t)j,
					  quota);
		for (uint32_t j = 0; left && g->pool_tgt && j < g->npool_tgt; j++)
			left -= warm_flow(s, n, g->pool_tgt[j], quota);
	}
	free(quota);
	sim_llc_forget_class(&s->mem.llc, s->nf.cls_main);
	sim_llc_forget_class(&s->mem.llc, s->nf.cls_aux);
	sim_llc_forget_class(&s->mem.llc, s->nf.cls_key);
	sim_llc_forget_class(&s->mem.llc, s->nf.cls_pool);
}

/* A targeted core, or a load that turns pathological at change_at_ms:
 * flow pools steered to the target queue. */
static void gen_target(const struct sim_cfg *cfg, const struct nic *n, struct sim_traffic_cfg *tc)
{
	if (cfg->scn.traffic.change_at_ms > 0 && cfg->scn.traffic.change_target_share > 0) {
		/* the load turns pathological at change_at_ms (targets set below) */
		tc->change_ps = (uint64_t)llround(cfg->scn.traffic.change_at_ms * PS_PER_MS);
		tc->change_share = cfg->scn.traffic.change_target_share;
	}
	if (cfg->scn.traffic.pattern == RXB_PATTERN_TARGET || tc->change_ps) {
		tc->target_queue = (int32_t)cfg->scn.traffic.target_core;
		/* before a change, the target core gets its RSS share: the
		 * other flows avoid its queue (traffic.h) */
		tc->target_share = cfg->scn.traffic.pattern != RXB_PATTERN_TARGET ? 1.0 / n->ncores
				   : cfg->scn.traffic.target_rate_gbps > 0
					   ? 0.0
					   : cfg->scn.traffic.target_share;
		/* a fixed target rate is part of the NIC's rate: the other
		 * cores get the rest (as the emulator's generator sends it) */
		tc->target.rate_bps = (uint64_t)llround(cfg->scn.traffic.target_rate_gbps * 1e9);
		tc->main.rate_bps -= tc->target.rate_bps < tc->main.rate_bps ? tc->target.rate_bps
									     : tc->main.rate_bps;
		tc->target.arrival = SIM_ARRIVAL_CONST;
		sim_size_fixed(&tc->target.size, cfg->scn.traffic.target_packet_bytes
							 ? cfg->scn.traffic.target_packet_bytes
							 : cfg->scn.traffic.packet_bytes);
	}
}

/* The traffic NIC n's generator offers: rate, arrival process, sizes,
 * flows, steering (its RSS); a KV workload's keys. */
static void gen_config(struct sim *s, struct nic *n, struct sim_traffic_cfg *tc)
{
	const struct sim_cfg *cfg = s->cfg;
	uint32_t i = n->id;

	sim_traffic_cfg_default(tc);
	tc->seed = sim_mix64(cfg->scn.run.seed * 0x9e3779b97f4a7c15ull + 0x100 + i);
	tc->flow_seed = cfg->scn.run.seed; /* the emulator's flows for this seed */
	tc->nic = i;
	tc->line_bps = (uint64_t)llround(cfg->link_gbps * 1e9);
	tc->start_ps = 0;
	tc->stop_ps = s->end_ps;
	tc->main.rate_bps = (uint64_t)llround(cfg->scn.traffic.rate_gbps * 1e9);
	tc->main.arrival = cfg->scn.traffic.pattern == RXB_PATTERN_POISSON ? SIM_ARRIVAL_POISSON
			   : cfg->scn.traffic.pattern == RXB_PATTERN_ONOFF ? SIM_ARRIVAL_ONOFF
									   : SIM_ARRIVAL_CONST;
	tc->main.burst_pkts = cfg->scn.traffic.burst_packets;
	tc->main.duty = cfg->scn.traffic.pattern == RXB_PATTERN_ONOFF ? cfg->scn.traffic.burst_duty
								      : 1.0;
	if (tc->main.arrival == SIM_ARRIVAL_CONST)
		generator_trains(tc, cfg);
	sim_size_fixed(&tc->main.size, cfg->scn.traffic.packet_bytes);
	tc->main.flows = cfg->scn.traffic.flows;
	tc->main.flow_pop = cfg->scn.traffic.key_dist == RXB_KEY_DIST_ZIPF &&
					    cfg->scn.workload.nf != RXB_NF_KIND_KVS
				    ? SIM_POP_ZIPF
				    : SIM_POP_UNIFORM;
	tc->main.flow_zipf_s = cfg->scn.traffic.zipf_s;
	tc->nqueues = n->n_dests;
	tc->queue_of = gen_queue_of;
	tc->queue_ctx = n;
	if (cfg->scn.workload.nf == RXB_NF_KIND_KVS) {
		tc->keys = cfg->scn.workload.kvs_keys;
		tc->key_pop = cfg->scn.traffic.key_dist == RXB_KEY_DIST_ZIPF ? SIM_POP_ZIPF
									     : SIM_POP_UNIFORM;
		tc->key_zipf_s = cfg->scn.traffic.zipf_s;
		tc->key_steer = 1;
	}
	gen_target(cfg, n, tc);
	if (rxb_scn_generator_ranges(&cfg->scn)) {
		tc->gen_src = cfg->scn.traffic.gen_src_addrs;
		tc->gen_dst = cfg->scn.traffic.gen_dst_addrs;
	}
}

/* The per-flow memo of RSS hashes and flow ids (pkt_ids). */
static void memo_setup(struct nic *n)
{
	uint32_t flows;

	/* Flow ids stay below a few times the flows (steering pools).
	 * Millions of flows get no memo: more flows must not cost the
	 * engine memory per flow (their hashes are computed again). */
	flows = sim_traffic_flows(&n->gen);
	n->nmemo = flows < (1u << 22) ? 4 * flows + 64 : 0;
	/* With the per-flow memo, the 5-tuple is only needed the first
	 * time a flow is seen: the generator leaves it to pkt_ids (read
	 * at each packet, so set once the flows are known). */
	n->gen.cfg.lazy_tuple = n->nmemo > 0;
	if (n->nmemo) {
		n->memo = sim_xcalloc(n->nmemo, sizeof(*n->memo));
		n->hvalid = sim_xcalloc((n->nmemo + 63) / 64, sizeof(*n->hvalid));
	}
}

/* NIC n's replay of traffic.pcap: every NIC reads the whole capture, at one
 * timing, and takes the packets an upstream switch's ECMP sends it
 * (trace_next). */
static int replay_setup(struct sim *s, struct nic *n, struct rxb_err *err)
{
	const struct sim_cfg *cfg = s->cfg;
	const struct rxb_scn_traffic *t = &cfg->scn.traffic;
	struct sim_replay_cfg rc_cfg = {
		.path = t->pcap,
		.speedup = t->pcap_speedup,
		/* the rate is per NIC, like traffic.rate_gbps */
		.rate_bps = t->pcap_rate_gbps * 1e9 * cfg->scn.system.nics,
		.loop = t->pcap_loop,
		.rss = &s->rss,
	};

	return sim_replay_open(&n->replay, &rc_cfg, err);
}

/* Each NIC's RETA and traffic generator (or the replay of a trace). */
int nic_setup(struct sim *s, struct rxb_err *err)
{
	const struct sim_cfg *cfg = s->cfg;
	bool trace = cfg->scn.traffic.pattern == RXB_PATTERN_TRACE;
	uint32_t first = 0;
	int rc;

	for (uint32_t i = 0; i < cfg->scn.system.nics; i++) {
		struct nic *n = &s->nic[i];
		struct sim_traffic_cfg tc;

		n->s = s;
		n->id = i;
		n->first_core = first;
		n->ncores = cfg->scn.system.cores_per_nic.v[i];
		first += n->ncores;
		n->spread = s->arch == RXB_ARCH_SPOOL;
		n->first_dest = n->spread ? 0 : n->first_core;
		n->n_dests = n->spread ? cfg->scn.arch.spool_ports : n->ncores;
		rc = rxb_reta_init(&n->reta, cfg->reta_size, n->ncores, err);
		if (rc == 0)
			rc = sim_dmaeng_init(&n->rd, cfg->dma_read_slots, s->c.pcie_ps_per_byte,
					     err);
		if (rc)
			return rc;
		if (trace) {
			rc = replay_setup(s, n, err);
			if (rc)
				return rc;
			continue;
		}
		gen_config(s, n, &tc);
		rc = sim_traffic_init(&n->gen, &tc, err);
		if (rc)
			return rc;
		n->gen_ok = true;
		memo_setup(n);
	}
	s->trace = trace;
	return 0;
}

/* A replayed frame longer than a buffer holds (the rule "frames fit
 * buffers" bounds the generated sizes before a run; a trace's are known as
 * it is read): the NIC would write it over the next buffers. */
static int frame_too_big(const struct sim *s, const struct sim_pkt *p, struct rxb_err *err)
{
	const struct rxb_scn_arch *a = &s->cfg->scn.arch;

	rxb_err_set(err,
		    "traffic.pcap = '%s': a %u-byte frame (FCS included) does not fit a buffer "
		    "of arch.buffer_bytes = %u minus arch.headroom_bytes = %u; allowed: frames up "
		    "to %u bytes, or an arch.buffer_bytes of at least %u",
		    s->cfg->scn.traffic.pcap, p->len, a->buffer_bytes, a->headroom_bytes,
		    a->buffer_bytes - a->headroom_bytes, p->len + a->headroom_bytes);
	return -EINVAL;
}

int trace_next(struct sim *s, struct nic *n, struct rxb_err *err)
{
	struct sim_pkt p;
	uint64_t t, wire;
	int rc;

	do { /* the next packet the upstream switch's ECMP sends this NIC, up
	      * to the run's end: a looped capture none of whose flows go to
	      * this NIC would otherwise be read for ever */
		rc = sim_replay_next(&n->replay, &p, err);
		if (rc <= 0)
			return rc;
		if (p.t_ps >= s->end_ps)
			return 0;
	} while (rxb_ecmp_port(p.rss, s->cfg->scn.system.nics) != n->id);
	if (p.len > s->cfg->scn.arch.buffer_bytes - s->cfg->scn.arch.headroom_bytes)
		return frame_too_big(s, &p, err);
	t = p.t_ps; /* replay time: scaled and looped (replay.h) */
	/* a capture time is a last bit's arrival, as a generated packet's; the
	 * link serialises frames: one cannot end before the previous one's
	 * end plus its own time on the wire */
	wire = (uint64_t)llround(8.0 * sim_wire_bytes(p.len) * 1000.0 / s->cfg->link_gbps);
	if (t < n->link_free + wire)
		t = n->link_free + wire;
	n->link_free = t;
	p.t_ps = t;
	p.nic = (uint8_t)n->id;
	if (t >= s->end_ps)
		return 0;
	n->next = p;
	return 1;
}

/* ------------------------------------------------------------ stats */

/* Per NIC: PCIe bandwidth both ways, its DMA reads (mean latency from issue
 * to data at the NIC, waiting for a read slot included) and the share of
 * the lines its DMA accesses touched that were not in the LLC. */
static json_t *pcie(const struct sim *s, double T)
{
	json_t *pc = json_array();

	for (uint32_t i = 0; i < s->cfg->scn.system.nics; i++) {
		const struct nic *n = &s->nic[i];

		json_array_append_new(
			pc, json_pack("{s:I,s:o,s:o,s:I,s:o,s:o}", "nic", (json_int_t)i, "up_gbps",
				      jnum(8.0 * (double)n->up_bytes / T / 1e9), "down_gbps",
				      jnum(8.0 * (double)n->down_bytes / T / 1e9), "dma_reads",
				      (json_int_t)n->reads, "dma_read_latency_ns_mean",
				      n->reads ? jnum((double)n->read_ps / (double)n->reads / 1e3)
					       : json_null(),
				      "llc_miss_share",
				      n->pcie_lines ? jfrac((double)n->pcie_missed /
							    (double)n->pcie_lines)
						    : json_null()));
	}
	return pc;
}

/* The same over every NIC: docs/calibration.md's "NIC PCIe read latency" and
 * "share of PCIe accesses missing the LLC". */
static void nic_reads(const struct sim *s, json_t *m)
{
	uint64_t reads = 0, ps = 0, lines = 0, missed = 0, reqs = 0, reqs_missed = 0;

	for (uint32_t i = 0; i < s->cfg->scn.system.nics; i++) {
		reads += s->nic[i].reads;
		ps += s->nic[i].read_ps;
		lines += s->nic[i].pcie_lines;
		missed += s->nic[i].pcie_missed;
		reqs += s->nic[i].pcie_reqs;
		reqs_missed += s->nic[i].pcie_reqs_missed;
	}
	jset(m, "nic_pcie_request_miss_share",
	     reqs ? jfrac((double)reqs_missed / (double)reqs) : json_null());
	jset(m, "nic_partial_line_reads", jcount(s->partial_reads));
	jset(m, "nic_dma_read_latency_ns_mean",
	     reads ? jnum((double)ps / (double)reads / 1e3) : json_null());
	jset(m, "nic_desc_wait_ns_mean",
	     s->desc_waited ? jnum((double)s->desc_wait_ps / (double)s->desc_waited / 1e3)
			    : json_null());
	jset(m, "nic_pcie_llc_miss_share",
	     lines ? jfrac((double)missed / (double)lines) : json_null());
}

/* Distinct flows each NIC's generator offers (0: a trace's). */
json_t *nic_stats_flows(const struct sim *s)
{
	json_t *a = json_array();

	for (uint32_t i = 0; i < s->cfg->scn.system.nics; i++)
		json_array_append_new(
			a, jcount(s->nic[i].gen_ok ? sim_traffic_flows(&s->nic[i].gen) : 0));
	return a;
}

/* "pcie" per NIC, then the same over every NIC. */
void nic_stats_pcie(const struct sim *s, json_t *m, double T)
{
	jset(m, "pcie", pcie(s, T));
	nic_reads(s, m);
}

/* The packets that arrived (all of them, warm-up included) and, for a
 * replayed trace, the checksum of their 5-tuples. */
void nic_stats_trace(const struct sim *s, json_t *m)
{
	char hex[24];

	snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)s->trace_sum);
	jset(m, "trace",
	     json_pack("{s:I,s:o}", "packets", (json_int_t)s->arrivals_total, "tuple_checksum",
		       s->trace ? json_string(hex) : json_null()));
}
