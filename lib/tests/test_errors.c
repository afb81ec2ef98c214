/* SPDX-License-Identifier: BSD-3-Clause
 * Every error path of the library's constructors and checks, code AND
 * message (include/rxb/common.h lists the codes):
 *   - configuration rejected: -EINVAL (errno EINVAL for pointer-returning
 *     constructors), the message names the field, the value and what is
 *     allowed;
 *   - out of memory: -ENOMEM, "out of memory: <what> (<bytes> bytes)", at
 *     every allocation point of every constructor (an injected failure,
 *     rxb_test_fail_alloc_after, moved one allocation further each time
 *     until creation succeeds); the ASan build checks nothing leaks;
 *   - the allocator cannot fill the rings: -ENOBUFS, every buffer back;
 *   - a broken invariant: -RXB_E_INVARIANT from every checker.
 */
#include <errno.h>
#include <string.h>

#include "alloc.h"
#include "check.h"
#include "harness.h"
#include "ring.h"
#include "rxb/dynctl.h"
#include "rxb/iface.h"
#include "rxb/pool.h"
#include "rxb/privring.h"
#include "rxb/rss.h"
#include "rxb/rxbisect.h"
#include "rxb/shring.h"
#include "rxb/spool.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* err holds `code` and a message containing `a` and, unless NULL, `b`. */
#define CHECK_ERR(err, code, a, b) check_err(__FILE__, __LINE__, &(err), code, a, b)

static void check_err(const char *file, int line, const struct rxb_err *err, int code,
		      const char *a, const char *b)
{
	if (err->code != code || strstr(err->msg, a) == NULL ||
	    (b != NULL && strstr(err->msg, b) == NULL)) {
		fprintf(stderr,
			"%s:%d: CHECK_ERR failed: want code %d with \"%s\"%s%s%s, got %d "
			"\"%s\"\n",
			file, line, code, a, b ? " and \"" : "", b ? b : "", b ? "\"" : "",
			err->code, err->msg);
		check_failures_in_test++;
	}
}

/* A pointer-returning constructor failed with `code`: NULL, errno, err. */
#define CHECK_FAILED(ptr, err, code, a, b)  \
	do {                                \
		CHECK((ptr) == NULL);       \
		CHECK_EQ(errno, -(code));   \
		CHECK_ERR(err, code, a, b); \
	} while (0)

/* An out-of-memory message: "out of memory: <what> (<bytes> bytes)". */
static void check_nomem(const char *file, int line, const struct rxb_err *err)
{
	const char *open = strrchr(err->msg, '(');
	size_t n = strlen(err->msg);

	if (err->code != -ENOMEM || strncmp(err->msg, "out of memory: ", 15) != 0 || open == NULL ||
	    n < 8 || strcmp(err->msg + n - 7, " bytes)") != 0 || open[1] < '0' || open[1] > '9') {
		fprintf(stderr, "%s:%d: not an out-of-memory report: %d \"%s\"\n", file, line,
			err->code, err->msg);
		check_failures_in_test++;
	}
}

#define CHECK_NOMEM(err) check_nomem(__FILE__, __LINE__, &(err))

/* ------------------------------------------------ configuration rejected */

static void test_privring_config(void)
{
	static const struct {
		struct rxb_privring_config c;
		const char *field, *allowed;
	} bad[] = {
		{ { .n_queues = 0, .ring_size = 64 }, "privring.n_queues = 0", "[1, 65536]" },
		{ { .n_queues = 70000, .ring_size = 64 },
		  "privring.n_queues = 70000",
		  "[1, 65536]" },
		{ { .n_queues = 2, .ring_size = 1000 },
		  "privring.ring_size = 1000",
		  "power of two" },
		{ { .n_queues = 2, .ring_size = 1 }, "privring.ring_size = 1", "power of two" },
		{ { .n_queues = 2, .ring_size = 64, .cr_size = 3 },
		  "privring.cr_size = 3",
		  "power of two" },
		{ { .n_queues = 2, .ring_size = 64, .desc_prefetch = 4097 },
		  "privring.desc_prefetch = 4097",
		  "[0, 4096]" },
	};

	for (size_t k = 0; k < N_OF(bad); k++) {
		struct rxb_err err = { 0 };

		CHECK_FAILED(rxb_privring_create(&bad[k].c, &err), err, -EINVAL, bad[k].field,
			     bad[k].allowed);
	}
	{
		struct rxb_err err = { 0 };

		CHECK_FAILED(rxb_privring_create(NULL, &err), err, -EINVAL, "privring", "NULL");
	}
	/* err is optional; errno still says why */
	errno = 0;
	CHECK(rxb_privring_create(&bad[0].c, NULL) == NULL);
	CHECK_EQ(errno, EINVAL);
}

