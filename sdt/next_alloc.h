/*
 * next_alloc.h - the allocator below us in the link chain.
 *
 * The interposer forwards every call to whatever malloc comes next (glibc,
 * or jemalloc/tcmalloc/mimalloc preloaded after us).  Finding it needs
 * dlsym, and dlsym may itself allocate; until the real functions are known,
 * the table points at bootstrap stubs that resolve it and serve the calls
 * made meanwhile from a static arena.  Wrappers therefore call through the
 * table unconditionally: no "resolved yet?" branch on the per-call path.
 */
#ifndef MT_NEXT_ALLOC_H
#define MT_NEXT_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#include "trace_format.h"
#include "visibility.h"

struct mt_next {
	void *(*malloc)(size_t);
	void (*free)(void *);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void *(*memalign)(size_t, size_t);
	int (*posix_memalign)(void **, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	void *(*valloc)(size_t);
	void *(*pvalloc)(size_t);
	size_t (*usable_size)(void *);
#if HAVE_FREE_SIZED
	void (*free_sized)(void *, size_t);
#endif
#if HAVE_FREE_ALIGNED_SIZED
	void (*free_aligned_sized)(void *, size_t, size_t);
#endif
};

MT_HIDDEN extern struct mt_next mt_next;
MT_HIDDEN extern enum mt_allocator mt_next_kind;   /* valid once resolved */
MT_HIDDEN extern char mt_next_name[32];            /* e.g. "libc.so.6" */

/* Resolves the table now (idempotent); the constructor calls it so the
 * allocator is known before recording starts. */
void mt_next_resolve(void);

/* The bootstrap arena: blocks from it are never passed to the next
 * allocator.  Its size is a constant so the test on every free is a
 * subtract and a compare. */
#define MT_BOOT_ARENA_SIZE ((size_t)64 << 10)
MT_HIDDEN extern unsigned char mt_boot_arena[MT_BOOT_ARENA_SIZE];

static inline int mt_in_boot_arena(const void *p)
{
	return (uintptr_t)p - (uintptr_t)mt_boot_arena < MT_BOOT_ARENA_SIZE;
}

size_t mt_boot_usable(const void *p);
void *mt_boot_realloc(void *p, size_t size);

/*
 * Functions the next allocator lacks, built from its posix_memalign and
 * realloc (next_compat.c).  Without them a call such as pvalloc would find
 * glibc's copy behind jemalloc and hand jemalloc a glibc block.
 */
void mt_compat_fill(struct mt_next *n, int (*from_libc)(void *fn));

/*
 * Usable size of a live block, and the glibc chunk flags (MT_RF_MMAPPED,
 * MT_RF_NON_MAIN) when glibc is below.  Reading glibc's chunk header costs
 * one load from a line the allocator just touched; any other allocator is
 * asked through its malloc_usable_size.
 */
static inline size_t mt_glibc_chunk_word(const void *p)
{
	return ((const size_t *)p)[-1];
}

static inline uint8_t mt_next_flags(const void *p)
{
	if (mt_next_kind != MT_ALLOC_GLIBC || !p)
		return 0;
	size_t h = mt_glibc_chunk_word(p);
	return (uint8_t)((h & 2 ? MT_RF_MMAPPED : 0) | (h & 4 ? MT_RF_NON_MAIN : 0));
}

static inline size_t mt_next_usable(void *p)
{
	if (__builtin_expect(mt_next_kind == MT_ALLOC_GLIBC, 1)) {
		/* glibc's musable(): chunk size less the header, plus the next
		 * chunk's prev_size word for chunks that are not mmapped. */
		size_t h = mt_glibc_chunk_word(p);
		return (h & ~(size_t)7) - (h & 2 ? 2 * sizeof(size_t) : sizeof(size_t));
	}
	return mt_next.usable_size(p);
}

#endif
