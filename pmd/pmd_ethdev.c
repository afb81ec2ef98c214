/* SPDX-License-Identifier: BSD-3-Clause
 *
 * net_rxbisect: the vdev driver, its ethdev operations and the port's life
 * (probe, configure, queue setup, start, stop, close, remove).
 *
 * Start builds the design (rxb_iface_create primes its rings from the Rx
 * queues' mempools), starts the wire, then lets the NIC run. Stop quiesces
 * the NIC (the service stops being called, or the dedicated lcore
 * returns), drains the wire, and gives every buffer the design holds back
 * to its mempool (rxb_iface_reclaim); the interface is kept until the next
 * start or close so its counters remain readable.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include <bus_vdev_driver.h>
#include <ethdev_vdev.h>
#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_malloc.h>
#include <rte_service.h>
#include <rte_service_component.h>

#include "pmd.h"
#include "rxb/shape.h"

RTE_LOG_REGISTER(pmd_logtype, pmd.net.rxbisect, NOTICE);

static int fail(struct pmd *p, const struct rxb_err *err, int rc)
{
	PMD_LOG(ERR, "%s: %s", p->dev->data->name, err->msg);
	return rc < 0 ? rc : -EINVAL;
}

/* ------------------------------------------------------------ info, config */

/* The entries of the ring an Rx queue reads (privRing, shRing: its CR;
 * rxBisect: its Bx), as the ring library builds it: reported as the default
 * ring size. 0 (no preference) while the devargs do not make a valid design
 * yet. */
static uint16_t dest_ring_size(const struct pmd *p)
{
	struct rxb_iface_shape shape;
	struct rxb_err err;

	if (rxb_scn_shape(&p->cfg.scn, &shape, &err) != 0)
		return 0;
	return (uint16_t)RTE_MIN(shape.rx_capacity, UINT16_MAX);
}

static int dev_infos_get(struct rte_eth_dev *dev, struct rte_eth_dev_info *info)
{
	struct pmd *p = pmd_of(dev);
	struct rte_eth_dev_info wire;

	info->max_rx_queues = RTE_MIN(RXB_MAX_CORES, PMD_MAX_QUEUES);
	info->max_tx_queues = PMD_MAX_QUEUES;
	info->max_mac_addrs = 1;
	info->min_rx_bufsize = RTE_ETHER_MIN_LEN;
	info->max_rx_pktlen = UINT16_MAX;
	info->rx_offload_capa = RTE_ETH_RX_OFFLOAD_RSS_HASH;
	info->rx_queue_offload_capa = 0;
	info->tx_offload_capa = 0;
	info->flow_type_rss_offloads = PMD_RSS_TYPES;
	info->hash_key_size = RXB_RSS_KEY_LEN;
	info->reta_size = (uint16_t)p->cfg.reta_size;
	/* Ring sizes are devargs (rx, ax, bx, cr): nb_desc is not used. */
	info->rx_desc_lim.nb_max = UINT16_MAX;
	info->rx_desc_lim.nb_min = 1;
	info->rx_desc_lim.nb_align = 1;
	info->tx_desc_lim = info->rx_desc_lim;
	info->default_rxportconf.ring_size = dest_ring_size(p);
	info->default_rxportconf.burst_size = RXB_BURST_MAX / 2;
	info->default_rxportconf.nb_queues = 1;
	if (rte_eth_dev_info_get(p->wire, &wire) == 0)
		info->speed_capa = wire.speed_capa;
	return 0;
}

/* The design against the queue count: the application's Rx queues are the
 * scenario's cores (one NIC), checked by the scenario library's rules, the
 * same rules and messages as the emulator's and the front end's. */
static int check_design(struct pmd *p, uint16_t nq, struct rxb_err *err)
{
	struct rxb_scn_system *sy = &p->cfg.scn.system;
	struct rxb_err why = { 0 };

	sy->cores = nq;
	sy->nics = 1;
	sy->cores_per_nic.n = 0; /* a reconfigure may change the queue count */
	rxb_scn_split_cores(sy);
	/* The NIC threads shard "auto" share degree and association as the
	 * emulator's NIC lcores do: a shared ring or set per thread at least. */
	p->cfg.scn.emu.nic_lcores = p->cfg.nic_threads;
	rxb_scn_resolve_arch(&p->cfg.scn, nq);
	if (rxb_scn_check(&p->cfg.scn, NULL, RXB_ENGINE_EMU, &why) == 0)
		return 0;
	return rxb_err_fail(err, -EINVAL, "with %u Rx queues (system.cores = %u): %s", nq, nq,
			    why.msg);
}

/* What a source group is called in messages. */
static const char *group_what(const struct rxb_scn_arch *a)
{
	switch (a->name) {
	case RXB_ARCH_SHRING:
	case RXB_ARCH_SHRING_LIST:
		return "share groups";
	case RXB_ARCH_RXBISECT:
		return "association sets";
	default:
		return "queues";
	}
}

/* Each Rx queue's NIC thread: its source group's, groups dealt in turn;
 * *groups is how many there are. 0, or the library's refusal. */
static int deal_queues(struct pmd *p, uint16_t nq, uint32_t *groups, struct rxb_err *err)
{
	struct rxb_iface_config ic;
	struct rxb_src_range r;

	*groups = 0;
	rxb_scn_iface_config(&p->cfg.scn, 0, 1.0, &ic);
	for (uint16_t q = 0; q < nq; q++) {
		if (rxb_iface_shape_srcs_of(&ic, q, 0, &r, err) != 0)
			return -EINVAL;
		p->nic_owner[q] = (uint8_t)(r.group % p->cfg.nic_threads);
		*groups = RTE_MAX(*groups, r.group + 1);
	}
	return 0;
}