static void test_shring_config(void)
{
	static const struct {
		struct rxb_shring_config c;
		const char *field, *allowed;
	} bad[] = {
		{ { .n_cores = 0, .share_degree = 1, .ring_size = 64 },
		  "shring.n_cores = 0",
		  "[1, 1024]" },
		{ { .n_cores = 8, .share_degree = 0, .ring_size = 64 },
		  "shring.share_degree = 0",
		  "at least 1" },
		{ { .n_cores = 8, .share_degree = 3, .ring_size = 64 },
		  "shring.share_degree = 3",
		  "divide shring.n_cores = 8" },
		{ { .n_cores = 8, .share_degree = 8, .ring_size = 100 },
		  "shring.ring_size = 100",
		  "power of two" },
		{ { .n_cores = 8, .share_degree = 8, .ring_size = 64, .cr_size = 5 },
		  "shring.cr_size = 5",
		  "power of two" },
		{ { .n_cores = 8, .share_degree = 8, .ring_size = 64, .desc_prefetch = 4097 },
		  "shring.desc_prefetch = 4097",
		  "[0, 4096]" },
		{ { .n_cores = 8, .share_degree = 8, .ring_size = 64, .list = true, .batch = 3 },
		  "shring.batch = 3",
		  "power of two" },
		{ { .n_cores = 8, .share_degree = 8, .ring_size = 64, .batch = 4 },
		  "shring.batch = 4",
		  "shring.list = true" },
		{ { .n_cores = 8,
		    .share_degree = 8,
		    .ring_size = 1u << 20,
		    .list = true,
		    .batch = 2 },
		  "shring.batch = 2",
		  "at most 1048576" },
	};

	for (size_t k = 0; k < N_OF(bad); k++) {
		struct rxb_err err = { 0 };

		CHECK_FAILED(rxb_shring_create(&bad[k].c, &err), err, -EINVAL, bad[k].field,
			     bad[k].allowed);
	}
	{
		struct rxb_err err = { 0 };

		CHECK_FAILED(rxb_shring_create(NULL, &err), err, -EINVAL, "shring", "NULL");
	}
}

