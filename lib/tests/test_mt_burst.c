/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Threads around rxb_iface_deliver_burst(), for privRing, shRing and
 * rxBisect: one NIC thread delivering random bursts to random cores, one
 * thread per core receiving and freeing, and the main thread sampling
 * every destination's occupancy while they run, as the emulator's sampler
 * does.
 *
 * Checks: the sampled occupancy never exceeds its ring, read before the
 * clamp of rxb_iface_occupancy() (rxb_cr_occupancy_raw(), signed: negative
 * when software released entries written after the producer index was
 * read; above the ring when the indices are read in the wrong order, which
 * the clamp would turn into 0); at the end, offered = delivered + dropped,
 * delivered = received, and the census passes. Must be race-free under
 * ThreadSanitizer. Packets per design: 4 × 10^6, 2 × 10^5 under sanitizers.
 * Every wait yields (2 CPUs may carry all the threads).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "check.h"
#include "harness.h"
#include "ring.h"
#include "rxb/iface.h"

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define PACKETS 200000ull
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define PACKETS 200000ull
#endif
#endif
#ifndef PACKETS
#define PACKETS 4000000ull
#endif

#define CORES 2u
#define RING  64u /* every ring of every design here: Rx, CR, Ax, Bx */

struct run {
	struct rxb_iface *i;
	_Atomic int nic_done;
	uint64_t received[CORES]; /* core c's thread */
};

struct core_arg {
	struct run *r;
	uint32_t core;
};

static void *nic_main(void *arg)
{
	struct run *r = arg;
	struct rxb_rx_meta m[RXB_BURST_MAX];
	struct rxb_delivery d[RXB_BURST_MAX];
	uint64_t seed = 3, sent = 0;

	while (sent < PACKETS) {
		unsigned n = 1 + test_rand_below(&seed, RXB_BURST_MAX), got;

		if (n > PACKETS - sent)
			n = (unsigned)(PACKETS - sent);

		for (unsigned k = 0; k < n; k++)
			m[k] = (struct rxb_rx_meta){ .len = 64,
						     .hash = k,
						     .dest = test_rand_below(&seed, CORES) };
		got = rxb_iface_deliver_burst(r->i, NULL, m, n, d, 0);
		CHECK_EQ(got, n);
		sent += got;
		if (d[n - 1].drop >= 0)
			sched_yield(); /* let the cores run */
	}
	/* release: pairs with the acquire in core_main(); every delivery is
	 * in the rings before a core sees the NIC done */
	atomic_store_explicit(&r->nic_done, 1, memory_order_release);
	return NULL;
}

static void *core_main(void *arg)
{
	struct core_arg *a = arg;
	struct rxb_pkt pk[4];
	uint64_t seed = 11 + a->core;

	for (;;) {
		bool done = atomic_load_explicit(&a->r->nic_done, memory_order_acquire);
		/* small receives: software publishes its consumer index often, so
		 * a sampler's two loads often straddle a publication */
		unsigned n = rxb_iface_rx(a->r->i, a->core, pk, 1 + test_rand_below(&seed, 4), 0);

		for (unsigned k = 0; k < n; k++)
			rxb_iface_free(a->r->i, a->core, &pk[k].buf, 1);
		a->r->received[a->core] += n;
		if (n == 0 && done)
			return NULL;
		if (n == 0)
			sched_yield();
	}
}

/* The completion ring rxb_iface_occupancy(i, c) reads. */
static struct rxb_cr *dest_cr(struct rxb_iface *i, uint32_t c)
{
	switch (rxb_iface_arch(i)) {
	case RXB_ARCH_PRIVRING:
		return rxb_privring_cr(rxb_iface_privring(i), c);
	case RXB_ARCH_SHRING:
		return rxb_shring_cr(rxb_iface_shring(i), c);
	default: /* RXB_ARCH_RXBISECT, the third design here */
		return rxb_bisect_cr(rxb_iface_bisect(i), c);
	}
}

/* Sample until the NIC is done; returns the samples taken. */
static uint64_t sample(struct run *r)
{
	uint64_t samples = 0;

	while (!atomic_load_explicit(&r->nic_done, memory_order_relaxed)) {
		for (uint32_t c = 0; c < CORES; c++) {
			int32_t occ = rxb_cr_occupancy_raw(dest_cr(r->i, c));

			if (occ > (int32_t)RING)
				fprintf(stderr, "occupancy of %u read %d\n", c, occ);
			CHECK(occ <= (int32_t)RING);
		}
		samples++;
		if (samples % 4096 == 0)
			sched_yield();
	}
	return samples;
}

static void run_design(const struct rxb_iface_config *base)
{
	struct rxb_iface_config cfg = *base;
	struct run r = { 0 };
	struct core_arg ca[CORES];
	struct test_pool tp;
	struct rxb_err err = { 0 };
	pthread_t nic, core[CORES];
	uint64_t delivered = 0, dropped = 0, received = 0, samples;

	cfg.n_cores = CORES;
	CHECK_EQ(test_pool_init(&tp, 4096, CORES), 0);
	r.i = rxb_iface_create(&cfg, tp.alloc, &err);
	CHECK(r.i != NULL);
	if (r.i == NULL)
		return;
	for (uint32_t c = 0; c < CORES; c++) {
		ca[c] = (struct core_arg){ &r, c };
		pthread_create(&core[c], NULL, core_main, &ca[c]);
	}
	pthread_create(&nic, NULL, nic_main, &r);
	samples = sample(&r);
	pthread_join(nic, NULL);
	for (uint32_t c = 0; c < CORES; c++) {
		pthread_join(core[c], NULL);
		received += r.received[c];
		delivered += rxb_iface_nic_counter(r.i, c, RXB_NIC_DELIVERED);
		for (int cause = 0; cause < RXB_DROP_CAUSES; cause++)
			dropped += rxb_iface_nic_counter(r.i, c, RXB_NIC_DROP_FIRST + cause);
	}
	printf("     %s: %llu delivered, %llu dropped, %llu occupancy samples\n",
	       rxb_arch_name[cfg.arch], (unsigned long long)delivered, (unsigned long long)dropped,
	       (unsigned long long)samples);
	CHECK_EQ(delivered + dropped, PACKETS);
	CHECK_EQ(delivered, received);
	CHECK_EQ(rxb_iface_check(r.i, tp.pool, &err), 0);
	rxb_iface_destroy(r.i);
	test_pool_fini(&tp);
}

static void test_mt_burst(void)
{
	static const struct rxb_iface_config designs[] = {
		{ .arch = RXB_ARCH_PRIVRING, .rx_size = RING },
		{ .arch = RXB_ARCH_SHRING, .rx_size = RING, .cr_size = RING, .share_degree = 2 },
		{ .arch = RXB_ARCH_RXBISECT, .ax_size = RING, .bx_size = RING },
	};

	for (size_t k = 0; k < sizeof(designs) / sizeof(designs[0]); k++)
		run_design(&designs[k]);
}

int main(void)
{
	RUN(test_mt_burst);
	return check_summary();
}
