/*
 * glibc_events.h - hooks through which the interposer lets the glibc event
 * deriver (arenas, heaps, sbrk, thresholds; see docs/PROBES.md) watch each
 * call, and the gate that decides whether a call is watched at all.
 *
 *     if (mt_watched()) {                 a derived marker is probed, or
 *                                         the recorder is on
 *         struct mt_glibc_probe_state s;
 *         mt_glibc_enter(&s);             before forwarding the call
 *         mt_glibc_before_free(&s, ptr);  before free/realloc* of ptr (non-NULL)
 *         ...forward the call...
 *         mt_glibc_leave(&s, result);     after it (result NULL for free)
 *     }
 *
 * The gate must cost next to nothing when nobody watches.  That is why
 * every derived marker has an SDT semaphore (a tracer increments it while
 * attached) and the semaphores sit side by side in one 32-byte block:
 * mt_watched ORs the block's three words with the recorder's epoch word,
 * all in one or two cache lines, and takes one branch.  The derivations
 * themselves live in glibc_events.c and friends, out of line.
 */
#ifndef MT_GLIBC_EVENTS_H
#define MT_GLIBC_EVENTS_H

#include <stdint.h>

#include "recorder.h"

/*
 * The semaphores of the derived markers, in enum mt_event order (index =
 * event - 1; the last two stay 0, rounding the block up to whole words),
 * in section .probes where tracers look for them.  The words view is what
 * the gate reads; tracers write the 16-bit counters.
 */
union mt_glibc_sems {
	volatile unsigned short sem[12];
	volatile uint64_t word[3];
};
extern union mt_glibc_sems mt_glibc_sems;

/* Per call: what enter and before_free learned, for leave. */
struct mt_glibc_probe_state {
	int active;          /* derivations run for this call */
	int raises;          /* the block freed raises the mmap threshold */
	int saved_errno;     /* see mt_glibc_before_free_slow */
	uintptr_t chunk;     /* its chunk header word */
	uintptr_t arena;     /* the arena of the block released, if in one (not
			      * mmapped, heaps aligned), else 0 */
};

/* Four loads, three ORs: non-zero when the call must be watched. */
static inline int mt_watched(void)
{
	uint64_t any = mt_glibc_sems.word[0] | mt_glibc_sems.word[1] |
		       mt_glibc_sems.word[2] | __atomic_load_n(&mt_rec_epoch, __ATOMIC_RELAXED);
	return __builtin_expect(any != 0, 0);
}

void mt_glibc_enter(struct mt_glibc_probe_state *s);
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
