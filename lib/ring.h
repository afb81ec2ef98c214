/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Internal building blocks shared by the interfaces: a descriptor ring with a
 * doorbell and a NIC-side prefetch model, and a completion ring with
 * sense-reversed done bits.
 *
 * Indices are free-running uint32_t counters masked by the ring size. Sizes
 * are powers of two ≤ 2^20, so 2^32 is a multiple of every size and the
 * masked slot, the generation bit and the difference `prod - cons` all stay
 * correct when a counter wraps around 2^32 (unsigned arithmetic is modular and
 * the in-use distance never exceeds the size).
 */
#ifndef RXB_LIB_RING_H
#define RXB_LIB_RING_H

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

#include "alloc.h"
#include "rxb/common.h"

/* Debug builds (RXB_DEBUG, the CMake Debug configuration) check the docs/interfaces.md §8
 * invariants that are O(1) on every operation and abort with a message on a
 * violation; release builds count them (RXB_SW_ORDER_ERRORS) and the census
 * reports them at quiescent points. */
#ifdef RXB_DEBUG
void rxb_debug_fail(const char *file, int line, const char *what);
#define RXB_DEBUG_CHECK(cond, what)                               \
	do {                                                      \
		if (!(cond))                                      \
			rxb_debug_fail(__FILE__, __LINE__, what); \
	} while (0)
#else
#define RXB_DEBUG_CHECK(cond, what) ((void)0)
#endif

/* ---------------------------------------------------------------- Rx ring */

/* A descriptor ring: software posts buffers at its tail and rings the
 * doorbell; the NIC reads descriptors from its head in ring order. The
 * producer index itself lives with each design (a core's private tail for
 * privRing, a lock-protected tail for shRing). */
struct rxb_descring {
	/* Read-only after init, on a line of their own: both sides read them
	 * on every operation, so they must not share a line either writes. */
	rxb_buf_t *desc;
	uint32_t size;
	uint32_t mask;

	/* Doorbell: the software's release store of its tail (MMIO in real
	 * hardware). Own cache line: it is the only word both sides touch. */
	struct {
		_Atomic uint32_t tail;
	} db RXB_CACHE_ALIGNED;

	/* NIC state, touched only by the NIC thread (except `head`, which
	 * monitors read with relaxed loads for occupancy). */
	struct {
		_Atomic uint32_t head; /* next descriptor the NIC consumes */
		uint32_t fetched;      /* [head, fetched) are prefetched inside the NIC */
		uint32_t tail_seen;    /* NIC's cached copy of the doorbell */
		uint32_t prefetch;     /* descriptors fetched per descriptor read */
	} nic RXB_CACHE_ALIGNED;
};

/* Allocate the descriptors; -ENOMEM with "out of memory: <what> of <size>
 * descriptors (<bytes> bytes)" in err. */
int rxb_descring_init(struct rxb_descring *r, uint32_t size, uint32_t prefetch, const char *what,
		      struct rxb_err *err);
void rxb_descring_fini(struct rxb_descring *r);

static inline uint32_t rxb_relaxed_load(_Atomic uint32_t *p)
{
	return atomic_load_explicit(p, memory_order_relaxed);
}

/* Owner-only update of an index that monitors may read: plain store, no RMW. */
static inline void rxb_relaxed_store(_Atomic uint32_t *p, uint32_t v)
{
	atomic_store_explicit(p, v, memory_order_relaxed);
}

/* Software: publish descriptors up to `tail` to the NIC.
 * release: pairs with the acquire in rxb_descring_nic_unfetched(), so the
 * descriptor contents written before this store are visible to the NIC. */
static inline void rxb_descring_doorbell(struct rxb_descring *r, uint32_t tail)
{
	atomic_store_explicit(&r->db.tail, tail, memory_order_release);
}

/* NIC: posted descriptors not yet prefetched, looking for at least `want`.
 * The doorbell is re-read (with acquire) only when the cached copy falls
 * short: one acquire per batch, not per descriptor. */
static inline uint32_t rxb_descring_nic_unfetched(struct rxb_descring *r, uint32_t want)
{
	if (r->nic.tail_seen - r->nic.fetched < want)
		/* acquire: pairs with rxb_descring_doorbell(); makes the
		 * descriptors written before the doorbell readable. */
		r->nic.tail_seen = atomic_load_explicit(&r->db.tail, memory_order_acquire);
	return r->nic.tail_seen - r->nic.fetched;
}

