/*
 * rec_clock.h - the recorder's timestamps.
 *
 * On x86 a record is stamped with RDTSC: about 10 ns here, where
 * clock_gettime costs about 26 ns; the trace header pairs TSC readings with
 * CLOCK_MONOTONIC so readers can convert.  Elsewhere the stamp is
 * CLOCK_MONOTONIC nanoseconds (the vDSO orders its own clock read).
 *
 * RDTSC is not ordered with the instructions before it: it may read the
 * clock while an earlier load or atomic is still waiting for its line.
 * That is harmless where a stamp only orders its thread's own calls and
 * measures gaps (mt_clock_ts); where it must not precede what the thread
 * saw of another (mt_clock_ts_ordered, recorder.h's mt_record_ts), an
 * LFENCE goes first: ~18 ns back to back here against ~11.
 */
#ifndef MT_REC_CLOCK_H
#define MT_REC_CLOCK_H

#include <stdint.h>
#include <time.h>

#include "trace_format.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define MT_TS_SOURCE MT_TS_TSC
static inline uint64_t mt_clock_ts(void)
{
	return __rdtsc();
}

/* A stamp no earlier than the end of every instruction before it. */
static inline uint64_t mt_clock_ts_ordered(void)
{
#ifdef __SSE2__
	_mm_lfence();
#endif
	return __rdtsc();
}
#else
#define MT_TS_SOURCE MT_TS_MONOTONIC_NS
static inline uint64_t mt_clock_ts(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t mt_clock_ts_ordered(void)
{
	return mt_clock_ts();
}
#endif

static inline uint64_t mt_clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
