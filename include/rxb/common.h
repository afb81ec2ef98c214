/* SPDX-License-Identifier: BSD-3-Clause
 *
 * rxb/common.h — types shared by every receive interface of the ring library.
 *
 * Roles and threads (the concurrency contract of the whole library):
 *   - The NIC side of an interface (functions named *_nic_*) is called by one
 *     thread at a time: the simulator's event loop or the emulator's NIC core.
 *   - The software side of core c (functions named *_rx_*, *_post_*, *_free*)
 *     is called only by the thread that plays core c.
 *   - Statistics may be read by any thread at any time (relaxed atomics, one
 *     writer each); invariant checks need a quiescent point.
 * Nothing in the library reads a clock, sleeps, allocates on the fast path or
 * touches packet bytes: time is passed in as `now` (any monotonic unit the
 * caller likes: simulated ns, TSC cycles), bytes are the caller's business.
 */
#ifndef RXB_COMMON_H
#define RXB_COMMON_H

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RXB_CACHE_LINE    64
#define RXB_CACHE_ALIGNED __attribute__((aligned(RXB_CACHE_LINE)))

/* Ring sizes and burst limits the library accepts. */
#define RXB_RING_MIN              2u
#define RXB_RING_MAX              (1u << 20)
#define RXB_AX_VENDOR_MIN         64u /* vendor minimum for an Ax ring (docs/interfaces.md §5.1) */
#define RXB_MAX_CORES             1024u
/* Queues one privRing (and so one shared page pool) can have: representor
 * ports get a queue each, thousands of them (docs/interfaces.md §6); cores
 * still number at most RXB_MAX_CORES. */
#define RXB_MAX_QUEUES            65536u
#define RXB_NONE                  UINT32_MAX /* "no ring / no index" */
/* Packets one receive call handles at most (DPDK's usual burst is 32). */
#define RXB_BURST_MAX             64u
/* Descriptors per NIC descriptor read when none is configured: one 256 B
 * PCIe read of 16-byte descriptors. */
#define RXB_DESC_PREFETCH_DEFAULT 16u

/* A buffer is an opaque handle supplied by an allocator (docs/interfaces.md §9): an index
 * with a modelled address in the simulator and tests, an rte_mbuf pointer in
 * the emulator. The library stores and returns handles and never
 * dereferences them. */
typedef uint64_t rxb_buf_t;
#define RXB_BUF_NONE UINT64_MAX

/* Per-core allocator endpoint. `get` is all-or-nothing like
 * rte_mempool_get_bulk(): it returns n, or 0 and hands out nothing. `put`
 * always succeeds. Both are called only by the core that owns `ctx`. */
struct rxb_allocator {
	unsigned (*get)(void *ctx, rxb_buf_t *bufs, unsigned n);
	void (*put)(void *ctx, const rxb_buf_t *bufs, unsigned n);
	void *ctx;
};

/* Why the NIC dropped a packet (docs/interfaces.md §2). Never merged. */
enum rxb_drop_cause {
	RXB_DROP_NO_RX_DESC = 0, /* no posted Rx descriptor (privRing, shRing, spool) */
	RXB_DROP_NO_AX_BUF,      /* no associated Ax ring holds a buffer (rxBisect) */
	RXB_DROP_NO_BX_SLOT,     /* no usable Bx slot (rxBisect) */
	RXB_DROP_CR_FULL,        /* completion ring full */
	RXB_DROP_PIPELINE,       /* NIC/emulator pipeline saturated (reported by the driver) */
	RXB_DROP_CAUSES
};

/* Stable snake_case names for reports: "no_rx_desc", "no_ax_buf", ... */
extern const char *const rxb_drop_cause_name[RXB_DROP_CAUSES];

/* What the NIC knows about an arriving packet once it has steered it. */
struct rxb_rx_meta {
	uint32_t len;  /* bytes written into the buffer */
	uint32_t hash; /* RSS hash, reported in the completion */
	uint32_t dest; /* destination CR / Bx / port chosen by steering (RETA) */
	uint64_t now;  /* current time in the caller's unit (coalescing, waits) */
	/* A software NIC that moves real bytes (net_rxbisect) writes the frame
	 * here: called with the buffer the NIC took for the packet, before
	 * the entry that hands that buffer to software is published, as a
	 * NIC's DMA write precedes its completion write. NULL: nothing to
	 * write (the simulator, the emulator, whose packets are already in
	 * their buffers). Never called for a dropped packet. */
	void (*write)(void *arg, rxb_buf_t buf);
	void *write_arg;
};

