/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sim/engine/engine.h — the discrete-event simulator core behind `rxb-sim`
 * (docs/simulator.md): NICs, PCIe, the emulator stage, polling cores,
 * network functions, memory hogs and the measurements, all driving ONE
 * struct rxb_iface of the ring library.
 *
 * Time is in picoseconds. Events (sim/models/evq.h: one slot per source, popped
 * in (time, schedule order)), and the file that handles each:
 *   EV_ARRIVAL(nic)  nic.c: the next packet of a NIC's generator has
 *                    arrived: the NIC steers it, DMAs it (PCIe, LLC/DDIO),
 *                    completes it (rxb_iface_deliver) and wakes the core;
 *                    one pending event per NIC (lazy generation);
 *   EV_TRACE(nic)    nic.c: the same for a replayed pcap: each NIC replays
 *                    the packets the upstream switch sends it, so its
 *                    arrivals come in time order however its link delays
 *                    them;
 *   EV_CORE(core)    core.c: a core's run-to-completion loop resumes: poll,
 *                    batch prologue, per-packet work, free; it yields before
 *                    a step that would start more than the horizon ahead of
 *                    the event clock (the time rule, docs/simulator.md
 *                    §1.1), and sleeps when a poll finds nothing;
 *   EV_TXREAD(core)  tx.c: the NIC reads the WQEs and frames a core has
 *                    posted, when the event clock reaches their doorbells
 *                    (the core rang them up to the horizon ahead);
 *   EV_EMUCORE       emu_model.c: the emulator core of the emulated variant
 *                    (arch.emulated);
 *   EV_HOG(i)        hog.c: a co-located memory hog issues a few waves of
 *                    accesses;
 *   EV_OCC, EV_SAMPLE, EV_DYN, EV_TICK, EV_WARMUP: measure.c: measurements,
 *                    time series, dynamic shRing control, coalescing timer;
 *   EV_END           engine.c, which also dispatches the events and builds
 *                    everything (sim_init).
 * Each mechanism's state and functions are in its own header (nic.h,
 * dma.h, core.h, alloc.h, tx.h, emu_model.h, hog.h, measure.h); the
 * memory-access path below them is mem.h; what they share about the whole
 * system is engine_int.h.
 * Single-threaded and deterministic for a config and seed.
 */
#ifndef SIM_ENGINE_H
#define SIM_ENGINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "emu_model.h"
#include "evq.h"
#include "hist.h"
#include "measure.h"
#include "mem.h"
#include "nf.h"
#include "replay.h"
#include "rxb/iface.h"
#include "rxb/pool.h"
#include "rxb/rss.h"
#include "simcfg.h"
#include "traffic.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
	EV_ARRIVAL = 1,
	EV_TRACE,
	EV_CORE,
	EV_TXREAD,
	EV_EMUCORE,
	EV_HOG,
	EV_OCC,
	EV_SAMPLE,
	EV_DYN,
	EV_TICK,
	EV_WARMUP,
	EV_END
};

/* What a buffer holds while a packet is in it (indexed by handle). */
struct pinfo {
	uint64_t arr;   /* arrival at the NIC (last bit), ps */
	uint64_t vis;   /* completion visible to the core, ps */
	uint32_t flow;  /* flow identity (a hash of the 5-tuple) */
	uint32_t order; /* the flow's order of first arrival at its core (NF_ORDER_NONE:
			* unknown; nf.h) */
	uint32_t key;   /* key-value request key */
	uint32_t dest;  /* destination ring / port it was steered to */
	uint16_t len;   /* frame length with FCS */
	uint8_t nic;
	uint8_t cls; /* generator class: 1 = target traffic */
};

/* A source ring's descriptors at one NIC, which fetches them one batch
 * ahead (nic.c): when the batch it takes from now arrived, and when the
 * batch after it will. Kept per NIC and source: where NICs take buffers
 * from one ring (rxBisect's all-to-all association spans the NICs), each
 * reads descriptors into its own cache through its own PCIe link, so one
 * NIC's reads never wait on another's queue. */
