/* SPDX-License-Identifier: BSD-3-Clause
 * The DPDK tests' runtime directory (/var/run/dpdk/PREFIX, or under
 * $XDG_RUNTIME_DIR): rte_eal_cleanup() leaves it and its files (the
 * config and the fbarrays, ~6.5 MB with --no-huge) on a tmpfs, and every
 * test has a prefix of its own, so without this each `make test` would
 * add ~100 MB there. Call after a successful rte_eal_init(): the directory
 * is removed when the process exits, passed or failed. */
#ifndef RXB_EAL_RUNTIME_DIR_H
#define RXB_EAL_RUNTIME_DIR_H

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>

static char rxb_test_eal_dir[PATH_MAX];

static inline void rxb_test_eal_dir_remove(void)
{
	DIR *d = opendir(rxb_test_eal_dir);
	struct dirent *de;
	char path[PATH_MAX + 256];

	if (rxb_test_eal_dir[0] == '\0' || d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", rxb_test_eal_dir, de->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(rxb_test_eal_dir);
}

static inline void rxb_test_eal_dir_remove_at_exit(void)
{
	snprintf(rxb_test_eal_dir, sizeof(rxb_test_eal_dir), "%s", rte_eal_get_runtime_dir());
	atexit(rxb_test_eal_dir_remove);
}

#endif
