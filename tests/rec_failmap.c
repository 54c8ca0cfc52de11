/*
 * rec_failmap - a library that makes the recorder's window mappings fail,
 * preloaded in front of it, for the test that a mapping that fails stops
 * recording instead of breaking the program.
 *
 * The recorder keeps its trace descriptor at 64 or above (sdt/rec_fd.h) and
 * maps windows MAP_SHARED from it; after REC_FAILMAP_AFTER such mappings
 * (environment, default 0) every further one fails with ENOMEM.  Every
 * other mapping goes to the kernel untouched.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static long passed, allowed = -1;
	if (allowed < 0) {
		const char *n = getenv("REC_FAILMAP_AFTER");
		allowed = n ? atol(n) : 0;
	}
	if ((flags & MAP_SHARED) && fd >= 64 && passed++ >= allowed) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}
