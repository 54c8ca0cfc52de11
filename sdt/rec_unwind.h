/*
 * rec_unwind.h - the call stack of an allocating call, from inside malloc.
 *
 * Code built without frame pointers (Debian's libraries, anything at -O1
 * and up) can only be walked with its DWARF call frame information.  We
 * use libunwind's unw_backtrace for it, whose x86-64 fast path caches the
 * frame layout of every return address it has seen, per thread, so a call
 * site met before costs a hash lookup per frame rather than a CFI
 * interpretation.  libunwind is loaded with dlopen(RTLD_LOCAL) only when
 * stacks are asked for: linked normally it would put its own _Unwind_* and
 * backtrace ahead of libgcc's and glibc's in every traced program.
 */
#ifndef MT_REC_UNWIND_H
#define MT_REC_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#include "rec_stack_walk.h"
#include "visibility.h"

/* Loads libunwind and finds our own code's address range.  0, or -1 after
 * printing why stacks cannot be recorded. */
int mt_unwind_load(void);

/* What mt_unwind_load found: the recorder's own code, left out of every
 * stack, and whether our walker's rule cache is mapped. */
struct mt_unwind_setup {
	uintptr_t own_start, own_end;
	int walker;
};
MT_HIDDEN extern struct mt_unwind_setup mt_unwind_setup;

/* The whole stack by libunwind: what mt_unwind does when our walker
 * cannot. */
size_t mt_unwind_whole(const uint64_t **frames, size_t max, uint64_t *hash);

/* Up to max return addresses of the calling thread, from the program's
 * call into the malloc family outwards: the recorder's own frames are left
 * out.  *frames points at them, in the thread's memo (rec_stack_memo.h),
 * until the thread's next walk.  Returns how many, and their mt_stack_hash
 * in *hash; 0 when the stack could not be walked.  Inline, so that the
 * walk starts one frame of ours nearer the program. */
static inline size_t mt_unwind(const uint64_t **frames, size_t max, uint64_t *hash)
{
	long n = mt_unwind_setup.walker
			 ? mt_walk(frames, max, mt_unwind_setup.own_start, mt_unwind_setup.own_end, hash)
			 : -1;
	return n >= 0 ? (size_t)n : mt_unwind_whole(frames, max, hash);
}

/* A stack's hash is built from its outermost frame in, so that a walk
 * that reuses the outer part of the last one (rec_stack_memo.h) hashes
 * only its new frames. */
#define MT_STACK_HASH_SEED 0x9e3779b97f4a7c15u

static inline uint64_t mt_stack_hash_step(uint64_t outer, uint64_t frame)
{
	uint64_t h = (outer ^ frame) * 0xff51afd7ed558ccdu;
	return h ^ h >> 32;
}

static inline uint64_t mt_stack_hash(const uint64_t *frames, size_t n)
{
	uint64_t h = MT_STACK_HASH_SEED;
	while (n)
		h = mt_stack_hash_step(h, frames[--n]);
	return h;
}

#endif
