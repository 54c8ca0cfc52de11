/*
 * alloc_heavy.c - the malloc-heavy program bench/recorder.sh runs under each
 * tracer, so that every contender is timed on exactly the same calls.
 *
 * Each thread keeps a bounded live set (a table of slots) and, call after
 * call, picks a slot at random: an empty slot gets a new block, a full one is
 * freed or, one time in ten, resized with realloc.  Sizes follow the mix real
 * programs show: mostly small, some medium, rare large (a few above glibc's
 * mmap threshold).  The random stream is seeded per thread, so a run makes
 * the same calls every time and callgrind counts are repeatable.
 *
 * Only the call loop is timed (clock_gettime around it, per thread), and the
 * page faults and context switches of the loop are taken from getrusage, so
 * that a tracer's cost is not mixed with process start-up or its own exit
 * work.  The loop's thread CPU time is printed next to its wall time: on a
 * shared machine the two differ by the time other processes took the CPU.
 * Two more figures let a bench tell the tracer's cost from other
 * processes' on a shared machine: each loop's time spent waiting for a
 * processor while runnable (the run-queue wait of
 * /proc/thread-self/schedstat: other processes' time, not the tracer's,
 * unless the tracer's own threads are what it waited for) and the CPU
 * time the process spent outside the loops while they ran (a tracer's
 * helper threads).  One result line goes to standard output.  --in-main runs the one
 * thread's loop in the main thread: a program that never starts a
 * thread, where the recorder's stamps are sparse (sdt/recorder.h); with a
 * worker thread the main thread records too (pthread_create's own
 * calloc), and so do two threads.  --live makes the live set large enough
 * to miss the caches, --handoff has another thread use every region the
 * blocks lie in first (both below).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <mcheck.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* The bounded live set: about half the slots hold a block.  --live sets
 * the slots, a power of two: 4096 keep the blocks in the caches, 2^18 and
 * more make most calls miss them, as in a program with a large heap. */
static uint64_t live_slots = 4096;
static unsigned live_bits = 12;
#define MAX_THREADS 64

struct worker {
	pthread_t th;
	uint64_t rng;
	uint64_t calls;      /* loop calls to make */
	uint64_t made;       /* every call made, set-up and clean-up included */
	uint64_t start_ns;   /* CLOCK_MONOTONIC as its loop began */
	uint64_t loop_ns, cpu_ns;
	uint64_t waited_ns;  /* runnable but not running, in the loop */
	uint64_t all_cpu_ns; /* from the loop's start to the thread's end */
	struct rusage ru0, ru1;
};

static pthread_barrier_t start_line;

