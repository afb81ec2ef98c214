/* SPDX-License-Identifier: BSD-3-Clause
 *
 * libFuzzer target: any receive interface driven through rxb/iface.h,
 * single-threaded, against a reference model.
 *
 * Input = a configuration header of HDR_BYTES bytes, then operations. Bytes
 * read past the end are 0, so every input is valid. Header (each byte is
 * reduced modulo the choices; tables below; "bad" values are on purpose):
 *
 *   0 arch (% 9: the 7 archs, then 2 unknown)   12 spool.n_ports (% 6)
 *   1 n_cores (% 5: 0 is bad)                   13 spool.mode (% 4: 3 is bad)
 *   2 rx_size   (ring table)                    14 spool.depth (ring table)
 *   3 cr_size   (ring table)                    15 spool.basic_queues (% 4)
 *   4 desc_prefetch (prefetch table)            16 spool.low (ring table)
 *   5 share_degree (% 5)                        17 spool.high (ring table)
 *   6 ax_size   (ring table)                    18 dyn.window (% 5: 0 is bad)
 *   7 bx_size   (ring table)                    19 dyn.to_shared num | den << 4
 *   8 ax_policy (% 4: 3 is bad)                 20 dyn.to_private num | den << 4
 *   9 n_groups  (% 4)                           21 pool.n_bufs (pool table)
 *  10 flags: 1 enforce_vendor_min, 2 coalesce,  22 pool.cache_size (cache table)
 *     4 custom dyn config, bits 3-5 batch       23 seed
 *     (batch table; shring_list only)
 *  11 coalesce_timeout
 *
 * Operations, an opcode byte (% 8) and its argument bytes:
 *   0     deliver: dest (% n_dests + 1: the last is out of range), burst
 *         length (1 + % 32); every packet to the same dest, one call each
 *   1     the same in one rxb_iface_deliver_burst() call; the length byte's
 *         top bit asks it to stop after a drop (RXB_BURST_STOP_ON_DROP)
 *   2     rx: poller (% pollers), n (% (RXB_BURST_MAX + 1))
 *   3     free: poller, k (% held + 1) oldest held buffers
 *   4     tick: the clock advances by 64 × byte, then rxb_iface_tick
 *   5     dyn sample: tput byte (Gbps), bw byte (/ 4 GiB/s), overload byte & 1
 *   6     pipeline drop: dest
 *   7     drain: every poller receives until empty, then frees all it holds
 * The clock also advances by 1 per operation. rxb_iface_check() (packets,
 * buffers, duplicates) runs every CHECK_EVERY operations among the first 64,
 * every 8 × CHECK_EVERY after that, and at the end.
 *
 * Before every delivery rxb_iface_nic_room() must predict its outcome and
 * drop cause. The model: every delivered packet is expected, in delivery order, at the
 * poller that serves its destination, with the same buffer, length and hash;
 * drops must be of a cause the design can produce; software order-error
 * counters stay 0; a buffer is never held twice. Any violation prints what
 * and abort()s. A configuration create() rejects must come with a message.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rxb/iface.h"
#include "rxb/pool.h"
#include "rxb/shring.h"

#define HDR_BYTES   24
#define MAX_OPS     4096
#define CHECK_EVERY 8
#define MAX_CORES   4
#define MAX_POLLERS 8
#define MAX_BUFS    8192u /* largest pool in the table, a power of two */

static const uint32_t ring_table[] = { 0, 8, 16, 32, 64, 128, 2, 12 };
static const uint32_t prefetch_table[] = { 0, 1, 2, 4, 16, 64, 5000 };
static const uint32_t pool_table[] = { 32, 128, 512, 2048, MAX_BUFS };
static const uint32_t cache_table[] = { 0, 4, 32, 64 };
/* Batched RxList slots per descriptor: 0 (not batched) first, so inputs
 * written before the option keep their meaning; 3 and 128 are bad. */
