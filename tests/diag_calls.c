/*
 * diag_calls - a program whose malloc calls are known exactly, for the
 * tests of the diagnostic scripts in stap/ and of the log importer.
 *
 *   diag_calls log EXPECT   every call of the malloc family once, between
 *                           two fences (malloc of FENCE_BEGIN and FENCE_END
 *                           bytes); writes to EXPECT the lines a malloc-log
 *                           must hold for them, without "mlog1 TID TS"
 *   diag_calls stacks       64 allocations from hot(), 16 from warm(), 4
 *                           from cold(), all through grab()
 *   diag_calls sizes        a fixed size mix per call type (see sizes())
 *   diag_calls leaks        leak_here() leaks 3 blocks of 1111, 2222 and
 *                           3333 bytes; churn() frees everything it takes
 *   diag_calls paths D      one malloc from each of the 2^D call paths of
 *                           left() and right(), D deep: 2^D distinct stacks
 *   diag_calls many N       N blocks of 32 bytes from leak_many(), every
 *                           other one freed: N/2 leaked from one stack,
 *                           more live blocks than bpftrace's default map
 *                           holds when N > 8192
 *   diag_calls loop STOP    a fixed batch of calls every 2 ms until the file
 *                           STOP exists or its parent (the test) dies;
 *                           creates STOP.running after the first batch, so
 *                           a test knows it is under way
 *   diag_calls mtrace       the "log" sequence between mtrace() and
 *                           muntrace(), for glibc's MALLOC_TRACE
 *
 * With DIAG_HOLD=FIFO in the environment, stacks, sizes, leaks, paths and
 * many create FIFO.ready when done and then wait for FIFO to be opened
 * before exiting: bpftrace names the frames of a user stack only while the
 * process lives.
 *
 * Nothing here uses stdio or anything else that allocates behind our back:
 * output goes through snprintf into the stack and write().  It is built
 * without builtins so the compiler keeps every call as written.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <mcheck.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define FENCE_BEGIN 7777777
#define FENCE_END 7777778
#define NOINLINE __attribute__((noinline))

static int expect_fd = -1;

/* Appends one expected log line ("CALL ARGS [= RESULT]") to EXPECT. */
static void expect(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void expect(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	if (expect_fd < 0)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line - 1, fmt, ap);
	va_end(ap);
	line[n++] = '\n';
	if (write(expect_fd, line, (size_t)n) != n)
		_exit(3);
}

static unsigned long P(const void *p)
{
	return (unsigned long)(uintptr_t)p;
}

/* ---- log: each call once, with known arguments ---- */

static void every_call(void)
{
	void *a = malloc(100);
	expect("malloc 100 = 0x%lx", P(a));
	void *b = calloc(4, 25);
	expect("calloc 4 25 = 0x%lx", P(b));
	void *a2 = realloc(a, 300);
	expect("realloc 0x%lx 300 = 0x%lx", P(a), P(a2));
	void *b2 = reallocarray(b, 10, 20);
	expect("reallocarray 0x%lx 10 20 = 0x%lx", P(b), P(b2));
	void *c = memalign(64, 70);
	expect("memalign 64 70 = 0x%lx", P(c));
	void *d = NULL;
	int rc = posix_memalign(&d, 32, 40);
	expect("posix_memalign 32 40 = 0x%lx %d", P(d), rc);
	void *bad = NULL;
	rc = posix_memalign(&bad, 3, 10); /* not a power of two: EINVAL */
	expect("posix_memalign 3 10 = 0x%lx %d", P(bad), rc);
	void *e = aligned_alloc(16, 32);
	expect("aligned_alloc 16 32 = 0x%lx", P(e));
	void *f = valloc(10);
	expect("valloc 10 = 0x%lx", P(f));
	void *g = pvalloc(10);
	expect("pvalloc 10 = 0x%lx", P(g));
	void *huge = malloc(SIZE_MAX / 2);
	expect("malloc %zu = 0x%lx", SIZE_MAX / 2, P(huge));
	free(NULL);
	expect("free 0x0");
	void *h = malloc(50);
	expect("malloc 50 = 0x%lx", P(h));
	void *h2 = realloc(h, 0); /* glibc frees and returns NULL */
	expect("realloc 0x%lx 0 = 0x%lx", P(h), P(h2));
	void *all[] = { a2, b2, c, d, e, f, g };
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
		free(all[i]);
		expect("free 0x%lx", P(all[i]));
	}
}

static void fence(size_t size)
{
	free(malloc(size));
}