/* NIC: descriptors posted and not yet consumed (prefetched ones included).
 * With `exact` false the doorbell is re-read only when the NIC knows of
 * none, which is enough to answer "is it empty?". */
static inline uint32_t rxb_descring_nic_avail(struct rxb_descring *r, bool exact)
{
	uint32_t prefetched = r->nic.fetched - rxb_relaxed_load(&r->nic.head);

	return prefetched + rxb_descring_nic_unfetched(r, exact ? UINT32_MAX : !prefetched);
}

/* NIC: move up to `n` posted descriptors into the NIC's prefetch cache.
 * Returns the number fetched; adds to `*reads` the PCIe read transactions it
 * took (one per contiguous run of slots: a wrap splits the run). */
static inline uint32_t rxb_descring_nic_fetch(struct rxb_descring *r, uint32_t n, uint16_t *reads)
{
	uint32_t unfetched = rxb_descring_nic_unfetched(r, n);
	uint32_t first = r->nic.fetched & r->mask;

	if (n > unfetched)
		n = unfetched;
	if (n == 0)
		return 0;
	*reads += 1 + (first + n > r->size);
	r->nic.fetched += n;
	return n;
}

/* NIC: is there a descriptor for the next packet? Prefetches a batch when the
 * NIC's cache is empty, as NICs read descriptors in bursts. */
static inline bool rxb_descring_nic_ready(struct rxb_descring *r, uint16_t *reads)
{
	if (r->nic.fetched != rxb_relaxed_load(&r->nic.head))
		return true;
	return rxb_descring_nic_fetch(r, r->nic.prefetch, reads) != 0;
}

/* NIC: consume the descriptor at head (must be fetched). Returns its slot. */
static inline uint32_t rxb_descring_nic_take(struct rxb_descring *r, rxb_buf_t *buf)
{
	uint32_t head = rxb_relaxed_load(&r->nic.head);
	uint32_t slot = head & r->mask;

	*buf = r->desc[slot];
	rxb_relaxed_store(&r->nic.head, head + 1);
	return slot;
}

/* ------------------------------------------------------- completion ring */

#define RXB_CR_DONE 1u

struct rxb_cr_entry {
	uint32_t index; /* descriptor slot that holds the packet */
	uint32_t len;
	uint32_t hash;
	_Atomic uint32_t flags; /* RXB_CR_DONE == generation of the writer's pass */
};

/* A completion ring: written only by the NIC, read only by software, which
 * never writes an entry (no cache-line ping-pong); it only publishes how far
 * it has read. */
struct rxb_cr {
	/* Read-only after init, on a line of their own (see rxb_descring). */
	void *ent; /* struct rxb_cr_entry, or the Bx entry type of rxBisect */
	uint32_t size;
	uint32_t mask;
	uint32_t shift; /* log2(size): the generation is bit `shift` of an index */

	struct {
		_Atomic uint32_t prod; /* next entry the NIC writes */
		uint32_t cons_seen;    /* NIC's cached copy of sw.cons_pub */
	} nic RXB_CACHE_ALIGNED;

	struct {
		uint32_t cons;             /* next entry software reads (private) */
		_Atomic uint32_t cons_pub; /* cons as last published to the NIC */
	} sw RXB_CACHE_ALIGNED;
};

_Static_assert(offsetof(struct rxb_descring, db) >= RXB_CACHE_LINE &&
		       offsetof(struct rxb_cr, nic) >= RXB_CACHE_LINE,
	       "read-only ring fields must not share a line with written state");

/* The index logic (room, generation, publish) is shared by completion rings
 * and rxBisect's Bx rings; only the entry layout differs. */
int rxb_cr_init(struct rxb_cr *cr, uint32_t size, size_t entry_size, const char *what,
		struct rxb_err *err);
void rxb_cr_fini(struct rxb_cr *cr);

/* Sense reversal: entries start zeroed; the pass starting at index i writes
 * done = generation(i), which is 1 on the first pass and flips on every wrap,
 * so a reader at index i sees a stale entry of the previous pass as not done. */
static inline uint32_t rxb_cr_gen(const struct rxb_cr *cr, uint32_t idx)
{
	return ((idx >> cr->shift) & 1u) ^ 1u;
}

