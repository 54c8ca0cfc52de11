/*
 * glibc_events.h - hooks through which the interposer lets the glibc event
 * deriver (arenas, heaps, sbrk, thresholds; see docs/PROBES.md) watch each
 * call, and the gate that decides whether a call is watched at all.
 *
 *     if (mt_deriving()) {                a derived marker is probed, or
 *                                         the trace wants glibc events
 *         struct mt_glibc_probe_state s;
 *         mt_glibc_enter(&s);             before forwarding the call
 *         mt_glibc_before_free(&s, ptr);  before free/realloc* of ptr (non-NULL)
 *         ...forward the call...
 *         mt_glibc_leave(&s, result);     after it (result NULL for free)
 *     }
 *
 * The gate must cost next to nothing when nobody watches.  That is why
 * every derived marker has an SDT semaphore (a tracer increments it while
 * attached), and all of them are one and the same counter: the deriver
 * runs whole or not at all, so one number says whether anyone listens.
 * mt_deriving ORs it with the recorder's epoch word masked by the trace's
 * wish for glibc events, and takes one branch: recording alone does not
 * pay for the deriver (about 116 instructions a call).  Frees, which are
 * recorded at entry, take mt_watched (the deriver or the recorder) and
 * ask mt_deriving again, out of line (interpose.c).
 * The derivations themselves live in glibc_events.c and friends, out of
 * line; only the per-call set-up is inline here.
 */
#ifndef MT_GLIBC_EVENTS_H
#define MT_GLIBC_EVENTS_H

#include <stdint.h>

#include "next_alloc.h"
#include "recorder.h"


/* The semaphore of every derived marker (section .probes, where tracers
 * look for semaphores): the number of tracers attached to any of them.
 * <sys/sdt.h> wants one symbol per marker, mtrace_NAME_semaphore; all are
 * aliases of this one counter (rec_hot.c), so the gate reads one number,
 * and a tracer attached to any derived marker turns the whole deriver on.
 * MT_GLIBC_SEMAPHORES(X) names those markers, X(NAME) each. */
MT_HIDDEN extern volatile unsigned short mt_glibc_sem;
#define MT_GLIBC_SEMAPHORES(X)                                                          \
	X(memory_sbrk_more) X(memory_sbrk_less) X(memory_arena_new) X(memory_arena_reuse) \
	X(memory_heap_new) X(memory_heap_more) X(memory_heap_less) X(memory_heap_free)    \
	X(memory_mallopt) X(memory_mallopt_free_dyn_thresholds)

/* One-time set-up (thresholds from the environment, the break as it is);
 * after the first time one load and a branch. */
MT_HIDDEN extern int mt_glibc_ready;
MT_HIDDEN void mt_glibc_init_once(void);

static inline void mt_glibc_init(void)
{
	if (!__atomic_load_n(&mt_glibc_ready, __ATOMIC_ACQUIRE))
		mt_glibc_init_once();
}

/* Per call: what enter and before_free learned, for leave. */
struct mt_glibc_probe_state {
	int active;          /* derivations run for this call */
	int raises;          /* the block freed raises the mmap threshold */
	int saved_errno;     /* see mt_glibc_before_free_slow */
	uintptr_t chunk;     /* its chunk header word */
	uintptr_t arena;     /* the arena of the block released, if in one (not
			      * mmapped, heaps aligned), else 0 */
};

/* Three loads, an AND, an OR: non-zero when the deriver must run. */
static inline int mt_deriving(void)
{
	unsigned any = mt_glibc_sem | (__atomic_load_n(&mt_rec_epoch, __ATOMIC_RELAXED) &
				       __atomic_load_n(&mt_rec_glibc_mask, __ATOMIC_RELAXED));
	return __builtin_expect(any != 0, 0);
}

/* Two loads, an OR: non-zero when the deriver or the recorder may want
 * the call. */
static inline int mt_watched(void)
{
	unsigned any = mt_glibc_sem | __atomic_load_n(&mt_rec_epoch, __ATOMIC_RELAXED);
	return __builtin_expect(any != 0, 0);
}

/* Someone listens: derive, but only over glibc (anything else has no
 * arenas, heaps or thresholds of this kind). */
static inline void mt_glibc_enter(struct mt_glibc_probe_state *s)
{
	s->active = mt_next_kind == MT_ALLOC_GLIBC;
	s->raises = 0;
	s->arena = 0;
	if (s->active)
		mt_glibc_init();
}

void mt_glibc_before_free_slow(struct mt_glibc_probe_state *s, void *ptr);
void mt_glibc_leave_slow(struct mt_glibc_probe_state *s, void *result);

static inline void mt_glibc_before_free(struct mt_glibc_probe_state *s, void *ptr)
{
	if (s->active)
		mt_glibc_before_free_slow(s, ptr);
}

static inline void mt_glibc_leave(struct mt_glibc_probe_state *s, void *result)
{
	if (s->active)
		mt_glibc_leave_slow(s, result);
}

#endif
