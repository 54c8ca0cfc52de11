/*
 * heap.c - the running threads, ordered by their next record's timestamp.
 *
 * A binary min-heap of source thread numbers keyed by src.key (ties: lower
 * thread first, so conversion is deterministic).  The converter touches
 * only the top: after each record it re-keys the top and sifts it down,
 * which costs nothing while one thread runs ahead of the rest.
 */
#include "config.h"

#include "conv_internal.h"

static int before(const struct conv *c, uint32_t a, uint32_t b)
{
	uint64_t ka = c->src[a].key, kb = c->src[b].key;
	return ka < kb || (ka == kb && a < b);
}

static void sift_down(struct conv *c, size_t i)
{
	uint32_t *h = c->heap;
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < c->nheap && before(c, h[l], h[m]))
			m = l;
		if (l + 1 < c->nheap && before(c, h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		uint32_t t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

void heap_push(struct conv *c, uint32_t s)
{
	uint32_t *h = c->heap;
	size_t i = c->nheap++;
	h[i] = s;
	while (i && before(c, h[i], h[(i - 1) / 2])) {
		uint32_t t = h[i];
		h[i] = h[(i - 1) / 2];
		h[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

void heap_fix_top(struct conv *c)
{
	sift_down(c, 0);
}

void heap_pop(struct conv *c)
{
	c->heap[0] = c->heap[--c->nheap];
	sift_down(c, 0);
}
