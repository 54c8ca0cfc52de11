/*
 * timer.c - choosing and calibrating the replay clock (see timer.h).
 *
 * Everything here runs once, before any replay thread exists, so it may
 * take a few tens of milliseconds and use CPUID; nothing here is on the
 * replay path.
 */
#include "config.h"

#include <assert.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "sort_u64.h"
#include "timer.h"

enum { CAL_ROUNDS = 20001, FREQ_WINDOW_NS = 20000000, PAIR_ROUNDS = 10000, PAIR_PASSES = 9 };

#define KERNEL_TSC_KHZ "/sys/devices/system/cpu/cpu0/tsc_freq_khz"

static const char *const names[RT_TIMER_SOURCES] = { "auto", "rdtscp", "rdtsc", "cntvct",
						     "clock" };
static const char *const forced[RT_TIMER_SOURCES] = { "auto", "--timer=rdtscp", "--timer=rdtsc",
						      "--timer=cntvct", "--timer=clock" };

const char *rt_timer_name(enum rt_timer_source source)
{
	return names[source];
}

int rt_timer_parse(const char *name, enum rt_timer_source *source)
{
	for (int i = 0; i < RT_TIMER_SOURCES; i++)
		if (!strcmp(name, names[i])) {
			*source = (enum rt_timer_source)i;
			return 0;
		}
	return -1;
}

/* What this processor offers, less what TRACE_RUN_TEST_CPU hides.
 * rdtscp_traps: TRACE_RUN_TEST_CPU's rdtscp-traps, CPUID taken to say
 * RDTSCP and the trial below made to run an undefined instruction in its
 * place; rdtscp_trapped: CPUID said RDTSCP, and the trial trapped. */
struct cpu {
	int rdtscp, tsc, cntvct, kernel_freq, rdtscp_traps, rdtscp_trapped;
	char freq_file[256];
};

#if defined(__x86_64__) || defined(__i386__)
static int cpuid_bit(unsigned leaf, int reg, int bit)
{
	unsigned r[4];
	if (!__get_cpuid(leaf, &r[0], &r[1], &r[2], &r[3]))
		return 0;
	return r[reg] >> bit & 1;
}

/*
 * Whether RDTSCP runs, tried once under a SIGILL handler.  CPUID is not
 * the last word: valgrind's reports RDTSCP on a processor without it and
 * then cannot run the instruction (SIGILL, trace_run killed before its
 * first call), which is exactly where an allocator's author counts
 * instructions with callgrind.  `traps`: run UD2 instead, so that tests
 * take this path on any processor.
 */
static sigjmp_buf trial_jump;

static void trial_trapped(int sig)
{
	(void)sig;
	siglongjmp(trial_jump, 1);
}

static int rdtscp_runs(int traps)
{
	static int known = -1;
	if (known >= 0 && !traps)
		return known;
	struct sigaction trap = { .sa_handler = trial_trapped }, old;
	sigemptyset(&trap.sa_mask);
	if (sigaction(SIGILL, &trap, &old) < 0)
		return 0;
	volatile int ran = 0;
	if (!sigsetjmp(trial_jump, 1)) {
		uint32_t lo, hi, aux;
		if (traps)
			__asm__ volatile("ud2");
		__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
		ran = 1;
	}
	sigaction(SIGILL, &old, NULL);
	return traps ? ran : (known = ran);
}
#endif

/* The n bytes at s are word. */
static int is_word(const char *s, size_t n, const char *word)
{
	return n == strlen(word) && !strncmp(s, word, n);
}

/* Reads TRACE_RUN_TEST_CPU's words into c; -1 on a word it does not know. */
static int pretend(struct cpu *c)
{
	const char *s = getenv("TRACE_RUN_TEST_CPU");
	static const char file_word[] = "tsc-freq-khz-file=";
	const size_t flen = sizeof file_word - 1;
	while (s && *s) {
		size_t n = strcspn(s, ",");
		if (is_word(s, n, "no-rdtscp"))
			c->rdtscp = 0;
		else if (is_word(s, n, "rdtscp-traps"))
			c->rdtscp_traps = 1;
		else if (is_word(s, n, "no-tsc"))
			c->tsc = c->rdtscp = 0;
		else if (is_word(s, n, "no-cntvct"))
			c->cntvct = 0;
		else if (is_word(s, n, "no-kernel-freq"))
			c->kernel_freq = 0;
		else if (n > flen && n - flen < sizeof c->freq_file && !strncmp(s, file_word, flen))
			snprintf(c->freq_file, sizeof c->freq_file, "%.*s", (int)(n - flen), s + flen);
		else
			return -1;
		s += n + (s[n] == ',');
	}
	return 0;
}

