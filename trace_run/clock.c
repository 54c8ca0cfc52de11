/*
 * clock.c - keeping replay threads to the recording's concurrency.
 *
 * The sync points only say that a block is allocated before another thread
 * frees it.  Left at that, a producer thread runs as far ahead of its
 * consumers as it likes and the replay holds far more memory than the
 * program ever did, a different amount on every run.  Two rules hold an
 * allocating call back; frees never wait.
 *
 * The window.  Each thread publishes where it is on the recording's clock
 * (rt_thread.at: the recorded time of the call it is about to make, or,
 * while it waits on a sync point, of the call that follows), and a call
 * that allocates waits until every other thread has come within the window
 * of its recorded time.  Then, when an allocation recorded at T runs,
 * every free recorded before T - window has run, and no allocation
 * recorded after T has: the live set exceeds the one the stamps give at
 * T - window by no more than what the threads allocated within the window.
 *
 * The byte cap.  The stamps' own order is not the recorded ideal peak's:
 * a free is stamped after it returns and the cores' clocks disagree, so a
 * consumer's free can bear a later time than the producer's next
 * allocation of that address, and trace2wl's merge (converter/park.c),
 * which computes the recorded peak, puts the free first.  Sorted by their
 * stamps the calls of a 7-thread producer/consumer recording held 1.29x
 * its ideal peak, and its replays peaked where the slowest thread's
 * recorded time had the stamps' live bytes at 1.07-1.19x: the window
 * followed the stamps faithfully.  So an allocation also waits while it
 * would take the live requested bytes past the recorded ideal peak and
 * 1/32 (rt_replay.ideal_cap).  Each thread compares with the cap the
 * shared count as it last saw it (when it last added to it) plus its own
 * gathered bytes and the request: no shared load on the way.  Past it, it
 * reads the shared count, yields a few times, then sleeps on held_seq,
 * beside the count, woken by the flush of frees that brings the count down
 * to the highest level a held thread asked for.  The cap can be passed by
 * what other threads added since a thread last looked (a block each at
 * most) and the gathered changes not yet added (1/1024 of the peak).
 * The two rules must not hold each other up.  The window does not wait
 * for a thread the cap holds: a producer held by the cap once kept a
 * producer behind it on the window, whose block a consumer waited for,
 * and the free the held one waited for never came.  Where nothing can
 * free - every other thread has finished, is held by the window or the
 * cap, or waits on a sync point nobody has signalled - one thread goes
 * on, so that a replay ends: first a thread the window holds whose
 * stream, within LOOK_AHEAD ops, signals a thread that waits
 * (unwindow); else the held thread that allocates the fewest bytes
 * before such a signal; else the held thread furthest behind on the
 * clock.  Each held thread publishes where its stream goes on, so that
 * the others can judge it (bytes_to_signal), and stays held until it
 * goes: one goes, not every one that looked while the others were
 * deciding.  A thread about to sleep on the window wakes the held threads
 * for that check.  The cap counts a realloc's growth, not its whole
 * block.
 *
 * Every window wait is for a thread at an earlier recorded time, so the
 * thread furthest behind never waits on it; a thread waiting on a sync
 * point publishes the time of its next call, which in the recording
 * usually came after the signal it waits for.  Not where trace2wl put a
 * call after a signal against its recorded time (the clocks of two cores
 * disagreed, converter/park.c): there the thread that is to signal may be
 * waiting for the one waiting on the signal.  So a thread that has waited
 * a whole backstop for another that sits, not moving, on a sync point
 * nobody has signalled, goes on: the clock cannot deadlock a workload the
 * load-time check accepted, and such a skew costs a millisecond.
 *
 * Cost: on the replay path, per op whose time moved, a store to the
 * thread's own line and a load of its wake_at (on the same line, written
 * by others only when they start waiting on it) - a few instructions; per
 * allocating call, one compare against the lowest position last seen and
 * one of the bytes against the cap, all on the thread's own lines; per
 * flush of freed bytes, one load on the shared count's line it has just
 * written.  Past them, a thread reads the positions of the threads that
 * have begun and not ended (slowest) or the shared count and, if it must
 * wait, yields the processor a few times and
 * then sleeps on a futex word, woken when the time or the bytes it needs
 * are reached.  Where nothing can free, choosing the thread that goes
 * decodes up to LOOK_AHEAD ops of each waiting thread's stream: some
 * microseconds, on that path alone.  Waits are outside the timed calls,
 * and the CPU time they take (with the wake-ups they cause) is counted
 * apart from the replay's own (rt_thread.clock_cpu_ns): tens of
 * microseconds a wait on a VM.
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <time.h>

#include "replay_internal.h"
#include "sync.h"
#include "timer.h"

/*
 * RUNWAY: a thread that must sleep on the window asks to be woken when
 * the thread it waits for is 1/RUNWAY of a window past the bare need, so
 * that it wakes with that much recorded time to run before the window can
 * stop it again: woken at the bare need, a thread faster than the one it
 * waits for was soon asleep again, and each sleep and wake-up costs tens
 * of microseconds of CPU time on a VM (docs/BENCHMARKS.md).  The window's
 * bound on the live set only tightens.
 *
 * RUNNING_WAKE_NS: the backstop of a sleep on a thread that is running.
 * That thread wakes its waiters when it reaches
 * their wake_at, and before it sleeps on the clock or waits on a sync
 * point, where it may be waiting for them: no wake-up can be missed, and
 * the backstop only bounds what nobody foresaw.  Woken every millisecond
 * instead, perl's main thread, gated for 10 s of recorded time until its
 * two interpreter threads caught up, spent 300 wake-ups (~40 us of CPU
 * time each on this VM) on it.
 */
