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

/* Pages read are dropped this many bytes at a time, not a window at a
 * time: each drop is a TLB shootdown, an interrupt to every other
 * processor the reader has run on (trace_reader.c, trace_cursor.c).  A
 * reader holds at most this much more of the file. */
#define MT_DROP_BATCH (1u << 20)

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
	/* The stack table and module map (stack_table.c). */
	struct mt_trace_stack *stacks, **stacks_by_id;
	size_t nstacks, stacks_cap;
	uint64_t *frames;
	size_t nframes, frames_cap;
	struct mt_trace_module *modules;
	size_t nmodules, modules_cap;
	uint32_t generation;    /* module map in effect while reading the table */
	int generation_seen, table_cut;
	/* Pages of windows read and not yet dropped, [drop_from, drop_to):
	 * the cursors' reading state (trace_cursor.c), the one part of a
	 * trace they change, so one trace is read from one thread at a time. */
	uint64_t drop_from, drop_to;
};

/* How t's records are coded (mt_codec_init's mode): version 2 stamps
 * every record, version 3 only some; up to version 3 fields are varints,
 * version 4 packs them. */
static inline unsigned mt_trace_codec_mode(const struct mt_trace *t)
{
	return (mt_trace_has_stacks(t) ? MT_CODEC_STACKS : 0) |
	       (t->info.version < 3 ? MT_CODEC_TS_EACH : 0) |
	       (t->info.version < 4 ? MT_CODEC_VARINTS : 0);
}

/* Reads the table window at off (the file ends at limit) into t; *size is
 * the window's size.  0, or -1 with e set. */
int mt_stack_table_window(struct mt_trace *t, uint64_t off, uint64_t limit, uint64_t *size,
			  struct mt_error *e);
/* Once every table window is read: the lookup index.  0 or -1 with e set. */
int mt_stack_table_finish(struct mt_trace *t, struct mt_error *e);
void mt_stack_table_free(struct mt_trace *t);

#endif
