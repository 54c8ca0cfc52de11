/*
 * replay_internal.h - the state shared by the replay threads, the monitor
 * thread and the code that sets them up.  Not for the rest of trace_run.
 *
 * Everything here is allocated with mmap before the clock starts, so the
 * replayer never asks the allocator under test for its own memory.
 */
#ifndef RT_REPLAY_INTERNAL_H
#define RT_REPLAY_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "replay.h"
#include "workload.h"

/*
 * One workload object: where it lives now, and the bytes the program asked
 * for as recorded.  The size is kept because frees carry none and both the
 * ideal RSS and --touch need it when the block goes away.
 */
struct rt_slot {
	void *ptr;
	uint64_t size;
};

/* What a replay thread is doing, for the watchdog: in an op (the allocator
 * included), in --touch or --trim-every work, sleeping for --pace, held by
 * the shared clock's window or by its byte cap, or done.  Waiting on a sync
 * point shows in waiting. */
enum rt_state { RT_RUNNING, RT_BUSY, RT_PACING, RT_GATED, RT_HELD, RT_FINISHED };

/* A stretch of recorded time, in ns from the trace's start, in which no
 * thread made a call: --pace shortens the long ones (survey.c). */
struct rt_gap {
	uint64_t from, to;
};

#define RT_AT_NONE UINT64_MAX /* rt_thread.at of a thread with no call left */
/* WAITs before its first call a stream's chaining looks at: trace2wl puts
 * two there (its creator's call, an ended thread's end), a handoff more. */
#define RT_LEAD_WAITS 4
#define RT_NO_WAKE INT64_MIN  /* rt_replay.held_wake_at with no thread held */
/* rt_replay.ideal_cap without a recorded peak: never reached, and far enough
 * from INT64_MAX that the cap less any live count cannot overflow. */
#define RT_NO_CAP (INT64_MAX / 2)

struct rt_replay;

/* One replay thread.  The first cache line is written by its owner and read
 * by the monitor and the other threads; the rest is the owner's alone
 * but for its next_op, next_last_new and next_new_signed, read by the others
 * while it waits. */
struct rt_thread {
	_Alignas(64) _Atomic uint64_t calls; /* allocator calls completed */
	_Atomic uint64_t syncs;              /* sync ops completed: ops = calls + syncs */
	_Atomic uint64_t waiting;            /* sync id + 1 while in WAIT, else 0 */
	_Atomic uint64_t at;                 /* position on the shared clock, see clock.c */
	_Atomic uint64_t due_ns;             /* while pacing: CLOCK_MONOTONIC to wake at */
	_Atomic uint32_t behind;             /* while gated: the thread it waits for */
	_Atomic int state;                   /* enum rt_state */
	/* The shared clock's wake-ups (clock.c): the lowest position a gated
	 * thread waits for this one to reach, and the futex word it sleeps
	 * on.  Written by others only when one starts or stops waiting. */
	_Atomic uint64_t wake_at;
	_Atomic uint32_t clock_seq;
	_Alignas(64) struct rt_replay *r;
	/* Copies of what every call reads, one load away instead of two. */
	struct rt_slot *slots;
	unsigned foreign;       /* r->foreign */
	int single;             /* the workload has one thread */
	int usable_size;        /* malloc_usable_size is the allocator's own */
	int prefetch;           /* its frees miss the cache: prefetch their slots (survey.c) */
	enum rt_touch touch;
	size_t page;
	const uint8_t *stream, *end;
	/* Where its stream goes on after the call it is gated or held at,
	 * published for the other threads then (clock.c's publish_next). */
	_Atomic(const uint8_t *) next_op;
	_Atomic uint64_t next_last_new;
	_Atomic int next_new_signed;
	size_t window;          /* stream bytes held ahead, see stream.c */
	/* On its replay thread (stream.c): the pages of the streams before it
	 * not yet let go of, [behind_from, behind_to), and how far they were
	 * mapped in. */
	const uint8_t *behind_from, *behind_to, *mapped_to;
	int64_t rss_next;       /* ideal bytes at which it reads the RSS again */
	int64_t ideal_pending;  /* ideal bytes gathered, not yet in r->ideal_live */
	/* The gathered bytes that are flushed, batch either way (replay_loop.c),
	 * as one unsigned range: pending + batch - 1 above 2 * (batch - 1) */
	uint64_t ideal_bias, ideal_span;
	int64_t ideal_seen;     /* r->ideal_live when it last flushed or looked */
	int64_t ideal_cap;      /* r->ideal_cap */
	/* CPU time in the shared clock's waits and in the wake-ups it makes,
	 * and how many times it began to wait (clock.c): what holding the
	 * threads to the recorded concurrency costs, apart from the
	 * replayer's own. */
	uint64_t clock_cpu_ns, clock_waits;
	/* Its CPU time from the release to its end: the replay's CPU time
	 * apart from the monitor's and the main thread's (report.c). */
	uint64_t cpu_ns;
	/* Time off the processor inside its timed calls (replay_loop.c's
	 * off_cpu_check): a call that took long_call timer units or more is
	 * checked against the wall and CPU time since the thread's last mark
	 * (mark_at in timer units, mark_cpu_ns), and what it
	 * spent off the processor, preempted, throttled or asleep in the
	 * allocator, goes to off_cpu_ns rather than to the allocator's
	 * figures' share of the thread's CPU time (report.c). */
	uint64_t long_call, mark_at, mark_cpu_ns, off_cpu_ns;
	uint32_t index, tid;
	pthread_t pthread;
	/* Streams that run one after another on one replay thread (replay.c,
	 * chain): the one it runs next, once this one has ended, and whether
	 * this one is run so (it has no replay thread of its own).  From the
	 * survey: sync id + 1 of its last op if that is a SIGNAL (else 0), of
	 * its first RT_LEAD_WAITS ops while they are all WAITs (0: none; a
	 * stream that signals before it waits for another's end must not wait
	 * to start, as that one may wait for the signal), and its first call's
	 * recorded time. */
	struct rt_thread *then;
	int chained;
	uint64_t last_signal, lead_waits[RT_LEAD_WAITS], first_call_ns;
	uint64_t failed_now, recorded_failed_ok;
	unsigned used;          /* 1 << call for each call type the stream makes (survey.c) */
	/* Statistics of the call types in used, in the replay's stats table;
	 * the others stay NULL.  A thread with every type holds 13 x 2 KiB of
	 * histograms, so 20,000 threads that make no call hold none. */
	struct rt_callstat *stat[MT_CALL_COUNT];
};

