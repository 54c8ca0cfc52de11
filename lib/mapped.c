/*
 * mapped.c - see mapped.h.
 */
#include "config.h"

#include <errno.h>
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
