/*
 * timer.h - the clock trace_run times each allocator call with.
 *
 * The replay loop reads the clock twice per call, so the read is inline and
 * costs only what the instruction costs: RDTSCP followed by LFENCE (RDTSCP
 * waits for earlier instructions to finish; the LFENCE stops later ones from
 * starting before the read).  CPUID is never used here: on a virtual machine
 * it traps to the hypervisor and would cost microseconds per call.  Where
 * RDTSCP is missing (another x86 processor, or another architecture) the
 * clock is CLOCK_MONOTONIC in nanoseconds, and the report says so.
 */
#ifndef RT_TIMER_H
#define RT_TIMER_H

#include <stdint.h>
#include <time.h>

enum rt_timer_source { RT_TIMER_AUTO, RT_TIMER_TSC, RT_TIMER_CLOCK };

struct rt_timer_info {
	enum rt_timer_source source; /* RT_TIMER_TSC or RT_TIMER_CLOCK after init */
	const char *unit;            /* "cycles" or "ns" */
	uint64_t overhead;           /* cost of an empty timed region, subtracted */
	double tsc_mhz;              /* TSC ticks per microsecond, measured */
	int clock_asked;             /* the clock is RT_TIMER_CLOCK because --timer said so */
};

#if defined(__x86_64__) || defined(__i386__)
static inline uint64_t rt_rdtscp(void)
{
	uint32_t lo, hi, aux;
	__asm__ volatile("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux) : : "memory");
	return (uint64_t)hi << 32 | lo;
}
#else
static inline uint64_t rt_rdtscp(void)
{
	return 0;
}
#endif

static inline uint64_t rt_clock_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One reading.  tsc is a local of the caller's loop, constant for the
 * whole replay, so the branch always goes the same way and predicts free. */
static inline uint64_t rt_now(int tsc)
{
	return tsc ? rt_rdtscp() : rt_clock_ns();
}

/*
 * Picks the source (AUTO: RDTSCP if the processor has it), measures the TSC
 * frequency against CLOCK_MONOTONIC and the cost of an empty timed region.
 * Returns -1 with *why set if TSC was asked for and is missing.
 */
int rt_timer_init(enum rt_timer_source want, struct rt_timer_info *info, const char **why);

#endif
