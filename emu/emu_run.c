/* SPDX-License-Identifier: BSD-3-Clause
 *
 * One emulator run: build the pool, the interface, the physical queues and
 * the ports; launch workers, the emulator and the source; sample while it
 * runs; stop the source, drain, check conservation (docs/interfaces.md §8) and
 * gather the result.
 *
 * Dependencies: this file drives the others (launches the lcores' mains,
 * attaches the run to emu_telemetry.c) and reads per-destination counters
 * through emu_stats.c, as telemetry does; none of them calls back into it
 * (its callers are rxb_emu_main.c and emu_bench.c, through emu.h).
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_lpm.h>
#include <rte_malloc.h>

#include "emu_int.h"

/* ------------------------------------------------------------ set-up */

static uint32_t pow2_at_least(uint32_t v)
{
	uint32_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

static int add_src(struct emu *e, uint32_t size, uint32_t pq)
{
	struct emu_src *s = &e->src[e->n_src++];

	s->size = size;
	s->pq = pq;
	s->mask = pow2_at_least(size) - 1;
	s->exp = rte_zmalloc("rxb_exp", sizeof(*s->exp) * (s->mask + 1), 0);
	return s->exp ? 0 : -ENOMEM;
}

static void set_pq(struct emu *e, uint32_t q, uint32_t src_first, uint32_t src_n, uint32_t cap,
		   uint32_t core_first, uint32_t core_n, uint32_t set)
{
	struct emu_pq *pq = &e->pq[q];

	pq->src_first = src_first;
	pq->src_n = src_n;
	pq->cap = cap;
	pq->core_first = core_first;
	pq->core_n = core_n;
	pq->set = set;
}

/* n_q physical queues from q0 on, each fed by the next per_q sources in the
 * library's order (as large as those sources together) and delivering to
 * its own equal block of the destinations; set: dynamic shRing's ring set. */
static int add_queues(struct emu *e, uint32_t q0, uint32_t n_q, uint32_t per_q, uint32_t set)
{
	uint32_t size = e->shape.src_buffers, dests = e->n_dest / n_q;
	int rc = 0;

	for (uint32_t g = 0; rc == 0 && g < n_q; g++) {
		set_pq(e, q0 + g, e->n_src, per_q, per_q * size, g * dests, dests, set);
		for (uint32_t i = 0; rc == 0 && i < per_q; i++)
			rc = add_src(e, size, q0 + g);
	}
	return rc;
}

/* The physical queues and the virtual rings (the library's sources)
 * behind them. */
static int build_queues(struct emu *e)
{
	const struct rxb_iface_shape *sh = &e->shape;
	int rc;

	e->n_pq = rxb_emu_phys_queues(e->cfg);
	e->pq = rte_zmalloc("rxb_pq", sizeof(*e->pq) * e->n_pq, RTE_CACHE_LINE_SIZE);
	e->src = rte_zmalloc("rxb_src", sizeof(*e->src) * RTE_MAX(sh->n_srcs, 1u),
			     RTE_CACHE_LINE_SIZE);
	if (e->pq == NULL || e->src == NULL)
		return -ENOMEM;
	if (!e->cfg->scn.arch.emulated) { /* native: a worker polls its port queue */
		for (uint32_t q = 0; q < e->n_pq; q++)
			set_pq(e, q, 0, 0, sh->src_buffers, q, 1, 0);
		return 0;
	}
	if (sh->queues_per_core == 2) { /* dynamic shRing: the private set, then the shared */
		rc = add_queues(e, 0, sh->n_cores, 1, RXB_DYN_PRIVATE);
		if (rc == 0)
			rc = add_queues(e, sh->n_cores, sh->n_srcs - sh->n_cores, 1,
					RXB_DYN_SHARED);
		return rc;
	}
	rc = add_queues(e, 0, e->n_pq, sh->n_srcs / e->n_pq, 0);
	if (e->cfg->scn.arch.name != RXB_ARCH_SPOOL)
		return rc;
	/* A spool queue's packets may go to any port mapped to it. */
	for (uint32_t q = 0; q < e->n_pq; q++) {
		e->pq[q].core_first = 0;
		e->pq[q].core_n = e->n_dest;
	}
	return rc;
}

/* The physical queue each destination's packets arrive on, per ring set:
 * the group of the library's sources that serve it (shape.h), since the
 * queues are laid out one per group in source order; native: its own. */
static int map_dests(struct emu *e, struct rxb_err *err)
{
	uint32_t sets = RTE_MAX(e->shape.queues_per_core, 1u);
	struct rxb_iface_config ic;
	struct rxb_src_range r;

	e->pq_of_dest = rte_zmalloc("rxb_pq_of_dest", sizeof(*e->pq_of_dest) * sets * e->n_dest, 0);
	if (e->pq_of_dest == NULL)
		return rxb_err_fail(err, -ENOMEM, "out of memory: the destinations' queues");
	rxb_scn_iface_config(&e->cfg->scn, 0, 1.0, &ic);
	for (uint32_t set = 0; set < sets; set++)
		for (uint32_t d = 0; d < e->n_dest; d++) {
			if (e->cfg->scn.arch.emulated &&
			    rxb_iface_shape_srcs_of(&ic, d, set, &r, err) != 0)
				return -EINVAL;
			e->pq_of_dest[set * e->n_dest + d] = e->cfg->scn.arch.emulated ? r.group
										       : d;
		}
	return 0;
}

/* The NIC lcores and the queues each serves (none without emulation). */
static int make_nics(struct emu *e)
{
	e->n_nic = e->cfg->scn.arch.emulated ? e->cfg->scn.emu.nic_lcores : 0;
	e->nic = rte_zmalloc("rxb_nic", sizeof(*e->nic) * RTE_MAX(e->n_nic, 1u),
			     RTE_CACHE_LINE_SIZE);
	if (e->nic == NULL)
		return -ENOMEM;
	emu_nic_shard(e);
	return 0;
}

static int create_queues(struct emu *e, struct rxb_err *err)
{
	for (uint32_t q = 0; e->cfg->scn.arch.emulated && q < e->n_pq; q++) {
		int rc = emu_pq_create(e, &e->pq[q], q);

		if (rc != 0) {
			rxb_err_set(err, "cannot create physical queue %u's pool and fill ring: %s",
				    q, rte_strerror(-rc));
			return rc;
		}
	}
	return 0;
}

static uint32_t pool_size(const struct emu *e)
{
	const struct rxb_emu_cfg *c = e->cfg;
	uint64_t n = 0;

	if (c->scn.arch.pool_buffers != RXB_SCN_AUTO)
		return c->scn.arch.pool_buffers;
	n = e->shape.needed; /* every ring the design holds buffers in, full */
	n += (uint64_t)rte_lcore_count() * c->scn.arch.alloc_cache * 3 / 2;
	if (c->out == RXB_EMU_OUT_RING && c->out_ring != NULL) /* it keeps what it gets */
		n += rte_ring_free_count(c->out_ring);
	n += (uint64_t)e->cores * RXB_BURST_MAX * 2 + 1024;
	return (uint32_t)RTE_MIN(n, 1ull << 24);
}

static int make_pools(struct emu *e, struct rxb_err *err)
{
	const struct rxb_emu_cfg *c = e->cfg;
	uint32_t n = pool_size(e), cache = c->scn.arch.alloc_cache;
	uint16_t room = (uint16_t)(c->scn.arch.buffer_bytes + RTE_PKTMBUF_HEADROOM);
	char name[RTE_MEMPOOL_NAMESIZE];

	if (cache > RTE_MEMPOOL_CACHE_MAX_SIZE)
		cache = RTE_MEMPOOL_CACHE_MAX_SIZE;
	if (cache * 3 / 2 > n)
		cache = n * 2 / 3;
	snprintf(name, sizeof(name), "rxbp%u", e->run_id);
	e->wpool = rte_pktmbuf_pool_create(name, n, cache, EMU_META_ROOM, room,
					   (int)rte_socket_id());
	if (e->wpool == NULL) {
		return rxb_err_fail(err, -ENOMEM,
				    "cannot create the mempool of %u buffers of %u "
				    "bytes: %s (raise -m in --eal or lower arch.pool_buffers)",
				    n, room, rte_strerror(rte_errno));
	}
	return 0;
}

/* net_null writes no bytes: give every buffer a packet of the pattern once,
 * so software RSS spreads them and the NF has something to parse. */
static void prefill_one(struct rte_mempool *mp, void *arg, void *obj, unsigned idx)
{
	struct rte_mbuf *m = obj;

	(void)mp;
	(void)idx;
	rxb_gen_fill(arg, &m, 1, 0, NULL);
}

static int prefill(struct emu *e, struct rxb_err *err)
{
	struct rxb_gen_cfg g;
	struct rxb_gen *gen;

	rxb_gen_cfg_defaults(&g);
	g.seed = e->cfg->scn.run.seed;
	g.n_flows = e->cfg->scn.traffic.flows;
	g.frame_size = (uint16_t)(e->cfg->scn.traffic.packet_bytes - 4);
	g.stamp = false;
	if (rxb_gen_create(&g, &gen, err) != 0)
		return -EINVAL;
	rte_mempool_obj_iter(e->wpool, prefill_one, gen);
	rxb_gen_destroy(gen);
	return 0;
}

static int make_iface(struct emu *e, struct rxb_err *err)
{
	const struct rxb_emu_cfg *c = e->cfg;
	struct rxb_iface_config ic;
	struct rxb_spool *sp;

	rxb_scn_iface_config(&c->scn, 0, (double)e->hz / 1e9, &ic);
	e->iface = rxb_iface_create(&ic, e->allocs, err);
	if (e->iface == NULL)
		return err->code;
	sp = rxb_iface_spool(e->iface);
	if (sp != NULL) {
		if (rxb_spool_n_queues(sp) != e->n_pq) {
			rxb_err_set(err, "spool: the library has %u queues, the emulator built %u",
				    rxb_spool_n_queues(sp), e->n_pq);
			return -EINVAL;
		}
		e->qposted = rte_zmalloc("rxb_qposted", sizeof(*e->qposted) * e->n_pq, 0);
		if (e->qposted == NULL)
			return rxb_err_fail(err, -ENOMEM, "out of memory: spool queue counters");
		/* relaxed: before the launch, which publishes it to the workers */
		for (uint32_t q = 0; q < e->n_pq; q++)
			atomic_store_explicit(&e->qposted[q], rxb_spool_posted(sp, q),
					      memory_order_relaxed);
	}
	return 0;
}

/* A flow table the EAL's memory cannot hold: say which keys size it. */
static int flow_table_enomem(const struct rxb_emu_cfg *c, uint32_t w, struct rxb_err *err)
{
	char nf_msg[sizeof(err->msg)];

	snprintf(nf_msg, sizeof(nf_msg), "%s", err->msg);
	return rxb_err_fail(
		err, -ENOMEM,
		"worker %u's flow table does not fit (%s): lower %s, or give the EAL "
		"more memory (hugepages, or -m in --eal)",
		w, nf_msg,
		c->scn.workload.nf == RXB_NF_KIND_NAT
			? "workload.nat_flows"
			: "traffic.flows, or workload.flow_capacity under the generator's "
			  "ranges");
}

/* A KV partition's table: its value array is capacity x 1088 bytes, so it
 * is capped to what -m 2048 holds for a few cores. */
#define EMU_KVS_MAX_KEYS 131072ull

/* Said once a run: a partition with more keys than its table can hold
 * answers the rest FULL (PUT) or not found (GET), where the simulator
 * stores every key. */
static void kvs_capped(uint64_t keys)
{
	if (keys + keys / 4 + 64 <= EMU_KVS_MAX_KEYS)
		return;
	fprintf(stderr,
		"warning: workload.kvs_keys: each core's partition has %llu keys, more than the "
		"emulator's table of %llu holds (its values fit -m 2048): PUTs beyond it answer "
		"FULL and GETs of those keys miss; more cores or fewer keys avoid it\n",
		(unsigned long long)keys, EMU_KVS_MAX_KEYS);
}

/* Worker w's LB shares its port's backend loads, and its round-robin
 * starts at its own backend: FastClick's thread i of T starts at i x
 * (backends / T) (docs/workloads.md). spool's cores serve every port. */
static void lb_port_share(const struct emu *e, uint32_t w, struct rxb_nf_cfg *nc)
{
	bool spool = e->cfg->scn.arch.name == RXB_ARCH_SPOOL;
	uint32_t threads = spool ? e->cores : e->cpn, port = spool ? 0 : w / e->cpn;

	if (e->lb_loads == NULL)
		return;
	nc->lb.load = e->lb_loads + (size_t)port * nc->lb.n_backends;
	nc->lb.first_backend = w % threads * (nc->lb.n_backends / threads);
}

static int make_workers(struct emu *e, struct rxb_err *err)
{
	const struct rxb_emu_cfg *c = e->cfg;
	int socket = (int)rte_socket_id();
	struct rxb_nf_cfg nc;
	uint32_t *steered = NULL;
	int rc = 0;

	e->w = rte_zmalloc("rxb_workers", sizeof(*e->w) * e->cores, RTE_CACHE_LINE_SIZE);
	e->allocs = rte_zmalloc("rxb_allocs", sizeof(*e->allocs) * e->cores, 0);
	if (e->w == NULL || e->allocs == NULL)
		return rxb_err_fail(err, -ENOMEM, "out of memory: %u workers' state", e->cores);
	rxb_nf_cfg_defaults(&nc);
	if (c->scn.workload.nf == RXB_NF_KIND_L3FWD ||
	    c->scn.workload.nf == RXB_NF_KIND_SYNTHETIC) {
		rc = rxb_nf_lpm_create(&nc, socket, &e->lpm, err);
		if (rc != 0)
			return rc;
	}
	if (c->scn.workload.nf == RXB_NF_KIND_COUNTER) {
		e->counters = rte_zmalloc("rxb_counters",
					  sizeof(*e->counters) * c->scn.workload.counter_slots,
					  RTE_CACHE_LINE_SIZE);
		if (e->counters == NULL)
			return rxb_err_fail(err, -ENOMEM, "out of memory: %u counters",
					    c->scn.workload.counter_slots);
	}
	if (c->scn.workload.nf == RXB_NF_KIND_LB) {
		/* the backends' loads, one set per NIC port, shared by its cores */
		e->lb_loads = rte_zmalloc("rxb_lb_loads",
					  sizeof(*e->lb_loads) * c->scn.workload.lb_backends *
						  c->scn.system.nics,
					  RTE_CACHE_LINE_SIZE);
		if (e->lb_loads == NULL)
			return rxb_err_fail(err, -ENOMEM, "out of memory: %u backend loads",
					    c->scn.workload.lb_backends * c->scn.system.nics);
	}
	if (rxb_nf_keeps_flows(c->scn.workload.nf))
		steered = emu_flows_per_worker(e);
	for (uint32_t w = 0; rc == 0 && w < e->cores; w++) {
		struct emu_worker *wk = &e->w[w];
		bool target = w % e->cpn == c->scn.traffic.target_core;
		/* a KV request goes to its partition among its port's cores
		 * (the generator's and the steering's rule, emu_int.h): each
		 * port's cores split the key space among themselves */
		uint64_t keys = c->scn.workload.kvs_keys / e->cpn + 1;

		wk->e = e;
		wk->id = w;
		wk->alloc.mp = e->wpool;
		emu_alloc_endpoint(&wk->alloc, &e->allocs[w]);
		wk->extra_cyc = emu_ns_to_cyc(
			e,
			c->scn.workload.compute_ns + (rxb_scn_list_has(&c->scn.system.slow_cores, w)
							      ? c->scn.system.slow_extra_ns
							      : 0));
		rxb_nf_cfg_defaults(&nc);
		nc.instance = w;
		nc.seed = c->scn.run.seed * 7919 + w;
		nc.lpm = e->lpm;
		wk->steered = steered != NULL ? steered[w] : 0;
		nc.lb.capacity = emu_flow_table(e, steered != NULL ? steered[w] : UINT64_MAX);
		/* the same table, within the memory workload.nat_flows allows
		 * the NAT's two hash entries a flow */
		nc.nat.capacity = RTE_MIN(nc.lb.capacity, c->scn.workload.nat_flows);
		nc.lb.n_backends = c->scn.workload.lb_backends;
		lb_port_share(e, w, &nc);
		nc.synth.buf_bytes = (uint64_t)(c->scn.workload.buffer_mib * 1048576.0);
		if (nc.synth.buf_bytes < 64)
			nc.synth.buf_bytes = 64;
		nc.synth.reads = c->scn.workload.reads +
				 (target ? c->scn.workload.target_reads : 0);
		nc.synth.payload = (enum rxb_nf_payload)c->scn.workload.payload;
		/* One partition per worker of its port, capped (kvs_capped) */
		nc.kvs.capacity = (uint32_t)RTE_MIN(keys + keys / 4 + 64, EMU_KVS_MAX_KEYS);
		if (w == 0 && c->scn.workload.nf == RXB_NF_KIND_KVS)
			kvs_capped(keys);
		nc.kvs.partition = w % e->cpn;
		nc.kvs.n_partitions = e->cpn;
		nc.counter.n_counters = c->scn.workload.counter_slots;
		nc.counter.shared = e->counters;
		rc = rxb_nf_create(rxb_nf_kind_name[c->scn.workload.nf], &nc, socket, &wk->nf, err);
		if (rc == -ENOMEM && rxb_nf_keeps_flows(c->scn.workload.nf))
			rc = flow_table_enomem(c, w, err);
	}
	free(steered);
	if (rc == 0)
		emu_note_nat_room(e);
	return rc;
}

/* ------------------------------------------------------------ sampling */

/* Memory traffic from Intel RDT / AMD PQoS memory bandwidth monitoring:
 * the root resctrl group's mbm_total_bytes summed over L3 domains (the
 * whole machine's DRAM traffic, not just ours). -1 when resctrl is not
 * mounted or has no MBM (this VM). */
static int mbm_read(uint64_t *bytes)
{
	DIR *d = opendir("/sys/fs/resctrl/mon_data");
	struct dirent *de;
	uint64_t sum = 0;
	int found = 0;

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		char path[PATH_MAX];
		unsigned long long v;
		FILE *f;

		if (strncmp(de->d_name, "mon_L3_", 7) != 0)
			continue;
		snprintf(path, sizeof(path), "/sys/fs/resctrl/mon_data/%s/mbm_total_bytes",
			 de->d_name);
		f = fopen(path, "r");
		if (f != NULL && fscanf(f, "%llu", &v) == 1) {
			sum += v;
			found = 1;
		}
		if (f != NULL)
			fclose(f);
	}
	closedir(d);
	*bytes = sum;
	return found ? 0 : -1;
}