static int probe(struct cpu *c)
{
	memset(c, 0, sizeof *c);
#if defined(__x86_64__) || defined(__i386__)
	c->tsc = cpuid_bit(1, 3, 4);                          /* EDX bit 4: TSC */
	c->rdtscp = c->tsc && cpuid_bit(0x80000001, 3, 27); /* EDX bit 27: RDTSCP */
#elif defined(__aarch64__)
	c->cntvct = 1; /* Linux lets user space read the virtual counter */
#endif
	c->kernel_freq = 1;
	strcpy(c->freq_file, KERNEL_TSC_KHZ);
	int rc = pretend(c);
#if defined(__x86_64__) || defined(__i386__)
	if (c->rdtscp_traps)
		c->rdtscp = c->tsc; /* CPUID says RDTSCP, as valgrind's does */
	if (c->rdtscp && !rdtscp_runs(c->rdtscp_traps))
		c->rdtscp = 0, c->rdtscp_trapped = 1;
#endif
	return rc;
}

static const char *lacking(const struct cpu *c, enum rt_timer_source want)
{
	switch (want) {
	case RT_TIMER_RDTSCP:
		if (c->rdtscp_trapped)
			return "CPUID reports RDTSCP but it traps here (an emulator that lacks it, "
			       "such as valgrind on a processor without it)";
		return c->rdtscp ? NULL : "this processor has no RDTSCP instruction";
	case RT_TIMER_RDTSC:
		return c->tsc ? NULL : "this processor has no TSC (no RDTSC instruction)";
	case RT_TIMER_CNTVCT:
		return c->cntvct ? NULL : "this processor has no CNTVCT_EL0 (an aarch64 register)";
	default:
		return NULL;
	}
}

int rt_timer_check(enum rt_timer_source want, const char **why)
{
	static char line[160];
	struct cpu c;
	if (probe(&c)) {
		*why = "TRACE_RUN_TEST_CPU: a word is not no-rdtscp, rdtscp-traps, no-tsc, no-cntvct, "
		       "no-kernel-freq or tsc-freq-khz-file=PATH";
		return -1;
	}
	const char *missing = lacking(&c, want);
	if (!missing)
		return 0;
	snprintf(line, sizeof line, "%s: %s", forced[want], missing);
	*why = line;
	return -1;
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t r = a % b;
		a = b;
		b = r;
	}
	return a;
}

/*
 * What a timed region costs when it holds nothing: the mean of many
 * back-to-back readings, leaving out those over four times their median
 * (an interrupt or a preemption inside the region), so that subtracting
 * it leaves a typical call's figure unbiased.  The mean, not the median:
 * a counter may advance in steps (a family-25 EPYC VM's TSC moves 26
 * cycles at a time, and an empty region reads 52 or 78, about two in
 * three 52), and the median of two steps is one or the other from run to
 * run, which moved every call's figure by a whole step between two
 * replays of the same workload (docs/BENCHMARKS.md).  *step gets that
 * step: the greatest common divisor of the gaps between the regions'
 * first readings, which the loop's own work makes uneven.
 */
static uint64_t empty_region_cost(enum rt_timer_source source, uint64_t *step)
{
	static uint64_t d[CAL_ROUNDS];
	uint64_t g = 0, last = rt_now(source);
	for (int i = 0; i < CAL_ROUNDS; i++) {
		uint64_t t0 = rt_now(source);
		uint64_t t1 = rt_now(source);
		d[i] = t1 - t0;
		g = gcd_u64(t0 - last, g);
		last = t0;
	}
	*step = g;
	rt_sort_u64(d, CAL_ROUNDS);
	uint64_t cutoff = 4 * d[CAL_ROUNDS / 2] + 4, sum = 0;
	int kept = 0;
	while (kept < CAL_ROUNDS && d[kept] <= cutoff)
		sum += d[kept++];
	assert(kept > CAL_ROUNDS / 2); /* the median is under its own cutoff */
	return (sum + (uint64_t)kept / 2) / (uint64_t)kept;
}

