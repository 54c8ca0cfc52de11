/*
 * run_count.so - an allocator that counts the calls made to it and passes
 * each to the next one (glibc's), for the test that trace_run's own memory
 * never comes from the allocator under test: during the replay, the only
 * calls it sees are the workload's.
 *
 * trace_run --allocator=PATH/run_count.so preloads it like any allocator.
 * It counts the malloc-family calls of the main thread apart from those of
 * every other thread: the replay threads and the monitor exist only for
 * the replay, and the main thread does nothing but wait for them while it
 * runs, so the second count is what the allocator saw during the replay.
 * At exit it writes, to the file named by RUN_COUNT_LOG:
 *   main N
 *   others N
 *
 * The next allocator's functions are looked up in a constructor; dlsym may
 * itself allocate, and is served from a static buffer meanwhile.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void *(*next_malloc)(size_t);
static void (*next_free)(void *);
static void *(*next_calloc)(size_t, size_t);
static void *(*next_realloc)(void *, size_t);
static void *(*next_reallocarray)(void *, size_t, size_t);
static void *(*next_memalign)(size_t, size_t);
static int (*next_posix_memalign)(void **, size_t, size_t);
static void *(*next_aligned_alloc)(size_t, size_t);
static void *(*next_valloc)(size_t);
static void *(*next_pvalloc)(size_t);
static size_t (*next_usable)(void *);

static _Atomic uint64_t main_calls, other_calls;
/* 1 in the main thread, 2 in any other, 0 before the first call */
static __thread __attribute__((tls_model("initial-exec"))) int whose;
/* Inside a call: glibc's reallocarray calls realloc, which is one call */
static __thread __attribute__((tls_model("initial-exec"))) int inside;

static char boot[64 << 10];
static size_t boot_used;

static int in_boot(const void *p)
{
	return (const char *)p >= boot && (const char *)p < boot + sizeof boot;
}

static void *boot_alloc(size_t n)
{
	size_t at = (boot_used + 15) & ~(size_t)15;
	if (at + n > sizeof boot)
		return NULL;
	boot_used = at + n;
	return boot + at;
}

/* Counts a call unless it is made inside another (PASS passes it on). */
static void count(void)
{
	if (!whose)
		whose = syscall(SYS_gettid) == getpid() ? 1 : 2;
	if (!inside)
		atomic_fetch_add_explicit(whose == 1 ? &main_calls : &other_calls, 1,
					  memory_order_relaxed);
}

#define PASS(type, expr)            \
	do {                        \
		count();            \
		inside++;           \
		type out_ = (expr); \
		inside--;           \
		return out_;        \
	} while (0)

#define NEXT(name) (next_##name = (__typeof__(next_##name))dlsym(RTLD_NEXT, #name))

__attribute__((constructor)) static void start(void)
{
	NEXT(malloc), NEXT(free), NEXT(calloc), NEXT(realloc), NEXT(reallocarray);
	NEXT(memalign), NEXT(posix_memalign), NEXT(aligned_alloc), NEXT(valloc), NEXT(pvalloc);
	next_usable = (size_t (*)(void *))dlsym(RTLD_NEXT, "malloc_usable_size");
}

void *malloc(size_t n)
{
	if (!next_malloc)
		return boot_alloc(n);
	PASS(void *, next_malloc(n));
}

void free(void *p)
{
	if (in_boot(p))
		return;
	count();
	inside++;
	if (next_free)
		next_free(p);
	inside--;
}

void *calloc(size_t n, size_t size)
{
	size_t bytes;
	if (!next_calloc)
		return __builtin_mul_overflow(n, size, &bytes) ? NULL : boot_alloc(bytes); /* zero */
	PASS(void *, next_calloc(n, size));
}

void *realloc(void *p, size_t n)
{
	PASS(void *, next_realloc(p, n));
}

void *reallocarray(void *p, size_t n, size_t size)
{
	PASS(void *, next_reallocarray(p, n, size));
}

void *memalign(size_t align, size_t n)
{
	PASS(void *, next_memalign(align, n));
}

int posix_memalign(void **out, size_t align, size_t n)
{
	PASS(int, next_posix_memalign(out, align, n));
}

void *aligned_alloc(size_t align, size_t n)
{
	PASS(void *, next_aligned_alloc(align, n));
}

void *valloc(size_t n)
{
	PASS(void *, next_valloc(n));
}

void *pvalloc(size_t n)
{
	PASS(void *, next_pvalloc(n));
}

/* Not a call the workload makes: trace_run's --touch asks it, uncounted. */
size_t malloc_usable_size(void *p)
{
	return in_boot(p) ? 0 : next_usable(p);
}

__attribute__((destructor)) static void finish(void)
{
	char line[128];
	const char *path = getenv("RUN_COUNT_LOG");
	int fd = path ? open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : -1;
	if (fd < 0)
		return;
	int n = snprintf(line, sizeof line, "main %llu\nothers %llu\n",
			 (unsigned long long)atomic_load(&main_calls),
			 (unsigned long long)atomic_load(&other_calls));
	if (n > 0 && write(fd, line, (size_t)n) != n)
		write(2, "run_count: cannot write RUN_COUNT_LOG\n", 38);
	close(fd);
}