struct rt_replay {
	struct mt_wl *wl;
	const struct mt_wl_info *info;
	const struct rt_opts *o;
	struct rt_timer_info timer;
	unsigned foreign;          /* calls emulated, see rt_allocator_foreign */
	unsigned spins;            /* sync waits spin this long before sleeping, see sync.h */
	size_t page;               /* for --touch=page and the page-sized calls */
	struct rt_slot *slots;     /* objects + 1; slot 0 stays NULL */
	_Atomic uint32_t *syncs;   /* one word per sync point, see sync.h */
	struct rt_thread *threads;
	struct rt_callstat *stats; /* every thread's, see rt_thread.stat */
	int clocked;               /* the shared clock orders the threads (clock.c) */
	uint64_t window_ns;        /* its window */
	/* What the clock scans for the slowest thread (clock.c's slowest):
	 * streams from begun on have not begun, and each stands at its first
	 * call, the earliest of them first_after[begun]'s (first_after[i]: the
	 * stream of index i or higher whose first call comes first, the lowest
	 * index among equals); skip[i], once stream i has ended, is an index
	 * past i below which every stream from i has ended. */
	_Atomic uint32_t begun;
	uint32_t replay_threads;   /* streams with a replay thread of their own (replay.c) */
	uint32_t *first_after;
	_Atomic uint32_t *skip;
	int64_t ideal_cap;         /* and its byte cap: RT_NO_CAP for none (clock.c) */
	uint64_t alloc_bytes;      /* requested by the recorded allocating calls (survey.c) */
	uint64_t first_call_ns, last_call_ns; /* recorded times of the first and last calls */
	uint64_t idle_cap_ns;      /* --pace: longest idle stretch slept through */
	struct rt_gap *gaps;       /* idle stretches longer than that, sorted */
	size_t ngaps, gaps_bytes;
	uint64_t idle_cut_ns;      /* recorded time --pace leaves out */
	uint64_t start_ns;         /* CLOCK_MONOTONIC at release */
	_Atomic uint32_t go;       /* released: the threads start together */
	_Atomic uint32_t stop;     /* replay over: the monitor takes a last sample */
	_Atomic int abandon;       /* set before go when setup failed: return at once */
	_Atomic uint32_t done;     /* threads retired, see rt_sync_retire */
	/* The one shared counter on the replay path: a relaxed atomic add per
	 * allocation and free (measured in bench/trace_run.sh), so the peak is
	 * exact in any interleaving without a lock. */
	_Alignas(64) _Atomic int64_t ideal_live;
	_Atomic int64_t ideal_peak;
	/* The byte cap's wake-ups (clock.c), on the line a flush writes anyway:
	 * the highest ideal_live a held thread waits for (RT_NO_WAKE for none),
	 * and the futex word held threads sleep on. */
	_Atomic int64_t held_wake_at;
	_Atomic uint32_t held_seq;
	/* Anonymous resident memory (statm's resident less shared: the
	 * allocator's memory, not the stream windows mapped from the file),
	 * in Kb: before the clock, and its peak during the replay, raised by
	 * the monitor every 1-10 ms (monitor.c) and by a replay thread whenever the
	 * ideal RSS reaches a new peak (rss.c). */
	_Alignas(64) _Atomic uint64_t anon_peak_kb;
	uint64_t anon_base_kb;
	_Alignas(64) uint64_t samples;
	FILE *timeline;            /* --timeline, or NULL */
	uint64_t last_row[5];      /* the timeline's last row, not written twice */
	int statm_fd;              /* /proc/self/statm, read by the monitor */
	int progress;              /* stderr is a terminal: the monitor shows progress */
	uint64_t total_calls;      /* calls in the workload, for the progress line */
};