static void test_bisect_config(void)
{
	static const uint32_t link_out[2] = { 0, 5 }, link_cross[2] = { 1, 0 };
	static const uint32_t set0[1] = { 0 }, set_bad[2] = { 1, 7 };
	static const uint32_t *const assoc_bad[2] = { set0, set_bad };
	static const uint32_t *const assoc_own[2] = { set0, set0 };
	static const uint32_t len_bad[2] = { 1, 2 }, len_empty[2] = { 1, 0 }, len_own[2] = { 1, 1 };
	static const struct {
		struct rxb_bisect_config c;
		const char *field, *allowed;
	} bad[] = {
		{ { .n_ax = 0, .n_bx = 2, .ax_size = 64, .bx_size = 256 },
		  "rxbisect.n_ax = 0",
		  "[1, 1024]" },
		{ { .n_ax = 2,
		    .n_bx = 2,
		    .ax_size = 64,
		    .bx_size = 256,
		    .desc_prefetch = UINT32_MAX },
		  "rxbisect.desc_prefetch = 4294967295",
		  "[0, 4096]" },
		{ { .n_ax = 2, .n_bx = 0, .ax_size = 64, .bx_size = 256 },
		  "rxbisect.n_bx = 0",
		  "[1, 1024]" },
		{ { .n_ax = 2, .n_bx = 2, .ax_size = 60, .bx_size = 256 },
		  "rxbisect.ax_size = 60",
		  "power of two" },
		{ { .n_ax = 2, .n_bx = 2, .ax_size = 64, .bx_size = 250 },
		  "rxbisect.bx_size = 250",
		  "power of two" },
		{ { .n_ax = 2, .n_bx = 2, .ax_size = 32, .bx_size = 256, .enforce_vendor_min = true },
		  "rxbisect.ax_size = 32",
		  "vendor minimum of 64" },
		{ { .n_ax = 2, .n_bx = 2, .ax_size = 64, .bx_size = 256, .policy = 7 },
		  "rxbisect.policy = 7",
		  "random, round_robin or most_available" },
		{ { .n_ax = 2, .n_bx = 1, .ax_size = 64, .bx_size = 256 },
		  "rxbisect.link: missing",
		  "n_ax (2) != n_bx (1)" },
		{ { .n_ax = 2, .n_bx = 2, .ax_size = 64, .bx_size = 256, .link = link_out },
		  "rxbisect.link[1] = 5",
		  "[0, 2)" },
		{ { .n_ax = 2,
		    .n_bx = 2,
		    .ax_size = 64,
		    .bx_size = 256,
		    .assoc = assoc_bad,
		    .assoc_len = len_empty },
		  "rxbisect.assoc[1]",
		  "at least one Ax" },
		/* found while building the sets (bx_add_assoc) */
		{ { .n_ax = 2,
		    .n_bx = 2,
		    .ax_size = 64,
		    .bx_size = 256,
		    .assoc = assoc_bad,
		    .assoc_len = len_bad },
		  "rxbisect.assoc[1][1] = 7",
		  "[0, 2)" },
		{ { .n_ax = 2,
		    .n_bx = 2,
		    .ax_size = 64,
		    .bx_size = 256,
		    .assoc = assoc_own,
		    .assoc_len = len_own,
		    .link = link_cross },
		  "rxbisect.link[1] = 0",
		  "Ax 1 is not in the association set of Bx 0" },
		{ { .n_ax = 2, .n_bx = 2, .ax_size = 128, .bx_size = 64 },
		  "rxbisect.bx_size = 64",
		  "at least 128 slots" },
	};

	for (size_t k = 0; k < N_OF(bad); k++) {
		struct rxb_err err = { 0 };

		CHECK_FAILED(rxb_bisect_create(&bad[k].c, &err), err, -EINVAL, bad[k].field,
			     bad[k].allowed);
	}
	{
		struct rxb_err err = { 0 };

		CHECK_FAILED(rxb_bisect_create(NULL, &err), err, -EINVAL, "rxbisect", "NULL");
	}
}

static void test_spool_config(void)
{
	static const struct {
		struct rxb_spool_config c;
		const char *field, *allowed;
	} bad[] = {
		{ { .n_ports = 0, .mode = RXB_SPOOL_NONE, .depth = 64 },
		  "spool.n_ports = 0",
		  "[1, 65536] with spool.mode = none" },
		{ { .n_ports = (1u << 20) + 1, .mode = RXB_SPOOL_BASIC, .depth = 64 },
		  "spool.n_ports = 1048577",
		  "[1, 1048576] with spool.mode = basic" },
		{ { .n_ports = 70000, .mode = RXB_SPOOL_SPP, .low = 8, .high = 64 },
		  "spool.n_ports = 70000",
		  "[1, 65536] with spool.mode = spp" },
		{ { .n_ports = 4, .mode = 9, .depth = 64 }, "spool.mode = 9", "none, basic or spp" },
		{ { .n_ports = 4, .mode = RXB_SPOOL_NONE, .depth = 64, .desc_prefetch = 4097 },
		  "spool.desc_prefetch = 4097",
		  "[0, 4096]" },
		{ { .n_ports = 4, .mode = RXB_SPOOL_BASIC, .depth = 64, .basic_queues = 8 },
		  "spool.basic_queues = 8",
		  "at most spool.n_ports = 4" },
		{ { .n_ports = 4, .mode = RXB_SPOOL_NONE, .depth = 100 },
		  "spool.depth = 100",
		  "power of two" },
		{ { .n_ports = 4, .mode = RXB_SPOOL_SPP, .low = 6, .high = 500 },
		  "spool.high = 500",
		  "power of two" },
		{ { .n_ports = 4, .mode = RXB_SPOOL_SPP, .low = 600, .high = 512 },
		  "spool.low = 600",
		  "[1, spool.high = 512]" },
	};

	for (size_t k = 0; k < N_OF(bad); k++) {
		struct rxb_err err = { 0 };

		CHECK_FAILED(rxb_spool_create(&bad[k].c, &err), err, -EINVAL, bad[k].field,
			     bad[k].allowed);
	}
	{
		struct rxb_err err = { 0 };

		CHECK_FAILED(rxb_spool_create(NULL, &err), err, -EINVAL, "spool", "NULL");
	}
}

