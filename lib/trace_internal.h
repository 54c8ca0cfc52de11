/*
 * trace_internal.h - the reader's window index, shared by the files that
 * build it (trace_reader.c) and walk it (trace_cursor.c, trace_merge.c).
 *
 * Only the index lives in memory: one small entry per window and per thread,
 * never per record, so a reader's footprint does not grow with trace length.
 */
#ifndef MT_TRACE_INTERNAL_H
#define MT_TRACE_INTERNAL_H

#include "trace.h"

/* What the kernel maps around a page fault on a file (fault_around_bytes,
 * 64 KiB by default): reading one page of a window maps its neighbours'
 * pages too, and those stay resident unless dropped with it. */
#define MT_FAULT_AROUND (64u << 10)

struct mt_trace_window {
	uint64_t off;       /* file offset of the window header */
	uint64_t data_end;  /* file offset past the last complete record */
	uint64_t base_ts, base_mono, first_rec;
	uint64_t first_ts;  /* of its first record, base_ts if it has none */
	uint32_t tid, seq, size, flags;
	uint32_t count;     /* records: from the header if closed, else decoded */
	int checked;        /* count/used came from the header: verify on reading */
};

struct mt_trace_thread {
	uint32_t tid;
	size_t first_win, nwin; /* a run of mt_trace.wins */
	uint64_t records;
	uint64_t first_ts;      /* of its first record, for ordering threads */
};

struct mt_trace {
	char *path;             /* as given, "<stdin>" for "-" */
	const uint8_t *map;
	size_t len;
	struct mt_trace_info info;
	struct mt_trace_window *wins; /* grouped by thread, in sequence order */
	size_t nwins;
	struct mt_trace_thread *threads;
	size_t nthreads;
	char **warnings;        /* NULL-terminated */
	size_t nwarnings;
	int cut_warned;         /* truncation is reported once */
};

#endif
