/*
 * clock.c - keeping replay threads near one shared recorded clock.
 *
 * The sync points only say that a block is allocated before another thread
 * frees it.  Left at that, a producer thread runs as far ahead of its
 * consumers as it likes and the replay holds far more memory than the
 * program ever did, a different amount on every run.  So each thread
 * publishes where it is on the recording's clock (rt_thread.at: the
 * recorded time of the call it is about to make, or, while it waits on a
 * sync point, of the call that follows), and a thread more than the window
 * ahead of the slowest other thread waits for it.  The slowest thread is
 * never held back, and a thread waiting on a sync point publishes the time
 * of its next call, which in the recording came after the signal it waits
 * for; so the signaller is never more than the window ahead of it, and the
 * clock cannot deadlock a workload the load-time check accepted.
 *
 * Cost: on the replay path, per op whose time moved, a store to the
 * thread's own line and a load of wake_at (a line written only when a
 * thread starts or stops waiting) - a few instructions.  Past its limit (the
 * slowest time it last saw plus the window) a thread reads every other
 * thread's position; it waits on a futex word, woken by the thread that
 * moves past the time it needs.  That thread stores its position with a
 * plain store, so a wake-up can be missed in a race; the wait's 1 ms
 * timeout bounds what a miss costs rather than a locked instruction per op.
 */
#include "config.h"

#include <limits.h>
#include <time.h>

#include "replay_internal.h"
#include "sync.h"

enum { MISSED_WAKE_NS = 1000000 };

/* The lowest position among the other unfinished threads, and whose. */
static uint64_t slowest(const struct rt_thread *t, uint32_t *who)
{
	const struct rt_replay *r = t->r;
	uint64_t low = RT_AT_NONE;
	for (uint32_t i = 0; i < r->info->threads; i++) {
		uint64_t at = atomic_load_explicit(&r->threads[i].at, memory_order_relaxed);
		if (i != t->index && at < low) {
			low = at;
			*who = i;
		}
	}
	return low;
}

uint64_t rt_clock_gate(struct rt_thread *t, uint64_t rec)
{
	struct rt_replay *r = t->r;
	const uint64_t window = r->window_ns;
	const struct timespec backstop = { 0, MISSED_WAKE_NS };
	uint32_t who = 0;

	for (;;) {
		uint64_t low = slowest(t, &who);
		if (low == RT_AT_NONE)
			return RT_AT_NONE;
		if (rec - low <= window || rec < low)
			return low + window;
		/* Ask to be woken when the slowest thread reaches rec - window. */
		uint64_t need = rec - window, cur = atomic_load(&r->wake_at);
		while (need < cur && !atomic_compare_exchange_weak(&r->wake_at, &cur, need))
			;
		uint32_t seq = atomic_load(&r->clock_seq);
		if (atomic_load(&r->threads[who].at) >= need)
			continue;
		atomic_store_explicit(&t->behind, who, memory_order_relaxed);
		atomic_store_explicit(&t->state, RT_GATED, memory_order_relaxed);
		syscall(SYS_futex, (uint32_t *)&r->clock_seq, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, seq,
			&backstop, NULL, 0);
		atomic_store_explicit(&t->state, RT_RUNNING, memory_order_relaxed);
	}
}

void rt_clock_wake(struct rt_replay *r)
{
	if (atomic_exchange(&r->wake_at, RT_AT_NONE) == RT_AT_NONE)
		return;
	atomic_fetch_add(&r->clock_seq, 1);
	rt_futex(&r->clock_seq, FUTEX_WAKE, INT_MAX);
}