static void test_pool_config(void)
{
	struct rxb_pool_config def = rxb_pool_config_default();
	struct {
		struct rxb_pool_config c;
		const char *field, *allowed;
	} bad[] = {
		{ def, "pool.n_bufs = 0", "at least 1" },
		{ def, "pool.n_cores = 0", "[1, 1024]" },
		{ def, "pool.cache_size = 9000", "at most pool.n_bufs (8192)" },
		{ def, "pool.flush_factor_pct = 99", "at least 100" },
		{ def, "pool.buf_size = 0", "at least 1" },
	};
	struct rxb_err err = { 0 };

	bad[0].c.n_bufs = 0;
	bad[1].c.n_cores = 0;
	bad[2].c.cache_size = 9000;
	bad[3].c.flush_factor_pct = 99;
	bad[4].c.buf_size = 0;
	for (size_t k = 0; k < N_OF(bad); k++) {
		memset(&err, 0, sizeof(err));
		CHECK_FAILED(rxb_pool_create(&bad[k].c, &err), err, -EINVAL, bad[k].field,
			     bad[k].allowed);
		memset(&err, 0, sizeof(err));
		CHECK_EQ(rxb_pool_config_check(&bad[k].c, &err), -EINVAL);
		CHECK_ERR(err, -EINVAL, bad[k].field, bad[k].allowed);
	}
	memset(&err, 0, sizeof(err));
	CHECK_FAILED(rxb_pool_create(NULL, &err), err, -EINVAL, "pool", "NULL");
}

static void test_dynctl_config(void)
{
	struct rxb_dynctl dc;
	struct rxb_dynctl_config c = rxb_dynctl_config_default();
	struct rxb_err err = { 0 };

	c.window = 0;
	CHECK_EQ(rxb_dynctl_init(&dc, &c, RXB_DYN_PRIVATE, &err), -EINVAL);
	CHECK_ERR(err, -EINVAL, "dynctl.window = 0", "[1, 1024]");
	c = rxb_dynctl_config_default();
	c.tput_gbps_threshold = -1;
	CHECK_EQ(rxb_dynctl_init(&dc, &c, RXB_DYN_PRIVATE, &err), -EINVAL);
	CHECK_ERR(err, -EINVAL, "dynctl.tput_gbps_threshold = -1", "finite number > 0");
	c = rxb_dynctl_config_default();
	c.to_shared_num = 2;
	CHECK_EQ(rxb_dynctl_init(&dc, &c, RXB_DYN_PRIVATE, &err), -EINVAL);
	CHECK_ERR(err, -EINVAL, "dynctl.to_shared_num/to_shared_den = 2/2", "[0, 1)");
	CHECK_EQ(rxb_dynctl_init(&dc, NULL, 5, &err), -EINVAL);
	CHECK_ERR(err, -EINVAL, "dynctl.mode = 5", "private");
}

static void test_rss_config(void)
{
	static struct rxb_rss rss;
	struct rxb_reta reta;
	struct rxb_err err = { 0 };

	CHECK_EQ(rxb_rss_init(&rss, rxb_rss_default_key, 20, &err), -EINVAL);
	CHECK_ERR(err, -EINVAL, "rss.key = 20 bytes", "exactly 40");
	CHECK_EQ(rxb_rss_init(&rss, NULL, 40, &err), -EINVAL);
	CHECK_ERR(err, -EINVAL, "rss.key = NULL", "40 bytes");
	CHECK_EQ(rxb_reta_init(&reta, 100, 4, &err), -EINVAL);
	CHECK_ERR(err, -EINVAL, "reta.size = 100", "power of two");
	CHECK_EQ(rxb_reta_init(&reta, 128, 0, &err), -EINVAL);
	CHECK_ERR(err, -EINVAL, "reta.n_queues = 0", "[1, 65536]");
}

/* The generic interface: its own fields, then each design's error passed
 * through unchanged (code and message). */
