/* SPDX-License-Identifier: BSD-3-Clause
 *
 * emu_int.h — the emulator's run-time state, shared by its source files
 * (not an interface for anyone else). Who writes what is stated per field:
 * E = emulator lcore, S = source (generator) lcore, W = that worker, M = the
 * main (control) lcore, Q = the physical queue's consumer (S for the
 * generator source, E otherwise). Counters are rxb_counter_t (one writer,
 * relaxed), read by M and the telemetry thread.
 */
#ifndef RXB_EMU_INT_H
#define RXB_EMU_INT_H

#include <stdatomic.h>
#include <stddef.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <rte_rwlock.h>
#include <rte_spinlock.h>

#include "emu.h"
#include "rxb/shape.h"
#include "gen.h"
#include "hist.h"
#include "nf/nf.h"
#include "rxb/privring.h"
#include "rxb/rss.h"
#include "rxb/rxbisect.h"
#include "rxb/shring.h"
#include "rxb/spool.h"

#define EMU_BURST       32u /* physical Rx burst */
#define EMU_FETCH_CHUNK 32u /* descriptors fetched from one virtual ring per visit */
#define EMU_OPS_NAME    "rxb_virt"

/* What the emulator records in every buffer it hands a physical queue,
 * written at fetch time by E or M. It lives in the mbuf's private area, a
 * line of its own between the mbuf and its data (EMU_META_ROOM): a worker
 * reads both of the mbuf's lines whenever it frees it, so a record there
 * would pull a line from the worker's cache to E's and back for every
 * packet. No PMD writes an application's private area. */
struct emu_meta {
	uint32_t src;   /* the virtual ring the buffer came from (struct emu_src index) */
	uint32_t epoch; /* working-set window in which E last saw it filled */
	uint64_t t_arr; /* arrival TSC (E), when the packet carries no stamp */
};
#define EMU_META_ROOM RTE_CACHE_LINE_SIZE /* the workers' mempool's priv_size */
_Static_assert(sizeof(struct emu_meta) <= EMU_META_ROOM, "emu_meta fits its line");

static inline struct emu_meta *emu_meta(struct rte_mbuf *m)
{
	return rte_mbuf_to_priv(m);
}

/* A virtual ring that supplies buffers to a physical queue: a privRing Rx
 * ring, a shRing shared ring, an rxBisect Ax ring or a spool queue; its index
 * in e->src is its source number for rxb_iface_nic_fetch(). E-private. */
struct emu_src {
	rxb_buf_t *exp; /* fetched, not yet consumed by the library, in
	                        * the order the library will consume them */
	uint32_t mask, head, tail;
	uint32_t holes;  /* exp[head .. head+holes) are in E's hands, empty */
	uint32_t staged; /* packets of the burst being staged from it */
	uint32_t pq;     /* physical queue it feeds */
	uint32_t size;   /* its capacity */
};

static inline uint32_t emu_src_out(const struct emu_src *s)
{
	return s->tail - s->head;
}

/* The bytes of a frame of traffic.packet_bytes as a port hands it over:
 * without its 4-byte FCS. */
static inline uint16_t emu_frame_len(const struct rxb_emu_cfg *c)
{
	return (uint16_t)(c->scn.traffic.packet_bytes - 4);
}

