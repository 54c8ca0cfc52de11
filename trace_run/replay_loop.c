/*
 * replay_loop.c - the replay threads: decode an op, make the call, time it.
 *
 * This is the hot path.  Per call, beyond the two timer reads (each the
 * chosen source's instructions, RDTSCP+LFENCE by default: in the lean
 * copies of the loop, below, nothing else; in the others behind one or
 * two compares of the thread's constant source that always go the same
 * way) and the call itself, for a malloc that returned a block or a free
 * of one (most calls of any workload): the op decoded from its head byte
 * and one to three varints straight into registers (mt_op_decode_common:
 * one check that the op fits, varints of up to eight bytes inline, one and
 * two bytes by compares, longer ones by one load and a few shifts; ~30
 * instructions), one histogram update (a bit scan, no branch; ~10), the
 * object table store (malloc) or load (free), the ideal RSS update (a
 * plain load and store with one thread; with more an add to the thread's
 * gathered bytes and one compare with its batch; the loop's copy without
 * the look-ahead is made once for each, so no test chooses there; a free
 * leaves the peak alone), one compare of the call's time with the
 * long-call bound (off_cpu_check: a system call after a call of 200 us or
 * more), and one relaxed store of the call counter (outside the lean
 * copies a touch test and --trim-every's countdown too).
 * A calloc that returned a block and a free of NULL take a second fast
 * step (mt_op_decode_more) and a short out-of-line call; every other op
 * goes through mt_op_decode and replay_call, out of line.
 * bench/trace_run.sh measured 72 instructions (70-72 with each timer) and
 * ~7.5 ns a call against a plain loop of the same calls timed alike, with
 * the loop compiled once (as its copy without the prefetch, below, it runs
 * ~6 fewer on a ring of malloc and free, callgrind); on
 * the real-program corpus (bench/real.sh) the replay threads run, outside
 * the allocator and with the timer reads, 98-108 instructions a call on
 * one thread (CPython 98, cc1plus 108), 118 on git's three threads and
 * 187 on perl's with their recorded times, the shared clock and perl's
 * look-ahead (121 and 185 --unpaced), and their own cost is 6-10 ns a
 * call beyond the timer's on one thread (CPython, cc1plus), 14-17 on
 * perl's and git's (chrt -f 50 on a shared VM, docs/BENCHMARKS.md).
 * Each thread runs one of twelve copies of the loop, with or without the
 * look-ahead, for one thread or several, with or without recorded times,
 * and lean or not: a lean copy (no --touch, no --trim-every, the top
 * timer, a version 2 workload, no --pace, and the shared clock on
 * wherever recorded times and several threads allow it, so not
 * --unpaced) tests none of them at a call.
 * RDTSCP (and LFENCE before RDTSC) waits for all earlier work, so a free's
 * chain of dependent loads (stream bytes, then its slot) counts for more
 * than its instructions.  A thread whose frees mostly miss the cache (a
 * program that frees its blocks in another order than it made them, such
 * as perl clearing a hash: ~20 ns a missed slot) has the slot of the free
 * four ops ahead prefetched before each op, by a look-ahead that decodes
 * each op and hands the replay its mallocs and frees decoded;
 * survey.c picks those threads, as the prefetch costs the others more
 * than it saves (docs/BENCHMARKS.md).  With more than one thread and
 * recorded times, each op whose time moved also stores the thread's
 * position on the shared clock and loads its own wake word, and each
 * allocating call compares its time with the last bound seen and its
 * bytes with the byte cap (clock.c);
 * without the shared clock or --pace, recorded times cost only their
 * decoding.  No allocation, no lock; system calls only at a
 * stream window's end (stream.c, once per ~1 M calls), where the ideal
 * RSS reaches a new peak 1/64 above the last (rss.c, a few hundred times a
 * replay) and after a call of 200 us or more.  That work, --touch,
 * --trim-every, --pace and the clock's waits are outside the timed
 * region, and but for pace() out of line.
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <string.h>
#include <time.h>

#include "replay_internal.h"
#include "sync.h"
#include "timer.h"

/* The loop's helpers, inlined into each of its twelve copies (below) by
 * force: left to itself, gcc's limit on a unit's growth put replay_malloc,
 * gate and the varint packing out of line (cc1plus: 24 instructions a
 * call more, callgrind). */
#define LOOP_INLINE static inline __attribute__((always_inline))

/* Writes what a program would write into a fresh block, or before freeing
 * it.  Never past the block's usable size: the request is what the program
 * asked for, and an allocator that handed back less (tcmalloc's pvalloc
 * wraps a size near 2^64 to a few pages) must not make trace_run write
 * past its block.  The empty asm keeps the compiler from deleting stores
 * before free(). */
static __attribute__((noinline)) void touch_block(struct rt_thread *t, void *p, uint64_t n)
{
	enum rt_touch how = t->touch;
	atomic_store_explicit(&t->state, RT_BUSY, memory_order_relaxed); /* for the watchdog */
	if (t->usable_size) {
		size_t usable = malloc_usable_size(p);
		if (n > usable)
			n = usable;
	}
	size_t page = t->page;
	if (how == RT_TOUCH_ALL) {
		memset(p, 0xa5, n);
	} else {
		volatile char *c = p;
		for (uint64_t i = 0; i < n; i += page)
			c[i] = 1;
	}
	__asm__ volatile("" : : "r"(p) : "memory");
	atomic_store_explicit(&t->state, RT_RUNNING, memory_order_relaxed);
}

/* The test inline, the work out of line: with --touch=none a call to a
 * function that returns at once cost the loop ~20 instructions a call.
 * lean is a constant, 1 in the loop's copies for --touch=none (below),
 * where no test is left at all. */
LOOP_INLINE void touch(struct rt_thread *t, void *p, uint64_t n, int lean)
{
	if (!lean && t->touch != RT_TOUCH_NONE && p && n)
		touch_block(t, p, n);
}

