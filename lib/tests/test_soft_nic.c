/* SPDX-License-Identifier: BSD-3-Clause
 * What a software NIC that moves real bytes needs from the library
 * (net_rxbisect): the payload write before publication, reclaiming every
 * buffer at close, and the frame hash a NIC computes. */
#include <string.h>

#include "check.h"
#include "harness.h"
#include "rxb/iface.h"
#include "rxb/rss.h"

#define CORES 4u

#define POOL_BUFS 4096u

/* The write hook sees each delivered buffer once, before software can
 * receive it: it stamps the buffer (the test pool's handles are indices, so
 * a side table stands for its bytes), and the receiver checks the stamp of
 * every packet it gets. */
struct stamp {
	uint32_t bytes[POOL_BUFS];
	uint32_t next; /* value to write */
	uint32_t calls;
	struct rxb_iface *iface;
	uint32_t unread_at_call; /* entries of the destination when called */
	uint32_t dest;
};

static void stamp_write(void *arg, rxb_buf_t buf)
{
	struct stamp *s = arg;

	CHECK(buf < POOL_BUFS);
	if (buf < POOL_BUFS)
		s->bytes[buf] = s->next;
	s->unread_at_call = rxb_iface_occupancy(s->iface, s->dest);
	s->calls++;
}

static void check_design(enum rxb_arch arch)
{
	struct rxb_iface_config cfg = { .arch = arch,
					.n_cores = CORES,
					.rx_size = 64,
					.ax_size = 64,
					.bx_size = 128,
					.share_degree = 2 };
	struct test_pool tp;
	struct rxb_err err = { 0 };
	struct rxb_iface *i;
	static struct stamp st;
	uint64_t free_before;
	uint32_t delivered = 0, dropped = 0, received = 0, bad = 0;
	long back;

	CHECK(test_pool_init(&tp, POOL_BUFS, CORES) == 0);
	i = rxb_iface_create(&cfg, tp.alloc, &err);
	CHECK(i != NULL);
	if (i == NULL)
		return;
	memset(&st, 0, sizeof(st));
	st.iface = i;
	/* Core 0 never polls: its ring fills and drops must not call the hook. */
	for (uint32_t k = 0; k < 2000; k++) {
		struct rxb_rx_meta m = {
			.len = 64, .dest = k % CORES, .write = stamp_write, .write_arg = &st
		};
		struct rxb_delivery d;
		uint32_t calls = st.calls;

		st.next = k;
		st.dest = m.dest;
		CHECK(rxb_iface_deliver(i, &m, &d) >= 0);
		if (d.drop < 0) {
			delivered++;
			CHECK(st.calls == calls + 1);
			/* called before the entry was published */
			CHECK(st.unread_at_call + 1 == rxb_iface_occupancy(i, m.dest));
		} else {
			dropped++;
			CHECK(st.calls == calls);
		}
		for (uint32_t c = 1; c < CORES && k % 16 == 15; c++) {
			struct rxb_pkt pk[RXB_BURST_MAX];
			unsigned n = rxb_iface_rx(i, c, pk, RXB_BURST_MAX, k);

			for (unsigned j = 0; j < n; j++) {
				/* the stamp of a packet for core c */
				bad += st.bytes[pk[j].buf] % CORES != c;
				rxb_iface_free(i, c, &pk[j].buf, 1);
			}
			received += n;
		}
	}
	CHECK(st.calls == delivered);
	CHECK(dropped > 0 && received > 0);
	CHECK(bad == 0);
	/* Every buffer back: the pool ends full. */
	free_before = rxb_pool_free_count(tp.pool);
	back = rxb_iface_reclaim(i, &err);
	CHECK(back > 0);
	CHECK(free_before + (uint64_t)back == POOL_BUFS);
	CHECK(rxb_pool_free_count(tp.pool) == POOL_BUFS);
	rxb_iface_destroy(i);
	test_pool_fini(&tp);
}

static void test_write_then_publish_and_reclaim(void)
{
	check_design(RXB_ARCH_PRIVRING);
	check_design(RXB_ARCH_SHRING);
	check_design(RXB_ARCH_SHRING_LIST);
	check_design(RXB_ARCH_DYN_SHRING);
	check_design(RXB_ARCH_RXBISECT);
}

