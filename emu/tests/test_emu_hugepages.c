/* SPDX-License-Identifier: BSD-3-Clause
 * rxb_huge_probe(): rxb-emu starts on hugepages only where the EAL can map
 * them, i.e. free pages of the default size AND a hugetlbfs mount of that
 * size this user can write. Free pages without such a mount once made
 * rte_eal_init() fail instead of falling back to 4 KiB pages. Fed meminfo
 * and mounts files written here, so it runs on any machine.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "hugepages.h"

static char meminfo[64], mounts[64], dir[64], spaced[64];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (f == NULL)
		return;
	fputs(text, f);
	fclose(f);
}

/* 1100 free pages of 2 MiB: 2200 MiB. */
static const char meminfo_2m[] = "MemTotal:       24000000 kB\n"
				 "HugePages_Total:    1100\n"
				 "HugePages_Free:     1100\n"
				 "Hugepagesize:       2048 kB\n";

static struct rxb_huge_probe probe_mounts(const char *mounts_text)
{
	struct rxb_huge_probe hp;

	write_file(meminfo, meminfo_2m);
	write_file(mounts, mounts_text);
	rxb_huge_probe(meminfo, mounts, &hp);
	return hp;
}

static void test_free_pages_and_a_mount(void)
{
	char text[256];
	struct rxb_huge_probe hp;

	snprintf(text, sizeof(text),
		 "proc /proc proc rw,nosuid 0 0\n"
		 "hugetlbfs %s hugetlbfs rw,relatime,pagesize=2M 0 0\n",
		 dir);
	hp = probe_mounts(text);
	CHECK_EQ(hp.free_mib, 2200);
	CHECK(hp.mounted);
	/* the kernel may also write the size in KiB, and older ones none */
	snprintf(text, sizeof(text), "hugetlbfs %s hugetlbfs rw,pagesize=2048K 0 0\n", dir);
	CHECK(probe_mounts(text).mounted);
	snprintf(text, sizeof(text), "nodev %s hugetlbfs rw,relatime 0 0\n", dir);
	CHECK(probe_mounts(text).mounted);
}

static void test_free_pages_without_a_mount(void)
{
	char text[256];
	struct rxb_huge_probe hp = probe_mounts("proc /proc proc rw 0 0\n"
						"tmpfs /dev/shm tmpfs rw 0 0\n");

	CHECK_EQ(hp.free_mib, 2200);
	CHECK(!hp.mounted);
	/* a mount of 1 GiB pages does not serve the free 2 MiB ones */
	snprintf(text, sizeof(text), "hugetlbfs %s hugetlbfs rw,pagesize=1G 0 0\n", dir);
	CHECK(!probe_mounts(text).mounted);
	/* nor does one the EAL cannot create its files in */
	CHECK(!probe_mounts("hugetlbfs /nonexistent/rxb-huge hugetlbfs rw,pagesize=2M 0 0\n")
		       .mounted);
}

static void test_escaped_mount_path(void)
{
	char text[256];

	/* /proc/mounts writes the space in "rxb huge" as \040 */
	snprintf(text, sizeof(text), "hugetlbfs %.*s\\040%s hugetlbfs rw,pagesize=2M 0 0\n",
		 (int)(strchr(spaced, ' ') - spaced), spaced, strchr(spaced, ' ') + 1);
	CHECK(probe_mounts(text).mounted);
}

static void test_unreadable_files(void)
{
	struct rxb_huge_probe hp;

	rxb_huge_probe("/nonexistent/meminfo", "/nonexistent/mounts", &hp);
	CHECK_EQ(hp.free_mib, 0);
	CHECK(!hp.mounted);
}

int main(void)
{
	int fd;

	snprintf(meminfo, sizeof(meminfo), "/tmp/rxb_test_huge_meminfo_XXXXXX");
	snprintf(mounts, sizeof(mounts), "/tmp/rxb_test_huge_mounts_XXXXXX");
	snprintf(dir, sizeof(dir), "/tmp/rxb_test_huge_dir_XXXXXX");
	snprintf(spaced, sizeof(spaced), "/tmp/rxb_test_huge %d", (int)getpid());
	if ((fd = mkstemp(meminfo)) < 0 || close(fd) != 0 || (fd = mkstemp(mounts)) < 0 ||
	    close(fd) != 0 || mkdtemp(dir) == NULL || mkdir(spaced, 0700) != 0) {
		perror("test files");
		return 1;
	}
	RUN(test_free_pages_and_a_mount);
	RUN(test_free_pages_without_a_mount);
	RUN(test_escaped_mount_path);
	RUN(test_unreadable_files);
	unlink(meminfo);
	unlink(mounts);
	rmdir(dir);
	rmdir(spaced);
	return check_summary();
}
