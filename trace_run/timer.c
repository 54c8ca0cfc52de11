/*
 * timer.c - choosing and calibrating the replay clock (see timer.h).
 *
 * Calibration runs once, before any replay thread exists, so it may take a
 * few tens of milliseconds; nothing here is on the replay path.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "timer.h"

enum { CAL_ROUNDS = 20001, FREQ_WINDOW_NS = 20000000 };

static int have_rdtscp(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	if (!__get_cpuid(0x80000001, &a, &b, &c, &d))
		return 0;
	return (d >> 27) & 1;
#else
	return 0;
#endif
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/*
 * The median of many back-to-back readings: what a timed region costs when
 * it holds nothing.  The median, not the minimum, so that subtracting it
 * leaves a typical call's figure unbiased.
 */
static uint64_t empty_region_cost(int tsc)
{
	static uint64_t d[CAL_ROUNDS];
	for (int i = 0; i < CAL_ROUNDS; i++) {
		uint64_t t0 = rt_now(tsc);
		uint64_t t1 = rt_now(tsc);
		d[i] = t1 - t0;
	}
	qsort(d, CAL_ROUNDS, sizeof d[0], cmp_u64);
	return d[CAL_ROUNDS / 2];
}

/* TSC ticks per microsecond over a 20 ms window of CLOCK_MONOTONIC. */
static double tsc_mhz(void)
{
	uint64_t c0 = rt_clock_ns(), t0 = rt_rdtscp(), c1, t1;
	do {
		c1 = rt_clock_ns();
		t1 = rt_rdtscp();
	} while (c1 - c0 < FREQ_WINDOW_NS);
	return (double)(t1 - t0) * 1000.0 / (double)(c1 - c0);
}

int rt_timer_init(enum rt_timer_source want, struct rt_timer_info *info, const char **why)
{
	int tsc = have_rdtscp();
	if (want == RT_TIMER_TSC && !tsc) {
		*why = "this processor has no RDTSCP instruction";
		return -1;
	}
	tsc = tsc && want != RT_TIMER_CLOCK;
	memset(info, 0, sizeof *info);
	info->source = tsc ? RT_TIMER_TSC : RT_TIMER_CLOCK;
	info->unit = tsc ? "cycles" : "ns";
	info->tsc_mhz = tsc ? tsc_mhz() : 0.0;
	info->overhead = empty_region_cost(tsc);
	info->clock_asked = want == RT_TIMER_CLOCK;
	return 0;
}