/*
 * The replay loop's own work between two calls, as far as the timer sees
 * it: a chain of dependent loads from a table in the first-level cache,
 * like decoding an op and loading its slot.  Returns the chain's end, so
 * that no compiler can drop it.
 */
enum { CHAIN_LOADS = 6, CHAIN_TABLE = 1024 };

static unsigned chain(const unsigned *table, unsigned x)
{
	for (int k = 0; k < CHAIN_LOADS; k++)
		x = table[(x + (unsigned)k) & (CHAIN_TABLE - 1)];
	return x;
}

/* Counter units a round of one pass of PAIR_ROUNDS rounds of the loop's
 * work, each followed by a timed empty region when timed. */
static uint64_t rounds_cost(enum rt_timer_source source, const unsigned *table, int timed)
{
	uint64_t sink = 0;
	unsigned x = 1;
	uint64_t t0 = rt_now(source);
	for (int i = 0; i < PAIR_ROUNDS; i++) {
		x = chain(table, x + (unsigned)i);
		__asm__ volatile("" : "+r"(x));
		if (timed) {
			uint64_t a = rt_now(source);
			sink += rt_now(source) - a;
		}
	}
	uint64_t per = (rt_now(source) - t0) / PAIR_ROUNDS;
	__asm__ volatile("" : : "r"(sink), "r"(x));
	return per;
}

/*
 * What the two reads around each call cost the replay, all told: the part
 * inside the timed region (the overhead above) and the part outside, with
 * the pipeline drained by each fence.  Measured as the replay loop reads
 * the timer, between rounds of work like the loop's own: a loop of the
 * work with a timed empty region after each round, less the same loop
 * without, each the fastest of PAIR_PASSES passes, the two kinds taken
 * in turn so that a stretch of a slower processor (a busy host) falls on
 * both, where five passes of one and then five of the other read high
 * (and own cost low by as much) in over a quarter of the runs on a loaded
 * VM (docs/BENCHMARKS.md).  With fences on both sides of each read the
 * two reads cost as much there as back to back; a source that lets the
 * work run past its read (clock_gettime) costs less there, and back to
 * back would overstate it.  trace_run's own cost is its CPU time outside
 * the allocator's calls less this, per call.
 */
static uint64_t pair_cost(enum rt_timer_source source)
{
	static unsigned table[CHAIN_TABLE];
	for (unsigned i = 0; i < CHAIN_TABLE; i++)
		table[i] = i * 2654435761u >> 7;
	uint64_t timed = UINT64_MAX, bare = UINT64_MAX;
	for (int pass = 0; pass < PAIR_PASSES; pass++) {
		uint64_t t = rounds_cost(source, table, 1), b = rounds_cost(source, table, 0);
		timed = t < timed ? t : timed;
		bare = b < bare ? b : bare;
	}
	return timed > bare ? timed - bare : 0;
}

/* Counter ticks per microsecond over a 20 ms window of CLOCK_MONOTONIC_RAW. */
static double measured_mhz(enum rt_timer_source source)
{
	uint64_t c0 = rt_clock_raw_ns(), t0 = rt_now(source), c1, t1;
	do {
		c1 = rt_clock_raw_ns();
		t1 = rt_now(source);
	} while (c1 - c0 < FREQ_WINDOW_NS);
	return (double)(t1 - t0) * 1000.0 / (double)(c1 - c0);
}

/* The kernel's TSC frequency in kHz from path, where the kernel has it. */
static int khz_file(const char *path, double *mhz)
{
	char buf[32], *end;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	unsigned long long khz = strtoull(buf, &end, 10);
	if (buf[0] < '0' || buf[0] > '9' || (*end && *end != '\n') || !khz)
		return 0;
	*mhz = (double)khz / 1000.0;
	return 1;
}

#if defined(__x86_64__) || defined(__i386__)
/*
 * The TSC frequency as the processor states it, read the way Linux reads
 * it when it sets tsc_known_freq: leaf 0x15 (crystal and TSC/crystal
 * ratio), with leaf 0x16's base frequency where the crystal is not given;
 * under VMware or KVM, the hypervisor's timing leaf 0x40000010 (kHz).
 */