/* One physical Rx queue and its "rxb_virt" mempool. */
struct emu_pq {
	struct rte_mempool *vpool; /* the pool the PMD / generator allocates from */
	struct rte_ring *fill;     /* SPSC E -> Q: buffers fetched from virtual rings */
	struct rte_ring *wire;     /* generator source: the net_ring Rx ring (S -> E) */
	/* Q-private: buffers the PMD took and gave back unused, handed out
	 * again first (top = next). stash_n is read by get_count from any
	 * thread, hence atomic. */
	struct rte_mbuf **stash;
	_Atomic uint32_t stash_n;
	uint32_t stash_cap;
	uint32_t cap; /* physical ring size: what its sources can hold */
	uint16_t qid;
	uint32_t src_first, src_n, src_rr; /* E: sources feeding it */
	uint32_t core_first, core_n;       /* destinations packets of this queue may go to */
	uint32_t set;                      /* dyn: 0 private set, 1 shared set */
	uint32_t nic;                      /* the NIC lcore (e->nic) that serves it */
	/* E (W native): the pcap queue reached its end. Relaxed: the thread
	 * that sets it took the queue's packets itself; others only end a
	 * phase on it. */
	_Atomic bool eof;
	rxb_counter_t fetched;  /* E */
	rxb_counter_t received; /* E (or the polling worker, native) */
	rxb_counter_t returned; /* Q: buffers the PMD gave back unused */
} __rte_cache_aligned;

/* A worker's allocator endpoint: a DPDK mempool with per-lcore cache. */
struct emu_alloc {
	struct rte_mempool *mp;
	uint64_t cyc;   /* W: cycles spent in get/put */
	uint64_t fails; /* W */
};

struct emu_wstats {
	rxb_counter_t polls, empty_polls, received, processed, tx, nf_drops, tx_drops;
	rxb_counter_t bytes, wire_bytes;
	rxb_counter_t cyc_rx, cyc_alloc, cyc_app, cyc_idle;
	rxb_counter_t alloc_fail;
};

struct emu;

struct emu_worker {
	struct emu *e;
	uint32_t id;
	unsigned lcore;
	struct rxb_nf *nf;
	struct emu_alloc alloc;
	uint16_t txq;
	rte_spinlock_t *txlock;        /* when workers share a Tx queue */
	uint64_t stall_from, stall_to; /* TSC; stall_to 0 = until the drain */
	uint64_t extra_cyc;            /* per packet: workload.compute_ns + slow_extra_ns */
	uint64_t steered;              /* M: flows the generator can steer to it in
	                                * the run (emu_flows.c; 0: not known) */
	uint64_t learned;              /* W, then M after the wait: flows its NF
	                                * learned before the clock (emu.learn_flows) */
	struct emu_wstats st;          /* W */
	/* W: latency of processed packets, TSC cycles, reset at the warm-up:
	 * the simulator's histogram, so a p99 has the same precision in both
	 * engines */
	struct rxb_hist lat;
	uint64_t warm_seen;
	struct rxb_dynctl_ivl ivl; /* W -> M (dyn): receive-call intervals */
	_Atomic int done;
} __rte_cache_aligned;

/* Emulator (NIC) counters, written by their NIC lcore. */
struct emu_nstats {
	rxb_counter_t loops, idle_loops, busy_cyc, idle_cyc;
	rxb_counter_t held_cyc, held_pkts; /* per packet, summed: cycles from its burst
	                                      * leaving the wire to the burst's last
	                                      * completion (the latency E adds), over
	                                      * the held_pkts of bursts not preempted */
	rxb_counter_t dispatched, fetched, mismatch, swaps, hole_returns, holes_max;
	rxb_counter_t sw_hash, port_hash, steer_fixups, dma_bytes;
	rxb_counter_t ws_distinct, ws_max; /* working set: distinct buffers per window */
	rxb_counter_t full_cyc, full_pkts; /* loops that dispatched >= EMU_BURST / 2
	                                      * within 200 µs (not preempted) */
	/* of full_cyc, the measured steps (RXB_EMU_STAGE_OTHER is the rest) */
	rxb_counter_t stage_cyc[RXB_EMU_STAGE_OTHER];
	rxb_counter_t mode_switches; /* dyn: ring-set switches applied */
};

/* One emulator (NIC) lcore: it serves physical queues [pq_first, pq_first +
 * pq_n), and with them their sources and the destinations those may
 * deliver to, which no other NIC lcore touches (the library's one-NIC-
 * writer rule, docs/emulator.md "Several NIC lcores"). */