enum { MISSED_WAKE_NS = 1000000, RUNNING_WAKE_NS = 20000000, YIELDS = 4, RUNWAY = 2,
       LOOK_AHEAD = 1024 };

/* Whether u is held by the byte cap. */
static int held(const struct rt_thread *u)
{
	return atomic_load_explicit(&u->state, memory_order_relaxed) == RT_HELD;
}

/*
 * The lowest position among the other unfinished threads that the cap
 * does not hold, and whose; *held_lower says whether a held one is lower
 * still.  It reads the positions of the streams that have begun, passing
 * over runs of ended ones, and for those that have not begun, the
 * earliest first call among them (rt_clock_order): 40,000 threads that
 * ran one after another, beside a main thread, made this a scan of every
 * stream at every allocation that passed the window's last limit (3.9 s
 * for their 160,000 calls).
 *
 * What it relies on.  A stream's position only rises, and once at
 * RT_AT_NONE (no call left) stays there, so a run of ended streams stays
 * ended: skip[i], read where stream i has ended, is an index past i below
 * which all from i have ended, and any thread may raise it to the end of
 * the run it found; two that write at once leave one of two true values.
 * A stream that begins after `begun` was read here stands at or past its
 * first call, so taking that instead errs low, and the caller's wait reads
 * the stream's position itself: never a call let through early.
 */
static uint64_t slowest(const struct rt_thread *t, uint32_t *who, int *held_lower)
{
	const struct rt_replay *r = t->r;
	const uint32_t begun = atomic_load_explicit(&r->begun, memory_order_relaxed);
	uint64_t low = RT_AT_NONE, low_held = RT_AT_NONE;
	for (uint32_t i = 0; i < begun;) {
		uint64_t at = atomic_load_explicit(&r->threads[i].at, memory_order_relaxed);
		if (at == RT_AT_NONE) {
			uint32_t past = i;
			while (past < begun && atomic_load_explicit(&r->threads[past].at,
								    memory_order_relaxed) == RT_AT_NONE)
				past = atomic_load_explicit(&r->skip[past], memory_order_relaxed);
			atomic_store_explicit(&r->skip[i], past, memory_order_relaxed);
			i = past;
			continue;
		}
		if (i != t->index && at < low) {
			if (held(&r->threads[i])) {
				low_held = at < low_held ? at : low_held;
			} else {
				low = at;
				*who = i;
			}
		}
		i++;
	}
	if (begun < r->info->threads) {
		uint32_t first = r->first_after[begun];
		assert(first != t->index); /* t has begun */
		if (r->threads[first].first_call_ns < low) {
			low = r->threads[first].first_call_ns;
			*who = first;
		}
	}
	*held_lower = low_held < low;
	return low;
}