/* Several NIC threads need sources and destinations that split into
 * disjoint sets, and a wire that brings each thread only frames for its
 * own destinations. The sets are the library's source groups
 * (rxb_iface_shape_srcs_of: a privRing queue's ring, a shRing group's
 * shared ring, an rxBisect association set), group g to thread g mod N, as
 * the emulator's NIC lcores split them; each destination goes with its
 * group. Not dynamic shRing: its switch between private and shared rings
 * is NIC-wide; nor rxBisect's coalescing, whose timer walks every Bx.
 * Frames: only a net_null wire, whose flows the driver writes per thread
 * (pmd_wire_null_flows). */
static int check_nic_threads(struct pmd *p, uint16_t nq, struct rxb_err *err)
{
	const struct rxb_scn_arch *a = &p->cfg.scn.arch;
	uint16_t n = p->cfg.nic_threads;
	uint32_t groups;
	int rc;

	memset(p->nic_owner, 0, sizeof(p->nic_owner));
	if (n == 1)
		return 0;
	if (a->name == RXB_ARCH_DYN_SHRING || (a->name == RXB_ARCH_RXBISECT && a->coalesce)) {
		bool bisect = a->name == RXB_ARCH_RXBISECT;

		return rxb_err_fail(
			err, -EINVAL,
			"devarg nic_threads=%u: iface %s%s cannot share its NIC among "
			"threads (%s); allowed: 1 for this design, or iface privring, "
			"small_privring, shring, shring_list, rxbisect without coalesce",
			n, rxb_arch_name[a->name], bisect ? " with coalesce" : "",
			bisect ? "its held notices are flushed by one timer over every Bx"
			       : "its switch of ring sets is NIC-wide");
	}
	if (!p->wire_null)
		return rxb_err_fail(
			err, -EINVAL,
			"devarg nic_threads=%u: the wire %s does not steer "
			"frames to the thread that owns their queue; allowed: 1 over this "
			"wire (a net_null wire takes more)",
			n, p->cfg.port);
	if (p->cfg.flows == 0)
		return rxb_err_fail(
			err, -EINVAL,
			"devarg nic_threads=%u: with flows=0 the NIC threads get net_null's own "
			"frames, all alike, which steer to one queue: every thread but its owner "
			"would drop what it takes as misrouted; allowed: nic_threads=1 with "
			"flows=0, or flows from 1 to 1048576",
			n);
	rc = deal_queues(p, nq, &groups, err);
	if (rc == 0 && groups < n)
		return rxb_err_fail(err, -EINVAL,
				    "devarg nic_threads=%u: the port's %u Rx queues "
				    "make %u %s; allowed: at most that many threads",
				    n, nq, groups, group_what(a));
	return rc;
}

/* Devargs that name queues, against the queue count: a fault on a queue
 * the port lacks would never happen, a RETA smaller than the queues would
 * leave some without traffic. */
static int check_queues(const struct pmd *p, uint16_t nq, struct rxb_err *err)
{
	if (p->cfg.stall_queue >= nq)
		return rxb_err_fail(err, -EINVAL,
				    "devarg fault_stall: Rx queue %d is out of range; "
				    "allowed: a queue from 0 to %u (the port has %u Rx queues)",
				    p->cfg.stall_queue, nq - 1u, nq);
	if (p->cfg.reta_size < nq)
		return rxb_err_fail(err, -EINVAL,
				    "devarg reta=%u%s: fewer RETA entries than the %u "
				    "Rx queues (queues %u and up would receive nothing); allowed: "
				    "a power of two from %u to %u",
				    p->cfg.reta_size,
				    pmd_arg_given(&p->cfg, "reta") ? "" : " (the default)", nq,
				    p->cfg.reta_size, (unsigned)rte_align32pow2(nq), RXB_RETA_MAX);
	return 0;
}

static int dev_configure(struct rte_eth_dev *dev)
{
	struct pmd *p = pmd_of(dev);
	const struct rte_eth_conf *c = &dev->data->dev_conf;
	const struct rte_eth_rss_conf *rss = &c->rx_adv_conf.rss_conf;
	uint16_t nq = dev->data->nb_rx_queues;
	struct rxb_err err = { 0 };
	int rc;

	if (c->rxmode.mq_mode != RTE_ETH_MQ_RX_NONE && c->rxmode.mq_mode != RTE_ETH_MQ_RX_RSS) {
		rxb_err_set(&err, "rxmode.mq_mode = %d: only RSS (or none) steers here",
			    (int)c->rxmode.mq_mode);
		return fail(p, &err, -ENOTSUP);
	}
	if (rss->rss_key != NULL) {
		if (rss->rss_key_len != RXB_RSS_KEY_LEN) {
			rxb_err_set(&err, "rss_conf.rss_key_len = %u: the key has %u bytes",
				    rss->rss_key_len, RXB_RSS_KEY_LEN);
			return fail(p, &err, -EINVAL);
		}
		if (pmd_arg_given(&p->cfg, "rss_key") &&
		    memcmp(p->cfg.rss_key, rss->rss_key, RXB_RSS_KEY_LEN) != 0)
			PMD_LOG(WARNING,
				"%s: devarg rss_key has no effect: the application's "
				"rss_conf.rss_key replaces it",
				dev->data->name);
		memcpy(p->cfg.rss_key, rss->rss_key, RXB_RSS_KEY_LEN);
	}
	rc = check_design(p, nq, &err);
	if (rc == 0)
		rc = check_queues(p, nq, &err);
	if (rc == 0)
		rc = check_nic_threads(p, nq, &err);
	if (rc == 0)
		rc = rxb_rss_init(&p->rss, p->cfg.rss_key, RXB_RSS_KEY_LEN, &err);
	rxb_reta_free(&p->reta);
	if (rc == 0)
		rc = rxb_reta_init(&p->reta, p->cfg.reta_size, nq, &err);
	return rc == 0 ? 0 : fail(p, &err, rc);
}