/* Frames built by hand, hashed as the address/port wrappers hash them. */
static void test_frame_hash(void)
{
	struct rxb_rss rss;
	struct rxb_err err;
	uint8_t f[128] = { 0 };
	uint8_t s6[16], d6[16];
	uint16_t dport;

	CHECK(rxb_rss_init(&rss, rxb_rss_default_key, RXB_RSS_KEY_LEN, &err) == 0);
	/* IPv4/UDP 66.9.149.187:2794 -> 161.142.100.80:1766 (a Microsoft vector) */
	f[12] = 0x08;
	f[14] = 0x45;
	f[23] = 17;
	memcpy(f + 26, (uint8_t[]){ 66, 9, 149, 187, 161, 142, 100, 80 }, 8);
	memcpy(f + 34, (uint8_t[]){ 2794 >> 8, 2794 & 0xff, 1766 >> 8, 1766 & 0xff }, 4);
	CHECK(rxb_rss_frame(&rss, f, 60, &dport) == 0x51ccc178u);
	CHECK(dport == 1766);
	CHECK(rxb_rss_frame_l3(&rss, f, 60) == 0x323e8fc2u); /* addresses only */
	/* a fragment: addresses only */
	f[20] = 0x20;
	CHECK(rxb_rss_frame(&rss, f, 60, &dport) == 0x323e8fc2u);
	CHECK(dport == 0);
	f[20] = 0;
	/* the same behind an 802.1Q tag */
	memmove(f + 18, f + 14, 60);
	f[12] = 0x81;
	f[13] = 0x00;
	f[16] = 0x08;
	f[17] = 0x00;
	CHECK(rxb_rss_frame(&rss, f, 64, &dport) == 0x51ccc178u);
	/* truncated and non-IP frames hash to 0 */
	CHECK(rxb_rss_frame(&rss, f, 20, &dport) == 0);
	f[16] = 0x08;
	f[17] = 0x06; /* ARP */
	CHECK(rxb_rss_frame(&rss, f, 64, &dport) == 0);
	/* IPv6/TCP: as rxb_rss_ipv6_l4 over the same fields */
	memset(f, 0, sizeof(f));
	f[12] = 0x86;
	f[13] = 0xdd;
	f[14] = 0x60;
	f[20] = 6;
	for (int k = 0; k < 16; k++) {
		s6[k] = f[22 + k] = (uint8_t)(0x3f + k);
		d6[k] = f[38 + k] = (uint8_t)(0xfe - k);
	}
	memcpy(f + 54, (uint8_t[]){ 0x0a, 0xea, 0x06, 0xe6 }, 4);
	CHECK(rxb_rss_frame(&rss, f, 74, &dport) == rxb_rss_ipv6_l4(&rss, s6, d6, 0x0aea, 0x06e6));
	CHECK(dport == 0x06e6);
	f[20] = 0; /* hop-by-hop extension header: addresses only */
	CHECK(rxb_rss_frame(&rss, f, 74, &dport) == rxb_rss_ipv6(&rss, s6, d6));
}

/* The interface over a fresh pool of 1024 buffers for 2 cores, or NULL. */
static struct rxb_iface *two_core_iface(const struct rxb_iface_config *cfg, struct test_pool *tp)
{
	struct rxb_err err = { 0 };
	struct rxb_iface *i;

	CHECK(test_pool_init(tp, 1024, 2) == 0);
	i = rxb_iface_create(cfg, tp->alloc, &err);
	CHECK(i != NULL);
	return i;
}

/* Take every buffer the pool has above `keep` free; returns the count. */
static uint64_t hold_all_but(struct test_pool *tp, rxb_buf_t *held, uint64_t keep)
{
	uint64_t n = 0;

	while (rxb_pool_free_count(tp->pool) > keep &&
	       tp->alloc[0].get(tp->alloc[0].ctx, &held[n], 1) == 1)
		n++;
	return n;
}

/* A pool with only a few buffers free beyond what the rings hold: each
 * receive re-arms what it can and takes that many packets, so freeing them
 * keeps reception going (no burst-sized all-or-nothing stall). */