/* Where a delivered packet went, or why it was dropped. */
struct rxb_delivery {
	int32_t drop;         /* -1 when delivered, else an enum rxb_drop_cause */
	uint32_t ring;        /* CR / Bx written: meta.dest, but the spool's queue */
	uint32_t src_ring;    /* Rx / Ax ring whose descriptor was consumed */
	uint32_t src_index;   /* index of that descriptor in its ring */
	rxb_buf_t buf;        /* buffer the packet was written into */
	uint32_t notify_ring; /* rxBisect: Bx that got a separate consumption
	                        * notice, else RXB_NONE */
	uint16_t desc_reads;  /* descriptor-read transactions this delivery
	                        * caused (0 when served from the NIC's prefetch) */
	uint16_t cmpl_writes; /* completion entries written by this delivery */
};

/* What software receives: one packet. */
struct rxb_pkt {
	rxb_buf_t buf;
	uint32_t len;
	uint32_t hash;
};

/* A statistics counter: written by exactly one thread (plain load + store,
 * never a read-modify-write), read by anyone with a relaxed load. Relaxed is
 * enough: readers want a recent value, not an ordering with other data. */
typedef _Atomic uint64_t rxb_counter_t;

static inline void rxb_counter_add(rxb_counter_t *c, uint64_t v)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + v,
			      memory_order_relaxed);
}

static inline uint64_t rxb_counter_read(const rxb_counter_t *c)
{
	return atomic_load_explicit((rxb_counter_t *)c, memory_order_relaxed);
}

/* NIC-side counters, one set per destination ring (CR, Bx or port), written
 * only by the NIC thread. Indexed so that telemetry, the Python binding and
 * reports can walk them by name. */
enum rxb_nic_counter {
	RXB_NIC_OFFERED = 0, /* packets steered to this ring */
	RXB_NIC_DELIVERED,   /* completion / Bx entries with a packet */
	RXB_NIC_DROP_FIRST,  /* RXB_NIC_DROP_FIRST + enum rxb_drop_cause */
	RXB_NIC_DESC_READS = RXB_NIC_DROP_FIRST + RXB_DROP_CAUSES,
	/* descriptor-read transactions (contiguous runs) */
	RXB_NIC_DESC_FETCHED,      /* descriptors fetched */
	RXB_NIC_CMPL_WRITES,       /* completion entries written to this ring */
	RXB_NIC_NOTICES,           /* rxBisect: consumption-only entries written here */
	RXB_NIC_NOTICES_COALESCED, /* rxBisect: notices merged into a packet entry */
	RXB_NIC_COUNTERS
};

/* Software-side counters, one set per core, written only by that core. */
enum rxb_sw_counter {
	RXB_SW_POLLS = 0,     /* receive calls */
	RXB_SW_EMPTY_POLLS,   /* receive calls that returned no packet */
	RXB_SW_RECEIVED,      /* packets handed to the application */
	RXB_SW_POSTED,        /* fresh buffers written into Rx / Ax descriptors */
	RXB_SW_DOORBELLS,     /* doorbell writes */
	RXB_SW_NOTICES,       /* rxBisect: consumption notices acted on */
	RXB_SW_ALLOC_FAIL,    /* receive calls cut short by the allocator */
	RXB_SW_FREED,         /* buffers the application gave back */
	RXB_SW_LOCK_ACQUIRES, /* shRing: repost lock taken */
	RXB_SW_BITMAP_ORS,    /* shRing RxArr: atomic ORs on the bitmap */
	RXB_SW_RETURNED,      /* shRing: descriptors this core returned to the NIC */
	RXB_SW_ORDER_ERRORS,  /* invariant violations seen on the fast path */
	RXB_SW_RECYCLED,      /* rxBisect: packets dropped on receive to re-arm
	                           * their own slot, the pool being empty */
	RXB_SW_DEFERRED,      /* rxBisect: notices acted on without a buffer
	                           * (pool empty); the slot is refilled later */
	RXB_SW_BX_ENTRIES,    /* rxBisect: Bx entries read and consumed: the
	                           * packets', and the notices without a packet */
	RXB_SW_COUNTERS
};

