/* SPDX-License-Identifier: BSD-3-Clause
 *
 * shRing RxList (docs/interfaces.md §4.2): the free descriptors form a list
 * threaded through next[]; the NIC follows it. A core links its re-armed
 * batch privately and appends it after the list's tail under the group's
 * lock; the doorbell is the posted count. Nothing waits for an earlier
 * descriptor.
 *
 * The sentinel rule (include/rxb/shring.h): the NIC never fetches, hence
 * never consumes, the descriptor at list position posted − 1, the tail. So
 * (a) the NIC reads next[x] only for an x that has a successor, whose link
 * was written before the doorbell that announced the successor, and (b)
 * software writes next[x] only for descriptors the NIC has already passed
 * (its own received batch) or for the tail, whose link the NIC has not read
 * yet. Usable capacity: ring_size − 1.
 *
 * Contiguity model: the NIC prefetches along the list and pays one
 * descriptor-read transaction per maximal run of array-consecutive indices.
 *
 * Batched RxList (rxb_shring_batch_ops; include/rxb/shring.h): the same list
 * of whole descriptors, each with `batch` buffer slots; the NIC side (one
 * current descriptor per core) is in shring.c, here are the release (only
 * descriptors whose last slot was received) and the census of the slots.
 */
#include <errno.h>
#include <string.h>

#include "shring_internal.h"

static int list_init(struct rxb_shgroup *g, struct rxb_err *err)
{
	size_t bytes = sizeof(uint32_t) * g->rx.size;

	/* The list starts at descriptor 0 (the NIC's list-head register). */
	g->nic.cursor = 0;
	g->next = rxb_zalloc_aligned(bytes);
	if (g->next == NULL)
		return rxb_err_nomem(err, bytes, "shring_list links of %u descriptors", g->rx.size);
	g->fifo = rxb_zalloc_aligned(bytes);
	if (g->fifo == NULL)
		return rxb_err_nomem(err, bytes, "shring_list NIC prefetch list of %u descriptors",
				     g->rx.size);
	return 0;
}

static void list_fini(struct rxb_shgroup *g)
{
	rxb_free_aligned(g->next);
	rxb_free_aligned(g->fifo);
}

/* NIC: fetch up to n descriptors along the list, never the tail. */
static uint32_t list_nic_fetch(struct rxb_shgroup *g, uint32_t n, uint16_t *reads)
{
	struct rxb_descring *r = &g->rx;
	/* Ask for one more than wanted: the tail stays behind as sentinel.
	 * The doorbell is re-read (acquire, pairs with the release in
	 * shring_publish_unlock()) only when the cached copy falls short. */
	uint32_t unfetched = rxb_descring_nic_unfetched(r, n + 1);
	uint32_t x = g->nic.cursor, prev = 0;

	if (unfetched <= 1)
		return 0;
	if (n > unfetched - 1)
		n = unfetched - 1;
	for (uint32_t i = 0; i < n; i++) {
		g->fifo[(r->nic.fetched + i) & r->mask] = x;
		*reads += i == 0 || x != prev + 1; /* a new contiguous run */
		prev = x;
		/* x is not the tail, so its successor was announced by a
		 * doorbell we acquired, and its link was written before it. */
		x = g->next[x];
	}
	g->nic.cursor = x;
	r->nic.fetched += n;
	return n;
}

/* list_nic_fetch leaves the tail behind: it needs two unfetched. */
static bool list_nic_fetchable(struct rxb_shgroup *g)
{
	return rxb_descring_nic_unfetched(&g->rx, 2) > 1;
}

static uint32_t list_nic_slot(const struct rxb_shgroup *g, uint32_t pos)
{
	return g->fifo[pos & g->rx.mask];
}

static void list_nic_copy(const struct rxb_shgroup *g, uint32_t pos, uint32_t n, rxb_buf_t *bufs)
{
	for (uint32_t i = 0; i < n; i++)
		bufs[i] = g->rx.desc[list_nic_slot(g, pos + i)];
}