static void short_pool(enum rxb_arch arch)
{
	struct rxb_iface_config cfg = { .arch = arch,
					.n_cores = 2,
					.rx_size = 64,
					.ax_size = 64,
					.bx_size = 128,
					.share_degree = 2 };
	struct test_pool tp;
	struct rxb_err err = { 0 };
	static rxb_buf_t held[POOL_BUFS];
	uint64_t n_held, delivered = 0, received = 0;
	struct rxb_iface *i = two_core_iface(&cfg, &tp);

	if (i == NULL)
		return;
	n_held = hold_all_but(&tp, held, 3); /* plus what core 1's cache holds */
	for (uint32_t k = 0; k < 40; k++) {
		struct rxb_rx_meta m = { .len = 64, .dest = 1 };
		struct rxb_delivery d;

		rxb_iface_deliver(i, &m, &d);
		delivered += d.drop < 0;
	}
	for (int poll = 0; poll < 200 && received < delivered; poll++) {
		struct rxb_pkt pk[RXB_BURST_MAX];
		unsigned n = rxb_iface_rx(i, 1, pk, RXB_BURST_MAX, 0);

		for (unsigned j = 0; j < n; j++)
			rxb_iface_free(i, 1, &pk[j].buf, 1);
		received += n;
	}
	CHECK(delivered == 40);
	CHECK(received == delivered);
	CHECK(rxb_counter_read(&rxb_iface_sw_stats(i, 1)->c[RXB_SW_ALLOC_FAIL]) > 0);
	tp.alloc[0].put(tp.alloc[0].ctx, held, (unsigned)n_held);
	CHECK(rxb_iface_check(i, tp.pool, &err) == 0);
	rxb_iface_destroy(i);
	test_pool_fini(&tp);
}

static void test_short_pool_keeps_receiving(void)
{
	short_pool(RXB_ARCH_PRIVRING);
	short_pool(RXB_ARCH_SHRING);
	short_pool(RXB_ARCH_RXBISECT);
}

/* rxBisect with an empty pool and the Bx rings holding every buffer: a
 * receive drops the packet at the head and re-arms its slot with that
 * packet's buffer, so reception reaches the foreign packets behind it,
 * whose buffers go back to the pool, and goes on. */
static void test_empty_pool_recycles(void)
{
	struct rxb_iface_config cfg = {
		.arch = RXB_ARCH_RXBISECT, .n_cores = 2, .ax_size = 64, .bx_size = 256
	};
	struct test_pool tp;
	struct rxb_err err = { 0 };
	static rxb_buf_t held[POOL_BUFS];
	uint64_t n_held, received = 0, recycled = 0;
	struct rxb_iface *i = two_core_iface(&cfg, &tp);

	if (i == NULL)
		return;
	/* Both cores' packets fill the Bx rings: Ax 0 lends to Bx 1 too. */
	for (uint32_t k = 0; k < 600; k++) {
		struct rxb_rx_meta m = { .len = 64, .dest = k % 2 };
		struct rxb_delivery d;

		rxb_iface_deliver(i, &m, &d);
	}
	n_held = hold_all_but(&tp, held, 0);
	for (int poll = 0; poll < 2000; poll++) {
		struct rxb_pkt pk[RXB_BURST_MAX];
		uint32_t core = (uint32_t)poll % 2;
		unsigned n = rxb_iface_rx(i, core, pk, RXB_BURST_MAX, 0);

		for (unsigned j = 0; j < n; j++)
			rxb_iface_free(i, core, &pk[j].buf, 1);
		received += n;
	}
	for (uint32_t c = 0; c < 2; c++)
		recycled += rxb_counter_read(&rxb_iface_sw_stats(i, c)->c[RXB_SW_RECYCLED]);
	CHECK(recycled > 0);
	CHECK(received > 0);
	tp.alloc[0].put(tp.alloc[0].ctx, held, (unsigned)n_held);
	CHECK(rxb_iface_check(i, tp.pool, &err) == 0);
	rxb_iface_destroy(i);
	test_pool_fini(&tp);
}

int main(void)
{
	RUN(test_write_then_publish_and_reclaim);
	RUN(test_frame_hash);
	RUN(test_short_pool_keeps_receiving);
	RUN(test_empty_pool_recycles);
	return check_summary();
}