struct snap {
	uint64_t t, offered, offered_bytes, processed, wire_bytes, dispatched, busy, idle;
	uint64_t dma_bytes; /* frame bytes the source wrote into buffers (dma_written) */
	uint64_t mbm;       /* resctrl memory traffic, bytes */
	bool has_mbm;
};

static uint64_t src_offered(struct emu *e, uint64_t *bytes)
{
	uint64_t n = 0, b = 0;

	if (e->cfg->scn.emu.source == RXB_EMU_SOURCE_GEN) {
		for (uint32_t d = 0; d < e->n_dest; d++) {
			n += rxb_counter_read(&e->d[d].offered);
			b += rxb_counter_read(&e->d[d].bytes);
		}
	} else if (e->cfg->scn.arch.emulated) {
		for (uint32_t q = 0; q < e->n_pq; q++)
			n += rxb_counter_read(&e->pq[q].received);
		b = EMU_NS(e, dma_bytes);
	} else {
		for (uint32_t w = 0; w < e->cores; w++) {
			n += rxb_counter_read(&e->w[w].st.received);
			b += rxb_counter_read(&e->w[w].st.bytes);
		}
	}
	if (bytes != NULL)
		*bytes = b;
	return n;
}

/* The frame bytes written into buffers: the generator's own writes (a
 * packet it found no buffer for writes none), or what the source's port
 * put in its buffers (src_offered). */
