/*
 * trace_format.h - the recorder's trace file, version 4: layout constants.
 *
 * This header is the single definition of the trace format; docs/FORMAT.md
 * describes the same bytes for people.  Change one, change the other, and
 * bump MT_TRACE_VERSION for any change a version-1 reader would misread.
 *
 * A trace is one file per process:
 *
 *   [file header, 4096 bytes][window][window]...
 *
 * Every window starts at a multiple of MT_TRACE_ALIGN, belongs to exactly one
 * thread, and holds a 64-byte window header followed by records.  Windows are
 * claimed by threads at the next free file offset, so windows of different
 * threads interleave in the file; a thread's windows are put back in order
 * by their sequence number.
 *
 * All fixed-width fields are little-endian whatever the writing machine; the
 * endian byte in the file header tells what the traced machine was.
 */
#ifndef MT_TRACE_FORMAT_H
#define MT_TRACE_FORMAT_H

#include <stdint.h>

#define MT_TRACE_MAGIC "MTRACE\n\x1a" /* 8 bytes, no NUL */
#define MT_TRACE_VERSION 4
#define MT_TRACE_HEADER_SIZE 4096
#define MT_TRACE_ALIGN 4096           /* windows start on this boundary */
#define MT_WINDOW_MAGIC "MTWN"        /* 4 bytes */
#define MT_WINDOW_HEADER_SIZE 64
#define MT_WINDOW_MIN (4u << 10)      /* a thread's first window */
#define MT_WINDOW_MAX (1u << 20)      /* windows double up to this */
#define MT_RECORD_MAX 80              /* no record is longer; a window is
				         full when fewer bytes remain */
#define MT_TABLE_MAGIC "MTTB"         /* 4 bytes: a stack table window */
#define MT_TABLE_WINDOW_SIZE (64u << 10)
#define MT_STACK_FRAMES_MAX 256       /* frames a stack may hold */

/* File header field offsets. */
enum {
	MT_FH_MAGIC = 0,          /* 8  magic */
	MT_FH_VERSION = 8,        /* 2  format version */
	MT_FH_ENDIAN = 10,        /* 1  traced machine: 1 little, 2 big */
	MT_FH_PTR_SIZE = 11,      /* 1  pointer size in bytes */
	MT_FH_TS_SOURCE = 12,     /* 1  enum mt_ts_source */
	MT_FH_ALLOCATOR = 13,     /* 1  enum mt_allocator */
	MT_FH_HEADER_SIZE = 14,   /* 2  = 4096 */
	MT_FH_ALIGN = 16,         /* 4  window alignment = 4096 */
	MT_FH_PID = 20,           /* 4  */
	MT_FH_PPID = 24,          /* 4  */
	MT_FH_FLAGS = 28,         /* 4  MT_FHF_* */
	MT_FH_START_REALTIME = 32,/* 8  CLOCK_REALTIME ns at start */
	MT_FH_START_MONO = 40,    /* 8  CLOCK_MONOTONIC ns at start */
	MT_FH_START_TS = 48,      /* 8  timestamp counter at start */
	MT_FH_TS_FREQ = 56,       /* 8  ticks per second; 0 = derive (see docs) */
	MT_FH_END_MONO = 64,      /* 8  CLOCK_MONOTONIC ns at close, 0 if not closed */
	MT_FH_END_TS = 72,        /* 8  timestamp at close */
	MT_FH_RECORDS = 80,       /* 8  records written, valid when closed */
	MT_FH_DROPPED = 88,       /* 8  calls not recorded (signal-handler re-entry, or no window) */
	MT_FH_WINDOWS = 96,       /* 8  windows claimed, valid when closed */
	MT_FH_END_OFFSET = 104,   /* 8  first byte past the last window, valid when closed */
	MT_FH_STOP_REASON = 112,  /* 4  enum mt_stop_reason: why recording stopped early, 0 if not */
	MT_FH_STOP_RECORDS = 120, /* 8  records written before that stop, 0 if none */
	MT_FH_ALLOCATOR_NAME = 128, /* 32 NUL-padded name of the allocator below */
	MT_FH_STACK_DEPTH = 160,  /* 4  frames recorded per stack at most (v2, with STACKS) */
	MT_FH_STAMP_EVERY = 164,  /* 4  v3: a record at most this many after a stamp is stamped */
	MT_FH_STAMP_TICK = 168,   /* 4  v3: ns between ticks that also force a stamp, 0 none */
	MT_FH_HELPER_CPU = 176,   /* 8  CPU ns the recorder's helper thread spent on this file */
	MT_FH_EXE = 256,          /* up to 3840, NUL-terminated executable path */
};
#define MT_FH_EXE_MAX (MT_TRACE_HEADER_SIZE - MT_FH_EXE)

enum {
	MT_FHF_CLOSED = 1,    /* the recorder stopped cleanly */
	MT_FHF_STACKS = 2,    /* v2: allocating records carry a stack number */
};

/*
 * Why the recorder stopped before the program asked it to (or ended): the
 * trace is then whole up to the stop but misses the calls after it.  0 in
 * every trace that was not cut short, including every file written before
 * these fields existed (bytes 112..127 were zero in version 1 from the
 * start), so an old trace reads as complete.
 */
