/*
 * replay.c - setting a replay up, starting it, and collecting its figures.
 *
 * Everything the replay threads touch is built here first, from mmap and
 * pre-faulted (and locked where RLIMIT_MEMLOCK allows), so that neither page
 * faults on the replayer's tables nor the replayer's own allocations show up
 * in the allocator's figures, and the allocator has kept none of trace_run's
 * memory to serve the replay from.  The object table has a slot per object
 * number, which workloads of version 2 reuse (so it is as large as the
 * live set); the streams are read in windows (stream.c).  What is resident
 * at that point is reported as the replayer's memory.  Then all threads are released at once, the
 * clock runs until the last one is done, and the per-thread statistics
 * are merged.
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "allocator.h"
#include "replay_internal.h"
#include "sync.h"
#include "trace.h"

enum { THREAD_STACK = 256 * 1024 };

/* Where a table this large starts on a huge page and asks for huge pages:
 * perl's 1.5 M object numbers are a 24 MB table its frees read at random,
 * which in 4 KiB pages misses the TLB on most of those reads. */
enum { HUGE_PAGE = 2 << 20, SMALL_PAGE = 4096 /* the smallest: each page written */ };

/* p rounded up to a huge page, the rest of the mapping [p, p + len) let
 * go, so that [aligned, aligned + bytes) in whole pages is the whole
 * mapping left (munmap rounds untable's length up alike). */
