/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Shared bits of the parser fuzz targets (fuzz_pcap, fuzz_simcfg,
 * fuzz_calib): how a failed check is reported, and the switch for known,
 * still open bugs.
 *
 * Known bugs. A bug a target found and that is not fixed yet would make
 * every short run (make test) fail on it again, and would hide any other
 * bug behind it. Each one therefore has a name and a precise test on the
 * input or on the outcome, in the target; an input that hits it is not
 * reported and returns -1 (libFuzzer 15 and later then leave it out of the
 * corpus; clang 14's libFuzzer ignores the value and may keep it, which
 * only matters with the filter off: it then fails at once). The crashing inputs are kept in tests/fuzz/crashes/TARGET/ and
 * described in docs/fuzzing.md. RXB_FUZZ_KNOWN_BUGS=1 in the environment
 * turns the filters off, RXB_FUZZ_KNOWN_BUGS=name[,name...] some of them, to
 * reproduce one, to look for more inputs of one, or to check a fix:
 *   RXB_FUZZ_KNOWN_BUGS=1 build-fuzz/tests/fuzz/fuzz_pcap tests/fuzz/crashes/fuzz_pcap/X
 * Once a bug is fixed, delete its filter and move its input to the
 * target's seeds (regress-<what>.*). None is open now (docs/fuzzing.md):
 * no target calls fuzz_expose_known_bug(), which stays for the next one.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A violated property: one line naming the target, then abort() (libFuzzer
 * writes the input to crash-<sha1>). */
#define FUZZ_FAIL(target, ...)                   \
	do {                                     \
		fprintf(stderr, "%s: ", target); \
		fprintf(stderr, __VA_ARGS__);    \
		fputc('\n', stderr);             \
		abort();                         \
	} while (0)

static inline bool fuzz_env_flag(const char *name)
{
	const char *e = getenv(name);

	return e != NULL && *e != '\0' && *e != '0';
}

/* RXB_FUZZ_KNOWN_BUGS=1 (or "all"): do not filter any known bug;
 * RXB_FUZZ_KNOWN_BUGS=name,name: only those. */
static inline bool fuzz_expose_known_bug(const char *name)
{
	const char *e = getenv("RXB_FUZZ_KNOWN_BUGS");
	size_t n = strlen(name);

	if (e == NULL || *e == '\0' || strcmp(e, "0") == 0)
		return false;
	if (strcmp(e, "1") == 0 || strcmp(e, "all") == 0)
		return true;
	for (const char *p = e; (p = strstr(p, name)) != NULL; p += n)
		if ((p == e || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
			return true;
	return false;
}

/* RXB_FUZZ_VERBOSE=1: a line per input on what it did. */
static inline bool fuzz_verbose(void)
{
	static int v = -1;

	if (v < 0)
		v = fuzz_env_flag("RXB_FUZZ_VERBOSE");
	return v;
}

/* What every parser must do whatever it is fed: return 0 or a negative
 * errno, and explain a failure in a terminated message. `what` names the
 * target in the abort. */
static inline void fuzz_check_outcome(const char *what, int rc, const char *msg, size_t cap)
{
	if (rc > 0)
		FUZZ_FAIL(what, "returned %d (%s)", rc, msg);
	if (strnlen(msg, cap) == cap)
		FUZZ_FAIL(what, "error message not terminated");
	if (rc < 0 && msg[0] == '\0')
		FUZZ_FAIL(what, "failed (%d) without a message", rc);
}

#endif /* FUZZ_COMMON_H */
