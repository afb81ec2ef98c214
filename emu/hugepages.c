/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Whether the EAL can run on hugepages here (hugepages.h).
 */
#include "hugepages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The default hugepage size (KiB) and free pages of it, from meminfo: free,
 * as HugePages_Total also counts pages an exited process left mapped in
 * hugetlbfs files, which no one else can use. */
static void read_meminfo(const char *path, long *kib, long *free_pages)
{
	FILE *f = fopen(path, "r");
	char line[256];

	*kib = 0;
	*free_pages = 0;
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		sscanf(line, "HugePages_Free: %ld", free_pages);
		sscanf(line, "Hugepagesize: %ld kB", kib);
	}
	fclose(f);
}

/* The "pagesize=" option of a hugetlbfs mount in KiB ("2M", "1G", "1024M",
 * "64K"), or -1 when the options name none (the mount is of the default
 * size). */
static long mount_page_kib(const char *opts)
{
	const char *p = strstr(opts, "pagesize=");
	char *end;
	long v;

	if (p == NULL)
		return -1;
	v = strtol(p + strlen("pagesize="), &end, 10);
	switch (*end) {
	case 'G':
		return v * 1024 * 1024;
	case 'M':
		return v * 1024;
	case 'K':
		return v;
	default:
		return v / 1024; /* bytes */
	}
}

/* /proc/mounts writes a space in a path as \040 (octal escapes): undo them. */
static void unescape_path(char *s)
{
	char *w = s;

	for (const char *r = s; *r != '\0'; w++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 4;
		} else {
			*w = *r++;
		}
	}
	*w = '\0';
}

void rxb_huge_probe(const char *meminfo_path, const char *mounts_path, struct rxb_huge_probe *out)
{
	long kib, free_pages;
	char line[1024], dir[256], type[64], opts[512];
	FILE *f;

	read_meminfo(meminfo_path, &kib, &free_pages);
	out->free_mib = free_pages * kib / 1024;
	out->mounted = false;
	f = fopen(mounts_path, "r");
	if (f == NULL)
		return;
	while (!out->mounted && fgets(line, sizeof(line), f) != NULL) {
		long page;

		if (sscanf(line, "%*s %255s %63s %511s", dir, type, opts) != 3 ||
		    strcmp(type, "hugetlbfs") != 0)
			continue;
		page = mount_page_kib(opts);
		if (page != -1 && page != kib)
			continue; /* pages of another size: not the free ones counted */
		unescape_path(dir);
		/* The EAL creates its page files there (then unlinks them). */
		out->mounted = access(dir, W_OK | X_OK) == 0;
	}
	fclose(f);
}
