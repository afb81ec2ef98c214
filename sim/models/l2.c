/* SPDX-License-Identifier: BSD-3-Clause
 * The cores' L2 caches and their snoop filter: see l2.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cacheset.h"
#include "l2.h"

static inline struct sim_l2_set *set_at(const struct sim_l2 *l2, uint32_t id, uint64_t line)
{
	return &l2->set[(size_t)id * l2->nsets + sim_l2_set_of(l2, line)];
}

/* Way of `line` in set st, or -1. */
static inline int way_of(const struct sim_l2 *l2, const struct sim_l2_set *st, uint64_t line)
{
	uint32_t m = cs_match(st->sig, st->tag, 0, l2->way_bits & st->valid, line);

	return m ? __builtin_ctz(m) : -1;
}

/* ------------------------------------------------ the snoop filter */

static inline uint64_t dir_slot(const struct sim_l2 *l2, uint64_t line)
{
	return (line * 0x9e3779b97f4a7c15ull) >> (64 - l2->dir_bits);
}

/* The entry of `line`, or the empty slot where it would go. */
static inline struct sim_l2_dirent *dir_find(const struct sim_l2 *l2, uint64_t line)
{
	uint64_t i = dir_slot(l2, line);

	while (l2->dir[i].line != line && l2->dir[i].line != CS_TAG_NONE)
		i = (i + 1) & l2->dir_mask;
	return &l2->dir[i];
}

static void dir_add(struct sim_l2 *l2, uint64_t line, uint32_t id)
{
	struct sim_l2_dirent *e = dir_find(l2, line);

	if (e->line == CS_TAG_NONE) {
		e->line = line;
		e->mask = 0;
	}
	e->mask |= 1ull << (id & 63);
}

/* Remove the entry at slot i, shifting later entries of its probe run back
 * (linear probing without tombstones). */
static void dir_erase(struct sim_l2 *l2, uint64_t i)
{
	uint64_t j = i;

	for (;;) {
		uint64_t home;

		j = (j + 1) & l2->dir_mask;
		if (l2->dir[j].line == CS_TAG_NONE)
			break;
		home = dir_slot(l2, l2->dir[j].line);
		/* entry j may move to i when i lies on its run (home .. j) */
		if (((j - home) & l2->dir_mask) >= ((j - i) & l2->dir_mask)) {
			l2->dir[i] = l2->dir[j];
			i = j;
		}
	}
	l2->dir[i].line = CS_TAG_NONE;
	l2->dir[i].mask = 0;
}

/* Cache id no longer holds `line`: clear its bit, unless another cache of
 * the same residue mod 64 still holds it. */
/* Cache id no longer holds line; returns the line's directory mask left
 * (0: no cache holds it). */
static uint64_t dir_del(struct sim_l2 *l2, uint64_t line, uint32_t id)
{
	struct sim_l2_dirent *e = dir_find(l2, line);

	if (e->line == CS_TAG_NONE)
		return 0;
	for (uint32_t o = id & 63; o < l2->caches; o += 64)
		if (o != id && way_of(l2, set_at(l2, o, line), line) >= 0)
			return e->mask;
	e->mask &= ~(1ull << (id & 63));
	if (e->mask != 0)
		return e->mask;
	dir_erase(l2, (uint64_t)(e - l2->dir)); /* e may now hold another line's entry */
	return 0;
}

/* Directory mask m without cache id's own bit. With more than 64 caches,
 * bit id & 63 may stand for another cache too: kept (the caller's look
 * finds who). */
static uint64_t others_in(const struct sim_l2 *l2, uint64_t m, uint32_t id)
{
	if (id < 64 && l2->caches <= 64)
		m &= ~(1ull << id);
	return m;
}

uint64_t sim_l2_others(const struct sim_l2 *l2, uint64_t line, uint32_t id)
{
	return others_in(l2, dir_find(l2, line)->mask, id);
}

/* ------------------------------------------------------- the caches */

int sim_l2_lookup(struct sim_l2 *l2, uint32_t id, uint64_t line, int write)
{
	struct sim_l2_set *st = set_at(l2, id, line);
	int w = way_of(l2, st, line);

	if (w < 0)
		return 0;
	cs_touch(st->rank, 0, (uint32_t)w);
	st->dirty |= (uint32_t)(write != 0) << w;
	return 1;
}

void sim_l2_fill(struct sim_l2 *l2, uint32_t id, uint64_t line, uint8_t cls, int dirty,
		 struct sim_l2_victim *v)
{
	struct sim_l2_set *st = set_at(l2, id, line);
	uint32_t w = cs_victim(st->rank, st->valid, 0, l2->ways, l2->way_bits);

