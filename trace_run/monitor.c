/*
 * monitor.c - the thread that watches a replay: RSS samples, the watchdog
 * and the progress line.
 *
 * Every millisecond, or up to ten while the RSS does not fall (below), it
 * raises the RSS peak (rss.c).  Every --sample-ms it reads
 * /proc/self/statm and the replay counters, and writes a --timeline row.
 * The same look tells it whether the replay is moving: if no thread
 * finished an op for --watchdog seconds and none is pacing, some thread
 * waits for a sync point nobody will signal (a cycle the load-time check
 * cannot see), so it names the stuck threads and ends the process with
 * status 3 rather than hang.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "replay_internal.h"
#include "sync.h"

int rt_monitor_open(struct rt_replay *r, struct mt_error *e)
{
	r->statm_fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	if (r->statm_fd < 0)
		return mt_error_set(e, "/proc/self/statm", "%s", strerror(errno));
	if (!r->o->timeline)
		return 0;
	r->timeline = fopen(r->o->timeline, "w");
	if (!r->timeline)
		return mt_error_set(e, "--timeline", "cannot create %s: %s", r->o->timeline,
				    strerror(errno));
	fputs("time_ms,vmrss_kb,vmsize_kb,ideal_kb,calls\n", r->timeline);
	return 0;
}

int rt_monitor_close(struct rt_replay *r, struct mt_error *e)
{
	int rc = 0;
	if (r->timeline) {
		int failed = ferror(r->timeline);
		struct stat st;
		/* A partial timeline is no timeline; but /dev/full is no file of ours. */
		int regular = fstat(fileno(r->timeline), &st) == 0 && S_ISREG(st.st_mode);
		errno = 0;
		if (fclose(r->timeline) == EOF || failed) {
			rc = mt_error_set(e, "--timeline", "writing %s: %s", r->o->timeline,
					  errno ? strerror(errno) : "write error");
			if (regular)
				unlink(r->o->timeline);
		}
		r->timeline = NULL;
	}
	if (r->statm_fd >= 0)
		close(r->statm_fd);
	r->statm_fd = -1;
	return rc;
}

struct progress {
	uint64_t ops, calls;
	int working, finished;
};

/*
 * Threads that are working though no op completes: in --touch or
 * --trim-every work (a 4 GiB block takes seconds to write), or sleeping for
 * --pace toward a time at most the watchdog's interval away (survey.c keeps
 * the sleeps that short; a longer one is a stall like any other).  Time in
 * the allocator, in a sync wait or held by the shared clock is no work.
 */
static struct progress look(const struct rt_replay *r, uint64_t now, uint64_t limit_ns)
{
	struct progress p = { 0 };
	for (uint32_t i = 0; i < r->info->threads; i++) {
		struct rt_thread *t = &r->threads[i];
		uint64_t calls = atomic_load_explicit(&t->calls, memory_order_relaxed);
		p.calls += calls;
		p.ops += calls + atomic_load_explicit(&t->syncs, memory_order_relaxed);
		int s = atomic_load_explicit(&t->state, memory_order_relaxed);
		uint64_t due = atomic_load_explicit(&t->due_ns, memory_order_relaxed);
		p.working += s == RT_BUSY || (s == RT_PACING && due - now <= limit_ns);
		p.finished += s == RT_FINISHED;
	}
	return p;
}

/* A sample; with --timeline, its row, unless it repeats the last row
 * exactly (the threads may finish, and be sampled, in the same millisecond
 * as the end's own last sample). */
static void sample(struct rt_replay *r, uint64_t calls)
{
	uint64_t size, rss, anon;
	rt_statm(r, &size, &rss, &anon);
	if (!r->timeline) {
		r->samples++;
		return;
	}
	int64_t ideal = atomic_load_explicit(&r->ideal_live, memory_order_relaxed);
	uint64_t row[5] = { (rt_clock_ns() - r->start_ns) / 1000000u, rss, size,
			    (uint64_t)(ideal / 1024), calls };
	if (r->samples && memcmp(row, r->last_row, sizeof row) == 0)
		return;
	memcpy(r->last_row, row, sizeof row);
	r->samples++;
	fprintf(r->timeline, "%llu,%llu,%llu,%lld,%llu\n", (unsigned long long)row[0],
		(unsigned long long)row[1], (unsigned long long)row[2], (long long)row[3],
		(unsigned long long)row[4]);
}

