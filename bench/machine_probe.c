/*
 * machine_probe - how fast this machine runs the kinds of work the kit's
 * figures depend on, in one line for the head of every bench report.
 *
 * The VMs the benches run on change model from one session to the next,
 * and the same code has run two to three times slower on one than on
 * another (docs/BENCHMARKS.md).  A nanosecond figure means little without
 * the machine's own speed beside it, and the CPU's model name ("AMD EPYC")
 * does not give it.  This measures, in about a second:
 *
 *   - the processor: family, model, whether it has RDTSCP, the TSC's rate;
 *   - the core's clock, from a chain of dependent adds (one a cycle on
 *     every x86-64 core this kit has met);
 *   - its throughput, instructions a cycle on six independent add chains
 *     (a core of its own reaches 4-6; one whose sibling is busy, or a
 *     throttled one, far less): the kit's own code is bound by this;
 *   - a back-to-back RDTSC, the recorder's and trace_run's timer;
 *   - a random read of a 64 MiB table in huge pages, alone (latency: the
 *     converter's and the replay's misses) and prefetched sixteen ahead
 *     (throughput: what trace2wl's look-ahead can reach), and the same
 *     alone on 256 KiB (the caches);
 *   - the page fee: the first store to a fresh 4 KiB page, and the first
 *     load from one that MADV_POPULATE_WRITE already made (what each page
 *     of a recorder's window costs its helper after the populate).  On a
 *     machine of its own these are a fraction of a microsecond; the PVM
 *     guests here take 10-20 us, as the hypervisor builds its own page
 *     table entry at the first user-mode access (docs/BENCHMARKS.md).
 *
 * Usage: machine_probe [--json]
 * Plain: one line, "machine: ..."; --json: the same figures as an object.
 */
#include "config.h"

#include <cpuid.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#define HUGE_PAGE (2u << 20)

struct cpu {
	unsigned family, model;
	int rdtscp;
	char vendor[13];
};

static void cpu_identify(struct cpu *c)
{
	unsigned a, b, cx, d;
	memset(c, 0, sizeof *c);
	if (!__get_cpuid(0, &a, &b, &cx, &d))
		return;
	memcpy(c->vendor, &b, 4);
	memcpy(c->vendor + 4, &d, 4);
	memcpy(c->vendor + 8, &cx, 4);
	__get_cpuid(1, &a, &b, &cx, &d);
	unsigned base_family = (a >> 8) & 0xf, ext_family = (a >> 20) & 0xff;
	unsigned base_model = (a >> 4) & 0xf, ext_model = (a >> 16) & 0xf;
	c->family = base_family == 0xf ? base_family + ext_family : base_family;
	c->model = base_family >= 0x6 ? (ext_model << 4) | base_model : base_model;
	if (__get_cpuid(0x80000001, &a, &b, &cx, &d))
		c->rdtscp = (d >> 27) & 1;
}

static double mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* TSC ticks a nanosecond, over 100 ms of the monotonic raw clock. */
static double tsc_per_ns(void)
{
	double t0 = mono_ns();
	uint64_t c0 = __rdtsc();
	while (mono_ns() - t0 < 1e8)
		;
	uint64_t c1 = __rdtsc();
	return (double)(c1 - c0) / (mono_ns() - t0);
}

/* TSC ticks of one run of f's `iters` iterations. */
static uint64_t ticks(void (*f)(long), long iters)
{
	uint64_t t0 = __rdtsc();
	f(iters);
	return __rdtsc() - t0;
}

/*
 * The fewest ticks of BURSTS short runs of each of f and g, taken in
 * turn: a burst of a quarter of a millisecond mostly runs whole between
 * two interrupts or time slices, so the fewest is the processor's own
 * speed even where other processes share it (20 M iterations at a time
 * read a 3.3 GHz core at 1.2 GHz while make check ran beside), and the two
 * see the same stretch of the host.
 */
enum { BURST = 100000, BURSTS = 200, RDTSC_BURST = 10000 };

static void best_of_bursts(void (*f)(long), uint64_t *f_best, void (*g)(long), uint64_t *g_best)
{
	*f_best = *g_best = UINT64_MAX;
	for (int r = 0; r < BURSTS; r++) {
		uint64_t a = ticks(f, BURST), b = ticks(g, BURST);
		*f_best = a < *f_best ? a : *f_best;
		*g_best = b < *g_best ? b : *g_best;
	}
}

/* Eight dependent adds an iteration, and the loop's two instructions
 * (dec and jnz fuse, and run beside the chain). */