/* The shared clock's wake-ups, of the threads it gated (which wait for
 * this one) or held (which wait for the frees this one has just made):
 * counted with its waits, in clock_cpu_ns.  Out of line: they happen only
 * where a thread sleeps on the clock. */
static __attribute__((noinline)) void wake_waiters(struct rt_thread *t, int held)
{
	uint64_t began = rt_thread_cpu_ns();
	if (held)
		rt_clock_release(t->r);
	else
		rt_clock_wake(t);
	t->clock_cpu_ns += rt_thread_cpu_ns() - began;
}

/* Whether a thread that is to stop publishing for a while (a sync wait,
 * its end, a --pace sleep) has a thread gated on it: the fence makes its
 * last position seen by a waiter that registers from here on, and a waiter
 * registered before is seen here (clock.c: no wake-up is lost).  One
 * fence a stop, never a call. */
static inline int gated_on(struct rt_thread *t)
{
	atomic_thread_fence(memory_order_seq_cst);
	return atomic_load_explicit(&t->wake_at, memory_order_relaxed) != RT_AT_NONE;
}

/* Publishes at, the thread's last position before it stops publishing
 * for a while (a --pace sleep, its end), and wakes the threads gated on
 * it that wait for no more than that: with gated_on's fence between the
 * store and the load, none of them is left asleep (clock.c). */
static inline void publish_last(struct rt_thread *t, uint64_t at)
{
	atomic_store_explicit(&t->at, at, memory_order_relaxed);
	if (gated_on(t) && at >= atomic_load_explicit(&t->wake_at, memory_order_relaxed))
		wake_waiters(t, 0);
}

/*
 * The live requested bytes and their peak.  With one replay thread a plain
 * load and store (relaxed atomics, so the monitor may read them) is exact
 * and costs ~1 ns, inline.  With more, each thread gathers its changes and
 * adds them to the shared count with a locked add once they reach
 * ideal_batch either way: a locked add per call on a line every thread
 * writes cost ~20 ns a call on perl's two threads.  The shared count is
 * then within threads x ideal_batch of the true one, which replay.c sets
 * to 1/1024 of the recorded ideal peak in all (1 byte, exact, without
 * one).  A new peak 1/64 above the last one read at has the RSS read there
 * too (rss.c).
 */
static __attribute__((noinline)) void ideal_flush(struct rt_thread *t)
{
	struct rt_replay *r = t->r;
	int64_t d = t->ideal_pending;
	t->ideal_pending = 0;
	int64_t now = atomic_fetch_add_explicit(&r->ideal_live, d, memory_order_relaxed) + d;
	t->ideal_seen = now;
	if (d < 0) {
		if (now <= atomic_load_explicit(&r->held_wake_at, memory_order_relaxed))
			wake_waiters(t, 1);
		return;
	}
	int64_t peak = atomic_load_explicit(&r->ideal_peak, memory_order_relaxed);
	while (now > peak && !atomic_compare_exchange_weak_explicit(&r->ideal_peak, &peak, now,
								   memory_order_relaxed,
								   memory_order_relaxed))
		;
	if (now > peak && now >= t->rss_next)
		rt_rss_at_ideal_peak(t, now);
}

/* Adds d to the thread's gathered change; flushes it once it reaches the
 * batch either way: one unsigned compare, where two signed ones cost git's
 * replay 2.7 instructions a call more (callgrind). */
LOOP_INLINE void ideal_gather(struct rt_thread *t, int64_t d)
{
	t->ideal_pending += d;
	if ((uint64_t)t->ideal_pending + t->ideal_bias > t->ideal_span)
		ideal_flush(t);
}

/* single is t->single, a constant in the replay loop's copies (below). */
LOOP_INLINE void ideal_add(struct rt_thread *t, int64_t d, int single)
{
	struct rt_replay *r = t->r;
	if (!single) {
		ideal_gather(t, d);
		return;
	}
	int64_t now = atomic_load_explicit(&r->ideal_live, memory_order_relaxed) + d;
	atomic_store_explicit(&r->ideal_live, now, memory_order_relaxed);
	if (now > atomic_load_explicit(&r->ideal_peak, memory_order_relaxed)) {
		atomic_store_explicit(&r->ideal_peak, now, memory_order_relaxed);
		if (now >= t->rss_next)
			rt_rss_at_ideal_peak(t, now);
	}
}

/* ideal_add for n bytes that go away, which cannot raise the peak: on a
 * free the peak's load and compare would be the last links of the chain
 * of loads the next timer read waits for. */
LOOP_INLINE void ideal_drop(struct rt_thread *t, uint64_t n, int single)
{
	struct rt_replay *r = t->r;
	if (!single) {
		ideal_gather(t, -(int64_t)n);
		return;
	}
	atomic_store_explicit(&r->ideal_live,
			      atomic_load_explicit(&r->ideal_live, memory_order_relaxed) - (int64_t)n,
			      memory_order_relaxed);
}

/* No object can be larger than PTRDIFF_MAX (pointer differences within it
 * must fit), so no correct allocator grants such a request; glibc refuses
 * it before doing anything. */
static int impossible(uint64_t req)
{
	return req > (uint64_t)PTRDIFF_MAX;
}

static void sized_free(const struct mt_op *op, void *p)
{
#if defined(HAVE_FREE_SIZED) && defined(HAVE_FREE_ALIGNED_SIZED)
	if (op->code == MT_CALL_FREE_SIZED)
		free_sized(p, op->size);
	else
		free_aligned_sized(p, op->align, op->size);
#else
	free(p); /* this libc has no sized free: the plain one is the same request */
#endif
}

/*
 * A call the allocator lacks (see rt_allocator_foreign), made of calls it
 * has, as glibc defines it: pvalloc rounds up to whole pages, valloc aligns
 * to a page, reallocarray is realloc after an overflow check (replay_call's:
 * a product that overflows is impossible, and never gets here).
 */