static uint64_t dma_written(struct emu *e)
{
	uint64_t b;

	if (e->cfg->scn.emu.source == RXB_EMU_SOURCE_GEN)
		return EMU_GEN(e, dma_bytes);
	src_offered(e, &b);
	return b;
}

static void take_snap(struct emu *e, struct snap *s)
{
	memset(s, 0, sizeof(*s));
	s->t = rte_rdtsc();
	s->offered = src_offered(e, &s->offered_bytes);
	s->dma_bytes = dma_written(e);
	for (uint32_t w = 0; w < e->cores; w++) {
		s->processed += rxb_counter_read(&e->w[w].st.processed);
		s->wire_bytes += rxb_counter_read(&e->w[w].st.wire_bytes);
	}
	s->dispatched = EMU_NS(e, dispatched);
	s->has_mbm = e->has_mbm && mbm_read(&s->mbm) == 0;
	s->busy = EMU_NS(e, busy_cyc);
	s->idle = EMU_NS(e, idle_cyc);
}

static void sample_occupancy(struct emu *e)
{
	uint64_t in_use = rte_mempool_in_use_count(e->wpool);
	struct rxb_spool *sp = e->iface != NULL ? rxb_iface_spool(e->iface) : NULL;

	if (in_use > e->in_use_max)
		e->in_use_max = in_use;
	for (uint32_t d = 0; d < e->n_dest; d++) {
		uint64_t o = emu_dest_occupancy(e, d);

		e->d[d].occ_sum += o;
		e->d[d].occ_n++;
		if (o > e->d[d].occ_max)
			e->d[d].occ_max = o;
		if (sp != NULL) {
			uint64_t p = atomic_load_explicit(&e->qposted[rxb_spool_queue_of(sp, d)],
							  memory_order_relaxed);

			e->d[d].posted_sum += p;
			if (p > e->d[d].posted_max)
				e->d[d].posted_max = p;
		}
	}
}

/* The load the NIC received between two snapshots, in wire Gbps:
 * offered_bytes counts frames without their FCS, and each packet takes 24 B
 * more on the wire (4 B FCS, 8 B preamble, 12 B inter-frame gap). */
static double offered_gbps(const struct snap *a, const struct snap *b, double dt)
{
	return ((double)(b->offered_bytes - a->offered_bytes) +
		24.0 * (double)(b->offered - a->offered)) *
	       8 / dt / 1e9;
}

/* The rate the source wrote frame bytes into buffers, GiB/s. */
static double dma_write_gibps(const struct snap *a, const struct snap *b, double dt)
{
	return (double)(b->dma_bytes - a->dma_bytes) / dt / 1073741824.0;
}

/* Dynamic shRing: one controller sample. Memory bandwidth comes from
 * resctrl's MBM when the machine has it; otherwise (this VM: no resctrl, no
 * uncore counters) the controller gets the DMA write rate, the record's
 * dma_write_gibps, as a stand-in. */
static void dyn_sample(struct emu *e, const struct snap *a, const struct snap *b)
{
	const struct rxb_emu_cfg *c = e->cfg;
	double dt = (double)(b->t - a->t) / (double)e->hz;
	struct rxb_dynctl_sample s;
	enum rxb_dyn_decision dec;

	if (dt <= 0)
		return;
	s.tput_gbps = offered_gbps(a, b, dt); /* the load received, not what cores delivered */
	s.mem_bw_gibps = a->has_mbm && b->has_mbm ? (double)(b->mbm - a->mbm) / dt / 1073741824.0
						  : dma_write_gibps(a, b, dt);
	s.overloaded_cores = 0;
	for (uint32_t w = 0; w < e->cores; w++)
		s.overloaded_cores += rxb_dynctl_ivl_overloaded(&e->w[w].ivl,
								c->scn.arch.dyn_overload_factor);
	dec = rxb_iface_dyn_sample(e->iface, &s);
	/* release: pairs with the acquire in emu_gen_main(); the switch just
	 * requested in the library is visible to the generator and, through
	 * gen_mode, to the emulator lcore, which applies it on the first
	 * packet the generator steers to the new set. */
	if (dec == RXB_DYN_TO_SHARED)
		atomic_store_explicit(&e->ctl_mode, RXB_DYN_SHARED, memory_order_release);
	else if (dec == RXB_DYN_TO_PRIVATE)
		atomic_store_explicit(&e->ctl_mode, RXB_DYN_PRIVATE, memory_order_release);
}

