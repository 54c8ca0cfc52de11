/*
 * hist.c - merging per-thread statistics and reading percentiles from them,
 * done once at the end of a replay (see hist.h).
 */
#include "config.h"

#include <math.h>

#include "hist.h"

void rt_callstat_merge(struct rt_callstat *into, const struct rt_callstat *from)
{
	into->total += from->total;
	if (from->max > into->max)
		into->max = from->max;
	for (int i = 0; i < RT_HIST_BUCKETS; i++) {
		into->hist[i] += from->hist[i];
		into->count += from->hist[i];
	}
}

/* Largest value that falls in bucket i = 4 * s + m (see rt_hist_index);
 * the top bucket's wraps to UINT64_MAX. */
static uint64_t bucket_top(unsigned i)
{
	if (i < 4)
		return i;
	unsigned s = i / 4 - 1, m = i % 4 + 4;
	return ((uint64_t)(m + 1) << s) - 1;
}

uint64_t rt_callstat_quantile(const struct rt_callstat *s, double q)
{
	if (s->count == 0)
		return 0;
	uint64_t rank = (uint64_t)ceil(q * (double)s->count), seen = 0;
	if (rank == 0)
		rank = 1;
	for (unsigned i = 0; i < RT_HIST_BUCKETS; i++) {
		seen += s->hist[i];
		if (seen >= rank) {
			uint64_t top = bucket_top(i);
			return top < s->max ? top : s->max;
		}
	}
	return s->max;
}