static void *timed_emulation(const struct mt_op *op, void *in, size_t page,
			     enum rt_timer_source timer, uint64_t *cost)
{
	const size_t sz = (size_t)op->size;
	size_t align = op->align < sizeof(void *) ? sizeof(void *) : (size_t)op->align, bytes;
	void *out = NULL;
	uint64_t t0, t1;

	switch (op->code) {
	case MT_CALL_REALLOCARRAY:
		bytes = (size_t)mt_op_requested(op);
		t0 = rt_now(timer); out = realloc(in, bytes); t1 = rt_now(timer); break;
	case MT_CALL_MEMALIGN:
	case MT_CALL_ALIGNED_ALLOC:
		t0 = rt_now(timer);
		if (posix_memalign(&out, align, sz))
			out = NULL;
		t1 = rt_now(timer);
		break;
	case MT_CALL_POSIX_MEMALIGN:
		t0 = rt_now(timer); out = memalign(op->align, sz); t1 = rt_now(timer); break;
	case MT_CALL_VALLOC:
		t0 = rt_now(timer); out = memalign(page, sz); t1 = rt_now(timer); break;
	case MT_CALL_PVALLOC:
		if (__builtin_add_overflow(sz, page - 1, &bytes)) { /* glibc's pvalloc fails too */
			t0 = t1 = 0;
			break;
		}
		t0 = rt_now(timer); out = memalign(page, bytes & ~(page - 1)); t1 = rt_now(timer); break;
	default: /* the sized frees */
		t0 = rt_now(timer); free(in); t1 = rt_now(timer); break;
	}
	*cost = t1 - t0;
	return out;
}

/* The calls most of every workload is, timed as timed_call times the
 * others: nothing but the call between the two timer reads. */
LOOP_INLINE void *timed_malloc(size_t sz, enum rt_timer_source timer, uint64_t *cost)
{
	uint64_t t0 = rt_now(timer);
	void *out = malloc(sz);
	*cost = rt_now(timer) - t0;
	return out;
}

LOOP_INLINE void *timed_calloc(size_t nmemb, size_t sz, enum rt_timer_source timer,
			       uint64_t *cost)
{
	uint64_t t0 = rt_now(timer);
	void *out = calloc(nmemb, sz);
	*cost = rt_now(timer) - t0;
	return out;
}

LOOP_INLINE void timed_free(void *p, enum rt_timer_source timer, uint64_t *cost)
{
	uint64_t t0 = rt_now(timer);
	free(p);
	*cost = rt_now(timer) - t0;
}

/* The allocator call for op, timed; returns what it returned.  Each case
 * holds nothing but the call between the two timer reads. */
static void *timed_call(const struct mt_op *op, void *in, const struct rt_thread *t,
			enum rt_timer_source timer, uint64_t *cost)
{
	void *out = NULL;
	uint64_t t0, t1;
	size_t sz = (size_t)op->size;

	/* malloc and free first, without the jump table: they are most calls of
	 * most programs, and no allocator lacks them */
	if (op->code == MT_CALL_MALLOC)
		return timed_malloc(sz, timer, cost);
	if (op->code == MT_CALL_FREE) {
		timed_free(in, timer, cost);
		return NULL;
	}
	if (t->foreign >> op->code & 1)
		return timed_emulation(op, in, t->page, timer, cost);
	switch (op->code) {
	case MT_CALL_CALLOC:
		return timed_calloc((size_t)op->nmemb, sz, timer, cost);
	case MT_CALL_REALLOC:
		t0 = rt_now(timer); out = realloc(in, sz); t1 = rt_now(timer); break;
	case MT_CALL_REALLOCARRAY:
		t0 = rt_now(timer); out = reallocarray(in, op->nmemb, sz); t1 = rt_now(timer); break;
	case MT_CALL_MEMALIGN:
		t0 = rt_now(timer); out = memalign(op->align, sz); t1 = rt_now(timer); break;
	case MT_CALL_POSIX_MEMALIGN: {
		int rc;
		t0 = rt_now(timer); rc = posix_memalign(&out, op->align, sz); t1 = rt_now(timer);
		if (rc)
			out = NULL;
		break;
	}
	case MT_CALL_ALIGNED_ALLOC:
		t0 = rt_now(timer); out = aligned_alloc(op->align, sz); t1 = rt_now(timer); break;
	case MT_CALL_VALLOC:
		t0 = rt_now(timer); out = valloc(sz); t1 = rt_now(timer); break;
	case MT_CALL_PVALLOC:
		t0 = rt_now(timer); out = pvalloc(sz); t1 = rt_now(timer); break;
	default: /* the sized frees */
		t0 = rt_now(timer); sized_free(op, in); t1 = rt_now(timer); break;
	}
	*cost = t1 - t0;
	return out;
}

/*
 * A realloc that failed when recorded left the old block live; if it
 * succeeds now, the old block has moved.  Keep the object at its new address
 * when it is at least as large as the program believes, so later ops and
 * --touch stay in bounds; otherwise (or for realloc(p, 0), which freed p
 * both times) the block is let go.
 */
static void realloc_now_ok(struct rt_thread *t, const struct mt_op *op, void *out, uint64_t req)
{
	struct rt_slot *old = op->old_obj ? &t->slots[op->old_obj] : NULL;
	t->recorded_failed_ok++;
	if (old && req && req >= old->size) {
		old->ptr = out;
		return;
	}
	if (old)
		old->ptr = NULL;
	free(out);
}

/* A realloc that returns NULL now: with size 0 it freed the old block;
 * otherwise the old block is still there, and is let go if the program
 * went on without it. */
static void realloc_now_null(struct rt_thread *t, const struct mt_op *op, void *in, uint64_t req)
{
	int recorded_ok = op->new_obj != 0;
	if (recorded_ok)
		t->failed_now++;
	if (!op->old_obj)
		return;
	if (req && recorded_ok)
		free(in);
	if (!req || recorded_ok)
		t->slots[op->old_obj].ptr = NULL;
}