static bool rss_l4(const struct rte_eth_dev *dev)
{
	const struct rte_eth_rss_conf *rss = &dev->data->dev_conf.rx_adv_conf.rss_conf;

	return dev->data->dev_conf.rxmode.mq_mode == RTE_ETH_MQ_RX_RSS &&
	       (rss->rss_hf & PMD_RSS_L4) != 0;
}

/* ------------------------------------------------------------ queues */

static int rx_queue_setup(struct rte_eth_dev *dev, uint16_t q, uint16_t nb_desc,
			  unsigned int socket, const struct rte_eth_rxconf *conf,
			  struct rte_mempool *mp)
{
	struct pmd *p = pmd_of(dev);
	struct pmd_rxq *rq;
	uint16_t ring = dest_ring_size(p);

	(void)conf;
	if (nb_desc != 0 && ring != 0 && nb_desc != ring)
		PMD_LOG(INFO,
			"%s: Rx queue %u: nb_desc = %u not used: the design's ring sizes "
			"are devargs (rx, cr, ax, bx); this queue reads a ring of %u entries",
			dev->data->name, q, nb_desc, ring);
	if (rte_pktmbuf_data_room_size(mp) < RTE_PKTMBUF_HEADROOM + RTE_ETHER_MIN_LEN) {
		PMD_LOG(ERR,
			"%s: Rx queue %u: mempool %s holds %u bytes per mbuf, fewer than a "
			"minimal frame after the headroom",
			dev->data->name, q, mp->name, rte_pktmbuf_data_room_size(mp));
		return -EINVAL;
	}
	rte_free(dev->data->rx_queues[q]);
	rq = rte_zmalloc_socket(NULL, sizeof(*rq), RTE_CACHE_LINE_SIZE, (int)socket);
	if (rq == NULL)
		return -ENOMEM;
	rq->p = p;
	rq->qid = q;
	rq->mp = mp;
	dev->data->rx_queues[q] = rq;
	return 0;
}

static void rx_queue_release(struct rte_eth_dev *dev, uint16_t q)
{
	rte_free(dev->data->rx_queues[q]);
	dev->data->rx_queues[q] = NULL;
}

static int tx_queue_setup(struct rte_eth_dev *dev, uint16_t q, uint16_t nb_desc,
			  unsigned int socket, const struct rte_eth_txconf *conf)
{
	struct pmd_txq *tq;

	(void)nb_desc;
	(void)conf;
	rte_free(dev->data->tx_queues[q]);
	tq = rte_zmalloc_socket(NULL, sizeof(*tq), RTE_CACHE_LINE_SIZE, (int)socket);
	if (tq == NULL)
		return -ENOMEM;
	tq->p = pmd_of(dev);
	tq->qid = q;
	dev->data->tx_queues[q] = tq;
	return 0;
}

static void tx_queue_release(struct rte_eth_dev *dev, uint16_t q)
{
	rte_free(dev->data->tx_queues[q]);
	dev->data->tx_queues[q] = NULL;
}

/* ------------------------------------------------------------ start, stop */

static void zero_queue_counters(struct rte_eth_dev *dev)
{
	for (uint16_t q = 0; q < dev->data->nb_rx_queues; q++) {
		struct pmd_rxq *rq = dev->data->rx_queues[q];

		memset(&rq->bytes, 0, sizeof(rq->bytes));
		memset(&rq->alloc_fail, 0, sizeof(rq->alloc_fail));
		memset(&rq->stalled_polls, 0, sizeof(rq->stalled_polls));
		memset(&rq->ivl, 0, sizeof(rq->ivl));
	}
	for (uint16_t q = 0; q < dev->data->nb_tx_queues; q++) {
		struct pmd_txq *tq = dev->data->tx_queues[q];

		memset(&tq->pkts, 0, sizeof(tq->pkts));
		memset(&tq->bytes, 0, sizeof(tq->bytes));
	}
}

/* Is Rx queue q the first to use its mempool? (Queues may share one.) */
static bool first_of_its_pool(const struct rte_eth_dev *dev, uint16_t q)
{
	const struct pmd_rxq *rq = dev->data->rx_queues[q];

	for (uint16_t r = 0; r < q; r++) {
		const struct pmd_rxq *o = dev->data->rx_queues[r];

		if (o != NULL && o->mp == rq->mp)
			return false;
	}
	return true;
}

/* A pool the rings can swallow works, but slowly: receives re-arm only as
 * many descriptors as it has free (lib: rxb_alloc_get_upto). Say so. */
static void warn_small_pools(const struct pmd *p, const struct rxb_iface_config *ic)
{
	struct rxb_iface_shape shape;
	struct rxb_err err;
	uint64_t pool = 0, rings;

	if (rxb_iface_shape(ic, &shape, &err) != 0)
		return;       /* creation reports the same mistake */
	rings = shape.needed; /* every ring the design holds buffers in, full */

	for (uint16_t q = 0; q < p->dev->data->nb_rx_queues; q++)
		if (first_of_its_pool(p->dev, q))
			pool += ((const struct pmd_rxq *)p->dev->data->rx_queues[q])->mp->size;
	if (pool < rings)
		PMD_LOG(WARNING,
			"%s: the Rx mempools hold %" PRIu64 " mbufs and the %s rings up "
			"to %" PRIu64 ": when the application falls behind, the rings can take the "
			"whole pool and reception slows to what it frees",
			p->dev->data->name, pool, rxb_arch_name[ic->arch], rings);
}