struct rxb_nic_stats {
	rxb_counter_t c[RXB_NIC_COUNTERS];
};

struct rxb_sw_stats {
	rxb_counter_t c[RXB_SW_COUNTERS];
} RXB_CACHE_ALIGNED;

extern const char *const rxb_nic_counter_name[RXB_NIC_COUNTERS];
extern const char *const rxb_sw_counter_name[RXB_SW_COUNTERS];

static inline uint64_t rxb_nic_drops(const struct rxb_nic_stats *s)
{
	uint64_t sum = 0;

	for (int i = 0; i < RXB_DROP_CAUSES; i++)
		sum += rxb_counter_read(&s->c[RXB_NIC_DROP_FIRST + i]);
	return sum;
}

/* Where the buffers and packets of an interface are, taken at a quiescent
 * point by the invariant checker (docs/interfaces.md §8). */
struct rxb_census {
	uint64_t posted;          /* buffers in Rx / Ax descriptors the NIC has not used */
	uint64_t nic_held;        /* buffers inside the NIC (prefetched descriptors) */
	uint64_t in_entries;      /* packets in CR / Bx entries software has not read */
	uint64_t app_held;        /* received by software, not yet freed */
	uint64_t offered;         /* packets the NIC was asked to deliver */
	uint64_t delivered;       /* packets written to CR / Bx entries */
	uint64_t dropped;         /* packets dropped, all causes */
	uint64_t received;        /* packets software has taken */
	uint64_t notices_pending; /* rxBisect: consumption notices not yet acted on */
};

/* Errors, as Linux and DPDK report them. A function that can fail returns
 * 0 or a negative errno; a constructor that returns a pointer returns NULL
 * and sets errno to the (positive) code, as DPDK sets rte_errno. When the
 * caller passes a `struct rxb_err`, it also gets the code and a message
 * saying why. The library uses exactly these codes:
 *
 *   -EINVAL           configuration rejected. The message names the field,
 *                     the value and what is allowed: "privring.ring_size =
 *                     1000: must be a power of two in [2, 1048576]".
 *   -ENOMEM           out of memory: "out of memory: <what> (<bytes> bytes)".
 *                     A constructor that fails has freed all it took.
 *   -ENOBUFS          the allocator could not supply the buffers the rings
 *                     start with (rxb_iface_create); nothing stays posted.
 *   -RXB_E_INVARIANT  an internal invariant (docs/interfaces.md §8) is broken: census and
 *                     check functions, with a message saying what disagrees.
 *                     One code for every design, the allocator and the
 *                     dynamic shRing controller.
 *
 * Fast-path verbs do not fail this way: they count what went wrong (drops by
 * cause, alloc_fail, order_errors) and return -EINVAL only for an argument
 * out of range (a destination that does not exist). */
#define RXB_E_INVARIANT EPROTO

struct rxb_err {
	char msg[256];
	int code; /* the negative errno msg explains; 0 = none. After msg, so
	           * that `struct rxb_err e = { 0 };` and `{ "" }` still work */
};

/* A configuration was rejected: sets code -EINVAL and the message.
 * Tolerates err == NULL. */
void rxb_err_set(struct rxb_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Any other failure: sets code (a negative errno) and the message and
 * returns code, so `return rxb_err_fail(err, -ENOMEM, ...);` is one step.
 * Tolerates err == NULL. */
int rxb_err_fail(struct rxb_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Validate a ring size: non-zero power of two within [RXB_RING_MIN, RXB_RING_MAX].
 * `field` names the configuration key in the message. */
int rxb_check_ring_size(const char *field, uint32_t size, struct rxb_err *err);
/* The most descriptors one NIC descriptor read may prefetch. */
#define RXB_DESC_PREFETCH_MAX 4096u
/* Validate a descriptor prefetch: 0 (the default) to RXB_DESC_PREFETCH_MAX.
 * A ring smaller than the prefetch is read whole (rxb_descring_init): one
 * iface config serves rings of several sizes. */
int rxb_check_desc_prefetch(const char *field, uint32_t prefetch, struct rxb_err *err);

static inline int rxb_is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

#ifdef __cplusplus
}
#endif
#endif /* RXB_COMMON_H */
