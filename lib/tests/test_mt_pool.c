/* SPDX-License-Identifier: BSD-3-Clause
 * Multi-thread stress of the buffer allocator (rxb/pool.h).
 *
 * N_THREADS threads, each playing its own pool core (the per-core API is
 * single-threaded by contract), pinned two to a CPU on CPUs 0 and 1 when
 * the machine lets us, so lock holders get preempted. Thread i allocates in
 * random bulks and passes most bulks to thread i+1 through an SPSC ring,
 * frees the rest itself; thread i+1 frees what it receives on its own core,
 * a cross-core free. Each thread also marks every buffer it holds in a
 * shared in-use table, so a buffer handed out twice at once is caught the
 * moment it happens. At the end: every buffer is free exactly once, every
 * received buffer counted as a cross-core free, and the counters balance.
 * Built under ThreadSanitizer by `make test`: it must be race-free.
 */
#define _GNU_SOURCE /* pthread_setaffinity_np, to oversubscribe two CPUs */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rxb/pool.h"

#define N_THREADS       4
#define N_BUFS          2048 /* fewer than the rings can hold: exhaustion happens */
#define CACHE_SIZE      64
#define RING_SIZE       1024u /* power of two */
#define MAX_BULK        64u
#define OBJS_PER_THREAD 1500000u

/* Single-producer single-consumer ring of handles. Indices run free and
 * wrap at 2^32; tail - head is right across the wrap because RING_SIZE
 * divides 2^32 and never more than RING_SIZE entries are outstanding. */
struct handoff {
	_Atomic uint32_t tail RXB_CACHE_ALIGNED; /* written by the producer */
	_Atomic uint32_t head RXB_CACHE_ALIGNED; /* written by the consumer */
	_Atomic int done RXB_CACHE_ALIGNED;      /* producer will push no more */
	rxb_buf_t slot[RING_SIZE] RXB_CACHE_ALIGNED;
};

struct worker {
	pthread_t tid;
	uint32_t core;
	struct rxb_pool *pool;
	struct handoff *out, *in;
	_Atomic unsigned char *in_use; /* N_BUFS flags, shared by all */
	/* Results, read by main after join. */
	uint64_t allocated, received, freed_local, get_refused, errors;
};