/* A fresh list in array order: 0 → 1 → … → size − 1 (the tail). */
static void list_prime(struct rxb_shgroup *g)
{
	for (uint32_t i = 0; i + 1 < g->rx.size; i++)
		g->next[i] = i + 1;
	g->next[g->rx.size - 1] = RXB_NONE;
	g->rep.last = g->rx.size - 1;
}

/* Append the privately linked chain first → … → last of n descriptors
 * after the list's tail, under the lock, and ring the doorbell. */
static inline void list_append(struct rxb_shgroup *g, struct rxb_sw_stats *s, uint32_t first,
			       uint32_t last, unsigned n)
{
	shring_lock(g, s);
	/* The tail is posted and never consumed (sentinel), so the NIC has not
	 * read its link; it will only after the doorbell below. */
	g->next[g->rep.last] = first;
	g->rep.last = last;
	shring_wait_account(g, n, 0, 0, 0);
	shring_publish_unlock(g, s, g->rep.tail + n);
}

static void list_release(struct rxb_shgroup *g, struct rxb_sw_stats *s, const uint32_t *slots,
			 unsigned n, uint64_t now)
{
	(void)now; /* returned at once: no wait to measure */
	/* Link the batch privately. The NIC read these descriptors' links
	 * when it fetched them, before it consumed them and wrote the CR
	 * entries we acquired, and no other core holds them. */
	for (unsigned i = 0; i + 1 < n; i++)
		g->next[slots[i]] = slots[i + 1];
	list_append(g, s, slots[0], slots[n - 1], n);
}

/* RxList invariant: walking the list from the NIC's prefetch through the
 * posted descriptors takes exactly `posted` steps and ends at the tail,
 * which stays posted. (Nothing is released and unreturned: a batch is
 * linked and appended within one receive call.) */
static int list_census(struct rxb_shgroup *g, struct shring_census *sc)
{
	uint32_t head = rxb_relaxed_load(&g->rx.nic.head), fetched = g->rx.nic.fetched;
	uint32_t tail = g->rep.tail, x = g->nic.cursor;
	int rc = 0;

	if (tail != 0 && fetched == tail)
		return rxb_err_fail(sc->err, -RXB_E_INVARIANT,
				    "shring_list ring %u: the NIC fetched the list's tail %u "
				    "(the sentinel must stay posted)",
				    sc->ring, g->rep.last);
	for (uint32_t p = head; rc == 0 && p != fetched; p++)
		rc = shring_census_mark_slots(g, sc, g->fifo[p & g->rx.mask], 0, g->batch,
					      SHRING_ROLE_NIC_HELD);
	for (uint32_t p = fetched; rc == 0 && p != tail; p++) {
		rc = shring_census_mark_slots(g, sc, x, 0, g->batch, SHRING_ROLE_POSTED);
		if (rc == 0 && p + 1 != tail)
			x = g->next[x];
	}
	if (rc == 0 && tail != 0 && x != g->rep.last)
		rc = rxb_err_fail(sc->err, -RXB_E_INVARIANT,
				  "shring_list ring %u: the %u posted descriptors end at %u "
				  "but the list's tail is %u",
				  sc->ring, tail - head, x, g->rep.last);
	return rc;
}

const struct shring_ops rxb_shring_list_ops = {
	.name = "shring_list",
	.init = list_init,
	.fini = list_fini,
	.nic_fetch = list_nic_fetch,
	.nic_fetchable = list_nic_fetchable,
	.nic_slot = list_nic_slot,
	.nic_copy = list_nic_copy,
	.prime = list_prime,
	.release = list_release,
	.census = list_census,
};

/* ------------------------------------------------------- batched RxList */

/* desc[] grows to every buffer slot: slot k of descriptor x is
 * desc[x << batch_shift | k]. */
