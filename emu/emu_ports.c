/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Ports: the input port whose Rx queues are the physical queues (net_ring
 * fed by the generator, net_pcap reading a trace, net_null, or a port the
 * EAL probed), and the output port the workers transmit on (net_null,
 * net_pcap writing a file, a caller's ring, or the input port).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>

#include "emu_int.h"
#include "pcapio.h"

#define EMU_TX_DESC 1024u

/* One pcap per physical queue, each holding the packets RSS steers there
 * (net_pcap has one file per Rx queue and no RSS of its own). */
static int split_pcap(struct emu *e, struct rxb_err *err)
{
	const struct rxb_emu_cfg *c = e->cfg;
	struct rxb_pcap_rd rd;
	struct rxb_pcap_rec rec;
	FILE *out[64] = { NULL };
	static uint8_t buf[65536];
	char msg[256];
	int rc = 0, got;

	if (e->n_pq > 64) {
		rxb_err_set(err, "emu.source = pcap: %u physical queues, at most 64", e->n_pq);
		return -EINVAL;
	}
	if (rxb_pcap_open_read(&rd, c->scn.traffic.pcap, msg, sizeof(msg)) != 0) {
		rxb_err_set(err, "traffic.pcap = %s: %s", c->scn.traffic.pcap, msg);
		return -EINVAL;
	}
	rd.max_frame = c->scn.arch.buffer_bytes;
	for (uint32_t q = 0; q < e->n_pq; q++) {
		snprintf(e->split[q], sizeof(e->split[q]), "/tmp/rxb-emu-%d-%u-q%u-XXXXXX",
			 (int)getpid(), e->run_id, q);
		out[q] = rxb_pcap_create_temp(e->split[q]);
		if (out[q] == NULL) {
			rxb_err_set(err, "emu.source = pcap: cannot write %s: %s", e->split[q],
				    strerror(errno));
			rc = -EIO;
			goto done;
		}
		e->n_split = q + 1;
	}
	while ((got = rxb_pcap_next(&rd, &rec, buf, sizeof(buf))) == 1) {
		uint16_t dport;
		uint32_t hash = rxb_rss_frame(&e->rss, buf, rec.caplen, &dport);
		uint32_t core = emu_core_of(e, emu_port_of(e, NULL, hash), hash, dport, true);
		uint32_t q = emu_pq_of_core(e, core, RXB_DYN_PRIVATE);

		if (rxb_pcap_write(out[q], rec.ts_ns, buf, rec.caplen) != 0) {
			rxb_err_set(err, "emu.source = pcap: writing %s failed", e->split[q]);
			rc = -EIO;
			goto done;
		}
	}
	if (got < 0) {
		rxb_err_set(err, "traffic.pcap = %s: %s", c->scn.traffic.pcap, rd.msg);
		rc = -EINVAL;
	}
done:
	for (uint32_t q = 0; q < e->n_pq; q++)
		if (out[q] != NULL)
			fclose(out[q]);
	rxb_pcap_close_read(&rd);
	return rc;
}

static int vdev_port(const char *name, const char *args, uint16_t *port, struct rxb_err *err)
{
	int rc = rte_vdev_init(name, args);

	if (rc != 0) {
		rxb_err_set(err, "cannot create the virtual device %s (%s): %s", name, args,
			    rte_strerror(-rc));
		return -ENODEV;
	}
	if (rte_eth_dev_get_port_by_name(name, port) != 0) {
		rxb_err_set(err, "virtual device %s has no ethdev port", name);
		return -ENODEV;
	}
	return 0;
}

/* emu.source = gen: the generator enqueues onto one wire ring per physical
 * queue, and net_ring turns those rings into the input port's Rx queues. */
static int make_ring_input(struct emu *e, struct rxb_err *err)
{
	int socket = (int)rte_socket_id();
	struct rte_ring *rx[RTE_MAX_QUEUES_PER_PORT], *tx[1];
	char name[64];
	int port;

	for (uint32_t q = 0; q < e->n_pq; q++) {
		snprintf(name, sizeof(name), "rxbw%u_%u", e->run_id, q);
		e->pq[q].wire = rte_ring_create(name, e->pq[q].cap, socket,
						RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ);
		if (e->pq[q].wire == NULL) {
			rxb_err_set(err, "cannot create ring %s: %s", name,
				    rte_strerror(rte_errno));
			return -ENOMEM;
		}
		rx[q] = e->pq[q].wire;
	}
	snprintf(name, sizeof(name), "rxbt%u", e->run_id);
	tx[0] = rte_ring_create(name, 64, socket, 0);
	e->dummy_ring = tx[0];
	snprintf(e->in_name, sizeof(e->in_name), "net_ring_rxbi%u", e->run_id);
	port = tx[0] ? rte_eth_from_rings(e->in_name, rx, e->n_pq, tx, 1, (unsigned)socket) : -1;
	if (port < 0) {
		rxb_err_set(err, "cannot create the net_ring input port: %s",
			    rte_strerror(rte_errno));
		return -ENODEV;
	}
	e->in_port = (uint16_t)port;
	e->in_vdev = true;
	return 0;
}

/* emu.source = pcap: a net_pcap vdev reading the file, or with several
 * physical queues one split file per queue (net_pcap has no RSS). */
static int make_pcap_input(struct emu *e, struct rxb_err *err)
{
	const struct rxb_emu_cfg *c = e->cfg;
	char args[8192];
	size_t off = 0;
	int rc;

	if (e->n_pq > 1) {
		rc = split_pcap(e, err);
		if (rc != 0)
			return rc;
		for (uint32_t q = 0; q < e->n_pq; q++)
			off += (size_t)snprintf(args + off, sizeof(args) - off, "%srx_pcap=%s",
						q ? "," : "", e->split[q]);
	} else {
		char msg[256];

		/* Read it whole here: net_pcap stops silently at a cut record and its
		 * own messages are log lines. */
		if (rxb_pcap_check(c->scn.traffic.pcap, c->scn.arch.buffer_bytes, msg,
				   sizeof(msg)) != 0) {
			rxb_err_set(err, "traffic.pcap = %s: %s", c->scn.traffic.pcap, msg);
			return -EINVAL;
		}
		snprintf(args, sizeof(args), "rx_pcap=%s", c->scn.traffic.pcap);
	}
	if (off >= sizeof(args)) {
		rxb_err_set(err, "emu.source = pcap: too many queue files");
		return -EINVAL;
	}
	snprintf(e->in_name, sizeof(e->in_name), "net_pcap_rxbi%u", e->run_id);
	e->in_vdev = true;
	e->pmd_allocates = true;
	e->pool_stamps = true;
	return vdev_port(e->in_name, args, &e->in_port, err);
}

/* emu.source = null: net_null makes packets of the configured size (less
 * the FCS) as fast as it is polled. */
static int make_null_input(struct emu *e, struct rxb_err *err)
{
	char args[64];

	snprintf(args, sizeof(args), "size=%u", emu_frame_len(e->cfg));
	snprintf(e->in_name, sizeof(e->in_name), "net_null_rxbi%u", e->run_id);
	e->in_vdev = true;
	e->pmd_allocates = true;
	return vdev_port(e->in_name, args, &e->in_port, err);
}

/* emu.source = port: an ethdev port the EAL probed (a real NIC or a vdev
 * given in --eal). */
static int use_probed_input(struct emu *e, struct rxb_err *err)
{
	uint32_t port = e->cfg->scn.emu.port;

	if (!rte_eth_dev_is_valid_port(port)) {
		rxb_err_set(err,
			    "emu.port = %u: no such ethdev port (the EAL found %u; a "
			    "real NIC needs its PCI address or a vdev in --eal, and no "
			    "--no-pci)",
			    port, rte_eth_dev_count_avail());
		return -ENODEV;
	}
	e->in_port = port;
	e->pool_stamps = true;
	return 0;
}

static int make_input(struct emu *e, struct rxb_err *err)
{
	switch (e->cfg->scn.emu.source) {
	case RXB_EMU_SOURCE_GEN:
		return make_ring_input(e, err);
	case RXB_EMU_SOURCE_PCAP:
		return make_pcap_input(e, err);
	case RXB_EMU_SOURCE_NULL:
		return make_null_input(e, err);
	default:
		return use_probed_input(e, err);
	}
}

static int setup_input(struct emu *e, struct rxb_err *err)
{
	const struct rxb_emu_cfg *c = e->cfg;
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf;
	uint16_t nb_tx;
	int socket = (int)rte_socket_id(), rc;

	memset(&conf, 0, sizeof(conf));
	rc = rte_eth_dev_info_get(e->in_port, &info);
	if (rc != 0) {
		rxb_err_set(err, "port %u: no device info: %s", e->in_port, rte_strerror(-rc));
		return rc;
	}
	if (info.max_rx_queues < e->n_pq) {
		rxb_err_set(err,
			    "emu.source = %s: port %u (%s) has %u Rx queues, arch.name = %s "
			    "needs %u physical queues%s",
			    c->scn.emu.source == RXB_EMU_SOURCE_PORT ? "port" : "vdev", e->in_port,
			    info.driver_name, info.max_rx_queues, rxb_arch_name[c->scn.arch.name],
			    e->n_pq,
			    e->shape.n_srcs == e->shape.n_dests ? " (one per worker)" : "");
		return -EINVAL;
	}
	nb_tx = c->out == RXB_EMU_OUT_PORT ? (uint16_t)e->cores : 1;
	if (info.max_tx_queues < nb_tx)
		nb_tx = info.max_tx_queues;
	if (c->scn.emu.source == RXB_EMU_SOURCE_PORT && e->n_pq > 1) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf = (RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP |
						    RTE_ETH_RSS_UDP) &
						   info.flow_type_rss_offloads;
	}
	if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_RSS_HASH)
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_RSS_HASH;
	rc = rte_eth_dev_configure(e->in_port, (uint16_t)e->n_pq, nb_tx, &conf);
	if (rc != 0) {
		rxb_err_set(err, "port %u (%s): configure %u Rx / %u Tx queues failed: %s",
			    e->in_port, info.driver_name, e->n_pq, nb_tx, rte_strerror(-rc));
		return rc;
	}
	for (uint32_t q = 0; q < e->n_pq; q++) {
		uint16_t nd = (uint16_t)RTE_MIN(e->pq[q].cap, 32768u);
		struct rte_mempool *mp = c->scn.arch.emulated ? e->pq[q].vpool : e->wpool;

		if (info.rx_desc_lim.nb_max != 0 && nd > info.rx_desc_lim.nb_max)
			nd = info.rx_desc_lim.nb_max;
		if (nd < info.rx_desc_lim.nb_min)
			nd = info.rx_desc_lim.nb_min;
		e->pq[q].qid = (uint16_t)q;
		rc = rte_eth_rx_queue_setup(e->in_port, (uint16_t)q, nd, (unsigned)socket, NULL,
					    mp);
		if (rc != 0) {
			rxb_err_set(err,
				    "port %u (%s): Rx queue %u setup (%u descriptors) failed: %s",
				    e->in_port, info.driver_name, q, nd, rte_strerror(-rc));
			return rc;
		}
	}
	for (uint16_t t = 0; t < nb_tx; t++) {
		rc = rte_eth_tx_queue_setup(e->in_port, t, EMU_TX_DESC, (unsigned)socket, NULL);
		if (rc != 0) {
			rxb_err_set(err, "port %u: Tx queue %u setup failed: %s", e->in_port, t,
				    rte_strerror(-rc));
			return rc;
		}
	}
	e->in_txq = nb_tx;
	return 0;
}

