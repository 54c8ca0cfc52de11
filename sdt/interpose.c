/*
 * interpose.c - the malloc family, seen by every caller in the process.
 *
 * Each wrapper fires its SDT markers (provider "mtrace", see docs/PROBES.md)
 * and forwards to the next allocator.  While nobody watches that is all it
 * does: the entry nop, the gate (mt_deriving: three loads, an AND, an OR,
 * one branch predicted not taken; a free's gate, mt_watched, two loads and
 * an OR), the indirect call, the return nop, and one test of the
 * recorder's state word.  Each marker's operands are already in the
 * registers the call has, so the markers add no instruction but their nops.
 *
 * When a derived glibc marker is probed, or the recorder is on and asked
 * for glibc events, the call is forwarded by its derived twin, out of line,
 * with the glibc event deriver looking around it (glibc_events.h); and
 * when the recorder is on, the record is made - allocating calls at
 * return, frees at entry, so that at any point in the trace one block owns
 * an address: a free's in its wrapper, an allocation's in a record maker
 * the wrapper ends in by a tail call (recorder.h's fast path, inline,
 * calling nothing), each handing what the fast path cannot take (a window
 * to open, a stack to walk) to an out-of-line twin.
 * Every marker has exactly one site, in the wrapper, whichever way the call
 * went: a stack walked from it looks the same to a tracer whether or not
 * something else turned the gate on.  Records are built where the call
 * type is a constant, so the inline encoder keeps only that call's fields.
 *
 * Calls of the same shape share a generator macro: malloc, valloc and
 * pvalloc take a size; calloc, memalign and aligned_alloc two numbers.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/sdt.h>

#include "glibc_events.h"
#include "next_alloc.h"
#include "recorder.h"
#include "visibility.h"

/* The derived twins and the record makers: out of line, so the wrapper's
 * fast path keeps a small frame (a record maker returns the block, so the
 * wrapper ends in a tail call to it).  A record maker is the recorder's
 * fast path inline, calling nothing, so it saves no register (an inline
 * copy in the wrapper made the wrapper save four more on every call, also
 * when not recording); what the fast path cannot take it hands, by a tail
 * call again, to its _slow twin.  The twins (and the rare calls' record
 * makers) are cold: apart from the fast paths, whose code a program with
 * a large code footprint fetches again on every call. */
#define WATCHED static __attribute__((noinline, cold))
#define RECORD_MAKER static __attribute__((noinline))
/* The wrappers of the calls programs make most (malloc, free, calloc,
 * realloc) and their record makers go together into .text.hot, in that
 * order: a few cache lines side by side that a call fetches, not lines
 * spread among the rare calls' code, so that a program whose own code
 * evicts ours between calls has fewer lines to fetch again.  WARM is the
 * other wrappers' heat: none said. */
#define HOT __attribute__((hot))
#define WARM
#define U(p) ((uintptr_t)(p))
#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* Completes a record from the call's block: an allocating call's from its
 * result, a free's from the block passed in. */
ALWAYS_INLINE void complete_rec(struct mt_rec *r)
{
	if (!mt_call_allocates(r->call)) {
		r->flags = r->ptr_in ? mt_next_flags((void *)r->ptr_in) : MT_RF_NULL_IN;
		return;
	}
	if (!r->ptr_in && mt_call_has_in(r->call))
		r->flags |= MT_RF_NULL_IN;
	/* Expected: the block's flags and usable size then lie on the fast
	 * path's lines, not on a far line it jumps to on nearly every call. */
	if (__builtin_expect(r->ptr_out != 0, 1)) {
		r->flags |= mt_next_flags((void *)r->ptr_out);
		r->usable = mt_next_usable((void *)r->ptr_out);
	} else {
		r->flags |= MT_RF_NULL_OUT;
	}
}

/* Records r by the recorder's fast path if it can take it now (1, else 0),
 * completing r after its stamp is read (recorder.h, mt_record_fast_stamp:
 * a fenced stamp does not then wait for the chunk header's load). */