/* ------------------------------------------------------------ checks */

static uint64_t wire_residual(struct emu *e)
{
	uint64_t n = 0;

	for (uint32_t q = 0; q < e->n_pq; q++)
		if (e->pq[q].wire != NULL)
			n += rte_ring_count(e->pq[q].wire);
	return n;
}

static uint64_t out_held(const struct emu *e)
{
	return e->cfg->out == RXB_EMU_OUT_RING && e->cfg->out_ring
		       ? rte_ring_count(e->cfg->out_ring)
		       : 0;
}

static void check_packets(struct emu *e, struct rxb_emu_result *r)
{
	const struct rxb_emu_cfg *c = e->cfg;
	uint64_t phys_drops = 0, resid = wire_residual(e), received = 0, processed = 0, recycled;
	struct rxb_census cs;
	struct rxb_err err = { 0 };

	for (uint32_t d = 0; d < e->n_dest; d++)
		for (int k = 0; k < RXB_DROP_CAUSES; k++) {
			uint64_t v = rxb_counter_read(&e->d[d].drops[k]);

			r->drops[k] += v;
			phys_drops += v;
		}
	if (c->scn.emu.source == RXB_EMU_SOURCE_PORT) {
		struct rte_eth_stats st;

		if (rte_eth_stats_get(e->in_port, &st) == 0) {
			r->port_imissed = st.imissed;
			r->port_rx_nombuf = st.rx_nombuf;
			r->drops[emu_nodesc_cause(e)] += st.imissed + st.rx_nombuf;
			phys_drops += st.imissed + st.rx_nombuf;
		}
	}
	for (uint32_t w = 0; w < e->cores; w++) {
		received += rxb_counter_read(&e->w[w].st.received);
		processed += rxb_counter_read(&e->w[w].st.processed);
		r->nf_drops += rxb_counter_read(&e->w[w].st.nf_drops);
		r->tx_packets += rxb_counter_read(&e->w[w].st.tx);
		r->tx_drops += rxb_counter_read(&e->w[w].st.tx_drops);
	}
	r->offered = src_offered(e, NULL) +
		     (c->scn.emu.source == RXB_EMU_SOURCE_PORT ? phys_drops : 0);
	r->delivered = processed;
	if (!c->scn.arch.emulated) {
		r->in_flight = resid + (received - processed);
		r->packets_ok = r->offered == processed + phys_drops + r->in_flight;
		if (!r->packets_ok)
			snprintf(r->packets_msg, sizeof(r->packets_msg),
				 "offered %lu != processed %lu + dropped %lu + in flight %lu",
				 r->offered, processed, phys_drops, r->in_flight);
		return;
	}
	for (uint32_t d = 0; d < e->n_dest; d++)
		for (int k = 0; k < RXB_DROP_CAUSES; k++)
			r->drops[k] += emu_lib_nic(e, d, RXB_NIC_DROP_FIRST + k);
	/* The library received these and dropped them itself, for want of an
	 * Ax buffer to re-arm their slots: the workers never see them. */
	recycled = emu_recycled(e);
	r->drops[RXB_DROP_NO_AX_BUF] += recycled;
	if (rxb_iface_check(e->iface, NULL, &err) != 0) {
		r->packets_ok = false;
		snprintf(r->packets_msg, sizeof(r->packets_msg), "library check: %.200s", err.msg);
		return;
	}
	rxb_iface_census(e->iface, &cs, &err);
	r->in_flight = resid + cs.in_entries + (received - processed);
	r->packets_ok = false;
	if (EMU_NS(e, mismatch) != 0)
		snprintf(r->packets_msg, sizeof(r->packets_msg),
			 "%lu deliveries used another buffer than the packet's",
			 EMU_NS(e, mismatch));
	else if (cs.offered != EMU_NS(e, dispatched))
		snprintf(r->packets_msg, sizeof(r->packets_msg),
			 "library offered %lu != emulator dispatched %lu", cs.offered,
			 EMU_NS(e, dispatched));
	else if (cs.received != received + recycled)
		snprintf(r->packets_msg, sizeof(r->packets_msg),
			 "library received %lu != workers received %lu + recycled %lu", cs.received,
			 received, recycled);
	else if (r->offered != processed + phys_drops + cs.dropped + recycled + r->in_flight)
		snprintf(
			r->packets_msg, sizeof(r->packets_msg),
			"offered %lu != processed %lu + dropped %lu (physical %lu, recycled %lu) + "
			"in flight %lu",
			r->offered, processed, phys_drops + cs.dropped + recycled, phys_drops,
			recycled, r->in_flight);
	else
		r->packets_ok = true;
}

/* Buffers: while the rings still hold theirs, every buffer out of the pool
 * is accounted for by the library's census (fetched ones count as held by
 * the NIC, wherever they are on the physical side); then they are taken
 * back and the pool must be whole again. */
static void check_buffers(struct emu *e, struct rxb_emu_result *r)
{
	uint64_t in_use = rte_mempool_in_use_count(e->wpool), held = out_held(e);
	struct rxb_census cs = { 0 };
	struct rxb_err err = { 0 };
	rxb_buf_t bufs[EMU_FETCH_CHUNK];

	r->pool_size = e->wpool->size;
	r->out_ring_held = held;
	r->buffers_ok = true;
	if (e->cfg->scn.arch.emulated) {
		uint64_t want;

		rxb_iface_census(e->iface, &cs, &err);
		want = cs.posted + cs.nic_held + cs.in_entries + cs.app_held + held;
		if (in_use != want) {
			r->buffers_ok = false;
			snprintf(r->buffers_msg, sizeof(r->buffers_msg),
				 "pool in use %lu != posted %lu + in NIC %lu + unread %lu + "
				 "application %lu + output %lu",
				 in_use, cs.posted, cs.nic_held, cs.in_entries, cs.app_held, held);
		}
		/* Take every buffer back: those handed to the physical side
		 * (exp lists them whatever ring or hand they are in now), then
		 * those still posted. */
		for (uint32_t i = 0; i < e->n_src; i++) {
			struct emu_src *s = &e->src[i];
			unsigned got;

			for (; s->head != s->tail; s->head++) {
				struct rte_mbuf *m = (struct rte_mbuf *)(uintptr_t)
							     s->exp[s->head & s->mask];

				m->pool = e->wpool;
				rte_mempool_put(e->wpool, m);
			}
			/* e->src[i] is the library's source i (emu_nic.c) */
			while ((got = rxb_iface_nic_fetch(e->iface, i, bufs, EMU_FETCH_CHUNK)) != 0)
				rte_mempool_put_bulk(e->wpool, (void **)bufs, got);
		}
		/* relaxed: every lcore has stopped (rte_eal_mp_wait_lcore()) */
		for (uint32_t q = 0; q < e->n_pq; q++) {
			rte_ring_reset(e->pq[q].fill);
			atomic_store_explicit(&e->pq[q].stash_n, 0, memory_order_relaxed);
		}
	}
	/* Unread packets left in CR/Bx entries (a forced stop) stay out, and
	 * so does each RxList's tail: the NIC never fetches that sentinel
	 * descriptor (include/rxb/shring.h), so it is never handed back; it
	 * goes away with the mempool. */
	if (e->cfg->scn.arch.emulated) {
		held += cs.in_entries;
		if (e->cfg->scn.arch.name == RXB_ARCH_SHRING_LIST)
			held += rxb_shring_n_rings(rxb_iface_shring(e->iface));
	}
	in_use = rte_mempool_in_use_count(e->wpool);
	r->pool_in_use_end = in_use;
	if (r->buffers_ok && in_use != held) {
		r->buffers_ok = false;
		snprintf(r->buffers_msg, sizeof(r->buffers_msg),
			 "after taking every buffer back, %lu are still out of the pool "
			 "(expected %lu: output, unread entries, RxList sentinels)",
			 in_use, held);
	}
}

