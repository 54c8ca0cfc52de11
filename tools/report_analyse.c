/*
 * report_analyse.c - what mtrace-report counts, in a streaming walk.
 *
 * The records are read in time order through lib/'s merge, never held:
 * memory is the live set (one entry per block allocated and not yet freed)
 * and one entry per distinct stack, so a trace far longer than memory can
 * be analysed.  Two walks: the first counts allocations, temporaries and
 * lifetimes, finds the moment of the highest live heap and, at its end,
 * the leaks; the second stops at that moment and attributes the blocks
 * live then.  Bytes are the bytes the program asked for.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "report.h"

struct block {
	uint64_t ptr;       /* 0: empty slot */
	uint64_t size;
	uint64_t ts;
	uint32_t site;
	uint32_t thread;
};

/* Open addressing with linear probing and backward-shift deletion. */
struct live {
	struct block *slot;
	size_t cap, n;      /* cap a power of two */
};

struct site_index {
	uint64_t *key;      /* stack + 1, 0 empty */
	uint32_t *val;
	size_t cap;
};

struct walk {
	const struct mt_trace *t;
	struct analysis *a;
	struct live live;
	struct site_index index;
	uint64_t *last_alloc; /* per thread: its latest block, for temporaries */
	uint64_t live_bytes;
	int counting;         /* first walk: count; second: only track the live set */
};

static inline size_t mix(uint64_t v, size_t cap)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdu;
	v ^= v >> 33;
	return (size_t)v & (cap - 1);
}

static int live_grow(struct live *l)
{
	size_t ncap = l->cap ? 2 * l->cap : 1024;
	struct block *n = calloc(ncap, sizeof *n);
	if (!n)
		return -1;
	for (size_t i = 0; i < l->cap; i++) {
		if (!l->slot[i].ptr)
			continue;
		size_t j = mix(l->slot[i].ptr, ncap);
		while (n[j].ptr)
			j = (j + 1) & (ncap - 1);
		n[j] = l->slot[i];
	}
	free(l->slot);
	l->slot = n;
	l->cap = ncap;
	return 0;
}

static struct block *live_find(struct live *l, uint64_t ptr)
{
	if (!l->cap)
		return NULL;
	for (size_t i = mix(ptr, l->cap);; i = (i + 1) & (l->cap - 1)) {
		if (l->slot[i].ptr == ptr)
			return &l->slot[i];
		if (!l->slot[i].ptr)
			return NULL;
	}
}

/* Inserts or replaces (a block the trace never saw freed). */
static int live_put(struct live *l, const struct block *b)
{
	if ((l->n + 1) * 4 > l->cap * 3 && live_grow(l))
		return -1;
	size_t i = mix(b->ptr, l->cap);
	while (l->slot[i].ptr && l->slot[i].ptr != b->ptr)
		i = (i + 1) & (l->cap - 1);
	l->n += !l->slot[i].ptr;
	l->slot[i] = *b;
	return 0;
}

static void live_remove(struct live *l, struct block *b)
{
	size_t i = (size_t)(b - l->slot), j = i;
	for (;;) {
		j = (j + 1) & (l->cap - 1);
		if (!l->slot[j].ptr)
			break;
		size_t home = mix(l->slot[j].ptr, l->cap);
		/* Move j back into the hole at i unless its home lies in (i, j]. */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			l->slot[i] = l->slot[j];
			i = j;
		}
	}
	l->slot[i].ptr = 0;
	l->n--;
}

/* The site of a stack number, added on first sight; UINT32_MAX when out of memory. */
static uint32_t site_of(struct walk *w, uint64_t stack)
{
	struct site_index *x = &w->index;
	struct analysis *a = w->a;
	if ((a->nsites + 1) * 2 > x->cap) {
		size_t ncap = x->cap ? 2 * x->cap : 256;
		uint64_t *k = calloc(ncap, sizeof *k);
		uint32_t *v = calloc(ncap, sizeof *v);
		struct site *s = realloc(a->sites, ncap * sizeof *s);
		if (!k || !v || !s) {
			free(k);
			free(v);
			if (s)
				a->sites = s;
			return UINT32_MAX;
		}
		a->sites = s;
		for (size_t i = 0; i < x->cap; i++) {
			if (!x->key[i])
				continue;
			size_t j = mix(x->key[i], ncap);
			while (k[j])
				j = (j + 1) & (ncap - 1);
			k[j] = x->key[i];
			v[j] = x->val[i];
		}
		free(x->key);
		free(x->val);
		x->key = k;
		x->val = v;
		x->cap = ncap;
	}
	size_t i = mix(stack + 1, x->cap);
	while (x->key[i] && x->key[i] != stack + 1)
		i = (i + 1) & (x->cap - 1);
	if (!x->key[i]) {
		x->key[i] = stack + 1;
		x->val[i] = (uint32_t)a->nsites;
		a->sites[a->nsites++] = (struct site){ .stack = stack };
	}
	return x->val[i];
}

static uint64_t ts_ns(const struct mt_trace *t, uint64_t ts)
{
	const struct mt_trace_info *in = mt_trace_get_info(t);
	uint64_t ticks = ts - in->start_ts;
	return (uint64_t)((unsigned __int128)ticks * 1000000000u / in->ts_freq);
}