static void test_iface_config(void)
{
	struct test_pool tp;
	struct rxb_allocator none[4] = { { 0 } };
	struct rxb_err err = { 0 };
	struct rxb_iface_config c = { .arch = RXB_ARCH_PRIVRING, .n_cores = 4, .rx_size = 64 };

	test_pool_init(&tp, 4096, 4);
	CHECK_FAILED(rxb_iface_create(NULL, tp.alloc, &err), err, -EINVAL, "iface", "NULL");
	c.n_cores = 0;
	CHECK_FAILED(rxb_iface_create(&c, tp.alloc, &err), err, -EINVAL, "system.cores = 0",
		     "[1, 1024]");
	c.n_cores = 4;
	CHECK_FAILED(rxb_iface_create(&c, NULL, &err), err, -EINVAL, "allocators = NULL",
		     "one endpoint per core");
	CHECK_FAILED(rxb_iface_create(&c, none, &err), err, -EINVAL, "allocators[0]",
		     "get or put is NULL");
	c.arch = 42;
	CHECK_FAILED(rxb_iface_create(&c, tp.alloc, &err), err, -EINVAL, "arch.name = 42",
		     "below 7");
	c.arch = RXB_ARCH_PRIVRING;
	c.rx_size = 1000;
	CHECK_FAILED(rxb_iface_create(&c, tp.alloc, &err), err, -EINVAL,
		     "privring.ring_size = 1000", "power of two");
	c.arch = RXB_ARCH_SHRING;
	c.rx_size = 64;
	c.share_degree = 3;
	CHECK_FAILED(rxb_iface_create(&c, tp.alloc, &err), err, -EINVAL, "shring.share_degree = 3",
		     "divide");
	c.arch = RXB_ARCH_RXBISECT;
	c.n_groups = 5;
	CHECK_FAILED(rxb_iface_create(&c, tp.alloc, &err), err, -EINVAL, "rxbisect.n_groups = 5",
		     "at most the 4 cores");
	c.n_groups = 0;
	c.bx_size = 64;
	CHECK_FAILED(rxb_iface_create(&c, tp.alloc, &err), err, -EINVAL, "rxbisect.bx_size = 64",
		     "at least 128 slots");
	c.arch = RXB_ARCH_DYN_SHRING;
	c.share_degree = 2;
	c.dyn = rxb_dynctl_config_default();
	c.dyn.window = 0;
	CHECK_FAILED(rxb_iface_create(&c, tp.alloc, &err), err, -EINVAL, "dynctl.window = 0",
		     "[1, 1024]");
	c.arch = RXB_ARCH_SPOOL;
	c.spool = (struct rxb_spool_config){ .n_ports = 4, .mode = 7, .depth = 64 };
	CHECK_FAILED(rxb_iface_create(&c, tp.alloc, &err), err, -EINVAL, "spool.mode = 7",
		     "none, basic or spp");
	CHECK_EQ(rxb_pool_free_count(tp.pool), 4096); /* nothing taken on the way */
	test_pool_fini(&tp);
}

/* ------------------------------------------------------------ -ENOBUFS */

static void test_iface_enobufs(void)
{
	static const enum rxb_arch archs[] = { RXB_ARCH_PRIVRING, RXB_ARCH_SHRING,
					       RXB_ARCH_DYN_SHRING, RXB_ARCH_RXBISECT };

	for (size_t k = 0; k < N_OF(archs); k++) {
		struct test_pool tp;
		struct rxb_err err = { 0 };
		struct rxb_iface_config c = { .arch = archs[k],
					      .n_cores = 4,
					      .rx_size = 256,
					      .share_degree = 2,
					      .ax_size = 128,
					      .bx_size = 256 };

		test_pool_init(&tp, 300, 4); /* fewer than any of them posts */
		CHECK_FAILED(rxb_iface_create(&c, tp.alloc, &err), err, -ENOBUFS,
			     "allocator: could post only", "give the pool more buffers");
		/* what was posted before the allocator ran dry is back */
		CHECK_EQ(rxb_pool_free_count(tp.pool), 300);
		test_pool_fini(&tp);
	}
}

/* Batched RxList: the message counts buffers (ring_size × rxlist_slots per
 * ring), not descriptors; the first ring is primed, the second is not. */