/* ------------------------------------------------------------ results */

/* The workers' latency histograms merged, in microseconds (NaN without
 * samples). */
static void fill_latency(const struct emu *e, struct rxb_emu_result *r)
{
	struct rxb_hist all;
	double us = 1e6 / (double)e->hz;

	rxb_hist_reset(&all);
	for (uint32_t w = 0; w < e->cores; w++)
		rxb_hist_merge(&all, &e->w[w].lat);
	r->lat_samples = all.n;
	if (all.n == 0) {
		r->lat_mean = r->lat_p50 = r->lat_p99 = r->lat_p999 = r->lat_max = NAN;
		return;
	}
	r->lat_mean = rxb_hist_mean(&all) * us;
	r->lat_p50 = rxb_hist_quantile(&all, 0.50) * us;
	r->lat_p99 = rxb_hist_quantile(&all, 0.99) * us;
	r->lat_p999 = rxb_hist_quantile(&all, 0.999) * us;
	r->lat_max = (double)all.max * us;
}

/* Rates over the measured window [a, b] and the drop rate of the run. */
static void fill_rates(const struct emu *e, struct rxb_emu_result *r, const struct snap *a,
		       const struct snap *b)
{
	double dt = (double)(b->t - a->t) / (double)e->hz;
	uint64_t dropped = 0;

	r->tsc_hz = e->hz;
	r->measured_s = dt;
	if (dt > 0) {
		r->offered_gbps = offered_gbps(a, b, dt);
		r->throughput_gbps = (double)(b->wire_bytes - a->wire_bytes) * 8 / dt / 1e9;
		r->throughput_mpps = (double)(b->processed - a->processed) / dt / 1e6;
		r->emu_mpps = (double)(b->dispatched - a->dispatched) / dt / 1e6;
		r->dma_write_gibps = dma_write_gibps(a, b, dt);
	}
	r->mem_bw_gibps = a->has_mbm && b->has_mbm && dt > 0
				  ? (double)(b->mbm - a->mbm) / dt / 1073741824.0
				  : NAN;
	for (int k = 0; k < RXB_DROP_CAUSES; k++)
		dropped += r->drops[k];
	r->drop_rate = r->offered ? (double)dropped / (double)r->offered : 0;
}

/* Each worker's counters, and the cycles per packet over all of them. */
static void fill_workers(const struct emu *e, struct rxb_emu_result *r)
{
	uint64_t rx = 0, al = 0, app = 0, proc = 0;

	r->n_workers = e->cores;
	for (uint32_t w = 0; w < e->cores; w++) {
		const struct emu_wstats *st = &e->w[w].st;
		struct rxb_emu_worker_res *o = &r->worker[w];

		o->received = rxb_counter_read(&st->received);
		o->processed = rxb_counter_read(&st->processed);
		o->tx = rxb_counter_read(&st->tx);
		o->nf_drops = rxb_counter_read(&st->nf_drops);
		o->tx_drops = rxb_counter_read(&st->tx_drops);
		o->polls = rxb_counter_read(&st->polls);
		o->empty_polls = rxb_counter_read(&st->empty_polls);
		o->bytes = rxb_counter_read(&st->bytes);
		o->cyc_rx = rxb_counter_read(&st->cyc_rx);
		o->cyc_alloc = rxb_counter_read(&st->cyc_alloc);
		o->cyc_app = rxb_counter_read(&st->cyc_app);
		o->cyc_idle = rxb_counter_read(&st->cyc_idle);
		o->alloc_fail = rxb_counter_read(&st->alloc_fail);
		o->flows_learned = e->w[w].learned;
		o->nf_inserts = e->w[w].nf != NULL ? rxb_counter_read(&e->w[w].nf->stats.inserts) -
							     o->flows_learned
						   : 0;
		rx += o->cyc_rx;
		al += o->cyc_alloc;
		app += o->cyc_app;
		proc += o->processed;
	}
	if (proc == 0)
		return;
	r->cpp_rx = (double)rx / (double)proc;
	r->cpp_alloc = (double)al / (double)proc;
	r->cpp_app = (double)app / (double)proc;
	r->cpp_total = r->cpp_rx + r->cpp_alloc + r->cpp_app;
	r->alloc_cycle_share = r->cpp_total > 0 ? r->cpp_alloc / r->cpp_total : 0;
}

/* Each destination ring's counters and occupancy; the workers' come first
 * (native: a ring's deliveries are its worker's receptions). */
static void fill_rings(struct emu *e, struct rxb_emu_result *r)
{
	uint64_t occ_sum = 0, occ_n = 0;

	r->n_rings = e->n_dest;
	for (uint32_t d = 0; d < e->n_dest; d++) {
		const struct emu_dstats *ds = &e->d[d];
		struct rxb_emu_ring_res *o = &r->ring[d];

		for (int k = 0; k < RXB_DROP_CAUSES; k++)
			o->drops[k] = emu_dest_drops(e, d, k);
		o->offered = emu_dest_offered(e, d);
		o->delivered = e->cfg->scn.arch.emulated ? emu_lib_nic(e, d, RXB_NIC_DELIVERED)
							 : r->worker[d].received;
		o->occ_max = ds->occ_max;
		o->occ_mean = ds->occ_n ? (double)ds->occ_sum / (double)ds->occ_n : 0;
		o->posted_max = ds->posted_max;
		o->posted_mean = ds->occ_n ? (double)ds->posted_sum / (double)ds->occ_n : 0;
		occ_sum += ds->occ_sum;
		occ_n += ds->occ_n;
		r->occ_max = RTE_MAX(r->occ_max, o->occ_max);
	}
	r->occ_mean = occ_n ? (double)occ_sum / (double)occ_n : 0;
}

/* Cycles per packet of each step of the NIC lcores' full-burst loops;
 * "other" is what the measured steps leave of the loops' cycles. */
static void fill_stages(const struct emu *e, struct rxb_emu_result *r)
{
	uint64_t pkts = EMU_NS(e, full_pkts), rest = EMU_NS(e, full_cyc);

	for (int s = 0; s < RXB_EMU_STAGE_OTHER; s++) {
		uint64_t cyc = EMU_NS(e, stage_cyc[s]);

		r->emu_stage_cyc_per_pkt[s] = pkts ? (double)cyc / (double)pkts : NAN;
		rest -= cyc;
	}
	r->emu_stage_cyc_per_pkt[RXB_EMU_STAGE_OTHER] = pkts ? (double)rest / (double)pkts : NAN;
}