/* Where a buffer's frame starts, counted from its mbuf, when that is the
 * same for every Rx queue's mempool; else 0. A pktmbuf pool puts the data
 * room right after the mbuf and its private area (rte_pktmbuf_init), unless
 * its mbufs point at pinned external memory; and every buffer in the rings
 * has the default headroom: reset when alloc_get took it from the mempool,
 * it is not handed to the application before it goes back there. */
static uint32_t common_data_off(struct rte_eth_dev *dev)
{
	uint32_t off = 0;

	for (uint16_t q = 0; q < dev->data->nb_rx_queues; q++) {
		struct rte_mempool *mp = ((struct pmd_rxq *)dev->data->rx_queues[q])->mp;
		uint32_t o = sizeof(struct rte_mbuf) + rte_pktmbuf_priv_size(mp) +
			     RTE_PKTMBUF_HEADROOM;

		if ((rte_pktmbuf_priv_flags(mp) & RTE_PKTMBUF_POOL_F_PINNED_EXT_BUF) != 0 ||
		    rte_pktmbuf_data_room_size(mp) <= RTE_PKTMBUF_HEADROOM ||
		    (off != 0 && o != off))
			return 0;
		off = o;
	}
	return off;
}

static int build_design(struct pmd *p, struct rxb_err *err)
{
	struct rte_eth_dev *dev = p->dev;
	uint16_t nq = dev->data->nb_rx_queues;
	struct rxb_iface_config ic;

	rxb_iface_destroy(p->iface);
	p->iface = NULL;
	rte_free(p->allocs);
	p->allocs = rte_zmalloc(NULL, sizeof(*p->allocs) * nq, 0);
	if (p->allocs == NULL)
		return rxb_err_fail(err, -ENOMEM, "out of memory: allocators");
	p->max_frame = UINT32_MAX;
	for (uint16_t q = 0; q < nq; q++) {
		struct pmd_rxq *rq = dev->data->rx_queues[q];

		pmd_allocator(rq, &p->allocs[q]);
		/* A buffer of any queue may carry any frame (rxBisect lends
		 * Ax buffers across queues): the smallest room bounds them. */
		p->max_frame = RTE_MIN(p->max_frame, (uint32_t)(rte_pktmbuf_data_room_size(rq->mp) -
								RTE_PKTMBUF_HEADROOM));
	}
	p->buf_data_off = common_data_off(dev);
	rxb_scn_iface_config(&p->cfg.scn, 0, (double)p->hz / 1e9, &ic);
	warn_small_pools(p, &ic);
	p->iface = rxb_iface_create(&ic, p->allocs, err);
	if (p->iface == NULL && err->code == -ENOBUFS)
		rxb_err_set(err,
			    "the Rx queues' mempools cannot fill the design's rings (%s): "
			    "give them more mbufs or use smaller rings",
			    rxb_arch_name[ic.arch]);
	return p->iface != NULL ? 0 : err->code;
}

/* Is any service lcore going to run NIC thread nic? */
static bool service_mapped(const struct pmd_nic *nic)
{
	uint32_t lcores[RTE_MAX_LCORE];
	int n = rte_service_lcore_list(lcores, RTE_MAX_LCORE);

	for (int i = 0; i < n; i++)
		if (rte_service_map_lcore_get(nic->service_id, lcores[i]) == 1)
			return true;
	return false;
}

static int start_nic_thread(struct pmd *p, struct rxb_err *err)
{
	char name[RTE_MAX_THREAD_NAME_LEN];
	cpu_set_t cpus;
	int rc;

	snprintf(name, sizeof(name), "rxb-nic-%u", p->port_id);
	atomic_store_explicit(&p->nic_quit, 0, memory_order_relaxed);
	rc = rte_ctrl_thread_create(&p->nic[0].thread, name, NULL, pmd_nic_thread_main, &p->nic[0]);
	if (rc != 0)
		return rxb_err_fail(err, -rc, "devarg nic_cpu=%d: cannot create the NIC thread: %s",
				    p->cfg.nic_cpu, strerror(rc));
	CPU_ZERO(&cpus);
	CPU_SET(p->cfg.nic_cpu, &cpus);
	rc = pthread_setaffinity_np(p->nic[0].thread, sizeof(cpus), &cpus);
	if (rc != 0)
		PMD_LOG(WARNING,
			"%s: devarg nic_cpu=%d: cannot pin the NIC thread there (%s); "
			"it runs on the control CPUs",
			p->dev->data->name, p->cfg.nic_cpu, strerror(rc));
	return 0;
}

static int run_nic(struct pmd *p, struct rxb_err *err)
{
	if (p->cfg.nic_cpu >= 0)
		return start_nic_thread(p, err);
	for (uint16_t t = 0; t < p->n_nics; t++) {
		rte_service_component_runstate_set(p->nic[t].service_id, 1);
		if (!service_mapped(&p->nic[t]))
			PMD_LOG(WARNING,
				"%s: no service lcore runs its NIC (service \"%s\") yet: "
				"give the EAL -s/--service-corelist, map it, or use devarg nic_cpu",
				p->dev->data->name, rte_service_get_name(p->nic[t].service_id));
	}
	return 0;
}