/* xorshift64*: a few cycles, so the untraced loop is dominated by malloc. */
static inline uint64_t next_random(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* 90% small (8-256), 9% medium (to 4 KiB), 0.9% to 64 KiB, 0.1% to 512 KiB. */
static size_t pick_size(uint64_t r)
{
	unsigned band = (unsigned)(r % 1000);
	r >>= 10;
	if (band < 900)
		return 8 + r % 249;
	if (band < 990)
		return 257 + r % 3840;
	if (band < 999)
		return 4097 + r % 61440;
	return 65537 + r % 458752;
}

/* A new block: mostly malloc, some calloc, a few aligned. */
static void *allocate(uint64_t r)
{
	size_t size = pick_size(r >> 8);
	unsigned kind = (unsigned)(r & 0xff);
	if (kind < 12)
		return calloc(1, size);
	if (kind < 14)
		return aligned_alloc(64, (size + 63) & ~(size_t)63);
	return malloc(size);
}

static uint64_t now_ns(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The calling thread's run-queue wait so far, in ns (the second figure of
 * its /proc/thread-self/schedstat, opened as fd, which a read from offset
 * 0 makes afresh), or 0 where the kernel does not say.  System calls only:
 * no allocation, so no call for a tracer to see. */
static uint64_t waited_ns(int fd)
{
	char buf[128];
	unsigned long long on_cpu, waited;
	ssize_t n = fd < 0 ? -1 : pread(fd, buf, sizeof buf - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	return sscanf(buf, "%llu %llu", &on_cpu, &waited) == 2 ? waited : 0;
}

/* --tight: malloc(32) and its free, over and over - the cheapest calls an
 * allocator has (glibc's tcache), so a tracer's own cost stands out. */
static int tight;

/*
 * The timed loop: one allocator call per iteration (two with --tight).
 * Kept out of line and named so that callgrind can count only its
 * instructions (--toggle-collect=alloc_loop).
 */
__attribute__((noinline)) void alloc_loop(void **slot, uint64_t calls, uint64_t *rng)
{
	if (tight) {
		for (uint64_t i = 0; i < calls / 2; i++) {
			void *p = malloc(32);
			__asm__ volatile("" : : "r"(p) : "memory"); /* kept, not folded away */
			free(p);
		}
		return;
	}
	for (uint64_t i = 0; i < calls; i++) {
		uint64_t r = next_random(rng);
		void **s = &slot[r & (live_slots - 1)];
		r >>= live_bits;
		if (*s == NULL) {
			*s = allocate(r);
		} else if (r % 10 == 0) {
			void *p = realloc(*s, pick_size(r >> 4));
			if (p)
				*s = p;
		} else {
			free(*s);
			*s = NULL;
		}
	}
}

/*
 * --handoff: before its timed loop a thread gives every slot a block, and
 * another thread frees one block in HANDOFF_EVERY and allocates its
 * replacement, so that every region the loop's blocks lie in has seen the
 * calls of two threads, as in a program that hands blocks between
 * threads: the recorder then stamps each free there after a fence
 * (sdt/recorder.h, mt_record_ts).  Untimed, and counted in program_calls.
 */
static int handoff;
enum { HANDOFF_EVERY = 512 };

static void *hand_over(void *arg)
{
	void **slot = arg;
	for (uint64_t i = 0; i < live_slots; i += HANDOFF_EVERY) {
		free(slot[i]);
		slot[i] = malloc(48);
	}
	return NULL;
}

/* --handoff's set-up of a thread's slots; returns the calls it made. */
static uint64_t share_regions(void **slot, uint64_t *rng)
{
	for (uint64_t i = 0; i < live_slots; i++)
		slot[i] = allocate(next_random(rng) >> live_bits);
	pthread_t th;
	if (pthread_create(&th, NULL, hand_over, slot) != 0 || pthread_join(th, NULL) != 0) {
		fprintf(stderr, "alloc_heavy: --handoff: cannot start a thread\n");
		exit(1);
	}
	return live_slots + 2 * ((live_slots + HANDOFF_EVERY - 1) / HANDOFF_EVERY);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	void **slot = calloc(live_slots, sizeof *slot);
	if (!slot) {
		fprintf(stderr, "alloc_heavy: out of memory for the slot table\n");
		exit(1);
	}
	uint64_t set_up = handoff ? share_regions(slot, &w->rng) : 0;
	int sched = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	pthread_barrier_wait(&start_line);
	getrusage(RUSAGE_THREAD, &w->ru0);
	uint64_t q0 = waited_ns(sched);
	w->start_ns = now_ns(CLOCK_MONOTONIC);
	uint64_t c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	alloc_loop(slot, w->calls, &w->rng);
	w->cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	w->loop_ns = now_ns(CLOCK_MONOTONIC) - w->start_ns;
	w->waited_ns = waited_ns(sched) - q0;
	if (sched >= 0)
		close(sched);
	getrusage(RUSAGE_THREAD, &w->ru1);

	w->made = 1 + set_up + w->calls + 1; /* slot table calloc, the loop, its free */
	for (size_t i = 0; i < live_slots; i++) {
		if (slot[i]) {
			free(slot[i]);
			w->made++;
		}
	}
	free(slot);
	w->all_cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	return NULL;
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: alloc_heavy [--calls N] [--threads T] [--seed S] [--live SLOTS] [--tight]\n"
		"                   [--handoff] [--in-main]\n"
		"Makes N allocator calls in each of T threads (default 2000000, 1) and prints\n"
		"the loop's time per call, page faults and context switches on one line.\n"
		"--live SLOTS keeps up to that many blocks live a thread (a power of two from\n"
		"2 to 2^30; default 4096, which fit in the caches).\n"
		"--tight makes them malloc(32) and free of it, over and over (N even).\n"
		"--handoff fills the slots first and has another thread free and replace one\n"
		"block in 512, so that every region the blocks lie in is shared.\n"
		"--in-main makes them in the main thread, starting none (T must be 1).\n"
		"With MALLOC_TRACE set and libc_malloc_debug.so preloaded, glibc's mtrace()\n"
		"logs the calls.\n");
}

static uint64_t parse_count(const char *opt, const char *s, uint64_t max)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v == 0 || v > max) {
		fprintf(stderr, "alloc_heavy: --%s: '%s' is not a number from 1 to %" PRIu64 "\n",
			opt, s, max);
		exit(2);
	}
	return v;
}

/* other_cpu_ns: the process's CPU time from the loops' start to the
 * workers' end less the workers' own in that time and the main thread's. */