/* The NIC lcores' counters, summed, and what they cost per packet. */
static void fill_emulator(const struct emu *e, struct rxb_emu_result *r)
{
	uint64_t busy = EMU_NS(e, busy_cyc), idle = EMU_NS(e, idle_cyc);

	r->emu_dispatched = EMU_NS(e, dispatched);
	r->emu_fetched = EMU_NS(e, fetched);
	r->emu_loops = EMU_NS(e, loops);
	r->emu_idle_loops = EMU_NS(e, idle_loops);
	r->emu_busy_cycles = busy;
	r->emu_idle_cycles = idle;
	r->emu_idle_share = busy + idle ? (double)idle / (double)(busy + idle) : 0;
	r->emu_cycles_per_pkt = r->emu_dispatched ? (double)busy / (double)r->emu_dispatched : 0;
	r->emu_loaded_pkts = EMU_NS(e, full_pkts);
	r->emu_loaded_cycles_per_pkt = r->emu_loaded_pkts ? (double)EMU_NS(e, full_cyc) /
								    (double)r->emu_loaded_pkts
							  : NAN;
	fill_stages(e, r);
	r->emu_nic_lcores = e->n_nic;
	r->emu_held_ns = EMU_NS(e, held_pkts)
				 ? (double)EMU_NS(e, held_cyc) / (double)EMU_NS(e, held_pkts) /
					   (double)e->hz * 1e9
				 : NAN;
	r->emu_mismatch = EMU_NS(e, mismatch);
	r->emu_swaps = EMU_NS(e, swaps);
	r->emu_hole_returns = EMU_NS(e, hole_returns);
	r->emu_holes_max = EMU_NS(e, holes_max);
	r->emu_sw_hash = EMU_NS(e, sw_hash);
	r->emu_port_hash = EMU_NS(e, port_hash);
	r->emu_steer_fixups = EMU_NS(e, steer_fixups);
	r->emu_ws_max = RTE_MAX(EMU_NS(e, ws_max), EMU_NS(e, ws_distinct));
}

/* Buffer slots on both sides, the source's own counters, the pool's peak. */
static void fill_memory(struct emu *e, struct rxb_emu_result *r, const struct snap *b)
{
	r->dma_bytes = b->dma_bytes;
	for (uint32_t i = 0; i < e->n_src; i++)
		r->virt_slots += e->src[i].size;
	for (uint32_t q = 0; q < e->n_pq; q++)
		r->phys_slots += e->pq[q].cap;
	r->gen_late = EMU_GEN(e, late);
	r->gen_pipeline_drops = EMU_GEN(e, pipeline);
	emu_gen_offered_range(e, &r->gen_lcore_offered_min, &r->gen_lcore_offered_max);
	r->in_use_max = e->in_use_max;
}

/* shRing: how long a descriptor waited to be returned, over every ring. */
static void fill_desc_wait(const struct emu *e, struct rxb_emu_result *r)
{
	struct rxb_shring *sh = e->iface != NULL ? rxb_iface_shring(e->iface) : NULL;
	uint64_t ret = 0, sum = 0, mx = 0;

	if (sh == NULL)
		return;
	for (uint32_t g = 0; g < rxb_shring_n_rings(sh); g++) {
		struct rxb_shring_wait ws;

		rxb_shring_wait_stats(sh, g, &ws);
		ret += ws.returned;
		sum += ws.wait_sum;
		mx = RTE_MAX(mx, ws.wait_max);
	}
	r->desc_wait_us_mean = ret ? (double)sum / (double)ret * 1e6 / (double)e->hz : 0;
	r->desc_wait_us_max = (double)mx * 1e6 / (double)e->hz;
	r->has_desc_wait = true;
}

/* Dynamic shRing: the switches the NIC made and those the controller
 * confirmed, which it does only once every core has moved (a stalled core
 * delays that). */
static void fill_dyn(const struct emu *e, struct rxb_emu_result *r)
{
	const struct rxb_dynctl *dc = e->iface != NULL ? rxb_iface_dynctl(e->iface) : NULL;

	if (dc == NULL)
		return;
	r->mode_switches = EMU_NS(e, mode_switches);
	r->mode_switches_confirmed = rxb_counter_read(&dc->stats.switched_to_shared) +
				     rxb_counter_read(&dc->stats.switched_to_private);
	snprintf(r->dyn_mode_end, sizeof(r->dyn_mode_end), "%s",
		 rxb_dyn_mode_name[rxb_iface_dyn_mode(e->iface)]);
}

/* The result past the checks: a..b is the measured window. */
static void fill_result(struct emu *e, struct rxb_emu_result *r, const struct snap *a,
			const struct snap *b)
{
	fill_rates(e, r, a, b);
	fill_workers(e, r);
	fill_rings(e, r);
	fill_latency(e, r);
	fill_emulator(e, r);
	fill_memory(e, r, b);
	fill_desc_wait(e, r);
	fill_dyn(e, r);
}

/* ------------------------------------------------------------ the run */

static void teardown(struct emu *e)
{
	emu_ports_close(e);
	for (uint32_t w = 0; e->w != NULL && w < e->cores; w++)
		rxb_nf_destroy(e->w[w].nf);
	rxb_iface_destroy(e->iface);
	for (uint32_t q = 0; e->pq != NULL && q < e->n_pq; q++)
		emu_pq_destroy(&e->pq[q]);
	for (uint32_t i = 0; e->src != NULL && i < e->n_src; i++)
		rte_free(e->src[i].exp);
	emu_gen_destroy(e);
	if (e->lpm != NULL)
		rte_lpm_free(e->lpm);
	rte_free(e->counters);
	rte_free(e->lb_loads);
	rte_mempool_free(e->wpool);
	rxb_reta_free(&e->reta);
	rte_free(e->w);
	rte_free(e->allocs);
	rte_free(e->src);
	rte_free(e->pq);
	rte_free(e->pq_of_dest);
	rte_free(e->nic);
	rte_free(e->qposted);
	rte_free(e->d);
	rte_free(e);
}

static int launch(struct emu *e, struct rxb_err *err)
{
	unsigned lcore, k = 0, need = rxb_emu_lcores_needed(e->cfg);

	RTE_LCORE_FOREACH_WORKER(lcore)
	{
		int rc;

		if (k >= need)
			break;
		if (k < e->cores) {
			e->w[k].lcore = lcore;
			rc = rte_eal_remote_launch(emu_worker_main, &e->w[k], lcore);
		} else if (k < e->cores + e->n_nic) {
			rc = rte_eal_remote_launch(emu_nic_main, &e->nic[k - e->cores], lcore);
		} else {
			rc = rte_eal_remote_launch(emu_gen_main, &e->gen[k - e->cores - e->n_nic],
						   lcore);
		}
		if (rc != 0) {
			rxb_err_set(err, "lcore %u is busy: cannot launch", lcore);
			return -EBUSY;
		}
		k++;
	}
	return 0;
}

static bool all_done(struct emu *e)
{
	/* acquire: pairs with the releases at the end of emu_worker_main() and
	 * (in emu_nics_done) emu_nic_main(); each lcore's final counters are
	 * visible. */
	for (uint32_t w = 0; w < e->cores; w++)
		if (!atomic_load_explicit(&e->w[w].done, memory_order_acquire))
			return false;
	return emu_nics_done(e);
}

static void progress(struct emu *e, uint64_t now)
{
	double f = (double)(now - e->t_start) / (double)(e->t_stop - e->t_start);

	if (e->cfg->scn.emu.packets != 0)
		f = RTE_MAX(f, (double)src_offered(e, NULL) / (double)e->cfg->scn.emu.packets);
	fprintf(stderr, "progress %.3f\n", RTE_MIN(f, 1.0));
	fflush(stderr);
}

/* The control lcore's periodic duties: when each is next due, and the
 * snapshots the rate-based ones difference against. */
struct ctl_clock {
	bool dyn; /* the interface has a dynamic controller to sample for */
	uint64_t occ_every, tel_every, dyn_every, ws_every, prog_every;
	uint64_t next_occ, next_tel, next_dyn, next_ws, next_prog;
	struct snap dyn_prev, tel_prev;
};

static void ctl_clock_init(struct emu *e, struct ctl_clock *k)
{
	const struct rxb_emu_cfg *c = e->cfg;

	k->dyn = e->iface != NULL && rxb_iface_dynctl(e->iface) != NULL;
	k->occ_every = e->hz / 1000;
	k->tel_every = e->hz / 10;
	k->dyn_every = emu_ns_to_cyc(e, c->scn.arch.dyn_sample_ms * 1e6);
	k->ws_every = emu_ns_to_cyc(e, c->scn.run.sample_ms * 1e6);
	k->prog_every = e->hz / 4;
	k->next_occ = e->t_start;
	k->next_tel = e->t_start + k->tel_every;
	k->next_dyn = e->t_start + k->dyn_every;
	k->next_ws = e->t_start + k->ws_every;
	k->next_prog = e->t_start + k->prog_every;
	take_snap(e, &k->dyn_prev);
	k->tel_prev = k->dyn_prev;
}

