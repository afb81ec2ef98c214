/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Dynamic shRing: privRing and shRing sets side by side, both primed, one
 * steered to; the controller glue and the drain-then-switch. Each set is run
 * by its own design's entries (iface_privring.c, iface_shring.c).
 */
#include <string.h>

#include "iface_int.h"

/* Dynamic shRing: both ring sets exist and stay primed; only one is steered
 * to. The NIC owns the switch point, each core its own drain. */
struct iface_dyn {
	struct rxb_dynctl ctl;                           /* control thread only */
	_Atomic uint32_t requested;                      /* control → NIC: mode to steer to */
	uint32_t nic_mode;                               /* NIC-private: mode it steers to */
	_Atomic uint32_t nic_mode_pub RXB_CACHE_ALIGNED; /* NIC → cores */
};

static int dyn_build(struct rxb_iface *i, struct rxb_err *err)
{
	static const struct rxb_dynctl_config zero;
	const struct rxb_dynctl_config *dc = memcmp(&i->cfg.dyn, &zero, sizeof(zero)) == 0
						     ? NULL
						     : &i->cfg.dyn;
	int rc = iface_pr_build(i, err);

	if (rc == 0)
		rc = iface_sh_build(i, err);
	if (rc != 0)
		return rc;
	/* Sources: the private Rx rings, then the shared rings. */
	i->n_srcs = i->cfg.n_cores + rxb_shring_n_rings(i->sh);
	i->dyn = rxb_zalloc_aligned(sizeof(*i->dyn));
	if (i->dyn == NULL)
		return rxb_err_nomem(err, sizeof(*i->dyn), "dyn_shring controller");
	return rxb_dynctl_init(&i->dyn->ctl, dc, RXB_DYN_PRIVATE, err);
}

/* Both sets stay primed (the cost of switching quickly), private first. */
static void dyn_prime(struct rxb_iface *i, uint64_t *want, uint64_t *got)
{
	iface_pr_prime(i, want, got);
	iface_sh_prime(i, want, got);
}

/* Dynamic shRing, NIC side: apply a requested switch before this packet
 * (or burst, by steering). release: pairs with the acquire in dyn_rx();
 * every entry written to the old set before the switch is visible to a
 * core that sees the new mode, so an empty old CR then means drained for
 * good. */
static enum rxb_dyn_mode dyn_nic_mode(struct iface_dyn *d)
{
	uint32_t req = atomic_load_explicit(&d->requested, memory_order_relaxed);

	if (req != d->nic_mode) {
		d->nic_mode = req;
		atomic_store_explicit(&d->nic_mode_pub, req, memory_order_release);
	}
	return (enum rxb_dyn_mode)d->nic_mode;
}

/* Records d[0..n) of a shared-set delivery name their source as the
 * interface numbers it: shared ring g is n_cores + g (iface.h). */
static void dyn_shared_srcs(const struct rxb_iface *i, struct rxb_delivery *d, unsigned n)
{
	for (unsigned k = 0; k < n; k++)
		if (d[k].src_ring != RXB_NONE)
			d[k].src_ring += i->cfg.n_cores;
}

static int dyn_deliver(struct rxb_iface *i, const struct rxb_rx_meta *meta, struct rxb_delivery *d)
{
	int rc;

	if (dyn_nic_mode(i->dyn) != RXB_DYN_SHARED)
		return rxb_privring_nic_deliver(i->pr, meta, d);
	rc = rxb_shring_nic_deliver(i->sh, meta, d);
	dyn_shared_srcs(i, d, 1);
	return rc;
}

/* The set of source src: the private Rx rings, then the shared rings. */
static uint32_t dyn_set_of(const struct rxb_iface *i, uint32_t src)
{
	return src < i->cfg.n_cores ? RXB_DYN_PRIVATE : RXB_DYN_SHARED;
}

/* A packet in a buffer of the set the NIC does not steer to yet is the
 * first of a switch the NIC side already made (the emulator moves its
 * physical queues first): apply the switch the controller requested. */
static void dyn_follow(struct iface_dyn *y, uint32_t set)
{
	if (set != y->nic_mode && atomic_load_explicit(&y->requested, memory_order_relaxed) == set)
		dyn_nic_mode(y);
}

/* Deliver into the set the buffer came from, after dyn_follow(). */
static int dyn_deliver_from(struct rxb_iface *i, uint32_t src, const struct rxb_rx_meta *meta,
			    struct rxb_delivery *d)
{
	uint32_t set = dyn_set_of(i, src);
	int rc;

	dyn_follow(i->dyn, set);
	if (set != RXB_DYN_SHARED)
		return iface_pr_deliver_from(i, src, meta, d);
	rc = iface_sh_deliver_from(i, src - i->cfg.n_cores, meta, d);
	dyn_shared_srcs(i, d, 1);
	return rc;
}

#define DYN_RUN_MAX 64u /* packets of one run: the shared set's renumbering */

/* Packets from n (≤ DYN_RUN_MAX) sources of one set as that set's bulk
 * delivery; the shared rings' sources are renumbered from 0, as shRing
 * counts them. */