void rt_clock_order(struct rt_replay *r)
{
	for (uint32_t i = r->info->threads; i-- > 0;) {
		struct rt_thread *t = &r->threads[i];
		uint32_t next = i + 1 < r->info->threads ? r->first_after[i + 1] : i;
		r->first_after[i] = t->first_call_ns <= r->threads[next].first_call_ns ? i : next;
		atomic_store_explicit(&r->skip[i], i + 1, memory_order_relaxed);
		atomic_store_explicit(&t->at, t->first_call_ns, memory_order_relaxed);
	}
}

void rt_clock_begin(struct rt_thread *t)
{
	_Atomic uint32_t *begun = &t->r->begun;
	uint32_t cur = atomic_load_explicit(begun, memory_order_relaxed);
	while (cur <= t->index && !atomic_compare_exchange_weak(begun, &cur, t->index + 1))
		;
}

/*
 * No barrier on either side of a wake-up's registration: the slow thread
 * stores its position and then loads its wake_at with none between (one
 * would cost every op ~10 ns), so its load may run before a waiter's
 * registration lands while the waiter's load of the position runs before
 * the store lands, and each misses the other.  That loses no wake-up:
 * publish's test is a level (position at or past wake_at), not a crossing,
 * so the slow thread's next publish, once its store has landed, sees the
 * registration; and where it stops publishing - before a sync wait, at
 * its end and before a --pace sleep (replay_loop.c's publish_last), and
 * before it sleeps on the clock itself (rt_clock_wake's exchange) - a full
 * fence stands between its last store and its last load, so one of the two
 * sides sees the other.  The waiter's registration is a locked
 * compare-and-swap, a full barrier on x86.  A process-wide barrier here
 * (membarrier(2)) did the same at the price of an interrupt to each other
 * processor running one of our threads per wait, charged to the thread it
 * interrupted: git's paced replays, 6,000-7,000 waits, spent 2 ns a call
 * of own cost and 3-5 of clock cost on them (docs/BENCHMARKS.md).
 */
/* Gives the processor to the other threads a few times while slow has not
 * reached need: with more replay threads than processors the one awaited
 * is often ready to run here, and a yield costs less than a sleep and a
 * wake-up.  1 if it got there. */
static int yield_until(const struct rt_thread *slow, uint64_t need)
{
	for (int i = 0; i < YIELDS; i++) {
		if (atomic_load(&slow->at) >= need)
			return 1;
		sched_yield();
	}
	return atomic_load(&slow->at) >= need;
}

/* The thread's CPU time, read where it starts and ends a wait (each a
 * system call or more, never on a call's path) to count what the waits
 * take apart from the replay's own work: rt_thread.clock_cpu_ns. */
uint64_t rt_thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Ends a wait begun at CPU time began (0: none begun), returning limit;
 * the thread's mark for off-CPU time in calls (replay_loop.c) moves past
 * the wait, whose time asleep is no call's. */
static uint64_t waited(struct rt_thread *t, uint64_t began, uint64_t limit)
{
	if (began) {
		t->mark_cpu_ns = rt_thread_cpu_ns();
		t->mark_at = rt_now(t->r->timer.source);
		t->clock_cpu_ns += t->mark_cpu_ns - began;
	}
	return limit;
}

/* Whether u waits on a sync point nobody has signalled yet (rather than
 * one signalled, with u not yet back on a processor). */
