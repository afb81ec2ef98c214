/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Basic stats and xstats of net_rxbisect, named in DPDK's convention
 * (port-wide "rx_<what>", per Rx queue "rx_q<N>_<what>"). Values come from
 * the library's NIC and software counters and from the driver's own; they
 * stay readable after the port stops (the interface is kept until the next
 * start or close). Reset = remember the values now and report differences.
 */
#include <stdio.h>
#include <string.h>

#include <rte_malloc.h>

#include "pmd.h"

struct port_stat {
	const char *name;
	size_t off; /* of an rxb_counter_t in struct pmd_nstats */
};

static const struct port_stat port_stats[] = {
	{ "rx_wire_packets", offsetof(struct pmd_nstats, wire_pkts) },
	{ "rx_wire_bytes", offsetof(struct pmd_nstats, wire_bytes) },
	{ "rx_oversize_drops", offsetof(struct pmd_nstats, oversize) },
	{ "rx_nic_busy_polls", offsetof(struct pmd_nstats, busy_polls) },
	{ "rx_nic_idle_polls", offsetof(struct pmd_nstats, idle_polls) },
	{ "rx_wire_link_down_events", offsetof(struct pmd_nstats, link_down_events) },
	{ "rx_dyn_switch_decisions", offsetof(struct pmd_nstats, dyn_switches) },
	{ "rx_nic_misrouted", offsetof(struct pmd_nstats, misrouted) },
	{ "rx_nic_full_pass_cycles", offsetof(struct pmd_nstats, full_cyc) },
	{ "rx_nic_full_pass_packets", offsetof(struct pmd_nstats, full_pkts) },
	{ "rx_nic_step_cycles_receive", offsetof(struct pmd_nstats, step_cyc[PMD_STEP_RECEIVE]) },
	{ "rx_nic_step_cycles_classify", offsetof(struct pmd_nstats, step_cyc[PMD_STEP_CLASSIFY]) },
	{ "rx_nic_step_cycles_deliver", offsetof(struct pmd_nstats, step_cyc[PMD_STEP_DELIVER]) },
	{ "rx_nic_step_cycles_free", offsetof(struct pmd_nstats, step_cyc[PMD_STEP_FREE]) },
};
#define N_PORT_STATS (sizeof(port_stats) / sizeof(port_stats[0]))

enum qsrc { Q_NIC, Q_SW, Q_OCC, Q_FOREIGN, Q_ALLOC_FAIL, Q_STALLED, Q_BYTES };

struct queue_stat {
	const char *name;
	enum qsrc src;
	int counter; /* enum rxb_nic_counter / rxb_sw_counter */
	bool bisect; /* rxBisect only: a name that means nothing elsewhere */
};

/* Drop causes follow rxb_drop_cause_name[]; refills and notices are named
 * for the ring they concern (Ax rings exist in rxBisect only). */
static const struct queue_stat queue_stats[] = {
	{ "offered", Q_NIC, RXB_NIC_OFFERED, false },
	{ "delivered", Q_NIC, RXB_NIC_DELIVERED, false },
	{ "drops_no_rx_desc", Q_NIC, RXB_NIC_DROP_FIRST + RXB_DROP_NO_RX_DESC, false },
	{ "drops_no_ax_buf", Q_NIC, RXB_NIC_DROP_FIRST + RXB_DROP_NO_AX_BUF, true },
	{ "drops_no_bx_slot", Q_NIC, RXB_NIC_DROP_FIRST + RXB_DROP_NO_BX_SLOT, true },
	{ "drops_cr_full", Q_NIC, RXB_NIC_DROP_FIRST + RXB_DROP_CR_FULL, false },
	{ "drops_pipeline", Q_NIC, RXB_NIC_DROP_FIRST + RXB_DROP_PIPELINE, false },
	{ "occupancy", Q_OCC, 0, false },
	{ "received", Q_SW, RXB_SW_RECEIVED, false },
	{ "bytes", Q_BYTES, 0, false },
	{ "refills", Q_SW, RXB_SW_POSTED, false },
	{ "doorbells", Q_SW, RXB_SW_DOORBELLS, false },
	{ "alloc_failures", Q_ALLOC_FAIL, 0, false },
	{ "consumption_only_notices", Q_NIC, RXB_NIC_NOTICES, true },
	{ "notices_coalesced", Q_NIC, RXB_NIC_NOTICES_COALESCED, true },
	{ "foreign_deliveries", Q_FOREIGN, 0, true },
	{ "recycled", Q_SW, RXB_SW_RECYCLED, true },
	{ "deferred_refills", Q_SW, RXB_SW_DEFERRED, true },
	{ "stalled_polls", Q_STALLED, 0, false },
};
#define N_QUEUE_STATS (sizeof(queue_stats) / sizeof(queue_stats[0]))