static void test_iface_enobufs_batched(void)
{
	struct test_pool tp;
	struct rxb_err err = { 0 };
	struct rxb_iface_config c = { .arch = RXB_ARCH_SHRING_LIST,
				      .n_cores = 2,
				      .share_degree = 1,
				      .rx_size = 64,
				      .rxlist_slots = 8 };

	test_pool_init(&tp, 600, 2); /* one ring's 512, not two */
	CHECK_FAILED(rxb_iface_create(&c, tp.alloc, &err), err, -ENOBUFS,
		     "could post only 512 of the 1024 buffers", "give the pool more buffers");
	CHECK_EQ(rxb_pool_free_count(tp.pool), 600);
	test_pool_fini(&tp);
}

/* ------------------------------------------------------------ -ENOMEM */

/* Run make() with the k-th allocation failing, k = 1, 2, ... until it
 * succeeds: every failure must be the injected one (the hook consumed),
 * reported as out of memory, and leave nothing behind (ASan). Returns the
 * allocation points found. */
static unsigned every_allocation_fails(const char *what,
				       void *(*make)(void *arg, struct rxb_err *err),
				       void (*destroy)(void *obj), void *arg)
{
	for (unsigned long k = 1; k < 100000; k++) {
		struct rxb_err err = { 0 };
		void *obj;

		errno = 0;
		rxb_test_fail_alloc_after = k;
		obj = make(arg, &err);
		if (obj != NULL) {
			CHECK(rxb_test_fail_alloc_after != 0); /* the k-th never came */
			rxb_test_fail_alloc_after = 0;
			destroy(obj);
			CHECK(k > 1);
			return (unsigned)(k - 1);
		}
		if (rxb_test_fail_alloc_after != 0 || errno != ENOMEM) {
			fprintf(stderr,
				"%s: allocation %lu: failed for another reason: %d \"%s\"\n", what,
				k, err.code, err.msg);
			check_failures_in_test++;
			rxb_test_fail_alloc_after = 0;
			return 0;
		}
		CHECK_NOMEM(err);
	}
	CHECK(0);
	return 0;
}

static void *make_privring(void *arg, struct rxb_err *err)
{
	return rxb_privring_create(arg, err);
}

static void destroy_privring(void *p)
{
	rxb_privring_destroy(p);
}

static void *make_shring(void *arg, struct rxb_err *err)
{
	return rxb_shring_create(arg, err);
}

static void destroy_shring(void *p)
{
	rxb_shring_destroy(p);
}

static void *make_bisect(void *arg, struct rxb_err *err)
{
	return rxb_bisect_create(arg, err);
}

static void destroy_bisect(void *p)
{
	rxb_bisect_destroy(p);
}

static void *make_spool(void *arg, struct rxb_err *err)
{
	return rxb_spool_create(arg, err);
}

static void destroy_spool(void *p)
{
	rxb_spool_destroy(p);
}

static void *make_pool(void *arg, struct rxb_err *err)
{
	return rxb_pool_create(arg, err);
}

static void destroy_pool(void *p)
{
	rxb_pool_destroy(p);
}

struct iface_arg {
	struct rxb_iface_config cfg;
	struct test_pool *tp;
};

static void *make_iface(void *arg, struct rxb_err *err)
{
	struct iface_arg *a = arg;
	struct rxb_iface *i = rxb_iface_create(&a->cfg, a->tp->alloc, err);

	if (i == NULL) /* failed before posting anything, or gave it back */
		CHECK_EQ(rxb_pool_free_count(a->tp->pool), a->tp->pool->cfg.n_bufs);
	return i;
}

static void destroy_iface(void *p)
{
	rxb_iface_destroy(p);
}

static void *make_reta(void *arg, struct rxb_err *err)
{
	struct rxb_reta *r = arg;
	int rc = rxb_reta_init(r, 128, 4, err);

	return rc == 0 ? r : rxb_fail_null(rc);
}

static void destroy_reta(void *p)
{
	rxb_reta_free(p);
}

