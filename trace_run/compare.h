/*
 * compare.h - --compare and --repeat: one workload, several allocators or
 * runs, one table.
 */
#ifndef RT_COMPARE_H
#define RT_COMPARE_H

#include <stdint.h>

#include "options.h"

enum { RT_MAX_ALLOCATORS = 8 };

/* Replays cli->path cli->repeat times per allocator in cli->compare (or
 * the one of --allocator, or none), each run in a fresh trace_run process,
 * and prints the side-by-side table.  Returns the exit status. */
int rt_compare(const struct rt_cli *cli);

/* The children's JSON read back, for the table and html_report.c. */
/* The number after "key": at or after from; 0 when absent. */
uint64_t rt_json_u64(const char *from, const char *key);
/* The object of one call type in a run's "calls", or NULL. */
const char *rt_json_call(const char *json, unsigned call);
/* The median of n runs (of an even count, midway between the middle two),
 * and the lowest and highest; sorts v. */
struct rt_spread {
	uint64_t median, min, max;
};
struct rt_spread rt_summarise(uint64_t *v, int n);

#endif
