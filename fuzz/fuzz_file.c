/*
 * fuzz_file.c - see fuzz_file.h.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_file.h"

void fuzz_file_init(struct fuzz_file *f, const char *name)
{
	f->fd = memfd_create(name, MFD_CLOEXEC);
	if (f->fd < 0) {
		perror("memfd_create");
		abort();
	}
	snprintf(f->path, sizeof f->path, "/proc/self/fd/%d", f->fd);
}

void fuzz_file_fill(struct fuzz_file *f, const uint8_t *data, size_t len)
{
	if (ftruncate(f->fd, 0) || pwrite(f->fd, data, len, 0) != (ssize_t)len) {
		perror("fuzz_file_fill");
		abort();
	}
}
