/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Can the EAL run on hugepages here? It needs free pages of the default size
 * and a hugetlbfs mount of that size it may create files in: free pages
 * without such a mount make rte_eal_init() fail ("Cannot get hugepage
 * information"), so rxb-emu must then start on 4 KiB pages instead.
 */
#ifndef RXB_EMU_HUGEPAGES_H
#define RXB_EMU_HUGEPAGES_H

#include <stdbool.h>

struct rxb_huge_probe {
	long free_mib; /* HugePages_Free x Hugepagesize */
	bool mounted;  /* a writable hugetlbfs mount of the default size */
};

/* Read from a meminfo and a mounts file in /proc's formats (/proc/meminfo
 * and /proc/mounts for the machine; other files in tests). An unreadable
 * file reads as no pages, no mount. */
void rxb_huge_probe(const char *meminfo_path, const char *mounts_path, struct rxb_huge_probe *out);

#endif
