/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The underlying port ("the wire"): any ethdev, found by name when the
 * port is probed (net_null<N> and net_ring<N> are created if absent) and
 * owned by net_rxbisect from then on, so the application's
 * RTE_ETH_FOREACH_DEV does not see it as a port of its own. Its Rx queues
 * fill a mempool of its own (the NIC copies each frame into the buffer the
 * design took and frees it, pmd_nic.c; a wire that returns the application's
 * mbufs, net_ring, has them passed on by pointer; a net_null wire's frames
 * the NIC makes itself, below). It gets as many Tx
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
		return rxb_err_fail(err, -EINVAL,
				    "devarg port=%s: no such ethdev (give its "
				    "--vdev or PCI address to the EAL before net_rxbisect's)",
				    p->cfg.port);
	if (rte_eth_dev_info_get(p->wire, &info) != 0 || info.max_rx_queues == 0)
		return rxb_err_fail(err, -EINVAL, "devarg port=%s: cannot read its device info",
				    p->cfg.port);
	p->wire_null = strcmp(info.driver_name, "net_null") == 0;
	if (!p->wire_null && pmd_arg_given(&p->cfg, "flows"))
		PMD_LOG(WARNING,
			"%s: devarg flows=%u has no effect for wire %s (%s): only a "
			"net_null wire, which writes no bytes, is given flows",
			p->dev->data->name, p->cfg.flows, p->cfg.port, info.driver_name);
	rc = rte_eth_dev_owner_new(&owner.id);
	snprintf(owner.name, sizeof(owner.name), "%s", p->dev->data->name);
	if (rc == 0)
		rc = rte_eth_dev_owner_set(p->wire, &owner);
	if (rc != 0)
		return rxb_err_fail(err, -EBUSY,
				    "devarg port=%s: already owned by another "
				    "device (a bonding or failsafe port?)",
				    p->cfg.port);
	p->owner_id = owner.id;
	p->wire_attached = true;
	return 0;
}

/* net_null writes no bytes: over such a wire the NIC makes each frame
 * itself, in the buffer the design took (pmd_nic.c deliver_null), as one of
 * `flows` UDP flows taken in turn, as long as the wire's frames. The flows
 * are the emulator generator's (rxb_gen: random 5-tuples, fixed for its
 * seed); a frame gets a fixed Ethernet/IPv4/UDP header (the template) with
 * the flow's addresses, ports and IPv4 checksum, and the flow's RSS hash,
 * each precomputed here: per frame, a 42-byte copy and five stores. */

/* The header of a minimal frame (60 bytes: longer net_null frames carry
 * the rest as padding); UDP checksum 0 (none), valid for IPv4. */
static void null_template(const struct rxb_gen_cfg *g, struct pmd_null_hdr *h)
{
	uint16_t ip_len = RXB_GEN_MIN_FRAME - sizeof(struct rte_ether_hdr);

	memset(h, 0, sizeof(*h));
	h->eth.src_addr = g->src_mac;
	h->eth.dst_addr = g->dst_mac;
	h->eth.ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	h->ip.version_ihl = RTE_IPV4_VHL_DEF;
	h->ip.total_length = rte_cpu_to_be_16(ip_len);
	h->ip.time_to_live = 64;
	h->ip.next_proto_id = IPPROTO_UDP;
	h->udp.dgram_len = rte_cpu_to_be_16(ip_len - sizeof(struct rte_ipv4_hdr));
}

static void flow_of(const struct rxb_gen_flow *gf, const struct pmd_null_hdr *tmpl,
		    struct pmd_wire_flow *wf)
{
	struct rte_ipv4_hdr ip = tmpl->ip;

	wf->src_ip = ip.src_addr = rte_cpu_to_be_32(gf->src_ip);
	wf->dst_ip = ip.dst_addr = rte_cpu_to_be_32(gf->dst_ip);
	wf->src_port = rte_cpu_to_be_16(gf->src_port);
	wf->dst_port = rte_cpu_to_be_16(gf->dst_port);
	wf->ip_cksum = rte_ipv4_cksum(&ip);
}