/* Telemetry's recent rates: the dispatch rate and the NIC lcores' idle
 * share since the previous sample. */
static void publish_telemetry(struct emu *e, struct snap *prev)
{
	struct snap now;
	double dt;

	take_snap(e, &now);
	dt = (double)(now.t - prev->t) / (double)e->hz;
	/* relaxed: standalone numbers (struct emu) */
	atomic_store_explicit(&e->tel_mpps_milli,
			      (uint64_t)((double)(now.dispatched - prev->dispatched) / dt / 1e3),
			      memory_order_relaxed);
	if (now.busy + now.idle > prev->busy + prev->idle)
		atomic_store_explicit(&e->tel_idle_permille,
				      (now.idle - prev->idle) * 1000 /
					      ((now.busy + now.idle) - (prev->busy + prev->idle)),
				      memory_order_relaxed);
	*prev = now;
}

/* Native pcap source: the workers poll the trace queues themselves, so the
 * source is done when every queue reached its end. */
static void note_trace_end(struct emu *e)
{
	for (uint32_t q = 0; q < e->n_pq; q++)
		if (!atomic_load_explicit(&e->pq[q].eof, memory_order_relaxed))
			return;
	/* relaxed: the workers read it after the drain flag */
	atomic_store_explicit(&e->src_done, 1, memory_order_relaxed);
}

/* Every duty due at `now`. */
static void ctl_duties(struct emu *e, struct ctl_clock *k, uint64_t now)
{
	const struct rxb_emu_cfg *c = e->cfg;

	if (now >= k->next_occ) {
		sample_occupancy(e);
		k->next_occ = now + k->occ_every;
	}
	if (now >= k->next_ws) {
		/* relaxed: E only starts counting a new window */
		atomic_fetch_add_explicit(&e->ws_epoch, 1, memory_order_relaxed);
		k->next_ws = now + k->ws_every;
	}
	if (k->dyn && now >= k->next_dyn) {
		struct snap s;

		take_snap(e, &s);
		dyn_sample(e, &k->dyn_prev, &s);
		k->dyn_prev = s;
		k->next_dyn = now + k->dyn_every;
	}
	if (now >= k->next_tel) {
		publish_telemetry(e, &k->tel_prev);
		k->next_tel = now + k->tel_every;
	}
	if (c->scn.emu.progress && now >= k->next_prog) {
		progress(e, now);
		k->next_prog = now + k->prog_every;
	}
	if (!c->scn.arch.emulated && c->scn.emu.source == RXB_EMU_SOURCE_PCAP)
		note_trace_end(e);
}

/* The end of the warm-up: the measured window starts at *warm. */
static void end_warmup(struct emu *e, struct snap *warm)
{
	take_snap(e, warm);
	/* relaxed: the workers only reset their latency histograms */
	atomic_fetch_add_explicit(&e->warm, 1, memory_order_relaxed);
}

/* The run's clock on the control lcore: periodic duties until the
 * duration, the source's end or an abort; the measured window is
 * [*warm, *stop] (empty when the run ended within its warm-up). */
static void control_loop(struct emu *e, struct snap *warm, struct snap *stop)
{
	struct ctl_clock k;
	bool warmed = false;

	ctl_clock_init(e, &k);
	*warm = k.dyn_prev;
	for (;;) {
		uint64_t now = rte_rdtsc();

		if (!warmed && now >= e->t_warm) {
			end_warmup(e, warm);
			warmed = true;
		}
		ctl_duties(e, &k, now);
		/* relaxed: these only end the loop; what the source handed over
		 * is acquired in the drain (stop_and_drain()) */
		if (now >= e->t_stop || atomic_load_explicit(&e->src_done, memory_order_relaxed) ||
		    atomic_load_explicit(&e->quit, memory_order_relaxed))
			break;
		usleep(200);
	}
	take_snap(e, stop);
	if (!warmed)
		*warm = *stop;
}

/* What a run needs before any state: a valid configuration, enough
 * lcores and the mempool driver. */
static int run_prerequisites(struct rxb_emu_cfg *c, struct rxb_err *err)
{
	int rc = rxb_emu_cfg_check(c, err);

	if (rc != 0)
		return rc;
	if (rte_lcore_count() - 1 < rxb_emu_lcores_needed(c)) {
		rxb_err_set(err,
			    "the EAL has %u lcores besides the main one, the run needs %u "
			    "(%u workers + %u NIC lcores + %u generator lcores): give more "
			    "with --lcores in --eal",
			    rte_lcore_count() - 1, rxb_emu_lcores_needed(c), c->scn.system.cores,
			    c->scn.arch.emulated ? c->scn.emu.nic_lcores : 0,
			    c->scn.emu.source == RXB_EMU_SOURCE_GEN ? c->scn.emu.gen_lcores : 0);
		return -EINVAL;
	}
	if (emu_virt_register() != 0)
		return rxb_err_fail(err, -ENOSPC, "cannot register the rxb_virt mempool driver: %s",
				    rte_strerror(rte_errno));
	return 0;
}

/* Without resctrl's memory bandwidth monitoring, say what the dynamic
 * shRing controller gets instead. */
static void probe_mbm(struct emu *e)
{
	uint64_t mbm;

	e->has_mbm = mbm_read(&mbm) == 0;
	if (!e->has_mbm && e->cfg->scn.arch.name == RXB_ARCH_DYN_SHRING)
		fprintf(stderr, "note: no resctrl memory bandwidth monitoring on this machine: "
				"the dynamic shRing controller gets the DMA write rate as its "
				"memory bandwidth input\n");
}

/* The run's state with what the configuration and the design's shape
 * decide, nothing built yet. */
static int emu_new(struct rxb_emu_cfg *c, struct emu **out, struct rxb_err *err)
{
	static uint32_t run_counter;
	struct emu *e = rte_zmalloc("rxb_emu", sizeof(*e), RTE_CACHE_LINE_SIZE);
	int rc;

	if (e == NULL)
		return rxb_err_fail(err, -ENOMEM, "out of memory: the emulator's state (%zu bytes)",
				    sizeof(*e));
	e->cfg = c;
	rc = rxb_scn_shape(&c->scn, &e->shape, err);
	if (rc != 0) {
		rte_free(e);
		return rc;
	}
	e->run_id = ++run_counter;
	e->hz = rte_get_tsc_hz();
	e->cores = c->scn.system.cores;
	e->n_dest = e->shape.n_dests;
	/* The cores one NIC's RETA spreads over; spool's destinations are
	 * ports, and one NIC spreads over all of them. */
	e->cpn = c->scn.arch.name == RXB_ARCH_SPOOL ? c->scn.arch.spool_ports
						    : c->scn.system.cores / c->scn.system.nics;
	e->share = c->scn.arch.share_degree;
	e->dmax = c->scn.arch.name == RXB_ARCH_RXBISECT ? RXB_DROP_NO_AX_BUF : RXB_DROP_NO_RX_DESC;
	e->kv_steer = c->scn.workload.nf == RXB_NF_KIND_KVS;
	e->port_rss = c->scn.emu.rss == RXB_EMU_RSS_PORT && !e->kv_steer;
	e->stamp_arr = c->scn.emu.source != RXB_EMU_SOURCE_GEN;
	e->dest_size = e->shape.rx_capacity;
	e->applied_mode = RXB_DYN_PRIVATE;
	probe_mbm(e);
	for (uint32_t i = 0; i < RXB_EMU_MAX_WORKERS; i++)
		rte_spinlock_init(&e->out_lock[i]);
	*out = e;
	return 0;
}

/* Steering, the queues, pools, workers, the interface, the source and the
 * ports, in the order each needs the ones before. */
