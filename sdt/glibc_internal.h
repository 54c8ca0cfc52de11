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

#define MT_HIDDEN __attribute__((visibility("hidden")))

/* Fires the derived marker of event ev (enum mt_event) with glibc's two
 * arguments, and records it when the recorder is on. */
MT_HIDDEN void mt_glibc_emit(unsigned ev, uint64_t a1, uint64_t a2);

/* One-time set-up (thresholds from the environment); safe to call often:
 * after the first time it is one load and a branch. */
MT_HIDDEN extern int mt_glibc_ready;
MT_HIDDEN void mt_glibc_init_once(void);

static inline void mt_glibc_init(void)
{
	if (!__atomic_load_n(&mt_glibc_ready, __ATOMIC_ACQUIRE))
		mt_glibc_init_once();
}

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

/* Arena and heap tracker. */
MT_HIDDEN uintptr_t mt_glibc_arena_of(const void *ptr, uintptr_t chunk);
MT_HIDDEN void mt_glibc_note_block(const void *ptr, uintptr_t chunk, uintptr_t kept);
MT_HIDDEN void mt_glibc_note_foreign_free(const void *ptr, uintptr_t chunk, uintptr_t arena);
MT_HIDDEN void mt_glibc_arena_freed(uintptr_t arena);
MT_HIDDEN void mt_glibc_arenas_init(void);

#endif
