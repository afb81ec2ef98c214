/* SPDX-License-Identifier: BSD-3-Clause
 *
 * rxBisect: Ax (allocation) and Bx (bisected reception) rings. See the
 * notification invariant in include/rxb/rxbisect.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ring.h"
#include "rxb/privring.h"
#include "rxb/rxbisect.h"

const char *const rxb_ax_policy_name[RXB_AX_POLICIES] = {
	[RXB_AX_RANDOM] = "random",
	[RXB_AX_ROUND_ROBIN] = "round_robin",
	[RXB_AX_MOST_AVAILABLE] = "most_available",
};

/* Bx entry flags, above the done bit (RXB_CR_DONE). */
#define BX_HAS_PKT  2u /* buf/len/hash describe a packet */
#define BX_HAS_CONS 4u /* ax_ring/ax_index report a consumed Ax slot */
#define BX_FOREIGN \
	8u /* the packet's buffer came from an Ax linked elsewhere:
			* counts against the Bx's foreign budget */

struct rxb_bx_entry {
	rxb_buf_t buf; /* buf, len, hash: laid out as struct rxb_pkt */
	uint32_t len;
	uint32_t hash;
	uint32_t ax_ring; /* ax_ring, ax_index: read as one 64-bit word */
	uint32_t ax_index;
	_Atomic uint32_t flags;
	uint32_t pad;
};
_Static_assert(sizeof(struct rxb_bx_entry) == 32, "two Bx entries per cache line");
_Static_assert(offsetof(struct rxb_bx_entry, len) == offsetof(struct rxb_pkt, len) &&
		       offsetof(struct rxb_bx_entry, hash) == offsetof(struct rxb_pkt, hash) &&
		       sizeof(struct rxb_pkt) == 16,
	       "a packet is copied out as one 16-byte block");
_Static_assert(offsetof(struct rxb_bx_entry, ax_index) ==
		       offsetof(struct rxb_bx_entry, ax_ring) + 4,
	       "ax_ring and ax_index are adjacent");

/* The (ax_ring, ax_index) pair of an entry as one word, for one compare. */
static inline uint64_t bx_cons_word(const struct rxb_bx_entry *x)
{
	uint64_t w;

	memcpy(&w, &x->ax_ring, sizeof(w));
	return w;
}

/* The same word computed from values. Arithmetic, not a stack round trip:
 * two 4-byte stores read back as one 8-byte load defeat store forwarding. */
static inline uint64_t cons_word(uint32_t ax_ring, uint32_t ax_index)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (uint64_t)ax_ring | (uint64_t)ax_index << 32;
#else
	return (uint64_t)ax_ring << 32 | ax_index;
#endif
}

/* A consumption notice the NIC holds (coalescing). */
struct rxb_notice {
	uint32_t ax;
	uint32_t index;
	uint64_t since;
};

struct rxb_ax {
	struct rxb_descring ring;
	uint32_t link; /* Bx that gets this ring's notices */
	/* Owner core's private state. */
	struct {
		uint32_t tail;      /* next slot to post */
		uint32_t reclaimed; /* consumption notices acted on */
		uint32_t rung;      /* tail as of the last doorbell */
	} sw RXB_CACHE_ALIGNED;
};

struct rxb_bx {
	struct rxb_cr cr; /* indices and entries (struct rxb_bx_entry) */
	/* NIC-private state. */
	struct {
		uint32_t foreign_written;   /* foreign entries written */
		uint32_t foreign_cons_seen; /* cached sw.foreign_cons_pub */
		uint32_t rr;                /* round-robin cursor into assoc */
		uint64_t rng;               /* xorshift state for RXB_AX_RANDOM */
		uint32_t pend_head;         /* coalesced notices: FIFO */
		uint32_t pend_tail;
		rxb_counter_t linked_uses; /* read by anyone (stats) */
		rxb_counter_t foreign_uses;
	} nic RXB_CACHE_ALIGNED;
	/* Owner core's state. */
	struct {
		uint32_t foreign_cons;             /* foreign entries read */
		_Atomic uint32_t foreign_cons_pub; /* published copy */
		uint32_t deficit;                  /* notices acted on without a
		                                     * buffer (pool empty): slots
		                                     * its linked Ax rings lack */
	} sw RXB_CACHE_ALIGNED;
	/* Read-only after create (pend's contents excepted: NIC-private), on
	 * lines the owner core does not write. */
	struct rxb_notice *pend RXB_CACHE_ALIGNED; /* capacity pend_mask + 1 ≥ reserved */
	uint32_t pend_mask;
	uint32_t reserved;       /* R(b): slots kept for consumption entries */
	uint32_t foreign_budget; /* |Bx| − R(b) */
	uint32_t *assoc;         /* Ax rings this Bx may use */
	uint32_t n_assoc;
	uint64_t *assoc_bits; /* the same as a bitmap, for membership tests */
	uint32_t *linked;     /* Ax rings linked to this Bx */
	uint32_t n_linked;
	struct rxb_nic_stats nic_stats RXB_CACHE_ALIGNED;
	struct rxb_sw_stats sw_stats;
};

struct rxb_bisect {
	struct rxb_bisect_config cfg;
	struct rxb_ax *ax;
	struct rxb_bx *bx;
};

/* ------------------------------------------------------- configuration */

static uint32_t cfg_link(const struct rxb_bisect_config *cfg, uint32_t a)
{
	return cfg->link ? cfg->link[a] : a;
}

static int bisect_validate_sizes(const struct rxb_bisect_config *cfg, struct rxb_err *err)
{
	int rc;

	if (cfg->n_ax == 0 || cfg->n_ax > RXB_MAX_CORES) {
		rxb_err_set(err, "rxbisect.n_ax = %u: must be in [1, %u]", cfg->n_ax,
			    RXB_MAX_CORES);
		return -EINVAL;
	}
	if (cfg->n_bx == 0 || cfg->n_bx > RXB_MAX_CORES) {
		rxb_err_set(err, "rxbisect.n_bx = %u: must be in [1, %u]", cfg->n_bx,
			    RXB_MAX_CORES);
		return -EINVAL;
	}
	rc = rxb_check_ring_size("rxbisect.ax_size", cfg->ax_size, err);
	if (rc == 0)
		rc = rxb_check_ring_size("rxbisect.bx_size", cfg->bx_size, err);
	if (rc == 0)
		rc = rxb_check_desc_prefetch("rxbisect.desc_prefetch", cfg->desc_prefetch, err);
	if (rc == 0 && cfg->enforce_vendor_min && cfg->ax_size < RXB_AX_VENDOR_MIN) {
		rxb_err_set(err, "rxbisect.ax_size = %u: below the vendor minimum of %u",
			    cfg->ax_size, RXB_AX_VENDOR_MIN);
		rc = -EINVAL;
	}
	if (rc == 0 && (unsigned)cfg->policy >= RXB_AX_POLICIES) {
		rxb_err_set(err,
			    "rxbisect.policy = %d: must be random, round_robin or "
			    "most_available",
			    (int)cfg->policy);
		rc = -EINVAL;
	}
	return rc;
}