static const uint32_t batch_table[] = { 0, 2, 4, 8, 64, 1, 3, 128 };
/* An arch number (enum rxb_arch) to leave out, e.g. -DFUZZ_SKIP_ARCH=4 to
 * keep fuzzing the other designs while a bug in dyn_shring is open. Its
 * inputs are then run as the next arch. */
#ifndef FUZZ_SKIP_ARCH
#define FUZZ_SKIP_ARCH -1
#endif
#define PICK(table, b) ((table)[(b) % (sizeof(table) / sizeof((table)[0]))])

struct input {
	const uint8_t *p;
	size_t n, pos;
};

static uint8_t next(struct input *in)
{
	return in->pos < in->n ? in->p[in->pos++] : 0;
}

/* One expected packet. */
struct expect {
	rxb_buf_t buf;
	uint32_t len, hash;
};

/* Fuzzer state (static: no allocation per run); reset() clears what an
 * input can have touched, not the whole megabyte. */
static struct {
	struct rxb_iface *i;
	struct rxb_pool *pool;
	struct rxb_allocator alloc[MAX_CORES];
	struct rxb_iface_config cfg;
	uint32_t n_dests, n_pollers;
	uint64_t now;
	unsigned plausible;        /* bit per drop cause */
	uint32_t seq[MAX_POLLERS]; /* per dest: delivered so far */
	struct {
		struct expect q[MAX_BUFS]; /* delivered, not yet received */
		uint32_t head, tail;
		rxb_buf_t held[MAX_BUFS]; /* received, not yet freed */
		uint32_t n_held;
	} p[MAX_POLLERS];
	uint8_t in_app[MAX_BUFS];
} S;

static const char *arch_name(void)
{
	return (unsigned)S.cfg.arch < RXB_ARCHS ? rxb_arch_name[S.cfg.arch] : "bad arch";
}

#define FAIL(...)                                                 \
	do {                                                      \
		fprintf(stderr, "fuzz_iface: %s: ", arch_name()); \
		fprintf(stderr, __VA_ARGS__);                     \
		fprintf(stderr, "\n");                            \
		abort();                                          \
	} while (0)

/* ------------------------------------------------------ configuration */

static void read_config(struct input *in, struct rxb_pool_config *pc)
{
	struct rxb_iface_config *c = &S.cfg;
	uint8_t h[HDR_BYTES];

	for (int k = 0; k < HDR_BYTES; k++)
		h[k] = next(in);
	memset(c, 0, sizeof(*c));
	c->arch = (enum rxb_arch)(h[0] % (RXB_ARCHS + 2));
	if ((int)c->arch == FUZZ_SKIP_ARCH)
		c->arch = (enum rxb_arch)(c->arch + 1);
	c->n_cores = h[1] % (MAX_CORES + 1);
	c->rx_size = PICK(ring_table, h[2]);
	c->cr_size = PICK(ring_table, h[3]);
	c->desc_prefetch = PICK(prefetch_table, h[4]);
	c->share_degree = h[5] % 5;
	c->ax_size = PICK(ring_table, h[6]);
	c->bx_size = PICK(ring_table, h[7]) * 4;
	c->ax_policy = (enum rxb_ax_policy)(h[8] % (RXB_AX_POLICIES + 1));
	c->n_groups = h[9] % 4;
	c->enforce_vendor_min = h[10] & 1;
	c->coalesce = (h[10] & 2) != 0;
	c->rxlist_slots = PICK(batch_table, h[10] >> 3);
	c->coalesce_timeout = h[11];
	c->seed = h[23];
	c->spool.n_ports = h[12] % 6;
	c->spool.mode = (enum rxb_spool_mode)(h[13] % (RXB_SPOOL_MODES + 1));
	c->spool.depth = PICK(ring_table, h[14]);
	c->spool.basic_queues = h[15] % 4;
	c->spool.low = PICK(ring_table, h[16]);
	c->spool.high = PICK(ring_table, h[17]);
	c->spool.desc_prefetch = c->desc_prefetch;
	if (h[10] & 4) { /* else zeroed: the reference defaults */
		c->dyn = rxb_dynctl_config_default();
		c->dyn.tput_gbps_threshold = 100;
		c->dyn.mem_bw_gibps_threshold = 10;
		c->dyn.window = h[18] % 5;
		c->dyn.to_shared_num = h[19] & 15;
		c->dyn.to_shared_den = h[19] >> 4;
		c->dyn.to_private_num = h[20] & 15;
		c->dyn.to_private_den = h[20] >> 4;
	}
	*pc = rxb_pool_config_default();
	pc->n_bufs = PICK(pool_table, h[21]);
	pc->cache_size = PICK(cache_table, h[22]);
	if (pc->cache_size > pc->n_bufs) /* the pool rejects that; not our subject */
		pc->cache_size = pc->n_bufs;
	pc->n_cores = c->n_cores ? c->n_cores : 1;
}

