/* SPDX-License-Identifier: BSD-3-Clause
 *
 * pmd.h — net_rxbisect's state, shared by its files (not an interface for
 * anyone else). docs/pmd.md tells the whole story.
 *
 * One port = one receive interface of the ring library (one rxb_iface) in
 * front of an underlying ethdev, "the wire". The NIC side runs on one
 * thread, N, or several sharing the port's queues (struct pmd_nic): a DPDK
 * service (or a dedicated thread) that polls the wire, hashes and steers
 * each frame, lets the library pick the buffer by the design's rules and,
 * before the entry is published (the NIC's DMA write), parks the frame's
 * mbuf in that buffer (zero copy) or copies the frame into it (a frame of
 * the wire's own mempool). Rx queue q is core q of the design:
 * rte_eth_rx_burst(port, q) is the design's software receive, on whatever
 * lcore the application polls it from (one at a time, as DPDK requires).
 * Transmit passes through to the wire's Tx queues.
 *
 * Writers: C = the control path (ethdev ops, probe/remove), N = a NIC
 * thread (N0: thread 0), Q = the lcore polling that Rx queue, T = the lcore of that Tx
 * queue. Counters are rxb_counter_t: one writer, relaxed, read by C.
 */
#ifndef RXB_PMD_H
#define RXB_PMD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include <ethdev_driver.h>
#include <rte_ip.h>
#include <rte_spinlock.h>
#include <rte_udp.h>

#include "rxb/iface.h"
#include "rxb/rss.h"
#include "scenario.h"

#define PMD_NAME          "net_rxbisect"
#define PMD_WIRE_BURST    32u
#define PMD_WIRE_RING     512u                 /* descriptors of each wire Rx queue */
#define PMD_WIRE_MAX_RXQS 8u                   /* wire Rx queues polled, at most */
#define PMD_SPARES        (2u * RXB_BURST_MAX) /* empty mbufs a queue keeps for its refills */
#define PMD_MAX_QUEUES    RTE_MAX_QUEUES_PER_PORT
#define PMD_MAX_NICS      PMD_WIRE_MAX_RXQS /* NIC threads per port: each polls a wire queue */

/* What rxb_rss_frame hashes: IPv4 and IPv6 addresses, plus TCP/UDP ports
 * (unless only IP types are asked for). */
#define PMD_RSS_L4                                                     \
	(RTE_ETH_RSS_NONFRAG_IPV4_TCP | RTE_ETH_RSS_NONFRAG_IPV4_UDP | \
	 RTE_ETH_RSS_NONFRAG_IPV6_TCP | RTE_ETH_RSS_NONFRAG_IPV6_UDP)
#define PMD_RSS_TYPES                                                                \
	(RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_FRAG_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_OTHER | \
	 RTE_ETH_RSS_IPV6 | RTE_ETH_RSS_FRAG_IPV6 | RTE_ETH_RSS_NONFRAG_IPV6_OTHER | PMD_RSS_L4)
/* What the port hashes without L4: every IPv4 and IPv6 packet by its addresses. */
#define PMD_RSS_L3 (PMD_RSS_TYPES & ~PMD_RSS_L4)

extern int pmd_logtype;
#define PMD_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, pmd_logtype, PMD_NAME ": " fmt "\n", ##__VA_ARGS__)

/* What the devargs asked for (pmd_args.c). */
struct pmd_cfg {
	struct rxb_scn scn;              /* arch.* from the devargs, the rest at defaults */
	char port[RTE_DEV_NAME_MAX_LEN]; /* the wire */
	uint8_t rss_key[RXB_RSS_KEY_LEN];
	uint32_t reta_size;
	uint32_t flows;       /* net_null wire: flows its buffers carry */
	int nic_cpu;          /* -1: the NIC runs as a service */
	uint16_t nic_threads; /* NIC threads (services) sharing the port */
	/* faults (fault_stall, fault_link_down): -1 / negative = none */
	int stall_queue;
	double stall_at_ms, stall_for_ms;
	double link_down_at_ms, link_down_for_ms;
	uint32_t given; /* a bit per devarg the application gave */
};

/* Parse "key=value,..." into cfg. 0, or -EINVAL with one message in err
 * naming the devarg, what was wrong and what is allowed. Logs a warning per
 * devarg the chosen design does not read. */
int pmd_args_parse(const char *devname, const char *params, struct pmd_cfg *cfg,
		   struct rxb_err *err);
/* Did the application give devarg `name` (rather than take its default)? */
bool pmd_arg_given(const struct pmd_cfg *cfg, const char *name);

/* The headers the NIC writes into each frame of a net_null wire. */
struct pmd_null_hdr {
	struct rte_ether_hdr eth;
	struct rte_ipv4_hdr ip;
	struct rte_udp_hdr udp;
};
_Static_assert(sizeof(struct pmd_null_hdr) == 42, "the headers back to back, no padding");

/* A flow of a net_null wire: what pmd_wire_null_flows() writes into each
 * frame's headers, in network order (pmd_wire.c). */