static unsigned dyn_deliver_run(struct rxb_iface *i, uint32_t set, const uint32_t *srcs,
				const struct rxb_rx_meta *metas, unsigned n, struct rxb_delivery *d,
				bool stop_on_drop)
{
	uint32_t rings[DYN_RUN_MAX];
	unsigned got;

	if (set == RXB_DYN_PRIVATE)
		return rxb_privring_nic_deliver_burst(i->pr, srcs, metas, n, d, stop_on_drop);
	for (unsigned k = 0; k < n; k++)
		rings[k] = srcs[k] - i->cfg.n_cores;
	got = rxb_shring_nic_deliver_burst(i->sh, rings, metas, n, d, stop_on_drop);
	dyn_shared_srcs(i, d, got);
	return got;
}

/* By steering: the whole burst to the set steered to, after the switch
 * dyn_deliver() would make before its first packet. A switch the control
 * thread requests while the burst is delivered applies from the next
 * burst, as single calls would if it had come just after this one: a
 * delay of one burst, which no ordering of the two threads rules out.
 * From sources: each run of packets from one set goes to that set's bulk
 * delivery, after the switch dyn_deliver_from() would make before the
 * run's first packet (the run's others then find it made). */
static unsigned dyn_deliver_burst(struct rxb_iface *i, const uint32_t *srcs,
				  const struct rxb_rx_meta *metas, unsigned n,
				  struct rxb_delivery *d, unsigned flags)
{
	const bool stop_on_drop = flags & RXB_BURST_STOP_ON_DROP;
	unsigned k = 0;

	if (srcs == NULL && dyn_nic_mode(i->dyn) != RXB_DYN_SHARED)
		return rxb_privring_nic_deliver_burst(i->pr, NULL, metas, n, d, stop_on_drop);
	if (srcs == NULL) {
		k = rxb_shring_nic_deliver_burst(i->sh, NULL, metas, n, d, stop_on_drop);
		dyn_shared_srcs(i, d, k);
		return k;
	}
	while (k < n) {
		uint32_t set;
		unsigned run = 1, got;

		if (srcs[k] >= i->n_srcs) { /* refused before it could switch sets */
			rxb_delivery_refuse(&d[k], metas[k].dest);
			break;
		}
		set = dyn_set_of(i, srcs[k]);

		while (k + run < n && run < DYN_RUN_MAX && dyn_set_of(i, srcs[k + run]) == set)
			run++;
		dyn_follow(i->dyn, set);
		got = dyn_deliver_run(i, set, srcs + k, metas + k, run, d + k, stop_on_drop);
		k += got;
		if (got < run || (stop_on_drop && d[k - 1].drop >= 0))
			break; /* a refusal, or the stop after a drop */
	}
	return k;
}

/* The set the next delivery steers to: the requested one, which
 * dyn_nic_mode() applies at that delivery (read here without applying it). */
static bool dyn_nic_room(struct rxb_iface *i, uint32_t dest, enum rxb_drop_cause *cause)
{
	if (atomic_load_explicit(&i->dyn->requested, memory_order_relaxed) == RXB_DYN_SHARED)
		return iface_sh_nic_room(i, dest, cause);
	return iface_pr_nic_room(i, dest, cause);
}

static unsigned dyn_nic_fetch(struct rxb_iface *i, uint32_t src, rxb_buf_t *bufs, unsigned n)
{
	if (src < i->cfg.n_cores)
		return rxb_privring_nic_fetch(i->pr, src, bufs, n);
	return rxb_shring_nic_fetch(i->sh, src - i->cfg.n_cores, bufs, n);
}

static unsigned dyn_rx_set(struct rxb_iface *i, uint32_t mode, uint32_t core, struct rxb_pkt *out,
			   unsigned n, uint64_t now)
{
	if (mode == RXB_DYN_SHARED)
		return rxb_shring_rx_burst(i->sh, core, out, n, &i->allocs[core], now);
	return rxb_privring_rx_burst(i->pr, core, out, n, &i->allocs[core]);
}

/* Has the NIC written entries to core c's CR in ring set `mode` that the core
 * has not read? Exact once the core has seen the NIC switch away from it. */
static bool dyn_old_set_empty(struct rxb_iface *i, uint32_t mode, uint32_t core)
{
	if (mode == RXB_DYN_SHARED)
		return rxb_shring_occupancy(i->sh, core) == 0;
	return rxb_privring_occupancy(i->pr, core) == 0;
}

/* Dynamic shRing, core side: keep polling the old set until it is empty
 * after the NIC has switched, then move to the new one. Nothing is lost and
 * order is kept: a receive may return nothing with packets still there (a
 * zero budget, an empty allocator), so the move waits for an empty ring. */
static unsigned dyn_rx(struct rxb_iface *i, uint32_t core, struct rxb_pkt *out, unsigned n,
		       uint64_t now)
{
	_Atomic uint32_t *polling = &i->core[core].polling;
	uint32_t mode = rxb_relaxed_load(polling);
	/* acquire: pairs with the release in dyn_nic_mode(). */
	uint32_t nic = atomic_load_explicit(&i->dyn->nic_mode_pub, memory_order_acquire);
	unsigned got;

	if (nic == mode)
		return dyn_rx_set(i, mode, core, out, n, now);
	got = dyn_rx_set(i, mode, core, out, n, now);
	if (got != 0 || !dyn_old_set_empty(i, mode, core))
		return got;
	rxb_relaxed_store(polling, nic);
	rxb_counter_add(&i->core[core].moves, 1);
	return dyn_rx_set(i, nic, core, out, n, now);
}