/* NIC: room for one more entry? Re-reads the consumer index only when the
 * cached copy says full. */
static inline bool rxb_cr_nic_has_room(struct rxb_cr *cr)
{
	uint32_t prod = rxb_relaxed_load(&cr->nic.prod);

	if (prod - cr->nic.cons_seen < cr->size)
		return true;
	/* acquire: pairs with the release in rxb_cr_sw_publish(); software has
	 * finished reading the entries it released, so they may be rewritten. */
	cr->nic.cons_seen = atomic_load_explicit(&cr->sw.cons_pub, memory_order_acquire);
	return prod - cr->nic.cons_seen < cr->size;
}

/* NIC: entries it can write now, from software's latest release (a room
 * query that must agree with any sequence of rxb_cr_nic_has_room calls). */
static inline uint32_t rxb_cr_nic_free(struct rxb_cr *cr)
{
	/* acquire: pairs with the release in rxb_cr_sw_publish(), as above. */
	cr->nic.cons_seen = atomic_load_explicit(&cr->sw.cons_pub, memory_order_acquire);
	return cr->size - (rxb_relaxed_load(&cr->nic.prod) - cr->nic.cons_seen);
}

/* Ask for the line holding p with intent to write (PREFETCHW; CPUs without
 * it execute it as a no-op), so its ownership is on its way before the
 * store that needs it. */
static inline void rxb_prefetch_for_write(const void *p)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("prefetchw %0" : : "m"(*(const volatile char *)p));
#else
	__builtin_prefetch(p, 1, 3);
#endif
}

/* NIC: ask, for writing, for the line of entries after the one entry prod
 * is in (entries of entry_size bytes, a divisor of the line). The line
 * being written is the one software polls, so a CPU playing the NIC waits
 * for it on each store; the next one is idle until software reaches it,
 * and asking for it now lets its transfer overlap this line's writes
 * instead of following them (docs/pmd.md, "Owning the next line of
 * entries"). */
static inline void rxb_cr_prefetch_next_line(void *ent, size_t entry_size, uint32_t mask,
					     uint32_t prod)
{
	uint32_t ahead = (uint32_t)(RXB_CACHE_LINE / entry_size);

	rxb_prefetch_for_write((char *)ent + ((prod + ahead) & mask) * entry_size);
}

/* NIC: write one entry (caller checked room). */
static inline void rxb_cr_nic_write(struct rxb_cr *cr, uint32_t index, uint32_t len, uint32_t hash)
{
	uint32_t prod = rxb_relaxed_load(&cr->nic.prod);
	struct rxb_cr_entry *e = (struct rxb_cr_entry *)cr->ent + (prod & cr->mask);

	RXB_DEBUG_CHECK(prod - cr->nic.cons_seen < cr->size, "CR written while full");
	rxb_cr_prefetch_next_line(cr->ent, sizeof(*e), cr->mask, prod);
	e->index = index;
	e->len = len;
	e->hash = hash;
	/* release: pairs with the acquire in rxb_cr_sw_peek(); publishes the
	 * fields above together with the done bit. */
	atomic_store_explicit(&e->flags, rxb_cr_gen(cr, prod), memory_order_release);
	rxb_relaxed_store(&cr->nic.prod, prod + 1);
}

/* Is an entry with these flags done for a reader at index idx? */
static inline bool rxb_cr_done(const struct rxb_cr *cr, uint32_t flags, uint32_t idx)
{
	return (flags & RXB_CR_DONE) == rxb_cr_gen(cr, idx);
}

/* Software: the entry at cons + i if it is done, else NULL. */
static inline const struct rxb_cr_entry *rxb_cr_sw_peek(struct rxb_cr *cr, uint32_t i)
{
	uint32_t idx = cr->sw.cons + i;
	const struct rxb_cr_entry *e = (const struct rxb_cr_entry *)cr->ent + (idx & cr->mask);
	/* acquire: pairs with the release in rxb_cr_nic_write(). */
	uint32_t flags = atomic_load_explicit((_Atomic uint32_t *)&e->flags, memory_order_acquire);

	return rxb_cr_done(cr, flags, idx) ? e : NULL;
}

