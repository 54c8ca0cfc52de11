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
 * have an array of their own: they are the stack, handed out whole.  The
 * frames are a window of their spaces, placed where a walk that reuses
 * the outer part of the last one can put its new frames in front of it
 * without moving it: at most the depth below and above the window's
 * start (mt_memo_place). */
struct mt_stack_memo {
	uint32_t count;         /* frames remembered; 0: nothing to reuse */
	enum mt_memo_end end;
	uintptr_t end_rip, end_rsp;
	uint64_t *rip;          /* rip_space + the window's start */
	struct mt_memo_frame *f; /* f_space + the same */
	/* A walk's new frames, kept aside while the last walk may yet be
	 * reused from a frame further out (not on the program's stack). */
	uint64_t fresh_rip[MT_STACK_FRAMES_MAX];
	struct mt_memo_frame fresh[MT_STACK_FRAMES_MAX];
	uint64_t rip_space[2 * MT_STACK_FRAMES_MAX];
	struct mt_memo_frame f_space[2 * MT_STACK_FRAMES_MAX];
};

/* Where a window starts when it must move: room for a whole stack on
 * either side of its start. */
#define MT_MEMO_HOME (MT_STACK_FRAMES_MAX / 2)

static inline void mt_memo_place(struct mt_stack_memo *m, uint32_t start)
{
	m->rip = &m->rip_space[start];
	m->f = &m->f_space[start];
}

/* The calling thread's memo, NULL when none can be mapped. */
struct mt_stack_memo *mt_stack_memo(void);

/* In a forked child: the surviving thread keeps its memo, under its new
 * thread id. */
void mt_stack_memo_after_fork(void);

#endif
