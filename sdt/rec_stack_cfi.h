/*
 * rec_stack_cfi.h - how to step out of one frame, read from the DWARF call
 * frame information (.eh_frame) of the code it runs.
 *
 * The stack walker (rec_stack_walk.c) needs, for each return address, only
 * three facts: where the caller's stack pointer (the CFA) is, relative to
 * this frame's rsp or rbp; that the return address sits just below it; and
 * whether rbp was saved and where.  That is libunwind's "standard frame",
 * which nearly all compiled code has at its call sites.  Anything else
 * (signal trampolines, realigned stacks, registers saved in registers, CFA
 * expressions, code without unwind information) is answered "other", and
 * the whole stack is then left to libunwind (rec_unwind.c).
 *
 * x86-64 only; elsewhere every frame is "other".  Runs on a cache miss
 * only: it takes the dynamic loader's lock (dl_iterate_phdr) and
 * interprets the frame's CFI program, a few microseconds.
 */
#ifndef MT_REC_STACK_CFI_H
#define MT_REC_STACK_CFI_H

#include <stdint.h>

enum mt_frame_kind {
	MT_FRAME_STANDARD = 1, /* CFA = rsp or rbp + offset; RA at CFA - 8 */
	MT_FRAME_LAST,         /* the outermost frame: return address or rbp undefined */
	MT_FRAME_OTHER,        /* anything else: libunwind's business */
};

struct mt_frame_rule {
	enum mt_frame_kind kind;
	uint8_t cfa_from_rbp;  /* CFA is rbp + cfa_offset, else rsp + cfa_offset */
	uint8_t rbp_saved;     /* the caller's rbp is at CFA + rbp_offset, else unchanged */
	int32_t cfa_offset;
	int32_t rbp_offset;
};

/* The rule for the frame whose code is at pc (a return address - 1). */
void mt_cfi_rule(uintptr_t pc, struct mt_frame_rule *rule);

#endif
