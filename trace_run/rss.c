/*
 * rss.c - the replay's memory readings, and the peak that Max RSS reports.
 *
 * Max RSS is the allocator's: the highest anonymous resident memory during
 * the replay, less what was resident before the clock started.  Anonymous,
 * because the allocator's memory is, while the stream windows trace_run
 * maps from the workload file (stream.c) are not and move as it reads.
 * The peak is found two ways: the monitor thread reads /proc/self/statm
 * every millisecond after the RSS fell, which catches any peak that lasts
 * longer, and up to every ten while it does not (a peak then stays until
 * the next reading: monitor.c); and a
 * replay thread whose call takes the ideal RSS to a new peak, 1/64 above
 * the last one it read at, reads it there, which catches a brief peak of
 * a replay whose memory follows its live bytes.  statm reads the kernel's
 * running counters, which lag the page tables by up to 64 pages per thread
 * that faulted (256 KB here); smaps_rollup (rt_rss_exact) walks the page
 * tables, too slow for anything but the readings around a replay.
 */
#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include "replay_internal.h"

/* The decimal number at *p, skipping one separator after it. */
static unsigned long long number(const char **p, const char *end)
{
	unsigned long long v = 0;
	while (*p < end && **p >= '0' && **p <= '9')
		v = v * 10 + (unsigned long long)(*(*p)++ - '0');
	if (*p < end)
		(*p)++;
	return v;
}

/* Parsed by hand: sscanf may allocate, and a replay thread calls this. */
void rt_statm(const struct rt_replay *r, uint64_t *vmsize_kb, uint64_t *vmrss_kb,
	      uint64_t *anon_kb)
{
	char buf[128];
	ssize_t n = pread(r->statm_fd, buf, sizeof buf, 0);
	const char *p = buf, *end = buf + (n > 0 ? n : 0);
	unsigned long long size = number(&p, end), rss = number(&p, end), shared = number(&p, end);
	uint64_t kb = r->page / 1024;
	*vmsize_kb = size * kb;
	*vmrss_kb = rss * kb;
	*anon_kb = rss > shared ? (rss - shared) * kb : 0;
}

uint64_t rt_rss_sample(struct rt_replay *r)
{
	uint64_t size, rss, anon;
	rt_statm(r, &size, &rss, &anon);
	uint64_t peak = atomic_load_explicit(&r->anon_peak_kb, memory_order_relaxed);
	while (anon > peak && !atomic_compare_exchange_weak_explicit(&r->anon_peak_kb, &peak, anon,
								     memory_order_relaxed,
								     memory_order_relaxed))
		;
	return anon;
}

enum { RSS_STEP_MIN = 256 * 1024 };

void rt_rss_at_ideal_peak(struct rt_thread *t, int64_t ideal)
{
	int64_t step = ideal / 64 > RSS_STEP_MIN ? ideal / 64 : RSS_STEP_MIN;
	atomic_store_explicit(&t->state, RT_BUSY, memory_order_relaxed);
	rt_rss_sample(t->r);
	atomic_store_explicit(&t->state, RT_RUNNING, memory_order_relaxed);
	t->rss_next = ideal + step;
}

/*
 * The resident set, to the page, from /proc/self/smaps_rollup (which walks
 * the page tables): statm and getrusage read the kernel's running counters,
 * which lag by up to 64 pages per processor (256 KB here), as much as a
 * small replay's allocator holds.  Too slow for the sampler, right for the
 * two readings around a replay.  statm's figure where the file is missing.
 */
uint64_t rt_rss_exact(const struct rt_replay *r)
{
	char line[256];
	unsigned long long kb = 0;
	int found = 0;
	FILE *f = fopen("/proc/self/smaps_rollup", "re");
	while (f && !found && fgets(line, sizeof line, f))
		found = sscanf(line, "Rss: %llu kB", &kb) == 1;
	if (f)
		fclose(f);
	if (found)
		return kb;
	uint64_t size, rss, anon;
	rt_statm(r, &size, &rss, &anon);
	return rss;
}
