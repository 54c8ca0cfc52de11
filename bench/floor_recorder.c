/*
 * floor_recorder.c - the cheapest recorder worth comparing against: a
 * preload library that appends one fixed 32-byte record per malloc-family
 * call to a per-thread window of a shared file mapping.
 *
 * It exists only to give bench/recorder.sh a floor.  It does what any
 * recorder has to do (interpose, read the clock, store the call, claim file
 * space) and nothing more: no encoding, no headers, no fork or signal care,
 * no reader.  If the real recorder costs much more than this per call, the
 * difference is in its own code; if this is slow too, the cost is in the
 * pages (fresh page-cache pages, writeback), and the only cure is fewer
 * bytes per call.
 *
 * Usage: FLOOR_FILE=/dev/shm/floor.out LD_PRELOAD=.../libfloor.so prog
 * The file is grown sparse to a large size, windows are claimed from it with
 * one atomic add, and it is cut to the claimed length at exit.  An existing
 * file is not truncated first, so that a caller can hand it pages that are
 * already in the page cache (the "warm" regime of bench/recorder.sh).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#else
#include <time.h>
#endif

#define FLOOR_WINDOW (1u << 20)          /* bytes per thread window */
#define FLOOR_MAX_FILE (UINT64_C(1) << 36) /* sparse file size: 64 GiB */

/* The thread is implied by the window, so a record needs no thread id. */
struct floor_rec {
	uint64_t ts;
	uint64_t out;  /* pointer returned */
	uint64_t in;   /* pointer passed (free, realloc) */
	uint32_t size; /* request, cut to 32 bits: this is a cost floor, not a format */
	uint32_t call;
};
_Static_assert(sizeof(struct floor_rec) == 32, "the floor is 32 bytes per call");

enum { F_MALLOC, F_FREE, F_CALLOC, F_REALLOC, F_MEMALIGN };

void *__libc_malloc(size_t);
void __libc_free(void *);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void *__libc_memalign(size_t, size_t);

static int trace_fd = -1;
static _Atomic uint64_t next_window; /* file offset of the next unclaimed window */

static __thread struct floor_rec *cur __attribute__((tls_model("initial-exec")));
static __thread struct floor_rec *end __attribute__((tls_model("initial-exec")));

/* Slow path, once per 32768 calls: one atomic add and one mmap. */
static struct floor_rec *claim_window(void)
{
	if (trace_fd < 0)
		return NULL;
	uint64_t off = atomic_fetch_add(&next_window, FLOOR_WINDOW);
	if (off + FLOOR_WINDOW > FLOOR_MAX_FILE)
		return NULL;
	if (cur)
		munmap((char *)end - FLOOR_WINDOW, FLOOR_WINDOW);
	void *w = mmap(NULL, FLOOR_WINDOW, PROT_READ | PROT_WRITE, MAP_SHARED, trace_fd, (off_t)off);
	if (w == MAP_FAILED) {
		cur = end = NULL;
		return NULL;
	}
	cur = w;
	end = cur + FLOOR_WINDOW / sizeof *cur;
	return cur;
}

static inline uint64_t timestamp(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __rdtsc(); /* ~10 ns here, unfenced like the real recorder's */
#else
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/* Per call: a TLS load and compare, the clock, four stores. */
static inline void record(uint32_t call, void *out, void *in, size_t size)
{
	struct floor_rec *r = cur;
	if (r == end && (r = claim_window()) == NULL)
		return;
	r->ts = timestamp();
	r->out = (uintptr_t)out;
	r->in = (uintptr_t)in;
	r->size = (uint32_t)size;
	r->call = call;
	cur = r + 1;
}

void *malloc(size_t size)
{
	void *p = __libc_malloc(size);
	record(F_MALLOC, p, NULL, size);
	return p;
}

void free(void *p)
{
	record(F_FREE, NULL, p, 0);
	__libc_free(p);
}

void *calloc(size_t n, size_t size)
{
	void *p = __libc_calloc(n, size);
	record(F_CALLOC, p, NULL, n * size);
	return p;
}

void *realloc(void *old, size_t size)
{
	void *p = __libc_realloc(old, size);
	record(F_REALLOC, p, old, size);
	return p;
}

void *memalign(size_t align, size_t size)
{
	void *p = __libc_memalign(align, size);
	record(F_MEMALIGN, p, NULL, size);
	return p;
}

void *aligned_alloc(size_t align, size_t size)
{
	return memalign(align, size);
}

int posix_memalign(void **out, size_t align, size_t size)
{
	if (align < sizeof(void *) || (align & (align - 1)))
		return EINVAL;
	void *p = memalign(align, size);
	if (!p && size)
		return ENOMEM;
	*out = p;
	return 0;
}

__attribute__((constructor)) static void floor_start(void)
{
	const char *path = getenv("FLOOR_FILE");
	if (!path)
		return;
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)FLOOR_MAX_FILE) < 0) {
		static const char msg[] = "floor_recorder: cannot create FLOOR_FILE: not recording\n";
		(void)!write(2, msg, sizeof msg - 1);
		if (fd >= 0)
			close(fd);
		return;
	}
	trace_fd = fd;
}

/* Called after main returns, when the program's threads are done: claims
 * stop first, then the file is cut to the windows handed out. */
__attribute__((destructor)) static void floor_stop(void)
{
	int fd = trace_fd;
	if (fd < 0)
		return;
	trace_fd = -1;
	uint64_t used = atomic_fetch_add(&next_window, FLOOR_MAX_FILE);
	(void)!ftruncate(fd, (off_t)used);
	close(fd);
}
