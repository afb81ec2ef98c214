/* SPDX-License-Identifier: BSD-3-Clause
 * rxb_iface_deliver_burst(): on random sequences, for every design, a burst
 * gives what the same packets delivered one by one give (outcome of each,
 * counters, rings), stops where the header says, and conserves packets and
 * buffers. Two identical interfaces run side by side: A one call per
 * packet, B one call per burst. */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "harness.h"
#include "rxb/iface.h"
#include "rxb/privring.h"

#define CORES      4u
#define BURST      32u
#define ROUNDS     3000u
/* Every eighth burst may hold this many packets: past two RXB_BURST_MAX,
 * so a design that delivers a long burst a chunk at a time crosses its
 * chunks. */
#define LONG_BURST (2 * RXB_BURST_MAX + 32)

struct design {
	struct rxb_iface_config c;
	uint32_t group; /* dest d's source is d / group (spool: its port's queue) ... */
	bool any_src;   /* ... or any source (rxBisect, all-to-all) ... */
	bool two_sets;  /* ... or also CORES + d / 2 (dynamic shRing's shared set, share 2) */
};

static const struct design designs[] = {
	{ .c = { .arch = RXB_ARCH_PRIVRING, .rx_size = 64 }, .group = 1 },
	{ .c = { .arch = RXB_ARCH_SMALL_PRIVRING, .rx_size = 32 }, .group = 1 },
	{ .c = { .arch = RXB_ARCH_SHRING, .rx_size = 64, .share_degree = 2 }, .group = 2 },
	{ .c = { .arch = RXB_ARCH_SHRING_LIST, .rx_size = 64, .share_degree = 2 }, .group = 2 },
	{ .c = { .arch = RXB_ARCH_DYN_SHRING, .rx_size = 64, .share_degree = 2 },
	  .group = 1,
	  .two_sets = true },
	/* CRs smaller than the rings: deliveries from sources drop too */
	{ .c = { .arch = RXB_ARCH_DYN_SHRING, .rx_size = 64, .cr_size = 16, .share_degree = 2 },
	  .group = 1,
	  .two_sets = true },
	{ .c = { .arch = RXB_ARCH_RXBISECT, .ax_size = 64, .bx_size = 128 },
	  .group = 1,
	  .any_src = true },
	/* spool: dest d's source is its port's queue (rxb_spool_queue_of) */
	{ .c = { .arch = RXB_ARCH_SPOOL,
		 .spool = { .n_ports = 8, .mode = RXB_SPOOL_NONE, .depth = 64 } } },
	/* ports sharing queues: a packet in another port's queue is refused */
	{ .c = { .arch = RXB_ARCH_SPOOL,
		 .spool = { .n_ports = 8,
			    .mode = RXB_SPOOL_BASIC,
			    .basic_queues = 3,
			    .depth = 64 } } },
};

/* How a run delivers: from sources or by steering, stopping on drops. */
enum mode { BY_STEERING, FROM_SOURCES, FROM_SOURCES_STOP, MODES };

struct side {
	struct test_pool tp;
	struct rxb_iface *i;
};

static bool side_make(struct side *s, const struct design *dz)
{
	struct rxb_iface_config cfg = dz->c;
	struct rxb_err err = { 0 };

	cfg.n_cores = CORES;
	cfg.seed = 7;
	cfg.dyn = rxb_dynctl_config_default();
	cfg.dyn.window = 1; /* dynamic shRing: a sample decides (switch_sets()) */
	if (test_pool_init(&s->tp, 16384, CORES) != 0)
		return false;
	s->i = rxb_iface_create(&cfg, s->tp.alloc, &err);
	if (s->i == NULL)
		fprintf(stderr, "create %s: %s\n", rxb_arch_name[cfg.arch], err.msg);
	return s->i != NULL;
}

static void side_drop(struct side *s)
{
	rxb_iface_destroy(s->i);
	test_pool_fini(&s->tp);
}

static unsigned poll(struct rxb_iface *i, uint32_t core)
{
	struct rxb_pkt pk[BURST];
	unsigned n = rxb_iface_rx(i, core, pk, BURST, 0);

	for (unsigned k = 0; k < n; k++)
		rxb_iface_free(i, core, &pk[k].buf, 1);
	return n;
}

static void same_delivery(const struct rxb_delivery *a, const struct rxb_delivery *b)
{
	CHECK_EQ(a->drop, b->drop);
	CHECK_EQ(a->ring, b->ring);
	CHECK_EQ(a->src_ring, b->src_ring);
	CHECK_EQ(a->src_index, b->src_index);
	CHECK_EQ(a->buf == RXB_BUF_NONE, b->buf == RXB_BUF_NONE);
	CHECK_EQ(a->notify_ring, b->notify_ring);
	CHECK_EQ(a->desc_reads, b->desc_reads);
	CHECK_EQ(a->cmpl_writes, b->cmpl_writes);
}

/* A packet (sometimes one to refuse) and its source. From sources (avail
 * given), fetches for the source on both sides first, as the emulator does
 * before a burst, and says false when the source has no buffer left. */