struct emu_nic {
	struct emu *e;
	uint32_t id;
	uint32_t pq_first, pq_n;
	bool holes_pending; /* some source of its queues has holes */
	struct emu_nstats ns;
} __rte_cache_aligned;

/* Per destination, S-written: packets the source offered to it and those
 * the physical queue could not take (no buffer), by cause. */
struct emu_dstats {
	rxb_counter_t offered;
	rxb_counter_t drops[RXB_DROP_CAUSES];
	rxb_counter_t bytes;
	/* M: occupancy samples (spool: and posted buffers of its queue) */
	uint64_t occ_sum, occ_n, occ_max;
	uint64_t posted_sum, posted_max;
} __rte_cache_aligned;

/* Where the generator's port steers a flow: its Toeplitz hash and the core
 * it picks (emu_core_of). Both fixed for the run, so computed once per flow:
 * a slice draws its port's whole stream and steers every packet, its own or
 * not. */
struct emu_flow_steer {
	uint32_t hash, core;
};

/* The generator source plays system.nics NIC ports ("wires"), as the
 * simulator's NICs: port p offers port p's flows (util/flow.h) at
 * traffic.rate_gbps, and RSS on port p spreads them over its own block of
 * cores. A packet carries its port in m->port. */
struct emu_wire {
	/* one generator per slice (rxb_emu_gen_slices), each the port's whole
	 * stream: the same seed draws the same packets in every slice */
	struct rxb_gen **gen;
	struct emu_flow_steer *flow_steer; /* per flow (NULL with KV requests,
	                                    * whose UDP port varies per request) */
	double pps;                        /* packets per second the pattern asks of the port */
};

/* A generator lcore (emu.gen_lcores = G). With G <= system.nics it plays
 * the NIC ports p with p % G == id. With G a multiple of the ports, each
 * port has G / nics lcores ("slices"): lcore id plays port id % nics and
 * writes only the packets bound for its slice of the port's physical
 * queues (e->pq_gen), drawing the port's whole stream to find them, so the
 * slices together offer exactly the stream one lcore would. Either way
 * each physical queue, and the destinations behind it, has one generator
 * lcore (emu_cfg.c checks the design's queues allow it), which alone
 * writes the queue and their per-destination counters. */
struct emu_gen_lcore {
	struct emu *e;
	uint32_t id;
	uint32_t slice;               /* of its port: id / nics, 0 without slices */
	rxb_counter_t late, pipeline; /* S-written */
	rxb_counter_t offered;        /* S: packets it put on the wire (fed or dropped) */
	rxb_counter_t dma_bytes;      /* S: frame bytes it wrote into buffers (the DMA writes) */
} __rte_cache_aligned;

struct emu {
	const struct rxb_emu_cfg *cfg;
	uint32_t run_id;
	uint64_t hz;
	uint32_t cores, share;
	uint32_t cpn;                 /* destinations one NIC port's RSS spreads over */
	uint32_t n_dest;              /* destinations: cores, or spool ports */
	uint32_t dmax;                /* design's "no descriptor" drop cause */
	struct rxb_iface_shape shape; /* what the design builds (rxb_iface_shape) */
	uint32_t dest_size;           /* entries of a destination ring (CR / Bx) */
	bool kv_steer;
	bool port_rss;  /* steer by the port's hash when it gives one (emu.rss port, no KV) */
	bool stamp_arr; /* the NIC lcore stamps arrival (the generator stamped it otherwise) */

	struct rte_mempool *wpool; /* the workers' mempool */
	struct rxb_iface *iface;
	_Atomic uint32_t *qposted; /* spool, per queue: posted buffers (W, read by M) */
	struct rxb_allocator *allocs;

	uint32_t n_src;
	struct emu_src *src;
	uint32_t n_pq;
	struct emu_pq *pq;
	uint32_t *pq_of_dest; /* [set * n_dest + dest]: emu_pq_of_core() */