static void release(struct walk *w, uint64_t ptr, size_t thread, uint64_t ts)
{
	struct block *b = live_find(&w->live, ptr);
	if (!b) {
		w->a->unknown_frees += w->counting;
		return;
	}
	w->live_bytes -= b->size;
	if (w->counting) {
		struct analysis *a = w->a;
		a->frees++;
		a->lifetime_hist[hist_bucket(ts_ns(w->t, ts) - ts_ns(w->t, b->ts))]++;
		if (b->thread == thread && w->last_alloc[thread] == ptr) {
			a->sites[b->site].temp_count++;
			a->sites[b->site].temp_bytes += b->size;
			a->temp_count++;
			a->temp_bytes += b->size;
		}
	}
	live_remove(&w->live, b);
}

/* One record; 0 or -1 when out of memory. */
static int step(struct walk *w, const struct mt_rec *r, size_t thread, uint64_t n)
{
	struct analysis *a = w->a;
	if (r->call == MT_CALL_EVENT)
		return 0;
	int frees_in = mt_call_has_in(r->call) && !(r->flags & MT_RF_NULL_IN);
	/* realloc that fails keeps the old block; realloc(p, 0) returning NULL freed it. */
	if (frees_in && (mt_call_allocates(r->call) ? !(r->flags & MT_RF_NULL_OUT) || !r->size : 1))
		release(w, r->ptr_in, thread, r->ts);
	if (!mt_call_allocates(r->call) || r->flags & MT_RF_NULL_OUT)
		return 0;
	uint64_t size = mt_rec_requested(r);
	uint32_t site = site_of(w, r->stack);
	if (site == UINT32_MAX)
		return -1;
	struct block b = { .ptr = r->ptr_out, .size = size, .ts = r->ts, .site = site,
			   .thread = (uint32_t)thread };
	struct block *old = live_find(&w->live, b.ptr);
	if (old)
		w->live_bytes -= old->size;
	if (live_put(&w->live, &b))
		return -1;
	w->live_bytes += size;
	w->last_alloc[thread] = b.ptr;
	if (!w->counting)
		return 0;
	a->allocs++;
	a->bytes += size;
	a->sites[site].allocs++;
	a->sites[site].bytes += size;
	a->size_hist[hist_bucket(size)]++;
	if (w->live_bytes > a->peak_bytes) {
		a->peak_bytes = w->live_bytes;
		a->peak_at = n;
		a->peak_ts = r->ts;
	}
	return 0;
}

/* Walks the records in time order, up to and including record number
 * `until` (counted from 1) of the merged stream. */
static int walk(struct walk *w, uint64_t until, struct mt_error *e)
{
	struct mt_trace_merge *m = mt_trace_merge_open(w->t);
	if (!m)
		return mt_error_set(e, mt_trace_path(w->t), "out of memory");
	struct mt_rec r;
	size_t thread;
	uint64_t recno, n = 0;
	int rc = 0;
	while (n < until && (rc = mt_trace_merge_next(m, &r, &thread, &recno, e)) == 1) {
		n++;
		if (r.stack && !mt_trace_stack_find(w->t, r.stack)) {
			w->a->unknown_stacks += w->counting;
			r.stack = 0;
		}
		if (step(w, &r, thread, n)) {
			rc = mt_error_set(e, mt_trace_path(w->t), "out of memory");
			break;
		}
	}
	mt_trace_merge_close(m);
	return rc < 0 ? -1 : 0;
}

static void reset_live(struct walk *w)
{
	free(w->live.slot);
	w->live = (struct live){ 0 };
	w->live_bytes = 0;
}

int analyse(const struct mt_trace *t, struct analysis *a, struct mt_error *e)
{
	memset(a, 0, sizeof *a);
	struct walk w = { .t = t, .a = a, .counting = 1 };
	w.last_alloc = calloc(mt_trace_threads(t) + 1, sizeof *w.last_alloc);
	int rc = -1;
	if (!w.last_alloc) {
		mt_error_set(e, mt_trace_path(t), "out of memory");
		goto out;
	}
	if (walk(&w, UINT64_MAX, e))
		goto out;
	for (size_t i = 0; i < w.live.cap; i++) {
		const struct block *b = &w.live.slot[i];
		if (!b->ptr)
			continue;
		a->sites[b->site].leak_count++;
		a->sites[b->site].leak_bytes += b->size;
		a->leak_count++;
		a->leak_bytes += b->size;
	}
	reset_live(&w);
	w.counting = 0;
	if (a->peak_at && walk(&w, a->peak_at, e))
		goto out;
	for (size_t i = 0; i < w.live.cap; i++) {
		const struct block *b = &w.live.slot[i];
		if (b->ptr) {
			a->peak_count++;
			a->sites[b->site].peak_count++;
			a->sites[b->site].peak_bytes += b->size;
		}
	}
	rc = 0;
out:
	reset_live(&w);
	free(w.last_alloc);
	free(w.index.key);
	free(w.index.val);
	return rc;
}

void analysis_free(struct analysis *a)
{
	free(a->sites);
	a->sites = NULL;
}