struct src_fetch {
	uint64_t cur_ps, ahead_ps;
};

struct nic;
struct core;
struct hog;
struct alloc_tap;

/* Costs in ps (calibration cycles / cpu.freq_ghz, profile latencies). */
struct costs {
	uint64_t rx_call, rx_pkt, empty_poll, doorbell, alloc_obj, alloc_bulk, alloc_shobj;
	uint64_t lock, bitmap_or, ret_desc, tx_pkt, emu_pkt, emu_batch;
	uint64_t xfer, dma_write, xsocket;
	uint64_t nf_compute, compute_extra, slow_extra;
	double service_sigma;              /* lognormal shape of a packet's compute time */
	uint64_t rd_base;                  /* DMA read round trip of 0 bytes, warm */
	double rd_per_byte;                /* + ps per byte read */
	uint64_t tick, tick_period, pause; /* ps; period UINT64_MAX: no ticks */
	double pause_gap;                  /* mean ps between rare pauses; 0: none */
	double pcie_ps_per_byte;
};

struct sim {
	struct sim_cfg *cfg;
	struct sim_evq evq;
	uint32_t slot_base[EV_END + 1]; /* event queue slot of (type, arg 0) */
	uint8_t *slot_type;             /* per slot: its event type and arg */
	uint32_t *slot_arg;
	struct sim_mem mem; /* caches, DRAM, the event clock (mem.h) */
	struct rxb_rss rss;
	struct rxb_pool *pool;
	struct rxb_allocator *allocs;
	struct alloc_tap *tap; /* each core's allocator, observed (alloc.h) */
	struct rxb_iface *ifc;
	enum rxb_arch arch;
	uint32_t ncores, nrings, ndests, nsh;
	struct nic *nic;
	struct core *core;
	struct hog *hog;
	struct emumodel emu; /* arch.emulated: the emulator core */
	struct pinfo *pinfo;
	uint64_t *addr_of; /* emulated: address of each handle's memory */
	bool trace;        /* traffic.pattern = trace: packets come from replay (nic.h) */
	struct costs c;
	struct nf_ctx nf; /* the network function (nf.h) */
	/* LLC classes */
	unsigned cls_tx, cls_cq, cls_hog;
	unsigned cls_sq;   /* the cores' writes of their send queues' WQEs */
	unsigned cls_cqrd; /* the cores' reads of completion entries: one class for
				       * all, so that its drawn rates are learned from every
				       * simulated completion line (a core's own CQ ring can
				       * have none: a lane never sampled draws no hits) */
	/* the mbuf lines (core.c, docs/simulator.md §2.5), each kind of access a
	 * class of its own (drawn outcomes follow a class's rates: docs/
	 * docs/simulator-models.md §4.4): the receive's write of line 0 (a ring cycle
	 * after the refill's), the refill's write of line 0 and the free's read
	 * of line 1 (a buffer cycle after the last) */
	unsigned cls_mbrx, cls_mbal;
	unsigned ncls_pkt;
	uint32_t mask_cpu; /* allocation ways of CPU classes (minus CAT) */
	/* addresses */
	uint64_t pool_base, cq_base, cq_ring_bytes, pcq_base;
	uint32_t priv_bytes;         /* the mbuf's private area (nf_priv_bytes) */
	uint64_t partial_reads;      /* DRAM reads of partly written lines (after warm-up) */
	uint64_t sq_base, sq_stride; /* the cores' send queues (tx.c) */
	uint32_t cq_entries;
	uint64_t *cq_w; /* next completion entry written per ring, mod cq_entries */
	uint64_t *cq_r; /* next completion entry read per ring (core.c), mod cq_entries */
	/* per-packet arithmetic done once */
	uint64_t nicbuf_bytes; /* profile.nic.buffer_kib in bytes */
	uint64_t tlp_cqe;      /* PCIe bytes of one completion write */
	uint32_t tlp_memo_len; /* PCIe bytes of the last payload size */
	uint64_t tlp_memo;
	uint64_t up_memo, up_memo_ps; /* PCIe time of the last upstream byte count */
	/* time: the event clock itself is mem.now */
	uint64_t end_ps, warm_ps, occ_ps, sample_ps;
	/* I/O working set: distinct buffer slots written in the current window */
	uint64_t *ws_bits;
	uint64_t ws_slots, ws_count;
	double ws_sum;
	uint64_t ws_windows;
	/* measurements (after warm-up unless said otherwise) */
	uint64_t arrivals_total; /* sim_packets: every arrival */
	uint64_t trace_sum;      /* checksum of the offered 5-tuples */
	uint64_t offered, delivered, dropped[RXB_DROP_CAUSES];
	uint64_t offered_wire_bytes;
	uint64_t departures, dep_wire_bytes;
	struct rxb_hist lat;
	struct dest_stats *dst;
	uint64_t *fetched_seen;      /* descriptors fetched per destination, last read */
	struct src_fetch *src_fetch; /* per NIC and source ring: src_fetch_at() (nic.c) */
	uint32_t nsrcs;              /* source rings (rxb_iface_n_srcs): src_fetch's rows */
	uint32_t *last_src;          /* per destination: the source its last delivery took */
	uint64_t desc_wait_ps,
		desc_waited; /* delivered packets' descriptor waits (after warm-up) */
	struct ring_occ *occ;
	uint64_t occ_poll_max;
	uint64_t occ_samples;      /* ev_occ samples after warm-up */
	uint64_t spool_posted_sum; /* spool: buffers posted, summed over those samples */
	uint64_t dram_rd0, dram_wr0;
	uint64_t in_use_max, pool_empty0;
	uint64_t pipeline_nicbuf, pipeline_phys;
	/* shRing descriptor-return waits (from rxb_shring_wait_stats deltas) */
	/* Descriptor-return waits per shared ring as the library counted them
	 * when the measured interval began (the report subtracts them). */
	struct rxb_shring_wait *sh_w0;
	struct res *lock;               /* each shared ring's repost lock */
	uint32_t *bmp_last;             /* last core to write a shared ring's bitmap */
	struct res plock;               /* the allocator's shared-pool lock */
	uint64_t sync_wait, plock_wait; /* ps spent waiting for them (after warm-up) */
	/* time series */
	struct series_pt *ser;
	uint32_t nser, cap_ser;
	struct series_pt cur; /* accumulating window */
	struct dyn_pt *dyn;
	uint32_t ndyn, cap_dyn;
	uint64_t dyn_rx_bits,
		dyn_dram_bytes; /* dyn_shring: wire bits received since the last sample, DRAM bytes at it */
	uint64_t *ival_scratch;
	/* invariants */
	bool packets_ok, buffers_ok;
	char inv_msg[256];
	uint64_t checks;
	/* The time rule's other half: events are handled in time order, so none
	 * may be scheduled before the event clock (push); counted, 0 in a
	 * correct run (test_time_order). */
	uint64_t events_late;
	/* progress */
	double wall0, wall_last;
	uint64_t events;
	/* wall clock of the whole run */
	double wall_s;
};

/* Build everything from the config. 0, or -EINVAL with a message in err
 * (a configuration the engine cannot simulate: exit 2), or another
 * negative errno. */
int sim_init(struct sim *s, struct sim_cfg *cfg, struct rxb_err *err);
/* Run to run.duration_ms. progress != 0 prints "progress f" lines on
 * stderr. 0, or a negative errno with err set (a trace that turned out to
 * be malformed mid-run: -EINVAL). */
int sim_run(struct sim *s, int progress, struct rxb_err *err);
/* Print the result object of docs/engine-contract.md §4.1 on `out`. */
int sim_report(struct sim *s, FILE *out);
/* The record's metrics.anatomy (anatomy.c): a json_t *, declared opaque
 * here so that engine.h needs no jansson. */
struct json_t;
struct json_t *anatomy_json(const struct sim *s);
void sim_free(struct sim *s);

#ifdef __cplusplus
}
#endif
#endif /* SIM_ENGINE_H */
