/* SPDX-License-Identifier: BSD-3-Clause
 * net_rxbisect through the ethdev API on a port whose configured queues were
 * not all set up: DPDK's ethdev layer passes stats, xstats and start to the
 * driver regardless, so the driver must read no queue that is not there.
 * Stats skip the missing queues; start fails with -EINVAL and a log line
 * naming the first missing queue, Rx before Tx; once every queue is set up
 * the port starts. The driver is linked in (its constructor registers it),
 * so no -d path is needed. */
#define _GNU_SOURCE
#include "check.h"
#include "pmd_test.h"

static uint16_t port;
static struct rte_mempool *mp;

/* 2 Rx and 2 Tx queues configured; queue 0 of each set up. */
static void configure_half(void)
{
	struct rte_eth_conf conf = { .rxmode.mq_mode = RTE_ETH_MQ_RX_RSS };

	CHECK_EQ(rte_eth_dev_configure(port, 2, 2, &conf), 0);
	CHECK_EQ(rte_eth_rx_queue_setup(port, 0, 0, SOCKET_ID_ANY, NULL, mp), 0);
	CHECK_EQ(rte_eth_tx_queue_setup(port, 0, 0, SOCKET_ID_ANY, NULL), 0);
}

static void stats_skip_missing_queues(void)
{
	struct rte_eth_stats st;

	configure_half();
	CHECK_EQ(rte_eth_stats_get(port, &st), 0);
	CHECK_EQ(st.ipackets + st.imissed + st.opackets, 0);
	CHECK_EQ(rte_eth_stats_reset(port), 0);
}

static void xstats_skip_missing_queues(void)
{
	int n;
	struct rte_eth_xstat *xs;

	configure_half();
	n = rte_eth_xstats_get(port, NULL, 0);
	CHECK(n > 0);
	if (n <= 0)
		return;
	xs = calloc((size_t)n, sizeof(*xs));
	CHECK_EQ(rte_eth_xstats_get(port, xs, (unsigned)n), n);
	for (int k = 0; k < n; k++)
		CHECK_EQ(xs[k].value, 0);
	CHECK_EQ(rte_eth_xstats_reset(port), 0);
	free(xs);
}

static void start_refused_until_every_queue_is_set_up(void)
{
	configure_half();
	pmd_test_logged(""); /* forget the log so far */
	CHECK_EQ(rte_eth_dev_start(port), -EINVAL);
	CHECK(pmd_test_logged("net_rxbisect0: Rx queue 1 of 2 was not set up"));
	CHECK_EQ(rte_eth_rx_queue_setup(port, 1, 0, SOCKET_ID_ANY, NULL, mp), 0);
	CHECK_EQ(rte_eth_dev_start(port), -EINVAL);
	CHECK(pmd_test_logged("net_rxbisect0: Tx queue 1 of 2 was not set up"));
	CHECK_EQ(rte_eth_tx_queue_setup(port, 1, 0, SOCKET_ID_ANY, NULL), 0);
	CHECK_EQ(rte_eth_dev_start(port), 0);
	CHECK_EQ(rte_eth_dev_stop(port), 0);
}

int main(void)
{
	mp = pmd_test_init("pmdq", "0@0", NULL, "iface=privring,nic_cpu=0", &port);
	RUN(stats_skip_missing_queues);
	RUN(xstats_skip_missing_queues);
	RUN(start_refused_until_every_queue_is_set_up);
	rte_eth_dev_close(port);
	rte_eal_cleanup();
	return check_summary();
}