static const char *cpuid_mhz(double *mhz)
{
	unsigned max = __get_cpuid_max(0, NULL), a, b, c, d, base, x;
	if (max >= 0x15) {
		__cpuid_count(0x15, 0, a, b, c, d);
		if (a && b && c) {
			*mhz = (double)c * b / a / 1e6;
			return "CPUID leaf 0x15";
		}
		if (a && b && max >= 0x16) {
			__cpuid_count(0x16, 0, base, x, c, d);
			if (base & 0xffff) {
				*mhz = base & 0xffff;
				return "CPUID leaf 0x16";
			}
		}
	}
	if (!cpuid_bit(1, 2, 31)) /* ECX bit 31: under a hypervisor */
		return NULL;
	char vendor[13] = { 0 };
	__cpuid(0x40000000, max, b, c, d);
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &c, 4);
	memcpy(vendor + 8, &d, 4);
	if (max < 0x40000010 || (strcmp(vendor, "VMwareVMware") && strcmp(vendor, "KVMKVMKVM")))
		return NULL;
	__cpuid(0x40000010, a, b, c, d);
	if (!a)
		return NULL;
	*mhz = a / 1000.0;
	return "CPUID leaf 0x40000010 (hypervisor)";
}
#endif

/* Frequency of the counter behind source, and where it came from. */
static void frequency(const struct cpu *c, struct rt_timer_info *info)
{
	if (info->source == RT_TIMER_CLOCK) {
		info->freq_source = info->freq_key = "none";
		return;
	}
#if defined(__aarch64__)
	uint64_t hz;
	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(hz));
	if (hz) {
		info->tsc_mhz = (double)hz / 1e6;
		info->freq_source = "CNTFRQ_EL0";
		info->freq_key = "cntfrq";
		return;
	}
#endif
	if (c->kernel_freq && khz_file(c->freq_file, &info->tsc_mhz)) {
		info->freq_source = "the kernel's tsc_freq_khz";
		info->freq_key = "kernel";
		return;
	}
#if defined(__x86_64__) || defined(__i386__)
	if (c->kernel_freq && (info->freq_source = cpuid_mhz(&info->tsc_mhz)) != NULL) {
		info->freq_key = "cpuid";
		return;
	}
#endif
	info->tsc_mhz = measured_mhz(info->source);
	info->freq_source = "measured against CLOCK_MONOTONIC_RAW";
	info->freq_key = "measured";
}

/* The first rung of the ladder c has, and why the ones above it were passed. */
static enum rt_timer_source ladder(const struct cpu *c, const char **chosen_by)
{
	*chosen_by = "auto";
	if (c->rdtscp)
		return RT_TIMER_RDTSCP;
	if (c->tsc) {
		*chosen_by = c->rdtscp_trapped ? "auto: RDTSCP traps" : "auto: no RDTSCP";
		return RT_TIMER_RDTSC;
	}
	if (c->cntvct)
		return RT_TIMER_CNTVCT;
#if defined(__x86_64__) || defined(__i386__)
	*chosen_by = "auto: no TSC";
#elif defined(__aarch64__)
	*chosen_by = "auto: no CNTVCT_EL0";
#else
	*chosen_by = "auto: no cycle counter known on this architecture";
#endif
	return RT_TIMER_CLOCK;
}

int rt_timer_init(enum rt_timer_source want, struct rt_timer_info *info, const char **why)
{
	struct cpu c;
	memset(info, 0, sizeof *info);
	if (rt_timer_check(want, why))
		return -1;
	probe(&c);
	if (want == RT_TIMER_AUTO) {
		info->source = ladder(&c, &info->chosen_by);
	} else {
		info->source = want;
		info->chosen_by = forced[want];
	}
	info->unit = info->source == RT_TIMER_CLOCK	 ? "ns"
		     : info->source == RT_TIMER_CNTVCT ? "ticks"
						       : "cycles";
	frequency(&c, info);
	info->overhead = empty_region_cost(info->source, &info->step);
	info->pair_cost = pair_cost(info->source);
	return 0;
}
