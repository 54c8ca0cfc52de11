/*
 * glibc_layout.h - the few facts about glibc's malloc internals the event
 * deriver relies on, in one place so that docs/PROBES.md can point at them
 * and a new glibc release means reviewing one file.
 *
 * All are for 64-bit glibc (x86_64, aarch64...).  Checked against glibc
 * 2.27 to 2.40 (malloc/malloc.c, malloc/arena.c); the runtime checks in
 * glibc_arenas.c turn off what a given libc does not match.
 */
#ifndef MT_GLIBC_LAYOUT_H
#define MT_GLIBC_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

/* Chunk header word (the size_t just below the user pointer): flag bits. */
#define GL_PREV_INUSE 0x1
#define GL_IS_MMAPPED 0x2
#define GL_NON_MAIN_ARENA 0x4
#define GL_SIZE_BITS 0x7

/*
 * Heaps of non-main arenas are HEAP_MAX_SIZE-aligned mappings (64 MiB =
 * 2 * DEFAULT_MMAP_THRESHOLD_MAX) that start with a heap_info:
 *   ar_ptr (offset 0), prev (8), size (16), mprotect_size (24)...
 * glibc.malloc.hugetlb=2 (2.35+) changes the heap size, so the deriver
 * leaves arenas alone under that tunable.
 */
#define GL_HEAP_MAX_SIZE ((uintptr_t)64 << 20)
#define GL_HEAP_AR_PTR 0
#define GL_HEAP_PREV 8
#define GL_HEAP_SIZE 16

/*
 * struct malloc_state from 2.27 on: mutex, flags, have_fastchunks (ints),
 * fastbinsY[10], top, last_remainder, bins[254], binmap[4], then next,
 * next_free, attached_threads, system_mem.  An empty bin i links to
 * itself: its fd and bk hold the address 16 bytes below its fd.
 */
#define GL_ARENA_TOP 96
#define GL_ARENA_BINS 112        /* bins[2 * (i - 1)], [.. + 1]: fd, bk of bin i */
#define GL_ARENA_BIN_COUNT 127   /* bins 1 (unsorted) to 127 */
#define GL_ARENA_SYSTEM_MEM 2184
#define GL_LAYOUT_MIN_MINOR 27   /* glibc 2.x versions these offsets hold for */
#define GL_LAYOUT_MAX_MINOR 40

/* Dynamic threshold rule (free of an mmapped chunk), from malloc.c. */
#define GL_DEFAULT_MMAP_THRESHOLD ((size_t)128 << 10)
#define GL_DEFAULT_TRIM_THRESHOLD ((size_t)128 << 10)
#define GL_DEFAULT_MMAP_THRESHOLD_MAX ((size_t)32 << 20)

/* Largest chunk the per-thread cache (tcache, 2.26+) holds: 64 bins. */
#define GL_TCACHE_MAX_CHUNK ((size_t)1040)

/* mallopt parameters that switch the dynamic thresholds off. */
#define GL_M_TRIM_THRESHOLD (-1)
#define GL_M_TOP_PAD (-2)
#define GL_M_MMAP_THRESHOLD (-3)
#define GL_M_MMAP_MAX (-4)

#endif