	/* ports */
	uint16_t in_port, out_port;
	bool in_vdev, out_vdev, out_own;
	char in_name[64], out_name[64];
	rte_spinlock_t out_lock[RXB_EMU_MAX_WORKERS];
	uint16_t in_txq, out_txq; /* Tx queues configured */
	bool in_started, out_started;
	struct rte_ring *dummy_ring;      /* net_ring ports need a ring on the other side */
	bool pmd_allocates;               /* the PMD takes buffers at rx time (pcap, null) */
	bool pool_stamps;                 /* a PMD may free a physical queue's buffer: m->pool */
	char split[64][RXB_EMU_PATH_MAX]; /* per-queue pcap files we wrote */
	uint32_t n_split;

	struct rxb_rss rss;
	struct rxb_reta reta; /* one NIC port's, over its e->cpn cores */

	struct emu_worker *w;
	uint32_t n_wire;
	struct emu_wire *wire; /* the generator source: one per NIC port */
	uint32_t *pq_gen;      /* per physical queue: the generator lcore feeding it */
	uint32_t n_gen;
	struct emu_gen_lcore *gen;    /* its lcores (emu.gen_lcores) */
	_Atomic uint32_t gen_running; /* S: the last one out sets src_done */
	struct rte_lpm *lpm;
	_Atomic uint64_t *counters;      /* counter NF: shared array */
	struct rxb_nf_lb_load *lb_loads; /* lb: backends' loads, lb_backends a NIC port */

	/* Phases. The flags that hand data over are release/acquire pairs,
	 * the others relaxed (each access says which and why):
	 *   gen_stop  M -> S      stop generating
	 *   src_done  S -> M, W   release: the source's last enqueues are done;
	 *                         E (pcap) or M (native pcap, the drain) also
	 *                         set it, relaxed
	 *   emu_stop  M -> E      release: the source stopped, empty the
	 *                         physical side
	 *   emu_done  E -> W, M   release: counts the NIC lcores done, each
	 *                         after its last deliveries are in the rings
	 *   drain     M -> W      release: stop once the rings are empty
	 *   quit      any -> all  abort, relaxed */
	_Atomic int gen_stop, src_done, emu_stop, emu_done, drain, quit;
	/* any -> M: a lcore that cannot go on (emu_abort). The first one
	 * claims abort_msg (relaxed exchange: only one writes it), writes it,
	 * then publishes its error with a release store on abort_rc, which
	 * pairs with M's acquire load once the lcores are collected. */
	_Atomic int abort_claimed, abort_rc;
	char abort_msg[256];
	/* M -> S -> E (dyn): release/acquire, so the switch the controller
	 * requested in the library reaches E before its first packet. */
	_Atomic uint32_t ctl_mode; /* M -> S: dyn ring set to steer to */
	_Atomic uint32_t gen_mode; /* S -> E: set the generator steers to now */
	uint32_t applied_mode;     /* E (only one NIC lcore with dyn_shring) */
	bool has_mbm;              /* resctrl MBM readable */
	_Atomic uint64_t warm;     /* M -> W: bumped at the end of warm-up (relaxed) */
	_Atomic uint32_t ws_epoch; /* M -> E: working-set window (relaxed) */
	uint64_t t_start, t_warm, t_stop;

	uint32_t n_nic; /* NIC lcores (emu.nic_lcores) */
	struct emu_nic *nic;
	struct emu_dstats *d; /* per dest (n_dest) */
	uint64_t in_use_max;  /* M */

	/* M: recent rates for telemetry (relaxed: standalone numbers) */
	_Atomic uint64_t tel_mpps_milli, tel_idle_permille;
};