/* Drop causes the configured design can produce. A CR is full only when it
 * is smaller than the ring that feeds it (otherwise the ring runs out of
 * descriptors first; a batched ring holds rx_size × batch packets). */
static unsigned plausible_drops(const struct rxb_iface_config *c)
{
	unsigned m = 1u << RXB_DROP_PIPELINE;
	uint32_t rx = c->rx_size                           ? c->rx_size
		      : c->arch == RXB_ARCH_SMALL_PRIVRING ? RXB_DEFAULT_SMALL_RX_SIZE
							   : RXB_DEFAULT_RX_SIZE;

	if (c->arch == RXB_ARCH_SHRING_LIST && c->rxlist_slots > 1)
		rx *= c->rxlist_slots;
	if (c->arch == RXB_ARCH_RXBISECT)
		return m | 1u << RXB_DROP_NO_AX_BUF | 1u << RXB_DROP_NO_BX_SLOT;
	m |= 1u << RXB_DROP_NO_RX_DESC;
	if (c->arch != RXB_ARCH_SPOOL && c->cr_size != 0 && c->cr_size < rx)
		m |= 1u << RXB_DROP_CR_FULL;
	return m;
}

/* The poller that receives what is delivered to dest. */
static uint32_t poller_of(uint32_t dest)
{
	struct rxb_spool *sp = rxb_iface_spool(S.i);

	return sp ? rxb_spool_queue_of(sp, dest) : dest;
}

/* ------------------------------------------------------------ checks */

static void check_all(const char *when, bool pool_too)
{
	struct rxb_err err = { 0 };
	const struct rxb_dynctl *dc = rxb_iface_dynctl(S.i);
	struct rxb_shring *sh = rxb_iface_privring(S.i) ? rxb_iface_shring(S.i) : NULL;

	if (rxb_iface_check(S.i, S.pool, &err) != 0)
		FAIL("rxb_iface_check (%s): %s", when, err.msg);
	/* rxb_iface_check already finds a free handle in two places; the
	 * pool's own check (cache bounds) costs as much again: now and then. */
	if (pool_too && rxb_pool_check(S.pool, &err) != 0)
		FAIL("rxb_pool_check (%s): %s", when, err.msg);
	if (dc != NULL && rxb_dynctl_check(dc, &err) != 0)
		FAIL("rxb_dynctl_check (%s): %s", when, err.msg);
	for (uint32_t q = 0; q < S.n_pollers; q++) {
		const struct rxb_sw_stats *s = rxb_iface_sw_stats(S.i, q);

		if (rxb_counter_read(&s->c[RXB_SW_ORDER_ERRORS]) != 0)
			FAIL("core %u counted order errors (%s)", q, when);
		if (sh != NULL &&
		    rxb_counter_read(&rxb_shring_sw_stats(sh, q)->c[RXB_SW_ORDER_ERRORS]) != 0)
			FAIL("core %u counted order errors in the shared set (%s)", q, when);
	}
}

