/*
 * rec_thread.h - each thread's windows of the trace file.
 *
 * A thread writes its records into a window of the file that only it
 * touches, mapped MAP_SHARED so the records sit in the page cache the
 * moment they are written (and survive kill -9).  The per-call state lives
 * in struct mt_tls (initial-exec TLS, no lookup); the state other threads
 * must reach - to close every window when recording stops, or when its
 * thread is gone - lives in a struct mt_slot, kept in a pool that is never
 * freed, so a thread that dies without telling us leaves nothing dangling.
 *
 * Everything here except the TLS itself is used with the recorder lock held.
 */
#ifndef MT_REC_THREAD_H
#define MT_REC_THREAD_H

#include <stdint.h>

#include "rec_file.h"
#include "trace_codec.h"
#include "visibility.h"

/* The window the helper thread (rec_helper.c) prepares for a slot. */
enum mt_next_state {
	MT_NEXT_NONE = 0,
	MT_NEXT_WANTED,       /* asked for: the helper will claim and map it */
	MT_NEXT_FILLING,      /* claimed and mapped; the helper populates it */
	MT_NEXT_READY,        /* next_base is mapped and faulted in, padding until used */
	MT_NEXT_FAILED,       /* the file cannot grow; the helper said why */
};

/*
 * A thread's windows double from MT_WINDOW_MIN up to this, half the
 * format's MT_WINDOW_MAX: a thread's last window is half empty on average
 * and the one prepared ahead of it often never used, and both stay in the
 * file, about 1.5 window sizes a thread, which on a program of a few
 * threads and a few million calls is a byte a call or more.  Not smaller:
 * each window costs the process a fixed amount of system time (its claim,
 * mapping and unmapping), which at 256 KiB showed on perl's two busy
 * threads (docs/BENCHMARKS.md, issue #15's fifth round).
 */
#define MT_REC_WINDOW_MAX (512u << 10)

struct mt_slot {
	uint8_t *base;        /* the mapped window, NULL when none */
	uint32_t size;
	uint64_t off;         /* its offset in the file */
	unsigned serial;      /* and that file's mt_file.serial */
	uint8_t *next_base;   /* the window prepared ahead, when MT_NEXT_READY */
	uint32_t next_size;
	uint64_t next_off;    /* its offset in the file */
	unsigned next_serial; /* file it was claimed in (mt_file.serial) */
	uint8_t next_state;   /* enum mt_next_state */
	uint8_t *old_base;    /* a full window the helper is to unmap, or NULL */
	uint32_t old_size;
	uint64_t base_ts;
	unsigned epoch;       /* recording the window belongs to */
	uint32_t tid;
	uint32_t closed_count;/* records, when someone else closed the window */
	uint8_t open;         /* header not yet closed (by the owner or by stop) */
	uint8_t in_use;
	uint8_t exited;       /* the thread ran its exit destructor */
	uint8_t stacks;       /* the window's file has MT_FHF_STACKS */
	uint8_t bridges;      /* windows in a row the thread mapped itself while
				 the helper was late with the one it asked for */
};

/*
 * A thread whose helper is late (on a busy machine it waits 1-16 ms for a
 * processor at times, longer than half a window takes to fill) maps a
 * bridge window of this size itself, then twice that while still late, up
 * to the full size: the thread does the page work of about as many bytes
 * as the helper's delay takes to fill, not a whole window's, and the
 * helper's window follows the bridge in the file.
 */
#define MT_BRIDGE_MIN (64u << 10)

/*
 * Each call reads and writes the fields up to and including codec.stacks,
 * all in the first cache line (the struct is aligned to one): in a
 * program whose own data pushes ours out of the cache between calls, that
 * is one line to fetch again a call, not two.  The rest is the slow path's.
 */