static bool shown(const struct pmd *p, const struct queue_stat *s)
{
	return !s->bisect || p->cfg.scn.arch.name == RXB_ARCH_RXBISECT;
}

uint32_t pmd_xstats_count(const struct pmd *p, uint16_t nq)
{
	uint32_t per = 0;

	for (size_t k = 0; k < N_QUEUE_STATS; k++)
		per += shown(p, &queue_stats[k]);
	return (uint32_t)N_PORT_STATS + per * nq;
}

/* Counters of a queue configured but not set up (DPDK lets stats be read
 * then) read 0, as do the library's before the first start. */
static uint64_t queue_value(struct pmd *p, uint16_t q, const struct queue_stat *s)
{
	const struct pmd_rxq *rq = p->dev->data->rx_queues[q];
	bool driver_counter = s->src == Q_ALLOC_FAIL || s->src == Q_STALLED || s->src == Q_BYTES;

	if (driver_counter ? rq == NULL : p->iface == NULL)
		return 0;
	switch (s->src) {
	case Q_NIC:
		return rxb_iface_nic_counter(p->iface, q, s->counter);
	case Q_SW:
		return rxb_iface_sw_counter(p->iface, q, (enum rxb_sw_counter)s->counter);
	case Q_OCC:
		return rxb_iface_occupancy(p->iface, q);
	case Q_FOREIGN:
		return rxb_bisect_foreign_uses(rxb_iface_bisect(p->iface), q);
	case Q_ALLOC_FAIL:
		return rxb_counter_read(&rq->alloc_fail);
	case Q_STALLED:
		return rxb_counter_read(&rq->stalled_polls);
	default:
		return rxb_counter_read(&rq->bytes);
	}
}

/* A NIC-wide counter: the sum over the port's NIC threads. */
static uint64_t nic_value(const struct pmd *p, size_t off)
{
	uint64_t v = 0;

	for (uint16_t t = 0; t < p->n_nics; t++)
		v += rxb_counter_read((const rxb_counter_t *)((const char *)&p->nic[t].ns + off));
	return v;
}

/* Every xstat, in name order, raw; or, for a reset's baseline, with 0 for
 * the occupancies: an occupancy is a level, not a count, never based. */
static uint32_t raw_values(struct pmd *p, uint64_t *v, bool for_baseline)
{
	uint32_t k = 0;

	for (size_t i = 0; i < N_PORT_STATS; i++)
		v[k++] = nic_value(p, port_stats[i].off);
	for (uint16_t q = 0; q < p->dev->data->nb_rx_queues; q++)
		for (size_t i = 0; i < N_QUEUE_STATS; i++) {
			const struct queue_stat *s = &queue_stats[i];

			if (shown(p, s))
				v[k++] = for_baseline && s->src == Q_OCC ? 0 : queue_value(p, q, s);
		}
	return k;
}

/* The baseline follows the queue count: a reconfigure starts from zero. */
static int baseline(struct pmd *p)
{
	uint32_t n = pmd_xstats_count(p, p->dev->data->nb_rx_queues);

	if (p->xbase != NULL && p->n_xstats == n)
		return 0;
	rte_free(p->xbase);
	p->xbase = rte_zmalloc(NULL, sizeof(*p->xbase) * n, 0);
	p->n_xstats = p->xbase != NULL ? n : 0;
	return p->xbase != NULL ? 0 : -ENOMEM;
}

int pmd_xstats_get_names(struct rte_eth_dev *dev, struct rte_eth_xstat_name *names, unsigned n)
{
	struct pmd *p = pmd_of(dev);
	uint32_t total = pmd_xstats_count(p, dev->data->nb_rx_queues), k = 0;

	if (names == NULL || n < total)
		return (int)total;
	for (size_t i = 0; i < N_PORT_STATS; i++)
		snprintf(names[k++].name, RTE_ETH_XSTATS_NAME_SIZE, "%s", port_stats[i].name);
	for (uint16_t q = 0; q < dev->data->nb_rx_queues; q++)
		for (size_t i = 0; i < N_QUEUE_STATS; i++)
			if (shown(p, &queue_stats[i]))
				snprintf(names[k++].name, RTE_ETH_XSTATS_NAME_SIZE, "rx_q%u_%s", q,
					 queue_stats[i].name);
	return (int)total;
}

