/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The hand-off of buffers from virtual rings to physical queues.
 *
 * A PMD refills its Rx queue from the mempool given to
 * rte_eth_rx_queue_setup() (net_null and net_pcap allocate at receive time,
 * hardware PMDs when they re-arm descriptors). Each physical queue gets an
 * empty mempool with the "rxb_virt" ops: it owns no objects; its dequeue
 * hands out buffers the emulator lcore fetched from the design's virtual
 * rings (rxb_*_nic_fetch) and pushed into the queue's SPSC "fill" ring; its
 * enqueue — a PMD giving back buffers it took but could not use — puts them
 * in front of the supply again, in order, so the next allocation returns
 * them first and the library's consumption order is kept. While a buffer is
 * in the physical domain its m->pool points at this pool (so such frees land
 * here); the emulator restores the workers' pool when the packet comes back.
 */
#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "emu_int.h"

int emu_pq_take(struct emu_pq *pq, struct rte_mbuf **m, unsigned n)
{
	uint32_t s = atomic_load_explicit(&pq->stash_n, memory_order_relaxed);
	unsigned k = s < n ? s : n;

	if (s + rte_ring_count(pq->fill) < n)
		return -ENOBUFS;
	for (unsigned i = 0; i < k; i++)
		m[i] = pq->stash[s - 1 - i];
	atomic_store_explicit(&pq->stash_n, s - k, memory_order_relaxed);
	/* Single consumer: what rte_ring_count() saw is still there. */
	if (n > k && rte_ring_sc_dequeue_bulk(pq->fill, (void **)(m + k), n - k, NULL) != n - k)
		return -EIO;
	return 0;
}

unsigned emu_pq_avail(const struct emu_pq *pq)
{
	return atomic_load_explicit(&((struct emu_pq *)pq)->stash_n, memory_order_relaxed) +
	       rte_ring_count(pq->fill);
}

static int virt_alloc(struct rte_mempool *mp)
{
	mp->pool_data = mp->pool_config;
	return 0;
}

static void virt_free(struct rte_mempool *mp)
{
	(void)mp;
}

/* A PMD frees buffers it allocated and did not fill: objs[0] is the one it
 * took first, so it goes on top of the stash. */
static int virt_enqueue(struct rte_mempool *mp, void *const *objs, unsigned int n)
{
	struct emu_pq *pq = mp->pool_config;
	uint32_t s = atomic_load_explicit(&pq->stash_n, memory_order_relaxed);

	if (s + n > pq->stash_cap)
		return -ENOBUFS; /* cannot happen: the queue's sources hold at most cap */
	for (unsigned i = n; i-- > 0;)
		pq->stash[s++] = objs[i];
	atomic_store_explicit(&pq->stash_n, s, memory_order_relaxed);
	rxb_counter_add(&pq->returned, n);
	return 0;
}

static int virt_dequeue(struct rte_mempool *mp, void **objs, unsigned int n)
{
	return emu_pq_take(mp->pool_config, (struct rte_mbuf **)objs, n) == 0 ? 0 : -ENOBUFS;
}

static unsigned int virt_count(const struct rte_mempool *mp)
{
	return emu_pq_avail(mp->pool_config);
}

static const struct rte_mempool_ops virt_ops = {
	.name = EMU_OPS_NAME,
	.alloc = virt_alloc,
	.free = virt_free,
	.enqueue = virt_enqueue,
	.dequeue = virt_dequeue,
	.get_count = virt_count,
};

int emu_virt_register(void)
{
	static int registered;

	if (!registered) {
		int rc = rte_mempool_register_ops(&virt_ops);

		if (rc < 0 && rc != -EEXIST)
			return rc;
		registered = 1;
	}
	return 0;
}

int emu_pq_create(struct emu *e, struct emu_pq *pq, uint32_t idx)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	int socket = (int)rte_socket_id();
	int rc;

	pq->stash_cap = pq->cap;
	pq->stash = rte_zmalloc_socket("rxb_stash", sizeof(*pq->stash) * pq->cap, 0, socket);
	snprintf(name, sizeof(name), "rxbf%u_%u", e->run_id, idx);
	pq->fill = rte_ring_create(name, pq->cap, socket,
				   RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ);
	snprintf(name, sizeof(name), "rxbv%u_%u", e->run_id, idx);
	pq->vpool = rte_mempool_create_empty(name, pq->cap, e->wpool->elt_size, 0,
					     sizeof(struct rte_pktmbuf_pool_private), socket, 0);
	if (pq->stash == NULL || pq->fill == NULL || pq->vpool == NULL)
		return -ENOMEM;
	rc = rte_mempool_set_ops_byname(pq->vpool, EMU_OPS_NAME, pq);
	if (rc != 0)
		return rc;
	/* Same data room and private size as the workers' pool, so the PMD
	 * sizes packets exactly as it would with that pool. */
	rte_pktmbuf_pool_init(pq->vpool, rte_mempool_get_priv(e->wpool));
	return 0;
}

void emu_pq_destroy(struct emu_pq *pq)
{
	rte_mempool_free(pq->vpool);
	rte_ring_free(pq->fill);
	rte_ring_free(pq->wire);
	rte_free(pq->stash);
	pq->vpool = NULL;
	pq->fill = NULL;
	pq->wire = NULL;
	pq->stash = NULL;
}
