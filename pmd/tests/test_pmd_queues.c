/* SPDX-License-Identifier: BSD-3-Clause
 * net_rxbisect through the ethdev API on a port whose configured queues were
 * not all set up: DPDK's ethdev layer passes stats, xstats and start to the
 * driver regardless, so the driver must read no queue that is not there.
 * Stats skip the missing queues; start fails with -EINVAL and a log line
 * naming the first missing queue, Rx before Tx; once every queue is set up
 * the port starts. The driver is linked in (its constructor registers it),
 * so no -d path is needed. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_mbuf.h>

#include "check.h"

static char *log_buf;
static size_t log_len;
static FILE *log_f;
static uint16_t port;
static struct rte_mempool *mp;

/* Has the driver logged `what` since the last call? */
static bool logged(const char *what)
{
	bool found;

	fflush(log_f);
	found = log_buf != NULL && strstr(log_buf, what) != NULL;
	if (!found)
		fprintf(stderr, "not in the log: \"%s\"; log:\n%s\n", what, log_buf ? log_buf : "");
	rewind(log_f);
	fflush(log_f);
	if (log_buf != NULL)
		memset(log_buf, 0, log_len);
	return found;
}

static void init(void)
{
	char prefix[64];
	char *argv[] = { "test_pmd_queues",
			 "--no-huge",
			 "-m",
			 "512",
			 "--no-pci",
			 "--lcores=0@0",
			 "--log-level=pmd.net.rxbisect:info",
			 "--vdev=net_rxbisect0,port=net_null0,iface=privring,nic_cpu=0",
			 prefix,
			 NULL };

	snprintf(prefix, sizeof(prefix), "--file-prefix=pmdq_%d", (int)getpid());
	log_f = open_memstream(&log_buf, &log_len);
	if (log_f == NULL || rte_openlog_stream(log_f) != 0 ||
	    rte_eal_init((int)(sizeof(argv) / sizeof(argv[0])) - 1, argv) < 0 ||
	    rte_eth_dev_get_port_by_name("net_rxbisect0", &port) != 0) {
		fprintf(stderr, "cannot start the EAL with net_rxbisect0:\n%s\n",
			log_buf ? log_buf : "");
		exit(2);
	}
	mp = rte_pktmbuf_pool_create("pmdq", 8191, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				     SOCKET_ID_ANY);
	if (mp == NULL) {
		fprintf(stderr, "mempool creation failed\n");
		exit(2);
	}
}

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
	logged(""); /* forget the log so far */
	CHECK_EQ(rte_eth_dev_start(port), -EINVAL);
	CHECK(logged("net_rxbisect0: Rx queue 1 of 2 was not set up"));
	CHECK_EQ(rte_eth_rx_queue_setup(port, 1, 0, SOCKET_ID_ANY, NULL, mp), 0);
	CHECK_EQ(rte_eth_dev_start(port), -EINVAL);
	CHECK(logged("net_rxbisect0: Tx queue 1 of 2 was not set up"));
	CHECK_EQ(rte_eth_tx_queue_setup(port, 1, 0, SOCKET_ID_ANY, NULL), 0);
	CHECK_EQ(rte_eth_dev_start(port), 0);
	CHECK_EQ(rte_eth_dev_stop(port), 0);
}

int main(void)
{
	init();
	RUN(stats_skip_missing_queues);
	RUN(xstats_skip_missing_queues);
	RUN(start_refused_until_every_queue_is_set_up);
	rte_eth_dev_close(port);
	rte_eal_cleanup();
	return check_summary();
}