static void test_designs_out_of_memory(void)
{
	struct rxb_privring_config pc = { .n_queues = 3, .ring_size = 64 };
	struct rxb_shring_config arr = { .n_cores = 4, .share_degree = 2, .ring_size = 64 };
	struct rxb_shring_config list = {
		.n_cores = 4, .share_degree = 2, .ring_size = 64, .list = true
	};
	struct rxb_shring_config batch = {
		.n_cores = 4, .share_degree = 2, .ring_size = 64, .list = true, .batch = 4
	};
	static const uint32_t s0[2] = { 0, 1 }, s1[2] = { 1, 2 }, s2[1] = { 2 };
	static const uint32_t *const assoc[3] = { s0, s1, s2 };
	static const uint32_t len[3] = { 2, 2, 1 };
	struct rxb_bisect_config bc = { .n_ax = 3,
					.n_bx = 3,
					.ax_size = 64,
					.bx_size = 256,
					.assoc = assoc,
					.assoc_len = len,
					.coalesce = true };
	struct rxb_spool_config spp = { .n_ports = 3, .mode = RXB_SPOOL_SPP, .low = 8, .high = 64 };
	struct rxb_pool_config pool = rxb_pool_config_default();
	struct rxb_reta reta;

	/* privring: the queues, then per queue an Rx ring and a CR */
	CHECK(every_allocation_fails("privring", make_privring, destroy_privring, &pc) >=
	      2 + 2 * 3);
	CHECK(every_allocation_fails("shring", make_shring, destroy_shring, &arr) >= 3 + 2 * 3);
	CHECK(every_allocation_fails("shring_list", make_shring, destroy_shring, &list) >=
	      3 + 2 * 3);
	CHECK(every_allocation_fails("shring_list batched", make_shring, destroy_shring, &batch) >=
	      3 + 2 * 4);
	CHECK(every_allocation_fails("rxbisect", make_bisect, destroy_bisect, &bc) >= 3 + 6 + 12);
	CHECK(every_allocation_fails("spool", make_spool, destroy_spool, &spp) >= 2 + 2 + 2 * 3);
	pool.n_cores = 3;
	CHECK(every_allocation_fails("pool", make_pool, destroy_pool, &pool) >= 5);
	CHECK(every_allocation_fails("reta", make_reta, destroy_reta, &reta) == 1);
}

/* Every design through the generic interface: its own allocations and the
 * design's, with the pool made beforehand; a failed creation leaves every
 * buffer in the pool. */
static void test_iface_out_of_memory(void)
{
	static const struct rxb_iface_config cfgs[] = {
		{ .arch = RXB_ARCH_PRIVRING, .rx_size = 64 },
		{ .arch = RXB_ARCH_SMALL_PRIVRING },
		{ .arch = RXB_ARCH_SHRING, .rx_size = 64, .share_degree = 2 },
		{ .arch = RXB_ARCH_SHRING_LIST,
		  .rx_size = 64,
		  .share_degree = 2,
		  .rxlist_slots = 2 },
		{ .arch = RXB_ARCH_DYN_SHRING, .rx_size = 64, .share_degree = 2 },
		{ .arch = RXB_ARCH_RXBISECT, .ax_size = 64, .bx_size = 256, .n_groups = 2 },
		{ .arch = RXB_ARCH_SPOOL,
		  .spool = { .n_ports = 6, .mode = RXB_SPOOL_SPP, .low = 8, .high = 64 } },
	};

	for (size_t k = 0; k < N_OF(cfgs); k++) {
		struct test_pool tp;
		struct iface_arg a = { cfgs[k], &tp };

		a.cfg.n_cores = 4;
		test_pool_init(&tp, 4096, 4);
		CHECK(every_allocation_fails(rxb_arch_name[cfgs[k].arch], make_iface, destroy_iface,
					     &a) >= 4);
		test_pool_fini(&tp);
	}
}

/* Checks allocate too (their lists): out of memory is reported, not a
 * false "invariant broken" or a silent pass. */
static void test_check_out_of_memory(void)
{
	struct test_pool tp;
	struct rxb_err err = { 0 };
	struct rxb_iface_config c = {
		.arch = RXB_ARCH_SHRING, .n_cores = 4, .rx_size = 64, .share_degree = 2
	};
	struct rxb_iface *i;

	test_pool_init(&tp, 4096, 4);
	i = rxb_iface_create(&c, tp.alloc, &err);
	CHECK(i != NULL);
	for (unsigned long k = 1; i != NULL; k++) {
		int rc;

		memset(&err, 0, sizeof(err));
		rxb_test_fail_alloc_after = k;
		rc = rxb_iface_check(i, tp.pool, &err);
		if (rc == 0) {
			rxb_test_fail_alloc_after = 0;
			CHECK(k > 1);
			break;
		}
		CHECK_EQ(rc, -ENOMEM);
		CHECK_NOMEM(err);
		memset(&err, 0, sizeof(err));
		rxb_test_fail_alloc_after = k;
		CHECK_EQ(rxb_pool_check(tp.pool, &err), k == 1 ? -ENOMEM : 0);
		rxb_test_fail_alloc_after = 0;
		if (k == 1)
			CHECK_NOMEM(err);
	}
	rxb_iface_destroy(i);
	test_pool_fini(&tp);
}