/* Software: release `n` read entries back to the NIC.
 * release: pairs with the acquire in rxb_cr_nic_has_room(); our reads of the
 * entries happen before the NIC overwrites them. */
static inline void rxb_cr_sw_publish(struct rxb_cr *cr, uint32_t n)
{
	cr->sw.cons += n;
	atomic_store_explicit(&cr->sw.cons_pub, cr->sw.cons, memory_order_release);
}

/* Anyone: entries written and not yet released, as a signed difference.
 * The two indices cannot be read at one instant, so the producer index is
 * read first: both only grow, so what it gives minus the consumer index
 * read after it is at most the entries held when that second load ran,
 * never more than the ring holds. The consumer may meanwhile release
 * entries written after the first load; the difference is then negative
 * (the ring was nearly empty). The other order (consumer first) can read
 * "full" for a ring that held one entry, or more than the ring holds: the
 * producer runs ahead between the loads, or its index is seen behind a
 * consumer that already read the entries (software acquires the entry's
 * flags, which the NIC stores before prod). Tests check the order on this
 * value: rxb_cr_occupancy() would turn a reading above the size into 0. */
static inline int32_t rxb_cr_occupancy_raw(struct rxb_cr *cr)
{
	/* acquire: the consumer index load below stays after this one (no
	 * release pairs with it: the NIC stores prod relaxed). */
	uint32_t prod = atomic_load_explicit(&cr->nic.prod, memory_order_acquire);

	return (int32_t)(prod - rxb_relaxed_load(&cr->sw.cons_pub));
}

/* Anyone: rxb_cr_occupancy_raw() within 0 .. size, the bound callers rely
 * on (a negative reading means the ring was nearly empty: 0). */
static inline uint32_t rxb_cr_occupancy(struct rxb_cr *cr)
{
	int32_t used = rxb_cr_occupancy_raw(cr);

	return used < 0 || (uint32_t)used > cr->size ? 0 : (uint32_t)used;
}

/* The completion rings behind rxb_privring_occupancy(),
 * rxb_shring_occupancy() and rxb_bisect_occupancy(): the concurrent tests
 * read them with rxb_cr_occupancy_raw(). */
struct rxb_privring;
struct rxb_shring;
struct rxb_bisect;
struct rxb_cr *rxb_privring_cr(struct rxb_privring *pr, uint32_t q);
struct rxb_cr *rxb_shring_cr(struct rxb_shring *sh, uint32_t core);
struct rxb_cr *rxb_bisect_cr(struct rxb_bisect *bs, uint32_t bx);

/* ------------------------------------------------------------- helpers */

static inline void rxb_nic_count(struct rxb_nic_stats *s, enum rxb_nic_counter c, uint64_t v)
{
	rxb_counter_add(&s->c[c], v);
}

static inline void rxb_sw_count(struct rxb_sw_stats *s, enum rxb_sw_counter c, uint64_t v)
{
	rxb_counter_add(&s->c[c], v);
}

/* Record a drop: sets the delivery outcome and bumps the cause's counter. */
static inline int rxb_nic_drop(struct rxb_nic_stats *s, struct rxb_delivery *d,
			       enum rxb_drop_cause cause)
{
	rxb_nic_count(s, RXB_NIC_DROP_FIRST + cause, 1);
	d->drop = (int32_t)cause;
	return d->drop;
}

/* Up to n fresh buffers, as many as the allocator has (its get is
 * all-or-nothing: halve until it gives). A receive then takes as many
 * packets as it can re-arm: a short pool slows reception instead of
 * stopping it until a whole burst's worth is free, which never happens
 * once the rings hold nearly all of the pool. */
static inline unsigned rxb_alloc_get_upto(const struct rxb_allocator *a, rxb_buf_t *bufs,
					  unsigned n)
{
	while (n != 0 && a->get(a->ctx, bufs, n) != n)
		n /= 2;
	return n;
}

/* A room query's answer "it would drop": the cause into *cause (may be
 * NULL), false. */
static inline bool rxb_nic_no_room(enum rxb_drop_cause *cause, enum rxb_drop_cause why)
{
	if (cause != NULL)
		*cause = why;
	return false;
}

/* The NIC took `buf` for the packet: write its bytes (struct rxb_rx_meta). */
static inline void rxb_nic_write_payload(const struct rxb_rx_meta *meta, rxb_buf_t buf)
{
	if (meta->write != NULL)
		meta->write(meta->write_arg, buf);
}