static int awaits_signal(const struct rt_thread *u)
{
	uint64_t sync = atomic_load(&u->waiting);
	return sync && atomic_load(&u->r->syncs[sync - 1]) != RT_SYNC_SET;
}

/* Whether no other thread can free a block before t moves: each has
 * finished, is held by the clock (its window or its cap), or waits on a
 * sync point nobody has signalled.  Read without a lock: a thread let go
 * a moment ago may still show as held; goes_past_cap decides which held
 * thread goes, so that such a view lets one block past the cap, not a
 * run of them. */
static int others_stuck(const struct rt_thread *t)
{
	const struct rt_replay *r = t->r;
	for (uint32_t i = 0; i < r->info->threads; i++) {
		const struct rt_thread *u = &r->threads[i];
		int state = atomic_load_explicit(&u->state, memory_order_relaxed);
		if (u != t && state != RT_FINISHED && state != RT_GATED && state != RT_HELD &&
		    !awaits_signal(u))
			return 0;
	}
	return 1;
}

/* Whether some thread waits on sync point sync. */
static int awaited(const struct rt_replay *r, uint64_t sync)
{
	for (uint32_t i = 0; i < r->info->threads; i++)
		if (atomic_load_explicit(&r->threads[i].waiting, memory_order_relaxed) == sync + 1)
			return 1;
	return 0;
}

/* Where t's stream goes on after the call it waits to make, for the
 * other threads' bytes_to_signal: published before t shows as gated or
 * held.  Each field is atomic; a reader that mixes two waits' fields
 * decodes object numbers wrongly, which bytes_to_signal does not use. */
static void publish_next(struct rt_thread *t, const uint8_t *next, struct mt_op_state st)
{
	atomic_store_explicit(&t->next_op, next, memory_order_relaxed);
	atomic_store_explicit(&t->next_last_new, st.last_new, memory_order_relaxed);
	atomic_store_explicit(&t->next_new_signed, st.new_signed, memory_order_relaxed);
}

/* The bytes u allocates from its published place (publish_next) before it
 * signals a sync point some thread waits on, looking LOOK_AHEAD ops ahead
 * and no further than its next wait; UINT64_MAX if it does not.  Let past
 * the cap or the window, u hands a block to a thread that frees it.  Only
 * where nothing can free; 64 ops ahead instead of 1,024 left a run_mt
 * recording at 1.06x its peak instead of 1.045x, as the producer furthest
 * behind went instead of the one a consumer waited for. */
static uint64_t bytes_to_signal(const struct rt_thread *u)
{
	const struct rt_replay *r = u->r;
	const int timing = (r->info->flags & MT_WLF_TIMING) != 0;
	const uint8_t *p = atomic_load_explicit(&u->next_op, memory_order_relaxed);
	struct mt_op_state st = {
		atomic_load_explicit(&u->next_last_new, memory_order_relaxed),
		atomic_load_explicit(&u->next_new_signed, memory_order_relaxed),
	};
	uint64_t bytes = 0;
	struct mt_op op;
	for (int i = 0; i < LOOK_AHEAD && p && p < u->end &&
			!mt_op_decode(&p, u->end, &st, &op, timing); i++) {
		if (op.code == MT_OP_WAIT)
			break;
		if (op.code == MT_OP_SIGNAL && awaited(r, op.sync))
			return bytes;
		if (mt_op_is_call(op.code) && mt_call_allocates(op.code))
			bytes += mt_op_requested(&op);
	}
	return UINT64_MAX;
}

/* Whether the thread u, gated by the window, is to go before t, held by
 * the cap, goes past it; if so, wakes it.  The window gives way before
 * the cap does: breaking it costs the order of a few calls, breaking the
 * cap costs bytes.  It goes if it waits for t, which t's hold has let go,
 * or for a thread that waits on a sync point nobody has signalled while
 * u's stream signals one that a thread waits on (rt_clock_gate lets it go
 * then, when nothing else can move). */