/* --------------------------------------------------- broken invariants */

static void test_invariants(void)
{
	struct test_pool tp;
	struct rxb_err err = { 0 };
	struct rxb_iface_config c = {
		.arch = RXB_ARCH_RXBISECT, .n_cores = 4, .ax_size = 64, .bx_size = 256
	};
	struct rxb_rx_meta m = { .len = 64, .dest = 1 };
	struct rxb_delivery d;
	struct rxb_pkt pk[8];
	struct rxb_iface *i;
	struct rxb_dynctl dc;
	struct rxb_buflist l = { 0 };

	test_pool_init(&tp, 4096, 4);
	i = rxb_iface_create(&c, tp.alloc, &err);
	CHECK(i != NULL);
	for (int k = 0; k < 8; k++)
		rxb_iface_deliver(i, &m, &d);
	CHECK_EQ(rxb_iface_rx(i, 1, pk, 8, 0), 8);
	CHECK_EQ(rxb_iface_check(i, tp.pool, &err), 0);
	/* a buffer freed twice: the counts balance, but it is in the pool
	 * twice */
	rxb_iface_free(i, 1, &pk[0].buf, 1);
	rxb_iface_free(i, 1, &pk[0].buf, 1);
	CHECK_EQ(rxb_iface_check(i, tp.pool, &err), -RXB_E_INVARIANT);
	CHECK_ERR(err, -RXB_E_INVARIANT, "rxbisect: buffer", "in two places at once");
	/* a buffer counted out by a transmit path that never took it */
	rxb_iface_note_released(i, 1, 1);
	memset(&err, 0, sizeof(err));
	CHECK_EQ(rxb_iface_check(i, tp.pool, &err), -RXB_E_INVARIANT);
	CHECK_ERR(err, -RXB_E_INVARIANT, "buffer conservation", "the pool has 4096 buffers");
	rxb_iface_destroy(i);
	test_pool_fini(&tp);

	/* the buffer list the checkers share */
	CHECK_EQ(rxb_buflist_push(&l, 7, NULL), 0);
	CHECK_EQ(rxb_buflist_push(&l, 7, NULL), 0);
	CHECK_EQ(rxb_buflist_check_unique(&l, "test", &err), -RXB_E_INVARIANT);
	CHECK_ERR(err, -RXB_E_INVARIANT, "test: buffer 0x7", "two places");
	rxb_buflist_fini(&l);

	/* the dynamic shRing controller */
	CHECK_EQ(rxb_dynctl_init(&dc, NULL, RXB_DYN_PRIVATE, &err), 0);
	dc.n_high = 3;
	CHECK_EQ(rxb_dynctl_check(&dc, &err), -RXB_E_INVARIANT);
	CHECK_ERR(err, -RXB_E_INVARIANT, "dynctl: running counts high 3", NULL);

	/* the pool: a handle free twice */
	test_pool_init(&tp, 64, 1);
	tp.pool->shared.stack[0] = tp.pool->shared.stack[1];
	CHECK_EQ(rxb_pool_check(tp.pool, &err), -RXB_E_INVARIANT);
	CHECK_ERR(err, -RXB_E_INVARIANT, "pool: handle", "is free twice");
	test_pool_fini(&tp);
}

int main(void)
{
	RUN(test_privring_config);
	RUN(test_shring_config);
	RUN(test_bisect_config);
	RUN(test_spool_config);
	RUN(test_pool_config);
	RUN(test_dynctl_config);
	RUN(test_rss_config);
	RUN(test_iface_config);
	RUN(test_iface_enobufs);
	RUN(test_iface_enobufs_batched);
	RUN(test_designs_out_of_memory);
	RUN(test_iface_out_of_memory);
	RUN(test_check_out_of_memory);
	RUN(test_invariants);
	return check_summary();
}