static int setup_output(struct emu *e, struct rxb_err *err)
{
	const struct rxb_emu_cfg *c = e->cfg;
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf;
	uint16_t nb_tx = (uint16_t)e->cores;
	int socket = (int)rte_socket_id(), rc;
	char args[RXB_EMU_PATH_MAX + 16];

	memset(&conf, 0, sizeof(conf));
	switch (c->out) {
	case RXB_EMU_OUT_PORT:
		e->out_port = e->in_port;
		e->out_txq = e->in_txq;
		return 0;
	case RXB_EMU_OUT_PCAP:
		snprintf(args, sizeof(args), "tx_pcap=%s", c->out_pcap);
		snprintf(e->out_name, sizeof(e->out_name), "net_pcap_rxbo%u", e->run_id);
		rc = vdev_port(e->out_name, args, &e->out_port, err);
		nb_tx = 1;
		break;
	case RXB_EMU_OUT_RING: {
		struct rte_ring *rx[1], *tx[RXB_EMU_MAX_WORKERS];
		int port;

		if (c->out_ring == NULL) {
			rxb_err_set(err, "emu.out = ring: no ring given");
			return -EINVAL;
		}
		rx[0] = e->dummy_ring;
		if (rx[0] == NULL) {
			char name[32];

			snprintf(name, sizeof(name), "rxbt%u", e->run_id);
			rx[0] = e->dummy_ring = rte_ring_create(name, 64, socket, 0);
		}
		for (uint32_t w = 0; w < e->cores; w++)
			tx[w] = c->out_ring;
		snprintf(e->out_name, sizeof(e->out_name), "net_ring_rxbo%u", e->run_id);
		port = rte_eth_from_rings(e->out_name, rx, 1, tx, e->cores, (unsigned)socket);
		if (port < 0) {
			rxb_err_set(err, "cannot create the net_ring output port");
			return -ENODEV;
		}
		e->out_port = (uint16_t)port;
		rc = 0;
		break;
	}
	default:
		snprintf(e->out_name, sizeof(e->out_name), "net_null_rxbo%u", e->run_id);
		rc = vdev_port(e->out_name, "", &e->out_port, err);
		break;
	}
	if (rc != 0)
		return rc;
	e->out_vdev = true;
	rte_eth_dev_info_get(e->out_port, &info);
	if (nb_tx > info.max_tx_queues)
		nb_tx = info.max_tx_queues;
	rc = rte_eth_dev_configure(e->out_port, 1, nb_tx, &conf);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(e->out_port, 0, 64, (unsigned)socket, NULL, e->wpool);
	for (uint16_t t = 0; rc == 0 && t < nb_tx; t++)
		rc = rte_eth_tx_queue_setup(e->out_port, t, EMU_TX_DESC, (unsigned)socket, NULL);
	if (rc != 0) {
		rxb_err_set(err, "output port %s: setup failed: %s", e->out_name,
			    rte_strerror(-rc));
		return rc;
	}
	e->out_txq = nb_tx;
	return 0;
}

