/*
 * timer.h - the clock trace_run times each allocator call with.
 *
 * The replay loop reads the clock twice per call, so the read is inline and
 * costs only what its instructions cost.  rt_timer_init picks one source
 * once, before any replay thread exists, from a ladder:
 *
 *   rdtscp  RDTSCP then LFENCE: RDTSCP waits for earlier instructions to
 *           finish, the LFENCE stops later ones from starting before it.
 *   rdtsc   LFENCE; RDTSC; LFENCE: the same fence on both sides, for an
 *           x86 processor without RDTSCP (AMD and Intel both document it).
 *   cntvct  aarch64: ISB; read CNTVCT_EL0; ISB, the virtual counter.
 *   clock   clock_gettime(CLOCK_MONOTONIC_RAW), in ns, anywhere.
 *
 * CPUID is never used on the replay path: on a virtual machine it traps to
 * the hypervisor and costs microseconds.  A replay thread keeps the source
 * in a local constant, so rt_now's compares always go the same way.
 */
#ifndef RT_TIMER_H
#define RT_TIMER_H

#include <stdint.h>
#include <time.h>

enum rt_timer_source {
	RT_TIMER_AUTO,
	RT_TIMER_RDTSCP,
	RT_TIMER_RDTSC,
	RT_TIMER_CNTVCT,
	RT_TIMER_CLOCK,
	RT_TIMER_SOURCES
};

/* The ladder's top rung on this architecture, which auto picks wherever
 * the processor has it: the replay loop's lean copies (replay_loop.c) read
 * it with no compare of the source at all. */
#if defined(__x86_64__) || defined(__i386__)
#define RT_TIMER_TOP RT_TIMER_RDTSCP
#elif defined(__aarch64__)
#define RT_TIMER_TOP RT_TIMER_CNTVCT
#else
#define RT_TIMER_TOP RT_TIMER_CLOCK
#endif

struct rt_timer_info {
	enum rt_timer_source source; /* never RT_TIMER_AUTO after init */
	const char *chosen_by;       /* "auto", "auto: no RDTSCP", "--timer=rdtsc", ... */
	const char *unit;            /* "cycles" (TSC), "ticks" (CNTVCT) or "ns" */
	uint64_t overhead;           /* cost of an empty timed region, subtracted */
	uint64_t pair_cost;          /* a call's two reads, all told: see rt_timer_init */
	uint64_t step;               /* the counter's resolution, in its unit: 1 on most
					machines, 26 cycles on a VM whose TSC moves in
					steps; no call's figure is finer */
	double tsc_mhz;              /* counter ticks per microsecond; 0 for clock */
	const char *freq_source;     /* where tsc_mhz came from, for the report */
	const char *freq_key;        /* the same, one word, for JSON */
};

#if defined(__x86_64__) || defined(__i386__)
static inline uint64_t rt_rdtscp(void)
{
	uint32_t lo, hi, aux;
	__asm__ volatile("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux) : : "memory");
	return (uint64_t)hi << 32 | lo;
}

static inline uint64_t rt_rdtsc_fenced(void)
{
	uint32_t lo, hi;
	__asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
	return (uint64_t)hi << 32 | lo;
}
#endif

#if defined(__aarch64__)
static inline uint64_t rt_cntvct(void)
{
	uint64_t v;
	__asm__ volatile("isb\n\tmrs %0, cntvct_el0\n\tisb" : "=r"(v) : : "memory");
	return v;
}
#endif

/* CLOCK_MONOTONIC: for wall time and --pace, which sleep on this clock. */
static inline uint64_t rt_clock_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CLOCK_MONOTONIC_RAW: the timer of last resort; never slewed by NTP. */
static inline uint64_t rt_clock_raw_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One reading from source, which the caller holds constant for a whole
 * replay: the compares go the same way every time and predict free. */
static inline uint64_t rt_now(enum rt_timer_source source)
{
#if defined(__x86_64__) || defined(__i386__)
	if (source == RT_TIMER_RDTSCP)
		return rt_rdtscp();
	if (source == RT_TIMER_RDTSC)
		return rt_rdtsc_fenced();
#elif defined(__aarch64__)
	if (source == RT_TIMER_CNTVCT)
		return rt_cntvct();
#else
	(void)source; /* no counter known here: always the clock */
#endif
	return rt_clock_raw_ns();
}

/* "auto", "rdtscp", "rdtsc", "cntvct", "clock": the --timer names. */
const char *rt_timer_name(enum rt_timer_source source);
/* Returns 0 with *source set, or -1 if name is none of them. */
int rt_timer_parse(const char *name, enum rt_timer_source *source);

/*
 * Whether this processor has want (AUTO: always); -1 with *why set to one
 * line if not.  Cheap: CPUID only, no calibration.
 */
int rt_timer_check(enum rt_timer_source want, const char **why);

/*
 * Picks the source (AUTO: the first rung of the ladder this processor
 * has), finds the counter's frequency (the kernel's or CPUID's figure
 * where there is one, else measured against CLOCK_MONOTONIC_RAW) and the
 * cost of an empty timed region.  -1 with *why set if want is missing.
 *
 * For the test suite only, TRACE_RUN_TEST_CPU makes the processor look
 * poorer than it is (see docs/trace_run.1): comma-separated no-rdtscp,
 * no-tsc, no-cntvct, no-kernel-freq, and tsc-freq-khz-file=PATH, which
 * stands in for the kernel's tsc_freq_khz file.
 */
int rt_timer_init(enum rt_timer_source want, struct rt_timer_info *info, const char **why);

#endif