ALWAYS_INLINE int record_now(unsigned e, struct mt_rec *r)
{
	if (!e || !mt_record_fast_ok(&mt_tls, e, r->call))
		return 0;
	uint64_t ts;
	int stamp = mt_record_fast_stamp(&mt_tls, r, &ts);
	complete_rec(r);
	mt_record_fast_commit(&mt_tls, r, ts, stamp);
	return 1;
}

/* Completes a record and records it. */
ALWAYS_INLINE void record_call(struct mt_rec r)
{
	if (!record_now(__atomic_load_n(&mt_rec_epoch, __ATOMIC_RELAXED), &r)) {
		complete_rec(&r);
		mt_record_slow(r);
	}
}

/* A free's record, made at entry. */
ALWAYS_INLINE void record_free(unsigned call, void *p, size_t size, size_t align)
{
	record_call((struct mt_rec){ .call = (uint8_t)call, .ptr_in = U(p), .size = size,
				      .align = align });
}

/* In a wrapper: records the call if the recorder's fast path can (1; 1 as
 * well when the recorder is off), or says that the call's out-of-line
 * twin must (0). */
ALWAYS_INLINE int record_fast(struct mt_rec r)
{
	unsigned e = __atomic_load_n(&mt_rec_epoch, __ATOMIC_RELAXED);
	return !e || record_now(e, &r);
}

/* A free the deriver does not watch: recorded if the recorder is on, and
 * then forwarded by the caller.  0 when the deriver watches it. */
ALWAYS_INLINE int free_recorded_only(unsigned call, void *ptr, size_t size, size_t align)
{
	if (mt_deriving())
		return 0;
	if (mt_recording())
		record_free(call, ptr, size, align);
	return 1;
}

ALWAYS_INLINE void free_enter(struct mt_glibc_probe_state *gs, unsigned call, void *ptr,
			      size_t size, size_t align)
{
	if (mt_recording())
		record_free(call, ptr, size, align);
	mt_glibc_enter(gs);
	if (ptr)
		mt_glibc_before_free(gs, ptr);
}