enum mt_stop_reason {
	MT_STOP_NONE = 0,
	MT_STOP_FSIZE = 1,        /* the file-size limit (RLIMIT_FSIZE, ulimit -f) */
	MT_STOP_DISK_FULL = 2,    /* ENOSPC */
	MT_STOP_QUOTA = 3,        /* EDQUOT */
	MT_STOP_IO = 4,           /* the file could not grow for another reason (EIO...) */
	MT_STOP_MAP = 5,          /* a window could not be mapped */
	MT_STOP_CUT = 6,          /* something else truncated the file under a window */
	MT_STOP_REASONS = 7,
};

enum mt_ts_source { MT_TS_TSC = 1, MT_TS_MONOTONIC_NS = 2 };

enum mt_allocator {
	MT_ALLOC_UNKNOWN = 0, MT_ALLOC_GLIBC = 1, MT_ALLOC_JEMALLOC = 2,
	MT_ALLOC_TCMALLOC = 3, MT_ALLOC_MIMALLOC = 4, MT_ALLOC_OTHER = 5,
};

/* Window header field offsets (relative to the window's start). */
enum {
	MT_WH_MAGIC = 0,      /* 4  "MTWN" */
	MT_WH_TID = 4,        /* 4  kernel thread id */
	MT_WH_SEQ = 8,        /* 4  0, 1, 2... per thread */
	MT_WH_SIZE = 12,      /* 4  window size in bytes, multiple of 4096 */
	MT_WH_BASE_TS = 16,   /* 8  timestamp when claimed; first delta is from it */
	MT_WH_BASE_MONO = 24, /* 8  CLOCK_MONOTONIC ns when claimed */
	MT_WH_FIRST_REC = 32, /* 8  records this thread wrote before this window */
	MT_WH_USED = 40,      /* 4  bytes of records, valid when closed */
	MT_WH_COUNT = 44,     /* 4  records, valid when closed */
	MT_WH_FLAGS = 48,     /* 4  MT_WHF_* */
};
enum { MT_WHF_CLOSED = 1, MT_WHF_LAST = 2 /* the thread ended with this window */ };

/* v3: a window header with tid 0 and MT_WHF_CLOSED is padding: space the
 * recorder claimed ahead for a thread that never used it.  Readers skip it. */

/*
 * Stack table windows (v2): a window header with MT_TABLE_MAGIC (tid 0, seq
 * counting table windows, used/count/flags 0), then entries until a zero
 * head byte or the window's end.  Each entry is a head byte (the kind) and
 * varints, head byte stored last as for records:
 *   STACK    id nframes frame0 zigzag(frame1-frame0)...   (return addresses,
 *            from the allocating call outwards)
 *   MODULES  generation        a new module map; the MODULE entries after it
 *                              make it up, and STACK entries after it are
 *                              resolved against it
 *   MODULE   bias start size idlen id[idlen] pathlen path[pathlen]
 *            (bias: load address; [start, start+size): its mapped segments;
 *            id: GNU build-id bytes; path "" for the executable)
 */
enum mt_table_entry { MT_TE_STACK = 1, MT_TE_MODULES = 2, MT_TE_MODULE = 3 };

/*
 * Record layout: one head byte, then varints.
 *   head bits 0-3: enum mt_call (never 0: a zero head byte ends a window's
 *                  records, which is how an unfinished record is recognised)
 *   head bits 4-7: MT_RF_* flags
 * The head byte is stored last, after the body, so a record is either whole
 * or invisible.
 *
 * v3: records carry no time of their own.  A record may be preceded by a
 * stamp: the byte MT_HEAD_STAMP, then the varint delta of the time from the
 * window's previous stamp (its base timestamp for the first).  A record
 * without one happened at or after the last stamp before it.  The stamp's
 * byte, the first of the pair, is then the one stored last.
 */
#define MT_HEAD_STAMP 14
enum mt_call {
	MT_CALL_NONE = 0,
	MT_CALL_MALLOC = 1,
	MT_CALL_FREE = 2,
	MT_CALL_CALLOC = 3,
	MT_CALL_REALLOC = 4,
	MT_CALL_REALLOCARRAY = 5,
	MT_CALL_MEMALIGN = 6,
	MT_CALL_POSIX_MEMALIGN = 7,
	MT_CALL_ALIGNED_ALLOC = 8,
	MT_CALL_VALLOC = 9,
	MT_CALL_PVALLOC = 10,
	MT_CALL_FREE_SIZED = 11,
	MT_CALL_FREE_ALIGNED_SIZED = 12,
	MT_CALL_EVENT = 13,      /* allocator event, not a call (see enum mt_event) */
	MT_CALL_COUNT = 14,
};

enum {
	MT_RF_MMAPPED = 0x10,   /* glibc chunk header: block is mmapped */
	MT_RF_NON_MAIN = 0x20,  /* glibc chunk header: block is in a non-main arena */
	MT_RF_NULL_OUT = 0x40,  /* returned NULL (or posix_memalign's rc != 0) */
	MT_RF_NULL_IN = 0x80,   /* pointer argument was NULL (free, realloc*) */
};

/* Allocator events (MT_CALL_EVENT), glibc's probe names. */
enum mt_event {
	MT_EV_SBRK_MORE = 1, MT_EV_SBRK_LESS = 2, MT_EV_ARENA_NEW = 3,
	MT_EV_ARENA_REUSE = 4, MT_EV_HEAP_NEW = 5, MT_EV_HEAP_MORE = 6,
	MT_EV_HEAP_LESS = 7, MT_EV_HEAP_FREE = 8, MT_EV_MALLOPT = 9,
	MT_EV_DYN_THRESHOLDS = 10,
};
#define MT_EVENT_ARGS_MAX 4

#endif