/* The step of a design's bulk delivery after one packet whose single
 * entry returned rc (0 delivered, 1 dropped, < 0 refused): counts it into
 * *handled unless refused, and says whether the burst goes on (not after a
 * refusal, nor after a drop when stop_on_drop). The loop is then
 *   while (k < n && rxb_burst_next(one(..., &d[k]), stop_on_drop, &k));
 * around an inline single entry, as include/rxb/iface.h's burst contract. */
static inline bool rxb_burst_next(int rc, bool stop_on_drop, unsigned *handled)
{
	if (rc < 0)
		return false;
	(*handled)++;
	return rc == 0 || !stop_on_drop;
}

/* Start a delivery record for a packet steered to `dest`. */
static inline void rxb_delivery_start(struct rxb_delivery *d, uint32_t dest)
{
	d->drop = -1;
	d->ring = dest;
	d->src_ring = RXB_NONE;
	d->src_index = RXB_NONE;
	d->buf = RXB_BUF_NONE;
	d->notify_ring = RXB_NONE;
	d->desc_reads = 0;
	d->cmpl_writes = 0;
}

/* The record of a packet refused (-EINVAL: a source or destination that
 * does not exist, or a source its destination cannot take buffers from):
 * nothing delivered, nothing counted. */
static inline int rxb_delivery_refuse(struct rxb_delivery *d, uint32_t dest)
{
	rxb_delivery_start(d, dest);
	return -EINVAL;
}

/* The application hands buffers back: count them (for the census) and put
 * them into the calling core's allocator. */
static inline void rxb_sw_free(struct rxb_sw_stats *s, const struct rxb_allocator *a,
			       const rxb_buf_t *bufs, unsigned n)
{
	a->put(a->ctx, bufs, n);
	rxb_sw_count(s, RXB_SW_FREED, n);
}

/* A growable list of buffer handles, used by the invariant checkers. */
struct rxb_buflist {
	rxb_buf_t *v;
	size_t n;
	size_t cap;
};

/* Append b: 0, or -ENOMEM with a message in err. */
int rxb_buflist_push(struct rxb_buflist *l, rxb_buf_t b, struct rxb_err *err);
void rxb_buflist_fini(struct rxb_buflist *l);
/* Check no handle appears twice (sorts the list); message into err. */
int rxb_buflist_check_unique(struct rxb_buflist *l, const char *what, struct rxb_err *err);

/* ------------------------------------------------------------- spinlock */

/* A test-and-test-and-set spinlock for short software critical sections
 * (shRing's repost lock). Waiters spin on a relaxed load, so the line stays
 * shared in their caches until the holder's release store, and try the
 * exchange only when the lock looks free. After RXB_SPIN_BEFORE_YIELD spins
 * a waiter calls sched_yield(): when threads outnumber CPUs (CI runs three
 * or more threads on two CPUs) the holder may be preempted, and a waiter
 * that keeps spinning only delays the holder getting its CPU back by up to
 * a scheduler quantum per acquisition. */
#define RXB_SPIN_BEFORE_YIELD 256u

struct rxb_spinlock {
	_Atomic uint32_t locked;
};

static inline void rxb_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

static inline void rxb_spin_lock(struct rxb_spinlock *l)
{
	unsigned spins = 0;

	/* acquire: pairs with the release in rxb_spin_unlock(); what the
	 * previous holder wrote under the lock is visible to us. */
	while (atomic_exchange_explicit(&l->locked, 1, memory_order_acquire) != 0) {
		/* relaxed: only a hint that the lock may be free; the
		 * exchange above is what orders. */
		while (atomic_load_explicit(&l->locked, memory_order_relaxed) != 0) {
			if (++spins < RXB_SPIN_BEFORE_YIELD) {
				rxb_cpu_relax();
			} else {
				spins = 0;
				sched_yield();
			}
		}
	}
}

/* release: pairs with the acquire in rxb_spin_lock(); our writes under the
 * lock happen before the next holder's reads. */
static inline void rxb_spin_unlock(struct rxb_spinlock *l)
{
	atomic_store_explicit(&l->locked, 0, memory_order_release);
}

#endif /* RXB_LIB_RING_H */
