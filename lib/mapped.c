/*
 * mapped.c - see mapped.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mapped.h"

int mt_map_fd(int fd, size_t len, const uint8_t **map, const char *path, struct mt_error *e)
{
	void *m = len ? mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
	int err = errno;
	close(fd);
	if (m == MAP_FAILED)
		return mt_error_set(e, path, "cannot map: %s", strerror(err));
	*map = m;
	return 0;
}

void *mt_pages(size_t n)
{
	void *p = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void mt_pages_free(void *p, size_t n)
{
	if (p)
		munmap(p, n ? n : 1);
}

void mt_let_go(const uint8_t *from, const uint8_t *to)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)from & ~(page - 1), b = (uintptr_t)to & ~(page - 1);
	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
}

int mt_anon_file(const char *dir, const char *stem)
{
	int fd = open(dir, O_TMPFILE | O_RDWR, 0600);
	if (fd >= 0)
		return fd;
	size_t n = strlen(dir) + strlen(stem) + 8;
	char *name = malloc(n);
	if (!name)
		return -1;
	snprintf(name, n, "%s/%sXXXXXX", dir, stem);
	fd = mkstemp(name);
	if (fd >= 0)
		unlink(name);
	int err = errno;
	free(name);
	errno = err;
	return fd;
}