/* "trace_run: 45% (18,200,000 of 40,500,000 calls), 3 s left", over
 * itself, once a second once the replay has run a second; written with
 * write(2) from a buffer on the stack, so the allocator sees no call. */
static void progress(struct rt_replay *r, uint64_t calls, uint64_t now, int last)
{
	char line[160] = "\r\033[K"; /* at the end: the line wiped */
	uint64_t ran = now - r->start_ns, total = r->total_calls ? r->total_calls : 1;
	uint64_t left = calls ? (uint64_t)((double)ran * (double)(total - calls) / (double)calls) : 0;
	int n = last ? 4 : snprintf(line, sizeof line, "\rtrace_run: %3u%% (%llu of %llu calls), "
				    "%llu s left ", (unsigned)(100 * calls / total),
				    (unsigned long long)calls, (unsigned long long)total,
				    (unsigned long long)(left / 1000000000u));
	if (n > 0 && write(2, line, (size_t)n) != n)
		r->progress = 0; /* stderr went away: no more tries */
}

/* One line naming every unfinished thread and what it waits for. */
static void stuck(struct rt_replay *r, unsigned secs, uint64_t now)
{
	char line[MT_ERROR_MAX];
	size_t len = 0;
	for (uint32_t i = 0; i < r->info->threads && len < sizeof line - 64; i++) {
		struct rt_thread *t = &r->threads[i];
		if (atomic_load_explicit(&t->state, memory_order_relaxed) == RT_FINISHED)
			continue;
		uint64_t w = atomic_load_explicit(&t->waiting, memory_order_relaxed);
		uint64_t op = atomic_load_explicit(&t->calls, memory_order_relaxed) +
			      atomic_load_explicit(&t->syncs, memory_order_relaxed);
		int state = atomic_load_explicit(&t->state, memory_order_relaxed);
		len += (size_t)snprintf(line + len, sizeof line - len, "%sthread %u (tid %u) ",
					len ? "; " : "", i, t->tid);
		if (w)
			len += (size_t)snprintf(line + len, sizeof line - len,
						"waits for sync %llu", (unsigned long long)(w - 1));
		else if (state == RT_GATED)
			len += (size_t)snprintf(line + len, sizeof line - len,
						"is ahead on the recorded clock, waiting for thread %u",
						atomic_load_explicit(&t->behind, memory_order_relaxed));
		else if (state == RT_HELD)
			len += (size_t)snprintf(line + len, sizeof line - len,
						"waits for frees under the byte cap");
		else if (state == RT_PACING)
			len += (size_t)snprintf(line + len, sizeof line - len, "sleeps %llu s for --pace",
						(unsigned long long)((atomic_load(&t->due_ns) - now) /
								     1000000000u));
		else
			len += (size_t)snprintf(line + len, sizeof line - len, "is in op %llu",
						(unsigned long long)op);
	}
	if (r->timeline)
		fflush(r->timeline);
	fflush(stdout);
	fprintf(stderr, "trace_run: %s: no progress for %u s, stuck: %s\n", mt_wl_path(r->wl), secs,
		line);
	_exit(3);
}

