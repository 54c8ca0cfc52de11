/*
 * trace.h - reading and writing recorder traces (see trace_format.h).
 *
 * The reader is the only code that walks trace files: mtrace-dump, trace2wl
 * and the tests all go through it.  It maps the file read-only (standard input
 * is first copied to an unlinked temporary file), indexes every window by
 * thread and sequence, and then hands out each thread's records in order.
 *
 * Damage it tolerates, with a warning: a file cut short (records up to the
 * cut are read), a window that was claimed but whose header was never written
 * (the recorder was killed: skipped), a window left open (the thread or the
 * process died: records are read up to the first zero head byte).  Damage it
 * refuses, with an error: not a trace, a newer format version, a window header
 * that is not zero and not valid, a record that does not decode.
 *
 * The writer builds traces for tests and for converters from other logs; it
 * produces exactly what the recorder would, window by window.
 */
#ifndef MT_TRACE_H
#define MT_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mt_error.h"
#include "trace_codec.h"

struct mt_trace_info {
	uint16_t version;
	uint8_t endian;     /* 1 little, 2 big */
	uint8_t ptr_size;
	uint8_t ts_source;  /* enum mt_ts_source */
	uint8_t allocator;  /* enum mt_allocator */
	uint32_t pid, ppid;
	uint32_t flags;     /* MT_FHF_* */
	uint64_t start_realtime_ns, start_mono_ns, start_ts;
	uint64_t ts_freq;   /* ticks per second, derived from window stamps when the header has 0 */
	uint64_t end_mono_ns, end_ts;
	uint64_t records, dropped, windows, end_offset; /* as stored: valid when closed */
	uint32_t stop_reason;   /* enum mt_stop_reason; codes past it are kept as read */
	uint64_t stop_records;  /* records before an early stop */
	uint32_t stack_depth; /* v2 with MT_FHF_STACKS: most frames a stack holds */
	/* How precise a record's time is (v3; 1 and 0 in older traces): an
	 * unstamped record comes less than stamp_every records after a stamp
	 * (2 by default in v4: it directly follows one), or (v3) less than
	 * stamp_tick_ns after it while the recorder's clock tick ran; 0 says
	 * no bound. */
	uint32_t stamp_every, stamp_tick_ns;
	/* CPU time the recorder's helper thread spent while this file was
	 * open (preparing and giving back windows), so that what recording
	 * cost the program's own threads can be told from the whole process's
	 * CPU time; 0 when no helper ran, or in a file made before the field. */
	uint64_t helper_cpu_ns;
	char allocator_name[33];
	char exe[MT_FH_EXE_MAX];
};

/* Header (de)serialisation; allocation-free, used by the recorder too. */
void mt_trace_header_encode(uint8_t page[MT_TRACE_HEADER_SIZE], const struct mt_trace_info *info);
int mt_trace_header_decode(const uint8_t *p, size_t len, struct mt_trace_info *info,
			   const char *file, struct mt_error *e);

struct mt_window_info {
	uint32_t tid, seq, size, used, count, flags;
	uint64_t base_ts, base_mono, first_rec;
};
void mt_window_header_encode(uint8_t hdr[MT_WINDOW_HEADER_SIZE], const struct mt_window_info *w);

/* ---- reader ---- */

struct mt_trace;

/* Opens path ("-" for standard input).  NULL with e set on failure. */
struct mt_trace *mt_trace_open(const char *path, struct mt_error *e);
void mt_trace_close(struct mt_trace *t);

const struct mt_trace_info *mt_trace_get_info(const struct mt_trace *t);
const char *mt_trace_path(const struct mt_trace *t);

/* Warnings met while indexing (truncation, open windows...), one line each
 * of the "FILE: ..." form; NULL-terminated, owned by t. */
const char *const *mt_trace_warnings(const struct mt_trace *t);

/* Windows found in the file (the header's count is only valid when closed). */
size_t mt_trace_windows(const struct mt_trace *t);

/* Threads in order of their first record's timestamp. */
size_t mt_trace_threads(const struct mt_trace *t);
uint32_t mt_trace_thread_tid(const struct mt_trace *t, size_t thread);
/* Records of the thread as counted from its windows (complete records only). */
uint64_t mt_trace_thread_records(const struct mt_trace *t, size_t thread);
/* The time of the thread's first record (read when the trace was opened),
 * so that a merge can leave a thread's pages alone until its turn. */
uint64_t mt_trace_thread_first_ts(const struct mt_trace *t, size_t thread);

/* Whether allocating records carry a stack number (MT_FHF_STACKS). */
int mt_trace_has_stacks(const struct mt_trace *t);

/*
 * The stack table and module map (v2 traces recorded with stacks; empty
 * otherwise), read and checked when the trace is opened: a damaged entry
 * fails mt_trace_open with "FILE: offset N: ...".  Memory: the distinct
 * stacks and modules only.
 */
struct mt_trace_module {
	uint64_t bias;          /* load address: file address + bias = run-time address */
	uint64_t start, end;    /* run-time addresses its segments span */
	const char *path;       /* as loaded; the trace's exe for the executable */
	const uint8_t *build_id;
	size_t build_id_len;    /* 0 when the module has no GNU build-id */
	uint32_t generation;    /* the module map this module belongs to */
};

struct mt_trace_stack {
	uint64_t id;            /* the number records carry, never 0 */
	const uint64_t *frames; /* return addresses, allocating call outwards */
	size_t nframes;
	uint32_t generation;    /* module map to resolve the frames with */
};

