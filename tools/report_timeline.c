/*
 * report_timeline.c - the time series of mtrace-report --html: live bytes
 * and blocks (in total and per thread), allocations and allocator events,
 * each reduced on the fly to TIMELINE_COLUMNS min/max columns (columns.h).
 *
 * Per-thread series would grow with the threads, so the threads with the
 * most records (known from the window index before the walk) get one each
 * and the rest share "other threads".  A block counts against the thread
 * that allocated it until it is freed, by whichever thread.
 */
#include "config.h"

#include <stdlib.h>

#include "report.h"
#include "report_timeline.h"

static int by_records(const void *a, const void *b, void *t)
{
	uint64_t x = mt_trace_thread_records(t, *(const size_t *)a);
	uint64_t y = mt_trace_thread_records(t, *(const size_t *)b);
	return x > y ? -1 : x < y;
}

struct timeline *timeline_open(const struct mt_trace *t)
{
	size_t nthreads = mt_trace_threads(t);
	struct timeline *tl = calloc(1, sizeof *tl);
	size_t *order = calloc(nthreads + 1, sizeof *order);
	if (!tl || !order)
		goto fail;
	tl->t = t;
	tl->start_ts = mt_trace_get_info(t)->start_ts;
	tl->group_of = calloc(nthreads + 1, sizeof *tl->group_of);
	if (!tl->group_of)
		goto fail;
	for (size_t i = 0; i < nthreads; i++)
		order[i] = i;
	qsort_r(order, nthreads, sizeof *order, by_records, (void *)t);
	tl->ngroups = nthreads <= TL_GROUPS ? nthreads : TL_GROUPS;
	tl->other = nthreads > TL_GROUPS;
	for (size_t i = 0; i < nthreads; i++) {
		size_t g = i < tl->ngroups - tl->other ? i : tl->ngroups - 1;
		tl->group_of[order[i]] = (uint32_t)g;
		if (i < tl->ngroups - tl->other)
			tl->group_tid[g] = mt_trace_thread_tid(t, order[i]);
	}
	if (!tl->ngroups)
		tl->ngroups = 1;
	if (columns_init(&tl->cols, TIMELINE_COLUMNS, TL_SERIES(tl->ngroups)))
		goto fail;
	free(order);
	return tl;
fail:
	free(order);
	timeline_close(tl);
	return NULL;
}

void timeline_close(struct timeline *tl)
{
	if (!tl)
		return;
	columns_free(&tl->cols);
	free(tl->group_of);
	free(tl);
}

static uint64_t x_of(const struct timeline *tl, uint64_t ts)
{
	return ts > tl->start_ts ? ts - tl->start_ts : 0;
}

/* A byte level as the columns hold it: a live heap past 2^63 bytes, which
 * only absurd recorded sizes make, is drawn at the top. */
static int64_t byte_level(uint64_t bytes)
{
	return bytes > INT64_MAX ? INT64_MAX : (int64_t)bytes;
}

/* The levels after a change of group g's, in column col. */
static void levels(struct timeline *tl, size_t col, uint32_t g)
{
	columns_level(&tl->cols, col, TL_BYTES, byte_level(tl->bytes));
	columns_level(&tl->cols, col, TL_BLOCKS, tl->blocks);
	columns_level(&tl->cols, col, TL_GROUP_BYTES + g, byte_level(tl->group_bytes[g]));
	columns_level(&tl->cols, col, TL_GROUP_BLOCKS(tl->ngroups) + g, tl->group_blocks[g]);
}

void timeline_alloc(struct timeline *tl, uint64_t ts, size_t thread, uint64_t size)
{
	size_t col = columns_at(&tl->cols, x_of(tl, ts));
	uint32_t g = tl->group_of[thread];
	tl->bytes += size;
	tl->blocks++;
	tl->group_bytes[g] += size;
	tl->group_blocks[g]++;
	columns_add(&tl->cols, col, TL_CALLS, 1);
	columns_add(&tl->cols, col, TL_ALLOC_BYTES, size);
	levels(tl, col, g);
}

void timeline_free(struct timeline *tl, uint64_t ts, size_t thread, uint64_t size)
{
	size_t col = columns_at(&tl->cols, x_of(tl, ts));
	uint32_t g = tl->group_of[thread];
	tl->bytes -= size;
	tl->blocks--;
	tl->group_bytes[g] -= size;
	tl->group_blocks[g]--;
	levels(tl, col, g);
}

void timeline_event(struct timeline *tl, uint64_t ts, unsigned event)
{
	if (event < TL_EVENTS)
		columns_add(&tl->cols, columns_at(&tl->cols, x_of(tl, ts)), TL_EVENT + event, 1);
}
