/* SPDX-License-Identifier: BSD-3-Clause
 * Minimal test harness: CHECK records a failure with file:line and goes on;
 * RUN runs one test function; each test binary ends with check_summary(),
 * which prints "N passed, N failed" and returns the exit status for ctest. */
#ifndef RXB_TEST_CHECK_H
#define RXB_TEST_CHECK_H
#include <inttypes.h>
#include <stdio.h>

static int check_failures_in_test;
static int checks_passed_tests, checks_failed_tests;

#define CHECK(cond)                                                                              \
	do {                                                                                     \
		if (!(cond)) {                                                                   \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
			check_failures_in_test++;                                                \
		}                                                                                \
	} while (0)

#define CHECK_EQ(a, b)                                                                       \
	do {                                                                                 \
		long long check_a_ = (long long)(a), check_b_ = (long long)(b);              \
		if (check_a_ != check_b_) {                                                  \
			fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %s (%lld != %lld)\n", \
				__FILE__, __LINE__, #a, #b, check_a_, check_b_);             \
			check_failures_in_test++;                                            \
		}                                                                            \
	} while (0)

#define RUN(test)                                            \
	do {                                                 \
		check_failures_in_test = 0;                  \
		test();                                      \
		if (check_failures_in_test) {                \
			checks_failed_tests++;               \
			fprintf(stderr, "FAIL %s\n", #test); \
		} else {                                     \
			checks_passed_tests++;               \
			printf("ok   %s\n", #test);          \
		}                                            \
	} while (0)

static inline int check_summary(void)
{
	printf("%d passed, %d failed\n", checks_passed_tests, checks_failed_tests);
	return checks_failed_tests ? 1 : 0;
}
#endif
