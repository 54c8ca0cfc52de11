/*
 * interpose.c - the malloc family, seen by every caller in the process.
 *
 * Each wrapper fires its SDT markers (provider "mtrace", see docs/PROBES.md),
 * lets the glibc event deriver watch (glibc_events.h), forwards to the next
 * allocator, and when recording hands the call to the recorder: allocating
 * calls at return, frees at entry, so that at any point in the trace one
 * block owns an address.
 *
 * Cost when nothing watches: each marker is a nop whose operands the
 * compiler keeps in the registers the call already has (no semaphore, no
 * branch); the recorder test is one load and a predictable branch.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/sdt.h>

#include "glibc_events.h"
#include "next_alloc.h"
#include "recorder.h"

#define MT_EXPORT __attribute__((visibility("default")))

/* Completes an allocating call's record from its result and records it. */
static void record_alloc(struct mt_rec *r)
{
	if (!r->ptr_in && mt_call_has_in(r->call))
		r->flags |= MT_RF_NULL_IN;
	if (r->ptr_out) {
		r->flags |= mt_next_flags((void *)r->ptr_out);
		r->usable = mt_next_usable((void *)r->ptr_out);
	} else {
		r->flags |= MT_RF_NULL_OUT;
	}
	mt_record(r);
}

static void record_free(unsigned call, void *p, size_t size, size_t align)
{
	struct mt_rec r = { .call = (uint8_t)call, .ptr_in = (uintptr_t)p, .size = size, .align = align };
	r.flags = p ? mt_next_flags(p) : MT_RF_NULL_IN;
	mt_record(&r);
}

#define U(p) ((uintptr_t)(p))

MT_EXPORT void *malloc(size_t size)
{
	struct mt_glibc_probe_state gs;
	STAP_PROBE1(mtrace, malloc_entry, size);
	mt_glibc_enter(&gs);
	void *p = mt_next.malloc(size);
	mt_glibc_leave(&gs, p);
	STAP_PROBE2(mtrace, malloc_return, p, size);
	if (mt_recording())
		record_alloc(&(struct mt_rec){ .call = MT_CALL_MALLOC, .ptr_out = U(p), .size = size });
	return p;
}

MT_EXPORT void free(void *ptr)
{
	struct mt_glibc_probe_state gs;
	STAP_PROBE1(mtrace, free, ptr);
	if (mt_in_boot_arena(ptr))
		return;
	if (mt_recording())
		record_free(MT_CALL_FREE, ptr, 0, 0);
	mt_glibc_enter(&gs);
	if (ptr)
		mt_glibc_before_free(&gs, ptr);
	mt_next.free(ptr);
	mt_glibc_leave(&gs, NULL);
}

MT_EXPORT void *calloc(size_t nmemb, size_t size)
{
	struct mt_glibc_probe_state gs;
	STAP_PROBE2(mtrace, calloc_entry, nmemb, size);
	mt_glibc_enter(&gs);
	void *p = mt_next.calloc(nmemb, size);
	mt_glibc_leave(&gs, p);
	STAP_PROBE3(mtrace, calloc_return, p, nmemb, size);
	if (mt_recording())
		record_alloc(&(struct mt_rec){ .call = MT_CALL_CALLOC, .ptr_out = U(p),
					       .nmemb = nmemb, .size = size });
	return p;
}

MT_EXPORT void *realloc(void *old, size_t size)
{
	struct mt_glibc_probe_state gs;
	STAP_PROBE2(mtrace, realloc_entry, old, size);
	if (mt_in_boot_arena(old))
		return mt_boot_realloc(old, size);
	mt_glibc_enter(&gs);
	if (old)
		mt_glibc_before_free(&gs, old);
	void *p = mt_next.realloc(old, size);
	mt_glibc_leave(&gs, p);
	STAP_PROBE3(mtrace, realloc_return, p, old, size);
	if (mt_recording())
		record_alloc(&(struct mt_rec){ .call = MT_CALL_REALLOC, .ptr_out = U(p),
					       .ptr_in = U(old), .size = size });
	return p;
}

MT_EXPORT void *reallocarray(void *old, size_t nmemb, size_t size)
{
	struct mt_glibc_probe_state gs;
	STAP_PROBE3(mtrace, reallocarray_entry, old, nmemb, size);
	/* glibc's own reallocarray calls realloc through the PLT, which would
	 * record the call twice; the overflow check is all it adds. */
	void *p = NULL;
	if (size && nmemb > SIZE_MAX / size) {
		errno = ENOMEM;
	} else if (mt_in_boot_arena(old)) {
		return mt_boot_realloc(old, nmemb * size);
	} else {
		mt_glibc_enter(&gs);
		if (old)
			mt_glibc_before_free(&gs, old);
		p = mt_next.realloc(old, nmemb * size);
		mt_glibc_leave(&gs, p);
	}
	STAP_PROBE4(mtrace, reallocarray_return, p, old, nmemb, size);
	if (mt_recording())
		record_alloc(&(struct mt_rec){ .call = MT_CALL_REALLOCARRAY, .ptr_out = U(p),
					       .ptr_in = U(old), .nmemb = nmemb, .size = size });
	return p;
}

