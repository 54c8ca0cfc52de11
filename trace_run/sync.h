/*
 * sync.h - the handoff between replay threads at a workload sync point.
 *
 * A sync point is one 32-bit word: 0 not yet signalled, 1 signalled,
 * 2 not yet signalled and a waiter is asleep on it.  SIGNAL swaps in 1 with
 * release order and makes the futex system call only if it saw 2; WAIT spins
 * briefly on an acquire load (a handoff between running threads is usually
 * shorter than a system call), then announces itself by swapping 0 -> 2 and
 * sleeps in the kernel.  Four bytes and, in the common case, no system call
 * per sync point, where a mutex and condition variable cost about ninety
 * bytes and two calls.
 *
 * The spin pays only when the signaller runs on another processor at the
 * same time.  With more replay threads than processors the spinner may be
 * holding the processor the signaller needs, so the replay passes a spin
 * budget of 0 then (replay.c) and waits go straight to the kernel.
 */
#ifndef RT_SYNC_H
#define RT_SYNC_H

#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { RT_SYNC_CLEAR = 0, RT_SYNC_SET = 1, RT_SYNC_SLEEPER = 2 };
enum { RT_SYNC_SPINS = 100 }; /* PAUSE is 10-140 cycles: at most ~5 us */

static inline void rt_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static inline long rt_futex(_Atomic uint32_t *w, int op, uint32_t val)
{
	return syscall(SYS_futex, (uint32_t *)w, op | FUTEX_PRIVATE_FLAG, val, NULL, NULL, 0);
}

/* Sleeps while *w holds val, for at most *timeout; 0 when woken, -1 with
 * errno set (ETIMEDOUT, or EAGAIN when *w no longer held val) otherwise. */
static inline long rt_futex_wait_for(_Atomic uint32_t *w, uint32_t val,
				     const struct timespec *timeout)
{
	return syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, val, timeout,
		       NULL, 0);
}

static inline void rt_sync_signal(_Atomic uint32_t *w)
{
	if (atomic_exchange_explicit(w, RT_SYNC_SET, memory_order_release) == RT_SYNC_SLEEPER)
		rt_futex(w, FUTEX_WAKE, INT_MAX);
}

/* 1 if it went to the kernel (and may have slept), 0 if it found *w set. */
static inline int rt_sync_wait(_Atomic uint32_t *w, unsigned spins)
{
	for (unsigned i = 0; i < spins; i++) {
		if (atomic_load_explicit(w, memory_order_acquire) == RT_SYNC_SET)
			return 0;
		rt_cpu_relax();
	}
	for (int slept = 0;; slept = 1) {
		uint32_t v = RT_SYNC_CLEAR;
		if (!atomic_compare_exchange_strong_explicit(w, &v, RT_SYNC_SLEEPER,
							     memory_order_acquire,
							     memory_order_acquire) &&
		    v == RT_SYNC_SET)
			return slept;
		rt_futex(w, FUTEX_WAIT, RT_SYNC_SLEEPER);
	}
}

/* Waits until *w, a count that only grows, reaches n. */
static inline void rt_sync_count_wait(_Atomic uint32_t *w, uint32_t n)
{
	uint32_t v;
	while ((v = atomic_load_explicit(w, memory_order_acquire)) < n)
		rt_futex(w, FUTEX_WAIT, v);
}

/*
 * A replay or monitor thread whose work is over: counted in *done, then
 * parked for good rather than exiting, as glibc's thread exit calls free on
 * the thread's own buffers (twice, even when they are NULL), and while the
 * replay runs the allocator under test must see the workload's calls and
 * nothing else.  The process's exit ends the thread.
 */
static inline __attribute__((noreturn)) void rt_sync_retire(_Atomic uint32_t *done)
{
	atomic_fetch_add_explicit(done, 1, memory_order_release);
	rt_futex(done, FUTEX_WAKE, INT_MAX);
	for (;;)
		pause();
}

#endif
