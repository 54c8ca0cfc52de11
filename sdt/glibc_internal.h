/*
 * glibc_internal.h - what the parts of the glibc event deriver share:
 * the marker/recorder emitter (glibc_events.c), the arena and heap tracker
 * (glibc_arenas.c) and the threshold tracker with the mallopt interposer
 * (glibc_thresholds.c).  None of it is seen outside sdt/glibc_*.c.
 */
#ifndef MT_GLIBC_INTERNAL_H
#define MT_GLIBC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "glibc_events.h"

/* Fires the derived marker of event ev (enum mt_event) with glibc's two
 * arguments, and records it when the recorder is on. */
MT_HIDDEN void mt_glibc_emit(unsigned ev, uint64_t a1, uint64_t a2);

/* The break as it is when the deriver starts: moves are counted from it.
 * mt_glibc_brk_now: the program break now (sbrk(0), read from libc). */
MT_HIDDEN void mt_glibc_brk_baseline(void);
MT_HIDDEN uintptr_t mt_glibc_brk_now(void);

/* glibc's cached program break, in libc's data; weak, so a C library
 * without it leaves it NULL. */
extern void *__curbrk __attribute__((weak));

/* Threshold tracker: would freeing this mmapped chunk raise the dynamic
 * thresholds?  And: it was freed, raise them. */
MT_HIDDEN int mt_glibc_free_raises_threshold(uintptr_t chunk);
MT_HIDDEN void mt_glibc_raise_threshold(uintptr_t chunk);

/* The glibc malloc tunable glibc.malloc.NAME (or its older environment
 * alias, may be NULL) if the program was started with it set. */
MT_HIDDEN int mt_glibc_tunable(const char *name, const char *alias, unsigned long long *value);

/*
 * Arena and heap tracker, one call on each side of a call to glibc:
 * before a block of a heap is freed (free, realloc), the arena it belongs
 * to (0 when not in one: mmapped, or heaps not where we expect them);
 * after the call, that arena (or 0) and the block returned (NULL for none).
 */
MT_HIDDEN uintptr_t mt_glibc_arenas_before_free(const void *ptr, uintptr_t chunk);
MT_HIDDEN void mt_glibc_arenas_after(uintptr_t freed_arena, const void *result);
MT_HIDDEN void mt_glibc_arenas_init(void);

#endif