static void update_link(struct pmd *p)
{
	struct rte_eth_link l = { 0 };

	if (p->dev->data->dev_started && rte_eth_link_get_nowait(p->wire, &l) != 0)
		memset(&l, 0, sizeof(l));
	if (!p->dev->data->dev_started)
		l.link_status = RTE_ETH_LINK_DOWN;
	rte_eth_linkstatus_set(p->dev, &l);
}

/* The first of n queues that was not set up (n: none). */
static uint16_t first_missing(void *const *queues, uint16_t n)
{
	uint16_t q = 0;

	while (q < n && queues[q] != NULL)
		q++;
	return q;
}

/* DPDK's ethdev layer starts a port whose configured queues were not all
 * set up: everything below reads every queue, so refuse first. */
static int check_queues_set_up(const struct rte_eth_dev *dev, struct rxb_err *err)
{
	static const char *const dir[2] = { "Rx", "Tx" };
	void *const *queues[2] = { dev->data->rx_queues, dev->data->tx_queues };
	const uint16_t n[2] = { dev->data->nb_rx_queues, dev->data->nb_tx_queues };

	for (int d = 0; d < 2; d++) {
		uint16_t q = first_missing(queues[d], n[d]);

		if (q < n[d])
			return rxb_err_fail(
				err, -EINVAL,
				"%s queue %u of %u was not set up; allowed: start after "
				"rte_eth_%s_queue_setup() of every configured queue",
				dir[d], q, n[d], d == 0 ? "rx" : "tx");
	}
	return 0;
}

static int dev_start(struct rte_eth_dev *dev)
{
	struct pmd *p = pmd_of(dev);
	struct rxb_err err = { 0 };
	int rc;

	if (check_queues_set_up(dev, &err) != 0)
		return fail(p, &err, -EINVAL);
	pmd_stats_restart(p);
	zero_queue_counters(dev);
	p->hz = rte_get_tsc_hz();
	p->cfg.scn.run.seed = p->port_id;
	atomic_store_explicit(&p->l4, rss_l4(dev), memory_order_relaxed);
	p->rx_clock = p->cfg.stall_queue >= 0 || p->cfg.scn.arch.name == RXB_ARCH_SHRING ||
		      p->cfg.scn.arch.name == RXB_ARCH_SHRING_LIST ||
		      p->cfg.scn.arch.name == RXB_ARCH_DYN_SHRING;
	rc = build_design(p, &err);
	if (rc == 0)
		rc = pmd_wire_start(p, &err);
	if (rc != 0)
		goto out;
	p->t_start = rte_rdtsc();
	p->next_dyn = p->t_start;
	p->dyn_bytes_seen = 0;
	for (uint16_t t = 0; t < p->n_nics; t++) {
		p->nic[t].next_link_check = 0;
		p->nic[t].link_up = true;
	}
	p->fault_link_applied = p->fault_link_restored = false;
	/* release: pairs with the acquires in pmd_nic_service() and
	 * pmd_rx_burst(); everything built above is visible there. */
	atomic_store_explicit(&p->nic_on, 1, memory_order_release);
	rc = run_nic(p, &err);
	if (rc != 0) {
		atomic_store_explicit(&p->nic_on, 0, memory_order_relaxed);
		pmd_wire_stop(p);
		goto out;
	}
	for (uint16_t q = 0; q < dev->data->nb_rx_queues; q++)
		dev->data->rx_queue_state[q] = RTE_ETH_QUEUE_STATE_STARTED;
	for (uint16_t q = 0; q < dev->data->nb_tx_queues; q++)
		dev->data->tx_queue_state[q] = RTE_ETH_QUEUE_STATE_STARTED;
	dev->data->dev_started = 1;
	update_link(p);
	return 0;
out:
	if (p->iface != NULL)
		rxb_iface_reclaim(p->iface, NULL);
	return fail(p, &err, rc);
}

/* A pass takes microseconds (a wire burst of PMD_WIRE_BURST frames). The EAL
 * clears a service's active mark only when that service lcore next looks at
 * the service, which it never does once the service was unmapped from it
 * while running: past this long, a service still marked active but not in
 * a pass (pmd_nic.in_pass) is let go rather than waited for for ever. A pass
 * still running is waited for: descheduled (lcores mapped onto fewer CPUs,
 * a sanitizer's slowdown), it would use what the stop frees. */
#define PMD_QUIESCE_MS 10000u

/* Wait until every NIC thread is out of pmd_nic_service() for good. */
static void quiesce_nic(struct pmd *p)
{
	if (p->cfg.nic_cpu >= 0) {
		/* release: pairs with the acquire in pmd_nic_thread_main() */
		atomic_store_explicit(&p->nic_quit, 1, memory_order_release);
		pthread_join(p->nic[0].thread, NULL);
		return;
	}
	for (uint16_t t = 0; t < p->n_nics; t++) {
		struct pmd_nic *nic = &p->nic[t];
		uint64_t deadline = rte_get_timer_cycles() +
				    rte_get_timer_hz() * PMD_QUIESCE_MS / 1000u;

		rte_service_component_runstate_set(nic->service_id, 0);
		/* The service framework stops calling it; one call may still
		 * be in flight on a service lcore. */
		while (rte_service_may_be_active(nic->service_id) == 1) {
			/* acquire: pairs with the release at the end of a pass; past
			 * the deadline the stop goes on only outside one */
			if (rte_get_timer_cycles() > deadline &&
			    !atomic_load_explicit(&nic->in_pass, memory_order_acquire)) {
				PMD_LOG(ERR,
					"%s: NIC service \"%s\" still marked active %u ms after it "
					"was stopped, though not in a pass: no service lcore runs "
					"it any more (unmapped while the port was started?); the "
					"stop goes on",
					p->dev->data->name, rte_service_get_name(nic->service_id),
					PMD_QUIESCE_MS);
				break;
			}
			rte_pause();
		}
		/* acquire: pairs with the release at the end of its last pass */
		(void)atomic_load_explicit(&nic->passes, memory_order_acquire);
	}
}