static int bisect_validate_links(const struct rxb_bisect_config *cfg, struct rxb_err *err)
{
	if (cfg->link == NULL && cfg->n_ax != cfg->n_bx) {
		rxb_err_set(err,
			    "rxbisect.link: missing, and n_ax (%u) != n_bx (%u) so the "
			    "default one-to-one link does not apply",
			    cfg->n_ax, cfg->n_bx);
		return -EINVAL;
	}
	for (uint32_t a = 0; cfg->link != NULL && a < cfg->n_ax; a++) {
		if (cfg->link[a] >= cfg->n_bx) {
			rxb_err_set(err, "rxbisect.link[%u] = %u: must name a Bx ring in [0, %u)",
				    a, cfg->link[a], cfg->n_bx);
			return -EINVAL;
		}
	}
	for (uint32_t b = 0; cfg->assoc != NULL && b < cfg->n_bx; b++) {
		if (cfg->assoc_len == NULL || cfg->assoc_len[b] == 0 || cfg->assoc[b] == NULL) {
			rxb_err_set(err,
				    "rxbisect.assoc[%u]: empty association; every Bx needs "
				    "at least one Ax ring",
				    b);
			return -EINVAL;
		}
	}
	return 0; /* assoc[b][i] themselves: bx_add_assoc() */
}

static bool bx_has_ax(const struct rxb_bx *bx, uint32_t a)
{
	return (bx->assoc_bits[a / 64] >> (a % 64)) & 1;
}

/* Put assoc[b][i] = a into Bx b's set: -EINVAL when a names no Ax ring. */
static int bx_add_assoc(struct rxb_bx *bx, uint32_t b, uint32_t i, uint32_t a, uint32_t n_ax,
			struct rxb_err *err)
{
	if (a >= n_ax) {
		rxb_err_set(err, "rxbisect.assoc[%u][%u] = %u: must name an Ax ring in [0, %u)", b,
			    i, a, n_ax);
		return -EINVAL;
	}
	if (bx_has_ax(bx, a))
		return 0; /* duplicates in the config are harmless */
	bx->assoc_bits[a / 64] |= 1ull << (a % 64);
	bx->assoc[bx->n_assoc++] = a;
	return 0;
}

