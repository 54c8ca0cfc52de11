/*
 * trace_merge.c - every thread's records as one stream in timestamp order.
 *
 * A binary min-heap holds one cursor per thread with its next record, keyed
 * by (timestamp, thread): taking a record costs one decode and O(log threads)
 * comparisons, and memory is one entry per thread whatever the trace length.
 */
#include <stdlib.h>

#include "trace_internal.h"

struct merge_entry {
	struct mt_trace_cursor cur;
	struct mt_rec rec;
	uint64_t recno;
	size_t thread;
};

struct mt_trace_merge {
	struct merge_entry *heap;
	size_t n;
	int failed;            /* a cursor failed: report it on the next call */
	struct mt_error err;
};

static int before(const struct merge_entry *a, const struct merge_entry *b)
{
	return a->rec.ts != b->rec.ts ? a->rec.ts < b->rec.ts : a->thread < b->thread;
}

static void sift_down(struct mt_trace_merge *m, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, min = i;
		if (l < m->n && before(&m->heap[l], &m->heap[min]))
			min = l;
		if (r < m->n && before(&m->heap[r], &m->heap[min]))
			min = r;
		if (min == i)
			return;
		struct merge_entry tmp = m->heap[i];
		m->heap[i] = m->heap[min];
		m->heap[min] = tmp;
		i = min;
	}
}

/* Loads entry i's next record; drops it from the heap when its thread is done. */
static void advance(struct mt_trace_merge *m, size_t i)
{
	struct merge_entry *x = &m->heap[i];
	int rc = mt_trace_cursor_next(&x->cur, &x->rec, &x->recno, &m->err);
	if (rc < 0)
		m->failed = 1;
	if (rc <= 0)
		m->heap[i] = m->heap[--m->n];
}

struct mt_trace_merge *mt_trace_merge_open(const struct mt_trace *t)
{
	struct mt_trace_merge *m = calloc(1, sizeof *m);
	if (!m || !(m->heap = calloc(t->nthreads ? t->nthreads : 1, sizeof *m->heap))) {
		free(m);
		return NULL;
	}
	/* Each new entry is the last, so dropping an empty thread just
	 * shrinks the array again. */
	for (size_t i = 0; i < t->nthreads; i++) {
		struct merge_entry *x = &m->heap[m->n++];
		x->thread = i;
		mt_trace_cursor_init(&x->cur, t, i);
		advance(m, m->n - 1);
	}
	for (size_t i = m->n / 2; i-- > 0;)
		sift_down(m, i);
	return m;
}

int mt_trace_merge_next(struct mt_trace_merge *m, struct mt_rec *r, size_t *thread,
			uint64_t *recno, struct mt_error *e)
{
	if (m->failed) {
		if (e)
			*e = m->err;
		return -1;
	}
	if (m->n == 0)
		return 0;
	*r = m->heap[0].rec;
	*thread = m->heap[0].thread;
	*recno = m->heap[0].recno;
	advance(m, 0);
	sift_down(m, 0);
	return 1;
}

void mt_trace_merge_close(struct mt_trace_merge *m)
{
	if (!m)
		return;
	free(m->heap);
	free(m);
}