/* malloc(size), valloc(size), pvalloc(size). */
#define SIZE_CALL(name, CALL, heat)                                                       \
	WATCHED void *name##_derived(size_t size)                                         \
	{                                                                                 \
		struct mt_glibc_probe_state gs;                                           \
		mt_glibc_enter(&gs);                                                      \
		void *p = mt_next.name(size);                                             \
		mt_glibc_leave(&gs, p);                                                   \
		return p;                                                                 \
	}                                                                                 \
	WATCHED void *name##_record_slow(void *p, size_t size)                            \
	{                                                                                 \
		record_call((struct mt_rec){ .call = CALL, .ptr_out = U(p), .size = size }); \
		return p;                                                                 \
	}                                                                                 \
	RECORD_MAKER heat void *name##_record(void *p, size_t size)                       \
	{                                                                                 \
		return record_fast((struct mt_rec){ .call = CALL, .ptr_out = U(p),        \
							    .size = size })               \
			       ? p                                                        \
			       : name##_record_slow(p, size);                             \
	}                                                                                 \
	MT_EXPORT heat void *name(size_t size)                                            \
	{                                                                                 \
		STAP_PROBE1(mtrace, name##_entry, size);                                  \
		void *p = mt_deriving() ? name##_derived(size) : mt_next.name(size);      \
		STAP_PROBE2(mtrace, name##_return, p, size);                              \
		return mt_recording() ? name##_record(p, size) : p;                       \
	}

/* calloc(nmemb, size), memalign(align, size), aligned_alloc(align, size):
 * `field` is the record field the first argument goes to. */
#define PAIR_CALL(name, CALL, field, heat)                                                \
	WATCHED void *name##_derived(size_t field, size_t size)                           \
	{                                                                                 \
		struct mt_glibc_probe_state gs;                                           \
		mt_glibc_enter(&gs);                                                      \
		void *p = mt_next.name(field, size);                                      \
		mt_glibc_leave(&gs, p);                                                   \
		return p;                                                                 \
	}                                                                                 \
	WATCHED void *name##_record_slow(void *p, size_t field, size_t size)              \
	{                                                                                 \
		record_call((struct mt_rec){ .call = CALL, .ptr_out = U(p), .field = field, \
					      .size = size });                            \
		return p;                                                                 \
	}                                                                                 \
	RECORD_MAKER heat void *name##_record(void *p, size_t field, size_t size)         \
	{                                                                                 \
		return record_fast((struct mt_rec){ .call = CALL, .ptr_out = U(p),        \
							    .field = field, .size = size }) \
			       ? p                                                        \
			       : name##_record_slow(p, field, size);                      \
	}                                                                                 \
	MT_EXPORT heat void *name(size_t field, size_t size)                              \
	{                                                                                 \
		STAP_PROBE2(mtrace, name##_entry, field, size);                           \
		void *p = mt_deriving() ? name##_derived(field, size) : mt_next.name(field, size); \
		STAP_PROBE3(mtrace, name##_return, p, field, size);                       \
		return mt_recording() ? name##_record(p, field, size) : p;                \
	}

SIZE_CALL(malloc, MT_CALL_MALLOC, HOT)
SIZE_CALL(valloc, MT_CALL_VALLOC, WARM)
SIZE_CALL(pvalloc, MT_CALL_PVALLOC, WARM)
PAIR_CALL(calloc, MT_CALL_CALLOC, nmemb, HOT)
PAIR_CALL(memalign, MT_CALL_MEMALIGN, align, WARM)
PAIR_CALL(aligned_alloc, MT_CALL_ALIGNED_ALLOC, align, WARM)

WATCHED void free_watched(void *ptr)
{
	if (free_recorded_only(MT_CALL_FREE, ptr, 0, 0)) {
		mt_next.free(ptr);
		return;
	}
	struct mt_glibc_probe_state gs;
	free_enter(&gs, MT_CALL_FREE, ptr, 0, 0);
	mt_next.free(ptr);
	mt_glibc_leave(&gs, NULL);
}

MT_EXPORT HOT void free(void *ptr)
{
	STAP_PROBE1(mtrace, free, ptr);
	if (mt_in_boot_arena(ptr))
		return;
	if (mt_watched() &&
	    (mt_deriving() ||
	     !record_fast((struct mt_rec){ .call = MT_CALL_FREE, .ptr_in = U(ptr) })))
		free_watched(ptr);
	else
		mt_next.free(ptr);
}

/* realloc and reallocarray: the old block goes at the call, as for free. */
WATCHED void *realloc_derived(void *old, size_t size)
{
	struct mt_glibc_probe_state gs;
	mt_glibc_enter(&gs);
	if (old)
		mt_glibc_before_free(&gs, old);
	void *p = mt_next.realloc(old, size);
	mt_glibc_leave(&gs, p);
	return p;
}

WATCHED void *realloc_record_slow(void *p, void *old, size_t size)
{
	record_call((struct mt_rec){ .call = MT_CALL_REALLOC, .ptr_out = U(p), .ptr_in = U(old),
				      .size = size });
	return p;
}

RECORD_MAKER HOT void *realloc_record(void *p, void *old, size_t size)
{
	return record_fast((struct mt_rec){ .call = MT_CALL_REALLOC, .ptr_out = U(p),
					    .ptr_in = U(old), .size = size })
		       ? p
		       : realloc_record_slow(p, old, size);
}

MT_EXPORT HOT void *realloc(void *old, size_t size)
{
	STAP_PROBE2(mtrace, realloc_entry, old, size);
	if (mt_in_boot_arena(old))
		return mt_boot_realloc(old, size);
	void *p = mt_deriving() ? realloc_derived(old, size) : mt_next.realloc(old, size);
	STAP_PROBE3(mtrace, realloc_return, p, old, size);
	return mt_recording() ? realloc_record(p, old, size) : p;
}

WATCHED void *reallocarray_record(void *p, void *old, size_t nmemb, size_t size)
{
	record_call((struct mt_rec){ .call = MT_CALL_REALLOCARRAY, .ptr_out = U(p),
				      .ptr_in = U(old), .nmemb = nmemb, .size = size });
	return p;
}

/* glibc's own reallocarray calls realloc through the PLT, which would
 * record the call twice; the overflow check is all it adds. */
MT_EXPORT void *reallocarray(void *old, size_t nmemb, size_t size)
{
	STAP_PROBE3(mtrace, reallocarray_entry, old, nmemb, size);
	void *p = NULL;
	if (size && nmemb > SIZE_MAX / size)
		errno = ENOMEM;
	else if (mt_in_boot_arena(old))
		return mt_boot_realloc(old, nmemb * size);
	else
		p = mt_deriving() ? realloc_derived(old, nmemb * size)
				  : mt_next.realloc(old, nmemb * size);
	STAP_PROBE4(mtrace, reallocarray_return, p, old, nmemb, size);
	return mt_recording() ? reallocarray_record(p, old, nmemb, size) : p;
}

/* posix_memalign: *out is left alone on failure, as POSIX says. */
WATCHED int posix_memalign_derived(void **p, size_t align, size_t size)
{
	struct mt_glibc_probe_state gs;
	mt_glibc_enter(&gs);
	int rc = mt_next.posix_memalign(p, align, size);
	mt_glibc_leave(&gs, rc ? NULL : *p);
	return rc;
}

WATCHED void posix_memalign_record(void *p, size_t align, size_t size, int rc)
{
	record_call((struct mt_rec){ .call = MT_CALL_POSIX_MEMALIGN, .ptr_out = U(p),
				      .align = align, .size = size, .rc = (uint32_t)rc });
}

MT_EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
	void *p = NULL;
	STAP_PROBE2(mtrace, posix_memalign_entry, align, size);
	int rc = mt_deriving() ? posix_memalign_derived(&p, align, size)
			       : mt_next.posix_memalign(&p, align, size);
	if (rc)
		p = NULL;
	else
		*out = p;
	STAP_PROBE4(mtrace, posix_memalign_return, p, align, size, rc);
	if (mt_recording())
		posix_memalign_record(p, align, size, rc);
	return rc;
}

#if HAVE_FREE_SIZED || HAVE_FREE_ALIGNED_SIZED
/* free_sized and free_aligned_sized with the deriver watching; the call
 * type picks the forward. */
WATCHED void sized_free_watched(unsigned call, void *ptr, size_t size, size_t align)
{
	struct mt_glibc_probe_state gs;
	int derived = !free_recorded_only(call, ptr, size, align);
	if (derived)
		free_enter(&gs, call, ptr, size, align);
#if HAVE_FREE_SIZED
	if (call == MT_CALL_FREE_SIZED)
		mt_next.free_sized(ptr, size);
#endif
#if HAVE_FREE_ALIGNED_SIZED
	if (call == MT_CALL_FREE_ALIGNED_SIZED)
		mt_next.free_aligned_sized(ptr, align, size);
#endif
	if (derived)
		mt_glibc_leave(&gs, NULL);
}
#endif

#if HAVE_FREE_SIZED
MT_EXPORT void free_sized(void *ptr, size_t size)
{
	STAP_PROBE2(mtrace, free_sized, ptr, size);
	if (mt_in_boot_arena(ptr))
		return;
	if (mt_watched())
		sized_free_watched(MT_CALL_FREE_SIZED, ptr, size, 0);
	else
		mt_next.free_sized(ptr, size);
}
#endif

#if HAVE_FREE_ALIGNED_SIZED
MT_EXPORT void free_aligned_sized(void *ptr, size_t align, size_t size)
{
	STAP_PROBE3(mtrace, free_aligned_sized, ptr, align, size);
	if (mt_in_boot_arena(ptr))
		return;
	if (mt_watched())
		sized_free_watched(MT_CALL_FREE_ALIGNED_SIZED, ptr, size, align);
	else
		mt_next.free_aligned_sized(ptr, align, size);
}
#endif

/* Not a traced call, but it must know our arena and ask the right allocator. */
MT_EXPORT size_t malloc_usable_size(void *ptr)
{
	if (!ptr)
		return 0;
	if (mt_in_boot_arena(ptr))
		return mt_boot_usable(ptr);
	return mt_next.usable_size(ptr);
}