static void dependent_adds(long n)
{
	uint64_t x = 0;
	__asm__ volatile("1:\n\t"
			 "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
			 "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
			 "dec %1\n\tjnz 1b"
			 : "+r"(x), "+r"(n));
}
#define DEPENDENT_ADDS 8

/* Six independent adds and the loop's two: eight instructions. */
static void independent_adds(long n)
{
	uint64_t a = 0, b = 0, c = 0, d = 0, e = 0, f = 0;
	__asm__ volatile("1:\n\t"
			 "add $1, %0\n\tadd $1, %1\n\tadd $1, %2\n\t"
			 "add $1, %3\n\tadd $1, %4\n\tadd $1, %5\n\t"
			 "dec %6\n\tjnz 1b"
			 : "+r"(a), "+r"(b), "+r"(c), "+r"(d), "+r"(e), "+r"(f), "+r"(n));
}
#define INDEPENDENT_INSNS 8

static void rdtsc_pairs(long n)
{
	for (long i = 0; i < n; i++) {
		uint64_t t = __rdtsc();
		__asm__ volatile("" : : "r"(t));
	}
}

/* A table of `bytes` in huge pages where the kernel gives them, its
 * 64-byte lines linked in one random cycle (each line's first word the
 * offset of the next), so that a chase of it is a chain of misses. */