static bool plan(struct side s[2], const struct design *dz, uint64_t *seed, uint32_t *avail,
		 uint32_t *want, struct rxb_rx_meta *m, uint32_t *src)
{
	uint32_t dests = rxb_iface_n_dests(s[0].i), srcs = rxb_iface_n_srcs(s[0].i);
	uint32_t dice = test_rand_below(seed, 100);
	rxb_buf_t bufs[BURST];

	*m = (struct rxb_rx_meta){ .len = 64,
				   .hash = (uint32_t)test_rand(seed),
				   .dest = test_rand_below(seed, dests) };
	if (dz->c.arch == RXB_ARCH_SPOOL)
		*src = rxb_spool_queue_of(rxb_iface_spool(s[0].i), m->dest);
	else
		*src = dz->any_src ? test_rand_below(seed, srcs) : m->dest / dz->group;
	if (dz->two_sets && test_rand_below(seed, 2) == 0)
		*src = CORES + m->dest / 2; /* the set the NIC may not steer to: both are primed */
	if (dice < 2)
		m->dest = dests; /* no such destination */
	else if (dice < 4)
		*src = srcs; /* no such source */
	if (avail == NULL || *src >= srcs || m->dest >= dests)
		return true;
	if (want[*src] == avail[*src]) {
		unsigned a = rxb_iface_nic_fetch(s[0].i, *src, bufs, BURST);

		CHECK_EQ(rxb_iface_nic_fetch(s[1].i, *src, bufs, BURST), a);
		avail[*src] += a;
	}
	if (want[*src] == avail[*src])
		return false;
	want[*src]++;
	return true;
}

/* One burst: A delivers packet by packet, B in bursts resumed after each
 * stop; both must agree packet for packet. Returns packets handled. */
static unsigned one_burst(struct side s[2], enum mode mode, const uint32_t *srcs,
			  const struct rxb_rx_meta *m, unsigned n, uint32_t *avail)
{
	const unsigned flags = mode == FROM_SOURCES_STOP ? RXB_BURST_STOP_ON_DROP : 0;
	const uint32_t *from = mode == BY_STEERING ? NULL : srcs;
	struct rxb_delivery da[LONG_BURST], db[LONG_BURST];
	unsigned handled = 0;

	for (unsigned k = 0; k < n; k++) {
		int rc = from ? rxb_iface_deliver_from(s[0].i, from[k], &m[k], &da[k])
			      : rxb_iface_deliver(s[0].i, &m[k], &da[k]);

		CHECK_EQ(rc < 0, m[k].dest >= rxb_iface_n_dests(s[0].i) ||
					 (from && from[k] >= rxb_iface_n_srcs(s[0].i)));
		handled += rc >= 0;
		if (rc >= 0 && from && da[k].buf != RXB_BUF_NONE)
			avail[from[k]]--;
	}
	for (unsigned k = 0; k < n;) {
		unsigned got = rxb_iface_deliver_burst(s[1].i, from ? from + k : NULL, m + k, n - k,
						       db + k, flags);

		for (unsigned j = k; j < k + got; j++) {
			same_delivery(&da[j], &db[j]);
			/* stopping on drops, only the burst's last packet may be one */
			CHECK(flags == 0 || j + 1 == k + got || db[j].drop < 0);
		}
		if (flags != 0 && got != 0 && db[k + got - 1].drop >= 0) {
			k += got; /* stopped after a drop: resume */
			continue;
		}
		if (k + got < n) /* refused: as the single call's -EINVAL */
			CHECK_EQ(db[k + got].buf, RXB_BUF_NONE);
		k += got + 1;
	}
	return handled;
}

static uint64_t total(struct rxb_iface *i, enum rxb_nic_counter c)
{
	uint64_t sum = 0;

	for (uint32_t d = 0; d < rxb_iface_n_dests(i); d++)
		sum += rxb_iface_nic_counter(i, d, c);
	return sum;
}

static void check_side(struct side *s, uint64_t handled)
{
	struct rxb_err err = { 0 };
	uint64_t drops = 0;

	for (uint32_t c = 0; c < rxb_iface_n_cores(s->i); c++)
		while (poll(s->i, c) != 0)
			;
	for (int cause = 0; cause < RXB_DROP_CAUSES; cause++)
		drops += total(s->i, RXB_NIC_DROP_FIRST + cause);
	CHECK_EQ(total(s->i, RXB_NIC_OFFERED), handled);
	CHECK_EQ(total(s->i, RXB_NIC_DELIVERED) + drops, handled);
	CHECK_EQ(rxb_iface_check(s->i, s->tp.pool, &err), 0);
	if (err.msg[0] != '\0')
		fprintf(stderr, "check: %s\n", err.msg);
}

/* Dynamic shRing: now and then both sides get the same controller sample,
 * low or high load in turn, so the NIC switches sets between bursts.
 * Returns whether side B steers to the shared set now. */
