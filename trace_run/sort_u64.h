/*
 * sort_u64.h - sorting counts and cycle figures, for the medians trace_run
 * reports (compare.c's spreads over runs, timer.c's calibration).
 */
#ifndef RT_SORT_U64_H
#define RT_SORT_U64_H

#include <stdint.h>
#include <stdlib.h>

static inline int rt_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Sorts v[0..n) in ascending order. */
static inline void rt_sort_u64(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof *v, rt_cmp_u64);
}

#endif
