/*
 * rec_stack_walk.h - the recorder's own stack walker: the fast path of
 * rec_unwind.c.
 *
 * It walks what libunwind's unw_backtrace walks, the same way (return
 * address at CFA - 8, the CFA from rsp or rbp, rbp restored where the CFI
 * saved it), from a cache of one rule per return address that all threads
 * share, filled from the code's CFI (rec_stack_cfi.c) the first time an
 * address is seen.  It gives up, and libunwind walks the stack instead, on
 * any frame that is not of that standard form.
 */
#ifndef MT_REC_STACK_WALK_H
#define MT_REC_STACK_WALK_H

#include <stddef.h>
#include <stdint.h>

/* Maps the rule cache; 0, or -1 when it cannot be mapped (every walk is
 * then libunwind's). */
int mt_walk_init(void);

/* Return addresses of the calling thread's stack, outwards from the
 * walker's caller, the leading ones in [skip_lo, skip_hi) (the recorder's
 * own frames) left out and at most max kept, in the thread's memo, where
 * *frames points; their mt_stack_hash in *hash.  Returns how many were
 * kept, or -1 when a frame is not standard (or no memo could be had). */
long mt_walk(const uint64_t **frames, size_t max, uintptr_t skip_lo, uintptr_t skip_hi,
	     uint64_t *hash);

#endif