size_t mt_trace_stack_count(const struct mt_trace *t);
/* The i-th stack of the table, in the order written. */
const struct mt_trace_stack *mt_trace_stack_at(const struct mt_trace *t, size_t i);
/* The stack numbered id, NULL if the table has none. */
const struct mt_trace_stack *mt_trace_stack_find(const struct mt_trace *t, uint64_t id);
size_t mt_trace_module_count(const struct mt_trace *t);
const struct mt_trace_module *mt_trace_module_at(const struct mt_trace *t, size_t i);
/* The module of map `generation` holding addr, NULL if none does. */
const struct mt_trace_module *mt_trace_module_find(const struct mt_trace *t, uint32_t generation,
						   uint64_t addr);

/* Iterates one thread's records in order.  The struct is public so callers
 * can keep one per thread without allocating; its fields are private. */
struct mt_trace_cursor {
	const struct mt_trace *t;
	size_t thread, window;
	const uint8_t *p, *end;
	/* Records that start before it are far enough from end to be read
	 * wide, in a trace of version 4: one test a record for both, and for
	 * p < end (start of the window where none or the trace is older). */
	const uint8_t *wide_end;
	struct mt_codec_state st;
	uint64_t recno; /* index of the next record within the thread */
};
void mt_trace_cursor_init(struct mt_trace_cursor *c, const struct mt_trace *t, size_t thread);
/* The rest of mt_trace_cursor_next, past a decode that gave rc: on to the
 * next window, or the end, or an error. */
int mt_trace_cursor_turn(struct mt_trace_cursor *c, int rc, struct mt_rec *r, uint64_t *recno,
			 struct mt_error *e);
/* mt_trace_cursor_next for a record at or past wide_end, or a 0 byte. */
int mt_trace_cursor_slow(struct mt_trace_cursor *c, struct mt_rec *r, uint64_t *recno,
			 struct mt_error *e);

/* 1 with *r (and *recno, the record's index in its thread) set; 0 at the end;
 * -1 on a corrupt record, with e set to "FILE: offset N: ...".  Inline: a
 * converter calls it once per record, and all but the last few records of
 * a version 4 window need only one test against wide_end and the wide
 * decode (mt_rec_decode's three tests of the record's place and the
 * trace's version cost 7 instructions more a record). */
static inline __attribute__((always_inline)) int mt_trace_cursor_next_as(struct mt_trace_cursor *c,
									    struct mt_rec *r,
									    uint64_t *recno,
									    struct mt_error *e,
									    int lean)
{
	size_t len;
	if (c->p >= c->wide_end || *c->p == 0)
		return mt_trace_cursor_slow(c, r, recno, e);
	int rc = mt_rec_decode_body(c->p, c->end, &c->st, r, &len, 1, 0, lean);
	if (rc != MT_DEC_OK)
		return mt_trace_cursor_turn(c, rc, r, recno, e);
	c->p += len;
	*recno = c->recno++;
	return 1;
}

static inline __attribute__((always_inline)) int mt_trace_cursor_next(struct mt_trace_cursor *c,
									 struct mt_rec *r,
									 uint64_t *recno,
									 struct mt_error *e)
{
	return mt_trace_cursor_next_as(c, r, recno, e, 0);
}

/* mt_trace_cursor_next for a converter: only the fields mt_rec_decode_body
 * sets when lean are set (a record's other fields may hold an earlier
 * record's values, where the slow path decoded it whole). */
static inline __attribute__((always_inline)) int mt_trace_cursor_next_lean(struct mt_trace_cursor *c,
									      struct mt_rec *r,
									      uint64_t *recno,
									      struct mt_error *e)
{
	return mt_trace_cursor_next_as(c, r, recno, e, 1);
}

/* All records of all threads merged by timestamp (ties: lower thread first). */
struct mt_trace_merge;
struct mt_trace_merge *mt_trace_merge_open(const struct mt_trace *t);
int mt_trace_merge_next(struct mt_trace_merge *m, struct mt_rec *r, size_t *thread,
			uint64_t *recno, struct mt_error *e);
void mt_trace_merge_close(struct mt_trace_merge *m);

/* Call names as printed by the tools ("malloc", "posix_memalign"...). */
const char *mt_call_name(unsigned call);
const char *mt_event_name(unsigned event);
/* The allocator the recorder saw: its own name when it gave one, else
 * "glibc", "jemalloc"... or "unknown". */
const char *mt_allocator_name(const struct mt_trace_info *in);
/* "file size limit", "disk full"...: why recording stopped early
 * (enum mt_stop_reason, MT_STOP_NONE excluded); "unknown reason" for a code
 * this reader does not know. */
const char *mt_stop_reason_name(uint32_t reason);

/* Writes s as a JSON string, quoted and escaped (for every tool's --json). */
void mt_json_string(FILE *out, const char *s);
/* Writes the member ,"stopped_early": null for a complete trace, else
 * {"reason":NAME,"code":N,"calls":RECORDS}: every tool's --json says it
 * the same way. */
void mt_json_stop(FILE *out, uint32_t reason, uint64_t records);

/* ---- writer ---- */

struct mt_trace_writer;

/* Creates path with the given header fields (magic, version, sizes are
 * filled in).  window_size: bytes per window, a multiple of 4096 (0 = the
 * recorder's growth from MT_WINDOW_MIN to MT_WINDOW_MAX). */
struct mt_trace_writer *mt_trace_writer_open(const char *path, const struct mt_trace_info *info,
					     uint32_t window_size, struct mt_error *e);
int mt_trace_writer_add(struct mt_trace_writer *w, uint32_t tid, const struct mt_rec *r,
			struct mt_error *e);
/* Flushes every window (closed) and the header (MT_FHF_CLOSED set unless
 * leave_open) and frees w.  Returns 0 or -1 with e set. */
int mt_trace_writer_close(struct mt_trace_writer *w, int leave_open, struct mt_error *e);

#endif
