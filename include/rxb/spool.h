/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Shared page pool for many representor ports (docs/interfaces.md §6). Every mode
 * uses privRing queues (Rx ring + CR) underneath; they differ in which queue
 * a port's packets land in and how many buffers a queue keeps posted:
 *   none   every port has a dedicated queue kept filled to `depth`;
 *   basic  all ports' slow-path traffic lands in `basic_queues` shared PF
 *          queues of `depth` (little memory; one busy port can starve all);
 *   spp    every port keeps its own queue (capacity `high`), buffers come
 *          from one shared pool, and the filled depth adapts: start at `low`;
 *          a busy poll (it used its whole, non-zero budget) refills up to
 *          `high`; an idle poll (a zero budget included) refills only when
 *          below `low`, and only up to `low`.
 * The NIC counts offered/delivered/dropped per port in every mode, so the
 * simulator can measure fairness even where a real PF queue could not.
 *
 * Who may call what: nic_* the NIC thread; poll/free for a port the one core
 * that polls it (the caller's mapping); stats anyone; census quiescent.
 * Indexes (queue, core, ring, Ax, port) are the caller's to keep below the
 * design's counts: these entries do not check them (the generic interface,
 * iface.h, does).
 */
#ifndef RXB_SPOOL_H
#define RXB_SPOOL_H

#include <stdbool.h>

#include "rxb/common.h"

#ifdef __cplusplus
extern "C" {
#endif

enum rxb_spool_mode { RXB_SPOOL_NONE = 0, RXB_SPOOL_BASIC, RXB_SPOOL_SPP, RXB_SPOOL_MODES };
/* "none", "basic", "spp", in enum order: the values of the scenario key
 * arch.spool_mode (the parser reads them from here). */
extern const char *const rxb_spool_mode_name[RXB_SPOOL_MODES];

struct rxb_spool_config {
	uint32_t n_ports; /* representor ports */
	enum rxb_spool_mode mode;
	uint32_t depth;         /* none/basic: queue depth (filled completely) */
	uint32_t basic_queues;  /* basic: shared PF queues; 0 = 1 */
	uint32_t low;           /* spp: low watermark (e.g. 128) */
	uint32_t high;          /* spp: high watermark = queue capacity (256..2048) */
	uint32_t desc_prefetch; /* 0 = default */
};

struct rxb_spool;

/* 0, or -EINVAL naming the field (none and spp need n_ports <=
 * RXB_MAX_QUEUES: a queue per port): what rxb_spool_create refuses. */
int rxb_spool_config_check(const struct rxb_spool_config *cfg, struct rxb_err *err);
/* NULL on failure with errno and err set (common.h): -EINVAL naming the
 * field (none and spp need n_ports <= RXB_MAX_QUEUES: a queue per port),
 * -ENOMEM naming what could not be allocated. */
struct rxb_spool *rxb_spool_create(const struct rxb_spool_config *cfg, struct rxb_err *err);
void rxb_spool_destroy(struct rxb_spool *sp);
uint32_t rxb_spool_n_queues(const struct rxb_spool *sp);
/* The queue that carries port p's packets: basic shares its few queues
 * round-robin among the ports, the other modes give each port its own. */
uint32_t rxb_spool_queue_of(const struct rxb_spool *sp, uint32_t port);
/* The same from the configuration alone (shape.h asks before creation). */
uint32_t rxb_spool_cfg_queue_of(const struct rxb_spool_config *cfg, uint32_t port);

/* NIC: meta->dest is the PORT. 0 delivered, 1 dropped, -EINVAL bad port. */
int rxb_spool_nic_deliver(struct rxb_spool *sp, const struct rxb_rx_meta *meta,
			  struct rxb_delivery *d);

/* NIC: metas[0..n) in order into d[0..n), exactly as n calls of
 * rxb_spool_nic_deliver() would (outcomes, rings, counters), without a
 * call per packet. queues: NULL, or per packet the queue its buffer is in,
 * which must be its port's (rxb_spool_queue_of). Stops before a refused
 * packet (d[k] as the single call leaves a bad port: -EINVAL's) and, when
 * stop_on_drop, right after the first drop. Returns the packets handled. */
unsigned rxb_spool_nic_deliver_burst(struct rxb_spool *sp, const uint32_t *queues,
				     const struct rxb_rx_meta *metas, unsigned n,
				     struct rxb_delivery *d, bool stop_on_drop);

/* NIC: would rxb_spool_nic_deliver() deliver a packet to port (< n_ports)
 * now? As rxb_privring_nic_room() for the port's queue. */
bool rxb_spool_nic_room(struct rxb_spool *sp, uint32_t port, enum rxb_drop_cause *cause);

/* NIC: prefetch up to n posted descriptors of queue q and return their
 * buffers in ring order (the emulator posts them to a physical queue). */
unsigned rxb_spool_nic_fetch(struct rxb_spool *sp, uint32_t q, rxb_buf_t *bufs, unsigned n);

/* Software: fill queue q to its starting depth (depth, or low for spp). */
unsigned rxb_spool_prime(struct rxb_spool *sp, uint32_t q, const struct rxb_allocator *alloc);

/* Software: poll queue q with a budget (≤ RXB_BURST_MAX), then refill by the
 * mode's policy; a budget of 0 receives nothing and counts as an idle poll
 * (spp: refills up to `low` only). Returns packets received. */
unsigned rxb_spool_poll(struct rxb_spool *sp, uint32_t q, struct rxb_pkt *out, unsigned budget,
			const struct rxb_allocator *alloc);
void rxb_spool_free(struct rxb_spool *sp, uint32_t q, const struct rxb_allocator *alloc,
		    const rxb_buf_t *bufs, unsigned n);

/* Buffers posted to queue q: its memory is this × buffer size. */
uint32_t rxb_spool_posted(const struct rxb_spool *sp, uint32_t q);

/* Per-port NIC counters (offered, delivered, drops) and per-queue ones. */
const struct rxb_nic_stats *rxb_spool_port_stats(const struct rxb_spool *sp, uint32_t port);
const struct rxb_nic_stats *rxb_spool_nic_stats(const struct rxb_spool *sp, uint32_t q);
const struct rxb_sw_stats *rxb_spool_sw_stats(const struct rxb_spool *sp, uint32_t q);
uint32_t rxb_spool_occupancy(struct rxb_spool *sp, uint32_t q);

/* Census of every queue (rxb_privring_census's rules and codes). */
struct rxb_buflist;
int rxb_spool_census(struct rxb_spool *sp, struct rxb_census *c, struct rxb_buflist *bufs,
		     struct rxb_err *err);

#ifdef __cplusplus
}
#endif
#endif /* RXB_SPOOL_H */
