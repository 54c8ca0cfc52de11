/*
 * report_map.c - see report_map.h.
 */
#include "config.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "report_map.h"

static inline uint64_t key_at(const struct u64map *m, size_t i)
{
	uint64_t k;
	memcpy(&k, m->slots + i * m->size, sizeof k);
	return k;
}

static inline size_t home(const struct u64map *m, uint64_t key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdu;
	key ^= key >> 33;
	return (size_t)key & (m->cap - 1);
}

void u64map_init(struct u64map *m, size_t entry_size)
{
	assert(entry_size >= sizeof(uint64_t));
	*m = (struct u64map){ .size = entry_size };
}

void u64map_free(struct u64map *m)
{
	free(m->slots);
	u64map_init(m, m->size);
}

void *u64map_slot(const struct u64map *m, size_t i)
{
	return i < m->cap && key_at(m, i) ? m->slots + i * m->size : NULL;
}

/* The slot of key, or the free slot where it would go. */
static size_t probe(const struct u64map *m, uint64_t key)
{
	size_t i = home(m, key);
	for (uint64_t k; (k = key_at(m, i)) && k != key; i = (i + 1) & (m->cap - 1))
		;
	return i;
}

void *u64map_find(const struct u64map *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	size_t i = probe(m, key);
	return key_at(m, i) ? m->slots + i * m->size : NULL;
}

void u64map_prefetch(const struct u64map *m, uint64_t key)
{
	if (!m->cap)
		return;
	const uint8_t *e = m->slots + home(m, key) * m->size;
	__builtin_prefetch(e);
	__builtin_prefetch(e + m->size - 1);
}

/* Zeroed slots; a table of many megabytes on huge pages where the kernel
 * gives them on request: a find in a table far larger than the caches
 * then costs a miss in the data cache, not also one in the TLB. */
static uint8_t *new_slots(size_t cap, size_t size)
{
	const size_t huge = 2 << 20;
	size_t bytes = cap * size;
	if (bytes < 4 * huge)
		return calloc(cap, size);
	bytes = (bytes + huge - 1) & ~(huge - 1);
	uint8_t *p = aligned_alloc(huge, bytes);
	if (p) {
		madvise(p, bytes, MADV_HUGEPAGE); /* a hint: without it, 4 KiB pages */
		memset(p, 0, bytes);
	}
	return p;
}

static int grow(struct u64map *m)
{
	struct u64map n = { .size = m->size, .cap = m->cap ? 2 * m->cap : 256, .n = m->n };
	if (!(n.slots = new_slots(n.cap, n.size)))
		return -1;
	for (size_t i = 0; i < m->cap; i++) {
		uint64_t k = key_at(m, i);
		if (k)
			memcpy(n.slots + probe(&n, k) * n.size, m->slots + i * m->size, m->size);
	}
	free(m->slots);
	*m = n;
	return 0;
}

void *u64map_add(struct u64map *m, uint64_t key, int *added)
{
	assert(key != 0);
	if ((m->n + 1) * 2 > m->cap && grow(m))
		return NULL;
	size_t i = probe(m, key);
	uint8_t *e = m->slots + i * m->size;
	*added = !key_at(m, i);
	if (*added) {
		memset(e, 0, m->size);
		memcpy(e, &key, sizeof key);
		m->n++;
	}
	return e;
}

void u64map_remove(struct u64map *m, void *entry)
{
	size_t hole = (size_t)((uint8_t *)entry - m->slots) / m->size;
	for (size_t j = (hole + 1) & (m->cap - 1); key_at(m, j); j = (j + 1) & (m->cap - 1)) {
		size_t h = home(m, key_at(m, j));
		/* j moves back into the hole unless its home lies in (hole, j]. */
		int stays = hole < j ? h > hole && h <= j : h > hole || h <= j;
		if (!stays) {
			memcpy(m->slots + hole * m->size, m->slots + j * m->size, m->size);
			hole = j;
		}
	}
	memset(m->slots + hole * m->size, 0, m->size);
	m->n--;
}
