/*
 * compare.h - --compare: one workload, several allocators, one table.
 */
#ifndef RT_COMPARE_H
#define RT_COMPARE_H

#include "options.h"

/* Replays cli->path once per allocator in cli->compare, each in a fresh
 * trace_run process, and prints the side-by-side table.  Returns the exit
 * status. */
int rt_compare(const struct rt_cli *cli);

#endif