static uint8_t *random_cycle(size_t bytes, uint32_t **order_out)
{
	uint8_t *area = mmap(NULL, bytes + HUGE_PAGE, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return NULL;
	uint8_t *p = (uint8_t *)(((uintptr_t)area + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
	madvise(p, bytes, MADV_HUGEPAGE);
	size_t lines = bytes / 64;
	uint32_t *order = malloc(lines * sizeof *order);
	if (!order)
		return NULL;
	for (size_t i = 0; i < lines; i++)
		order[i] = (uint32_t)i;
	uint64_t s = 0x9e3779b97f4a7c15ull;
	for (size_t i = lines - 1; i > 0; i--) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		size_t j = s % (i + 1);
		uint32_t t = order[i];
		order[i] = order[j], order[j] = t;
	}
	for (size_t i = 0; i < lines; i++)
		*(uint64_t *)(p + (size_t)order[i] * 64) = (uint64_t)order[(i + 1) % lines] * 64;
	*order_out = order;
	return p;
}

/* TSC ticks a read: a chase of `reads` dependent reads of the cycle. */
static double chase_ticks(const uint8_t *p, uint64_t start, long reads)
{
	uint64_t off = start, t0 = __rdtsc();
	for (long i = 0; i < reads; i++)
		off = *(const volatile uint64_t *)(p + off);
	uint64_t t = __rdtsc() - t0;
	__asm__ volatile("" : : "r"(off));
	return (double)t / reads;
}

/* TSC ticks a line: independent reads in the cycle's order, each line
 * prefetched sixteen reads ahead (as trace2wl's look-ahead does). */
static double prefetched_ticks(const uint8_t *p, const uint32_t *order, size_t lines, long reads)
{
	uint64_t sum = 0, t0 = __rdtsc();
	for (long i = 0; i < reads; i++) {
		__builtin_prefetch(p + (size_t)order[(i + 16) % lines] * 64);
		sum += *(const uint64_t *)(p + (size_t)order[i % lines] * 64);
	}
	uint64_t t = __rdtsc() - t0;
	__asm__ volatile("" : : "r"(sum));
	return (double)t / reads;
}

struct memory {
	double big_ns, big_prefetched_ns, small_ns;
};

static int measure_memory(double tpn, struct memory *m)
{
	size_t big = 64u << 20, small = 256u << 10;
	uint32_t *order;
	uint8_t *p = random_cycle(big, &order);
	if (!p)
		return -1;
	chase_ticks(p, (uint64_t)order[0] * 64, 200000);
	m->big_ns = chase_ticks(p, (uint64_t)order[0] * 64, 2000000) / tpn;
	m->big_prefetched_ns = prefetched_ticks(p, order, big / 64, 4000000) / tpn;
	free(order);
	uint8_t *q = random_cycle(small, &order);
	if (!q)
		return -1;
	chase_ticks(q, (uint64_t)order[0] * 64, 200000);
	m->small_ns = chase_ticks(q, (uint64_t)order[0] * 64, 4000000) / tpn;
	free(order);
	return 0;
}

/* Microseconds a page of the first access to each of PAGE_FEE_PAGES
 * fresh anonymous 4 KiB pages (no huge pages): a store, or with
 * `populated` a load after MADV_POPULATE_WRITE.  -1 where the kernel lacks
 * it, -2 out of memory. */
enum { PAGE_FEE_PAGES = 2048 };

static int populate(uint8_t *m, size_t n)
{
#ifdef MADV_POPULATE_WRITE
	return madvise(m, n, MADV_POPULATE_WRITE);
#else
	(void)m;
	(void)n;
	return -1;
#endif
}

static double first_access_us(int populated)
{
	size_t page = 4096, n = PAGE_FEE_PAGES * page;
	uint8_t *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return -2;
	madvise(m, n, MADV_NOHUGEPAGE);
	double us = -1;
	if (!populated || populate(m, n) == 0) {
		double t0 = mono_ns();
		for (size_t o = 0; o < n; o += page) {
			if (populated)
				(void)*(volatile const uint8_t *)(m + o);
			else
				*(volatile uint8_t *)(m + o) = 1;
		}
		us = (mono_ns() - t0) / PAGE_FEE_PAGES / 1000;
	}
	munmap(m, n);
	return us;
}

int main(int argc, char **argv)
{
	int json = 0;
	if (argc == 2 && strcmp(argv[1], "--json") == 0) {
		json = 1;
	} else if (argc == 2 && strcmp(argv[1], "--help") == 0) {
		puts("Usage: machine_probe [--json]\n"
		     "One line on this machine's speed: core clock, instructions a cycle,\n"
		     "RDTSC's cost, random reads of a large table and of the caches, and\n"
		     "what a fresh page costs at its first access.");
		return 0;
	} else if (argc != 1) {
		fprintf(stderr, "machine_probe: unknown argument '%s' (try --help)\n", argv[1]);
		return 2;
	}
	struct cpu c;
	cpu_identify(&c);
	double tpn = tsc_per_ns();
	uint64_t dep, ind, pairs = UINT64_MAX;
	best_of_bursts(dependent_adds, &dep, independent_adds, &ind);
	for (int r = 0; r < BURSTS; r++) {
		uint64_t t = ticks(rdtsc_pairs, RDTSC_BURST);
		pairs = t < pairs ? t : pairs;
	}
	double ghz = (double)DEPENDENT_ADDS * BURST * tpn / (double)dep;
	double ipc = (double)INDEPENDENT_INSNS * BURST / ((double)ind / tpn * ghz);
	double rdtsc_ns = (double)pairs / tpn / RDTSC_BURST;
	struct memory m;
	if (measure_memory(tpn, &m) < 0) {
		fprintf(stderr, "machine_probe: out of memory for a 64 MiB table\n");
		return 1;
	}
	double fresh_us = first_access_us(0), populated_us = first_access_us(1);
	if (fresh_us == -2 || populated_us == -2) {
		fprintf(stderr, "machine_probe: out of memory for %d pages\n", PAGE_FEE_PAGES);
		return 1;
	}
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (json) {
		printf("{\"cpus\":%ld,\"vendor\":\"%s\",\"family\":%u,\"model\":%u,\"rdtscp\":%s,"
		       "\"tsc_mhz\":%.0f,\"core_ghz\":%.2f,\"ipc_independent_adds\":%.2f,"
		       "\"rdtsc_ns\":%.1f,\"random_read_64mib_ns\":%.1f,"
		       "\"prefetched_line_64mib_ns\":%.1f,\"random_read_256kib_ns\":%.1f,"
		       "\"fresh_page_us\":%.2f,\"populated_page_us\":%.2f}\n",
		       cpus, c.vendor, c.family, c.model, c.rdtscp ? "true" : "false", tpn * 1000,
		       ghz, ipc, rdtsc_ns, m.big_ns, m.big_prefetched_ns, m.small_ns, fresh_us,
		       populated_us);
		return 0;
	}
	printf("machine: %ld cpus, %s family %u model %u, %s, TSC %.0f MHz; core %.2f GHz, "
	       "%.2f instructions a cycle on independent adds; rdtsc %.1f ns; random read "
	       "%.0f ns (64 MiB), %.1f ns a line prefetched, %.1f ns (256 KiB); fresh page "
	       "%.2f us, %.2f after populate\n",
	       cpus, c.vendor, c.family, c.model, c.rdtscp ? "RDTSCP" : "no RDTSCP", tpn * 1000,
	       ghz, ipc, rdtsc_ns, m.big_ns, m.big_prefetched_ns, m.small_ns, fresh_us,
	       populated_us);
	return 0;
}
