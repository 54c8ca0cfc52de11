/*
 * heap.c - the running and held threads, ordered by their next record's
 * timestamp (a held thread's by its deadline).
 *
 * A binary min-heap of source thread numbers keyed by src.key (ties: lower
 * thread first, so conversion is deterministic).  The converter mostly
 * touches the top: it re-keys the top after each record but sifts it down
 * only once the key passes a child's (run() in convert.c), so a thread
 * that runs ahead of the rest costs a compare a record.  Each thread
 * knows its place (src.hpos), so a held thread woken early can move up.
 */
#include "config.h"

#include "conv_internal.h"

static int before(const struct conv *c, uint32_t a, uint32_t b)
{
	uint64_t ka = c->src[a].key, kb = c->src[b].key;
	return ka < kb || (ka == kb && a < b);
}

static void place(struct conv *c, size_t i, uint32_t s)
{
	c->heap[i] = s;
	c->src[s].hpos = i;
}

static void sift_down(struct conv *c, size_t i)
{
	uint32_t *h = c->heap, s = h[i];
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		uint32_t best = s;
		if (l < c->nheap && before(c, h[l], best))
			best = h[m = l];
		if (l + 1 < c->nheap && before(c, h[l + 1], best))
			best = h[m = l + 1];
		if (m == i)
			break;
		place(c, i, best);
		i = m;
	}
	place(c, i, s);
}

static void sift_up(struct conv *c, size_t i)
{
	uint32_t *h = c->heap, s = h[i];
	while (i && before(c, s, h[(i - 1) / 2])) {
		place(c, i, h[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	place(c, i, s);
}

void heap_push(struct conv *c, uint32_t s)
{
	c->heap[c->nheap] = s;
	sift_up(c, c->nheap++);
}

void heap_fix_top(struct conv *c)
{
	sift_down(c, 0);
}

void heap_pop(struct conv *c)
{
	c->src[c->heap[0]].hpos = NOT_IN_HEAP;
	if (--c->nheap) {
		c->heap[0] = c->heap[c->nheap];
		sift_down(c, 0);
	}
}

void heap_update(struct conv *c, uint32_t s)
{
	sift_up(c, c->src[s].hpos);
	sift_down(c, c->src[s].hpos);
}