/* Object table and ideal RSS after a realloc; the ideal follows the
 * recorded outcome, so it is the same whatever the allocator does now.
 * A recorded success of an impossible size counts as no bytes. */
static void realloc_done(struct rt_thread *t, const struct mt_op *op, void *in, void *out,
			 uint64_t req)
{
	uint64_t size = impossible(req) ? 0 : req;
	int64_t old_size = op->old_obj ? (int64_t)t->slots[op->old_obj].size : 0;

	if (!out)
		realloc_now_null(t, op, in, req);
	else if (!op->new_obj)
		realloc_now_ok(t, op, out, req);
	else if (op->old_obj)
		t->slots[op->old_obj].ptr = NULL;
	if (op->new_obj) {
		t->slots[op->new_obj] = (struct rt_slot){ out, size };
		touch(t, out, size, 0); /* before the count, as in alloc_done */
		ideal_add(t, (int64_t)size - old_size, t->single);
	} else if (mt_op_releases_old(op)) {
		ideal_add(t, -old_size, t->single);
	}
}

LOOP_INLINE void alloc_done(struct rt_thread *t, uint64_t new_obj, void *out, uint64_t req,
			    int single, int lean)
{
	uint64_t size = impossible(req) ? 0 : req;
	if (!new_obj) { /* failed when recorded */
		if (out) {
			t->recorded_failed_ok++;
			free(out);
		}
		return;
	}
	if (!out)
		t->failed_now++;
	t->slots[new_obj] = (struct rt_slot){ out, size };
	/* written first, so that an RSS reading at a new ideal peak (rss.c)
	 * sees the block resident: read before, a large block freed within the
	 * monitor's millisecond went uncounted */
	touch(t, out, size, lean);
	ideal_add(t, (int64_t)size, single);
}

/* A block the program frees goes: --touch writes it first, as the program
 * did.  The slot keeps its stale pointer: the full check proved that no op
 * passes the object in again, and nothing walks the slots at the end. */
LOOP_INLINE void release(struct rt_thread *t, struct rt_slot *in, int single, int lean)
{
	touch(t, in->ptr, in->size, lean);
	ideal_drop(t, in->size, single);
}

/* Where the thread is now in wall and CPU time, for off_cpu_check: set
 * when it starts, after each check, and after each wait it may have slept
 * in (the time asleep there is not a call's). */
static void mark(struct rt_thread *t)
{
	t->mark_at = rt_now(t->r->timer.source);
	t->mark_cpu_ns = rt_thread_cpu_ns();
}

/*
 * A call that took long_call timer units or more (replay.c: 200 us, rare):
 * what of it the thread spent off the processor - preempted, throttled
 * (the kernel holds real-time threads off for 50 ms once they have used
 * 95% of a second), asleep in the allocator - is no part of the replay's
 * CPU time, from which own cost subtracts the calls' time (report.c);
 * left in, it lowered own cost by the time away (perl, 11.3 M calls under
 * chrt: 4.4 ns a call for each 50 ms throttle that fell in a call,
 * docs/BENCHMARKS.md).  Measured since the last mark: wall time less CPU
 * time, at most the call's time (time away outside calls, which a mark
 * cannot see without a system call per op, must not be the call's).
 * Then a new mark.  One system call (~1 us) a long call, outside the
 * timed region.
 */
static __attribute__((noinline)) void off_cpu_check(struct rt_thread *t, uint64_t cost)
{
	const struct rt_timer_info *ti = &t->r->timer;
	uint64_t at = t->mark_at, cpu = t->mark_cpu_ns;
	mark(t);
	double ns_per_unit = ti->tsc_mhz > 0 ? 1000.0 / ti->tsc_mhz : 1.0;
	/* signed: two processors' counters may disagree by a little, and a
	 * thread moved between them may read an earlier count than its mark */
	double wall = (double)(int64_t)(t->mark_at - at) * ns_per_unit;
	double away = wall - (double)(t->mark_cpu_ns - cpu);
	double call = (double)cost * ns_per_unit;
	if (away > call)
		away = call;
	if (away > 0)
		t->off_cpu_ns += (uint64_t)away;
}

/* A call's cost, less the timer's own; a long one is checked for time off
 * the processor (one compare a call on the thread's own line). */
LOOP_INLINE void record(struct rt_thread *t, struct rt_callstat *s, uint64_t cost,
			uint64_t overhead)
{
	if (__builtin_expect(cost >= t->long_call, 0))
		off_cpu_check(t, cost);
	rt_callstat_add(s, cost > overhead ? cost - overhead : 0);
}

/*
 * One call.  An impossible request is not passed to the allocator: it
 * cannot succeed, and a broken allocator that grants it anyway (tcmalloc's
 * pvalloc rounds 2^64 - 101 up to 0) would hand out a block far smaller
 * than the workload believes.  It is counted as a call that failed, at no
 * cost.
 */
static __attribute__((noinline)) void replay_call(struct rt_thread *t, const struct mt_op *op,
						  enum rt_timer_source timer, uint64_t overhead)
{
	struct rt_slot *in = op->old_obj ? &t->slots[op->old_obj] : NULL;
	void *inp = in ? in->ptr : NULL, *out = NULL;
	int frees = !mt_call_allocates(op->code);
	uint64_t cost = 0, req = frees ? 0 : mt_op_requested(op);

	if (frees && in)
		release(t, in, t->single, 0);
	if (!impossible(req))
		out = timed_call(op, inp, t, timer, &cost);
	record(t, t->stat[op->code], cost, overhead);
	if (frees)
		return;
	if (mt_call_has_in(op->code))
		realloc_done(t, op, inp, out, req);
	else
		alloc_done(t, op->new_obj, out, req, t->single, 0);
}