/* The counters of the set the NIC steers to now. */
static const struct rxb_nic_stats *dyn_nic_stats(const struct rxb_iface *i, uint32_t dest)
{
	if (rxb_iface_dyn_mode(i) == RXB_DYN_SHARED)
		return rxb_shring_nic_stats(i->sh, dest);
	return rxb_privring_nic_stats(i->pr, dest);
}

static uint64_t dyn_nic_counter(const struct rxb_iface *i, uint32_t dest, enum rxb_nic_counter c)
{
	return iface_pr_nic_counter(i, dest, c) + iface_sh_nic_counter(i, dest, c);
}

/* Both sets' counts. A receive that moved polled the empty old set and then
 * the new one: one poll, empty only if the new set was too, so each move's
 * first (empty) poll is taken out. Another thread's relaxed reads may see a
 * move before its first poll; the count then stops at zero for that read. */
static uint64_t dyn_sw_counter(const struct rxb_iface *i, uint32_t core, enum rxb_sw_counter c)
{
	uint64_t moves = c == RXB_SW_POLLS || c == RXB_SW_EMPTY_POLLS
				 ? rxb_counter_read(&i->core[core].moves)
				 : 0;
	uint64_t sum = rxb_counter_read(&rxb_privring_sw_stats(i->pr, core)->c[c]) +
		       rxb_counter_read(&rxb_shring_sw_stats(i->sh, core)->c[c]);

	return sum > moves ? sum - moves : 0;
}

static uint32_t dyn_occupancy(struct rxb_iface *i, uint32_t dest)
{
	return rxb_privring_occupancy(i->pr, dest) + rxb_shring_occupancy(i->sh, dest);
}

static int dyn_census(struct rxb_iface *i, struct rxb_census *c, struct rxb_buflist *bufs,
		      struct rxb_err *err)
{
	int rc = iface_pr_census(i, c, bufs, err);

	return rc == 0 ? iface_sh_census(i, c, bufs, err) : rc;
}

const struct iface_ops iface_dyn_shring_ops = {
	.build = dyn_build,
	.prime = dyn_prime,
	.deliver = dyn_deliver,
	.deliver_from = dyn_deliver_from,
	.deliver_burst = dyn_deliver_burst,
	.nic_fetch = dyn_nic_fetch,
	.nic_room = dyn_nic_room,
	.tick = iface_no_tick,
	.rx = dyn_rx,
	.free = iface_pr_free,
	.nic_stats = dyn_nic_stats,
	.nic_counter = dyn_nic_counter,
	.sw_stats = iface_pr_sw_stats, /* frees are counted there (iface_pr_free) */
	.sw_counter = dyn_sw_counter,
	.occupancy = dyn_occupancy,
	.census = dyn_census,
};

/* ------------------------------------------------------ controller glue */

static bool dyn_all_cores_on(struct rxb_iface *i, uint32_t mode)
{
	for (uint32_t c = 0; c < i->cfg.n_cores; c++)
		if (rxb_relaxed_load(&i->core[c].polling) != mode)
			return false;
	return true;
}

enum rxb_dyn_decision rxb_iface_dyn_sample(struct rxb_iface *i, const struct rxb_dynctl_sample *s)
{
	struct iface_dyn *d = i->dyn;
	enum rxb_dyn_decision dec;
	uint32_t want;

	if (d == NULL)
		return RXB_DYN_STAY;
	want = atomic_load_explicit(&d->requested, memory_order_relaxed);
	/* A switch in progress completes once the NIC and every core moved. */
	if (rxb_dynctl_pending(&d->ctl) != RXB_DYN_STAY &&
	    atomic_load_explicit(&d->nic_mode_pub, memory_order_relaxed) == want &&
	    dyn_all_cores_on(i, want))
		rxb_dynctl_set_mode(&d->ctl, (enum rxb_dyn_mode)want);
	dec = rxb_dynctl_update(&d->ctl, s);
	if (dec == RXB_DYN_TO_SHARED || dec == RXB_DYN_TO_PRIVATE)
		atomic_store_explicit(&d->requested,
				      dec == RXB_DYN_TO_SHARED ? RXB_DYN_SHARED : RXB_DYN_PRIVATE,
				      memory_order_relaxed);
	return dec;
}

enum rxb_dyn_mode rxb_iface_dyn_mode(const struct rxb_iface *i)
{
	if (i->dyn == NULL)
		return RXB_DYN_PRIVATE;
	return (enum rxb_dyn_mode)atomic_load_explicit(&i->dyn->nic_mode_pub, memory_order_relaxed);
}

const struct rxb_dynctl *rxb_iface_dynctl(const struct rxb_iface *i)
{
	return i->dyn ? &i->dyn->ctl : NULL;
}
