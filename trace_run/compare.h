/*
 * compare.h - --compare and --repeat: one workload, several allocators or
 * runs, one table.
 */
#ifndef RT_COMPARE_H
#define RT_COMPARE_H

#include "options.h"

/* Replays cli->path cli->repeat times per allocator in cli->compare (or
 * the one of --allocator, or none), each run in a fresh trace_run process,
 * and prints the side-by-side table.  Returns the exit status. */
int rt_compare(const struct rt_cli *cli);

#endif