struct pmd_wire_flow {
	uint32_t src_ip, dst_ip;
	uint16_t src_port, dst_port;
	uint16_t ip_cksum;         /* of the frame's IPv4 header with this flow */
	uint32_t hash_l3, hash_l4; /* its RSS hash with the port's key (C, at start) */
};

struct pmd_rxq {
	struct pmd *p;
	uint16_t qid;
	struct rte_mempool *mp;      /* the application's: core qid's allocator */
	rxb_counter_t bytes;         /* Q */
	rxb_counter_t alloc_fail;    /* Q (at start: C): requests the mempool refused */
	rxb_counter_t stalled_polls; /* Q: calls the stall fault swallowed */
	/* Q: receive calls done; release at the end of each, acquire by C at
	 * stop: the software side's state is handed to the census explicitly
	 * (the application's own lcore hand-off is not ours to rely on). */
	_Atomic uint64_t calls;
	struct rxb_dynctl_ivl ivl; /* Q -> N (dyn): receive-call intervals */
	/* Q (C while stopped): buffers whose frame went to the application by
	 * pointer, kept to re-arm the rings before the mempool is asked. */
	uint16_t n_spare;
	struct rte_mbuf *spare[PMD_SPARES];
} __rte_cache_aligned;

struct pmd_txq {
	struct pmd *p;
	uint16_t qid, wire_q;
	rte_spinlock_t *lock;      /* when Tx queues share a wire queue */
	rxb_counter_t pkts, bytes; /* T */
	_Atomic uint64_t calls;    /* T: as pmd_rxq.calls */
} __rte_cache_aligned;

/* The steps of a NIC thread's wire burst, each timed with the TSC: take
 * the frames off the wire, hash and steer them, deliver them through the
 * library (the DMA writes included), free the wire's frames. */
enum pmd_nic_step {
	PMD_STEP_RECEIVE,
	PMD_STEP_CLASSIFY,
	PMD_STEP_DELIVER,
	PMD_STEP_FREE,
	PMD_N_STEPS
};

/* NIC-wide counters, written by one NIC thread each (summed when read).
 * full_cyc and full_pkts: the passes that handled at least half a burst
 * and were not preempted, the NIC's own cost per packet; step_cyc: the
 * steps of those passes (their sum is at most full_cyc). */
struct pmd_nstats {
	rxb_counter_t wire_pkts, wire_bytes, oversize, busy_polls, idle_polls;
	rxb_counter_t link_down_events, dyn_switches, misrouted;
	rxb_counter_t full_cyc, full_pkts, step_cyc[PMD_N_STEPS];
};

/* NIC thread t of a port: it polls the wire Rx queues w with w % n_nics = t
 * and delivers only to the destinations it owns (pmd_nic_owner), so each
 * source and destination of the design has a single NIC-side writer. The
 * fields are N-written (that thread) unless said otherwise. */
struct pmd_nic {
	struct pmd *p;           /* C, at probe */
	uint16_t id;             /* C, at probe */
	uint32_t service_id;     /* C */
	bool service_registered; /* C */
	pthread_t thread;        /* C: nic_cpu */
	/* passes done; release at the end of a pass, acquire at the start of
	 * the next and by C at stop: the thread's state goes from pass to
	 * pass (service lcores may take turns) and to the census explicitly. */
	_Atomic uint64_t passes;
	/* N inside pmd_nic_service(): what a stop that stops trusting the
	 * service framework's mark waits for (quiesce_nic) */
	_Atomic bool in_pass;
	uint32_t flow_next; /* net_null: the next flow to try */
	uint64_t next_link_check;
	bool link_up; /* this thread's view of the wire */
	struct pmd_nstats ns;
} __rte_cache_aligned;

struct pmd {
	struct pmd_cfg cfg;
	struct rte_eth_dev *dev;
	uint16_t port_id;

	/* the wire (C) */
	uint16_t wire;
	uint64_t owner_id;
	bool wire_attached; /* owned by this port: closed with it */
	bool wire_created;  /* we rte_vdev_init()ed it: we remove it at close */
	bool wire_null;     /* net_null: it writes no bytes */
	bool wire_started;
	struct rte_mempool *wire_pool; /* frames from it are copied */
	bool wire_rss;                 /* the wire hashes with our key (RTE_MBUF_F_RX_RSS_HASH) */
	bool wire_rss_l4;              /* ... and ports: valid while l4 is the same */
	uint16_t wire_rxqs, wire_txqs;
	rte_spinlock_t *wire_tx_locks;
	struct pmd_wire_flow *wire_flows; /* net_null: cfg.flows of them (C builds, N reads) */
	struct pmd_null_hdr wire_hdr;     /* net_null: the frames' header template (C, N reads) */
	/* net_null with flows: the length of its frames, which the NIC makes
	 * itself in the buffers (0: it makes none, or the frames come from
	 * the wire) (C, at start) */
	uint32_t null_frame_len;