MT_EXPORT void *memalign(size_t align, size_t size)
{
	struct mt_glibc_probe_state gs;
	STAP_PROBE2(mtrace, memalign_entry, align, size);
	mt_glibc_enter(&gs);
	void *p = mt_next.memalign(align, size);
	mt_glibc_leave(&gs, p);
	STAP_PROBE3(mtrace, memalign_return, p, align, size);
	if (mt_recording())
		record_alloc(&(struct mt_rec){ .call = MT_CALL_MEMALIGN, .ptr_out = U(p),
					       .align = align, .size = size });
	return p;
}

MT_EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
	struct mt_glibc_probe_state gs;
	void *p = NULL;
	STAP_PROBE2(mtrace, posix_memalign_entry, align, size);
	mt_glibc_enter(&gs);
	int rc = mt_next.posix_memalign(&p, align, size);
	if (rc)
		p = NULL; /* *out is left alone on failure, as POSIX says */
	else
		*out = p;
	mt_glibc_leave(&gs, p);
	STAP_PROBE4(mtrace, posix_memalign_return, p, align, size, rc);
	if (mt_recording())
		record_alloc(&(struct mt_rec){ .call = MT_CALL_POSIX_MEMALIGN, .ptr_out = U(p),
					       .align = align, .size = size, .rc = (uint32_t)rc });
	return rc;
}

MT_EXPORT void *aligned_alloc(size_t align, size_t size)
{
	struct mt_glibc_probe_state gs;
	STAP_PROBE2(mtrace, aligned_alloc_entry, align, size);
	mt_glibc_enter(&gs);
	void *p = mt_next.aligned_alloc(align, size);
	mt_glibc_leave(&gs, p);
	STAP_PROBE3(mtrace, aligned_alloc_return, p, align, size);
	if (mt_recording())
		record_alloc(&(struct mt_rec){ .call = MT_CALL_ALIGNED_ALLOC, .ptr_out = U(p),
					       .align = align, .size = size });
	return p;
}

MT_EXPORT void *valloc(size_t size)
{
	struct mt_glibc_probe_state gs;
	STAP_PROBE1(mtrace, valloc_entry, size);
	mt_glibc_enter(&gs);
	void *p = mt_next.valloc(size);
	mt_glibc_leave(&gs, p);
	STAP_PROBE2(mtrace, valloc_return, p, size);
	if (mt_recording())
		record_alloc(&(struct mt_rec){ .call = MT_CALL_VALLOC, .ptr_out = U(p), .size = size });
	return p;
}

MT_EXPORT void *pvalloc(size_t size)
{
	struct mt_glibc_probe_state gs;
	STAP_PROBE1(mtrace, pvalloc_entry, size);
	mt_glibc_enter(&gs);
	void *p = mt_next.pvalloc(size);
	mt_glibc_leave(&gs, p);
	STAP_PROBE2(mtrace, pvalloc_return, p, size);
	if (mt_recording())
		record_alloc(&(struct mt_rec){ .call = MT_CALL_PVALLOC, .ptr_out = U(p), .size = size });
	return p;
}

#if HAVE_FREE_SIZED
MT_EXPORT void free_sized(void *ptr, size_t size)
{
	struct mt_glibc_probe_state gs;
	STAP_PROBE2(mtrace, free_sized, ptr, size);
	if (mt_in_boot_arena(ptr))
		return;
	if (mt_recording())
		record_free(MT_CALL_FREE_SIZED, ptr, size, 0);
	mt_glibc_enter(&gs);
	if (ptr)
		mt_glibc_before_free(&gs, ptr);
	mt_next.free_sized(ptr, size);
	mt_glibc_leave(&gs, NULL);
}
#endif

#if HAVE_FREE_ALIGNED_SIZED
MT_EXPORT void free_aligned_sized(void *ptr, size_t align, size_t size)
{
	struct mt_glibc_probe_state gs;
	STAP_PROBE3(mtrace, free_aligned_sized, ptr, align, size);
	if (mt_in_boot_arena(ptr))
		return;
	if (mt_recording())
		record_free(MT_CALL_FREE_ALIGNED_SIZED, ptr, size, align);
	mt_glibc_enter(&gs);
	if (ptr)
		mt_glibc_before_free(&gs, ptr);
	mt_next.free_aligned_sized(ptr, align, size);
	mt_glibc_leave(&gs, NULL);
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
