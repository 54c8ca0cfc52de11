/*
 * rec_stack_memo.h - each thread's memory of the stack it walked last.
 *
 * Consecutive allocations of a thread mostly share the outer part of their
 * stacks.  The walker (rec_stack_walk.c) keeps, per thread, the registers
 * of every frame of its last walk and where it read each of them; a new
 * walk that reaches a frame in the same state, with those stack words
 * unchanged since, takes the rest from here instead of walking it again
 * (and moves it only when the new stack is deeper or shallower inside).
 * "The same state" and "those words" leave out rbp wherever no CFA
 * depends on it: code built without frame pointers keeps data in rbp, and
 * comparing it would miss frames whose walk it does not change.
 *
 * A memo belongs to one thread.  Memos are never freed: a thread that
 * needs one takes a free one, or one whose thread is gone (checked with
 * tgkill, once per thread), or maps a new one.
 */
#ifndef MT_REC_STACK_MEMO_H
#define MT_REC_STACK_MEMO_H

#include <stdint.h>

#include "trace_format.h"

/* How the remembered walk ended. */
enum mt_memo_end {
	MT_MEMO_LAST,   /* at a frame the CFI says is the outermost */
	MT_MEMO_LOW,    /* at a return address below the lowest code (end_rip, read at end_rsp - 8) */
	MT_MEMO_MAX,    /* at the depth asked for: the stack goes on */
};

/* Bits of mt_memo_frame.flags. */
enum {
	MT_MEMO_CFA_FROM_RBP = 1, /* the frame's CFA is rbp + offset */
	MT_MEMO_NEEDS_RBP = 2,    /* the frame's rbp decides a CFA from it outwards:
				   * it, or a frame out to the next one that saved
				   * rbp, takes its CFA from rbp */
	MT_MEMO_CHECK_SLOT = 4,   /* rbp_slot holds the caller's rbp, and the caller
				   * needs it (MT_MEMO_NEEDS_RBP): a reuse reads it */
};

/* One frame of the last walk, besides its return address (rip): the
 * other registers it was walked in, where the walk read the caller's rbp
 * from (0: rbp was not saved, the caller's is the same), the hash of the
 * return addresses from it outwards (mt_stack_hash), and the flags above.
 * rbp is only sure to be current where MT_MEMO_NEEDS_RBP is set: elsewhere
 * rbp holds data the walk never uses, and a reuse does not check it. */
struct mt_memo_frame {
	uintptr_t rsp, rbp, rbp_slot;
	uint64_t hash;
	uint32_t flags;
};

/* The thread's last walk, innermost frame first.  The return addresses
 * have an array of their own: they are the stack, copied out whole. */
struct mt_stack_memo {
	uint32_t count;         /* frames remembered; 0: nothing to reuse */
	enum mt_memo_end end;
	uintptr_t end_rip, end_rsp;
	uint64_t rip[MT_STACK_FRAMES_MAX];
	struct mt_memo_frame f[MT_STACK_FRAMES_MAX];
	/* A walk's new frames, kept aside while the last walk may yet be
	 * reused from a frame further out (not on the program's stack: a
	 * whole stack of them is 12 KiB). */
	uint64_t fresh_rip[MT_STACK_FRAMES_MAX];
	struct mt_memo_frame fresh[MT_STACK_FRAMES_MAX];
};

/* The calling thread's memo, NULL when none can be mapped. */
struct mt_stack_memo *mt_stack_memo(void);

/* In a forked child: the surviving thread keeps its memo, under its new
 * thread id. */
void mt_stack_memo_after_fork(void);

#endif