static int unwindow(const struct rt_replay *r, const struct rt_thread *u,
		    const struct rt_thread *t)
{
	uint32_t behind = atomic_load_explicit(&u->behind, memory_order_relaxed);
	if (behind == t->index)
		return 1;
	if (!awaits_signal(&r->threads[behind]) || bytes_to_signal(u) == UINT64_MAX)
		return 0;
	rt_clock_wake(&r->threads[behind]);
	return 1;
}

/* Whether t, held by the cap when nothing can free, is the one held thread
 * to go past it: the one that allocates the fewest bytes before it
 * signals a thread waiting to free a block; where none does, the one
 * furthest behind on the clock; the lowest index among equals.  Letting
 * every held thread go instead let a producer whose blocks nobody awaited
 * yet allocate until the producer that others awaited could move (on
 * run_mt recordings, up to 16% of the cap).  A thread the window holds
 * (unwindow) goes first. */
static int goes_past_cap(struct rt_thread *t)
{
	const struct rt_replay *r = t->r;
	const uint64_t to_signal = bytes_to_signal(t);
	const uint64_t at = atomic_load_explicit(&t->at, memory_order_relaxed);
	for (uint32_t i = 0; i < r->info->threads; i++) {
		const struct rt_thread *u = &r->threads[i];
		int state = atomic_load_explicit(&u->state, memory_order_relaxed);
		if (state == RT_GATED && unwindow(r, u, t))
			return 0;
		if (u == t || state != RT_HELD)
			continue;
		uint64_t u_to = bytes_to_signal(u);
		uint64_t u_at = atomic_load_explicit(&u->at, memory_order_relaxed);
		if (u_to < to_signal || (u_to == to_signal && (u_at < at || (u_at == at && i < t->index))))
			return 0;
	}
	return 1;
}

/* Whether the live bytes, as the shared count has them now, are at most
 * level, giving the processor to the other threads a few times while they
 * are not: the frees awaited are often a thread ready to run here. */
static int live_within(struct rt_thread *t, int64_t level)
{
	const struct rt_replay *r = t->r;
	for (int i = 0;; i++) {
		t->ideal_seen = atomic_load(&r->ideal_live);
		if (t->ideal_seen <= level || i == YIELDS)
			return t->ideal_seen <= level;
		sched_yield();
	}
}

/* A held thread raises held_wake_at and then reads the count; a flush adds
 * to the count with a locked add and then reads held_wake_at: on x86 the
 * locked add orders the two, so one of them sees the other; elsewhere a
 * missed wake-up costs the backstop. */
void rt_clock_hold(struct rt_thread *t, uint64_t bytes, const uint8_t *next,
		   struct mt_op_state st)
{
	struct rt_replay *r = t->r;
	const struct timespec backstop = { 0, MISSED_WAKE_NS };
	if (bytes > (uint64_t)t->ideal_cap)
		return; /* more than the recorded peak: a request that failed */
	/* the shared count, less what this thread has gathered, must come down
	 * to level for the call to go */
	const int64_t level = t->ideal_cap - (int64_t)bytes - t->ideal_pending;
	if (live_within(t, level))
		return;
	uint64_t began = rt_thread_cpu_ns();
	t->clock_waits++;
	/* Held from here to the end, waking or not, so that the others see
	 * it held while they choose which held thread goes past the cap. */
	publish_next(t, next, st);
	atomic_store_explicit(&t->state, RT_HELD, memory_order_relaxed);
	rt_clock_wake(t); /* for the threads gated on t: unwindow */
	do {
		if (others_stuck(t)) {
			if (goes_past_cap(t))
				break; /* nothing can free: the bytes go over the cap */
			rt_clock_release(r); /* the held thread that goes may sleep */
		}
		/* As in rt_clock_gate: the sequence first, then the wake level,
		 * raised to ours if lower, then the count again. */
		uint32_t seq = atomic_load(&r->held_seq);
		int64_t cur = atomic_load(&r->held_wake_at);
		while (level > cur && !atomic_compare_exchange_weak(&r->held_wake_at, &cur, level))
			;
		if ((t->ideal_seen = atomic_load(&r->ideal_live)) <= level)
			break;
		rt_futex_wait_for(&r->held_seq, seq, &backstop);
	} while (!live_within(t, level));
	atomic_store_explicit(&t->state, RT_RUNNING, memory_order_relaxed);
	waited(t, began, 0);
}

