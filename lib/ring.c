/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ring.h"

unsigned long rxb_test_fail_alloc_after;

/* The fault-injection hook: true when this allocation must fail. */
static int alloc_fails(void)
{
	if (__builtin_expect(rxb_test_fail_alloc_after == 0, 1))
		return 0;
	return --rxb_test_fail_alloc_after == 0;
}

void *rxb_zalloc_aligned(size_t size)
{
	void *p = NULL;

	size = (size + RXB_CACHE_LINE - 1) & ~(size_t)(RXB_CACHE_LINE - 1);
	if (size == 0 || alloc_fails() || posix_memalign(&p, RXB_CACHE_LINE, size) != 0)
		return NULL;
	memset(p, 0, size);
	return p;
}

void rxb_free_aligned(void *p)
{
	free(p);
}

void *rxb_malloc(size_t size)
{
	return alloc_fails() ? NULL : malloc(size);
}

void *rxb_calloc(size_t n, size_t size)
{
	return alloc_fails() ? NULL : calloc(n, size);
}

void *rxb_realloc(void *p, size_t size)
{
	return alloc_fails() ? NULL : realloc(p, size);
}

int rxb_err_nomem(struct rxb_err *err, size_t bytes, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	if (err == NULL)
		return -ENOMEM;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return rxb_err_fail(err, -ENOMEM, "out of memory: %s (%zu bytes)", what, bytes);
}

int rxb_descring_init(struct rxb_descring *r, uint32_t size, uint32_t prefetch, const char *what,
		      struct rxb_err *err)
{
	size_t bytes = sizeof(rxb_buf_t) * size;

	memset(r, 0, sizeof(*r));
	r->desc = rxb_zalloc_aligned(bytes);
	if (r->desc == NULL)
		return rxb_err_nomem(err, bytes, "%s of %u descriptors", what, size);
	for (uint32_t i = 0; i < size; i++)
		r->desc[i] = RXB_BUF_NONE;
	r->size = size;
	r->mask = size - 1;
	/* a NIC cannot prefetch more descriptors than the ring holds */
	r->nic.prefetch = prefetch == 0 ? 1 : prefetch < size ? prefetch : size;
	return 0;
}

void rxb_descring_fini(struct rxb_descring *r)
{
	rxb_free_aligned(r->desc);
	r->desc = NULL;
}

int rxb_cr_init(struct rxb_cr *cr, uint32_t size, size_t entry_size, const char *what,
		struct rxb_err *err)
{
	size_t bytes = entry_size * size;

	memset(cr, 0, sizeof(*cr));
	cr->ent = rxb_zalloc_aligned(bytes);
	if (cr->ent == NULL)
		return rxb_err_nomem(err, bytes, "%s of %u entries", what, size);
	cr->size = size;
	cr->mask = size - 1;
	cr->shift = (uint32_t)__builtin_ctz(size);
	return 0;
}

void rxb_cr_fini(struct rxb_cr *cr)
{
	rxb_free_aligned(cr->ent);
	cr->ent = NULL;
}

static int cmp_buf(const void *a, const void *b)
{
	rxb_buf_t x = *(const rxb_buf_t *)a, y = *(const rxb_buf_t *)b;

	return (x > y) - (x < y);
}

int rxb_buflist_push(struct rxb_buflist *l, rxb_buf_t b, struct rxb_err *err)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 1024;
		rxb_buf_t *v = rxb_realloc(l->v, cap * sizeof(*v));

		if (v == NULL)
			return rxb_err_nomem(err, cap * sizeof(*v), "census list of %zu buffers",
					     cap);
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = b;
	return 0;
}

void rxb_buflist_fini(struct rxb_buflist *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int rxb_buflist_check_unique(struct rxb_buflist *l, const char *what, struct rxb_err *err)
{
	if (l->n < 2)
		return 0; /* also: qsort(NULL, 0, ...) is undefined */
	qsort(l->v, l->n, sizeof(*l->v), cmp_buf);
	for (size_t i = 1; i < l->n; i++) {
		if (l->v[i] == l->v[i - 1])
			return rxb_err_fail(err, -RXB_E_INVARIANT,
					    "%s: buffer %#llx is in two places at once", what,
					    (unsigned long long)l->v[i]);
	}
	return 0;
}

#ifdef RXB_DEBUG
void rxb_debug_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: rxb invariant violated: %s\n", file, line, what);
	abort();
}
#endif