int pmd_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xs, unsigned n)
{
	struct pmd *p = pmd_of(dev);
	uint32_t total = pmd_xstats_count(p, dev->data->nb_rx_queues);
	uint64_t *v;

	if (xs == NULL || n < total)
		return (int)total;
	if (baseline(p) != 0 || (v = rte_malloc(NULL, sizeof(*v) * total, 0)) == NULL)
		return -ENOMEM;
	raw_values(p, v, false);
	for (uint32_t k = 0; k < total; k++) {
		xs[k].id = k;
		xs[k].value = v[k] - (v[k] >= p->xbase[k] ? p->xbase[k] : v[k]);
	}
	rte_free(v);
	return (int)total;
}

int pmd_xstats_reset(struct rte_eth_dev *dev)
{
	struct pmd *p = pmd_of(dev);

	if (baseline(p) != 0)
		return -ENOMEM;
	raw_values(p, p->xbase, true);
	return 0;
}

/* Queues configured but not set up have no counters: skipped. */
static void raw_stats(struct rte_eth_dev *dev, struct rte_eth_stats *st)
{
	struct pmd *p = pmd_of(dev);

	memset(st, 0, sizeof(*st));

	for (uint16_t q = 0; q < dev->data->nb_rx_queues; q++) {
		const struct pmd_rxq *rq = dev->data->rx_queues[q];
		uint64_t pk = 0, drops = 0;

		if (rq == NULL)
			continue;
		if (p->iface != NULL) {
			pk = rxb_iface_sw_counter(p->iface, q, RXB_SW_RECEIVED);
			/* recycled: dropped for want of a buffer, as the NIC's own drops */
			drops = rxb_iface_sw_counter(p->iface, q, RXB_SW_RECYCLED);
			for (int c = 0; c < RXB_DROP_CAUSES; c++)
				drops += rxb_iface_nic_counter(p->iface, q, RXB_NIC_DROP_FIRST + c);
		}
		st->ipackets += pk;
		st->ibytes += rxb_counter_read(&rq->bytes);
		st->imissed += drops;
		st->rx_nombuf += rxb_counter_read(&rq->alloc_fail);
		if (q < RTE_ETHDEV_QUEUE_STAT_CNTRS) {
			st->q_ipackets[q] = pk;
			st->q_ibytes[q] = rxb_counter_read(&rq->bytes);
		}
	}
	/* Frames a NIC thread took for another thread's queue are dropped
	 * before the design, by no queue: port-wide only. With them, ipackets
	 * + imissed + the unread entries = the frames taken off the wire. */
	st->imissed += nic_value(p, offsetof(struct pmd_nstats, misrouted));
	for (uint16_t q = 0; q < dev->data->nb_tx_queues; q++) {
		const struct pmd_txq *tq = dev->data->tx_queues[q];

		if (tq == NULL)
			continue;
		st->opackets += rxb_counter_read(&tq->pkts);
		st->obytes += rxb_counter_read(&tq->bytes);
		if (q < RTE_ETHDEV_QUEUE_STAT_CNTRS) {
			st->q_opackets[q] = rxb_counter_read(&tq->pkts);
			st->q_obytes[q] = rxb_counter_read(&tq->bytes);
		}
	}
}

/* struct rte_eth_stats is all 64-bit counters: reset and report by word. */
#define STAT_WORDS (sizeof(struct rte_eth_stats) / sizeof(uint64_t))

int pmd_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *st)
{
	const uint64_t *base = (const uint64_t *)&pmd_of(dev)->sbase;
	uint64_t *v = (uint64_t *)st;

	raw_stats(dev, st);
	for (size_t k = 0; k < STAT_WORDS; k++)
		v[k] -= v[k] >= base[k] ? base[k] : v[k];
	return 0;
}

int pmd_stats_reset(struct rte_eth_dev *dev)
{
	raw_stats(dev, &pmd_of(dev)->sbase);
	return 0;
}

/* A start builds a new interface whose counters begin at zero. */
void pmd_stats_restart(struct pmd *p)
{
	memset(&p->sbase, 0, sizeof(p->sbase));
	rte_free(p->xbase);
	p->xbase = NULL;
	p->n_xstats = 0;
	for (uint16_t t = 0; t < p->n_nics; t++)
		memset(&p->nic[t].ns, 0, sizeof(p->nic[t].ns));
}
