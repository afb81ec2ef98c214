/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ring.h"

void *rxb_zalloc_aligned(size_t size)
{
	void *p = NULL;

	size = (size + RXB_CACHE_LINE - 1) & ~(size_t)(RXB_CACHE_LINE - 1);
	if (size == 0 || posix_memalign(&p, RXB_CACHE_LINE, size) != 0)
		return NULL;
	memset(p, 0, size);
	return p;
}

void rxb_free_aligned(void *p)
{
	free(p);
}

int rxb_descring_init(struct rxb_descring *r, uint32_t size, uint32_t prefetch)
{
	memset(r, 0, sizeof(*r));
	r->desc = rxb_zalloc_aligned(sizeof(rxb_buf_t) * size);
	if (r->desc == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < size; i++)
		r->desc[i] = RXB_BUF_NONE;
	r->size = size;
	r->mask = size - 1;
	r->nic.prefetch = prefetch ? prefetch : 1;
	return 0;
}

void rxb_descring_fini(struct rxb_descring *r)
{
	rxb_free_aligned(r->desc);
	r->desc = NULL;
}

int rxb_cr_init(struct rxb_cr *cr, uint32_t size, size_t entry_size)
{
	memset(cr, 0, sizeof(*cr));
	cr->ent = rxb_zalloc_aligned(entry_size * size);
	if (cr->ent == NULL)
		return -ENOMEM;
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

int rxb_buflist_push(struct rxb_buflist *l, rxb_buf_t b)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 1024;
		rxb_buf_t *v = realloc(l->v, cap * sizeof(*v));

		if (v == NULL)
			return -ENOMEM;
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