static int make_null_flows(struct pmd *p, struct rxb_err *err)
{
	struct rxb_gen_cfg g;
	struct rxb_gen *gen;
	uint32_t n = p->cfg.flows;

	if (p->wire_flows != NULL || n == 0)
		return 0;
	rxb_gen_cfg_defaults(&g);
	g.n_flows = n;
	g.frame_size = RXB_GEN_MIN_FRAME;
	g.stamp = false;
	if (rxb_gen_create(&g, &gen, err) != 0)
		return -EINVAL;
	null_template(&g, &p->wire_hdr);
	p->wire_flows = rte_malloc_socket(NULL, sizeof(*p->wire_flows) * n, 0,
					  rte_eth_dev_socket_id(p->wire));
	if (p->wire_flows == NULL) {
		rxb_gen_destroy(gen);
		return rxb_err_fail(err, -ENOMEM,
				    "devarg flows=%u: out of memory for the "
				    "wire's flow table (%zu bytes)",
				    n, sizeof(*p->wire_flows) * n);
	}
	for (uint32_t i = 0; i < n; i++)
		flow_of(rxb_gen_flow(gen, i), &p->wire_hdr, &p->wire_flows[i]);
	rxb_gen_destroy(gen);
	return 0;
}

/* Each flow's hash under the key of this start (an application may set
 * another one while the port is stopped). */
static void hash_null_flows(struct pmd *p)
{
	for (uint32_t i = 0; i < p->cfg.flows; i++) {
		struct pmd_wire_flow *wf = &p->wire_flows[i];
		uint32_t sip = rte_be_to_cpu_32(wf->src_ip), dip = rte_be_to_cpu_32(wf->dst_ip);

		wf->hash_l3 = rxb_rss_ipv4(&p->rss, sip, dip);
		wf->hash_l4 = rxb_rss_ipv4_l4(&p->rss, sip, dip, rte_be_to_cpu_16(wf->src_port),
					      rte_be_to_cpu_16(wf->dst_port));
	}
	for (uint16_t t = 0; t < p->n_nics; t++)
		p->nic[t].flow_next = 0;
}

/* Flows tried per frame for one NIC thread owns; past that the frame
 * carries a flow of another thread and counts as misrouted (a RETA that
 * leaves the thread few or no entries). */
#define PMD_FLOW_SCAN 64u

/* The first flow from `next` on that steers to a destination NIC thread
 * nic owns (the one at `next` when a single thread owns them all). */
static uint32_t owned_flow(const struct pmd_nic *nic, uint32_t next)
{
	const struct pmd *p = nic->p;
	uint32_t flows = p->cfg.flows, scan = RTE_MIN(flows, PMD_FLOW_SCAN);

	for (uint32_t k = 0; p->n_nics > 1 && k < scan; k++) {
		uint32_t i = next + k < flows ? next + k : next + k - flows;
		uint32_t h = p->l4 ? p->wire_flows[i].hash_l4 : p->wire_flows[i].hash_l3;
		/* relaxed: as the NIC reads the RETA (pmd_nic.c) */
		uint16_t d = __atomic_load_n(&p->reta.queue[h & p->reta.mask], __ATOMIC_RELAXED);

		if (pmd_nic_owner(p, d) == nic->id)
			return i;
	}
	return next;
}

const struct pmd_wire_flow *pmd_wire_null_next(struct pmd_nic *nic)
{
	const struct pmd *p = nic->p;
	uint32_t i = owned_flow(nic, nic->flow_next);

	nic->flow_next = i + 1 == p->cfg.flows ? 0 : i + 1;
	return &p->wire_flows[i];
}

void pmd_wire_null_write(const struct pmd *p, const struct pmd_wire_flow *wf, void *frame)
{
	struct pmd_null_hdr *h = frame;

	/* (every buffer holds a minimal frame: checked at queue setup) */
	rte_memcpy(h, &p->wire_hdr, sizeof(*h));
	h->ip.src_addr = wf->src_ip;
	h->ip.dst_addr = wf->dst_ip;
	h->ip.hdr_checksum = wf->ip_cksum;
	h->udp.src_port = wf->src_port;
	h->udp.dst_port = wf->dst_port;
}

/* net_null makes frames of one length (its size devarg), or none (its
 * no-rx devarg): one frame taken from it at start tells which. */
static uint32_t null_frame_len(const struct pmd *p)
{
	struct rte_mbuf *m;
	uint32_t len;

	if (rte_eth_rx_burst(p->wire, 0, &m, 1) != 1)
		return 0;
	len = rte_pktmbuf_pkt_len(m);
	rte_pktmbuf_free(m);
	return len;
}