static bool switch_sets(struct side s[2], unsigned round)
{
	static const struct rxb_dynctl_sample load[2] = {
		{ .tput_gbps = 20, .mem_bw_gibps = 3 },
		{ .tput_gbps = 190, .mem_bw_gibps = 30 },
	};
	const struct rxb_dynctl_sample *smp = &load[round / 100 % 2];

	if (round % 100 == 0)
		CHECK_EQ(rxb_iface_dyn_sample(s[0].i, smp), rxb_iface_dyn_sample(s[1].i, smp));
	CHECK_EQ(rxb_iface_dyn_mode(s[0].i), rxb_iface_dyn_mode(s[1].i));
	return rxb_iface_dyn_mode(s[1].i) == RXB_DYN_SHARED;
}

static void run(const struct design *dz, enum mode mode)
{
	struct side s[2];
	uint32_t avail[64] = { 0 };
	uint64_t seed = 0x5eed + (uint64_t)mode, handled = 0, drops = 0;
	unsigned shared_rounds = 0;

	if (!side_make(&s[0], dz) || !side_make(&s[1], dz)) {
		CHECK(false);
		return;
	}
	for (unsigned r = 0; r < ROUNDS; r++) {
		struct rxb_rx_meta m[LONG_BURST];
		uint32_t srcs[LONG_BURST], want[64] = { 0 }, k;
		uint32_t n = 1 + test_rand_below(&seed, r % 8 == 0 ? LONG_BURST : BURST);

		for (k = 0; k < n; k++)
			if (!plan(s, dz, &seed, mode == BY_STEERING ? NULL : avail, want, &m[k],
				  &srcs[k]))
				break;
		handled += one_burst(s, mode, srcs, m, k, avail);
		if (dz->two_sets)
			shared_rounds += switch_sets(s, r);
		/* the cores keep up only now and then: rings fill, packets drop */
		for (uint32_t c = 0; c < rxb_iface_n_cores(s[0].i); c++)
			if (test_rand_below(&seed, 12) == 0)
				CHECK_EQ(poll(s[0].i, c), poll(s[1].i, c));
	}
	for (int cause = 0; cause < RXB_DROP_CAUSES; cause++)
		drops += total(s[1].i, RXB_NIC_DROP_FIRST + cause);
	/* the drop paths ran: by steering, rings run dry; from sources only
	 * rxBisect can drop (its Bx is the one ring smaller than the buffers
	 * that may go there) */
	if (mode == BY_STEERING || dz->c.arch == RXB_ARCH_RXBISECT)
		CHECK(drops > 0);
	/* dynamic shRing steered to both sets */
	if (dz->two_sets)
		CHECK(shared_rounds > 0 && shared_rounds < ROUNDS);
	for (uint32_t d = 0; d < rxb_iface_n_dests(s[0].i); d++)
		for (int c = 0; c < RXB_NIC_COUNTERS; c++)
			CHECK_EQ(rxb_iface_nic_counter(s[0].i, d, c),
				 rxb_iface_nic_counter(s[1].i, d, c));
	check_side(&s[0], handled);
	check_side(&s[1], handled);
	side_drop(&s[0]);
	side_drop(&s[1]);
}

static void test_burst_equals_singles(void)
{
	for (size_t k = 0; k < sizeof(designs) / sizeof(designs[0]); k++)
		for (enum mode mode = BY_STEERING; mode < MODES; mode++)
			run(&designs[k], mode);
}

/* The stops, exactly: a refused packet ends the burst before it, and with
 * RXB_BURST_STOP_ON_DROP a dropped packet ends it after itself. */
static void test_burst_stops(void)
{
	struct side s;
	struct rxb_rx_meta m[4] = { { .len = 64, .dest = 0 },
				    { .len = 64, .dest = 1 },
				    { .len = 64, .dest = CORES },
				    { .len = 64, .dest = 2 } };
	struct rxb_delivery d[4];
	uint32_t size;

	if (!side_make(&s, &designs[0])) {
		CHECK(false);
		return;
	}
	CHECK_EQ(rxb_iface_deliver_burst(s.i, NULL, m, 4, d, 0), 2);
	CHECK_EQ(d[2].buf, RXB_BUF_NONE);
	CHECK_EQ(rxb_iface_nic_counter(s.i, 2, RXB_NIC_OFFERED), 0); /* not looked at */
	CHECK_EQ(rxb_iface_deliver_burst(s.i, NULL, m, 0, d, 0), 0);
	/* fill core 0's ring, then: the drop stops the burst after itself */
	size = rxb_privring_ring_size(rxb_iface_privring(s.i));
	for (uint32_t k = 0; k < size; k++)
		CHECK_EQ(rxb_iface_deliver_burst(s.i, NULL, m, 1, d, 0), 1);
	CHECK_EQ(rxb_iface_deliver_burst(s.i, NULL, m, 2, d, RXB_BURST_STOP_ON_DROP), 1);
	CHECK(d[0].drop >= 0);
	CHECK_EQ(rxb_iface_deliver_burst(s.i, NULL, m, 2, d, 0), 2); /* goes on without */
	CHECK(d[0].drop >= 0 && d[1].drop < 0);
	check_side(&s, size + 2 + 1 + 2);
	side_drop(&s);
}

int main(void)
{
	RUN(test_burst_equals_singles);
	RUN(test_burst_stops);
	return check_summary();
}