static void print_result(const struct worker *w, unsigned threads, uint64_t wall_ns,
			 uint64_t other_cpu_ns)
{
	uint64_t calls = 0, made = 0, loop_ns = 0, cpu_ns = 0, waited = 0;
	long minflt = 0, majflt = 0, nvcsw = 0, nivcsw = 0;
	for (unsigned i = 0; i < threads; i++) {
		calls += w[i].calls;
		made += w[i].made;
		loop_ns += w[i].loop_ns;
		cpu_ns += w[i].cpu_ns;
		waited += w[i].waited_ns;
		minflt += w[i].ru1.ru_minflt - w[i].ru0.ru_minflt;
		majflt += w[i].ru1.ru_majflt - w[i].ru0.ru_majflt;
		nvcsw += w[i].ru1.ru_nvcsw - w[i].ru0.ru_nvcsw;
		nivcsw += w[i].ru1.ru_nivcsw - w[i].ru0.ru_nivcsw;
	}
	/* ns_per_call is each thread's loop time over its calls: the cost of one
	 * call on one thread, comparable between 1 and 2 threads; so are
	 * cpu_ns_per_call and waited_ns_per_call.  other_cpu_ns_per_call is
	 * over the calls of all threads. */
	printf("threads=%u calls=%" PRIu64 " program_calls=%" PRIu64 " wall_ns=%" PRIu64
	       " ns_per_call=%.2f cpu_ns_per_call=%.2f waited_ns_per_call=%.2f"
	       " other_cpu_ns_per_call=%.2f minflt=%ld majflt=%ld nvcsw=%ld nivcsw=%ld\n",
	       threads, calls, made, wall_ns, (double)loop_ns / (double)calls,
	       (double)cpu_ns / (double)calls, (double)waited / (double)calls,
	       (double)other_cpu_ns / (double)calls, minflt, majflt, nvcsw, nivcsw);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"calls", required_argument, NULL, 'n'},
		{"threads", required_argument, NULL, 't'},
		{"seed", required_argument, NULL, 's'},
		{"live", required_argument, NULL, 'l'},
		{"tight", no_argument, NULL, 'T'},
		{"handoff", no_argument, NULL, 'H'},
		{"in-main", no_argument, NULL, 'M'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	uint64_t calls = 2000000, seed = 1;
	unsigned threads = 1;
	int c, in_main = 0;
	while ((c = getopt_long(argc, argv, "n:t:s:l:THMhV", opts, NULL)) != -1) {
		switch (c) {
		case 'n': calls = parse_count("calls", optarg, UINT64_C(1) << 40); break;
		case 't': threads = (unsigned)parse_count("threads", optarg, MAX_THREADS); break;
		case 's': seed = parse_count("seed", optarg, UINT64_MAX); break;
		case 'l':
			live_slots = parse_count("live", optarg, UINT64_C(1) << 30);
			if (live_slots < 2 || (live_slots & (live_slots - 1))) {
				fprintf(stderr, "alloc_heavy: --live: '%s' is not a power of two from 2\n",
					optarg);
				return 2;
			}
			live_bits = (unsigned)__builtin_ctzll(live_slots);
			break;
		case 'T': tight = 1; break;
		case 'H': handoff = 1; break;
		case 'M': in_main = 1; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("alloc_heavy (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (tight && handoff) {
		fprintf(stderr, "alloc_heavy: --handoff has no slots to share with --tight\n");
		return 2;
	}
	if (in_main && threads != 1) {
		fprintf(stderr, "alloc_heavy: --in-main needs --threads 1\n");
		return 2;
	}
	if (optind < argc) {
		fprintf(stderr, "alloc_heavy: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}

	if (tight && (calls & 1) && ++calls > UINT64_C(1) << 40)
		calls -= 2; /* pairs of calls */

	mtrace(); /* a no-op unless MALLOC_TRACE is set and libc_malloc_debug.so is loaded */

	struct worker w[MAX_THREADS];
	memset(w, 0, sizeof w);
	pthread_barrier_init(&start_line, NULL, in_main ? 1 : threads + 1);
	if (in_main) {
		w[0].calls = calls;
		w[0].rng = seed * 0x9E3779B97F4A7C15ULL + 1;
		uint64_t p0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
		work(&w[0]);
		uint64_t other = now_ns(CLOCK_PROCESS_CPUTIME_ID) - p0;
		other = other > w[0].all_cpu_ns ? other - w[0].all_cpu_ns : 0;
		muntrace();
		print_result(w, threads, w[0].loop_ns, other);
		return 0;
	}
	for (unsigned i = 0; i < threads; i++) {
		w[i].calls = calls;
		w[i].rng = seed * 0x9E3779B97F4A7C15ULL + i + 1;
		int err = pthread_create(&w[i].th, NULL, work, &w[i]);
		if (err) {
			fprintf(stderr, "alloc_heavy: cannot start thread %u: %s\n", i, strerror(err));
			return 1;
		}
	}
	pthread_barrier_wait(&start_line);
	uint64_t t0 = now_ns(CLOCK_MONOTONIC);
	uint64_t p0 = now_ns(CLOCK_PROCESS_CPUTIME_ID), m0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	for (unsigned i = 0; i < threads; i++)
		pthread_join(w[i].th, NULL);
	uint64_t theirs = now_ns(CLOCK_THREAD_CPUTIME_ID) - m0;
	for (unsigned i = 0; i < threads; i++)
		theirs += w[i].all_cpu_ns;
	uint64_t other = now_ns(CLOCK_PROCESS_CPUTIME_ID) - p0;
	other = other > theirs ? other - theirs : 0;
	/* from the first loop's start: a worker may run its whole loop
	 * before this thread, released by the same barrier, reads t0 */
	for (unsigned i = 0; i < threads; i++)
		t0 = w[i].start_ns < t0 ? w[i].start_ns : t0;
	uint64_t wall_ns = now_ns(CLOCK_MONOTONIC) - t0;

	muntrace();
	print_result(w, threads, wall_ns, other);
	return 0;
}