/* ---- emu_virt.c: the "rxb_virt" mempool and the fill hand-off ---- */
int emu_virt_register(void);
int emu_pq_create(struct emu *e, struct emu_pq *pq, uint32_t idx);
void emu_pq_destroy(struct emu_pq *pq);
/* Q: take up to n buffers (stash first, then the fill ring); all or nothing. */
int emu_pq_take(struct emu_pq *pq, struct rte_mbuf **m, unsigned n);
unsigned emu_pq_avail(const struct emu_pq *pq);

/* ---- emu_nic.c: the emulator lcores ---- */
int emu_nic_main(void *arg); /* arg: its struct emu_nic */
/* Split the physical queues between the NIC lcores (e->n_nic of e->nic). */
void emu_nic_shard(struct emu *e);
/* The counter at byte `field` of each of n records `stride` bytes apart
 * from `first`, summed: one counter over every lcore of a kind. */
static inline uint64_t emu_counter_sum(const void *first, size_t stride, uint32_t n, size_t field)
{
	uint64_t sum = 0;

	for (uint32_t k = 0; k < n; k++)
		sum += rxb_counter_read(
			(const rxb_counter_t *)((const char *)first + k * stride + field));
	return sum;
}
/* Counter `name` of struct emu_nstats summed over the NIC lcores. */
#define EMU_NS(e, name)                                          \
	emu_counter_sum((e)->nic, sizeof(*(e)->nic), (e)->n_nic, \
			offsetof(struct emu_nic, ns) + offsetof(struct emu_nstats, name))
/* acquire: pairs with the release of each NIC lcore's emu_done increment;
 * every NIC lcore's last deliveries are in the rings, its counters final. */
static inline bool emu_nics_done(struct emu *e)
{
	return atomic_load_explicit(&e->emu_done, memory_order_acquire) == (int)e->n_nic;
}
/* pq's NIC lcore, or M before launch: fetch from the sources of pq into
 * its fill ring. */
unsigned emu_refill(struct emu *e, struct emu_pq *pq);
/* The NIC port packet m (NULL: a frame of a trace) of RSS hash `hash`
 * arrived on: the generator's own (m->port), or where an upstream switch's
 * ECMP sends it when one stream (a trace, an input port) feeds them all.
 * Inline: the NIC lcores call it for every packet. */
static inline uint32_t emu_port_of(const struct emu *e, const struct rte_mbuf *m, uint32_t hash)
{
	if (m != NULL && e->n_wire != 0)
		return m->port;
	return rxb_ecmp_port(hash, e->cfg->scn.system.nics);
}

/* The destination core of a packet arriving at NIC port `port` (inline, as
 * emu_port_of). */
static inline uint32_t emu_core_of(const struct emu *e, uint32_t port, uint32_t hash,
				   uint16_t dport, bool have_dport)
{
	/* A port's own block of cores; spool: every port spreads over all the
	 * representor ports (no RETA), as the simulator's NICs do. */
	bool spool = e->cfg->scn.arch.name == RXB_ARCH_SPOOL;
	uint32_t first = spool ? 0 : port * e->cpn;

	/* KV: the NIC steers a request to its partition's core by destination
	 * port (a flow-director rule, as MICA uses), not by RSS. */
	if (e->kv_steer && have_dport && dport >= RXB_KV_UDP_PORT)
		return first + (uint32_t)(dport - RXB_KV_UDP_PORT) % e->cpn;
	return spool ? rxb_hash_spread(hash, e->cpn) : first + rxb_reta_lookup(&e->reta, hash);
}

static inline uint32_t emu_pq_of_core(const struct emu *e, uint32_t core, uint32_t dyn_set)
{
	return e->pq_of_dest[dyn_set * e->n_dest + core];
}

/* ---- emu_run.c ---- */
/* From any lcore: end the run as failed, with error rc (a negative errno)
 * and a message; rxb_emu_run() returns them. The first abort wins. */
