/*
 * rec_failsys - a library that makes the recorder's file system calls fail
 * the way a hostile system would, preloaded in front of it, for the tests
 * that each failure stops recording (or is worked around) instead of
 * breaking the program.
 *
 *   REC_FAIL_MAP_AFTER=N   after N window mappings (MAP_SHARED of a
 *                          descriptor of 64 or above, where the recorder
 *                          keeps its trace: sdt/rec_fd.h), each further
 *                          one fails with ENOMEM
 *   REC_FAIL_FALLOCATE=1   fallocate fails with EOPNOTSUPP, as on a
 *                          filesystem without it
 * Everything else goes to the kernel untouched.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static long passed, allowed = -2;
	if (allowed == -2) {
		const char *n = getenv("REC_FAIL_MAP_AFTER");
		allowed = n ? atol(n) : -1;
	}
	if (allowed >= 0 && (flags & MAP_SHARED) && fd >= 64 && passed++ >= allowed) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

int fallocate(int fd, int mode, off_t off, off_t len)
{
	const char *no = getenv("REC_FAIL_FALLOCATE");
	if (no && *no == '1') {
		errno = EOPNOTSUPP;
		return -1;
	}
	return (int)syscall(SYS_fallocate, fd, mode, off, len);
}
