/*
 * run_stall.so - an "allocator" that hangs on one request size, so the
 * watchdog test has a replay that stops making progress for a reason the
 * load-time check cannot see.  Every other call is glibc's own.
 */
#include <stddef.h>
#include <unistd.h>

#include "run_stall.h"

extern void *__libc_malloc(size_t size);

void *malloc(size_t size)
{
	while (size == RUN_STALL_SIZE)
		pause();
	return __libc_malloc(size);
}