/* The application stopped polling before stopping the port (DPDK's rule):
 * take each queue's state from its last burst call. */
static void quiesce_queues(struct rte_eth_dev *dev)
{
	/* acquire: pairs with the releases at the end of pmd_rx_burst() and
	 * pmd_tx_burst() */
	for (uint16_t q = 0; q < dev->data->nb_rx_queues; q++) {
		struct pmd_rxq *rq = dev->data->rx_queues[q];

		if (rq != NULL)
			(void)atomic_load_explicit(&rq->calls, memory_order_acquire);
	}
	for (uint16_t q = 0; q < dev->data->nb_tx_queues; q++) {
		struct pmd_txq *tq = dev->data->tx_queues[q];

		if (tq != NULL)
			(void)atomic_load_explicit(&tq->calls, memory_order_acquire);
	}
}

/* A quiescent point: the library checks its invariants, packet
 * conservation and that no buffer sits in two places (docs/interfaces.md §8). */
static void census_at_stop(struct pmd *p)
{
	struct rxb_err err = { 0 };
	struct rxb_census c;

	if (rxb_iface_check(p->iface, NULL, &err) != 0 ||
	    rxb_iface_census(p->iface, &c, &err) != 0) {
		PMD_LOG(ERR, "%s: census at stop: %s", p->dev->data->name, err.msg);
		return;
	}
	PMD_LOG(INFO,
		"%s: census at stop: offered %" PRIu64 " = delivered %" PRIu64 " + dropped %" PRIu64
		"; delivered = received %" PRIu64 " + unread %" PRIu64 "; %" PRIu64
		" buffers posted, %" PRIu64 " in the NIC",
		p->dev->data->name, c.offered, c.delivered, c.dropped, c.received, c.in_entries,
		c.posted, c.nic_held);
}

static int dev_stop(struct rte_eth_dev *dev)
{
	struct pmd *p = pmd_of(dev);
	struct rxb_err err = { 0 };
	long back;

	if (!dev->data->dev_started)
		return 0;
	/* A pass that already saw nic_on = 1 finishes; none starts after the
	 * quiescence below, and receive calls return nothing from now on. */
	atomic_store_explicit(&p->nic_on, 0, memory_order_relaxed);
	quiesce_nic(p);
	quiesce_queues(dev);
	pmd_wire_stop(p);
	census_at_stop(p);
	back = rxb_iface_reclaim(p->iface, &err);
	if (back < 0)
		PMD_LOG(ERR, "%s: buffers not given back at stop: %s", dev->data->name, err.msg);
	else
		PMD_LOG(DEBUG, "%s: %ld buffers back to their mempools", dev->data->name, back);
	for (uint16_t q = 0; q < dev->data->nb_rx_queues; q++) {
		pmd_rxq_free_spares(dev->data->rx_queues[q]);
		dev->data->rx_queue_state[q] = RTE_ETH_QUEUE_STATE_STOPPED;
	}
	for (uint16_t q = 0; q < dev->data->nb_tx_queues; q++)
		dev->data->tx_queue_state[q] = RTE_ETH_QUEUE_STATE_STOPPED;
	dev->data->dev_started = 0;
	update_link(p);
	return back < 0 ? (int)back : 0;
}

static void release_all(struct pmd *p)
{
	rxb_iface_destroy(p->iface);
	p->iface = NULL;
	rte_free(p->allocs);
	p->allocs = NULL;
	rxb_reta_free(&p->reta);
	pmd_wire_detach(p);
	for (uint16_t t = 0; t < p->n_nics; t++) {
		struct pmd_nic *nic = &p->nic[t];

		if (!nic->service_registered)
			continue;
		rte_service_component_runstate_set(nic->service_id, 0);
		rte_service_component_unregister(nic->service_id);
		nic->service_registered = false;
	}
	rte_free(p->xbase);
	p->xbase = NULL;
}

/* Every buffer back? At close the application has stopped forwarding on
 * this port; what its Rx mempools miss is held elsewhere (or lost). */
static void check_mempools(struct rte_eth_dev *dev)
{
	for (uint16_t q = 0; q < dev->data->nb_rx_queues; q++) {
		struct pmd_rxq *rq = dev->data->rx_queues[q];

		if (rq == NULL || !first_of_its_pool(dev, q))
			continue;
		if (rte_mempool_avail_count(rq->mp) == rq->mp->size)
			PMD_LOG(INFO, "%s: mempool %s: all %u mbufs back", dev->data->name,
				rq->mp->name, rq->mp->size);
		else
			PMD_LOG(WARNING, "%s: mempool %s: %u of %u mbufs not back at close",
				dev->data->name, rq->mp->name,
				rq->mp->size - rte_mempool_avail_count(rq->mp), rq->mp->size);
	}
}