/* --------------------------------------------------------- operations */

/* The next packet to dest: its hash numbers it, so the poller can tell. */
static struct rxb_rx_meta next_meta(uint32_t dest, unsigned k)
{
	struct rxb_rx_meta m = { .dest = dest, .now = S.now };

	if (dest < S.n_dests) {
		m.hash = dest << 24 | ((S.seq[dest] + k) & 0xffffff);
		m.len = 60 + m.hash % 1500;
	}
	return m;
}

/* One delivery's outcome (rc, d) against the model: a plausible drop, or the
 * packet expected at dest's poller in its buffer. */
static void check_delivery(const struct rxb_rx_meta *m, const struct rxb_delivery *d, int rc)
{
	uint32_t dest = m->dest, q = poller_of(dest);
	struct expect *e;

	if (rc == 1) {
		if (d->drop < 0 || d->drop >= RXB_DROP_CAUSES || !(S.plausible & 1u << d->drop))
			FAIL("dest %u: drop cause %d cannot happen here", dest, d->drop);
		return;
	}
	if (rc != 0)
		FAIL("deliver to dest %u returned %d", dest, rc);
	if (d->buf == RXB_BUF_NONE || d->buf >= S.pool->cfg.n_bufs || d->ring != q)
		FAIL("delivery to dest %u: buffer %llu ring %u", dest, (unsigned long long)d->buf,
		     d->ring);
	if (S.in_app[d->buf])
		FAIL("delivered into buffer %llu that the application holds",
		     (unsigned long long)d->buf);
	e = &S.p[q].q[S.p[q].tail++ % MAX_BUFS];
	e->buf = d->buf;
	e->len = m->len;
	e->hash = m->hash;
	S.seq[dest]++;
}

static void op_deliver(uint32_t dest, unsigned burst)
{
	for (unsigned k = 0; k < burst; k++) {
		struct rxb_rx_meta m = next_meta(dest, 0);
		struct rxb_delivery d;
		enum rxb_drop_cause cause;
		int rc, room;

		room = rxb_iface_nic_room(S.i, dest, &cause);
		rc = rxb_iface_deliver(S.i, &m, &d);
		if (dest >= S.n_dests) {
			if (rc != -EINVAL || room != -EINVAL)
				FAIL("deliver (room) to dest %u of %u returned %d (%d), not "
				     "-EINVAL",
				     dest, S.n_dests, rc, room);
			return;
		}
		if (room != rc || (rc == 1 && (int)cause != d.drop))
			FAIL("dest %u: nic_room said %d (cause %d), the delivery %d (cause %d)",
			     dest, room, room == 1 ? (int)cause : -1, rc, d.drop);
		check_delivery(&m, &d, rc);
	}
}

/* The burst verb: the packets it handled are the ones single deliveries
 * would have (each checked as one), it stops only where asked to (after a
 * drop) or at a refused destination, and says how many it handled. */
static void op_deliver_burst(uint32_t dest, unsigned burst, bool stop_on_drop)
{
	struct rxb_rx_meta m[32];
	struct rxb_delivery d[32];
	unsigned got, expect = burst;

	for (unsigned k = 0; k < burst; k++)
		m[k] = next_meta(dest, k);
	got = rxb_iface_deliver_burst(S.i, NULL, m, burst, d,
				      stop_on_drop ? RXB_BURST_STOP_ON_DROP : 0);
	if (dest >= S.n_dests) {
		if (got != 0)
			FAIL("burst to dest %u of %u handled %u packets, not 0", dest, S.n_dests,
			     got);
		return;
	}
	for (unsigned k = 0; k < got; k++) {
		int rc = d[k].drop >= 0;

		check_delivery(&m[k], &d[k], rc);
		if (rc && stop_on_drop)
			expect = k + 1;
	}
	if (got != expect)
		FAIL("burst of %u to dest %u handled %u packets, expected %u", burst, dest, got,
		     expect);
}

