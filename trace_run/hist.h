/*
 * hist.h - per-call-type timing statistics, cheap enough for the replay loop.
 *
 * Each replay thread owns one set and updates it without locks; the sets are
 * merged after the threads are joined.  Percentiles come from a fixed
 * log2 histogram with 4 linear sub-buckets per power of two, so a figure is
 * within 25% of the true value and an update is a bit scan, a shift and an
 * increment, without a branch.
 */
#ifndef RT_HIST_H
#define RT_HIST_H

#include <stdint.h>

#include "trace_format.h"

#define RT_HIST_BUCKETS 252 /* 0..7 exact, then 61 powers of two x 4 */

/* count is the sum of hist: rt_callstat_merge sets it, so the replay loop
 * does not keep it a second time. */
struct rt_callstat {
	uint64_t count, total, max;
	uint64_t hist[RT_HIST_BUCKETS];
};

/* Bucket 4 * s + m holds m << s .. ((m + 1) << s) - 1, where m is what is
 * left of the value shifted right by s: its top three bits, 4..7, from 8
 * up.  Values 0..7 take s = 0, m the value itself: a bucket each.  The
 * largest take 251.  Five instructions without a branch, where testing for
 * small values first cost the replay loop ~5 more a call. */
static inline __attribute__((always_inline)) unsigned rt_hist_index(uint64_t v)
{
	unsigned s = 61u - (unsigned)__builtin_clzll(v | 4);
	return 4 * s + (unsigned)(v >> s);
}

/* Two adds, a compare and the bucket increment. */
static inline __attribute__((always_inline)) void rt_callstat_add(struct rt_callstat *s, uint64_t v)
{
	s->total += v;
	if (v > s->max)
		s->max = v;
	s->hist[rt_hist_index(v)]++;
}

/* Adds from into into, counting from's calls; merging a thread's figures
 * into a zeroed set is how they are read. */
void rt_callstat_merge(struct rt_callstat *into, const struct rt_callstat *from);

/* The q-quantile (0 < q <= 1): the top of the bucket holding it, at most max. */
uint64_t rt_callstat_quantile(const struct rt_callstat *s, double q);

#endif