static int dev_close(struct rte_eth_dev *dev)
{
	struct pmd *p = pmd_of(dev);
	int rc = 0;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return 0;
	if (dev->data->dev_started)
		rc = dev_stop(dev);
	/* calls made on the stopped port (which did nothing) end here too */
	quiesce_queues(dev);
	for (uint16_t t = 0; t < p->n_nics; t++)
		if (p->nic[t].service_registered)
			/* acquire: pairs with the release of its last pass */
			(void)atomic_load_explicit(&p->nic[t].passes, memory_order_acquire);
	check_mempools(dev);
	for (uint16_t q = 0; q < dev->data->nb_rx_queues; q++)
		rx_queue_release(dev, q);
	for (uint16_t q = 0; q < dev->data->nb_tx_queues; q++)
		tx_queue_release(dev, q);
	release_all(p);
	return rc;
}

/* ------------------------------------------------------------ link, RSS */

static int link_update(struct rte_eth_dev *dev, int wait)
{
	(void)wait;
	update_link(pmd_of(dev));
	return 0;
}

static int set_link_up(struct rte_eth_dev *dev)
{
	return rte_eth_dev_set_link_up(pmd_of(dev)->wire);
}

static int set_link_down(struct rte_eth_dev *dev)
{
	return rte_eth_dev_set_link_down(pmd_of(dev)->wire);
}

/* The NIC accepts every frame the wire gives it. */
static int promiscuous_noop(struct rte_eth_dev *dev)
{
	(void)dev;
	return 0;
}

static int reta_update(struct rte_eth_dev *dev, struct rte_eth_rss_reta_entry64 *conf,
		       uint16_t size)
{
	struct pmd *p = pmd_of(dev);

	if (size != p->reta.size) {
		PMD_LOG(ERR, "%s: RETA update of %u entries: the table has %u (devarg reta)",
			dev->data->name, size, p->reta.size);
		return -EINVAL;
	}
	for (uint16_t e = 0; e < size; e++) {
		const struct rte_eth_rss_reta_entry64 *c = &conf[e / RTE_ETH_RETA_GROUP_SIZE];
		uint16_t i = e % RTE_ETH_RETA_GROUP_SIZE;

		if ((c->mask >> i & 1) && c->reta[i] >= dev->data->nb_rx_queues) {
			PMD_LOG(ERR, "%s: RETA entry %u = queue %u: the port has %u Rx queues",
				dev->data->name, e, c->reta[i], dev->data->nb_rx_queues);
			return -EINVAL;
		}
	}
	for (uint16_t e = 0; e < size; e++) {
		const struct rte_eth_rss_reta_entry64 *c = &conf[e / RTE_ETH_RETA_GROUP_SIZE];
		uint16_t i = e % RTE_ETH_RETA_GROUP_SIZE;

		/* relaxed: the NIC thread reads entries one at a time
		 * (deliver_frame); a NIC's table is updated live too. */
		if (c->mask >> i & 1)
			__atomic_store_n(&p->reta.queue[e], c->reta[i], __ATOMIC_RELAXED);
	}
	return 0;
}

static int reta_query(struct rte_eth_dev *dev, struct rte_eth_rss_reta_entry64 *conf, uint16_t size)
{
	struct pmd *p = pmd_of(dev);

	if (size != p->reta.size)
		return -EINVAL;
	for (uint16_t e = 0; e < size; e++) {
		struct rte_eth_rss_reta_entry64 *c = &conf[e / RTE_ETH_RETA_GROUP_SIZE];
		uint16_t i = e % RTE_ETH_RETA_GROUP_SIZE;

		if (c->mask >> i & 1)
			c->reta[i] = p->reta.queue[e];
	}
	return 0;
}

static int rss_hash_update(struct rte_eth_dev *dev, struct rte_eth_rss_conf *rss)
{
	struct pmd *p = pmd_of(dev);
	struct rxb_err err = { 0 };

	if (rss->rss_key != NULL) {
		if (dev->data->dev_started) {
			rxb_err_set(&err, "RSS key update while started: the NIC reads the key's "
					  "tables on every frame; stop the port first");
			return fail(p, &err, -EBUSY);
		}
		if (rss->rss_key_len != RXB_RSS_KEY_LEN) {
			rxb_err_set(&err, "rss_key_len = %u: the key has %u bytes",
				    rss->rss_key_len, RXB_RSS_KEY_LEN);
			return fail(p, &err, -EINVAL);
		}
		memcpy(p->cfg.rss_key, rss->rss_key, RXB_RSS_KEY_LEN);
		if (rxb_rss_init(&p->rss, p->cfg.rss_key, RXB_RSS_KEY_LEN, &err) != 0)
			return fail(p, &err, -EINVAL);
	}
	dev->data->dev_conf.rx_adv_conf.rss_conf.rss_hf = rss->rss_hf & PMD_RSS_TYPES;
	atomic_store_explicit(&p->l4, rss_l4(dev), memory_order_relaxed);
	return 0;
}

static int rss_hash_conf_get(struct rte_eth_dev *dev, struct rte_eth_rss_conf *rss)
{
	struct pmd *p = pmd_of(dev);

	if (rss->rss_key != NULL && rss->rss_key_len >= RXB_RSS_KEY_LEN)
		memcpy(rss->rss_key, p->cfg.rss_key, RXB_RSS_KEY_LEN);
	rss->rss_key_len = RXB_RSS_KEY_LEN;
	rss->rss_hf = dev->data->dev_conf.rx_adv_conf.rss_conf.rss_hf;
	return 0;
}

