/* SPDX-License-Identifier: BSD-3-Clause
 *
 * rxb_iface_occupancy() read by a third thread never says more than the
 * ring held. A NIC thread delivers one packet to core 0 only once the
 * core's thread has received (and so released) everything delivered
 * before, so the reception ring never holds more than one entry; the main
 * thread samples its occupancy meanwhile and requires every reading to be
 * 0 or 1. A sampler that loads the consumer index first reads "full" (64)
 * whenever the producer runs ahead between its two loads.
 *
 * privRing, shRing and rxBisect, one core each. Must be race-free under
 * ThreadSanitizer. Packets per design: 2 × 10^5, 2 × 10^4 under sanitizers.
 * Every wait yields (2 CPUs carry the three threads).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "check.h"
#include "harness.h"
#include "rxb/iface.h"

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define PACKETS 20000ull
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define PACKETS 20000ull
#endif
#endif
#ifndef PACKETS
#define PACKETS 200000ull
#endif

#define RING 64u /* every ring of every design here: Rx, CR, Ax, Bx */

struct run {
	struct rxb_iface *i;
	_Atomic uint64_t received; /* by core 0's thread */
	_Atomic int nic_done;
};

static void *nic_main(void *arg)
{
	struct run *r = arg;
	struct rxb_rx_meta m = { .len = 64, .dest = 0 };
	struct rxb_delivery d;

	for (uint64_t sent = 0; sent < PACKETS; sent++) {
		/* acquire: pairs with the release in core_main(); the core has
		 * received every packet before this one, so the ring is empty */
		while (atomic_load_explicit(&r->received, memory_order_acquire) != sent)
			sched_yield();
		CHECK_EQ(rxb_iface_deliver(r->i, &m, &d), 0);
	}
	atomic_store_explicit(&r->nic_done, 1, memory_order_relaxed);
	return NULL;
}

static void *core_main(void *arg)
{
	struct run *r = arg;
	struct rxb_pkt pk;

	while (atomic_load_explicit(&r->received, memory_order_relaxed) < PACKETS) {
		if (rxb_iface_rx(r->i, 0, &pk, 1, 0) == 0) {
			sched_yield();
			continue;
		}
		rxb_iface_free(r->i, 0, &pk.buf, 1);
		/* release: pairs with the acquire in nic_main() */
		atomic_fetch_add_explicit(&r->received, 1, memory_order_release);
	}
	return NULL;
}

static void run_design(const struct rxb_iface_config *base)
{
	struct rxb_iface_config cfg = *base;
	struct run r = { 0 };
	struct test_pool tp;
	struct rxb_err err = { 0 };
	pthread_t nic, core;
	uint64_t samples = 0, above = 0;
	uint32_t most = 0;

	cfg.n_cores = 1;
	CHECK_EQ(test_pool_init(&tp, 1024, 1), 0);
	r.i = rxb_iface_create(&cfg, tp.alloc, &err);
	CHECK(r.i != NULL);
	if (r.i == NULL)
		return;
	pthread_create(&core, NULL, core_main, &r);
	pthread_create(&nic, NULL, nic_main, &r);
	while (!atomic_load_explicit(&r.nic_done, memory_order_relaxed)) {
		uint32_t occ = rxb_iface_occupancy(r.i, 0);

		above += occ > 1;
		most = occ > most ? occ : most;
		if (++samples % 1024 == 0)
			sched_yield();
	}
	pthread_join(nic, NULL);
	pthread_join(core, NULL);
	printf("     %s: %llu occupancy samples, %llu above 1, the most %u\n",
	       rxb_arch_name[cfg.arch], (unsigned long long)samples, (unsigned long long)above,
	       most);
	CHECK_EQ(above, 0);
	CHECK_EQ(rxb_iface_nic_counter(r.i, 0, RXB_NIC_DELIVERED), PACKETS);
	CHECK_EQ(rxb_iface_check(r.i, tp.pool, &err), 0);
	rxb_iface_destroy(r.i);
	test_pool_fini(&tp);
}

static void test_occupancy_never_above_what_the_ring_held(void)
{
	static const struct rxb_iface_config designs[] = {
		{ .arch = RXB_ARCH_PRIVRING, .rx_size = RING },
		{ .arch = RXB_ARCH_SHRING, .rx_size = RING, .cr_size = RING, .share_degree = 1 },
		{ .arch = RXB_ARCH_RXBISECT, .ax_size = RING, .bx_size = RING },
	};

	for (size_t k = 0; k < sizeof(designs) / sizeof(designs[0]); k++)
		run_design(&designs[k]);
}

int main(void)
{
	RUN(test_occupancy_never_above_what_the_ring_held);
	return check_summary();
}
