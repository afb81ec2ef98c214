/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A packet hand-off between two CPUs at its simplest (handoff.h).
 */
#include "handoff.h"

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "line_transfer.h"

/* Buffers, completion entries and descriptors: a privRing's default. */
#define RING    1024u
#define BURST   32u
/* Bytes from one buffer to the next, as a mbuf with its private line and a
 * 2 KiB data room lie in a mempool. */
#define STRIDE  2432u
#define PACKETS 2000000u
#define MAX_MS  100u

/* NIC -> core, one per packet: the buffer it is in. `lap` is the pass over
 * the ring that wrote it, plus one (0: never written). */
struct entry {
	uint32_t buf, len;
	_Atomic uint32_t lap;
	uint32_t pad;
};

struct handoff {
	struct entry cr[RING];
	uint32_t desc[RING]; /* core -> NIC: buffer indices, in the order to fill them */
	/* the core's descriptor tail (its doorbell), on a line of its own: the
	 * only word written while it runs besides entries, descriptors and buffers */
	_Atomic uint32_t posted __rte_cache_aligned;
	/* written only to end the run; with the buffers' address, read-only */
	_Atomic uint32_t stop __rte_cache_aligned;
	_Atomic uint32_t stopped;
	uint8_t *bufs;
};

static uint32_t lap_of(uint32_t i)
{
	return i / RING + 1;
}

/* The core: take the completed packets in order, read each buffer's first
 * line as a driver reads the mbuf it returns, and post the buffers back. */
static int core_main(void *arg)
{
	struct handoff *h = arg;
	uint32_t cons = 0, posted = RING, b[BURST];
	uint64_t sum = 0;

	while (!atomic_load_explicit(&h->stop, memory_order_relaxed)) {
		unsigned n = 0;

		for (; n < BURST; n++) {
			struct entry *e = &h->cr[(cons + n) % RING];

			/* acquire: pairs with the NIC's release of the entry; its
			 * fields and the buffer's line written before are visible */
			if (atomic_load_explicit(&e->lap, memory_order_acquire) != lap_of(cons + n))
				break;
			b[n] = e->buf;
		}
		for (unsigned k = 0; k < n; k++) {
			sum += *(volatile uint64_t *)(h->bufs + (size_t)b[k] * STRIDE + 16);
			h->desc[(posted + k) % RING] = b[k];
		}
		cons += n;
		posted += n;
		/* release: pairs with the NIC's acquire; the descriptors written and
		 * the buffers read above happen before the NIC reuses them */
		if (n != 0)
			atomic_store_explicit(&h->posted, posted, memory_order_release);
	}
	/* release: pairs with the acquire in emu_handoff_cycles_per_packet();
	 * this lcore's last reads of the rings happen before they are freed
	 * (rte_eal_wait_lcore orders them too, out of ThreadSanitizer's sight) */
	atomic_store_explicit(&h->stopped, 1, memory_order_release);
	return (int)(sum & 1); /* keeps the reads */
}

/* The NIC: per packet, the next posted buffer, its first line written (what
 * a receive's mbuf reset writes), a completion entry. In-flight packets are
 * bounded by the RING buffers, so the completion ring cannot overflow:
 * entry i is rewritten only for packet i + RING, whose buffer the core posts
 * after reading entry i. */
static uint64_t nic_run(struct handoff *h, uint64_t deadline)
{
	uint32_t head = 0, seen = RING;

	while (head < PACKETS && rte_rdtsc() < deadline) {
		unsigned n;

		if (head == seen)
			/* acquire: pairs with the core's release of its tail */
			seen = atomic_load_explicit(&h->posted, memory_order_acquire);
		n = RTE_MIN(seen - head, BURST);
		for (unsigned k = 0; k < n; k++) {
			uint32_t i = head + k, b = h->desc[i % RING];
			uint8_t *line = h->bufs + (size_t)b * STRIDE;
			struct entry *e = &h->cr[i % RING];

			*(uint64_t *)(line + 16) = i;  /* data_off, refcnt, nb_segs, port */
			*(uint64_t *)(line + 32) = 64; /* packet_type, pkt_len */
			e->buf = b;
			e->len = 64;
			/* release: pairs with the core's acquire of the entry */
			atomic_store_explicit(&e->lap, lap_of(i), memory_order_release);
		}
		head += n;
	}
	return head;
}

double emu_handoff_cycles_per_packet(void)
{
	unsigned partner = emu_other_cpu_lcore();
	struct handoff *h;
	uint64_t t0, packets;

	if (partner == RTE_MAX_LCORE)
		return NAN;
	h = rte_zmalloc("rxb_handoff", sizeof(*h), RTE_CACHE_LINE_SIZE);
	if (h == NULL)
		return NAN;
	h->bufs = rte_zmalloc("rxb_handoff_bufs", (size_t)RING * STRIDE, RTE_CACHE_LINE_SIZE);
	for (uint32_t i = 0; i < RING; i++)
		h->desc[i] = i;
	atomic_store_explicit(&h->posted, RING, memory_order_relaxed);
	if (h->bufs == NULL || rte_eal_remote_launch(core_main, h, partner) != 0) {
		rte_free(h->bufs);
		rte_free(h);
		return NAN;
	}
	t0 = rte_rdtsc();
	packets = nic_run(h, t0 + rte_get_tsc_hz() / 1000 * MAX_MS);
	t0 = rte_rdtsc() - t0;
	atomic_store_explicit(&h->stop, 1, memory_order_relaxed);
	while (!atomic_load_explicit(&h->stopped, memory_order_acquire))
		;
	rte_eal_wait_lcore(partner);
	rte_free(h->bufs);
	rte_free(h);
	return packets ? (double)t0 / (double)packets : NAN;
}