static uint32_t pow2_at_least(uint32_t v)
{
	uint32_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

/* Bx b's own stream of the NIC's random choices: splitmix64's finaliser
 * of (seed, b), so that neighbouring Bx rings do not start on correlated
 * states; never 0, xorshift's fixed point. */
static uint64_t bx_rng_seed(uint64_t seed, uint32_t b)
{
	uint64_t z = seed + (b + 1ull) * 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return z != 0 ? z : 1;
}

/* Build association sets, links and reservations of every Bx. */
static int bisect_build_sets(struct rxb_bisect *bs, struct rxb_err *err)
{
	const struct rxb_bisect_config *cfg = &bs->cfg;
	uint32_t words = (cfg->n_ax + 63) / 64;
	int rc = 0;

	for (uint32_t b = 0; b < cfg->n_bx; b++) {
		struct rxb_bx *bx = &bs->bx[b];
		uint32_t n = cfg->assoc ? cfg->assoc_len[b] : cfg->n_ax;

		bx->assoc = rxb_calloc(n, sizeof(*bx->assoc));
		if (bx->assoc == NULL)
			return rxb_err_nomem(err, n * sizeof(*bx->assoc),
					     "rxbisect Bx %u: association set of %u Ax rings", b,
					     n);
		bx->assoc_bits = rxb_calloc(words, sizeof(*bx->assoc_bits));
		if (bx->assoc_bits == NULL)
			return rxb_err_nomem(err, words * sizeof(*bx->assoc_bits),
					     "rxbisect Bx %u: association bitmap of %u Ax rings", b,
					     cfg->n_ax);
		bx->linked = rxb_calloc(cfg->n_ax, sizeof(*bx->linked));
		if (bx->linked == NULL)
			return rxb_err_nomem(err, cfg->n_ax * sizeof(*bx->linked),
					     "rxbisect Bx %u: linked Ax list of %u", b, cfg->n_ax);
		for (uint32_t i = 0; rc == 0 && i < n; i++)
			rc = bx_add_assoc(bx, b, i, cfg->assoc ? cfg->assoc[b][i] : i, cfg->n_ax,
					  err);
		if (rc != 0)
			return rc;
	}
	for (uint32_t a = 0; a < cfg->n_ax; a++) {
		uint32_t b = cfg_link(cfg, a);
		struct rxb_bx *bx = &bs->bx[b];

		if (!bx_has_ax(bx, a)) {
			rxb_err_set(err,
				    "rxbisect.link[%u] = %u: Ax %u is not in the association "
				    "set of Bx %u",
				    a, b, a, b);
			return -EINVAL;
		}
		bs->ax[a].link = b;
		bx->linked[bx->n_linked++] = a;
		bx->reserved += cfg->ax_size;
	}
	for (uint32_t b = 0; b < cfg->n_bx; b++) {
		struct rxb_bx *bx = &bs->bx[b];

		if (bx->reserved > cfg->bx_size) {
			rxb_err_set(err,
				    "rxbisect.bx_size = %u: Bx %u needs at least %u slots "
				    "(the entries of the %u Ax rings linked to it) so that no "
				    "consumption notice can be lost",
				    cfg->bx_size, b, bx->reserved, bx->n_linked);
			return -EINVAL;
		}
		bx->foreign_budget = cfg->bx_size - bx->reserved;
		bx->nic.rng = bx_rng_seed(cfg->seed, b);
		bx->pend_mask = pow2_at_least(bx->reserved ? bx->reserved : 1) - 1;
		bx->pend = rxb_calloc(bx->pend_mask + 1, sizeof(*bx->pend));
		if (bx->pend == NULL)
			return rxb_err_nomem(err, (bx->pend_mask + 1) * sizeof(*bx->pend),
					     "rxbisect Bx %u: %u held notices", b,
					     bx->pend_mask + 1);
	}
	return 0;
}

static int bisect_alloc_rings(struct rxb_bisect *bs, struct rxb_err *err)
{
	const struct rxb_bisect_config *cfg = &bs->cfg;
	uint32_t prefetch = cfg->desc_prefetch ? cfg->desc_prefetch : RXB_DESC_PREFETCH_DEFAULT;
	size_t ax_bytes = sizeof(*bs->ax) * cfg->n_ax, bx_bytes = sizeof(*bs->bx) * cfg->n_bx;
	int rc = 0;

	bs->ax = rxb_zalloc_aligned(ax_bytes);
	if (bs->ax == NULL)
		return rxb_err_nomem(err, ax_bytes, "rxbisect: %u Ax rings", cfg->n_ax);
	bs->bx = rxb_zalloc_aligned(bx_bytes);
	if (bs->bx == NULL)
		return rxb_err_nomem(err, bx_bytes, "rxbisect: %u Bx rings", cfg->n_bx);
	for (uint32_t a = 0; rc == 0 && a < cfg->n_ax; a++)
		rc = rxb_descring_init(&bs->ax[a].ring, cfg->ax_size, prefetch, "rxbisect Ax ring",
				       err);
	for (uint32_t b = 0; rc == 0 && b < cfg->n_bx; b++)
		rc = rxb_cr_init(&bs->bx[b].cr, cfg->bx_size, sizeof(struct rxb_bx_entry),
				 "rxbisect Bx ring", err);
	return rc;
}

struct rxb_bisect *rxb_bisect_create(const struct rxb_bisect_config *cfg, struct rxb_err *err)
{
	struct rxb_bisect *bs;
	int rc;

	if (cfg == NULL) {
		rxb_err_set(err, "rxbisect: the configuration is NULL");
		return rxb_fail_null(-EINVAL);
	}
	rc = bisect_validate_sizes(cfg, err);
	if (rc == 0)
		rc = bisect_validate_links(cfg, err);
	if (rc != 0)
		return rxb_fail_null(rc);
	bs = rxb_calloc(1, sizeof(*bs));
	if (bs == NULL)
		return rxb_fail_null(rxb_err_nomem(err, sizeof(*bs), "rxbisect"));
	bs->cfg = *cfg;
	rc = bisect_alloc_rings(bs, err);
	if (rc == 0)
		rc = bisect_build_sets(bs, err);
	/* Copied into the rings: the caller's arrays need not outlive us. */
	bs->cfg.link = NULL;
	bs->cfg.assoc = NULL;
	bs->cfg.assoc_len = NULL;
	if (rc == 0)
		return bs;
	rxb_bisect_destroy(bs);
	return rxb_fail_null(rc);
}

void rxb_bisect_destroy(struct rxb_bisect *bs)
{
	if (bs == NULL)
		return;
	for (uint32_t a = 0; bs->ax != NULL && a < bs->cfg.n_ax; a++)
		rxb_descring_fini(&bs->ax[a].ring);
	for (uint32_t b = 0; bs->bx != NULL && b < bs->cfg.n_bx; b++) {
		struct rxb_bx *bx = &bs->bx[b];

		rxb_cr_fini(&bx->cr);
		free(bx->assoc);
		free(bx->assoc_bits);
		free(bx->linked);
		free(bx->pend);
	}
	rxb_free_aligned(bs->ax);
	rxb_free_aligned(bs->bx);
	free(bs);
}

const struct rxb_bisect_config *rxb_bisect_config(const struct rxb_bisect *bs)
{
	return &bs->cfg;
}

/* ------------------------------------------------------------- NIC side */

static bool ax_nonempty(struct rxb_bisect *bs, uint32_t a)
{
	return rxb_descring_nic_avail(&bs->ax[a].ring, false) != 0;
}

/* Per Bx, like all the NIC's state, so that NIC threads owning disjoint
 * association sets share nothing (rxbisect.h). */
static uint64_t nic_rand(struct rxb_bx *bx)
{
	uint64_t x = bx->nic.rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	bx->nic.rng = x;
	return x;
}

/* A non-empty Ax of the set that is linked elsewhere, by policy; RXB_NONE if
 * there is none. In hardware this is a priority encoder over fill levels the
 * NIC already knows from doorbells: the loop is not a modelled cost. */
static uint32_t choose_foreign_ax(struct rxb_bisect *bs, struct rxb_bx *bx, uint32_t b)
{
	uint32_t best = RXB_NONE, best_avail = 0, seen = 0;

	for (uint32_t k = 0; k < bx->n_assoc; k++) {
		uint32_t i = bs->cfg.policy == RXB_AX_ROUND_ROBIN
				     ? (bx->nic.rr + 1 + k) % bx->n_assoc
				     : k;
		uint32_t a = bx->assoc[i];
		uint32_t avail;

		if (bs->ax[a].link == b)
			continue; /* linked rings were tried first */
		/* Only most-available needs exact levels; the others only
		 * need to know "non-empty". */
		avail = rxb_descring_nic_avail(&bs->ax[a].ring,
					       bs->cfg.policy == RXB_AX_MOST_AVAILABLE);
		if (avail == 0)
			continue;
		switch (bs->cfg.policy) {
		case RXB_AX_ROUND_ROBIN:
			bx->nic.rr = i;
			return a;
		case RXB_AX_MOST_AVAILABLE:
			if (avail > best_avail) {
				best = a;
				best_avail = avail;
			}
			break;
		default: /* reservoir sampling: uniform among non-empty rings */
			if (nic_rand(bx) % ++seen == 0)
				best = a;
			break;
		}
	}
	return best;
}

static inline uint32_t choose_linked_ax(struct rxb_bisect *bs, const struct rxb_bx *bx)
{
	for (uint32_t k = 0; k < bx->n_linked; k++)
		if (ax_nonempty(bs, bx->linked[k]))
			return bx->linked[k];
	return RXB_NONE;
}

/* Foreign entries outstanding in bx below its budget? Re-reads the owner's
 * count only when the cached one says the budget is used up. */
static bool bx_foreign_room(struct rxb_bx *bx)
{
	if (bx->nic.foreign_written - bx->nic.foreign_cons_seen < bx->foreign_budget)
		return true;
	/* acquire: pairs with the release in bisect_rx_publish(); the entries
	 * counted there have been read. */
	bx->nic.foreign_cons_seen = atomic_load_explicit(&bx->sw.foreign_cons_pub,
							 memory_order_acquire);
	return bx->nic.foreign_written - bx->nic.foreign_cons_seen < bx->foreign_budget;
}

static inline void bx_write(struct rxb_bx *bx, rxb_buf_t buf, const struct rxb_rx_meta *meta,
			    uint32_t flags, uint32_t ax, uint32_t index)
{
	uint32_t prod = rxb_relaxed_load(&bx->cr.nic.prod);
	struct rxb_bx_entry *e = (struct rxb_bx_entry *)bx->cr.ent + (prod & bx->cr.mask);

	RXB_DEBUG_CHECK(prod - bx->cr.nic.cons_seen < bx->cr.size, "Bx written while full");
	RXB_DEBUG_CHECK(!(flags & BX_FOREIGN) ||
				bx->nic.foreign_written - bx->nic.foreign_cons_seen <
					bx->foreign_budget,
			"Bx foreign entries above their budget");
	rxb_cr_prefetch_next_line(bx->cr.ent, sizeof(*e), bx->cr.mask, prod);
	e->buf = buf;
	e->len = meta ? meta->len : 0;
	e->hash = meta ? meta->hash : 0;
	e->ax_ring = ax;
	e->ax_index = index;
	/* release: pairs with the acquire in bisect_rx_scan(); publishes the
	 * fields above with the done bit. */
	atomic_store_explicit(&e->flags, flags | rxb_cr_gen(&bx->cr, prod), memory_order_release);
	rxb_relaxed_store(&bx->cr.nic.prod, prod + 1);
	rxb_nic_count(&bx->nic_stats, RXB_NIC_CMPL_WRITES, 1);
}

static uint32_t bx_pending(const struct rxb_bx *bx)
{
	return bx->nic.pend_tail - bx->nic.pend_head;
}

static void bx_hold_notice(struct rxb_bx *bx, uint32_t ax, uint32_t index, uint64_t now)
{
	struct rxb_notice *n = &bx->pend[bx->nic.pend_tail++ & bx->pend_mask];

	n->ax = ax;
	n->index = index;
	n->since = now;
}

/* Write held notices oldest first, those held since `before` or earlier
 * (UINT64_MAX: all). They must precede any later consumption entry of the
 * same Bx so the owner refills its Ax slots in ring order. */
static unsigned bx_flush_notices(struct rxb_bx *bx, uint64_t before)
{
	unsigned written = 0;

	while (bx_pending(bx) != 0) {
		struct rxb_notice *n = &bx->pend[bx->nic.pend_head & bx->pend_mask];

		if (n->since > before || !rxb_cr_nic_has_room(&bx->cr))
			break;
		bx_write(bx, RXB_BUF_NONE, NULL, BX_HAS_CONS, n->ax, n->index);
		rxb_nic_count(&bx->nic_stats, RXB_NIC_NOTICES, 1);
		bx->nic.pend_head++;
		written++;
	}
	return written;
}

/* Tell Bx `link` that the NIC consumed slot `index` of its Ax `ax`. */
static void bisect_notify(struct rxb_bisect *bs, uint32_t link, uint32_t ax, uint32_t index,
			  uint64_t now, struct rxb_delivery *d)
{
	struct rxb_bx *bx = &bs->bx[link];

	/* By the notification invariant a slot is free unless notices are
	 * being coalesced; holding the notice keeps it either way. */
	bx_hold_notice(bx, ax, index, now);
	if (bs->cfg.coalesce)
		return;
	d->cmpl_writes += bx_flush_notices(bx, UINT64_MAX);
	d->notify_ring = link;
}

/* Write the packet entry for a buffer of a linked Ax: it carries the
 * consumption itself. Always inline: the common case, and with four
 * callers of bisect_consume GCC no longer inlined it by itself (15
 * instructions a packet more). */
static inline __attribute__((always_inline)) void deliver_linked(struct rxb_bx *bx, uint32_t a,
								 const struct rxb_rx_meta *meta,
								 struct rxb_delivery *d)
{
	bx_write(bx, d->buf, meta, BX_HAS_PKT | BX_HAS_CONS, a, d->src_index);
	rxb_counter_add(&bx->nic.linked_uses, 1);
}

/* Write the packet entry for a foreign buffer, carrying a held notice of
 * this Bx if coalescing; the consumption goes to the Ax's own Bx. */
static void deliver_foreign(struct rxb_bisect *bs, struct rxb_bx *bx, uint32_t a,
			    const struct rxb_rx_meta *meta, struct rxb_delivery *d)
{
	uint32_t flags = BX_HAS_PKT | BX_FOREIGN, cons_ax = RXB_NONE, cons_index = RXB_NONE;

	if (bs->cfg.coalesce && bx_pending(bx) != 0) {
		struct rxb_notice *n = &bx->pend[bx->nic.pend_head++ & bx->pend_mask];

		flags |= BX_HAS_CONS;
		cons_ax = n->ax;
		cons_index = n->index;
		rxb_nic_count(&bx->nic_stats, RXB_NIC_NOTICES_COALESCED, 1);
	}
	bx_write(bx, d->buf, meta, flags, cons_ax, cons_index);
	bx->nic.foreign_written++;
	rxb_counter_add(&bx->nic.foreign_uses, 1);
	bisect_notify(bs, bs->ax[a].link, a, d->src_index, meta->now, d);
}

/* Consume the next buffer of Ax a for a packet to Bx d->ring.
 * Returns d->drop (-1: delivered), so a drop can end the function in one line.
 * Inlined into both deliver entries with bx_write and choose_linked_ax: as
 * calls, their prologues and recomputed ring addresses were a third of a
 * delivery's instructions (callgrind, bench_rings: 223 → 158 a packet). */
static inline __attribute__((always_inline)) int bisect_consume(struct rxb_bisect *bs, uint32_t a,
								const struct rxb_rx_meta *meta,
								struct rxb_delivery *d)
{
	struct rxb_bx *bx = &bs->bx[d->ring];
	struct rxb_ax *ax = &bs->ax[a];
	const uint32_t fetched = ax->ring.nic.fetched;
	bool foreign = ax->link != d->ring;

	if (foreign && !bx_foreign_room(bx))
		return rxb_nic_drop(&bx->nic_stats, d, RXB_DROP_NO_BX_SLOT);
	/* Notices held for this Bx precede a consumption of its own Ax (the
	 * call only when some are held: rarely, unless coalescing). */
	if (!foreign && bx_pending(bx) != 0)
		d->cmpl_writes += bx_flush_notices(bx, UINT64_MAX);
	if (!rxb_cr_nic_has_room(&bx->cr))
		return rxb_nic_drop(&bx->nic_stats, d, RXB_DROP_NO_BX_SLOT);
	if (!rxb_descring_nic_ready(&ax->ring, &d->desc_reads))
		return rxb_nic_drop(&bx->nic_stats, d, RXB_DROP_NO_AX_BUF);
	if (ax->ring.nic.fetched != fetched) /* the read brought these in */
		rxb_nic_count(&bx->nic_stats, RXB_NIC_DESC_FETCHED, ax->ring.nic.fetched - fetched);
	d->src_ring = a;
	d->src_index = rxb_descring_nic_take(&ax->ring, &d->buf);
	rxb_nic_write_payload(meta, d->buf);
	d->cmpl_writes++;
	if (foreign)
		deliver_foreign(bs, bx, a, meta, d);
	else
		deliver_linked(bx, a, meta, d);
	rxb_nic_count(&bx->nic_stats, RXB_NIC_DELIVERED, 1);
	return -1;
}

static int bisect_begin(struct rxb_bisect *bs, const struct rxb_rx_meta *meta,
			struct rxb_delivery *d)
{
	rxb_delivery_start(d, meta->dest);
	if (meta->dest >= bs->cfg.n_bx)
		return -EINVAL;
	rxb_nic_count(&bs->bx[meta->dest].nic_stats, RXB_NIC_OFFERED, 1);
	return 0;
}

static int bisect_end(struct rxb_bisect *bs, struct rxb_delivery *d)
{
	rxb_nic_count(&bs->bx[d->ring].nic_stats, RXB_NIC_DESC_READS, d->desc_reads);
	return d->drop >= 0;
}

/* rxb_bisect_nic_deliver, inline in its burst. */
static inline __attribute__((always_inline)) int bisect_deliver(struct rxb_bisect *bs,
								const struct rxb_rx_meta *meta,
								struct rxb_delivery *d)
{
	struct rxb_bx *bx;
	uint32_t a;

	if (bisect_begin(bs, meta, d) != 0)
		return -EINVAL;
	bx = &bs->bx[meta->dest];
	if (!rxb_cr_nic_has_room(&bx->cr)) {
		rxb_nic_drop(&bx->nic_stats, d, RXB_DROP_NO_BX_SLOT);
		return bisect_end(bs, d);
	}
	a = choose_linked_ax(bs, bx);
	if (a == RXB_NONE) {
		a = choose_foreign_ax(bs, bx, meta->dest);
		if (a == RXB_NONE) {
			rxb_nic_drop(&bx->nic_stats, d, RXB_DROP_NO_AX_BUF);
			return bisect_end(bs, d);
		}
	}
	bisect_consume(bs, a, meta, d);
	return bisect_end(bs, d);
}

int rxb_bisect_nic_deliver(struct rxb_bisect *bs, const struct rxb_rx_meta *meta,
			   struct rxb_delivery *d)
{
	return bisect_deliver(bs, meta, d);
}

/* Would choose_foreign_ax find an Ax? Asked without its policy state (the
 * round-robin cursor, the random draw): any non-empty Ax of the set not
 * linked to b will do. */
static bool foreign_ax_nonempty(struct rxb_bisect *bs, const struct rxb_bx *bx, uint32_t b)
{
	for (uint32_t k = 0; k < bx->n_assoc; k++) {
		uint32_t a = bx->assoc[k];

		if (bs->ax[a].link != b && ax_nonempty(bs, a))
			return true;
	}
	return false;
}

bool rxb_bisect_nic_room(struct rxb_bisect *bs, uint32_t b, enum rxb_drop_cause *cause)
{
	struct rxb_bx *bx = &bs->bx[b];
	uint32_t free = rxb_cr_nic_free(&bx->cr);

	/* rxb_bisect_nic_deliver's decisions in its order. A linked buffer
	 * first writes the notices held for this Bx, then its own entry (the
	 * notification invariant keeps that room whenever a linked Ax holds a
	 * buffer; the test mirrors the delivery rather than rely on it). */
	if (free == 0)
		return rxb_nic_no_room(cause, RXB_DROP_NO_BX_SLOT);
	if (choose_linked_ax(bs, bx) != RXB_NONE) {
		if (free < bx_pending(bx) + 1)
			return rxb_nic_no_room(cause, RXB_DROP_NO_BX_SLOT);
		return true;
	}
	if (!foreign_ax_nonempty(bs, bx, b))
		return rxb_nic_no_room(cause, RXB_DROP_NO_AX_BUF);
	if (!bx_foreign_room(bx))
		return rxb_nic_no_room(cause, RXB_DROP_NO_BX_SLOT);
	return true;
}

/* rxb_bisect_nic_deliver_from, inline in its burst. */
static inline __attribute__((always_inline)) int bisect_deliver_from(struct rxb_bisect *bs,
								     uint32_t ax,
								     const struct rxb_rx_meta *meta,
								     struct rxb_delivery *d)
{
	/* Refused before bisect_begin counts the packet offered: a refused
	 * call moves no counter (include/rxb/iface.h). */
	if (ax >= bs->cfg.n_ax ||
	    (meta->dest < bs->cfg.n_bx && !bx_has_ax(&bs->bx[meta->dest], ax)))
		return rxb_delivery_refuse(d, meta->dest);
	if (bisect_begin(bs, meta, d) != 0)
		return -EINVAL;
	bisect_consume(bs, ax, meta, d);
	return bisect_end(bs, d);
}

int rxb_bisect_nic_deliver_from(struct rxb_bisect *bs, uint32_t ax, const struct rxb_rx_meta *meta,
				struct rxb_delivery *d)
{
	return bisect_deliver_from(bs, ax, meta, d);
}

/* The burst from sources (`from`) or by steering: a constant in each of
 * its two instances, so each loop holds one inlined path (one loop with
 * both took 5 % more instructions a packet from sources). */
static inline __attribute__((always_inline)) unsigned bisect_burst(
	struct rxb_bisect *bs, const uint32_t *axs, const struct rxb_rx_meta *metas, unsigned n,
	struct rxb_delivery *d, bool stop_on_drop, const bool from)
{
	unsigned k = 0;

	while (k < n && rxb_burst_next(from ? bisect_deliver_from(bs, axs[k], &metas[k], &d[k])
					    : bisect_deliver(bs, &metas[k], &d[k]),
				       stop_on_drop, &k))
		;
	return k;
}

unsigned rxb_bisect_nic_deliver_burst(struct rxb_bisect *bs, const uint32_t *axs,
				      const struct rxb_rx_meta *metas, unsigned n,
				      struct rxb_delivery *d, bool stop_on_drop)
{
	if (axs != NULL)
		return bisect_burst(bs, axs, metas, n, d, stop_on_drop, true);
	return bisect_burst(bs, NULL, metas, n, d, stop_on_drop, false);
}

unsigned rxb_bisect_nic_fetch(struct rxb_bisect *bs, uint32_t a, rxb_buf_t *bufs, unsigned n)
{
	struct rxb_ax *ax = &bs->ax[a];
	uint32_t first = ax->ring.nic.fetched;
	uint16_t reads = 0;
	unsigned got = rxb_descring_nic_fetch(&ax->ring, n, &reads);
	struct rxb_nic_stats *s = &bs->bx[ax->link].nic_stats;

	for (unsigned i = 0; i < got; i++)
		bufs[i] = ax->ring.desc[(first + i) & ax->ring.mask];
	rxb_nic_count(s, RXB_NIC_DESC_READS, reads);
	rxb_nic_count(s, RXB_NIC_DESC_FETCHED, got);
	return got;
}

uint32_t rxb_bisect_nic_ax_avail(struct rxb_bisect *bs, uint32_t ax)
{
	return rxb_descring_nic_avail(&bs->ax[ax].ring, true);
}

unsigned rxb_bisect_nic_tick(struct rxb_bisect *bs, uint64_t now)
{
	unsigned written = 0;
	uint64_t before; /* notices held since then or earlier are due */

	if (!bs->cfg.coalesce || now < bs->cfg.coalesce_timeout)
		return 0;
	before = now - bs->cfg.coalesce_timeout;
	for (uint32_t b = 0; b < bs->cfg.n_bx; b++)
		if (bx_pending(&bs->bx[b]) != 0)
			written += bx_flush_notices(&bs->bx[b], before);
	return written;
}

/* -------------------------------------------------------- software side */

/* Post fresh buffers at the Ax tail (no doorbell yet). */
static void ax_post(struct rxb_ax *ax, const rxb_buf_t *fresh, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		ax->ring.desc[(ax->sw.tail + i) & ax->ring.mask] = fresh[i];
	ax->sw.tail += n;
}

/* Ring the doorbell of every Ax of this core that got buffers. */
static void ax_doorbells(struct rxb_bisect *bs, struct rxb_bx *bx)
{
	for (uint32_t k = 0; k < bx->n_linked; k++) {
		struct rxb_ax *ax = &bs->ax[bx->linked[k]];

		if (ax->sw.tail == ax->sw.rung)
			continue;
		rxb_sw_count(&bx->sw_stats, RXB_SW_POSTED, ax->sw.tail - ax->sw.rung);
		rxb_sw_count(&bx->sw_stats, RXB_SW_DOORBELLS, 1);
		ax->sw.rung = ax->sw.tail;
		rxb_descring_doorbell(&ax->ring, ax->sw.tail);
	}
}

/* Post buffers into every free slot of this core's Ax rings (no doorbell).
 * `upto`: take what the allocator has (a top-up after a deficit) rather
 * than stop at the first refused chunk (priming). */
static unsigned ax_fill(struct rxb_bisect *bs, struct rxb_bx *bx, const struct rxb_allocator *alloc,
			bool upto)
{
	rxb_buf_t fresh[RXB_BURST_MAX];
	unsigned posted = 0;

	for (uint32_t k = 0; k < bx->n_linked; k++) {
		struct rxb_ax *ax = &bs->ax[bx->linked[k]];

		for (;;) {
			unsigned room = ax->ring.size - (ax->sw.tail - ax->sw.reclaimed);
			unsigned n = room < RXB_BURST_MAX ? room : RXB_BURST_MAX;
			unsigned got;

			if (n == 0)
				break;
			got = upto ? rxb_alloc_get_upto(alloc, fresh, n)
			      : alloc->get(alloc->ctx, fresh, n) == n ? n
								      : 0;
			if (got != n)
				rxb_sw_count(&bx->sw_stats, RXB_SW_ALLOC_FAIL, 1);
			ax_post(ax, fresh, got);
			posted += got;
			if (got != n)
				break;
		}
	}
	return posted;
}

unsigned rxb_bisect_prime(struct rxb_bisect *bs, uint32_t core, const struct rxb_allocator *alloc)
{
	struct rxb_bx *bx = &bs->bx[core];
	unsigned posted = ax_fill(bs, bx, alloc, false);

	ax_doorbells(bs, bx);
	return posted;
}

/* Entries one receive call may look at: n packets plus as many notices. */
#define RX_SCAN_MAX (2 * RXB_BURST_MAX)

/* What one pass over the ready Bx entries found. */
struct rx_scan {
	unsigned entries; /* ready entries to consume */
	unsigned pkts;    /* packets among them */
	unsigned notices; /* entries carrying a consumption */
	unsigned foreign; /* foreign entries among them */
	uint64_t odd;     /* non-zero: a notice is not the next slot of the one
			     * linked Ax (several linked rings, or a broken
			     * invariant): refill entry by entry, with checks */
};

/* The one Ax linked to this Bx, or NULL when there are several (or none). */
static struct rxb_ax *bx_single_ax(struct rxb_bisect *bs, const struct rxb_bx *bx, uint32_t *id)
{
	if (bx->n_linked != 1) {
		*id = RXB_NONE;
		return NULL;
	}
	*id = bx->linked[0];
	return &bs->ax[*id];
}

static inline const struct rxb_bx_entry *bx_entry(const struct rxb_bx *bx, uint32_t idx)
{
	return (const struct rxb_bx_entry *)bx->cr.ent + (idx & bx->cr.mask);
}

static inline void bx_copy_pkt(struct rxb_pkt *out, const struct rxb_bx_entry *x)
{
	memcpy(out, x, sizeof(*out));
}

/* Pass over the ready entries: collect packets (≤ n), count notices and
 * check, branch-free, that each names the next unreclaimed slot of the
 * linked Ax. Notices are not capped by n; the pass stops at the first entry
 * not ready, at a packet beyond n, or after RX_SCAN_MAX entries. */
static void bisect_rx_scan(struct rxb_bx *bx, const struct rxb_ax *lax, uint32_t lax_id,
			   struct rxb_pkt *out, unsigned n, struct rx_scan *s)
{
	uint32_t cons = bx->cr.sw.cons;
	uint32_t next = lax ? lax->sw.reclaimed : 0, amask = lax ? lax->ring.mask : 0;
	unsigned e, pkts = 0, notices = 0, foreign = 0;
	uint64_t odd = lax == NULL;

	for (e = 0; e < RX_SCAN_MAX; e++) {
		const struct rxb_bx_entry *x = bx_entry(bx, cons + e);
		/* acquire: pairs with the release in bx_write(). */
		uint32_t flags = atomic_load_explicit((_Atomic uint32_t *)&x->flags,
						      memory_order_acquire);
		uint32_t gen = rxb_cr_gen(&bx->cr, cons + e);
		uint64_t want = cons_word(lax_id, (next + notices) & amask);

		/* The common entry, tested with one compare: ready, a packet
		 * in a buffer of our own Ax, and that buffer's consumption. */
		if (flags == (BX_HAS_PKT | BX_HAS_CONS | gen) && pkts < n) {
			odd |= bx_cons_word(x) ^ want;
			notices++;
			bx_copy_pkt(&out[pkts++], x);
			continue;
		}
		if ((flags & RXB_CR_DONE) != gen)
			break;
		if ((flags & BX_HAS_PKT) && pkts == n)
			break; /* packet budget used; notices alone may go on */
		if (flags & BX_HAS_CONS) {
			odd |= bx_cons_word(x) ^ want;
			notices++;
		}
		if (flags & BX_HAS_PKT)
			bx_copy_pkt(&out[pkts++], x);
		foreign += (flags & BX_FOREIGN) != 0;
	}
	s->entries = e;
	s->pkts = pkts;
	s->notices = notices;
	s->foreign = foreign;
	s->odd = odd;
}

/* The allocator gave only `armed` buffers: consume only the entries before
 * the one that needs buffer armed + 1, so no notice is lost. (Rare:
 * recounted here rather than tracked in the scan loop.) */
static void bisect_rx_cut(const struct rxb_bx *bx, struct rx_scan *s, unsigned armed)
{
	unsigned e, pkts = 0, foreign = 0, notices = 0;

	for (e = 0; e < s->entries; e++) {
		uint32_t flags = atomic_load_explicit(
			(_Atomic uint32_t *)&bx_entry(bx, bx->cr.sw.cons + e)->flags,
			memory_order_relaxed);

		if ((flags & BX_HAS_CONS) && notices++ == armed)
			break;
		pkts += (flags & BX_HAS_PKT) != 0;
		foreign += (flags & BX_FOREIGN) != 0;
	}
	s->entries = e;
	s->pkts = pkts;
	s->foreign = foreign;
	s->notices = armed;
}

/* The pool is empty and the first entry needs a buffer. If it carries a
 * packet, drop that packet and re-arm the slot with its buffer, as NIC
 * drivers do when the mempool runs dry: otherwise the rings can hold the
 * whole pool (foreign entries hold buffers whose Ax slot was already
 * refilled) and no core could ever receive again. Returns whether it did. */
static bool bisect_rx_recycle(const struct rxb_bx *bx, struct rx_scan *s, rxb_buf_t *fresh)
{
	const struct rxb_bx_entry *x = bx_entry(bx, bx->cr.sw.cons);
	uint32_t flags = atomic_load_explicit((_Atomic uint32_t *)&x->flags, memory_order_relaxed);

	if (s->entries != 0 || (flags & (BX_HAS_PKT | BX_HAS_CONS)) != (BX_HAS_PKT | BX_HAS_CONS))
		return false;
	fresh[0] = x->buf;
	s->entries = 1;
	s->pkts = 0;
	s->notices = 1;
	s->foreign = (flags & BX_FOREIGN) != 0;
	return true;
}

/* The pool is empty and the first entry is a consumption-only notice of
 * one of our Ax rings: act on it without a buffer, leaving that slot empty
 * (sw.deficit; a later receive tops the ring up). Without this two cores
 * whose heads are such notices, each for a buffer sitting behind the
 * other's, would wait for each other for ever. Returns whether it did. */
static bool bisect_rx_defer(struct rxb_bisect *bs, uint32_t core, struct rxb_bx *bx,
			    struct rx_scan *s)
{
	const struct rxb_bx_entry *x = bx_entry(bx, bx->cr.sw.cons);
	uint32_t flags = atomic_load_explicit((_Atomic uint32_t *)&x->flags, memory_order_relaxed);

	if (s->entries != 0 || (flags & (BX_HAS_PKT | BX_HAS_CONS)) != BX_HAS_CONS ||
	    x->ax_ring >= bs->cfg.n_ax || bs->ax[x->ax_ring].link != core)
		return false;
	bs->ax[x->ax_ring].sw.reclaimed++;
	bx->sw.deficit++;
	s->entries = 1;
	s->pkts = s->notices = s->foreign = 0;
	return true;
}

/* Refill entry by entry, checking each notice (several linked Ax rings, or
 * a notice out of order: the latter is a broken invariant, counted). */
static void bisect_rx_refill_checked(struct rxb_bisect *bs, uint32_t core, struct rxb_bx *bx,
				     const struct rx_scan *s, const rxb_buf_t *fresh,
				     const struct rxb_allocator *alloc)
{
	unsigned used = 0;

	for (unsigned i = 0; i < s->entries; i++) {
		const struct rxb_bx_entry *e = bx_entry(bx, bx->cr.sw.cons + i);
		uint32_t flags = atomic_load_explicit((_Atomic uint32_t *)&e->flags,
						      memory_order_relaxed);
		struct rxb_ax *ax;

		if (!(flags & BX_HAS_CONS))
			continue;
		if (e->ax_ring >= bs->cfg.n_ax || bs->ax[e->ax_ring].link != core) {
			/* Not ours to refill: keep the buffer, flag the bug. */
			RXB_DEBUG_CHECK(0, "rxbisect: notice for an Ax not linked to this Bx");
			rxb_sw_count(&bx->sw_stats, RXB_SW_ORDER_ERRORS, 1);
			alloc->put(alloc->ctx, &fresh[used++], 1);
			continue;
		}
		ax = &bs->ax[e->ax_ring];
		/* The NIC consumes an Ax in ring order and sends its notices to
		 * one Bx in that order: a notice names the next unreclaimed slot. */
		if (e->ax_index != (ax->sw.reclaimed & ax->ring.mask)) {
			RXB_DEBUG_CHECK(0, "rxbisect: consumption notice out of Ax order");
			rxb_sw_count(&bx->sw_stats, RXB_SW_ORDER_ERRORS, 1);
		}
		ax->sw.reclaimed++;
		ax_post(ax, &fresh[used++], 1);
	}
}

/* Publish what was read, then ring the doorbells. The order matters: a NIC
 * that sees a refilled Ax slot must also see the Bx slots freed by reading
 * its notice (the notification invariant in rxbisect.h). */
static void bisect_rx_publish(struct rxb_bisect *bs, struct rxb_bx *bx, const struct rx_scan *s)
{
	rxb_cr_sw_publish(&bx->cr, s->entries);
	bx->sw.foreign_cons += s->foreign;
	/* release: pairs with the acquire in bx_foreign_room(). */
	atomic_store_explicit(&bx->sw.foreign_cons_pub, bx->sw.foreign_cons, memory_order_release);
	ax_doorbells(bs, bx);
}

unsigned rxb_bisect_rx(struct rxb_bisect *bs, uint32_t core, struct rxb_pkt *out, unsigned n,
		       const struct rxb_allocator *alloc)
{
	struct rxb_bx *bx = &bs->bx[core];
	rxb_buf_t fresh[RX_SCAN_MAX];
	struct rx_scan s;
	uint32_t lax_id;
	struct rxb_ax *lax = bx_single_ax(bs, bx, &lax_id);

	if (n > RXB_BURST_MAX)
		n = RXB_BURST_MAX;
	bisect_rx_scan(bx, lax, lax_id, out, n, &s);
	if (s.notices != 0) {
		unsigned armed = rxb_alloc_get_upto(alloc, fresh, s.notices);

		if (armed != s.notices) {
			rxb_sw_count(&bx->sw_stats, RXB_SW_ALLOC_FAIL, 1);
			bisect_rx_cut(bx, &s, armed);
			if (armed == 0 && bisect_rx_recycle(bx, &s, fresh))
				rxb_sw_count(&bx->sw_stats, RXB_SW_RECYCLED, 1);
			else if (armed == 0 && bisect_rx_defer(bs, core, bx, &s))
				rxb_sw_count(&bx->sw_stats, RXB_SW_DEFERRED, 1);
		}
	}
	if (s.notices != 0 && !s.odd) {
		/* Common case: every notice is the next slot of our one Ax. */
		lax->sw.reclaimed += s.notices;
		ax_post(lax, fresh, s.notices);
	} else if (s.notices != 0) {
		bisect_rx_refill_checked(bs, core, bx, &s, fresh, alloc);
	}
	if (bx->sw.deficit != 0) { /* rare: after the pool ran dry */
		unsigned topped = ax_fill(bs, bx, alloc, true);

		/* an Ax ring short for another reason (a prime cut short) may
		 * take more than the deficit */
		bx->sw.deficit -= topped < bx->sw.deficit ? topped : bx->sw.deficit;
		if (topped != 0 && s.entries == 0)
			ax_doorbells(bs, bx); /* a top-up alone: publish rings otherwise */
	}
	if (s.entries != 0)
		bisect_rx_publish(bs, bx, &s);
	rxb_sw_count(&bx->sw_stats, RXB_SW_NOTICES, s.notices);
	rxb_sw_count(&bx->sw_stats, RXB_SW_BX_ENTRIES, s.entries);
	rxb_sw_count(&bx->sw_stats, RXB_SW_POLLS, 1);
	rxb_sw_count(&bx->sw_stats, s.pkts ? RXB_SW_RECEIVED : RXB_SW_EMPTY_POLLS,
		     s.pkts ? s.pkts : 1);
	return s.pkts;
}

void rxb_bisect_free(struct rxb_bisect *bs, uint32_t core, const struct rxb_allocator *alloc,
		     const rxb_buf_t *bufs, unsigned n)
{
	rxb_sw_free(&bs->bx[core].sw_stats, alloc, bufs, n);
}

/* --------------------------------------------------------- observability */

const struct rxb_nic_stats *rxb_bisect_nic_stats(const struct rxb_bisect *bs, uint32_t bx)
{
	return &bs->bx[bx].nic_stats;
}

const struct rxb_sw_stats *rxb_bisect_sw_stats(const struct rxb_bisect *bs, uint32_t core)
{
	return &bs->bx[core].sw_stats;
}

struct rxb_cr *rxb_bisect_cr(struct rxb_bisect *bs, uint32_t bx)
{
	return &bs->bx[bx].cr;
}

uint32_t rxb_bisect_occupancy(struct rxb_bisect *bs, uint32_t bx)
{
	return rxb_cr_occupancy(rxb_bisect_cr(bs, bx));
}

uint64_t rxb_bisect_linked_uses(const struct rxb_bisect *bs, uint32_t bx)
{
	return rxb_counter_read(&bs->bx[bx].nic.linked_uses);
}

uint64_t rxb_bisect_foreign_uses(const struct rxb_bisect *bs, uint32_t bx)
{
	return rxb_counter_read(&bs->bx[bx].nic.foreign_uses);
}

uint32_t rxb_bisect_reserved(const struct rxb_bisect *bs, uint32_t bx)
{
	return bs->bx[bx].reserved;
}

/* Census of one Ax ring: buffers posted and inside the NIC; returns the
 * slots consumed and not yet reclaimed (their notices are outstanding). */
static int ax_census(struct rxb_bisect *bs, uint32_t a, struct rxb_census *c,
		     struct rxb_buflist *bufs, uint32_t *outstanding, struct rxb_err *err)
{
	struct rxb_ax *ax = &bs->ax[a];
	uint32_t head = rxb_relaxed_load(&ax->ring.nic.head);
	uint32_t tail = rxb_relaxed_load(&ax->ring.db.tail);

	if (tail != ax->sw.tail || tail - head > ax->ring.size ||
	    head - ax->sw.reclaimed > ax->ring.size) {
		return rxb_err_fail(err, -RXB_E_INVARIANT,
				    "rxbisect Ax %u: tail %u (software %u) head %u reclaimed %u "
				    "are inconsistent",
				    a, tail, ax->sw.tail, head, ax->sw.reclaimed);
	}
	c->posted += tail - ax->ring.nic.fetched;
	c->nic_held += ax->ring.nic.fetched - head;
	*outstanding += head - ax->sw.reclaimed;
	for (uint32_t i = head; bufs != NULL && i != tail; i++)
		if (rxb_buflist_push(bufs, ax->ring.desc[i & ax->ring.mask], err) != 0)
			return -ENOMEM;
	return 0;
}

/* Census of one Bx ring: unread packets and notices, and its budgets. */
static int bx_census(struct rxb_bisect *bs, uint32_t b, struct rxb_census *c,
		     struct rxb_buflist *bufs, uint32_t *notices, struct rxb_err *err)
{
	struct rxb_bx *bx = &bs->bx[b];
	uint32_t prod = rxb_relaxed_load(&bx->cr.nic.prod);
	uint32_t foreign = 0, cons = bx_pending(bx);

	for (uint32_t i = bx->cr.sw.cons; i != prod; i++) {
		const struct rxb_bx_entry *e = (const struct rxb_bx_entry *)bx->cr.ent +
					       (i & bx->cr.mask);
		uint32_t flags = atomic_load_explicit((_Atomic uint32_t *)&e->flags,
						      memory_order_relaxed);

		foreign += (flags & BX_FOREIGN) != 0;
		cons += (flags & BX_HAS_CONS) != 0;
		if (!(flags & BX_HAS_PKT))
			continue;
		c->in_entries++;
		if (bufs != NULL && rxb_buflist_push(bufs, e->buf, err) != 0)
			return -ENOMEM;
	}
	if (prod - bx->cr.sw.cons > bx->cr.size || foreign > bx->foreign_budget ||
	    foreign != bx->nic.foreign_written - bx->sw.foreign_cons || cons > bx->reserved) {
		return rxb_err_fail(err, -RXB_E_INVARIANT,
				    "rxbisect Bx %u: %u unread entries, %u foreign (budget %u, "
				    "counted %u), %u carrying consumptions (reserved %u)",
				    b, prod - bx->cr.sw.cons, foreign, bx->foreign_budget,
				    bx->nic.foreign_written - bx->sw.foreign_cons, cons,
				    bx->reserved);
	}
	*notices += cons;
	c->notices_pending += cons;
	return 0;
}

static void bx_census_counters(const struct rxb_bx *bx, struct rxb_census *c)
{
	const struct rxb_sw_stats *sw = &bx->sw_stats;

	c->offered += rxb_counter_read(&bx->nic_stats.c[RXB_NIC_OFFERED]);
	c->delivered += rxb_counter_read(&bx->nic_stats.c[RXB_NIC_DELIVERED]);
	c->dropped += rxb_nic_drops(&bx->nic_stats);
	/* a recycled packet was taken by software, and dropped there */
	c->received += rxb_counter_read(&sw->c[RXB_SW_RECEIVED]) +
		       rxb_counter_read(&sw->c[RXB_SW_RECYCLED]);
	c->app_held += rxb_counter_read(&sw->c[RXB_SW_RECEIVED]) -
		       rxb_counter_read(&sw->c[RXB_SW_FREED]);
}

int rxb_bisect_census(struct rxb_bisect *bs, struct rxb_census *c, struct rxb_buflist *bufs,
		      struct rxb_err *err)
{
	uint32_t outstanding = 0, notices = 0;
	int rc;

	for (uint32_t a = 0; a < bs->cfg.n_ax; a++)
		if ((rc = ax_census(bs, a, c, bufs, &outstanding, err)) != 0)
			return rc;
	for (uint32_t b = 0; b < bs->cfg.n_bx; b++) {
		if ((rc = bx_census(bs, b, c, bufs, &notices, err)) != 0)
			return rc;
		bx_census_counters(&bs->bx[b], c);
	}
	/* Every consumed, unreclaimed Ax slot has exactly one notice on its
	 * way: in a Bx entry or held by the NIC. */
	if (outstanding != notices)
		return rxb_err_fail(err, -RXB_E_INVARIANT,
				    "rxbisect: %u Ax slots consumed and not refilled but %u "
				    "consumption notices pending: a notice was lost or duplicated",
				    outstanding, notices);
	return 0;
}