void emu_abort(struct emu *e, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- emu_worker.c ---- */
int emu_worker_main(void *arg);
void emu_alloc_endpoint(struct emu_alloc *a, struct rxb_allocator *out);

/* ---- emu_source.c: the generator lcore ---- */
int emu_gen_setup(struct emu *e, struct rxb_err *err);
void emu_gen_destroy(struct emu *e); /* safe without a generator */
/* Counter `name` of struct emu_gen_lcore summed over the generator lcores. */
#define EMU_GEN(e, name)                                         \
	emu_counter_sum((e)->gen, sizeof(*(e)->gen), (e)->n_gen, \
			offsetof(struct emu_gen_lcore, name))
int emu_gen_main(void *arg); /* arg: its struct emu_gen_lcore */
/* The fewest and the most packets one generator lcore offered. */
void emu_gen_offered_range(const struct emu *e, uint64_t *min, uint64_t *max);

/* ---- emu_flows.c: the flows of a worker's flow-state NF (lb, nat) ---- */
/* Per destination, the generator's flows the run can steer to it: the most
 * distinct flows a worker can see. NULL when not known (no generator, KV
 * requests, spool) or out of memory; the caller frees it. */
uint32_t *emu_flows_per_worker(const struct emu *e);
/* The flows one worker's flow table keeps (lb; nat up to
 * workload.nat_flows), `steered` the most it can see (UINT64_MAX: not
 * known). */
uint32_t emu_flow_table(const struct emu *e, uint64_t steered);
/* A note on stderr when workload.nat_flows leaves a NAT fewer flows than
 * its flow table would keep (the workers' `steered` set). */
void emu_note_nat_room(const struct emu *e);
/* emu.learn_flows: every worker's NF learns the flows steered to it, on
 * the worker's lcore, before the clock starts. 0, or an error in err. */
int emu_learn_flows(struct emu *e, struct rxb_err *err);

/* ---- emu_ports.c ---- */
int emu_ports_setup(struct emu *e, struct rxb_err *err);
int emu_ports_start(struct emu *e, struct rxb_err *err);
void emu_ports_stop(struct emu *e);
void emu_ports_close(struct emu *e);

/* ---- emu_stats.c: per destination, any thread ---- */
/* NIC counter `counter` of destination d, summed over the design's ring
 * sets (both of them for dynamic shRing). */
uint64_t emu_lib_nic(struct emu *e, uint32_t d, int counter);
/* Drops of destination d by `cause`: at the physical queue and in the library. */
uint64_t emu_dest_drops(struct emu *e, uint32_t d, int cause);
/* Packets offered to destination d: those the library was offered and
 * those the physical queue dropped before it (emulated), so that offered =
 * delivered + drops + in flight in the record and the telemetry alike. */
uint64_t emu_dest_offered(struct emu *e, uint32_t d);
/* Entries waiting in destination d's ring (CR / Bx; native: the wire ring). */
uint64_t emu_dest_occupancy(struct emu *e, uint32_t d);
/* Packets the cores' receive calls took and dropped to re-arm their own
 * slots, the pool being empty (rxBisect's `recycled`; 0 for the others). */
uint64_t emu_recycled(struct emu *e);

/* ---- emu_telemetry.c (attached by emu_run.c; reads through emu_stats.c) ---- */
void emu_telemetry_register(void);
void emu_telemetry_attach(struct emu *e);
void emu_telemetry_detach(void);

/* ---- helpers ---- */
static inline uint64_t emu_ns_to_cyc(const struct emu *e, double ns)
{
	return (uint64_t)(ns * (double)e->hz / 1e9);
}

static inline uint32_t emu_worker_of(struct emu *e, struct emu_worker *w)
{
	return (uint32_t)(w - e->w);
}

/* The drop cause a design reports when its physical queue has no buffer. */
static inline enum rxb_drop_cause emu_nodesc_cause(const struct emu *e)
{
	return (enum rxb_drop_cause)e->dmax;
}

#endif /* RXB_EMU_INT_H */
