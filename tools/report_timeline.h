/*
 * report_timeline.h - the inside of struct timeline, for report_timeline.c
 * which fills it and report_html.c which draws it.
 */
#ifndef MT_REPORT_TIMELINE_H
#define MT_REPORT_TIMELINE_H

#include "columns.h"
#include "trace.h"

/* Columns of every chart over time: about one per pixel of a wide page. */
#define TIMELINE_COLUMNS 1000
/* Threads shown one by one; the rest are summed as "other threads". */
#define TL_GROUPS 8
/* Allocator event kinds counted (enum mt_event, 0 unused). */
#define TL_EVENTS (MT_EV_DYN_THRESHOLDS + 1)

/* The series of the columns. */
enum {
	TL_BYTES, TL_BLOCKS, TL_CALLS, TL_ALLOC_BYTES,
	TL_EVENT,                        /* + event kind */
	TL_GROUP_BYTES = TL_EVENT + TL_EVENTS /* + group */
};
#define TL_GROUP_BLOCKS(ngroups) (TL_GROUP_BYTES + (ngroups))
#define TL_SERIES(ngroups) (TL_GROUP_BYTES + 2 * (ngroups))

struct timeline {
	const struct mt_trace *t;
	uint64_t start_ts;
	struct columns cols;        /* x: ticks since the trace's start */
	size_t ngroups;             /* at most TL_GROUPS */
	int other;                  /* the last group is "other threads" */
	uint32_t *group_of;         /* by thread index */
	uint32_t group_tid[TL_GROUPS];
	/* Unsigned: a trace may record sizes near 2^63 (a huge malloc that
	 * succeeded), whose sum must wrap, not overflow. */
	uint64_t bytes, group_bytes[TL_GROUPS];
	int64_t blocks, group_blocks[TL_GROUPS];
};

#endif
