/*
 * hist.h - per-call-type timing statistics, cheap enough for the replay loop.
 *
 * Each replay thread owns one set and updates it without locks; the sets are
 * merged after the threads are joined.  Percentiles come from a fixed
 * log2 histogram with 4 linear sub-buckets per power of two, so a figure is
 * within 25% of the true value and an update is a count-leading-zeros, a
 * shift and an increment.
 */
#ifndef RT_HIST_H
#define RT_HIST_H

#include <stdint.h>

#include "trace_format.h"

#define RT_HIST_BUCKETS 256 /* 64 powers of two x 4 sub-buckets */

/* count is the sum of hist: rt_callstat_merge sets it, so the replay loop
 * does not keep it a second time. */
struct rt_callstat {
	uint64_t count, total, max;
	uint64_t hist[RT_HIST_BUCKETS];
};

/* Values 0..3 have their own buckets; above, bucket = 4 * log2 + the next
 * two bits. */
static inline unsigned rt_hist_index(uint64_t v)
{
	if (v < 4)
		return (unsigned)v;
	unsigned b = 63u - (unsigned)__builtin_clzll(v);
	return b * 4 + (unsigned)((v >> (b - 2)) & 3);
}

/* About 4 ns: two adds, a compare and the bucket increment. */
static inline void rt_callstat_add(struct rt_callstat *s, uint64_t v)
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