/* The largest data room of the application's Rx mempools: a frame the
 * buffers can take fits a wire mbuf too, so the copy reads none beyond it. */
static uint16_t app_data_room(const struct pmd *p)
{
	uint16_t room = RTE_MBUF_DEFAULT_BUF_SIZE;

	for (uint16_t q = 0; q < p->dev->data->nb_rx_queues; q++) {
		const struct pmd_rxq *rq = p->dev->data->rx_queues[q];

		room = RTE_MAX(room, rte_pktmbuf_data_room_size(rq->mp));
	}
	return room;
}

/* The wire's own mempool: every wire Rx queue fills it, and the NIC threads
 * that take the frames free them, so its mbufs stay in their caches. Made
 * again when the application's buffers outgrew it (at start: nothing of it
 * is in use). */
static int make_pool(struct pmd *p, struct rxb_err *err)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	uint16_t room = app_data_room(p);

	if (p->wire_pool != NULL && rte_pktmbuf_data_room_size(p->wire_pool) >= room)
		return 0;
	rte_mempool_free(p->wire_pool);
	snprintf(name, sizeof(name), "rxbw_%u", p->port_id);
	/* its Rx rings (all full), a burst in the NIC's hands, the caches */
	p->wire_pool = rte_pktmbuf_pool_create(
		name, PMD_WIRE_RING * PMD_WIRE_MAX_RXQS + 4 * PMD_WIRE_BURST, 32, 0, room,
		(int)rte_eth_dev_socket_id(p->wire));
	if (p->wire_pool == NULL)
		return rxb_err_fail(err, -ENOMEM, "cannot create the wire's mempool: %s",
				    rte_strerror(rte_errno));
	return 0;
}

/* A wire that can hash what the port hashes, with a 40-byte key, is asked
 * to with the port's key: the NIC then takes its RTE_MBUF_F_RX_RSS_HASH. */
static void wire_rss(struct pmd *p, const struct rte_eth_dev_info *info, struct rte_eth_conf *conf)
{
	uint64_t hf = p->l4 ? PMD_RSS_TYPES : PMD_RSS_L3;

	p->wire_rss = info->hash_key_size == RXB_RSS_KEY_LEN &&
		      (info->flow_type_rss_offloads & hf) == hf &&
		      (info->rx_offload_capa & RTE_ETH_RX_OFFLOAD_RSS_HASH) != 0;
	p->wire_rss_l4 = p->l4;
	if (!p->wire_rss)
		return;
	conf->rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
	conf->rxmode.offloads = RTE_ETH_RX_OFFLOAD_RSS_HASH;
	conf->rx_adv_conf.rss_conf.rss_key = p->cfg.rss_key;
	conf->rx_adv_conf.rss_conf.rss_key_len = RXB_RSS_KEY_LEN;
	conf->rx_adv_conf.rss_conf.rss_hf = hf;
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
	/* at least one per NIC thread (a created net_null has plenty) */
	p->wire_rxqs = RTE_MIN(RTE_MAX(p->wire_txqs, p->n_nics), info.max_rx_queues);
	p->wire_rxqs = RTE_MIN(p->wire_rxqs, PMD_WIRE_MAX_RXQS);
	wire_rss(p, &info, &conf);
	rc = rte_eth_dev_configure(p->wire, p->wire_rxqs, p->wire_txqs, &conf);
	if (rc != 0)
		return rxb_err_fail(err, rc,
				    "devarg port=%s: configure with %u Rx and %u Tx "
				    "queues failed: %s",
				    p->cfg.port, p->wire_rxqs, p->wire_txqs, rte_strerror(-rc));
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

	if (rc == 0 && p->wire_null)
		rc = make_null_flows(p, err);
	if (rc == 0 && p->wire_flows != NULL)
		hash_null_flows(p);
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
	p->null_frame_len = rc == 0 && p->wire_flows != NULL ? null_frame_len(p) : 0;
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
	rte_free(p->wire_flows);
	p->wire_flows = NULL;
}

void pmd_wire_leave_to_bus(struct pmd *p)
{
	/* The vdev bus removes devices while it walks its list (EAL cleanup,
	 * when the application exits without closing the port) and holds the
	 * next device of the walk: a wire we created comes right after us, so
	 * removing its device here would free what the walk visits next. Its
	 * port is closed with ours; the device is removed by the walk itself. */
	p->wire_created = false;
}