/* replay_call for what mt_op_decode_common decodes: a malloc or calloc
 * that returned a block when recorded, a free of a block, a free of NULL. */
LOOP_INLINE void replay_malloc(struct rt_thread *t, uint64_t obj, uint64_t size,
			       enum rt_timer_source timer, uint64_t overhead, int single,
			       int lean)
{
	void *out = NULL;
	uint64_t cost = 0;
	if (!impossible(size))
		out = timed_malloc((size_t)size, timer, &cost);
	record(t, t->stat[MT_CALL_MALLOC], cost, overhead);
	alloc_done(t, obj, out, size, single, lean);
}

/* Out of line: a call the compiler would otherwise inline into the loop
 * beside malloc's, for a sixth of the calls at most (gcc's cc1). */
static __attribute__((noinline)) void replay_calloc(struct rt_thread *t, uint64_t obj,
						    uint64_t nmemb, uint64_t size,
						    enum rt_timer_source timer, uint64_t overhead)
{
	void *out = NULL;
	uint64_t cost = 0, req = mt_nmemb_bytes(nmemb, size);
	if (!impossible(req))
		out = timed_calloc((size_t)nmemb, (size_t)size, timer, &cost);
	record(t, t->stat[MT_CALL_CALLOC], cost, overhead);
	alloc_done(t, obj, out, req, t->single, 0);
}

LOOP_INLINE void replay_free(struct rt_thread *t, uint64_t obj, enum rt_timer_source timer,
			     uint64_t overhead, int single, int lean)
{
	struct rt_slot *in = &t->slots[obj];
	void *p = in->ptr;
	uint64_t cost;
	release(t, in, single, lean);
	timed_free(p, timer, &cost);
	record(t, t->stat[MT_CALL_FREE], cost, overhead);
}

static __attribute__((noinline)) void replay_free_null(struct rt_thread *t,
						       enum rt_timer_source timer,
						       uint64_t overhead)
{
	uint64_t cost;
	timed_free(NULL, timer, &cost);
	record(t, t->stat[MT_CALL_FREE], cost, overhead);
}

/*
 * --pace: sleeps until the op's recorded time, counted from the release,
 * less the idle stretches shortened before it (survey.c); gaps is this
 * thread's cursor into them.  A sleep, never a spin, so a pacing thread
 * leaves the processor to the others; replay threads set a timer slack of
 * 1 ns when pacing, so the kernel wakes them within microseconds.
 */
struct pacer {
	size_t gap;
	uint64_t cut;
};

/* Always inline, as the compiler inlined it by itself until the loop
 * tested timeline.used: out of line, the replay loop took ~1.5
 * instructions a call more (callgrind, on untimed workloads too). */