int emu_ports_setup(struct emu *e, struct rxb_err *err)
{
	int rc = make_input(e, err);

	if (rc == 0)
		rc = setup_input(e, err);
	if (rc == 0)
		rc = setup_output(e, err);
	if (rc != 0)
		return rc;
	/* Workers share Tx queues (under a lock) when the output has fewer. */
	for (uint32_t w = 0; w < e->cores; w++) {
		e->w[w].txq = (uint16_t)(w % e->out_txq);
		e->w[w].txlock = e->out_txq < e->cores ? &e->out_lock[w % e->out_txq] : NULL;
	}
	return 0;
}

int emu_ports_start(struct emu *e, struct rxb_err *err)
{
	int rc = rte_eth_dev_start(e->in_port);

	if (rc != 0) {
		rxb_err_set(err, "input port %u: start failed: %s%s", e->in_port, rte_strerror(-rc),
			    e->cfg->scn.arch.emulated
				    ? " (with an emulated arch the PMD draws its first "
				      "buffers from the virtual rings: rings too small for "
				      "its descriptor count?)"
				    : "");
		return rc;
	}
	e->in_started = true;
	if (e->cfg->scn.emu.source == RXB_EMU_SOURCE_PORT)
		rte_eth_promiscuous_enable(e->in_port);
	if (e->out_port != e->in_port) {
		rc = rte_eth_dev_start(e->out_port);
		if (rc != 0) {
			rxb_err_set(err, "output port %u: start failed: %s", e->out_port,
				    rte_strerror(-rc));
			return rc;
		}
		e->out_started = true;
	}
	return 0;
}

void emu_ports_stop(struct emu *e)
{
	if (e->in_started)
		rte_eth_dev_stop(e->in_port);
	if (e->out_started)
		rte_eth_dev_stop(e->out_port);
	e->in_started = e->out_started = false;
}

void emu_ports_close(struct emu *e)
{
	emu_ports_stop(e);
	if (e->out_vdev) {
		rte_eth_dev_close(e->out_port);
		rte_vdev_uninit(e->out_name);
		e->out_vdev = false;
	}
	if (e->in_vdev) {
		rte_eth_dev_close(e->in_port);
		rte_vdev_uninit(e->in_name);
		e->in_vdev = false;
	}
	rte_ring_free(e->dummy_ring);
	e->dummy_ring = NULL;
	for (uint32_t q = 0; q < e->n_split; q++)
		unlink(e->split[q]);
	e->n_split = 0;
}