static const struct eth_dev_ops pmd_ops = {
	.dev_configure = dev_configure,
	.dev_infos_get = dev_infos_get,
	.dev_start = dev_start,
	.dev_stop = dev_stop,
	.dev_close = dev_close,
	.dev_set_link_up = set_link_up,
	.dev_set_link_down = set_link_down,
	.link_update = link_update,
	.promiscuous_enable = promiscuous_noop,
	.promiscuous_disable = promiscuous_noop,
	.allmulticast_enable = promiscuous_noop,
	.allmulticast_disable = promiscuous_noop,
	.rx_queue_setup = rx_queue_setup,
	.rx_queue_release = rx_queue_release,
	.tx_queue_setup = tx_queue_setup,
	.tx_queue_release = tx_queue_release,
	.stats_get = pmd_stats_get,
	.stats_reset = pmd_stats_reset,
	.xstats_get = pmd_xstats_get,
	.xstats_get_names = pmd_xstats_get_names,
	.xstats_reset = pmd_xstats_reset,
	.reta_update = reta_update,
	.reta_query = reta_query,
	.rss_hash_update = rss_hash_update,
	.rss_hash_conf_get = rss_hash_conf_get,
};

/* ------------------------------------------------------------ probe, remove */

_Static_assert(PMD_MAX_NICS <= 10, "a NIC thread's number is one digit");

/* NIC thread t as a service: "<port>_nic", or "<port>_nic<t>" when the
 * port has several (the EAL maps each to a service lcore in turn). */
static int register_service(struct pmd *p, uint16_t t, struct rxb_err *err)
{
	struct rte_service_spec spec = { 0 };
	struct pmd_nic *nic = &p->nic[t];

	if (p->n_nics == 1)
		snprintf(spec.name, sizeof(spec.name), "%.27s_nic", p->dev->data->name);
	else /* t is one digit */
		snprintf(spec.name, sizeof(spec.name), "%.26s_nic%c", p->dev->data->name, '0' + t);
	spec.callback = pmd_nic_service;
	spec.callback_userdata = nic;
	spec.socket_id = (int)p->dev->data->numa_node;
	/* Not MT-safe: a NIC thread is one thread; the framework serialises it. */
	if (rte_service_component_register(&spec, &nic->service_id) != 0)
		return rxb_err_fail(err, -EINVAL, "cannot register the NIC service %s", spec.name);
	nic->service_registered = true;
	rte_service_component_runstate_set(nic->service_id, 0);
	return 0;
}

static int make_nics(struct pmd *p, struct rxb_err *err)
{
	int rc = 0;

	p->n_nics = p->cfg.nic_threads;
	for (uint16_t t = 0; t < p->n_nics; t++) {
		p->nic[t].p = p;
		p->nic[t].id = t;
	}
	for (uint16_t t = 0; rc == 0 && p->cfg.nic_cpu < 0 && t < p->n_nics; t++)
		rc = register_service(p, t, err);
	return rc;
}

static int probe(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	struct rte_eth_dev *dev;
	struct rxb_err err = { 0 };
	struct pmd *p;
	int rc;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		PMD_LOG(ERR, "%s: secondary processes are not supported", name);
		return -ENOTSUP;
	}
	dev = rte_eth_vdev_allocate(vdev, sizeof(*p));
	if (dev == NULL)
		return -ENOMEM;
	p = dev->data->dev_private;
	p->dev = dev;
	p->port_id = dev->data->port_id;
	rc = pmd_nic_init(&err);
	if (rc == 0)
		rc = pmd_args_parse(name, rte_vdev_device_args(vdev), &p->cfg, &err);
	if (rc == 0)
		rc = pmd_wire_attach(p, &err);
	if (rc == 0)
		rc = make_nics(p, &err);
	if (rc != 0) {
		PMD_LOG(ERR, "%s", err.msg);
		release_all(p);
		rte_eth_dev_release_port(dev);
		return rc;
	}
	dev->dev_ops = &pmd_ops;
	dev->rx_pkt_burst = pmd_rx_burst;
	dev->tx_pkt_burst = pmd_tx_burst;
	dev->data->mac_addrs = rte_zmalloc(NULL, RTE_ETHER_ADDR_LEN, 0);
	if (dev->data->mac_addrs == NULL) {
		release_all(p);
		rte_eth_dev_release_port(dev);
		return -ENOMEM;
	}
	rte_eth_macaddr_get(p->wire, dev->data->mac_addrs);
	dev->data->dev_flags |= RTE_ETH_DEV_AUTOFILL_QUEUE_XSTATS;
	rte_eth_dev_probing_finish(dev);
	PMD_LOG(INFO, "%s: %s over %s", name, rxb_arch_name[p->cfg.scn.arch.name], p->cfg.port);
	return 0;
}

static int remove_dev(struct rte_vdev_device *vdev)
{
	struct rte_eth_dev *dev = rte_eth_dev_allocated(rte_vdev_device_name(vdev));

	if (dev == NULL)
		return 0; /* the application closed the port (and removed our wire) */
	pmd_wire_leave_to_bus(pmd_of(dev));
	dev_close(dev);
	return rte_eth_dev_release_port(dev);
}

static struct rte_vdev_driver pmd_driver = {
	.probe = probe,
	.remove = remove_dev,
};

RTE_PMD_REGISTER_VDEV(net_rxbisect, pmd_driver);
RTE_PMD_REGISTER_PARAM_STRING(
	net_rxbisect,
	"port=<ethdev> iface=<privring|small_privring|shring|shring_list|dyn_shring|rxbisect> "
	"rx=<int> cr=<int> ax=<int> bx=<int> share=<int|auto> assoc=<all|per_nic|groups> "
	"groups=<int> ax_policy=<random|round_robin|most_available> coalesce=<bool> "
	"coalesce_ns=<float> dyn_sample_ms=<float> rss_key=<hex> reta=<int> flows=<int> "
	"nic_cpu=<int> nic_threads=<int> fault_stall=<q@ms[+ms]> fault_link_down=<ms[+ms]>");