static unsigned op_rx(uint32_t q, unsigned n)
{
	struct rxb_pkt pk[RXB_BURST_MAX];
	const rxb_counter_t *recycled = &rxb_iface_sw_stats(S.i, q)->c[RXB_SW_RECYCLED];
	uint64_t recycled_before = rxb_counter_read(recycled);
	unsigned got = rxb_iface_rx(S.i, q, pk, n, S.now);

	if (got > n)
		FAIL("rx on core %u returned %u > %u", q, got, n);
	/* rxBisect with the pool empty drops the packet at the head to re-arm
	 * its slot (and then returns nothing): it leaves the expected order. */
	for (uint64_t r = rxb_counter_read(recycled) - recycled_before; r > 0; r--) {
		if (got != 0 || S.p[q].head == S.p[q].tail)
			FAIL("core %u recycled a packet while receiving %u, %s", q, got,
			     S.p[q].head == S.p[q].tail ? "none expected" : "in the same call");
		S.p[q].head++;
	}
	for (unsigned k = 0; k < got; k++) {
		struct expect *e;

		if (S.p[q].head == S.p[q].tail)
			FAIL("core %u received buffer %llu, but nothing was delivered to it", q,
			     (unsigned long long)pk[k].buf);
		e = &S.p[q].q[S.p[q].head++ % MAX_BUFS];
		if (pk[k].buf != e->buf || pk[k].len != e->len || pk[k].hash != e->hash)
			FAIL("core %u received buf %llu len %u hash %#x, expected buf %llu len %u "
			     "hash %#x",
			     q, (unsigned long long)pk[k].buf, pk[k].len, pk[k].hash,
			     (unsigned long long)e->buf, e->len, e->hash);
		if (S.in_app[pk[k].buf]++)
			FAIL("buffer %llu received twice", (unsigned long long)pk[k].buf);
		S.p[q].held[S.p[q].n_held++] = pk[k].buf;
	}
	return got;
}

static void op_free(uint32_t q, uint32_t k)
{
	for (uint32_t j = 0; j < k; j++)
		S.in_app[S.p[q].held[j]] = 0;
	rxb_iface_free(S.i, q, S.p[q].held, k);
	S.p[q].n_held -= k;
	memmove(S.p[q].held, S.p[q].held + k, S.p[q].n_held * sizeof(S.p[q].held[0]));
}

/* Receive until empty (bounded), then free everything. */
static void op_drain(void)
{
	for (uint32_t q = 0; q < S.n_pollers; q++) {
		for (unsigned rounds = 0; rounds < MAX_BUFS / 8; rounds++) {
			unsigned got = op_rx(q, RXB_BURST_MAX);

			op_free(q, S.p[q].n_held);
			if (got == 0)
				break;
		}
	}
}

static void run_ops(struct input *in)
{
	for (unsigned op = 0; op < MAX_OPS && in->pos < in->n; op++) {
		uint8_t code = next(in);

		S.now++;
		switch (code % 8) {
		case 0: {
			uint32_t dest = next(in) % (S.n_dests + 1);

			op_deliver(dest, 1 + next(in) % 32);
			break;
		}
		case 1: {
			uint32_t dest = next(in) % (S.n_dests + 1);
			uint8_t len = next(in);

			op_deliver_burst(dest, 1 + len % 32, len & 0x80);
			break;
		}
		case 2: {
			uint32_t q = next(in) % S.n_pollers;

			op_rx(q, next(in) % (RXB_BURST_MAX + 1));
			break;
		}
		case 3: {
			uint32_t q = next(in) % S.n_pollers;

			op_free(q, next(in) % (S.p[q].n_held + 1));
			break;
		}
		case 4:
			S.now += 64u * next(in);
			rxb_iface_tick(S.i, S.now);
			break;
		case 5: {
			struct rxb_dynctl_sample s = { .tput_gbps = next(in),
						       .mem_bw_gibps = next(in) / 4.0 };

			s.overloaded_cores = next(in) & 1;
			rxb_iface_dyn_sample(S.i, &s);
			break;
		}
		case 6:
			rxb_iface_drop_pipeline(S.i, next(in) % S.n_dests);
			break;
		default:
			op_drain();
			break;
		}
		/* The full check is O(buffers) and dominates the run time:
		 * every few operations early on (where short inputs live),
		 * less often later; the model checks every operation anyway. */
		if (op % (op < 64 ? CHECK_EVERY : 8 * CHECK_EVERY) == CHECK_EVERY - 1)
			check_all("during the run", false);
	}
}