	v->valid = (uint8_t)(st->valid >> w & 1);
	v->shared = 0;
	if (v->valid) {
		v->line = st->tag[w];
		v->dirty = (uint8_t)(st->dirty >> w & 1);
		v->cls = st->cls[w];
		st->valid &= ~(1u << w); /* gone before the filter asks the others */
		v->shared = others_in(l2, dir_del(l2, v->line, id), id) != 0;
	}
	st->tag[w] = line;
	st->sig[w] = cs_sig(line);
	st->cls[w] = cls;
	st->valid |= 1u << w;
	st->dirty = (st->dirty & ~(1u << w)) | ((uint32_t)(dirty != 0) << w);
	cs_touch(st->rank, 0, w);
	dir_add(l2, line, id);
}

int sim_l2_invalidate_line(struct sim_l2 *l2, uint64_t line, uint32_t keep)
{
	struct sim_l2_dirent *e = dir_find(l2, line);
	uint64_t m = e->mask;
	int dirty = 0;

	if (e->line == CS_TAG_NONE)
		return 0;
	while (m) {
		uint32_t b = (uint32_t)__builtin_ctzll(m);

		m &= m - 1;
		for (uint32_t o = b; o < l2->caches; o += 64) {
			struct sim_l2_set *st;
			int w;

			if (o == keep)
				continue;
			st = set_at(l2, o, line);
			w = way_of(l2, st, line);
			if (w < 0)
				continue;
			dirty |= (int)(st->dirty >> w & 1);
			st->valid &= ~(1u << w);
			st->dirty &= ~(1u << w);
			st->tag[w] = CS_TAG_NONE;
		}
	}
	/* Only `keep` (if it held the line) is left (the loop changed no
	 * directory entry: e still points at the line's). */
	if (keep != SIM_L2_NONE && way_of(l2, set_at(l2, keep, line), line) >= 0)
		e->mask = 1ull << (keep & 63);
	else
		dir_erase(l2, (uint64_t)(e - l2->dir));
	return dirty;
}

void sim_l2_invalidate(struct sim_l2 *l2)
{
	size_t n = (size_t)l2->caches * l2->nsets;

	for (size_t i = 0; i < n; i++) {
		struct sim_l2_set *st = &l2->set[i];

		memset(st, 0, sizeof(*st));
		for (uint32_t w = 0; w < 16; w++) {
			st->rank[w] = w < l2->ways ? (uint8_t)w : CS_RANK_PAD;
			st->tag[w] = CS_TAG_NONE;
		}
	}
	for (uint64_t i = 0; i <= l2->dir_mask; i++) {
		l2->dir[i].line = CS_TAG_NONE;
		l2->dir[i].mask = 0;
	}
}

int sim_l2_init(struct sim_l2 *l2, const struct sim_l2_cfg *cfg, struct rxb_err *err)
{
	uint64_t sets, lines;

	memset(l2, 0, sizeof(*l2));
	if (cfg->ways < 1 || cfg->ways > SIM_L2_MAX_WAYS || cfg->caches < 1) {
		rxb_err_set(err, "l2: ways = %u, caches = %u: need 1..%u ways and a cache",
			    cfg->ways, cfg->caches, SIM_L2_MAX_WAYS);
		return -EINVAL;
	}
	sets = cfg->size_bytes / (64ull * cfg->ways);
	if (sets == 0 || (sets & (sets - 1)) || sets * 64 * cfg->ways != cfg->size_bytes) {
		rxb_err_set(
			err,
			"l2: %llu bytes of %u ways: need a power-of-two number of 64 B-line sets",
			(unsigned long long)cfg->size_bytes, cfg->ways);
		return -EINVAL;
	}
	l2->caches = cfg->caches;
	l2->ways = cfg->ways;
	l2->way_bits = (1u << cfg->ways) - 1;
	l2->sample_shift = cfg->sample_shift;
	l2->nsets = (uint32_t)(sets >> cfg->sample_shift ? sets >> cfg->sample_shift : 1);
	/* the filter: a power of two of at least twice the lines the caches hold */
	lines = (uint64_t)l2->caches * l2->nsets * l2->ways;
	l2->dir_bits = 1;
	while ((1ull << l2->dir_bits) < 2 * lines)
		l2->dir_bits++;
	l2->dir_mask = (1ull << l2->dir_bits) - 1;
	l2->set = aligned_alloc(64, (size_t)l2->caches * l2->nsets * sizeof(*l2->set));
	l2->dir = malloc((size_t)(l2->dir_mask + 1) * sizeof(*l2->dir));
	if (l2->set == NULL || l2->dir == NULL) {
		sim_l2_free(l2);
		rxb_err_set(err, "l2: out of memory");
		return -ENOMEM;
	}
	sim_l2_invalidate(l2);
	return 0;
}

void sim_l2_free(struct sim_l2 *l2)
{
	free(l2->set);
	free(l2->dir);
	l2->set = NULL;
	l2->dir = NULL;
}
