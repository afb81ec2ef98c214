/* SPDX-License-Identifier: BSD-3-Clause
 * A stop whose NIC service was unmapped from its service lcore while the
 * port ran: the EAL leaves the service marked active on that lcore for
 * good (the lcore no longer looks at it), so waiting for the mark to clear
 * would never end. The stop ends, with a line saying why it stopped
 * waiting. An alarm fails the test rather than let it hang. */
#define _GNU_SOURCE
#include <signal.h>
#include <time.h>

#include <rte_service.h>

#include "check.h"
#include "pmd_test.h"

static uint16_t port;
static struct rte_mempool *mp;

static uint64_t xstat(const char *name)
{
	uint64_t id, v = 0;

	if (rte_eth_xstats_get_id_by_name(port, name, &id) != 0 ||
	    rte_eth_xstats_get_by_id(port, &id, &v, 1) != 1)
		return 0;
	return v;
}

static void test_stop_after_the_service_was_unmapped(void)
{
	time_t deadline = time(NULL) + 60;
	uint32_t id;

	CHECK_EQ(pmd_test_setup(port, 1, mp), 0);
	CHECK_EQ(rte_eth_dev_start(port), 0);
	CHECK_EQ(rte_service_get_by_name("net_rxbisect0_nic", &id), 0);
	while (xstat("rx_wire_packets") == 0 && time(NULL) < deadline)
		rte_pause();
	CHECK(xstat("rx_wire_packets") > 0); /* the service ran on lcore 1 */
	CHECK_EQ(rte_service_map_lcore_set(id, 1, 0), 0);
	pmd_test_logged(""); /* forget the log so far */
	alarm(60);           /* a stop that never returns fails the test */
	CHECK_EQ(rte_eth_dev_stop(port), 0);
	alarm(0);
	CHECK(pmd_test_logged("net_rxbisect0: NIC service \"net_rxbisect0_nic\" still marked "
			      "active 10000 ms after it was stopped"));
}

int main(void)
{
	mp = pmd_test_init("pmdquiesce", "0@0,1@0", "1", "iface=privring", &port);
	RUN(test_stop_after_the_service_was_unmapped);
	rte_eth_dev_close(port);
	rte_eal_cleanup();
	return check_summary();
}
