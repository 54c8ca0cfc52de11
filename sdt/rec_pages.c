/*
 * rec_pages.c - see rec_pages.h.
 *
 * Cost: a pwrite of zeros (ext4; none on tmpfs), one madvise and a load
 * from each page a window; the zeros come from a never-written anonymous
 * mapping, every page of it the kernel's one zero page, so they cost no
 * memory.
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

/*
 * The load from each page after the populate is for hypervisors that keep
 * shadow page tables (the 2-core VMs here are PVM guests): what madvise put
 * in the guest's page table reaches the table the processor walks only at
 * the process's first user-mode access to the page, ~9 us on tmpfs and ~5
 * on ext4, against 0.03 once any of its threads has touched it
 * (docs/BENCHMARKS.md, issue #15's tenth round).  Made here, that is the
 * helper's, not the recording thread's at its first store.  A load, as the
 * thread may be writing into the window already (rec_helper.c's
 * handed_over): what it reads is not used.
 *
 * Where the kernel lacks MADV_POPULATE_WRITE (before 5.14) the pages are
 * faulted in by an atomic add of 0, which a concurrent store of the
 * thread's cannot be lost to.  Where the populate fails otherwise (the file
 * cut under the window), nothing is touched: the fault is the recording
 * thread's to meet, as rec_sigbus.c expects, not the helper's.
 */
void mt_pages_populate(uint8_t *m, uint32_t size)
{
#ifdef MADV_POPULATE_WRITE
	if (madvise(m, size, MADV_POPULATE_WRITE) == 0) {
		for (uint32_t o = 0; o < size; o += MT_TRACE_ALIGN)
			(void)*(volatile const uint8_t *)(m + o);
		return;
	}
	if (errno != EINVAL)
		return;
#endif
	for (uint32_t o = 0; o < size; o += MT_TRACE_ALIGN)
		__atomic_fetch_add(m + o, 0, __ATOMIC_RELAXED);
}