static int build(struct emu *e, struct rxb_err *err)
{
	const struct rxb_emu_cfg *c = e->cfg;
	int rc;

	e->d = rte_zmalloc("rxb_dstats", sizeof(*e->d) * e->n_dest, RTE_CACHE_LINE_SIZE);
	if (e->d == NULL)
		return rxb_err_fail(err, -ENOMEM,
				    "out of memory: per-destination counters (%zu bytes)",
				    sizeof(*e->d) * e->n_dest);
	rc = rxb_rss_init(&e->rss, rxb_rss_default_key, RXB_RSS_KEY_LEN, err);
	if (rc == 0)
		rc = rxb_reta_init(&e->reta, RXB_RETA_MLX5_SIZE, e->cpn, err);
	if (rc != 0)
		return rc;
	rc = build_queues(e);
	if (rc == 0)
		rc = make_nics(e);
	if (rc != 0)
		return rxb_err_fail(err, rc, "out of memory: the physical queues' descriptors");
	rc = map_dests(e, err);
	if (rc != 0)
		return rc;
	rc = make_pools(e, err);
	if (rc == 0)
		rc = create_queues(e, err);
	if (rc == 0 && c->scn.emu.source == RXB_EMU_SOURCE_NULL)
		rc = prefill(e, err);
	/* the generator before the workers: their LB tables are sized from
	 * the flows it steers to each */
	if (rc == 0 && c->scn.emu.source == RXB_EMU_SOURCE_GEN)
		rc = emu_gen_setup(e, err);
	if (rc == 0)
		rc = make_workers(e, err);
	if (rc == 0 && c->scn.arch.emulated)
		rc = make_iface(e, err);
	if (rc == 0)
		rc = emu_ports_setup(e, err);
	return rc;
}

/* The run's times, and the stalled cores' stall windows. */
static void set_clock(struct emu *e)
{
	const struct rxb_scn_system *sy = &e->cfg->scn.system;

	e->t_start = rte_rdtsc();
	e->t_warm = e->t_start + emu_ns_to_cyc(e, e->cfg->scn.run.warmup_ms * 1e6);
	e->t_stop = e->t_start + emu_ns_to_cyc(e, e->cfg->scn.run.duration_ms * 1e6);
	for (uint32_t w = 0; w < e->cores; w++) {
		struct emu_worker *wk = &e->w[w];

		if (!rxb_scn_list_has(&sy->stalled_cores, w))
			continue;
		wk->stall_from = e->t_start + emu_ns_to_cyc(e, sy->stall_at_ms * 1e6) + 1;
		wk->stall_to = sy->stall_for_ms > 0
				       ? wk->stall_from + emu_ns_to_cyc(e, sy->stall_for_ms * 1e6)
				       : 0;
	}
}

/* The workers learn their flows (emu.learn_flows); fill the physical
 * queues (they start full, as a driver's do), start the ports, the clock
 * and the lcores. */
static int start(struct emu *e, struct rxb_err *err)
{
	int rc = emu_learn_flows(e, err);

	if (rc != 0)
		return rc;
	for (uint32_t q = 0; e->cfg->scn.arch.emulated && q < e->n_pq; q++)
		while (emu_refill(e, &e->pq[q]) != 0)
			;
	rc = emu_ports_start(e, err);
	if (rc != 0)
		return rc;
	set_clock(e);
	if (e->cfg->scn.emu.telemetry)
		emu_telemetry_attach(e);
	rc = launch(e, err);
	if (rc != 0) {
		/* relaxed: an abort hands nothing over; the wait collects the lcores */
		atomic_store_explicit(&e->quit, 1, memory_order_relaxed);
		rte_eal_mp_wait_lcore();
		emu_telemetry_detach();
	}
	return rc;
}

void emu_abort(struct emu *e, int rc, const char *fmt, ...)
{
	va_list ap;

	/* relaxed: the exchange only elects the writer of abort_msg */
	if (atomic_exchange_explicit(&e->abort_claimed, 1, memory_order_relaxed) == 0) {
		va_start(ap, fmt);
		vsnprintf(e->abort_msg, sizeof(e->abort_msg), fmt, ap);
		va_end(ap);
		/* release: pairs with the acquire in rxb_emu_run(); the
		 * message is written before the error is seen */
		atomic_store_explicit(&e->abort_rc, rc, memory_order_release);
	}
	/* relaxed: an abort; it hands nothing over */
	atomic_store_explicit(&e->quit, 1, memory_order_relaxed);
}

/* Stop the source, let the emulator empty the physical side, then the
 * workers their rings, within emu.drain_ms; collect the lcores. */
static void stop_and_drain(struct emu *e)
{
	const struct rxb_emu_cfg *c = e->cfg;
	uint64_t deadline;

	/* relaxed: a request to stop, carrying no data */
	atomic_store_explicit(&e->gen_stop, 1, memory_order_relaxed);
	deadline = rte_rdtsc() + emu_ns_to_cyc(e, c->scn.emu.drain_ms * 1e6);
	/* acquire: pairs with the release at the end of emu_gen_main(); its
	 * last enqueues happen before the releases of emu_stop and drain
	 * below, so the emulator and the workers see them too. */
	if (c->scn.emu.source == RXB_EMU_SOURCE_GEN)
		while (!atomic_load_explicit(&e->src_done, memory_order_acquire) &&
		       rte_rdtsc() < deadline)
			usleep(100);
	/* relaxed: the workers read it only after the drain flag below */
	atomic_store_explicit(&e->src_done, 1, memory_order_relaxed);
	/* release: pairs with the acquire in emu_nic_main(); the source has
	 * stopped and its last packets are visible, so an empty wire ring
	 * stays empty. */
	atomic_store_explicit(&e->emu_stop, 1, memory_order_release);
	/* release: pairs with the acquire in emu_worker_main(); a worker that
	 * sees the drain sees src_done set and the source's last packets. */
	atomic_store_explicit(&e->drain, 1, memory_order_release);
	while (!all_done(e)) {
		if (rte_rdtsc() > deadline) {
			fprintf(stderr,
				"warning: the rings did not drain within emu.drain_ms = %g ms; "
				"stopping (packets left in flight are reported)\n",
				c->scn.emu.drain_ms);
			/* relaxed: an abort; rte_eal_mp_wait_lcore() collects the lcores */
			atomic_store_explicit(&e->quit, 1, memory_order_relaxed);
			break;
		}
		usleep(200);
	}
	rte_eal_mp_wait_lcore();
	if (c->scn.emu.telemetry)
		emu_telemetry_detach();
}

/* The checks, then the result; the output ring's owner is told the run
 * is over. */
static void gather(struct emu *e, struct rxb_emu_result *res, const struct snap *warm,
		   const struct snap *stop)
{
	const struct rxb_emu_cfg *c = e->cfg;

	check_packets(e, res);
	emu_ports_stop(e); /* a hardware PMD gives its descriptors' buffers back */
	check_buffers(e, res);
	fill_result(e, res, warm, stop);
	if (c->out == RXB_EMU_OUT_RING && c->out_done != NULL)
		c->out_done(c->out_ring, c->out_arg);
}

int rxb_emu_run(struct rxb_emu_cfg *c, struct rxb_emu_result *res, struct rxb_err *err)
{
	uint64_t t0 = rte_get_timer_cycles();
	struct emu *e = NULL;
	struct snap warm, stop;
	int rc;

	memset(res, 0, sizeof(*res));
	rc = run_prerequisites(c, err);
	if (rc != 0)
		return rc;
	rc = emu_new(c, &e, err);
	if (rc != 0)
		return rc;
	rc = build(e, err);
	if (rc == 0)
		rc = start(e, err);
	if (rc != 0) {
		teardown(e);
		return rc < 0 ? rc : -EINVAL;
	}
	control_loop(e, &warm, &stop);
	stop_and_drain(e);
	gather(e, res, &warm, &stop);
	res->wall_s = (double)(rte_get_timer_cycles() - t0) / (double)rte_get_timer_hz();
	/* acquire: pairs with the release in emu_abort() */
	rc = atomic_load_explicit(&e->abort_rc, memory_order_acquire);
	if (rc != 0)
		rxb_err_fail(err, rc, "%s", e->abort_msg);
	teardown(e);
	return rc;
}
