/*
 * stream.c - the workload read as a stream, not held whole.
 *
 * The file stays mapped (address space only), but each replay thread holds
 * just a window of its stream in memory: the first mapped in before the
 * clock, and at the end of each the pages behind let go of (mt_let_go) and
 * the next window mapped in ahead of use, so the loop does not fault page
 * by page.  The windows share 12 MB (4 MB for a thread alone, never under
 * 64 KB), so a workload of any length replays in the same memory, and what
 * is resident of it is file pages the kernel can take back.  12, not the
 * whole of the 16 MB the replayer may hold beside its object table and
 * stacks (issue #11): a workload of 8 or more threads filled 16 MB with
 * windows alone, and the other tables went over.  The work at a
 * window's end (two madvise calls, ~0.1 ms for 4 MB, once per million
 * calls or so) is outside the timed region.
 *
 * Streams chained on one replay thread (replay.c) are short, often a few
 * tens of KB, and lie one after another in the file (trace2wl writes the
 * streams in thread order).  Letting go of each one's pages as it ends
 * cost a TLB shootdown a stream (an interrupt to every other processor
 * the process runs on), and mapping each one in a system call: so the
 * streams that follow one another on a thread are mapped in a window at a
 * time, and let go of once a quarter of a window has gathered behind.
 * A replay thread then holds at most a window and a quarter of stream.
 */
#include "config.h"

#include <sys/mman.h>
#include <unistd.h>

#include "mapped.h"
#include "replay_internal.h"

enum { WINDOW_MAX = 4 << 20, WINDOW_MIN = 64 << 10, WINDOWS_TOTAL = 12 << 20 };

/* Maps [from, to) in, read ahead of use.  Kernels before 5.14 have no
 * MADV_POPULATE_READ: the pages are then faulted in as the loop reads. */
static void map_in(const struct rt_thread *t, const uint8_t *from, const uint8_t *to)
{
#ifdef MADV_POPULATE_READ
	uintptr_t a = (uintptr_t)from & ~(uintptr_t)(t->page - 1);
	if ((uintptr_t)to > a)
		madvise((void *)a, (uintptr_t)to - a, MADV_POPULATE_READ);
#else
	(void)t, (void)from, (void)to;
#endif
}

const uint8_t *rt_stream_stop(const struct rt_thread *t, const uint8_t *p)
{
	return (size_t)(t->end - p) > t->window ? p + t->window : t->end;
}

/* The windows are shared by the streams that can be read at once: one a
 * replay thread, as a chained stream (replay.c) starts when the one before
 * it on its thread has ended, and maps its first window in then. */
void rt_stream_setup(struct rt_replay *r)
{
	size_t window = WINDOWS_TOTAL / (r->replay_threads ? r->replay_threads : 1);
	window = window > WINDOW_MAX ? WINDOW_MAX : window < WINDOW_MIN ? WINDOW_MIN : window;
	window &= ~(r->page - 1);
	for (uint32_t i = 0; i < r->info->threads; i++) {
		struct rt_thread *t = &r->threads[i];
		t->window = window;
		if (!t->chained)
			rt_stream_begin(t);
	}
}

/* A chained stream's first window was mapped in with the stream before it
 * on its thread if that one ends where it starts and was mapped in past it
 * (mapped_to, handed down the chain); else it is mapped in with the
 * streams after it that follow on in the file, as far as a window. */
void rt_stream_begin(struct rt_thread *t)
{
	const uint8_t *stop = rt_stream_stop(t, t->stream);
	if (stop <= t->mapped_to)
		return;
	const struct rt_thread *last = t;
	while (last->then && last->then->stream == last->end &&
	       (size_t)(last->then->end - t->stream) <= t->window)
		last = last->then;
	t->mapped_to = last == t ? stop : last->end;
	map_in(t, t->stream, t->mapped_to);
}

/* At the stream's end: its pages from held on join those behind it on its
 * thread, and are let go of with them once they are a quarter window or
 * no stream follows; what is kept, and how far the thread's streams are
 * mapped in, goes to the stream run next. */
void rt_stream_end(struct rt_thread *t, const uint8_t *held)
{
	if (t->behind_to != held) {
		mt_let_go(t->behind_from, t->behind_to);
		t->behind_from = held;
	}
	t->behind_to = t->end;
	struct rt_thread *next = t->then;
	if (!next || (size_t)(t->behind_to - t->behind_from) >= t->window / 4) {
		mt_let_go(t->behind_from, t->behind_to);
		t->behind_from = t->behind_to = NULL;
	}
	if (next) {
		next->behind_from = t->behind_from;
		next->behind_to = t->behind_to;
		next->mapped_to = next->stream == t->end ? t->mapped_to : NULL;
	}
}

const uint8_t *rt_stream_next(struct rt_thread *t, const uint8_t *held, const uint8_t *p)
{
	atomic_store_explicit(&t->state, RT_BUSY, memory_order_relaxed);
	mt_let_go(held, p);
	map_in(t, p, rt_stream_stop(t, p));
	atomic_store_explicit(&t->state, RT_RUNNING, memory_order_relaxed);
	return p;
}
