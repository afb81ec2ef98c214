/* SPDX-License-Identifier: BSD-3-Clause
 * What the driver's C tests share: an EAL with net_rxbisect0 over net_null0,
 * its log kept in memory to look for the driver's lines, and a mempool.
 * Include after check.h. */
#ifndef RXB_PMD_TEST_H
#define RXB_PMD_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_mbuf.h>

#include "eal_runtime_dir.h"

static char *pmd_test_log;
static size_t pmd_test_log_len;
static FILE *pmd_test_log_f;

/* Has the driver logged `what` since the last call? Forgets the log. */
static inline bool pmd_test_logged(const char *what)
{
	bool found;

	fflush(pmd_test_log_f);
	found = pmd_test_log != NULL && strstr(pmd_test_log, what) != NULL;
	if (!found)
		fprintf(stderr, "not in the log: \"%s\"; log:\n%s\n", what,
			pmd_test_log ? pmd_test_log : "");
	rewind(pmd_test_log_f);
	fflush(pmd_test_log_f);
	if (pmd_test_log != NULL)
		memset(pmd_test_log, 0, pmd_test_log_len);
	return found;
}

/* The EAL with `lcores`, service lcores `service` (a list) (NULL: none) and
 * net_rxbisect0 with `devargs` over net_null0; its port id in *port, a
 * mempool returned. Exits on failure: nothing else can run without it. */
static inline struct rte_mempool *pmd_test_init(const char *prefix, const char *lcores,
						const char *service, const char *devargs,
						uint16_t *port)
{
	static char file_prefix[64], lcore_arg[64], vdev[256];
	char *argv[] = { "pmd_test",
			 "--no-huge",
			 "-m",
			 "512",
			 "--no-pci",
			 "--log-level=pmd.net.rxbisect:info",
			 lcore_arg,
			 vdev,
			 file_prefix,
			 service != NULL ? "-S" : NULL,
			 (char *)service,
			 NULL };
	int argc = service != NULL ? 11 : 9;
	struct rte_mempool *mp;

	snprintf(file_prefix, sizeof(file_prefix), "--file-prefix=%s_%d", prefix, (int)getpid());
	snprintf(lcore_arg, sizeof(lcore_arg), "--lcores=%s", lcores);
	snprintf(vdev, sizeof(vdev), "--vdev=net_rxbisect0,port=net_null0,%s", devargs);
	pmd_test_log_f = open_memstream(&pmd_test_log, &pmd_test_log_len);
	if (pmd_test_log_f == NULL || rte_openlog_stream(pmd_test_log_f) != 0 ||
	    rte_eal_init(argc, argv) < 0 ||
	    rte_eth_dev_get_port_by_name("net_rxbisect0", port) != 0) {
		fflush(pmd_test_log_f);
		fprintf(stderr, "%s: cannot start the EAL with net_rxbisect0:\n%s\n", prefix,
			pmd_test_log ? pmd_test_log : "");
		exit(2);
	}
	rxb_test_eal_dir_remove_at_exit();
	mp = rte_pktmbuf_pool_create("pmd_test", 8191, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				     SOCKET_ID_ANY);
	if (mp == NULL) {
		fprintf(stderr, "%s: mempool creation failed\n", prefix);
		exit(2);
	}
	return mp;
}

/* nq Rx and Tx queues configured and set up; 0, or the first failure. */
static inline int pmd_test_setup(uint16_t port, uint16_t nq, struct rte_mempool *mp)
{
	struct rte_eth_conf conf = { .rxmode.mq_mode = RTE_ETH_MQ_RX_RSS };
	int rc = rte_eth_dev_configure(port, nq, nq, &conf);

	for (uint16_t q = 0; rc == 0 && q < nq; q++)
		rc = rte_eth_rx_queue_setup(port, q, 0, SOCKET_ID_ANY, NULL, mp);
	for (uint16_t q = 0; rc == 0 && q < nq; q++)
		rc = rte_eth_tx_queue_setup(port, q, 0, SOCKET_ID_ANY, NULL);
	return rc;
}

#endif