/*
 * The monitor's step between RSS readings.  A wake-up costs this VM ~15-20
 * us of CPU time (a timed futex wait; the statm read is ~1 us of it), so
 * one a millisecond cost 1.9-2.4 ns a call on CPython's and cc1plus's
 * replays (docs/BENCHMARKS.md).  Resident memory only goes down when the
 * allocator gives pages back; while it does not, a peak stays until the
 * next reading, however late, and reading late loses nothing.  So the
 * step is READ_STEP_MIN_NS after a reading that found the anonymous RSS lower
 * than the one before (memory given back: peaks may now be brief), and
 * doubles at each reading that did not, up to max: READ_STEP_MAX_NS or
 * --sample-ms if shorter, so that the samples' wake-ups are the RSS
 * readings' too.  What it can miss: a rise and fall both within one long
 * step that follows a stretch of no fall and does not follow the live
 * bytes (the replay threads' readings at each new ideal peak, rss.c,
 * catch those that do).
 */
enum { READ_STEP_MIN_NS = 1000000, READ_STEP_MAX_NS = 10000000 };

static uint64_t rss_step(uint64_t step, uint64_t max, uint64_t anon, uint64_t last_anon)
{
	if (anon < last_anon)
		return READ_STEP_MIN_NS;
	return step < max / 2 ? 2 * step : max;
}

/* How long to sleep: the RSS step, or less to the next sample or
 * progress line. */
static struct timespec sleep_for(uint64_t step, uint64_t now, uint64_t next_sample,
				 uint64_t next_progress, int progress)
{
	uint64_t ns = step;
	if (next_sample > now && next_sample - now < ns)
		ns = next_sample - now;
	if (progress && next_progress > now && next_progress - now < ns)
		ns = next_progress - now;
	return (struct timespec){ (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
}

/*
 * Wakes every RSS step (above) for the RSS peak (rss.c), and every
 * --sample-ms for a sample and a look at the threads; every second, with
 * a terminal on stderr, for the progress line.
 */
void *rt_monitor_main(void *arg)
{
	struct rt_replay *r = arg;
	const uint64_t sample_ns = (uint64_t)r->o->sample_ms * 1000000u;
	const uint64_t limit_ns = (uint64_t)r->o->watchdog_s * 1000000000u;
	uint64_t last_ops = 0, still_since, next_sample, next_progress, now;
	const uint64_t max_step = sample_ns < READ_STEP_MAX_NS ? sample_ns : READ_STEP_MAX_NS;
	uint64_t step = READ_STEP_MIN_NS, last_anon;
	int shown = 0;

	rt_sync_wait(&r->go, 0);
	if (atomic_load(&r->abandon))
		return NULL;
	still_since = now = r->start_ns;
	next_sample = r->start_ns + sample_ns;
	next_progress = r->start_ns + 1000000000u;
	last_anon = r->anon_base_kb;
	sample(r, 0);
	for (;;) {
		/* Sleeps one step, or less when the replay ends; once it has
		 * ended, one last sample shows every call done.  The flag is read
		 * again after the sleep, so the sample the end woke is that last
		 * one, not one more before it. */
		int last = atomic_load_explicit(&r->stop, memory_order_acquire);
		if (!last) {
			struct timespec ts = sleep_for(step, now, next_sample, next_progress,
						       r->progress);
			rt_futex_wait_for(&r->stop, 0, &ts);
			last = atomic_load_explicit(&r->stop, memory_order_acquire);
		}
		uint64_t anon = rt_rss_sample(r);
		step = rss_step(step, max_step, anon, last_anon);
		last_anon = anon;
		now = rt_clock_ns();
		if (!last && now < next_sample && now < next_progress)
			continue;
		struct progress p = look(r, now, limit_ns);
		if (r->progress && (now >= next_progress || (last && shown))) {
			progress(r, p.calls, now, last);
			next_progress = now + 1000000000u;
			shown = 1;
		}
		if (!last && now < next_sample)
			continue;
		next_sample = now + sample_ns;
		sample(r, p.calls);
		if (last)
			break;
		if (p.ops != last_ops || p.working || p.finished == (int)r->info->threads) {
			last_ops = p.ops;
			still_since = now;
		} else if (limit_ns && now - still_since >= limit_ns) {
			stuck(r, r->o->watchdog_s, now);
		}
	}
	rt_sync_retire(&r->done);
}
