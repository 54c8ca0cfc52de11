/*
 * rec_pages.c - see rec_pages.h.
 *
 * Cost: a pwrite of zeros (ext4; none on tmpfs) and one madvise a window;
 * the zeros come from a never-written anonymous mapping, every page of it
 * the kernel's one zero page, so they cost no memory.
 */
#include "config.h"

#include <errno.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "rec_pages.h"
#include "rec_thread.h"

/* Zeros to write a window's pages from; NULL until first needed, or when
 * they could not be mapped. */
static const uint8_t *zeros;
static int zeros_tried;

static const uint8_t *zero_pages(void)
{
	if (!zeros_tried) {
		void *m = mmap(NULL, MT_REC_WINDOW_MAX, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		zeros = m == MAP_FAILED ? NULL : m;
		zeros_tried = 1;
	}
	return zeros;
}

/* tmpfs allocates a file's pages at fallocate already: writing zeros
 * over them would only copy.  Asked of the file system once a file (by
 * its serial, which starts at 1), not once a window; the descriptor must
 * be known to be ours when it is asked. */
static unsigned fs_checked_serial;
static int fs_has_pages_after_fallocate;

static int pages_exist_after_fallocate(const struct mt_file *f)
{
	if (f->serial != fs_checked_serial) {
		struct statfs sf;
		fs_has_pages_after_fallocate =
			fstatfs(f->fd.fd, &sf) == 0 &&
			(sf.f_type == TMPFS_MAGIC || sf.f_type == RAMFS_MAGIC);
		fs_checked_serial = f->serial;
	}
	return fs_has_pages_after_fallocate;
}

/* The descriptor is checked again just before: the program may have
 * closed it and opened a file of its own under its number since the claim. */
void mt_pages_write_zeros(struct mt_file *f, uint64_t off, uint32_t size)
{
	if (!mt_fd_ours(&f->fd) || pages_exist_after_fallocate(f) || !zero_pages())
		return;
	ssize_t n;
	do
		n = pwrite(f->fd.fd, zeros, size - MT_WINDOW_HEADER_SIZE,
			   (off_t)(off + MT_WINDOW_HEADER_SIZE));
	while (n < 0 && errno == EINTR);
}

/* Where the kernel lacks MADV_POPULATE_WRITE (before 5.14), a store to
 * each page does it. */
void mt_pages_populate(uint8_t *m, uint32_t size)
{
#ifdef MADV_POPULATE_WRITE
	if (madvise(m, size, MADV_POPULATE_WRITE) == 0 || errno != EINVAL)
		return;
#endif
	for (uint32_t o = 0; o < size; o += MT_TRACE_ALIGN) {
		volatile uint8_t *b = m + o;
		*b = *b;
	}
}
