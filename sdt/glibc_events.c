/*
 * glibc_events.c - glibc's own malloc probes, re-created from outside.
 *
 * Fedora's glibc carries SDT probes (memory_sbrk_more, memory_arena_new...)
 * that Debian's lacks.  This file gives libmtrace.so markers with the same
 * names and argument order, under provider mtrace, so that one stap or
 * bpftrace script serves both.  It owns the markers and their semaphores,
 * the slow paths behind the inline hooks of glibc_events.h, and the one
 * derivation that needs nothing but the program break (sbrk).  Arenas and
 * heaps are derived in glibc_arenas.c, thresholds in glibc_thresholds.c;
 * docs/PROBES.md says what each derivation can and cannot see.
 *
 * Nothing here allocates: these functions run inside malloc and free.
 */
#define _SDT_HAS_SEMAPHORES 1
#include <errno.h>
#include <stdint.h>
#include <sys/sdt.h>
#include <unistd.h>

#include "glibc_events.h"
#include "glibc_internal.h"
#include "glibc_layout.h"
#include "next_alloc.h"
#include "recorder.h"

/* The markers' semaphores, all aliases of mt_glibc_sem (rec_hot.c). */
#define SEMAPHORE(name) extern volatile unsigned short mtrace_##name##_semaphore MT_HIDDEN;
MT_GLIBC_SEMAPHORES(SEMAPHORE)

/*
 * One marker site per event, with glibc's argument types: pointers and
 * size_t, except mallopt's two ints.
 */
void mt_glibc_emit(unsigned ev, uint64_t a1, uint64_t a2)
{
	void *p = (void *)(uintptr_t)a1;

	switch (ev) {
	case MT_EV_SBRK_MORE: STAP_PROBE2(mtrace, memory_sbrk_more, p, (size_t)a2); break;
	case MT_EV_SBRK_LESS: STAP_PROBE2(mtrace, memory_sbrk_less, p, (size_t)a2); break;
	case MT_EV_ARENA_NEW: STAP_PROBE2(mtrace, memory_arena_new, p, (size_t)a2); break;
	case MT_EV_ARENA_REUSE:
		STAP_PROBE2(mtrace, memory_arena_reuse, p, (void *)(uintptr_t)a2);
		break;
	case MT_EV_HEAP_NEW: STAP_PROBE2(mtrace, memory_heap_new, p, (size_t)a2); break;
	case MT_EV_HEAP_MORE: STAP_PROBE2(mtrace, memory_heap_more, p, (size_t)a2); break;
	case MT_EV_HEAP_LESS: STAP_PROBE2(mtrace, memory_heap_less, p, (size_t)a2); break;
	case MT_EV_HEAP_FREE: STAP_PROBE2(mtrace, memory_heap_free, p, (size_t)a2); break;
	case MT_EV_MALLOPT: STAP_PROBE2(mtrace, memory_mallopt, (int)a1, (int)a2); break;
	case MT_EV_DYN_THRESHOLDS:
		STAP_PROBE2(mtrace, memory_mallopt_free_dyn_thresholds, (size_t)a1, (size_t)a2);
		break;
	}
	/* Into the trace only when asked for: a tracer attached for a while
	 * would leave a partial set there. */
	if (mt_recording() && __atomic_load_n(&mt_rec_glibc_mask, __ATOMIC_RELAXED)) {
		uint64_t args[2] = { a1, a2 };
		mt_recorder_event(ev, 2, args);
	}
}

/*
 * sbrk: the break as last reported.  Whichever thread first sees it move
 * reports the move, once: load the old value before reading the break, and
 * publish with a compare-and-swap, retrying with fresh values if another
 * thread got there first.
 *
 * The break is read from glibc's __curbrk (what sbrk(0) returns once the
 * break is known): one load instead of a call into libc on every derived
 * call.  The reference is weak, so a C library without it falls back to
 * sbrk(0).
 */
static uintptr_t brk_seen;

uintptr_t mt_glibc_brk_now(void)
{
	void *b = &__curbrk ? __atomic_load_n(&__curbrk, __ATOMIC_RELAXED) : NULL;
	return (uintptr_t)(b ? b : sbrk(0));
}

void mt_glibc_brk_baseline(void)
{
	uintptr_t zero = 0;

	if (__atomic_load_n(&brk_seen, __ATOMIC_RELAXED) == 0)
		__atomic_compare_exchange_n(&brk_seen, &zero, mt_glibc_brk_now(), 0, __ATOMIC_ACQ_REL,
					    __ATOMIC_RELAXED);
}

static void brk_check(void)
{
	uintptr_t was = __atomic_load_n(&brk_seen, __ATOMIC_ACQUIRE);
	uintptr_t now;

	do {
		now = mt_glibc_brk_now();
		if (now == was || now == (uintptr_t)-1)
			return;
	} while (!__atomic_compare_exchange_n(&brk_seen, &was, now, 0, __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE));
	if (now > was)
		mt_glibc_emit(MT_EV_SBRK_MORE, was, now - was);
	else
		mt_glibc_emit(MT_EV_SBRK_LESS, now, was - now);
}

/*
 * The block is still live, so its chunk header and its heap can be read.
 * A free that will raise the mmap threshold is told apart from a realloc
 * that failed (both return NULL) by errno: free leaves it alone, a failed
 * realloc sets ENOMEM.  So errno is cleared here and restored in leave;
 * the program never sees the difference.
 */
void mt_glibc_before_free_slow(struct mt_glibc_probe_state *s, void *ptr)
{
	uintptr_t chunk;

	if (mt_in_boot_arena(ptr))
		return;
	chunk = (uintptr_t)mt_glibc_chunk_word(ptr);
	s->chunk = chunk;
	if (chunk & GL_IS_MMAPPED) {
		s->raises = mt_glibc_free_raises_threshold(chunk);
		if (s->raises) {
			s->saved_errno = errno;
			errno = 0;
		}
		return;
	}
	s->arena = mt_glibc_arenas_before_free(ptr, chunk);
}

void mt_glibc_leave_slow(struct mt_glibc_probe_state *s, void *result)
{
	brk_check();
	if (s->raises) {
		if (!result && errno == 0)
			mt_glibc_raise_threshold(s->chunk);
		if (errno == 0)
			errno = s->saved_errno;
	}
	if (s->arena || result)
		mt_glibc_arenas_after(s->arena, mt_in_boot_arena(result) ? NULL : result);
}
