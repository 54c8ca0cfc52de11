/*
 * report.h - the parts of mtrace-report, shared between its files: the
 * streaming analysis (report_analyse.c), the symboliser (report_symbols.c)
 * and the printers (report_print.c).
 */
#ifndef MT_REPORT_H
#define MT_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "trace.h"

/* What one stack (or, without stacks, the one unknown site) did. */
struct site {
	uint64_t stack;               /* stack table number, 0 unknown */
	uint64_t allocs, bytes;       /* every allocating call */
	uint64_t leak_count, leak_bytes;
	uint64_t peak_count, peak_bytes;
	uint64_t temp_count, temp_bytes;
};

#define HIST_BUCKETS 65

struct analysis {
	struct site *sites;
	size_t nsites;
	uint64_t allocs, frees, bytes;
	uint64_t leak_count, leak_bytes;
	uint64_t peak_bytes, peak_count; /* live requested bytes and blocks at the peak */
	uint64_t peak_at, peak_ts;    /* its record, counted from 1 in time order, and time */
	uint64_t temp_count, temp_bytes;
	uint64_t unknown_frees;       /* frees of blocks never seen allocated */
	uint64_t unknown_stacks;      /* records naming a stack the table lacks */
	uint64_t size_hist[HIST_BUCKETS];     /* log2 of bytes requested */
	uint64_t lifetime_hist[HIST_BUCKETS]; /* log2 of ns from allocation to free */
};

/* Walks the trace twice (all of it, then up to the peak).  Memory: the
 * live set and one entry per stack.  0, or -1 with e set. */
int analyse(const struct mt_trace *t, struct analysis *a, struct mt_error *e);
void analysis_free(struct analysis *a);

/* ---- --html's charts (report_timeline.c, report_html.c) ---- */

/* Live heap and blocks per thread, allocation rate and allocator events
 * over time, reduced to a fixed number of columns as the first walk goes:
 * memory independent of the trace's length. */
struct timeline;
struct timeline *timeline_open(const struct mt_trace *t);
void timeline_close(struct timeline *tl);
void timeline_alloc(struct timeline *tl, uint64_t ts, size_t thread, uint64_t size);
/* thread: the one that allocated the block, whose live heap it was in. */
void timeline_free(struct timeline *tl, uint64_t ts, size_t thread, uint64_t size);
void timeline_event(struct timeline *tl, uint64_t ts, unsigned event);
/* analyse, feeding tl (when not NULL) with every change of the first walk. */
int analyse_timeline(const struct mt_trace *t, struct analysis *a, struct timeline *tl,
		     struct mt_error *e);
/* A timestamp of t as nanoseconds since the recording started. */
static inline uint64_t trace_ns(const struct mt_trace_info *in, uint64_t ts)
{
	uint64_t ticks = ts - in->start_ts;
	if (in->ts_freq == 1000000000u)
		return ticks;
	return (uint64_t)((unsigned __int128)ticks * 1000000000u / in->ts_freq);
}

/* log2 bucket of v: 0 for 0, else 1 + floor(log2 v). */
static inline unsigned hist_bucket(uint64_t v)
{
	return v ? 64 - (unsigned)__builtin_clzll(v) : 0;
}

/* ---- symbols ---- */

struct frame {
	const char *function;  /* NULL when unknown */
	const char *file;      /* NULL when unknown */
	int line;              /* 0 when unknown */
	const char *module;    /* NULL when no module holds the address */
	uint64_t address;
};

struct symbols;
/* Symbolises the stacks of t with elfutils (libdwfl): the modules are
 * found by path, else by build-id, with separate debuginfo found the
 * standard way (.gnu_debuglink, /usr/lib/debug/.build-id, debuginfod when
 * DEBUGINFOD_URLS is set).  Missing files leave addresses and module names. */
struct symbols *symbols_open(const struct mt_trace *t);
void symbols_close(struct symbols *s);
/* The frames of a stack, allocating call outwards, inlined calls expanded;
 * valid until symbols_close.  *n is 0 for stack 0 or a stack not in the
 * table. */
const struct frame *symbols_stack(struct symbols *s, uint64_t stack, size_t *n);

/* ---- output ---- */

enum section { SEC_ALLOCATIONS = 1, SEC_LEAKS = 2, SEC_PEAK = 4, SEC_TEMPORARY = 8, SEC_ALL = 15 };

struct report_opts {
	unsigned sections;     /* SEC_* */
	size_t top;            /* entries per ranking, 0 for all */
	int json, folded;
	int weight_count;      /* --folded weighs by calls, not bytes */
	const char *diff_base; /* --diff=BASE */
	FILE *html;            /* --html's page, or NULL */
	const char *export_dir; /* --export=DIR */
	const char *host;      /* --host=NAME, NULL for gethostname() */
	uint64_t part_rows;    /* --part-rows=N */
	unsigned jobs;         /* --jobs=N */
};

void report_text(FILE *out, const struct mt_trace *t, struct analysis *a, struct symbols *s,
		 const struct report_opts *o);
void report_json(FILE *out, const struct mt_trace *t, struct analysis *a, struct symbols *s,
		 const struct report_opts *o);
void report_folded(FILE *out, struct analysis *a, struct symbols *s, const struct report_opts *o);
/* --diff: the sites of t[0] (base) and t[1] (new) whose allocations, leaks
 * and peak changed most; 0, or -1 when out of memory. */
int report_diff(FILE *out, const struct mt_trace *t[2], struct analysis *a[2], struct symbols *s[2],
		const struct report_opts *o);
/* The sites with a share of a section (SEC_LEAKS, SEC_PEAK...) ranked by
 * bytes as the text shows them, best first; *n of them; free() it. */
const struct site **report_ranked(const struct analysis *a, unsigned section, size_t *n);
/* One trace's section of the --html page: charts, flame graphs, tables. */
void report_html(FILE *out, const struct mt_trace *t, struct analysis *a, struct symbols *s,
		 struct timeline *tl, const struct report_opts *o);

/* --export: the traces as partitioned gzip CSV tables under o->export_dir
 * (report_export.c); the exit status. */
int export_traces(char *const *paths, int n, const struct report_opts *o);

#endif
