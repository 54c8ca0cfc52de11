/*
 * rec_clock.h - the recorder's timestamps.
 *
 * On x86 a record is stamped with RDTSC, unfenced: about 10 ns here, where
 * clock_gettime costs about 26 ns.  The stamp only has to order a thread's
 * own calls and measure gaps, and the trace header pairs TSC readings with
 * CLOCK_MONOTONIC so readers can convert.  Elsewhere the stamp is
 * CLOCK_MONOTONIC nanoseconds.
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
#else
#define MT_TS_SOURCE MT_TS_MONOTONIC_NS
static inline uint64_t mt_clock_ts(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#endif

static inline uint64_t mt_clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