static uint32_t xorshift(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* Claim (1) or release (0) a buffer in the in-use table; 1 when its
 * previous state was the expected opposite. Relaxed: the pool and the
 * rings order every hand-over of a buffer, and the exchange alone is
 * enough to catch two holders (coherence of a single location). */
static int mark(struct worker *w, rxb_buf_t h, unsigned char to)
{
	if (h >= N_BUFS)
		return 0;
	return atomic_exchange_explicit(&w->in_use[h], to, memory_order_relaxed) != to;
}

static void free_bulk(struct worker *w, const rxb_buf_t *b, unsigned n)
{
	unsigned i;

	/* Release the marks before the buffers go back: once put, another
	 * core may allocate and mark them. */
	for (i = 0; i < n; i++)
		w->errors += !mark(w, b[i], 0);
	rxb_pool_put(w->pool, w->core, b, n);
}

/* Consume everything the predecessor has published, freeing it here in
 * random bulks. Returns how many were consumed. */
static unsigned drain(struct worker *w, uint32_t *rnd)
{
	/* Relaxed: only this thread writes head. */
	uint32_t head = atomic_load_explicit(&w->in->head, memory_order_relaxed);
	/* Acquire: pairs with the producer's release store of tail in
	 * produce(), so the slots up to tail are visible. */
	uint32_t tail = atomic_load_explicit(&w->in->tail, memory_order_acquire);
	unsigned total = tail - head;
	rxb_buf_t b[MAX_BULK];

	while (head != tail) {
		unsigned k = 1 + xorshift(rnd) % MAX_BULK, i;

		if (k > tail - head)
			k = tail - head;
		for (i = 0; i < k; i++)
			b[i] = w->in->slot[(head + i) & (RING_SIZE - 1)];
		head += k;
		/* Release: pairs with the producer's acquire load of head; the
		 * slots are read before the producer may overwrite them. */
		atomic_store_explicit(&w->in->head, head, memory_order_release);
		free_bulk(w, b, k);
		w->received += k;
	}
	return total;
}

/* Allocate one random bulk and pass it on (or, one time in eight, free it
 * here). Returns how many were allocated. */
static unsigned produce(struct worker *w, uint32_t *rnd)
{
	/* Relaxed: only this thread writes tail. */
	uint32_t tail = atomic_load_explicit(&w->out->tail, memory_order_relaxed);
	/* Acquire: pairs with the consumer's release store of head in
	 * drain(); slots below head have been read and may be reused. */
	uint32_t head = atomic_load_explicit(&w->out->head, memory_order_acquire);
	uint32_t r = xorshift(rnd);
	unsigned k = 1 + r % MAX_BULK, space = RING_SIZE - (tail - head), i, got;
	rxb_buf_t b[MAX_BULK];

	if (k > OBJS_PER_THREAD - w->allocated)
		k = (unsigned)(OBJS_PER_THREAD - w->allocated);
	if (k > space)
		k = space;
	if (k == 0)
		return 0;
	got = rxb_pool_get(w->pool, w->core, b, k);
	if (got == 0) {
		w->get_refused++;
		return 0;
	}
	w->errors += got != k;
	for (i = 0; i < got; i++)
		w->errors += !mark(w, b[i], 1);
	w->allocated += got;
	if ((r >> 28) == 0) {
		free_bulk(w, b, got);
		w->freed_local += got;
		return got;
	}
	for (i = 0; i < got; i++)
		w->out->slot[(tail + i) & (RING_SIZE - 1)] = b[i];
	/* Release: pairs with the consumer's acquire load of tail in drain(),
	 * publishing the slots (and, through them, the pool's owner[] store
	 * for each buffer, which the freeing core reads). */
	atomic_store_explicit(&w->out->tail, tail + got, memory_order_release);
	return got;
}

static void pin(uint32_t cpu)
{
#ifdef __linux__
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* Best effort: on a machine without CPU 1 the test still runs. */
	(void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
#else
	(void)cpu; /* no affinity API here: run unpinned */
#endif
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint32_t rnd = 0x9e3779b9u * (w->core + 1);
	int done_sent = 0;

	pin(w->core % 2);
	for (;;) {
		unsigned progress = drain(w, &rnd);

		if (w->allocated < OBJS_PER_THREAD) {
			progress += produce(w, &rnd);
		} else if (!done_sent) {
			/* Release: pairs with the consumer's acquire load of
			 * done; every tail store came before it. */
			atomic_store_explicit(&w->out->done, 1, memory_order_release);
			done_sent = 1;
		} else if (atomic_load_explicit(&w->in->done, memory_order_acquire) &&
			   /* Acquire, and after done: the final tail. */
			   atomic_load_explicit(&w->in->tail, memory_order_acquire) ==
				   atomic_load_explicit(&w->in->head, memory_order_relaxed)) {
			break;
		}
		if (progress == 0)
			sched_yield();
	}
	return NULL;
}

static void test_mt_pool(void)
{
	struct rxb_pool_config cfg = rxb_pool_config_default();
	struct rxb_err err = { 0 };
	struct rxb_pool_core_stats sum, one;
	struct handoff *rings;
	struct worker w[N_THREADS];
	_Atomic unsigned char *in_use;
	struct rxb_pool *pool;
	uint64_t allocated = 0, received = 0, local = 0, refused = 0, errors = 0;
	uint64_t cached = 0, cross = 0;
	unsigned i;
	int rc;

	cfg.n_bufs = N_BUFS;
	cfg.n_cores = N_THREADS;
	cfg.cache_size = CACHE_SIZE;
	pool = rxb_pool_create(&cfg, &err);
	CHECK(pool != NULL);
	rings = aligned_alloc(RXB_CACHE_LINE, N_THREADS * sizeof(*rings));
	in_use = malloc(N_BUFS * sizeof(*in_use));
	CHECK(rings != NULL && in_use != NULL);
	if (pool == NULL || rings == NULL || in_use == NULL) {
		fprintf(stderr, "setup: %s\n", err.msg);
		return;
	}
	for (i = 0; i < N_BUFS; i++)
		atomic_init(&in_use[i], 0);
	for (i = 0; i < N_THREADS; i++) {
		atomic_init(&rings[i].tail, 0);
		atomic_init(&rings[i].head, 0);
		atomic_init(&rings[i].done, 0);
	}
	for (i = 0; i < N_THREADS; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].core = i;
		w[i].pool = pool;
		w[i].out = &rings[i];
		w[i].in = &rings[(i + N_THREADS - 1) % N_THREADS];
		w[i].in_use = in_use;
	}
	for (i = 0; i < N_THREADS; i++) {
		rc = pthread_create(&w[i].tid, NULL, worker_main, &w[i]);
		CHECK_EQ(rc, 0);
	}
	for (i = 0; i < N_THREADS; i++)
		pthread_join(w[i].tid, NULL);

	/* Quiescent now: the joins order every thread's work before this. */
	for (i = 0; i < N_THREADS; i++) {
		allocated += w[i].allocated;
		received += w[i].received;
		local += w[i].freed_local;
		refused += w[i].get_refused;
		errors += w[i].errors;
		cached += rxb_pool_cached(pool, i);
		CHECK_EQ(rxb_pool_stats(pool, i, &one), 0);
		/* Exactly what came through the ring is cross-core here. */
		CHECK_EQ(one.cross_core_free, w[i].received);
		cross += one.cross_core_free;
	}
	printf("     %llu objects, %llu handed across, %llu gets refused (pool empty)\n",
	       (unsigned long long)allocated, (unsigned long long)received,
	       (unsigned long long)refused);
	CHECK_EQ(errors, 0);
	CHECK_EQ(allocated, (uint64_t)N_THREADS * OBJS_PER_THREAD);
	CHECK_EQ(received + local, allocated);
	CHECK(cross > 0);

	CHECK_EQ(rxb_pool_free_count(pool), N_BUFS);
	rc = rxb_pool_check(pool, &err);
	if (rc)
		fprintf(stderr, "rxb_pool_check: %s\n", err.msg);
	CHECK_EQ(rc, 0);
	for (i = 0; i < N_BUFS; i++)
		CHECK_EQ(atomic_load_explicit(&in_use[i], memory_order_relaxed), 0);

	CHECK_EQ(rxb_pool_stats(pool, RXB_NONE, &sum), 0);
	CHECK_EQ(sum.alloc, allocated);
	CHECK_EQ(sum.free, allocated);
	CHECK_EQ(sum.cross_core_free, cross);
	CHECK_EQ(sum.empty, refused);
	CHECK_EQ(sum.invalid_free, 0);
	CHECK_EQ(sum.objs_from_shared - sum.objs_to_shared, cached);
	CHECK(sum.alloc_refill > 0 && sum.free_flush > 0);

	rxb_pool_destroy(pool);
	free(rings);
	free(in_use);
}

int main(void)
{
	RUN(test_mt_pool);
	return check_summary();
}
