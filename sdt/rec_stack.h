/*
 * rec_stack.h - call stacks of allocating calls (MTRACE_STACKS=N).
 *
 * Off by default.  With MTRACE_STACKS=N (1..256, as mtrace-record
 * --stacks[=N] sets it) every allocating call's record carries the number
 * of its stack, up to N frames, in the trace's stack table.  Each distinct
 * stack is kept once in the process (a hash table of frame arrays in memory
 * mapped for it, never malloc'd) and written once into each trace file.
 */
#ifndef MT_REC_STACK_H
#define MT_REC_STACK_H

#include <stdint.h>

#include "rec_file.h"
#include "visibility.h"

/* Frames per stack; 0 while stacks are off. */
MT_HIDDEN extern unsigned mt_stack_depth;

/* Reads MTRACE_STACKS and, if stacks are wanted, loads the unwinder and
 * maps the table.  Once per process, before any trace file is opened. */
void mt_stacks_configure(void);

/* A trace file was opened: its header says whether records carry stacks,
 * and the stacks known so far must be written into it again. */
void mt_stacks_file_opened(struct mt_file *f);

/* The calling thread's stack now, as a stack table number (0: unknown).
 * Called by mt_record with the thread's busy flag set, so what the walk
 * itself allocates is not recorded: libunwind's thread-local storage,
 * which glibc allocates on a thread's first walk (one small block per
 * thread, counted as dropped; its free at thread exit is one of a block
 * the trace never saw).  Recording it would put it out of order: it comes
 * after the call being recorded, which may have freed what it reuses. */
uint64_t mt_stack_capture(void);

/* In a forked child, before it opens its own trace. */
void mt_stacks_after_fork(void);

#endif
