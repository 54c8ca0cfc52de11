/*
 * allocator.h - which malloc a replay measures, and proving it is that one.
 *
 * An allocator other than glibc's is swapped in the only way that covers
 * every call: LD_PRELOAD of its library in a re-executed trace_run.  The
 * Debian libraries are found beside the C library actually loaded (its
 * multiarch directory), so nothing assumes x86_64.
 */
#ifndef RT_ALLOCATOR_H
#define RT_ALLOCATOR_H

#include <stddef.h>

/*
 * Resolves NAME (glibc, jemalloc, tcmalloc, mimalloc, or a path with a '/')
 * to the library to preload, "" for glibc, and checks that a replay can
 * use it, for --allocator and each of --compare's alike: not with -o
 * (tuned), which sets glibc's malloc; and, with probe, that the dynamic
 * loader can preload it (a re-executed process, whose loader already
 * has, need not try again).  in_compare: NAME came from --compare, for
 * the message.  Returns 0, or the exit status with a one-line reason in
 * why: 2 for a usage error (an unknown name, -o with another allocator),
 * 1 for a library that is missing (naming the package to install) or that
 * the loader cannot preload.
 */
int rt_allocator_check(const char *name, int tuned, int in_compare, int probe, char *lib,
		       size_t lib_len, char *why, size_t why_len);

/* The file malloc resolves to in this process. */
const char *rt_malloc_origin(void);

/* Whether that file is the C library. */
int rt_malloc_is_libc(void);

/*
 * Drops from LD_PRELOAD every library that defines malloc (an allocator
 * inherited from the environment would otherwise stay in front of the one
 * asked for, or of glibc); returns how many it dropped.
 */
int rt_allocator_unpreload(void);

/*
 * Calls (bit 1 << enum mt_call) whose entry point is not the allocator's
 * own: jemalloc has no pvalloc, for one, and glibc's would carve the block
 * from glibc's heap and hand it to jemalloc's free.  The replay emulates
 * those through the allocator's memalign, posix_memalign, realloc or free.
 */
unsigned rt_allocator_foreign(void);

/* Whether symbol comes from the same library as malloc. */
int rt_allocator_own(const char *symbol);

#endif