static inline __attribute__((always_inline)) void pace(struct rt_thread *t, struct pacer *pc,
						       uint64_t rec)
{
	const struct rt_replay *r = t->r;
	while (pc->gap < r->ngaps && rec >= r->gaps[pc->gap].to) {
		pc->cut += r->gaps[pc->gap].to - r->gaps[pc->gap].from - r->idle_cap_ns;
		pc->gap++;
	}
	uint64_t due_ns = r->start_ns + rec - pc->cut;
	if (rt_clock_ns() >= due_ns)
		return;
	atomic_store_explicit(&t->due_ns, due_ns, memory_order_relaxed);
	atomic_store_explicit(&t->state, RT_PACING, memory_order_relaxed);
	publish_last(t, atomic_load_explicit(&t->at, memory_order_relaxed));
	struct timespec ts = { (time_t)(due_ns / 1000000000u), (long)(due_ns % 1000000000u) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	mark(t);
	atomic_store_explicit(&t->state, RT_RUNNING, memory_order_relaxed);
}

/* Publishes the thread's position on the shared clock (clock.c), waking
 * the gated threads when it has reached the time they wait for.  Reached,
 * not passed just now: a waiter that registers and then sees the position
 * already there leaves its wake_at behind, and the next publish clears
 * it; otherwise later waiters, which rely on a lower wake_at already
 * registered, would never be woken. */
LOOP_INLINE void publish(struct rt_thread *t, uint64_t at)
{
	atomic_store_explicit(&t->at, at, memory_order_relaxed);
	if (at >= atomic_load_explicit(&t->wake_at, memory_order_relaxed))
		wake_waiters(t, 0);
}

/* A replay thread's place in recorded time: rec, the time of its last
 * call; how far it may go
 * before the clock holds it; and its --pace cursor.  Used: the shared
 * clock or --pace reads it; otherwise no op need advance it, and a timed
 * workload replays with its deltas skipped. */
struct timeline {
	uint64_t rec, limit;
	struct pacer pc;
	int clocked, pacing, used;
};

/* The next op of a used timeline comes delta ns of recorded time later
 * (only timed workloads have deltas).  Always inline: the compiler made it
 * a call once the loop tested used first. */
static inline __attribute__((always_inline)) void advance(struct rt_thread *t, struct timeline *tl,
							  uint64_t delta)
{
	tl->rec += delta;
	if (tl->clocked)
		publish(t, tl->rec);
	if (tl->pacing)
		pace(t, &tl->pc, tl->rec);
}

/* Before a call that allocates bytes: wait until every other thread has
 * reached this call's recorded time, less the window, and while the bytes
 * would take the live ones past the byte cap (clock.c).  Frees never wait,
 * so a block goes as early as the recording let it and comes no earlier.
 * Two compares (against the last bound seen, and of the live bytes this
 * thread last saw plus its own since against the cap), but past them. */
LOOP_INLINE void gate(struct rt_thread *t, struct timeline *tl, uint64_t bytes,
		      const uint8_t *next, struct mt_op_state st)
{
	if (!tl->clocked)
		return;
	if (tl->rec > tl->limit)
		tl->limit = rt_clock_gate(t, tl->rec, next, st);
	int64_t room = t->ideal_cap - t->ideal_seen - t->ideal_pending;
	if (room < 0 || bytes > (uint64_t)room)
		rt_clock_hold(t, bytes, next, st);
}

/* After each call: the count the monitor reads, and --trim-every's
 * countdown (never reaching 0 without it; none in the lean copies). */
LOOP_INLINE void call_done(struct rt_thread *t, uint64_t *calls, uint64_t *until_trim,
			   uint64_t trim_every, int lean)
{
	atomic_store_explicit(&t->calls, ++*calls, memory_order_relaxed);
	if (!lean && !--*until_trim) {
		atomic_store_explicit(&t->state, RT_BUSY, memory_order_relaxed);
		malloc_trim(0);
		atomic_store_explicit(&t->state, RT_RUNNING, memory_order_relaxed);
		*until_trim = trim_every;
	}
}

/* The bytes an allocating call adds to the live ones, for the byte cap: a
 * realloc's growth, not its whole block. */
LOOP_INLINE uint64_t adds(const struct rt_thread *t, const struct mt_op *op)
{
	uint64_t req = mt_op_requested(op), old = op->old_obj ? t->slots[op->old_obj].size : 0;
	return req > old ? req - old : 0;
}

/*
 * The look-ahead of a thread that prefetches: a second cursor PREFETCH_AHEAD
 * ops ahead of the replay, which decodes each op and starts loading the
 * slot of the object it frees, so that the miss overlaps the calls in
 * between instead of delaying the timer read before the free (RDTSCP does
 * not wait for a prefetch).  One op ahead, the prefetch came too late for
 * part of perl's frees; four ahead was the best distance measured
 * (docs/BENCHMARKS.md).  What it decoded it keeps in a ring, so the replay
 * takes every op from there instead of decoding it again (perl's ops carry
 * recorded times: decoding each twice was 130 of its 219 instructions a
 * call): a malloc or free by its code, tested first; an op the fast
 * decoder declines has code 0, and a second field, more, says how the
 * look-ahead decoded it: by the second fast step (a calloc or a free of
 * NULL) or whole (AHEAD_WHOLE: a realloc, a sync op...), the entry holding
 * what the replay's own decoder would have given.  The replay decodes
 * itself only an op with more 0: one past a stream's end or an
 * undecodable one (its own decoder then says so).  So a malloc's or free's
 * entry keeps one test and 48 bytes: more sits in code's padding, a
 * calloc's nmemb and a whole op in a ring of their own.
 * Always inline: gcc 12 deleted the calls of an out-of-line helper that
 * only prefetches, as having no effect.  The load-time check proved every
 * op valid, so a slot is the table's.
 */
enum { PREFETCH_AHEAD = 4, AHEAD_RING = 8 /* a power of 2 above PREFETCH_AHEAD */ };
/* An ahead_op's more for an op decoded whole: no head byte (bit 7 is 0 in
 * every valid one). */
enum { AHEAD_WHOLE = 0x100 };

struct ahead_op {
	unsigned code;       /* MT_CALL_MALLOC or MT_CALL_FREE; 0: see more */
	unsigned more;       /* with code 0: MT_CALL_CALLOC, MT_OP_FREE_NULL,
				AHEAD_WHOLE, or 0: decode it again */
	const uint8_t *next; /* where the stream goes on after it */
	uint64_t delta, obj, size, last_new;
};

/* The rest of a ring entry, apart so that a malloc's or free's stays 48
 * bytes: in one entry of 120, perl's loop ran 6 instructions a call more
 * (callgrind). */
struct ahead_rest {
	uint64_t nmemb;      /* a calloc's */
	struct mt_op op;     /* with AHEAD_WHOLE */
};

struct ahead {
	const uint8_t *p;
	struct mt_op_state st;
	unsigned made, taken; /* ops put in the ring, taken out: made - taken <= PREFETCH_AHEAD + 1 */
	struct ahead_op ring[AHEAD_RING];
	struct ahead_rest rest[AHEAD_RING];
};

static inline __attribute__((always_inline)) void look_ahead(const struct rt_thread *t,
							     struct ahead *a, const uint8_t *end,
							     int timing)
{
	unsigned i = a->made++ & (AHEAD_RING - 1);
	struct ahead_op *o = &a->ring[i];
	o->code = 0;
	if (a->p >= end) {
		o->more = 0;
		return;
	}
	unsigned code = mt_op_decode_common(&a->p, end, &a->st, timing, &o->delta, &o->obj, &o->size);
	if (code) {
		o->code = code;
		o->next = a->p;
		o->last_new = a->st.last_new;
		if (code == MT_CALL_FREE)
			__builtin_prefetch(&t->slots[o->obj], 0, 3);
		return;
	}
	/* a calloc or a free of NULL: nothing to prefetch */
	struct ahead_rest *r = &a->rest[i];
	o->more = mt_op_decode_more(&a->p, end, &a->st, timing, &o->delta, &o->obj, &r->nmemb,
				    &o->size);
	if (!o->more) {
		if (mt_op_decode(&a->p, end, &a->st, &r->op, timing)) {
			a->p = end;
			return;
		}
		o->more = AHEAD_WHOLE;
		if (r->op.old_obj)
			__builtin_prefetch(&t->slots[r->op.old_obj], 0, 3);
	}
	o->next = a->p;
	o->last_new = a->st.last_new;
}

/* The next op from the ring, as mt_op_decode_common would have decoded it
 * at *p: its code, or 0 for an op to decode again. */
static inline __attribute__((always_inline)) unsigned ahead_take(struct ahead *a,
								 const uint8_t **p,
								 struct mt_op_state *st,
								 uint64_t *delta, uint64_t *obj,
								 uint64_t *size)
{
	const struct ahead_op *o = &a->ring[a->taken++ & (AHEAD_RING - 1)];
	if (!o->code)
		return 0;
	*p = o->next;
	st->last_new = o->last_new;
	*delta = o->delta;
	*obj = o->obj;
	*size = o->size;
	return o->code;
}

/* After ahead_take returned 0: the op's more (ahead_op), and from the ring
 * what its decoder would have given: p and st, then delta, obj, nmemb and
 * size for a calloc or a free of NULL, op for AHEAD_WHOLE. */
static inline __attribute__((always_inline)) unsigned ahead_more(const struct ahead *a,
								 const uint8_t **p,
								 struct mt_op_state *st,
								 uint64_t *delta, uint64_t *obj,
								 uint64_t *nmemb, uint64_t *size,
								 struct mt_op *op)
{
	unsigned i = (a->taken - 1) & (AHEAD_RING - 1);
	const struct ahead_op *o = &a->ring[i];
	assert(!o->code);
	if (!o->more)
		return 0;
	*p = o->next;
	st->last_new = o->last_new;
	if (o->more == AHEAD_WHOLE) {
		*op = a->rest[i].op;
	} else {
		*delta = o->delta;
		*obj = o->obj;
		*nmemb = a->rest[i].nmemb;
		*size = o->size;
	}
	return o->more;
}

/* A thread about to wait at p is, on the clock, at its next call: in the
 * recording that call came after the signal it waits for. */
static uint64_t next_call_at(const uint8_t *p, const uint8_t *end, struct mt_op_state st,
			     uint64_t rec)
{
	struct mt_op op;
	while (p < end && !mt_op_decode(&p, end, &st, &op, 1)) {
		rec += op.delta_ns;
		if (mt_op_is_call(op.code))
			return rec;
	}
	return RT_AT_NONE;
}

static void corrupt(struct rt_thread *t, const uint8_t *at)
{
	fprintf(stderr, "trace_run: %s: thread %u: undecodable op at stream byte %zu\n",
		mt_wl_path(t->r->wl), t->index, (size_t)(at - t->stream));
	_exit(1);
}

/* A replay thread's work; prefetch, timing and lean are constants in each
 * of its copies (below), so a thread that does not prefetch pays no test
 * for it (one cost the others ~3 instructions an op), and single
 * (t->single) one in the copies without the look-ahead.  timing is the
 * workload's recorded times (MT_WLF_TIMING); lean says there is no
 * --touch, no --trim-every, no --pace, the timer is the ladder's top rung
 * (RT_TIMER_TOP) and the shared clock runs exactly where the workload has
 * recorded times and several threads, so that none of them is tested at a
 * call (the clock's and --pace's tests; their price is in
 * docs/BENCHMARKS.md, branch run5). */
static inline __attribute__((always_inline)) void replay_thread(struct rt_thread *t,
									  const int prefetch,
									  const int single,
									  const int timing,
									  const int lean)
{
	struct rt_replay *r = t->r;
	const enum rt_timer_source timer = lean ? RT_TIMER_TOP : r->timer.source;
	const uint64_t overhead = r->timer.overhead, trim_every = r->o->trim_every;
	/* calls until the next malloc_trim; never reached without --trim-every */
	uint64_t until_trim = trim_every ? trim_every : UINT64_MAX;
	const unsigned spins = r->spins;
	assert(timing == ((r->info->flags & MT_WLF_TIMING) != 0));
	assert(!lean || (r->timer.source == RT_TIMER_TOP && t->touch == RT_TOUCH_NONE &&
			 !trim_every));
	struct mt_op_state st = mt_wl_first_state(r->info);
	assert(!lean || st.new_signed);
	st.new_signed = lean || st.new_signed; /* a constant in the lean copies */
	struct mt_op op;
	/* one thread has no shared clock (replay.c): said so, the copy for one
	 * thread drops the clock's tests at each malloc */
	assert(!single || !r->clocked);
	assert(!lean || (!r->o->pace && r->clocked == (timing && !t->single)));
	struct timeline tl = { .clocked = lean ? timing && !single : !single && r->clocked,
			       .pacing = !lean && r->o->pace };
	uint64_t calls = 0, syncs = 0;

	tl.used = tl.clocked || tl.pacing;
	const uint8_t *const end = t->end;
	const uint8_t *held = t->stream, *p = t->stream;
	struct ahead la = { .p = p, .st = st };
	for (int i = 0; prefetch && i < PREFETCH_AHEAD; i++)
		look_ahead(t, &la, end, timing);
	/* The stream a window at a time (stream.c): at the end of each but
	 * the last, the pages behind are let go of and the next window mapped
	 * in; the last one's go to rt_stream_end. */
	for (; p < end; held = p < end ? rt_stream_next(t, held, p) : held) {
		const uint8_t *const stop = rt_stream_stop(t, p);
		while (p < stop) {
			const uint8_t *at = p;
			uint64_t delta, obj, nmemb, size;
			unsigned code;
			if (prefetch) {
				look_ahead(t, &la, end, timing);
				code = ahead_take(&la, &p, &st, &delta, &obj, &size);
			} else {
				code = mt_op_decode_common(&p, end, &st, timing, &delta, &obj, &size);
			}
			if (code) {
				if (tl.used && delta)
					advance(t, &tl, delta);
				if (code == MT_CALL_MALLOC) {
					gate(t, &tl, size, p, st);
					replay_malloc(t, obj, size, timer, overhead, single, lean);
				} else {
					replay_free(t, obj, timer, overhead, single, lean);
				}
				call_done(t, &calls, &until_trim, trim_every, lean);
				continue;
			}
			if (prefetch)
				code = ahead_more(&la, &p, &st, &delta, &obj, &nmemb, &size, &op);
			else
				code = mt_op_decode_more(&p, end, &st, timing, &delta, &obj, &nmemb,
							 &size);
			if (code && (!prefetch || code != AHEAD_WHOLE)) {
				if (tl.used && delta)
					advance(t, &tl, delta);
				if (code == MT_CALL_CALLOC) {
					gate(t, &tl, mt_nmemb_bytes(nmemb, size), p, st);
					replay_calloc(t, obj, nmemb, size, timer, overhead);
				} else {
					replay_free_null(t, timer, overhead);
				}
				call_done(t, &calls, &until_trim, trim_every, lean);
				continue;
			}
			if ((!prefetch || !code) && mt_op_decode(&p, end, &st, &op, timing))
				corrupt(t, at);
			if (tl.used && op.delta_ns)
				advance(t, &tl, op.delta_ns);
			if (mt_op_is_call(op.code)) {
				if (mt_call_allocates(op.code))
					gate(t, &tl, adds(t, &op), p, st);
				replay_call(t, &op, timer, overhead);
				call_done(t, &calls, &until_trim, trim_every, lean);
				continue;
			}
			if (op.code == MT_OP_SIGNAL) {
				rt_sync_signal(&r->syncs[op.sync]);
			} else {
				if (tl.clocked)
					publish(t, next_call_at(p, end, st, tl.rec));
				atomic_store_explicit(&t->waiting, op.sync + 1, memory_order_relaxed);
				/* the threads gated on it may need no more
				 * than that (clock.c, RUNWAY), or be what it
				 * waits for: woken once they can see it wait */
				if (tl.clocked && gated_on(t))
					wake_waiters(t, 0);
				if (rt_sync_wait(&r->syncs[op.sync], spins))
					mark(t);
				atomic_store_explicit(&t->waiting, 0, memory_order_relaxed);
			}
			atomic_store_explicit(&t->syncs, ++syncs, memory_order_relaxed);
		}
	}
	if (tl.clocked)
		publish_last(t, RT_AT_NONE);
	if (t->ideal_pending)
		ideal_flush(t);
	rt_stream_end(t, held);
	t->cpu_ns = rt_thread_cpu_ns() - t->cpu_ns;
	atomic_store_explicit(&t->state, RT_FINISHED, memory_order_release);
}

/* The copies, each a function of its own, so that the look-ahead's
 * registers do not crowd the others' loop: compiled as one function, the
 * copy without it ran 4.6 instructions a call more (callgrind, cc1plus).
 * One replay thread (CPython, gcc's cc1) has a copy of its own, without
 * the test between its ideal RSS update and the gathering of several
 * threads' (2.6 instructions a call, cc1plus).  Each is made with and
 * without recorded times (the timing test cost 2.5 instructions an op
 * and the deltas' 1.7 on cc1plus's untimed workload, callgrind) and lean
 * or not (the touch test, the trim countdown and the timer source's
 * compares: ~6 a call; the new objects' encoding test at each malloc and
 * calloc: 0.5; the clock's and --pace's tests, see replay_thread), twelve
 * in all, of which a replay runs one or two;
 * copies[prefetching / plain / single][timing][lean]. */
#define REPLAY_COPY(name, prefetch, single, timing, lean)                                  \
	static __attribute__((noinline)) void name(struct rt_thread *t)                  \
	{                                                                                 \
		replay_thread(t, prefetch, single, timing, lean);                         \
	}
REPLAY_COPY(replay_prefetching, 1, t->single, 0, 0)
REPLAY_COPY(replay_prefetching_lean, 1, t->single, 0, 1)
REPLAY_COPY(replay_prefetching_timed, 1, t->single, 1, 0)
REPLAY_COPY(replay_prefetching_timed_lean, 1, t->single, 1, 1)
REPLAY_COPY(replay_plain, 0, 0, 0, 0)
REPLAY_COPY(replay_plain_lean, 0, 0, 0, 1)
REPLAY_COPY(replay_plain_timed, 0, 0, 1, 0)
REPLAY_COPY(replay_plain_timed_lean, 0, 0, 1, 1)
REPLAY_COPY(replay_single, 0, 1, 0, 0)
REPLAY_COPY(replay_single_lean, 0, 1, 0, 1)
REPLAY_COPY(replay_single_timed, 0, 1, 1, 0)
REPLAY_COPY(replay_single_timed_lean, 0, 1, 1, 1)
#undef REPLAY_COPY

static void (*const copies[3][2][2])(struct rt_thread *t) = {
	{ { replay_prefetching, replay_prefetching_lean },
	  { replay_prefetching_timed, replay_prefetching_timed_lean } },
	{ { replay_plain, replay_plain_lean }, { replay_plain_timed, replay_plain_timed_lean } },
	{ { replay_single, replay_single_lean }, { replay_single_timed, replay_single_timed_lean } },
};

/* Replays t's stream by the copy its workload and options call for. */
static void replay_stream(struct rt_thread *t)
{
	struct rt_replay *r = t->r;
	if (t->chained)
		rt_stream_begin(t);
	rt_clock_begin(t);
	/* Its CPU time from its start, read here: read within replay_thread,
	 * where values live across the call, it cost the loop 6 instructions
	 * a call (callgrind, git's workload). */
	mark(t);
	t->cpu_ns = t->mark_cpu_ns;
	int timing = (r->info->flags & MT_WLF_TIMING) != 0;
	int lean = r->timer.source == RT_TIMER_TOP && t->touch == RT_TOUCH_NONE &&
		   !r->o->trim_every && mt_wl_first_state(r->info).new_signed && !r->o->pace &&
		   r->clocked == (timing && !t->single);
	copies[t->prefetch ? 0 : t->single ? 2 : 1][timing][lean](t);
}

/* A replay thread: its stream, then those chained after it (replay.c). */
void *rt_thread_main(void *arg)
{
	struct rt_thread *t = arg;
	struct rt_replay *r = t->r;
	if (r->o->pace)
		prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	rt_sync_wait(&r->go, r->spins);
	if (atomic_load(&r->abandon))
		pthread_exit(NULL);
	for (; t; t = t->then)
		replay_stream(t);
	rt_sync_retire(&r->done);
}
