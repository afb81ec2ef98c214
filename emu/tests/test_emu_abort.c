/* SPDX-License-Identifier: BSD-3-Clause
 * A run a lcore aborts fails: a generator lcore that cannot allocate its
 * scratch ends the run, and rxb_emu_run() returns -ENOMEM (rxb-emu's exit
 * code 3) with a message, not a short run's result. The allocation fails
 * on request: this test is linked with --wrap=rte_zmalloc (emu/CMakeLists.txt). */
#define _GNU_SOURCE
#include "check.h"
#include "emu_test.h"
#include "emu_run_test.h"

#include <rte_malloc.h>

void *__real_rte_zmalloc(const char *type, size_t size, unsigned align);
void *__wrap_rte_zmalloc(const char *type, size_t size, unsigned align);

static const char *fail_type; /* rte_zmalloc of this type returns NULL */

void *__wrap_rte_zmalloc(const char *type, size_t size, unsigned align)
{
	if (fail_type != NULL && type != NULL && strcmp(type, fail_type) == 0)
		return NULL;
	return __real_rte_zmalloc(type, size, align);
}

static void test_generator_out_of_memory_fails_the_run(void)
{
	struct rxb_emu_result r;
	struct rxb_emu_cfg c;
	struct rxb_err err = { 0 };
	int rc;

	emu_rt_cfg(&c, RXB_ARCH_PRIVRING, 2000);
	fail_type = "rxb_gen_out"; /* the generator lcore's scratch, allocated on it */
	rc = rxb_emu_run(&c, &r, &err);
	fail_type = NULL;
	printf("  rc %d: %s\n", rc, err.msg);
	CHECK_EQ(rc, -ENOMEM);
	CHECK_EQ(err.code, -ENOMEM);
	CHECK(strstr(err.msg, "out of memory: generator lcore 0's scratch") != NULL);
	CHECK_EQ(rxb_engine_exit_code(rc), RXB_EXIT_NOMEM);
	/* the next run is not affected */
	emu_rt_cfg(&c, RXB_ARCH_PRIVRING, 2000);
	CHECK_EQ(rxb_emu_run(&c, &r, &err), 0);
	CHECK_EQ(r.offered, 2000);
}

int main(void)
{
	emu_rt_init("emu_abort");
	RUN(test_generator_out_of_memory_fails_the_run);
	emu_rt_fini();
	return check_summary();
}