static int batch_init(struct rxb_shgroup *g, struct rxb_err *err)
{
	uint32_t n = shring_n_slots(g);
	size_t bytes = sizeof(rxb_buf_t) * n;
	rxb_buf_t *slots = rxb_zalloc_aligned(bytes);

	if (slots == NULL)
		return rxb_err_nomem(err, bytes, "batched shring_list: %u buffer slots", n);
	for (uint32_t i = 0; i < n; i++)
		slots[i] = RXB_BUF_NONE;
	rxb_free_aligned(g->rx.desc);
	g->rx.desc = slots;
	return list_init(g, err);
}

static void batch_nic_copy(const struct rxb_shgroup *g, uint32_t pos, uint32_t n, rxb_buf_t *bufs)
{
	for (uint32_t i = 0; i < n; i++)
		memcpy(&bufs[i << g->batch_shift],
		       &g->rx.desc[list_nic_slot(g, pos + i) << g->batch_shift],
		       sizeof(*bufs) << g->batch_shift);
}

/* slots[] are buffer slots the core received and re-armed, in its CR's
 * order. A descriptor is complete when its last slot is among them: the
 * NIC filled its slots in order, all into this core's CR, so every earlier
 * slot came before and was re-armed already. Link the complete ones and
 * append them; no lock when there are none. */
static void batch_release(struct rxb_shgroup *g, struct rxb_sw_stats *s, const uint32_t *slots,
			  unsigned n, uint64_t now)
{
	uint32_t last_slot = g->batch - 1, first = RXB_NONE, prev = RXB_NONE;
	unsigned done = 0;

	(void)now; /* returned once complete: no in-order wait to measure */
	for (unsigned i = 0; i < n; i++) {
		uint32_t x = slots[i] >> g->batch_shift;

		if ((slots[i] & last_slot) != last_slot)
			continue;
		/* As for RxList: the NIC read x's link when it fetched x, long
		 * before it filled x's last slot. */
		if (done++ == 0)
			first = x;
		else
			g->next[prev] = x;
		prev = x;
	}
	if (done != 0)
		list_append(g, s, first, prev, done);
}

/* The list as RxList (every slot of each descriptor), then per core of the
 * group: the unfilled slots of its current descriptor (in the NIC), and the
 * received, re-armed slots of the descriptor it is receiving (posted, not
 * yet returned). A core receives its descriptors' slots in CR order and
 * only complete descriptors leave it, so those are slots [0, k) of the
 * descriptor whose slot k the first unread entry names or, with nothing
 * unread, the filled slots of the current descriptor. The caller has the
 * unread slots and checks that all of this adds up to the consumed
 * descriptors. */
static int batch_census(struct rxb_shgroup *g, struct shring_census *sc)
{
	int rc = list_census(g, sc);

	for (uint32_t i = 0; rc == 0 && i < sc->n_cores; i++) {
		const struct rxb_shcore *c = &sc->cores[i];
		const struct rxb_cr *cr = &c->cr;
		uint32_t x = RXB_NONE, k = 0;

		if (c->cur.fill < g->batch)
			rc = shring_census_mark_slots(g, sc, c->cur.desc, c->cur.fill, g->batch,
						      SHRING_ROLE_CURRENT);
		if (rxb_relaxed_load((_Atomic uint32_t *)&cr->nic.prod) != cr->sw.cons) {
			const struct rxb_cr_entry *e = (const struct rxb_cr_entry *)cr->ent +
						       (cr->sw.cons & cr->mask);

			x = e->index >> g->batch_shift;
			k = e->index & (g->batch - 1);
		} else if (c->cur.fill < g->batch) {
			x = c->cur.desc;
			k = c->cur.fill;
		}
		if (rc == 0)
			rc = shring_census_mark_slots(g, sc, x, 0, k, SHRING_ROLE_RELEASED);
	}
	return rc;
}

const struct shring_ops rxb_shring_batch_ops = {
	.name = "shring_list_batch",
	.init = batch_init,
	.fini = list_fini,
	.nic_fetch = list_nic_fetch,
	.nic_fetchable = list_nic_fetchable,
	.nic_slot = list_nic_slot,
	.nic_copy = batch_nic_copy,
	.prime = list_prime,
	.release = batch_release,
	.census = batch_census,
};