static void *huge_aligned(uint8_t *p, size_t len, size_t bytes)
{
	const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uint8_t *a = (uint8_t *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
	uint8_t *tail = (uint8_t *)(((uintptr_t)a + bytes + page - 1) & ~(page - 1));
	if (a > p)
		munmap(p, (size_t)(a - p));
	if (p + len > tail)
		munmap(tail, (size_t)(p + len - tail));
#ifdef MADV_HUGEPAGE
	madvise(a, bytes, MADV_HUGEPAGE); /* a hint: without it, 4 KiB pages */
#endif
	return a;
}

/* A table of n entries of size bytes, zeroed, resident and (where it may
 * be) locked before the clock starts, so the replay takes no fault on it. */
static void *table(size_t n, size_t size, size_t *bytes)
{
	if (n && size > SIZE_MAX / n)
		return NULL;
	*bytes = n * size;
	if (!*bytes)
		*bytes = 1; /* mmap wants a length; an empty table still gets a page */
	size_t slack = *bytes >= HUGE_PAGE && *bytes <= SIZE_MAX - HUGE_PAGE ? HUGE_PAGE : 0;
	uint8_t *p = mmap(NULL, *bytes + slack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (slack)
		p = huge_aligned(p, *bytes + slack, *bytes);
	if (mlock(p, *bytes)) /* best effort: then each page is written once */
		for (size_t i = 0; i < *bytes; i += SMALL_PAGE)
			((volatile uint8_t *)p)[i] = 0;
	return p;
}

static void untable(void *p, size_t bytes)
{
	if (p)
		munmap(p, bytes);
}

#define BIT(c) (1u << (c))

/*
 * Which calls the workload makes that the allocator lacks, and whether what
 * replaces them (see timed_emulation) is the allocator's own.
 */
static int emulations(struct rt_replay *r, struct mt_error *e)
{
	unsigned used = 0, foreign = rt_allocator_foreign();
	for (unsigned c = MT_CALL_MALLOC; c <= MT_CALL_FREE_ALIGNED_SIZED; c++)
		if (r->info->calls[c])
			used |= BIT(c);
	r->foreign = foreign & used;
	unsigned need_pm = BIT(MT_CALL_MEMALIGN) | BIT(MT_CALL_ALIGNED_ALLOC);
	unsigned need_ma = BIT(MT_CALL_POSIX_MEMALIGN) | BIT(MT_CALL_VALLOC) | BIT(MT_CALL_PVALLOC);
	int bad = ((r->foreign & need_pm) && (foreign & BIT(MT_CALL_POSIX_MEMALIGN))) ||
		  ((r->foreign & need_ma) && (foreign & BIT(MT_CALL_MEMALIGN)));
	if (bad)
		return mt_error_set(e, rt_malloc_origin(), "has neither memalign nor posix_memalign, "
				    "and this workload needs aligned blocks");
	return 0;
}

/*
 * How the threads keep time.  The shared clock (clock.c) needs recorded
 * times and more than one thread, and is on unless --unpaced; its byte cap
 * is the recorded ideal peak and 1/CAP_SHARE more, none without one.  --pace
 * sleeps through idle stretches up to the watchdog's interval (10 s when it
 * is off), so a paced replay never sits still longer than the watchdog
 * allows.  Sync waits spin first only when every replay thread can have a
 * processor of its own (sync.h).
 */
enum { CAP_SHARE = 32 };

static void clock_setup(struct rt_replay *r)
{
	const struct rt_opts *o = r->o;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t peak = r->info->ideal_peak;
	r->clocked = r->info->threads > 1 && (r->info->flags & MT_WLF_TIMING) && !o->unpaced;
	r->ideal_cap = peak && peak < RT_NO_CAP / 2 ? (int64_t)(peak + peak / CAP_SHARE) : RT_NO_CAP;
	atomic_store(&r->held_wake_at, RT_NO_WAKE);
	r->idle_cap_ns = (uint64_t)(o->watchdog_s ? o->watchdog_s : 10) * 1000000000u;
	r->spins = cpus > 0 && r->info->threads <= (uint64_t)cpus ? RT_SYNC_SPINS : 0;
}

/*
 * --window=auto, once the survey has summed the recorded allocations: the
 * time in which the program, at its mean rate, allocated 1/CAP_SHARE of
 * its ideal peak, the margin the byte cap leaves above it.  Every thread
 * may be that far ahead of the slowest when it allocates, so the window
 * lets the live set exceed the recorded times' own by what the cap allows
 * anyway; a narrower window bounds memory no better (the cap does) and
 * makes more threads wait, each wait a yield or a sleep and a wake-up
 * from another processor, which on a VM costs more than the calls it
 * lets through (docs/FIDELITY.md).  Kept within WINDOW_MIN_NS..WINDOW_MAX_NS:
 * below, waits would outnumber calls; above, the window holds the
 * recording's order no more than loosely anyway.
 */
enum { WINDOW_PEAK_SHARE = CAP_SHARE, WINDOW_MIN_NS = 2000, WINDOW_MAX_NS = 1000000 };

static void clock_window(struct rt_replay *r)
{
	if (r->o->window_us != RT_WINDOW_AUTO) {
		r->window_ns = r->o->window_us * 1000u;
		return;
	}
	uint64_t span = r->last_call_ns > r->first_call_ns ? r->last_call_ns - r->first_call_ns : 0;
	unsigned __int128 ns = r->alloc_bytes
		? (unsigned __int128)r->info->ideal_peak * span / WINDOW_PEAK_SHARE / r->alloc_bytes
		: WINDOW_MAX_NS;
	r->window_ns = ns < WINDOW_MIN_NS ? WINDOW_MIN_NS : ns > WINDOW_MAX_NS ? WINDOW_MAX_NS : (uint64_t)ns;
}

struct tables {
	size_t slots, syncs, threads, stats, first_after, skip;
};

/* A call this long is checked for time off the processor (replay_loop.c's
 * off_cpu_check), in timer units: a preemption, a throttle or a sleep in
 * the allocator is rarely shorter, and few calls are as long, so the check's
 * system call (~1 us) is at most 0.5% of the calls it looks at. */
enum { LONG_CALL_NS = 200000 };

static uint64_t long_call_units(const struct rt_timer_info *ti)
{
	return ti->tsc_mhz > 0 ? (uint64_t)(LONG_CALL_NS * ti->tsc_mhz / 1000.0) : LONG_CALL_NS;
}

static int build(struct rt_replay *r, struct tables *tb, struct mt_error *e)
{
	const char *path = mt_wl_path(r->wl);
	uint64_t objects = r->info->objects;
	int usable_size = rt_allocator_own("malloc_usable_size");
	if (objects >= SIZE_MAX / sizeof(struct rt_slot))
		return mt_error_set(e, path, "%llu objects: too many for this machine",
				    (unsigned long long)objects);
	r->slots = table((size_t)objects + 1, sizeof *r->slots, &tb->slots);
	if (!r->slots)
		return mt_error_set(e, path, "object table for %llu objects: %s",
				    (unsigned long long)objects, strerror(errno));
	r->syncs = table((size_t)r->info->syncs, sizeof *r->syncs, &tb->syncs);
	if (!r->syncs)
		return mt_error_set(e, path, "table of %llu sync points: %s",
				    (unsigned long long)r->info->syncs, strerror(errno));
	r->threads = table(r->info->threads, sizeof *r->threads, &tb->threads);
	if (!r->threads)
		return mt_error_set(e, path, "table of %u threads: %s", r->info->threads,
				    strerror(errno));
	for (uint32_t i = 0; i < r->info->threads; i++) {
		struct rt_thread *t = &r->threads[i];
		const struct mt_wl_thread *wt = mt_wl_get_thread(r->wl, i);
		t->r = r;
		t->slots = r->slots;
		t->foreign = r->foreign;
		t->single = r->info->threads == 1;
		t->usable_size = usable_size;
		t->touch = r->o->touch;
		t->page = r->page;
		atomic_store(&t->wake_at, RT_AT_NONE);
		t->ideal_cap = r->ideal_cap;
		t->long_call = long_call_units(&r->timer);
		t->index = i;
		t->tid = wt->tid;
		t->stream = mt_wl_stream(r->wl, i);
		t->end = t->stream + wt->length;
	}
	return 0;
}

/* The call types a chain of streams (chain, below) makes, from its first. */
static unsigned chain_used(const struct rt_thread *t)
{
	unsigned used = 0;
	for (; t; t = t->then)
		used |= t->used;
	return used;
}

/* Each replay thread's statistics, for the call types the survey saw its
 * streams make: the streams chained on one share its tables, one after
 * another, so 40,000 short threads that ran in turn hold one set, not
 * 40,000 (2 KiB a call type each). */
static int stats(struct rt_replay *r, struct tables *tb, struct mt_error *e)
{
	size_t n = 0;
	for (uint32_t i = 0; i < r->info->threads; i++)
		if (!r->threads[i].chained)
			n += (size_t)__builtin_popcount(chain_used(&r->threads[i]));
	r->stats = table(n, sizeof *r->stats, &tb->stats);
	if (!r->stats)
		return mt_error_set(e, mt_wl_path(r->wl), "statistics for %zu call types: %s", n,
				    strerror(errno));
	struct rt_callstat *next = r->stats;
	for (uint32_t i = 0; i < r->info->threads; i++) {
		struct rt_thread *head = &r->threads[i];
		if (head->chained)
			continue;
		unsigned used = chain_used(head);
		for (unsigned c = 0; c < MT_CALL_COUNT; c++)
			if (used >> c & 1)
				head->stat[c] = next++;
		for (struct rt_thread *t = head->then; t; t = t->then)
			for (unsigned c = 0; c < MT_CALL_COUNT; c++)
				if (t->used >> c & 1)
					t->stat[c] = head->stat[c];
	}
	return 0;
}

/* Whether stream i gets a replay thread of its own: it has ops, and
 * runs after no other on that one's thread. */
static int own_thread(const struct rt_replay *r, uint32_t i)
{
	return r->threads[i].stream != r->threads[i].end && !r->threads[i].chained;
}

/* The replay threads of the first n that were started, after a failed
 * start (a replay that ran has them retire instead, see run).  A thread
 * whose stream is empty has nothing to do, and gets no stack (a workload
 * of 20,000 such threads would otherwise hold ~170 MB of them). */
static void join(struct rt_replay *r, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (own_thread(r, i))
			pthread_join(r->threads[i].pthread, NULL);
}

/* The sync id + 1 of the first of t's leading WAITs (the ops before any
 * call or SIGNAL; from the survey, which read the stream already: reading
 * it again here mapped its first pages in, and the kernel's neighbours
 * with them) whose SIGNAL ends an earlier stream that has no follower yet
 * (ends: by sync id, that stream + 1), and that stream + 1 in *before; 0
 * for none. */
static uint64_t waits_for_end(const struct rt_replay *r, const struct rt_thread *t,
			      const uint32_t *ends, uint32_t *before)
{
	for (unsigned i = 0; i < RT_LEAD_WAITS && t->lead_waits[i]; i++) {
		*before = ends[t->lead_waits[i] - 1];
		if (*before && *before - 1 < t->index && !r->threads[*before - 1].then)
			return t->lead_waits[i];
	}
	return 0;
}

/*
 * Streams that cannot overlap share a replay thread.  A stream that waits,
 * before it calls or signals anything, for the SIGNAL that is another
 * stream's last op does nothing another stream can see before that one has
 * ended, in any replay order: trace2wl writes that wait for every thread
 * that began after another ended (converter/emit.c, emit_stream).  So it runs next on that stream's
 * replay thread (then), which a program that ran thousands of threads one
 * after another needs: a replay thread each stopped at the 32,452nd of
 * 40,000 (two mappings a thread against vm.max_map_count), and 3,000 took
 * 138 MB of stacks and stream windows.  One such follower a stream, of a
 * higher index (trace2wl numbers streams by their first op, so no chain
 * can loop).  A follower is published, until its thread reaches it, as
 * what it is: waiting on that sync point, at its first call (clock.c's
 * rt_clock_order).
 * -1 when out of memory for the sync points' table.
 */
static int chain(struct rt_replay *r, struct mt_error *e)
{
	size_t bytes;
	uint32_t *ends = table(r->info->syncs, sizeof *ends, &bytes); /* sync id: stream + 1 */
	if (!ends)
		return mt_error_set(e, mt_wl_path(r->wl), "out of memory for %llu sync points",
				    (unsigned long long)r->info->syncs);
	for (uint32_t i = 0; i < r->info->threads; i++)
		if (r->threads[i].last_signal)
			ends[r->threads[i].last_signal - 1] = i + 1;
	for (uint32_t i = 0; i < r->info->threads; i++) {
		struct rt_thread *t = &r->threads[i];
		uint32_t before = 0;
		uint64_t wait = waits_for_end(r, t, ends, &before);
		if (!wait)
			continue;
		r->threads[before - 1].then = t;
		t->chained = 1;
		atomic_store(&t->waiting, wait);
	}
	untable(ends, bytes);
	for (uint32_t i = 0; i < r->info->threads; i++)
		r->replay_threads += own_thread(r, i);
	return 0;
}

/* Ideal bytes a stream gathers before adding them to the shared count
 * (replay_loop.c): all replay threads together at most IDEAL_SLACK_SHARE
 * of the recorded ideal peak, so Max Ideal RSS is within 0.1% of exact;
 * 1 byte (every change at once) without a recorded peak.  Shared by
 * replay threads, not streams: a stream flushes what it gathered when it
 * ends, before the next on its thread begins (chain).  Divided among
 * 3,001 streams instead, CPython's 3,000 threads in turn flushed on
 * nearly every call. */
enum { IDEAL_SLACK_SHARE = 1024 };

static void ideal_batches(struct rt_replay *r)
{
	uint32_t threads = r->replay_threads ? r->replay_threads : 1;
	uint64_t batch = r->info->ideal_peak / IDEAL_SLACK_SHARE / threads;
	batch = batch > 1 && batch < INT64_MAX / 4 ? batch : 1;
	for (uint32_t i = 0; i < r->info->threads; i++) {
		r->threads[i].ideal_bias = batch - 1;
		r->threads[i].ideal_span = 2 * (batch - 1);
	}
}

/* The clock's view of the streams in their order (rt_clock_order). */
static int order(struct rt_replay *r, struct tables *tb, struct mt_error *e)
{
	r->first_after = table(r->info->threads, sizeof *r->first_after, &tb->first_after);
	r->skip = table(r->info->threads, sizeof *r->skip, &tb->skip);
	if (!r->first_after || !r->skip)
		return mt_error_set(e, mt_wl_path(r->wl), "out of memory for the order of %u threads",
				    r->info->threads);
	rt_clock_order(r);
	return 0;
}

/*
 * Creates the monitor and every replay thread with ops, parked on r->go;
 * *started counts the replay threads.  If one cannot be created, those
 * that were are released with r->abandon set, so they return at once, and
 * joined.
 */
static int spawn(struct rt_replay *r, uint32_t *started, struct mt_error *e)
{
	pthread_t monitor;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, THREAD_STACK);
	uint32_t n = 0;
	int err = pthread_create(&monitor, &attr, rt_monitor_main, r);
	int have_monitor = !err;
	while (!err && n < r->info->threads) {
		struct rt_thread *t = &r->threads[n];
		if (own_thread(r, n)) {
			err = pthread_create(&t->pthread, &attr, rt_thread_main, t);
			*started += !err;
		} else if (t->stream != t->end) {
			assert(t->chained);
		} else {
			atomic_store(&t->at, RT_AT_NONE);
			atomic_store(&t->state, RT_FINISHED);
		}
		n += !err;
	}
	pthread_attr_destroy(&attr);
	if (!err)
		return 0;
	mt_error_set(e, mt_wl_path(r->wl), "cannot start replay thread %u of %u: %s", n,
		     r->info->threads, strerror(err));
	atomic_store(&r->abandon, 1);
	rt_sync_signal(&r->go);
	join(r, n);
	if (have_monitor)
		pthread_join(monitor, NULL);
	return -1;
}

static uint64_t usec(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
}

static void collect(const struct rt_replay *r, struct rt_result *res)
{
	for (uint32_t i = 0; i < r->info->threads; i++) {
		const struct rt_thread *t = &r->threads[i];
		for (int c = 0; c < MT_CALL_COUNT && !t->chained; c++)
			if (t->stat[c])
				rt_callstat_merge(&res->calls[c], t->stat[c]);
		res->failed_now += t->failed_now;
		res->recorded_failed_ok += t->recorded_failed_ok;
		res->clock_cpu_ns += t->clock_cpu_ns;
		res->clock_waits += t->clock_waits;
		res->threads_cpu_ns += t->cpu_ns;
		res->off_cpu_ns += t->off_cpu_ns;
	}
	res->ideal_peak = (uint64_t)atomic_load(&r->ideal_peak);
	res->header_ideal_peak = r->info->ideal_peak;
	res->source_stop = r->info->source_stop;
	res->source_stop_records = r->info->source_stop_records;
	res->threads = r->info->threads;
	res->samples = r->samples;
	res->timed = (r->info->flags & MT_WLF_TIMING) != 0;
	res->clocked = r->clocked;
	if (res->timed && r->last_call_ns > r->first_call_ns)
		res->recorded_span_ns = r->last_call_ns - r->first_call_ns;
	res->window_us = r->window_ns / 1000u;
	res->ideal_cap = r->clocked && r->ideal_cap != RT_NO_CAP ? (uint64_t)r->ideal_cap : 0;
	res->idle_stretches = r->ngaps;
	res->idle_cap_ns = r->idle_cap_ns;
	res->idle_cut_ns = r->idle_cut_ns;
	for (uint32_t i = 0; i < r->info->threads; i++)
		res->prefetching += r->threads[i].prefetch != 0;
}

/* Releases the parked threads and times the replay until every replay
 * thread, then the monitor, has retired (rt_sync_retire): n of them with
 * streams. */
static void run(struct rt_replay *r, uint32_t n, struct rt_result *res)
{
	const enum rt_timer_source timer = r->timer.source;
	struct rusage ru0, ru1;

	uint64_t size_kb, rss_kb;
	rt_statm(r, &size_kb, &rss_kb, &r->anon_base_kb);
	atomic_store(&r->anon_peak_kb, r->anon_base_kb);
	getrusage(RUSAGE_SELF, &ru0);
	r->start_ns = rt_clock_ns();
	uint64_t t0 = rt_now(timer);
	rt_sync_signal(&r->go);
	rt_sync_count_wait(&r->done, n);
	uint64_t t1 = rt_now(timer);
	uint64_t end_ns = rt_clock_ns();
	getrusage(RUSAGE_SELF, &ru1);
	atomic_store_explicit(&r->stop, 1, memory_order_release);
	rt_futex(&r->stop, FUTEX_WAKE, 1);
	rt_sync_count_wait(&r->done, n + 1);

	res->elapsed = t1 - t0;
	res->wall_usec = (end_ns - r->start_ns) / 1000u;
	res->user_usec = usec(ru1.ru_utime) - usec(ru0.ru_utime);
	res->sys_usec = usec(ru1.ru_stime) - usec(ru0.ru_stime);
	res->preempted = (uint64_t)(ru1.ru_nivcsw - ru0.ru_nivcsw);
	res->maxrss_start_kb = (long)r->anon_base_kb;
	res->maxrss_end_kb = (long)atomic_load(&r->anon_peak_kb);
}

int rt_replay_run(const char *path, const struct rt_opts *o, struct rt_result *res,
		  struct mt_error *e)
{
	struct rt_replay r = { .o = o, .statm_fd = -1, .page = (size_t)sysconf(_SC_PAGESIZE) };
	struct tables tb = { 0 };
	const char *why;
	uint32_t started = 0;
	int rc = 1;

	memset(res, 0, sizeof *res);
	res->path = path;
	if (rt_timer_init(o->timer, &r.timer, &why)) {
		snprintf(e->msg, sizeof e->msg, "%s", why);
		return 1;
	}
	res->timer = r.timer;
	r.wl = mt_wl_open(path, 1, e);
	if (!r.wl)
		return 1;
	r.info = mt_wl_get_info(r.wl);
	if (o->pace && !(r.info->flags & MT_WLF_TIMING)) {
		mt_error_set(e, path, "--pace needs recorded timing, and this workload has none");
		goto out;
	}
	clock_setup(&r);
	r.progress = isatty(2);
	for (unsigned c = MT_CALL_MALLOC; c <= MT_CALL_FREE_ALIGNED_SIZED; c++)
		r.total_calls += r.info->calls[c];
	if (emulations(&r, e) || build(&r, &tb, e) || rt_survey(&r, e) || chain(&r, e) ||
	    order(&r, &tb, e) || stats(&r, &tb, e) || rt_monitor_open(&r, e))
		goto out;
	clock_window(&r);
	ideal_batches(&r);
	rt_stream_setup(&r);
	res->emulated = r.foreign;
	if (spawn(&r, &started, e))
		goto out;
	res->replayer_kb = rt_rss_exact(&r);
	run(&r, started, res);
	uint64_t after_kb = rt_rss_exact(&r);
	res->held_kb = after_kb > res->replayer_kb ? after_kb - res->replayer_kb : 0;
	collect(&r, res);
	rc = rt_monitor_close(&r, e) ? 1 : 0;
out:
	rt_monitor_close(&r, NULL); /* after an earlier error, which is the one to tell */
	untable(r.stats, tb.stats);
	untable((void *)r.skip, tb.skip);
	untable(r.first_after, tb.first_after);
	untable(r.threads, tb.threads);
	untable((void *)r.syncs, tb.syncs);
	untable(r.slots, tb.slots);
	untable(r.gaps, r.gaps_bytes);
	mt_wl_close(r.wl);
	return rc;
}