struct mt_tls {
	uint8_t *cur;         /* where the next record goes */
	uint8_t *limit;       /* the slow path is due when cur > limit: at the
				 window's middle (to ask for the next), then full */
	uint32_t count;       /* records in the current window */
	unsigned epoch;       /* the window's recording; 0 = no window */
	uint32_t token;       /* this thread's mark in the block owner table
				 (recorder.h), non-zero and unique among live
				 threads once it has had a window */
	uint8_t busy;         /* inside the recorder: calls now are not recorded;
				 MT_BUSY_INTERNAL: nor counted as dropped */
	uint16_t region_token;/* the token's mark in the region table
				 (rec_regions.h), set with it; 0 before */
	uint64_t last_freed;  /* the block this thread's last record passed in, 0 if none */
	struct mt_codec_state codec;
	uint8_t *full;        /* the window is full when cur > full */
	struct mt_slot *slot;
	/* Numbering of the thread's windows in one file (mt_file.serial).  A
	 * recording resumed in the same file (after a failed exec) continues
	 * it, so no two windows of a thread share a sequence number. */
	unsigned seq_file;
	uint32_t seq;
	uint64_t first_rec;
} __attribute__((aligned(64)));

_Static_assert(__builtin_offsetof(struct mt_tls, codec.stacks) < 64,
	       "the fast path's fields of mt_tls fit one cache line");

/* mt_tls.busy of a thread that is the recorder's own (the helper), or of a
 * call the recorder makes whose allocations are libc's (pthread_create). */
#define MT_BUSY_INTERNAL 2

MT_HIDDEN extern __thread struct mt_tls mt_tls __attribute__((tls_model("initial-exec")));

/*
 * A free slot for the calling thread, or NULL when memory is exhausted.
 * Slots of threads that exited and are gone are reclaimed first: their
 * last window is closed (counted into f, marked the thread's last) and
 * unmapped.
 */
struct mt_slot *mt_slot_get(struct mt_file *f, unsigned epoch);

/*
 * The thread is in its exit destructor.  Its window stays mapped and open:
 * glibc frees the thread's cache after the destructors, and those calls
 * are recorded in the same window.  The slot is reclaimed once the thread
 * is gone (mt_slot_get, mt_windows_collect).
 */
void mt_slot_exited(struct mt_slot *s);

/* Opens the thread's next window (after releasing a full one).  0, or -1
 * after printing why: the file cannot grow. */
int mt_window_open(struct mt_tls *t, unsigned epoch, struct mt_file *f);

/* The thread's window is half full: asks the helper to prepare its next
 * window, unless one is asked for or prepared already, and moves
 * t->limit to the window's end.  Asked no earlier, a thread that ends
 * early leaves no unused window behind; half a window's records give the
 * helper time. */
void mt_window_want_next(struct mt_tls *t, struct mt_file *f);

/* Which stamp rule applies (recorder.h): 0, one record in
 * MT_SPARSE_STAMP_EVERY stamped; else bits of why more are.
 * MT_DENSE_THREADS: a second thread of the process has recorded (never
 * cleared, but in a forked child); MT_DENSE_PRECISE: MTRACE_PRECISE_TIME=1,
 * every record stamped. */
MT_HIDDEN extern unsigned mt_stamp_dense;
enum { MT_DENSE_THREADS = 1, MT_DENSE_PRECISE = 2 };
#define MT_SPARSE_STAMP_EVERY 16u

/* Closes the thread's own window if still open (adding its records to f)
 * and unmaps it. */
void mt_window_release(struct mt_tls *t, struct mt_file *f);

/*
 * Records in every window of `epoch` still open, counted from the bytes
 * themselves, so a record being written by another thread right now is
 * either whole and counted or not yet visible.  With `close`, those windows
 * are closed at that point (their owners unmap them on their next call) and
 * slots of threads that are gone are reclaimed.
 */
uint64_t mt_windows_collect(unsigned epoch, int close);

/* The window that holds addr: 1 with its mapping's start and size, else
 * 0.  Reads the slots without the lock: called from a signal handler. */
int mt_window_holding(const void *addr, uint8_t **base, uint32_t *size);

/* The helper's work, with the recorder lock held: a slot whose next window
 * is wanted or whose full window waits to be unmapped, or NULL. */
struct mt_slot *mt_slot_needing_help(void);

/* Stop: windows prepared ahead are given up: those at the end of f go
 * back (the file is cut to where they start), the others stay padding;
 * one the helper is filling it unmaps when done. */
void mt_windows_drop_prepared(struct mt_file *f);

/* In a forked child: drop every window mapping (they are the parent's) and
 * free every slot; only the calling thread survives fork. */
void mt_windows_forget(void);

#endif
