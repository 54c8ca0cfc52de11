/*
 * glibc_events.h - hooks through which the interposer lets the glibc event
 * deriver (arenas, heaps, sbrk, thresholds; see docs/PROBES.md) watch each
 * call.  interpose.c calls them around every call it forwards:
 *
 *     struct mt_glibc_probe_state s;
 *     mt_glibc_enter(&s);                 before forwarding any call
 *     mt_glibc_before_free(&s, ptr);      before free/realloc* of ptr (non-NULL)
 *     ...forward the call...
 *     mt_glibc_leave(&s, result);         after it (result NULL for free)
 *
 * They must cost a load and a predictable branch when no derived marker is
 * being probed and the recorder is off.
 */
#ifndef MT_GLIBC_EVENTS_H
#define MT_GLIBC_EVENTS_H

struct mt_glibc_probe_state {
	int active;
};

static inline void mt_glibc_enter(struct mt_glibc_probe_state *s) { s->active = 0; }
static inline void mt_glibc_before_free(struct mt_glibc_probe_state *s, void *ptr) { (void)s; (void)ptr; }
static inline void mt_glibc_leave(struct mt_glibc_probe_state *s, void *result) { (void)s; (void)result; }

#endif
