/*
 * replay.h - replaying one workload in this process and what it measured.
 *
 * main.c decides which allocator and tunables the process runs with; from
 * here on the allocator is whatever malloc resolves to.  rt_replay_run loads
 * the workload, builds every table and thread before the clock starts,
 * replays, and fills struct rt_result for report.c to print.
 */
#ifndef RT_REPLAY_H
#define RT_REPLAY_H

#include <stdint.h>

#include "hist.h"
#include "mt_error.h"
#include "timer.h"

enum rt_touch { RT_TOUCH_NONE, RT_TOUCH_PAGE, RT_TOUCH_ALL };

#define RT_WINDOW_AUTO UINT64_MAX /* --window=auto: chosen from the workload (replay.c) */

struct rt_opts {
	enum rt_touch touch;
	enum rt_timer_source timer;
	uint64_t trim_every;  /* malloc_trim(0) every N calls of a thread; 0 never */
	int pace;             /* follow the recorded time deltas */
	uint64_t window_us;   /* shared clock window in recorded usec, or RT_WINDOW_AUTO */
	int unpaced;          /* no shared clock: the sync points alone order threads */
	unsigned sample_ms;   /* sampler interval */
	unsigned watchdog_s;  /* no progress this long while waiting: exit 3 */
	const char *timeline; /* CSV of the samples, or NULL */
};

struct rt_result {
	const char *path;
	const char *allocator;      /* the name asked for, filled by main.c */
	const char *allocator_lib;  /* the file malloc resolved to */
	uint32_t threads;
	struct rt_timer_info timer;
	uint64_t elapsed;           /* timer units, release to last join */
	uint64_t wall_usec, user_usec, sys_usec;
	uint64_t preempted;         /* involuntary context switches during the replay */
	long maxrss_start_kb, maxrss_end_kb;
	uint64_t replayer_kb;       /* resident before the clock started, exact */
	uint64_t held_kb;           /* resident after the replay beyond that, exact */
	uint64_t ideal_peak;        /* bytes, peak of live requested bytes */
	uint64_t header_ideal_peak; /* what trace2wl computed, for comparison */
	uint32_t source_stop;       /* the trace stopped early: enum mt_stop_reason */
	uint64_t source_stop_records;
	uint64_t failed_now;        /* calls that failed now but not when recorded */
	uint64_t recorded_failed_ok;/* calls that failed when recorded but not now */
	uint64_t samples;           /* sampler rows taken */
	int timed;                  /* the workload has recorded times */
	int clocked;                /* the shared clock ordered the threads */
	uint64_t recorded_span_ns;  /* from the first recorded call to the last; 0 untimed */
	uint64_t window_us;         /* its window */
	uint64_t ideal_cap;         /* and its byte cap; 0 for none */
	uint64_t idle_stretches;    /* --pace: idle stretches shortened */
	uint64_t idle_cap_ns;       /* to this */
	uint64_t idle_cut_ns;       /* recorded time left out */
	uint32_t prefetching;       /* replay threads that prefetch their frees' slots */
	uint64_t clock_cpu_ns;      /* CPU time the shared clock's waits and wake-ups took */
	uint64_t clock_waits;       /* times a thread waited on the shared clock */
	uint64_t threads_cpu_ns;    /* the replay threads' CPU time, release to end */
	uint64_t off_cpu_ns;        /* time off the processor inside their long calls */
	unsigned emulated;          /* 1 << call for calls the allocator lacks */
	struct rt_callstat calls[MT_CALL_COUNT];
};

/* Returns 0, 1 with e set on bad input or a resource error.  A replay that
 * stalls does not return: the watchdog exits the process with status 3. */
int rt_replay_run(const char *path, const struct rt_opts *o, struct rt_result *res,
		  struct mt_error *e);

#endif