void *rt_thread_main(void *arg);

/* Before the clock starts, with the thread table built: notes the call
 * types each thread makes, checks the recorded times, and finds the idle
 * stretches --pace shortens (survey.c).  -1 with e set. */
int rt_survey(struct rt_replay *r, struct mt_error *e);

/* Thread t, about to make an allocating call at recorded time rec past
 * its limit, waits until every other thread is within the window of rec;
 * returns its new limit (clock.c). */
uint64_t rt_clock_gate(struct rt_thread *t, uint64_t rec, const uint8_t *next,
		       struct mt_op_state st);
/* Thread t, about to allocate bytes that would take the live requested
 * bytes it knows of past its cap, waits until frees bring them under it or
 * no other thread can free (clock.c); next and st are where its stream
 * goes on after this call. */
void rt_clock_hold(struct rt_thread *t, uint64_t bytes, const uint8_t *next,
		   struct mt_op_state st);
/* After a flush that freed bytes, with now live: wakes the held threads if
 * now is low enough for one of them. */
void rt_clock_release(struct rt_replay *r);
/* Wakes the threads gated on t, if any: it passed its wake_at, or it is
 * about to wait itself. */
void rt_clock_wake(struct rt_thread *t);
/* Before the release, with r->first_after and r->skip of a threads'
 * entries each: every stream stands at its first call. */
void rt_clock_order(struct rt_replay *r);
/* Stream t begins: called by its replay thread before it first moves. */
void rt_clock_begin(struct rt_thread *t);
/* The calling thread's CPU time in ns (clock.c). */
uint64_t rt_thread_cpu_ns(void);
void *rt_monitor_main(void *arg);

/* Opens the timeline before any thread exists, so a bad path is an
 * ordinary error; the monitor writes to it. */
int rt_monitor_open(struct rt_replay *r, struct mt_error *e);
/* Closes what rt_monitor_open opened; -1 with e set if the timeline could
 * not be written in full. */
int rt_monitor_close(struct rt_replay *r, struct mt_error *e);
/* This process's size, resident set and anonymous resident set now, from
 * /proc/self/statm (rss.c): no allocation, so a replay thread may call it. */
void rt_statm(const struct rt_replay *r, uint64_t *vmsize_kb, uint64_t *vmrss_kb,
	      uint64_t *anon_kb);
/* Raises the anonymous RSS peak to what statm says now, and returns that
 * (rss.c). */
uint64_t rt_rss_sample(struct rt_replay *r);
/* A replay thread whose call took the ideal RSS to a new peak of ideal
 * bytes at or past t->rss_next: reads the RSS, and sets the next such
 * point 1/64 higher (rss.c).  Out of line: a few hundred times a replay. */
void rt_rss_at_ideal_peak(struct rt_thread *t, int64_t ideal);

/* The stream windows (stream.c): the first one mapped in before the
 * clock, and, at the end of each, the pages behind let go of and the next
 * window mapped in, outside the timed region. */
void rt_stream_setup(struct rt_replay *r);
/* Where the window that starts at p ends. */
const uint8_t *rt_stream_stop(const struct rt_thread *t, const uint8_t *p);
/* Maps t's first window in (rt_stream_setup does, but for chained streams). */
void rt_stream_begin(struct rt_thread *t);
const uint8_t *rt_stream_next(struct rt_thread *t, const uint8_t *held, const uint8_t *p);
/* Lets go of t's pages from held to its end, or hands them on (stream.c). */
void rt_stream_end(struct rt_thread *t, const uint8_t *held);
/* This process's resident set now, exact (slow: walks the page tables). */
uint64_t rt_rss_exact(const struct rt_replay *r);

#endif