/* RXB_FUZZ_VERBOSE=1: one line per input on what it did (for reproducing
 * and for checking that seeds do what they claim). */
static bool verbose(void)
{
	static int v = -1;

	if (v < 0) {
		const char *e = getenv("RXB_FUZZ_VERBOSE");

		v = e != NULL && *e != '\0' && *e != '0';
	}
	return v;
}

static void print_summary(void)
{
	struct rxb_census c;

	if (rxb_iface_census(S.i, &c, NULL) != 0)
		return;
	fprintf(stderr,
		"fuzz_iface:   offered %llu delivered %llu dropped %llu received %llu, "
		"now %llu\n",
		(unsigned long long)c.offered, (unsigned long long)c.delivered,
		(unsigned long long)c.dropped, (unsigned long long)c.received,
		(unsigned long long)S.now);
}

static void reset(void)
{
	for (uint32_t q = 0; q < MAX_POLLERS; q++) {
		S.p[q].head = S.p[q].tail = S.p[q].n_held = 0;
		S.seq[q] = 0;
	}
	memset(S.in_app, 0, sizeof(S.in_app));
	S.now = 0;
	S.i = NULL;
	S.pool = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size, 0 };
	struct rxb_pool_config pc;
	struct rxb_err err = { 0 };

	reset();
	read_config(&in, &pc);
	S.pool = rxb_pool_create(&pc, &err);
	if (S.pool == NULL)
		FAIL("pool: %s", err.msg); /* every pool in the tables is valid */
	for (uint32_t c = 0; c < pc.n_cores; c++)
		S.alloc[c] = rxb_pool_allocator(S.pool, c);
	S.i = rxb_iface_create(&S.cfg, S.alloc, &err);
	if (verbose())
		fprintf(stderr, "fuzz_iface: %s, %u cores, pool %u: %s\n", arch_name(),
			S.cfg.n_cores, pc.n_bufs, S.i ? "created" : err.msg);
	if (S.i == NULL) {
		/* Rejected: must say why. */
		if (err.msg[0] == '\0')
			FAIL("create failed without a message");
		/* A rejected configuration leaves every buffer in the pool. */
		if (rxb_pool_free_count(S.pool) != pc.n_bufs)
			FAIL("create failed (%s) and kept %llu of the pool's %u buffers", err.msg,
			     (unsigned long long)(pc.n_bufs - rxb_pool_free_count(S.pool)),
			     pc.n_bufs);
		rxb_pool_destroy(S.pool);
		return 0;
	}
	S.n_dests = rxb_iface_n_dests(S.i);
	S.n_pollers = rxb_iface_n_cores(S.i);
	if (S.n_dests > MAX_POLLERS || S.n_pollers > MAX_POLLERS || S.n_pollers == 0)
		FAIL("%u destinations and %u pollers from a config that has at most %u", S.n_dests,
		     S.n_pollers, MAX_POLLERS);
	S.plausible = plausible_drops(&S.cfg);
	check_all("after create", true);
	run_ops(&in);
	check_all("at the end", true);
	op_drain();
	check_all("after the final drain", true);
	if (verbose())
		print_summary();
	rxb_iface_destroy(S.i);
	rxb_pool_destroy(S.pool);
	return 0;
}
