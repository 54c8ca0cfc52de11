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
#include "report_map.h"

struct block {
	uint64_t ptr;       /* the key */
	uint64_t size;
	uint64_t ts;
	uint32_t site;
	uint32_t thread;
};

struct site_key {
	uint64_t stack1;    /* the key: stack + 1 */
	uint32_t site;      /* index in analysis.sites */
};

struct walk {
	const struct mt_trace *t;
	struct analysis *a;
	struct u64map live;   /* struct block by address */
	struct u64map index;  /* struct site_key */
	size_t sites_cap;
	uint64_t *last_alloc; /* per thread: its latest block, for temporaries */
	uint64_t live_bytes;
	struct timeline *tl;  /* --html's charts, fed by the first walk; or NULL */
	int counting;         /* first walk: count; second: only track the live set */
};

/* The site of a stack number, added on first sight; UINT32_MAX when out of memory. */
static uint32_t site_of(struct walk *w, uint64_t stack)
{
	struct analysis *a = w->a;
	int added;
	struct site_key *k = u64map_add(&w->index, stack + 1, &added);
	if (!k)
		return UINT32_MAX;
	if (!added)
		return k->site;
	if (a->nsites == w->sites_cap) {
		size_t ncap = w->sites_cap ? 2 * w->sites_cap : 256;
		struct site *n = realloc(a->sites, ncap * sizeof *n);
		if (!n) {
			u64map_remove(&w->index, k);
			return UINT32_MAX;
		}
		a->sites = n;
		w->sites_cap = ncap;
	}
	k->site = (uint32_t)a->nsites;
	a->sites[a->nsites++] = (struct site){ .stack = stack };
	return k->site;
}

static void release(struct walk *w, uint64_t ptr, size_t thread, uint64_t ts)
{
	struct block *b = u64map_find(&w->live, ptr);
	if (!b) {
		w->a->unknown_frees += w->counting;
		return;
	}
	w->live_bytes -= b->size;
	if (w->counting && w->tl)
		timeline_free(w->tl, ts, b->thread, b->size);
	if (w->counting) {
		struct analysis *a = w->a;
		a->frees++;
		a->lifetime_hist[hist_bucket(trace_ns(mt_trace_get_info(w->t), ts) -
					       trace_ns(mt_trace_get_info(w->t), b->ts))]++;
		if (b->thread == thread && w->last_alloc[thread] == ptr) {
			a->sites[b->site].temp_count++;
			a->sites[b->site].temp_bytes += b->size;
			a->temp_count++;
			a->temp_bytes += b->size;
		}
	}
	u64map_remove(&w->live, b);
}

/* One record; 0 or -1 when out of memory. */
static int step(struct walk *w, const struct mt_rec *r, size_t thread, uint64_t n)
{
	struct analysis *a = w->a;
	if (r->call == MT_CALL_EVENT) {
		if (w->counting && w->tl)
			timeline_event(w->tl, r->ts, r->event);
		return 0;
	}
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
	int added;
	struct block *b = u64map_add(&w->live, r->ptr_out, &added);
	if (!b)
		return -1;
	if (!added) { /* a block the trace never saw freed */
		w->live_bytes -= b->size;
		if (w->counting && w->tl)
			timeline_free(w->tl, r->ts, b->thread, b->size);
	}
	*b = (struct block){ .ptr = r->ptr_out, .size = size, .ts = r->ts, .site = site,
			     .thread = (uint32_t)thread };
	w->live_bytes += size;
	w->last_alloc[thread] = r->ptr_out;
	if (!w->counting)
		return 0;
	if (w->tl)
		timeline_alloc(w->tl, r->ts, thread, size);
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
	u64map_free(&w->live);
	w->live_bytes = 0;
}

int analyse(const struct mt_trace *t, struct analysis *a, struct mt_error *e)
{
	return analyse_timeline(t, a, NULL, e);
}

int analyse_timeline(const struct mt_trace *t, struct analysis *a, struct timeline *tl,
		     struct mt_error *e)
{
	memset(a, 0, sizeof *a);
	struct walk w = { .t = t, .a = a, .tl = tl, .counting = 1 };
	u64map_init(&w.live, sizeof(struct block));
	u64map_init(&w.index, sizeof(struct site_key));
	w.last_alloc = calloc(mt_trace_threads(t) + 1, sizeof *w.last_alloc);
	int rc = -1;
	if (!w.last_alloc) {
		mt_error_set(e, mt_trace_path(t), "out of memory");
		goto out;
	}
	if (walk(&w, UINT64_MAX, e))
		goto out;
	for (size_t i = 0; i < w.live.cap; i++) {
		const struct block *b = u64map_slot(&w.live, i);
		if (!b)
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
		const struct block *b = u64map_slot(&w.live, i);
		if (b) {
			a->peak_count++;
			a->sites[b->site].peak_count++;
			a->sites[b->site].peak_bytes += b->size;
		}
	}
	rc = 0;
out:
	reset_live(&w);
	free(w.last_alloc);
	u64map_free(&w.index);
	return rc;
}

void analysis_free(struct analysis *a)
{
	free(a->sites);
	a->sites = NULL;
}
