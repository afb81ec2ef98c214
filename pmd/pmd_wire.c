/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The underlying port ("the wire"): any ethdev, found by name when the
 * port is probed (net_null<N> and net_ring<N> are created if absent) and
 * owned by net_rxbisect from then on, so the application's
 * RTE_ETH_FOREACH_DEV does not see it as a port of its own. It gets one
 * mempool of its own for its Rx queue (frames are copied into the
 * application's buffers by the NIC thread and freed at once), as many Tx
 * queues as the application has, or as it supports (then Tx queues share
 * one with a lock).
 */
#include <errno.h>
#include <string.h>

#include <bus_vdev_driver.h>
#include <rte_malloc.h>

#include "gen.h"
#include "pmd.h"

static bool created_on_demand(const char *name)
{
	return strncmp(name, "net_null", 8) == 0 || strncmp(name, "net_ring", 8) == 0;
}

int pmd_wire_attach(struct pmd *p, struct rxb_err *err)
{
	struct rte_eth_dev_owner owner = { 0 };
	struct rte_eth_dev_info info;
	int rc = rte_eth_dev_get_port_by_name(p->cfg.port, &p->wire);

	if (rc != 0 && created_on_demand(p->cfg.port)) {
		rc = rte_vdev_init(p->cfg.port, NULL);
		if (rc == 0)
			rc = rte_eth_dev_get_port_by_name(p->cfg.port, &p->wire);
		p->wire_created = rc == 0;
	}
	if (rc != 0)
		return rxb_err_fail(err, -EINVAL, "devarg port=%s: no such ethdev (give its "
				    "--vdev or PCI address to the EAL before net_rxbisect's)",
				    p->cfg.port);
	if (rte_eth_dev_info_get(p->wire, &info) != 0 || info.max_rx_queues == 0)
		return rxb_err_fail(err, -EINVAL, "devarg port=%s: cannot read its device info",
				    p->cfg.port);
	p->wire_null = strcmp(info.driver_name, "net_null") == 0;
	rc = rte_eth_dev_owner_new(&owner.id);
	snprintf(owner.name, sizeof(owner.name), "%s", p->dev->data->name);
	if (rc == 0)
		rc = rte_eth_dev_owner_set(p->wire, &owner);
	if (rc != 0)
		return rxb_err_fail(err, -EBUSY, "devarg port=%s: already owned by another "
				    "device (a bonding or failsafe port?)", p->cfg.port);
	p->owner_id = owner.id;
	p->wire_attached = true;
	return 0;
}

/* net_null writes no bytes: give each of its buffers a UDP frame of one of
 * `flows` flows once (its Rx keeps the contents), so RSS spreads them. */
static int prefill_null(struct pmd *p, struct rxb_err *err)
{
	struct rxb_gen_cfg g;
	struct rxb_gen *gen;
	struct rte_mbuf *m;
	uint32_t n = p->wire_pool->size, i;
	struct rte_mbuf **all = rte_malloc(NULL, sizeof(*all) * n, 0);

	if (all == NULL)
		return rxb_err_fail(err, -ENOMEM, "out of memory: wire prefill");
	rxb_gen_cfg_defaults(&g);
	g.n_flows = p->cfg.flows;
	g.frame_size = 60;
	g.stamp = false;
	if (rxb_gen_create(&g, &gen, err) != 0) {
		rte_free(all);
		return -EINVAL;
	}
	for (i = 0; i < n && (m = rte_pktmbuf_alloc(p->wire_pool)) != NULL; i++) {
		rxb_gen_fill(gen, &m, 1, 0, NULL);
		all[i] = m;
	}
	rte_pktmbuf_free_bulk(all, i);
	rxb_gen_destroy(gen);
	rte_free(all);
	return 0;
}

static int make_pool(struct pmd *p, struct rxb_err *err)
{
	char name[RTE_MEMPOOL_NAMESIZE];

	if (p->wire_pool != NULL)
		return 0;
	snprintf(name, sizeof(name), "rxbw_%u", p->port_id);
	/* its Rx rings (all full), a burst in the NIC's hands, the caches */
	p->wire_pool = rte_pktmbuf_pool_create(name, PMD_WIRE_RING * PMD_WIRE_MAX_RXQS +
					       4 * PMD_WIRE_BURST, 32,
					       0, RTE_MBUF_DEFAULT_BUF_SIZE,
					       (int)rte_eth_dev_socket_id(p->wire));
	if (p->wire_pool == NULL)
		return rxb_err_fail(err, -ENOMEM, "cannot create the wire's mempool: %s",
				    rte_strerror(rte_errno));
	return p->wire_null && p->cfg.flows > 0 ? prefill_null(p, err) : 0;
}

static int setup_queues(struct pmd *p, struct rxb_err *err)
{
	struct rte_eth_conf conf = { 0 };
	struct rte_eth_dev_info info;
	uint16_t ntx = RTE_MAX(p->dev->data->nb_tx_queues, 1);
	int rc;

	rte_eth_dev_info_get(p->wire, &info);
	p->wire_txqs = RTE_MIN(ntx, info.max_tx_queues);
	/* Polled all: a looping wire (net_ring) returns Tx queue q's frames
	 * on its Rx queue q. */
	p->wire_rxqs = RTE_MIN(RTE_MIN(p->wire_txqs, info.max_rx_queues), PMD_WIRE_MAX_RXQS);
	rc = rte_eth_dev_configure(p->wire, p->wire_rxqs, p->wire_txqs, &conf);
	if (rc != 0)
		return rxb_err_fail(err, rc, "devarg port=%s: configure with %u Rx and %u Tx "
				    "queues failed: %s", p->cfg.port, p->wire_rxqs, p->wire_txqs,
				    rte_strerror(-rc));
	for (uint16_t q = 0; rc == 0 && q < p->wire_rxqs; q++)
		rc = rte_eth_rx_queue_setup(p->wire, q, PMD_WIRE_RING,
					    rte_eth_dev_socket_id(p->wire), NULL, p->wire_pool);
	for (uint16_t q = 0; rc == 0 && q < p->wire_txqs; q++)
		rc = rte_eth_tx_queue_setup(p->wire, q, PMD_WIRE_RING,
					    rte_eth_dev_socket_id(p->wire), NULL);
	if (rc != 0)
		return rxb_err_fail(err, rc, "devarg port=%s: queue setup failed: %s", p->cfg.port,
				    rte_strerror(-rc));
	return 0;
}

/* Tx queue q of the application goes to wire queue q % wire_txqs, behind a
 * lock when several share it. */
static int map_tx_queues(struct pmd *p, struct rxb_err *err)
{
	uint16_t n = p->dev->data->nb_tx_queues;

	rte_free(p->wire_tx_locks);
	p->wire_tx_locks = NULL;
	if (n > p->wire_txqs) {
		p->wire_tx_locks = rte_zmalloc(NULL, sizeof(*p->wire_tx_locks) * p->wire_txqs, 0);
		if (p->wire_tx_locks == NULL)
			return rxb_err_fail(err, -ENOMEM, "out of memory: Tx locks");
		for (uint16_t w = 0; w < p->wire_txqs; w++)
			rte_spinlock_init(&p->wire_tx_locks[w]);
	}
	for (uint16_t q = 0; q < n; q++) {
		struct pmd_txq *tq = p->dev->data->tx_queues[q];

		tq->wire_q = q % p->wire_txqs;
		tq->lock = p->wire_tx_locks != NULL ? &p->wire_tx_locks[tq->wire_q] : NULL;
	}
	return 0;
}

int pmd_wire_start(struct pmd *p, struct rxb_err *err)
{
	int rc = make_pool(p, err);

	if (rc == 0)
		rc = setup_queues(p, err);
	if (rc == 0)
		rc = map_tx_queues(p, err);
	if (rc == 0) {
		rc = rte_eth_dev_start(p->wire);
		if (rc != 0)
			rxb_err_fail(err, rc, "devarg port=%s: start failed: %s", p->cfg.port,
				     rte_strerror(-rc));
	}
	p->wire_started = rc == 0;
	return rc;
}

void pmd_wire_stop(struct pmd *p)
{
	if (!p->wire_started)
		return;
	pmd_nic_drain_wire(p);
	rte_eth_dev_stop(p->wire);
	p->wire_started = false;
}

void pmd_wire_detach(struct pmd *p)
{
	pmd_wire_stop(p);
	if (p->owner_id != 0) {
		rte_eth_dev_owner_unset(p->wire, p->owner_id);
		rte_eth_dev_owner_delete(p->owner_id);
		p->owner_id = 0;
	}
	/* Hidden from the application, the wire is closed by nobody else (a
	 * net_pcap wire writes its tx_pcap file out at close). */
	if (p->wire_attached)
		rte_eth_dev_close(p->wire);
	if (p->wire_created)
		rte_vdev_uninit(p->cfg.port);
	p->wire_attached = p->wire_created = false;
	rte_mempool_free(p->wire_pool);
	p->wire_pool = NULL;
	rte_free(p->wire_tx_locks);
	p->wire_tx_locks = NULL;
}
