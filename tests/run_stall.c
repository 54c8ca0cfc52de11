/*
 * run_stall.so - an "allocator" with two faults no load-time check can
 * foresee: it hangs on one request size (for the watchdog test) and hands
 * out a block far shorter than asked for on another (an allocator bug, like
 * tcmalloc's pvalloc wrapping a size near 2^64: trace_run must not write
 * past the block).  On a third it sleeps before it returns, as an
 * allocator waiting on a lock does: time in the call that is no CPU time
 * (t-run-offcpu).  Every other call is glibc's own; malloc_usable_size is
 * defined here so that trace_run takes it as this allocator's.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <unistd.h>

#include "run_stall.h"

extern void *__libc_malloc(size_t size);

void *malloc(size_t size)
{
	while (size == RUN_STALL_SIZE)
		pause();
	if (size == RUN_SLEEP_SIZE)
		usleep(RUN_SLEEP_USEC);
	return __libc_malloc(size == RUN_SHORT_SIZE ? RUN_SHORT_GIVEN : size);
}

size_t malloc_usable_size(void *p)
{
	static size_t (*libc)(void *);
	if (!libc)
		libc = (size_t (*)(void *))dlsym(RTLD_NEXT, "malloc_usable_size");
	return libc(p);
}
