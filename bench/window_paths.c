/*
 * window_paths - what a MiB of trace costs to write by the recorder's
 * path, against copying it into the file, side by side in one run.
 *
 * The recorder writes records straight into a window of the trace file
 * mapped MAP_SHARED (sdt/rec_thread.h), so they are in the page cache as
 * they are written and survive kill -9.  Each window's fresh pages cost
 * its helper a claim (fallocate), zeros where the file system has no pages
 * yet (rec_pages.c), a mapping, MADV_POPULATE_WRITE, a load from each page
 * (for hypervisors that build their own page table entry at the first
 * user-mode access) and, later, the unmapping.  The other way a tracer can
 * write is to store into a buffer it reuses and copy that into the file
 * with pwrite: no page of the process is ever new, but what sits in the
 * buffer is lost if the process is killed.  This times both over the same
 * number of MiB, in two files in DIR, a window of each in turn, step by
 * step for the mapped path, and prints the ratio: the price, on this machine, of the mapped path's
 * durability.
 *
 * Usage: window_paths [DIR] [MIB]   (default: /tmp, 128)
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "mapped.h"

#define WINDOW (1u << 20)
#define PAGE 4096u

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* The records' stores: 8 bytes at a time over the window. */
static void fill(uint8_t *p)
{
	for (size_t o = 0; o < WINDOW; o += 8)
		*(volatile uint64_t *)(p + o) = o;
}

enum { CLAIM, ZEROS, MAP, POPULATE, TOUCH, STORES, UNMAP, STEPS };
static const char *const step_names[STEPS] = { "claim", "zeros", "map", "populate",
					       "touch", "stores", "unmap" };

/* Window i by the mapped path: microseconds added to each step. */
static int mapped(int fd, int tmpfs, size_t i, const uint8_t *zeros, double us[STEPS])
{
	off_t off = (off_t)i * WINDOW;
	double t[STEPS + 1];
	t[CLAIM] = now_us();
	if (fallocate(fd, 0, off, WINDOW) != 0)
		return -1;
	t[ZEROS] = now_us();
	if (!tmpfs && pwrite(fd, zeros, WINDOW, off) != (ssize_t)WINDOW)
		return -1;
	t[MAP] = now_us();
	uint8_t *m = mmap(NULL, WINDOW, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
	if (m == MAP_FAILED)
		return -1;
	t[POPULATE] = now_us();
#ifdef MADV_POPULATE_WRITE
	madvise(m, WINDOW, MADV_POPULATE_WRITE);
#endif
	t[TOUCH] = now_us();
	for (size_t o = 0; o < WINDOW; o += PAGE)
		(void)*(volatile const uint8_t *)(m + o);
	t[STORES] = now_us();
	fill(m);
	t[UNMAP] = now_us();
	munmap(m, WINDOW);
	t[STEPS] = now_us();
	for (int s = 0; s < STEPS; s++)
		us[s] += t[s + 1] - t[s];
	return 0;
}

/* Window i by the copy path: microseconds added to *us. */
static int copied(int fd, size_t i, uint8_t *buf, double *us)
{
	double t0 = now_us();
	fill(buf);
	if (pwrite(fd, buf, WINDOW, (off_t)i * WINDOW) != (ssize_t)WINDOW)
		return -1;
	*us += now_us() - t0;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--help") == 0) {
		puts("Usage: window_paths [DIR] [MIB]\n"
		     "Times writing MIB MiB (default 128) into a file in DIR (default /tmp)\n"
		     "by the recorder's mapped windows, step by step, and by pwrite from a\n"
		     "reused buffer, and prints microseconds a MiB and their ratio.");
		return 0;
	}
	const char *dir = argc > 1 ? argv[1] : "/tmp";
	char *end;
	long mib = argc > 2 ? strtol(argv[2], &end, 10) : 128;
	if (argc > 3 || (argc > 2 && (*end || mib < 1 || mib > 65536))) {
		fprintf(stderr, "window_paths: MIB must be a number from 1 to 65536 (try --help)\n");
		return 2;
	}
	int fd_mapped = mt_anon_file(dir, "window_paths"), fd_copied = -1;
	if (fd_mapped < 0 || (fd_copied = mt_anon_file(dir, "window_paths")) < 0) {
		fprintf(stderr, "window_paths: %s: cannot make a file: %s\n", dir, strerror(errno));
		return 1;
	}
	struct statfs sf;
	int tmpfs = fstatfs(fd_mapped, &sf) == 0 && sf.f_type == TMPFS_MAGIC;
	const uint8_t *zeros = mmap(NULL, WINDOW, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *buf = aligned_alloc(PAGE, WINDOW);
	double us[STEPS] = { 0 }, copy_us = 0;
	if (zeros == MAP_FAILED || !buf) {
		fprintf(stderr, "window_paths: out of memory\n");
		return 1;
	}
	fill(buf);
	/* in turn, a window each, so that both see the same dirty pages and
	 * the same stretch of the host */
	for (size_t i = 0; i < (size_t)mib; i++) {
		if (mapped(fd_mapped, tmpfs, i, zeros, us) < 0 || copied(fd_copied, i, buf, &copy_us) < 0) {
			fprintf(stderr, "window_paths: %s: writing %ld MiB failed: %s\n", dir, mib,
				strerror(errno));
			return 1;
		}
	}
	copy_us /= mib;
	double total = 0;
	printf("%s (%s), %ld MiB: mapped windows", dir, tmpfs ? "tmpfs" : "not tmpfs", mib);
	for (int s = 0; s < STEPS; s++) {
		printf(" %s %.0f", step_names[s], us[s] / mib);
		total += us[s] / mib;
	}
	printf(", %.0f us a MiB; copied %.0f us a MiB; mapped/copied %.1fx\n", total, copy_us,
	       total / copy_us);
	return 0;
}