void rt_clock_release(struct rt_replay *r)
{
	if (atomic_exchange(&r->held_wake_at, RT_NO_WAKE) == RT_NO_WAKE)
		return;
	atomic_fetch_add(&r->held_seq, 1);
	rt_futex(&r->held_seq, FUTEX_WAKE, INT_MAX);
}

uint64_t rt_clock_gate(struct rt_thread *t, uint64_t rec, const uint8_t *next,
		       struct mt_op_state st)
{
	struct rt_replay *r = t->r;
	const uint64_t window = r->window_ns;
	const struct timespec backstop = { 0, MISSED_WAKE_NS }, running = { 0, RUNNING_WAKE_NS };
	uint32_t who = 0;
	int held_lower;
	uint64_t began = 0; /* CPU time when it began to wait */

	publish_next(t, next, st);
	for (;;) {
		uint64_t low = slowest(t, &who, &held_lower);
		/* past a held thread the limit is this call's time: the next
		 * allocation looks again, the held one may be let go by then */
		if (low == RT_AT_NONE)
			return waited(t, began, held_lower ? rec : RT_AT_NONE);
		if (rec - low <= window || rec < low)
			return waited(t, began, held_lower && low + window > rec ? rec : low + window);
		if (!began) {
			began = rt_thread_cpu_ns();
			t->clock_waits++;
		}
		struct rt_thread *slow = &r->threads[who];
		uint64_t need = rec - window;
		if (yield_until(slow, need))
			continue;
		/* Ask the slowest thread to wake us when it is RUNWAY past
		 * need.  The sequence is read first: a lower wake_at already
		 * there, which we rely on, may be used up before we sleep, and
		 * the wake-up it makes changes the sequence. */
		uint64_t wake = need + window / RUNWAY;
		uint32_t seq = atomic_load(&slow->clock_seq);
		uint64_t cur = atomic_load(&slow->wake_at);
		while (wake < cur && !atomic_compare_exchange_weak(&slow->wake_at, &cur, wake))
			;
		if (atomic_load(&slow->at) >= wake || held(slow))
			continue;
		if (awaits_signal(slow) && bytes_to_signal(t) != UINT64_MAX && others_stuck(t))
			return waited(t, began, rec); /* t signals a waiting thread, nothing else moves: unwindow */
		uint64_t was_at = atomic_load(&slow->at);
		atomic_store_explicit(&t->behind, who, memory_order_relaxed);
		atomic_store_explicit(&t->state, RT_GATED, memory_order_relaxed);
		/* a thread held by the cap may now have no other that can free */
		if (atomic_load(&r->held_wake_at) != RT_NO_WAKE)
			rt_clock_release(r);
		/* and the threads gated on this one may need no more than it
		 * has reached (RUNWAY) */
		rt_clock_wake(t);
		long rc = rt_futex_wait_for(&slow->clock_seq, seq,
					    awaits_signal(slow) ? &backstop : &running);
		atomic_store_explicit(&t->state, RT_RUNNING, memory_order_relaxed);
		if (rc && errno == ETIMEDOUT && awaits_signal(slow) &&
		    atomic_load(&slow->at) == was_at)
			return waited(t, began, rec); /* it may be waiting for us: see above */
	}
}

void rt_clock_wake(struct rt_thread *t)
{
	if (atomic_exchange(&t->wake_at, RT_AT_NONE) == RT_AT_NONE)
		return;
	atomic_fetch_add(&t->clock_seq, 1);
	rt_futex(&t->clock_seq, FUTEX_WAKE, INT_MAX);
}