	/* the design (C creates at start; N and Q use it while started) */
	struct rxb_iface *iface;
	struct rxb_allocator *allocs;
	uint32_t max_frame; /* bytes a buffer of every queue's mempool holds */
	/* where every buffer's frame starts, from the mbuf's address (0: read
	 * the mbuf): the same in every queue's mempool (C, at start) */
	uint32_t buf_data_off;
	struct rxb_rss rss;
	struct rxb_reta reta; /* N reads, C updates (rte_eth_dev_rss_reta_update) */
	/* rss_hf asks for TCP/UDP ports: C writes it, also while started
	 * (rss_hash_update), N reads it per frame; relaxed, a flag alone */
	_Atomic bool l4;
	/* the receive reads the clock: the stall fault, shRing's release times,
	 * dynamic shRing's receive intervals (C, at start) */
	bool rx_clock;

	/* the NIC threads; thread 0 alone (N0) also runs the port-wide work:
	 * the link fault, coalesced notices, the dynamic shRing controller */
	uint16_t n_nics; /* cfg.nic_threads (C, at probe) */
	/* the NIC thread owning each destination: its source group's, groups
	 * dealt in turn (C, at configure) */
	uint8_t nic_owner[PMD_MAX_QUEUES];
	_Atomic int nic_on;                           /* C -> N: 1 while started */
	_Atomic int nic_quit;                         /* C -> dedicated thread: leave the loop */
	uint64_t hz, t_start;                         /* C, before nic_on */
	uint64_t next_dyn;                            /* N0 */
	bool fault_link_applied, fault_link_restored; /* N0 */
	uint64_t dyn_bytes_seen;                      /* N0 */
	struct pmd_nic nic[PMD_MAX_NICS];

	/* stats_reset / xstats_reset: values at the last reset (C) */
	uint64_t *xbase;
	uint32_t n_xstats;
	struct rte_eth_stats sbase;
};

static inline struct pmd *pmd_of(struct rte_eth_dev *dev)
{
	return dev->data->dev_private;
}

/* Whether frames of any pool but the wire's are passed on by pointer: a
 * wire may return the application's own mbufs (net_ring loops its
 * transmits back). net_null returns only frames of the pool it was given:
 * every frame is copied, no buffer ever carries one, and neither the NIC
 * nor the receive looks. */
static inline bool pmd_wire_by_pointer(const struct pmd *p)
{
	return !p->wire_null;
}

/* The NIC thread that owns destination d. */
static inline uint16_t pmd_nic_owner(const struct pmd *p, uint32_t d)
{
	return p->nic_owner[d];
}

/* ---- pmd_nic.c: the NIC threads, receive and transmit ---- */
/* Once per process (probe): the mbuf field that carries a frame by pointer. */
int pmd_nic_init(struct rxb_err *err);
int32_t pmd_nic_service(void *arg);
void *pmd_nic_thread_main(void *arg);
uint16_t pmd_rx_burst(void *queue, struct rte_mbuf **pkts, uint16_t n);
uint16_t pmd_tx_burst(void *queue, struct rte_mbuf **pkts, uint16_t n);
void pmd_allocator(struct pmd_rxq *rq, struct rxb_allocator *out);
/* C, with N stopped: give back every wire frame still queued. */
void pmd_nic_drain_wire(struct pmd *p);
/* C, with Q stopped: the queue's spare buffers back to their mempools. */
void pmd_rxq_free_spares(struct pmd_rxq *rq);

/* ---- pmd_stats.c ---- */
int pmd_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *st);
int pmd_stats_reset(struct rte_eth_dev *dev);
int pmd_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xs, unsigned n);
int pmd_xstats_get_names(struct rte_eth_dev *dev, struct rte_eth_xstat_name *names, unsigned n);
int pmd_xstats_reset(struct rte_eth_dev *dev);
void pmd_stats_restart(struct pmd *p);
/* The number of xstats a port with nq Rx queues of this design has. */
uint32_t pmd_xstats_count(const struct pmd *p, uint16_t nq);

/* ---- pmd_wire.c: the underlying port ---- */
int pmd_wire_attach(struct pmd *p, struct rxb_err *err);
/* C: wire queues and pool set up, flows hashed with the port's key, wire started. */
int pmd_wire_start(struct pmd *p, struct rxb_err *err);
void pmd_wire_stop(struct pmd *p);
void pmd_wire_detach(struct pmd *p);
/* The vdev bus is removing this port: leave the wire's device to it. */
void pmd_wire_leave_to_bus(struct pmd *p);
/* N: the next flow of a net_null wire that steers to a destination NIC
 * thread nic owns (as a wire's RSS would). */
const struct pmd_wire_flow *pmd_wire_null_next(struct pmd_nic *nic);
/* N: the headers of a frame of flow wf, written at `frame`. */
void pmd_wire_null_write(const struct pmd *p, const struct pmd_wire_flow *wf, void *frame);

#endif /* RXB_PMD_H */
