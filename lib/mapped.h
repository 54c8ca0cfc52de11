/*
 * mapped.h - what the two readers (trace, workload) do alike with the
 * bytes of a file: map them read-only, and check reserved bytes are zero;
 * and the unnamed scratch files that readers, writer and trace2wl use.
 */
#ifndef MT_MAPPED_H
#define MT_MAPPED_H

#include <stddef.h>
#include <stdint.h>

#include "mt_error.h"

/* Maps len bytes of fd read-only (*map stays NULL for an empty file) and
 * closes fd either way.  0, or -1 with e set naming path. */
int mt_map_fd(int fd, size_t len, const uint8_t **map, const char *path, struct mt_error *e);

/* n zeroed bytes straight from mmap (NULL on failure; n 0 gets a page),
 * and their release: for the tables a reader builds in trace_run before it
 * measures an allocator, which must neither come from that allocator nor
 * be kept by it for the replay to reuse. */
void *mt_pages(size_t n);
void mt_pages_free(void *p, size_t n);

/* Lets go of the whole pages of a read-only file mapping from the one
 * holding from up to the one holding to: they leave the resident set and
 * are read again (from the page cache) if touched.  Readers call it behind
 * them every few MB, so a file of any length is resident only in windows. */
void mt_let_go(const uint8_t *from, const uint8_t *to);
enum { MT_LET_GO_EVERY = 4 << 20 };

/* A file without a name in dir, open for reading and writing, that goes
 * when it is closed: O_TMPFILE, or where the filesystem has none a
 * mkstemp file "dir/stemXXXXXX" unlinked at once.  -1 with errno set. */
int mt_anon_file(const char *dir, const char *stem);

static inline int mt_all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

#endif
