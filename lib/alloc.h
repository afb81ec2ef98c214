/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Memory for the library's long-lived state. Constructors and checks use
 * these, never the fast path; every allocation the library makes goes
 * through them, so a test can make any one of them fail
 * (rxb_test_fail_alloc_after) and check that the constructor reports
 * -ENOMEM with a message and frees what it took.
 */
#ifndef RXB_LIB_ALLOC_H
#define RXB_LIB_ALLOC_H

#include <errno.h>
#include <stddef.h>

#include "rxb/common.h"

/* Zeroed, cache-line aligned, size rounded up to whole lines. NULL when out
 * of memory or size is 0. Free with rxb_free_aligned() (free() works too). */
void *rxb_zalloc_aligned(size_t size);
void rxb_free_aligned(void *p);

/* malloc / calloc / realloc with the fault-injection hook; free with free().
 * rxb_calloc also fails when n × size overflows. */
void *rxb_malloc(size_t size);
void *rxb_calloc(size_t n, size_t size);
void *rxb_realloc(void *p, size_t size);

/* Report an allocation failure: code -ENOMEM, message "out of memory:
 * <what> (<bytes> bytes)", where <what> is formatted from fmt. Returns
 * -ENOMEM. Tolerates err == NULL. */
int rxb_err_nomem(struct rxb_err *err, size_t bytes, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The end of a constructor that failed with `code` (a negative errno):
 * errno = -code, NULL, as DPDK's constructors do with rte_errno. */
static inline void *rxb_fail_null(int code)
{
	errno = -code;
	return NULL;
}

/* Fault injection for tests. 0 (the default): off. k > 0: the k-th
 * allocation from now fails, and the hook turns itself off. A test sets it
 * while no other thread allocates through the library; when off, the
 * allocators only read it (one load and a branch on a cold path). */
extern unsigned long rxb_test_fail_alloc_after;

#endif /* RXB_LIB_ALLOC_H */