static int run_log(const char *expect_path)
{
	expect_fd = open(expect_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (expect_fd < 0)
		return 2;
	fence(FENCE_BEGIN);
	every_call();
	fence(FENCE_END);
	return close(expect_fd) != 0;
}

/* ---- stacks: three call paths of known weight ---- */

static volatile uintptr_t sink;
static volatile int times_hot = 64, times_warm = 16, times_cold = 4; /* not unrolled */

NOINLINE static void grab(void)
{
	void *p = malloc(40);
	sink = (uintptr_t)p;
	free(p);
}

NOINLINE static void hot(void)
{
	for (int i = 0; i < times_hot; i++)
		grab();
}

NOINLINE static void warm(void)
{
	for (int i = 0; i < times_warm; i++)
		grab();
}

NOINLINE static void cold(void)
{
	for (int i = 0; i < times_cold; i++)
		grab();
}

/* paths: next() calls left() or right() by one bit of the path number, so
 * every path has its own chain of return addresses. */
NOINLINE static void left(unsigned path, int depth);
NOINLINE static void right(unsigned path, int depth);

NOINLINE static void next(unsigned path, int depth)
{
	if (depth == 0) {
		grab();
		return;
	}
	if (path & 1)
		left(path >> 1, depth - 1);
	else
		right(path >> 1, depth - 1);
}

NOINLINE static void left(unsigned path, int depth)
{
	next(path, depth);
	sink++;
}

NOINLINE static void right(unsigned path, int depth)
{
	next(path, depth);
	sink--;
}

static int run_paths(const char *depth)
{
	int d = atoi(depth);
	if (d < 1 || d > 20)
		return 2;
	for (unsigned path = 0; path < 1u << d; path++)
		next(path, d);
	return 0;
}

static int run_stacks(void)
{
	cold();
	hot();
	warm();
	return 0;
}

/* ---- sizes: one histogram bucket per call type, with known counts ---- */

static int run_sizes(void)
{
	void *m[7], *c[5], *pm[2], *al[4];
	for (int i = 0; i < 7; i++)
		m[i] = malloc(3000);            /* malloc  [2K, 4K)   7 */
	for (int i = 0; i < 5; i++)
		c[i] = calloc(3, 1000);         /* calloc  [2K, 4K)   5 */
	for (int i = 0; i < 3; i++)
		m[i] = realloc(m[i], 6000);     /* realloc [4K, 8K)   3 */
	for (int i = 0; i < 2; i++)
		if (posix_memalign(&pm[i], 64, 20000)) /* posix_memalign [16K, 32K) 2 */
			return 1;
	for (int i = 0; i < 4; i++)
		al[i] = aligned_alloc(256, 512); /* aligned_alloc [512, 1K) 4 */
	for (int i = 0; i < 7; i++)
		free(m[i]);
	for (int i = 0; i < 5; i++)
		free(c[i]);
	free(pm[0]);
	free(pm[1]);
	for (int i = 0; i < 4; i++)
		free(al[i]);
	return 0;
}

/* ---- leaks: three blocks from one function, the rest freed ---- */

NOINLINE static void leak_here(void)
{
	sink = (uintptr_t)malloc(1111);
	sink = (uintptr_t)calloc(2, 1111);
	sink = (uintptr_t)realloc(malloc(10), 3333);
}

NOINLINE static void churn(void)
{
	void *p[32];
	for (int i = 0; i < 32; i++)
		p[i] = malloc((size_t)(i + 1) * 16);
	for (int i = 0; i < 32; i++)
		p[i] = realloc(p[i], 1000);
	for (int i = 0; i < 32; i++)
		free(p[i]);
}

static int run_leaks(void)
{
	churn();
	leak_here();
	churn();
	return 0;
}

NOINLINE static void *leak_many(void)
{
	return malloc(32);
}

static int run_many(const char *count)
{
	long n = strtol(count, NULL, 10);
	void **p = n > 0 ? mmap(NULL, (size_t)n * sizeof *p, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : MAP_FAILED;
	if (p == MAP_FAILED)
		return 2;
	for (long i = 0; i < n; i++)
		p[i] = leak_many();
	for (long i = 0; i < n; i += 2)
		free(p[i]);
	return 0;
}

/* ---- loop: a long-running program to attach to ---- */

static void batch(void)
{
	void *a = malloc(100);
	void *b = calloc(4, 25);
	a = realloc(a, 300);
	void *c = NULL;
	if (posix_memalign(&c, 64, 200))
		_exit(1);
	free(a);
	free(b);
	free(c);
}

static int run_loop(const char *stop)
{
	char running[4096];
	struct timespec pause = { 0, 2000000 };
	snprintf(running, sizeof running, "%s.running", stop);
	prctl(PR_SET_PDEATHSIG, SIGTERM); /* a failed test leaves nothing behind */
	for (unsigned long n = 0; access(stop, F_OK) != 0; n++) {
		batch();
		if (n == 0)
			close(open(running, O_WRONLY | O_CREAT, 0644));
		nanosleep(&pause, NULL);
	}
	return 0;
}

/* ---- mtrace: the log sequence under glibc's MALLOC_TRACE ---- */

static int run_mtrace(void)
{
	mtrace();
	every_call();
	muntrace();
	return 0;
}

/* Says it is done, then stays alive until the test lets it go. */
static int hold(int rc)
{
	const char *fifo = getenv("DIAG_HOLD");
	char ready[4096];
	if (!fifo)
		return rc;
	snprintf(ready, sizeof ready, "%s.ready", fifo);
	close(open(ready, O_WRONLY | O_CREAT, 0644));
	close(open(fifo, O_RDONLY));
	return rc;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (strcmp(mode, "log") == 0 && argc == 3)
		return run_log(argv[2]);
	if (strcmp(mode, "stacks") == 0)
		return hold(run_stacks());
	if (strcmp(mode, "sizes") == 0)
		return hold(run_sizes());
	if (strcmp(mode, "leaks") == 0)
		return hold(run_leaks());
	if (strcmp(mode, "paths") == 0 && argc == 3)
		return hold(run_paths(argv[2]));
	if (strcmp(mode, "many") == 0 && argc == 3)
		return hold(run_many(argv[2]));
	if (strcmp(mode, "loop") == 0 && argc == 3)
		return run_loop(argv[2]);
	if (strcmp(mode, "mtrace") == 0)
		return run_mtrace();
	static const char usage[] = "usage: diag_calls log EXPECT | stacks | sizes | leaks | "
				    "paths D | many N | loop STOPFILE | mtrace\n";
	if (write(2, usage, sizeof usage - 1) < 0)
		return 2;
	return 2;
}
