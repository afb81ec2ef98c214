/* SPDX-License-Identifier: BSD-3-Clause
 * The DPDK tests' runtime directory (util/rundir.h): every test has a file
 * prefix of its own, so without this each `make test` would leave ~100 MB
 * of them on a tmpfs. Call after a successful rte_eal_init(): the
 * directory is removed when the process exits, passed or failed. */
#ifndef RXB_EAL_RUNTIME_DIR_H
#define RXB_EAL_RUNTIME_DIR_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_eal.h>

#include "rundir.h"

static char rxb_test_eal_dir[PATH_MAX];

static inline void rxb_test_eal_dir_remove(void)
{
	if (rxb_test_eal_dir[0] != '\0')
		rxb_remove_run_dir(rxb_test_eal_dir);
}

static inline void rxb_test_eal_dir_remove_at_exit(void)
{
	snprintf(rxb_test_eal_dir, sizeof(rxb_test_eal_dir), "%s", rte_eal_get_runtime_dir());
	atexit(rxb_test_eal_dir_remove);
}

#endif
