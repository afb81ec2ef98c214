/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The simulator core's frame: it builds everything from the config
 * (sim_init), runs the event loop and hands each event to the file of its
 * mechanism (sim_run; engine.h lists them), keeps the event clock, and
 * frees everything. docs/simulator.md has every mechanism and parameter.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc.h"
#include "core.h"
#include "engine_int.h"
#include "hog.h"
#include "rxb/shape.h"
#include "measure.h"
#include "nic.h"
#include "rxb/shring.h"
#include "tx.h"

/* The scenario rule "LLC sampling leaves sets" counts the LLC model's groups. */
_Static_assert(SIM_LLC_CHUNK_LINES == RXB_SCN_LLC_GROUP_SETS, "LLC sampling group size");

#define HORIZON_PS    (1000ull * PS_PER_NS)  /* core may run 1 µs ahead of the event clock */
#define OCC_PERIOD_PS (10000ull * PS_PER_NS) /* ring occupancy sampled every 10 µs */

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The LLC's rates for unsampled sets follow the last 2^7 sampled accesses
 * of a class and op (llc.h): a quarter of a millisecond of a busy class at
 * the reference. The library's default 2^10 lags a run's transients (a
 * cold start's first milliseconds) by ~2 ms, long enough to tip a design
 * at the edge of its two steady states (docs/simulator.md §6) into the
 * loaded one where full simulation (run.llc_sample_shift = 0) does not:
 * privRing lb at 1170 cycles ran at 166 Gbps sampled and 200 exact; with
 * 2^7 both run at 200, and both tip between 1170 and 1210 cycles. */
#define RATE_WINDOW_SHIFT 7u

static uint64_t cyc_ps(const struct sim_cfg *c, double cycles)
{
	return (uint64_t)llround(cycles * 1000.0 / c->freq_ghz);
}

/* ------------------------------------------------------------- setup */

/* The LLC and, in front of a non-inclusive one, the private L2s: Skylake-SP (l2.h), one
 * L2 per core and per hog (a co-located application has its cores: its misses fill its L2
 * and reach the LLC as L2 victims). */
static int setup_caches(struct sim *s, struct rxb_err *err)
{
	const struct sim_cfg *cfg = s->cfg;
	struct sim_l2_cfg l2c = {
		.size_bytes = (uint64_t)cfg->l2_kib << 10,
		.ways = cfg->l2_ways,
		.caches = s->ncores +
			  (cfg->scn.system.hog == RXB_HOG_NONE ? 0 : cfg->scn.system.hog_instances),
		.sample_shift = cfg->scn.run.llc_sample_shift,
	};
	struct sim_llc_cfg lc;
	int rc;

	sim_llc_cfg_reference(&lc);
	lc.size_bytes = (uint64_t)llround(cfg->llc_mib * (double)(1u << 20));
	lc.ways = cfg->llc_ways;
	lc.sample_shift = cfg->scn.run.llc_sample_shift;
	lc.rate_window_shift = RATE_WINDOW_SHIFT;
	lc.seed = sim_mix64(cfg->scn.run.seed ^ 0x11c);
	rc = sim_llc_init(&s->mem.llc, &lc, err);
	if (rc || cfg->llc_inclusive)
		return rc;
	rc = sim_l2_init(&s->mem.l2, &l2c, err);
	if (rc)
		return rc;
	sim_llc_attach_l2(&s->mem.llc, &s->mem.l2);
	return 0;
}

/* One LLC class (who fills a line, into which ways); its id into *cls. */
static int add_class(struct sim *s, unsigned *cls, const char *name, uint32_t mask, int io,
		     struct rxb_err *err)
{
	int rc = sim_llc_add_class(&s->mem.llc, name, mask, io, err);

	if (rc < 0)
		return rc;
	*cls = (unsigned)rc;
	return 0;
}

/* The NICs' writes, through DDIO's ways: a class per NIC for the first four, the
 * others share theirs. */
static int add_nic_classes(struct sim *s, uint32_t ddio, struct rxb_err *err)
{
	char name[24];
	int rc;

	for (uint32_t n = 0; n < s->cfg->scn.system.nics; n++) {
		if (n >= 4) {
			s->nic[n].cls_wr = s->nic[n % 4].cls_wr;
			continue;
		}
		snprintf(name, sizeof(name), "nic%u", n);
		rc = add_class(s, &s->nic[n].cls_wr, name, ddio, 1, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* The rings, mbufs and NF state, in the order their ids have always had. nf_main may
 * be confined to CAT's ways (cat: 0 when there is no CAT). */
static int add_shared_classes(struct sim *s, uint32_t ddio, uint32_t cat, struct rxb_err *err)
{
	const uint32_t cpu = s->mask_cpu;
	const struct {
		unsigned *cls;
		const char *name;
		uint32_t mask;
		int io;
	} classes[] = {
		{ &s->cls_cq, "cqe", ddio, 1 },
		{ &s->cls_tx, "tx", ddio, 1 },
		{ &s->cls_hog, "hog", cpu, 0 },
		{ &s->cls_sq, "sq", cpu, 0 },
		{ &s->cls_cqrd, "cqe_read", cpu, 0 },
		{ &s->cls_mbrx, "mbuf_rx", cpu, 0 },
		{ &s->cls_mbal, "mbuf_alloc", cpu, 0 },
		{ &s->nf.cls_main, "nf_main", cat ? cat : cpu, 0 },
		{ &s->nf.cls_aux, "nf_aux", cpu, 0 },
		{ &s->nf.cls_key, "nf_key", cpu, 0 },
		{ &s->nf.cls_annot, "mbuf_annot", cpu, 0 },
		{ &s->nf.cls_pool, "nf_pool", cpu, 0 },
		{ &s->nf.cls_tgt, "nf_target", cpu, 0 },
	};
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < sizeof(classes) / sizeof(classes[0]); i++)
		rc = add_class(s, classes[i].cls, classes[i].name, classes[i].mask, classes[i].io,
			       err);
	return rc;
}

/* A class per core for its packets while classes last; further cores share them. */
static int add_packet_classes(struct sim *s, struct rxb_err *err)
{
	char name[24];
	int rc;

	s->ncls_pkt = SIM_LLC_MAX_CLASSES - s->mem.llc.nclasses;
	if (s->ncls_pkt > s->ncores)
		s->ncls_pkt = s->ncores;
	for (uint32_t c = 0; c < s->ncores; c++) {
		if (c >= s->ncls_pkt) {
			s->core[c].cls_pkt = s->core[c % s->ncls_pkt].cls_pkt;
			continue;
		}
		snprintf(name, sizeof(name), "pkt%u", c);
		rc = add_class(s, &s->core[c].cls_pkt, name, s->mask_cpu, 0, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* The caches, then the way masks (all ways; DDIO's top ways; CAT's bottom ways, taken
 * from the CPU classes) and the classes that use them. */
static int setup_llc(struct sim *s, struct rxb_err *err)
{
	const struct sim_cfg *cfg = s->cfg;
	const uint32_t ddio_ways = cfg->scn.system.ddio_ways, cat_ways = cfg->scn.system.cat_ways;
	uint32_t all = sim_llc_ways(0, cfg->llc_ways), ddio, cat;
	int rc = setup_caches(s, err);

	if (rc)
		return rc;
	ddio = ddio_ways ? sim_llc_ways(cfg->llc_ways - ddio_ways, ddio_ways) : all;
	cat = cat_ways ? sim_llc_ways(0, cat_ways) : 0;
	s->mask_cpu = all & ~cat;
	rc = add_nic_classes(s, ddio, err);
	if (rc == 0)
		rc = add_shared_classes(s, ddio, cat, err);
	if (rc == 0)
		rc = add_packet_classes(s, err);
	return rc;
}

static int setup_iface(struct sim *s, struct rxb_err *err)
{
	const struct sim_cfg *cfg = s->cfg;
	struct rxb_pool_config pc = {
		.n_bufs = cfg->scn.arch.pool_buffers,
		.n_cores = cfg->scn.system.cores,
		.cache_size = cfg->scn.arch.alloc_cache,
		.flush_factor_pct = 150,
		.buf_size = cfg->scn.arch.buffer_bytes,
	};
	struct rxb_iface_config ic;
	struct rxb_iface_shape shape;

	s->pool = rxb_pool_create(&pc, err);
	if (s->pool == NULL)
		return err->code;
	alloc_setup(s);
	rxb_scn_iface_config(&cfg->scn, cfg->desc_prefetch, (double)PS_PER_NS, &ic);
	s->ifc = rxb_iface_create(&ic, s->allocs, err);
	if (s->ifc == NULL || rxb_iface_shape(&ic, &shape, err) != 0)
		return err->code;
	s->arch = cfg->scn.arch.name;
	s->ndests = shape.n_dests;
	s->nrings = shape.n_cores; /* a completion ring per poller */
	s->cq_entries = shape.rx_capacity;
	if (rxb_iface_shring(s->ifc))
		s->nsh = rxb_shring_n_rings(rxb_iface_shring(s->ifc));
	return 0;
}

/* The application loads its critical structure into the ways CAT reserved
 * for it before traffic starts (the reservation API of docs/evaluation.md §4 prefetches it): as many
 * of its lines as those ways hold, shared fairly among its regions. */
static void cat_prefetch(struct sim *s)
{
	const struct sim_cfg *cfg = s->cfg;
	uint64_t cap = (uint64_t)(cfg->llc_mib * (double)(1u << 20) / SIM_LLC_LINE *
				  cfg->scn.system.cat_ways / cfg->llc_ways);
	uint64_t base, stride, lines;
	uint32_t n;

	nf_critical(&s->nf, s->ncores, &base, &stride, &lines, &n);
	if (lines > cap / n)
		lines = cap / n;
	for (uint32_t r = 0; r < n; r++)
		for (uint64_t i = 0; i < lines; i++)
			sim_llc_access(&s->mem.llc, s->nf.cls_main, SIM_LLC_RD,
				       base + r * stride + i * SIM_LLC_LINE);
	/* its misses filled the ways; the rates drawn for unsampled sets are
	 * to be learned from the NF's own accesses */
	sim_llc_forget_class(&s->mem.llc, s->nf.cls_main);
}

/* The time base: run length, warm-up, sampling, the horizon. */
static void setup_time(struct sim *s)
{
	const struct sim_cfg *cfg = s->cfg;

	s->end_ps = (uint64_t)llround(cfg->scn.run.duration_ms * PS_PER_MS);
	s->warm_ps = (uint64_t)llround(cfg->scn.run.warmup_ms * PS_PER_MS);
	s->sample_ps = (uint64_t)llround(cfg->scn.run.sample_ms * PS_PER_MS);
	s->occ_ps = s->sample_ps < OCC_PERIOD_PS ? s->sample_ps : OCC_PERIOD_PS;
	s->mem.horizon_ps = HORIZON_PS;
	s->mem.mlp = cfg->scn.system.mlp;
	if (s->sample_ps == 0)
		s->sample_ps = 1;
}

/* Costs in ps: calibration cycles / cpu.freq_ghz, profile latencies. */
static void setup_costs(struct sim *s)
{
	const struct sim_cfg *cfg = s->cfg;

	s->c.rx_call = cyc_ps(cfg, cfg->cal.cycles.rx_per_call);
	s->c.rx_pkt = cyc_ps(cfg, cfg->cal.cycles.rx_per_pkt[cfg->scn.arch.name]);
	s->c.empty_poll = cyc_ps(cfg, cfg->cal.cycles.empty_poll);
	s->c.doorbell = cyc_ps(cfg, cfg->cal.cycles.doorbell);
	s->c.alloc_obj = cyc_ps(cfg, cfg->cal.cycles.alloc_per_obj);
	s->c.alloc_bulk = cyc_ps(cfg, cfg->cal.cycles.alloc_bulk);
	s->c.alloc_shobj = cyc_ps(cfg, cfg->cal.cycles.alloc_per_obj_shared);
	s->c.lock = cyc_ps(cfg, cfg->cal.cycles.lock);
	s->c.bitmap_or = cyc_ps(cfg, cfg->cal.cycles.bitmap_or);
	s->c.ret_desc = cyc_ps(cfg, cfg->cal.cycles.return_per_desc);
	s->c.tx_pkt = cyc_ps(cfg, cfg->cal.cycles.tx_per_pkt);
	s->c.emu_pkt = cyc_ps(cfg, cfg->cal.cycles.emu_per_pkt[cfg->scn.arch.name]);
	s->c.emu_batch = cyc_ps(cfg, cfg->cal.cycles.emu_per_batch);
	s->mem.llc_hit = cyc_ps(cfg, cfg->llc_latency_cycles);
	/* a line another core modified (a lock, a bitmap; and a line in
	 * another core's L2, llc.h): via the snoop filter */
	s->c.xfer = s->mem.llc_hit;
	s->mem.l2_hit = cyc_ps(cfg, cfg->l2_latency_cycles);
	s->c.dma_write = (uint64_t)llround(cfg->dma_write_ns * PS_PER_NS);
	s->c.xsocket = (uint64_t)llround(cfg->xsocket_ns * PS_PER_NS);
	s->c.nf_compute = cyc_ps(cfg, cfg->scn.workload.nf_cycles); /* the cost profile's */
	s->c.compute_extra = (uint64_t)llround(cfg->scn.workload.compute_ns * PS_PER_NS);
	s->c.slow_extra = (uint64_t)llround(cfg->scn.system.slow_extra_ns * PS_PER_NS);
	s->c.rd_base = (uint64_t)llround(cfg->dma_read_ns * PS_PER_NS);
	s->c.rd_per_byte = cfg->dma_read_ns_per_byte * PS_PER_NS;
	s->c.service_sigma = sqrt(log1p(cfg->scn.system.service_cv * cfg->scn.system.service_cv));
	s->c.tick = (uint64_t)llround(cfg->scn.system.tick_us * 1e6);
	s->c.tick_period = cfg->scn.system.tick_hz > 0
				   ? (uint64_t)llround(1e12 / cfg->scn.system.tick_hz)
				   : UINT64_MAX;
	s->c.pause = (uint64_t)llround(cfg->scn.system.pause_us * 1e6);
	s->c.pause_gap = cfg->scn.system.pause_hz > 0 ? 1e12 / cfg->scn.system.pause_hz : 0;
	s->c.pcie_ps_per_byte = 8000.0 / cfg->pcie_gbps;
	s->nicbuf_bytes = (uint64_t)(cfg->nic_buffer_kib * 1024.0);
	s->tlp_memo_len = UINT32_MAX;
	s->up_memo = UINT64_MAX;
}

/* The event queue: one slot per event source, each knowing its type and
 * argument. */
static int setup_slots(struct sim *s, struct rxb_err *err)
{
	static const uint8_t types[] = { EV_ARRIVAL, EV_TRACE, EV_CORE,   EV_TXREAD,
					 EV_EMUCORE, EV_HOG,   EV_OCC,    EV_SAMPLE,
					 EV_DYN,     EV_TICK,  EV_WARMUP, EV_END };
	const struct sim_cfg *cfg = s->cfg;
	uint32_t nslots = 0;
	int rc;

	for (unsigned i = 0; i < sizeof(types); i++) {
		uint32_t n = types[i] == EV_ARRIVAL || types[i] == EV_TRACE ? cfg->scn.system.nics
			     : types[i] == EV_CORE || types[i] == EV_TXREAD ? s->ncores
			     : types[i] == EV_HOG ? cfg->scn.system.hog_instances
						  : 1;

		s->slot_base[types[i]] = nslots;
		nslots += n;
	}
	rc = sim_evq_init(&s->evq, nslots, err);
	if (rc)
		return rc;
	s->slot_type = sim_xcalloc(nslots, sizeof(*s->slot_type));
	s->slot_arg = sim_xcalloc(nslots, sizeof(*s->slot_arg));
	for (unsigned i = 0; i < sizeof(types); i++) {
		uint32_t b = s->slot_base[types[i]];
		uint32_t e = i + 1 < sizeof(types) ? s->slot_base[types[i + 1]] : nslots;

		for (uint32_t j = b; j < e; j++) {
			s->slot_type[j] = types[i];
			s->slot_arg[j] = j - b;
		}
	}
	return 0;
}

static int setup_dram(struct sim *s, struct rxb_err *err)
{
	const struct sim_cfg *cfg = s->cfg;
	struct sim_dram_cfg dc;

	dc.channels = cfg->dram_channels;
	dc.dimm_mts = cfg->dram_dimm_mts;
	dc.cpu_max_mts = cfg->dram_cpu_max_mts;
	dc.bus_bytes = cfg->dram_bus_bytes;
	dc.efficiency = cfg->dram_efficiency;
	dc.idle_ns = cfg->dram_idle_ns;
	dc.service_ns = cfg->dram_service_ns;
	dc.rho_max = cfg->dram_rho_max;
	dc.write_penalty = cfg->dram_write_penalty;
	dc.window_ps = 1000ull * PS_PER_NS;
	dc.late_ps = s->mem.horizon_ps; /* shared resources see accesses within the horizon */
	return sim_dram_init(&s->mem.dram, &dc, err);
}

/* The address map, 2 MiB-aligned regions (hugepages) from 4 GiB: the pool,
 * the emulator's extra buffers, the completion rings, the send queues.
 * Returns where the next region (the NF's, the hogs') starts. */
static uint64_t setup_address_map(struct sim *s)
{
	const struct sim_cfg *cfg = s->cfg;
	uint64_t next, extra = 0;

	s->priv_bytes = nf_priv_bytes(cfg->scn.workload.nf);
	s->pool_base = 4ull << 30;
	next = align_up(s->pool_base + (uint64_t)cfg->scn.arch.pool_buffers * sim_buf_stride(s),
			HUGE_ALIGN);
	/* the working set's slots: a buffer's address over the stride from the
	 * pool's base, the emulator's extras past the alignment gap included */
	s->ws_slots = cfg->scn.arch.pool_buffers;
	if (cfg->scn.arch.emulated) {
		extra = emumodel_setup(s, next);
		s->ws_slots = (next - s->pool_base) / sim_buf_stride(s) + extra + 1;
		next = align_up(next + extra * sim_buf_stride(s), HUGE_ALIGN);
	}
	s->ws_bits = sim_xcalloc((s->ws_slots + 63) / 64, sizeof(uint64_t));
	s->cq_ring_bytes = align_up((uint64_t)s->cq_entries * cfg->cqe_bytes, 4096);
	s->cq_base = next;
	next = align_up(next + s->cq_ring_bytes * s->nrings, HUGE_ALIGN);
	s->pcq_base = next;
	next = align_up(next + s->cq_ring_bytes * (s->emu.npq + 1), HUGE_ALIGN);
	s->cq_w = sim_xcalloc(s->nrings + s->emu.npq, sizeof(*s->cq_w));
	s->cq_r = sim_xcalloc(s->nrings + s->emu.npq, sizeof(*s->cq_r));
	s->tlp_cqe = tlp_bytes(s, cfg->cqe_bytes);
	s->sq_base = next;
	next = align_up(
		next + (uint64_t)s->ncores *
				align_up((uint64_t)cfg->scn.arch.tx_size * SIM_WQE_BYTES, 4096),
		HUGE_ALIGN);
	return next;
}

/* The source a destination's first delivery takes from: its own ring where
 * it is one of its sources (privRing, rxBisect's linked Ax, dynamic
 * shRing's private set, where the run starts), else the one it has
 * (shRing's group ring, a spool port's queue). */
static uint32_t first_src(const struct sim *s, uint32_t dest)
{
	struct rxb_src_range r;

	if (rxb_iface_srcs_of(s->ifc, dest, RXB_DYN_PRIVATE, &r) != 0) {
		fprintf(stderr, "internal error: rxb_iface_srcs_of(dest %u) failed\n", dest);
		exit(1);
	}
	return dest - r.first < r.n ? dest : r.first;
}

/* The per-buffer packet state and the measurements' arrays. */
static void setup_measure(struct sim *s)
{
	const struct sim_cfg *cfg = s->cfg;

	s->pinfo = sim_xcalloc(cfg->scn.arch.pool_buffers, sizeof(*s->pinfo));
	s->dst = sim_xcalloc(s->ndests, sizeof(*s->dst));
	s->fetched_seen = sim_xcalloc(s->ndests, sizeof(*s->fetched_seen));
	for (uint32_t d = 0; d < s->ndests; d++)
		s->fetched_seen[d] = dest_fetched(s, d);
	s->nsrcs = rxb_iface_n_srcs(s->ifc);
	s->src_fetch = sim_xcalloc((size_t)cfg->scn.system.nics * s->nsrcs, sizeof(*s->src_fetch));
	s->last_src = sim_xcalloc(s->ndests, sizeof(*s->last_src));
	for (uint32_t d = 0; d < s->ndests; d++)
		s->last_src[d] = first_src(s, d);
	s->occ = sim_xcalloc(s->nrings, sizeof(*s->occ));
	if (s->nsh) {
		s->sh_w0 = sim_xcalloc(s->nsh, sizeof(*s->sh_w0));
		s->lock = sim_xcalloc(s->nsh, sizeof(*s->lock));
		s->bmp_last = sim_xcalloc(s->nsh, sizeof(*s->bmp_last));
		snapshot_desc_waits(s);
		for (uint32_t g = 0; g < s->nsh; g++)
			s->lock[g].last = s->bmp_last[g] = UINT32_MAX;
	}
	s->plock.last = UINT32_MAX;
	if (cfg->scn.arch.name == RXB_ARCH_DYN_SHRING)
		s->ival_scratch = sim_xcalloc(IVAL_SCRATCH, sizeof(uint64_t));
}

int sim_init(struct sim *s, struct sim_cfg *cfg, struct rxb_err *err)
{
	uint64_t next;
	int rc;

	memset(s, 0, sizeof(*s));
	s->cfg = cfg;
	s->ncores = cfg->scn.system.cores;
	s->packets_ok = s->buffers_ok = true;
	setup_time(s);
	setup_costs(s);
	s->nic = sim_xcalloc(cfg->scn.system.nics, sizeof(*s->nic));
	s->core = sim_xcalloc(s->ncores, sizeof(*s->core));
	rc = setup_slots(s, err);
	if (rc == 0)
		rc = setup_llc(s, err);
	if (rc == 0)
		rc = setup_dram(s, err);
	if (rc == 0)
		rc = rxb_rss_init(&s->rss, rxb_rss_default_key, RXB_RSS_KEY_LEN, err);
	if (rc == 0)
		rc = setup_iface(s, err);
	if (rc)
		return rc;
	next = setup_address_map(s);
	s->nf.l2_hit_ps = s->mem.l2_hit;
	s->nf.xfer_ps = s->c.xfer;
	rc = nf_init(&s->nf, &cfg->scn, &next, err);
	if (rc)
		return rc;
	if (cfg->scn.system.cat_ways && cfg->scn.system.cat_prefetch)
		cat_prefetch(s);
	hog_setup(s, &next);
	rc = nic_setup(s, err);
	if (rc)
		return rc;
	nic_warm_flow_state(s);
	core_setup(s);
	tx_setup(s);
	setup_measure(s);
	return 0;
}

/* --------------------------------------------------------------- run */

/* The windows that close at the end: a sample or controller period due
 * then. EV_END, scheduled first, pops before them at equal times. */
static void end_windows(struct sim *s, uint64_t t)
{
	if (sim_evq_slot_time(&s->evq, s->slot_base[EV_SAMPLE]) == t)
		ev_sample(s, t);
	if (sim_evq_slot_time(&s->evq, s->slot_base[EV_DYN]) == t)
		ev_dyn(s, t);
}

static void progress(struct sim *s)
{
	double w = wall_now();

	if (w - s->wall_last >= 0.25) {
		s->wall_last = w;
		fprintf(stderr, "progress %.3f\n", (double)s->mem.now / (double)s->end_ps);
		fflush(stderr);
	}
}

/* The first event of every source. */
static int run_start(struct sim *s, struct rxb_err *err)
{
	const struct sim_cfg *cfg = s->cfg;
	int rc;

	for (uint32_t i = 0; i < cfg->scn.system.nics; i++) {
		struct nic *n = &s->nic[i];

		if (n->gen_ok && sim_traffic_next(&n->gen, &n->next) == 1)
			push(s, n->next.t_ps, EV_ARRIVAL, i);
	}
	for (uint32_t i = 0; s->trace && i < cfg->scn.system.nics; i++) {
		rc = trace_next(s, &s->nic[i], err);
		if (rc < 0)
			return rc;
		if (rc == 1)
			push(s, s->nic[i].next.t_ps, EV_TRACE, i);
	}
	for (uint32_t h = 0; s->hog && h < cfg->scn.system.hog_instances; h++)
		push(s, s->hog[h].t, EV_HOG, h);
	push(s, 0, EV_OCC, 0);
	push(s, s->sample_ps, EV_SAMPLE, 0);
	if (cfg->scn.arch.name == RXB_ARCH_DYN_SHRING)
		push(s, (uint64_t)llround(cfg->scn.arch.dyn_sample_ms * PS_PER_MS), EV_DYN, 0);
	if (cfg->scn.arch.name == RXB_ARCH_RXBISECT && cfg->scn.arch.coalesce)
		push(s, 0, EV_TICK, 0);
	if (s->warm_ps == 0)
		ev_warmup(s);
	else
		push(s, s->warm_ps, EV_WARMUP, 0);
	push(s, s->end_ps, EV_END, 0);
	return 0;
}

/* NIC `arg`'s packet has arrived: its next one takes its slot first. */
static void ev_arrival(struct sim *s, uint32_t slot, uint32_t arg)
{
	struct nic *n = &s->nic[arg];
	struct sim_pkt p = n->next;

	if (sim_traffic_next(&n->gen, &n->next) == 1) {
		sim_evq_set(&s->evq, slot, n->next.t_ps);
		/* The next packet's flow memo entry is a cache miss (flows are
		 * random over a large table): start it now, it is needed an
		 * event or two later. */
		if (n->next.flow < n->nmemo) {
			__builtin_prefetch(&n->memo[n->next.flow]);
			__builtin_prefetch(&n->hvalid[n->next.flow >> 6]);
		}
	} else {
		sim_evq_clear(&s->evq, slot);
	}
	nic_packet(s, n, &p, p.t_ps);
}

/* NIC `arg`'s replayed packet has arrived: read its next one, then handle
 * it. */
static int ev_trace(struct sim *s, uint32_t arg, struct rxb_err *err)
{
	struct nic *n = &s->nic[arg];
	struct sim_pkt p = n->next;
	int rc = trace_next(s, n, err);

	if (rc < 0)
		return rc;
	if (rc == 1)
		push(s, n->next.t_ps, EV_TRACE, arg);
	nic_packet(s, n, &p, p.t_ps);
	return 0;
}

/* Hands the event of `slot` at t to its mechanism: 1 at the end of the
 * run, 0, or a negative errno. */
static int dispatch(struct sim *s, uint32_t slot, uint64_t t, struct rxb_err *err)
{
	uint32_t type = s->slot_type[slot], arg = s->slot_arg[slot];

	if (type == EV_ARRIVAL) {
		ev_arrival(s, slot, arg);
		return 0;
	}
	if (type == EV_CORE) {
		/* The core's entry stays at the top while it runs (it schedules
		 * nothing itself), then is replaced by its continuation or
		 * removed. */
		uint64_t next = ev_core(s, &s->core[arg], t);

		if (next == UINT64_MAX)
			sim_evq_clear(&s->evq, slot);
		else
			sim_evq_set(&s->evq, slot, next);
		return 0;
	}
	sim_evq_clear(&s->evq, slot);
	switch (type) {
	case EV_TRACE:
		return ev_trace(s, arg, err);
	case EV_TXREAD:
		ev_txread(s, &s->core[arg], t);
		break;
	case EV_EMUCORE:
		ev_emucore(s, t);
		break;
	case EV_HOG:
		ev_hog(s, arg, t);
		break;
	case EV_OCC:
		ev_occ(s, t);
		break;
	case EV_SAMPLE:
		ev_sample(s, t);
		break;
	case EV_DYN:
		ev_dyn(s, t);
		break;
	case EV_TICK:
		ev_tick(s, t);
		break;
	case EV_WARMUP:
		ev_warmup(s);
		break;
	case EV_END:
		end_windows(s, t);
		return 1;
	}
	return 0;
}

int sim_run(struct sim *s, int show_progress, struct rxb_err *err)
{
	int32_t slot;
	int rc;

	s->wall0 = s->wall_last = wall_now();
	rc = run_start(s, err);
	if (rc < 0)
		return rc;
	while ((slot = sim_evq_top(&s->evq)) >= 0) {
		uint64_t t = sim_evq_top_time(&s->evq);

		sim_mem_set_now(&s->mem, t);
		if ((++s->events & 0xffff) == 0) {
			/* 2^40 schedules: far beyond any run the config allows */
			if (sim_evq_scheduled(&s->evq) > SIM_EVQ_MAX_SEQ / 2) {
				rxb_err_set(err, "more than %llu events scheduled",
					    (unsigned long long)(SIM_EVQ_MAX_SEQ / 2));
				return -EINVAL;
			}
			if (show_progress)
				progress(s);
		}
		rc = dispatch(s, (uint32_t)slot, t, err);
		if (rc < 0)
			return rc;
		if (rc == 1)
			break;
	}
	sim_mem_set_now(&s->mem, s->end_ps);
	check_invariants(s);
	s->wall_s = wall_now() - s->wall0;
	if (show_progress) {
		fprintf(stderr, "progress 1\n");
		fflush(stderr);
	}
	return 0;
}

void sim_free(struct sim *s)
{
	const struct sim_cfg *cfg = s->cfg;

	if (cfg == NULL)
		return;
	for (uint32_t i = 0; s->nic && i < cfg->scn.system.nics; i++) {
		if (s->nic[i].gen_ok)
			sim_traffic_free(&s->nic[i].gen);
		rxb_reta_free(&s->nic[i].reta);
		sim_dmaeng_free(&s->nic[i].rd);
		free(s->nic[i].memo);
		free(s->nic[i].hvalid);
	}
	for (uint32_t c = 0; s->core && c < s->ncores; c++) {
		free(s->core[c].ivals);
		free(s->core[c].tx.buf);
		free(s->core[c].tx.q);
		free(s->core[c].tx.done);
		free(s->core[c].tx.post);
	}
	for (uint32_t q = 0; s->emu.pq && q < s->emu.npq; q++)
		free(s->emu.pq[q].a);
	free(s->emu.pq);
	free(s->emu.pq_of_dest);
	free(s->emu.fifo);
	for (uint32_t i = 0; s->nic && i < s->cfg->scn.system.nics; i++)
		sim_replay_close(&s->nic[i].replay);
	rxb_iface_destroy(s->ifc);
	rxb_pool_destroy(s->pool);
	sim_llc_free(&s->mem.llc);
	sim_l2_free(&s->mem.l2);
	sim_evq_free(&s->evq);
	free(s->slot_type);
	free(s->slot_arg);
	free(s->allocs);
	free(s->tap);
	free(s->nic);
	free(s->core);
	free(s->hog);
	free(s->pinfo);
	free(s->addr_of);
	free(s->ws_bits);
	free(s->cq_w);
	free(s->cq_r);
	free(s->dst);
	free(s->fetched_seen);
	free(s->src_fetch);
	free(s->last_src);
	free(s->occ);
	free(s->sh_w0);
	free(s->lock);
	free(s->bmp_last);
	free(s->ser);
	free(s->dyn);
	free(s->ival_scratch);
	nf_free(&s->nf);
	memset(s, 0, sizeof(*s));
}
