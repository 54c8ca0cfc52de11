/*
 * trace_codec.h - encode and decode one trace record (format version 1).
 *
 * The encoder runs on the recorder's hot path inside the traced program, so
 * it is inline, branch-light and never allocates.  The decoder is its exact
 * mirror and is the only code that turns record bytes back into calls.
 *
 * Body after the head byte (see trace_format.h), all varints:
 *   ts delta (u) from the previous record of the window, or from the window's
 *   base timestamp for the first one; then by call:
 *     MALLOC VALLOC PVALLOC           size                 [out slack]
 *     CALLOC                          nmemb size           [out slack]
 *     MEMALIGN ALIGNED_ALLOC          align size           [out slack]
 *     POSIX_MEMALIGN                  align size           [out slack] | rc
 *     REALLOC                  [in]   size                 [out slack]
 *     REALLOCARRAY             [in]   nmemb size           [out slack]
 *     FREE                     [in]
 *     FREE_SIZED               [in]   size
 *     FREE_ALIGNED_SIZED       [in]   align size
 *     EVENT                    kind nargs arg...
 *   [in] is absent when MT_RF_NULL_IN is set; [out slack] is absent when
 *   MT_RF_NULL_OUT is set (posix_memalign then stores its rc instead).
 *   in/out: zigzag delta from the previous pointer written in this window
 *   (0 at the window's start), so neighbouring blocks cost 2-3 bytes.
 *   slack: zigzag of usable size minus requested bytes (nmemb*size for the
 *   array calls), usually one byte.
 */
#ifndef MT_TRACE_CODEC_H
#define MT_TRACE_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "trace_format.h"
#include "varint.h"

/* One call as the recorder saw it; fields a call type does not use are 0. */
struct mt_rec {
	uint8_t call;     /* enum mt_call */
	uint8_t flags;    /* MT_RF_* */
	uint32_t rc;      /* posix_memalign's error when MT_RF_NULL_OUT */
	uint64_t ts;      /* absolute timestamp, ts_source units */
	uint64_t ptr_in;  /* pointer passed in (free, realloc*) */
	uint64_t ptr_out; /* pointer returned */
	uint64_t size;
	uint64_t nmemb;   /* calloc, reallocarray */
	uint64_t align;   /* memalign family, free_aligned_sized */
	uint64_t usable;  /* usable size of the returned block */
	uint32_t event;   /* enum mt_event, for MT_CALL_EVENT */
	uint32_t nargs;
	uint64_t args[MT_EVENT_ARGS_MAX];
};

/* Delta state of one window, for encoder and decoder alike. */
struct mt_codec_state {
	uint64_t last_ts;
	uint64_t last_ptr;
};

static inline void mt_codec_init(struct mt_codec_state *s, uint64_t base_ts)
{
	s->last_ts = base_ts;
	s->last_ptr = 0;
}

static inline int mt_call_has_in(unsigned call)
{
	return call == MT_CALL_REALLOC || call == MT_CALL_REALLOCARRAY || call == MT_CALL_FREE ||
	       call == MT_CALL_FREE_SIZED || call == MT_CALL_FREE_ALIGNED_SIZED;
}

static inline int mt_call_allocates(unsigned call)
{
	return call != MT_CALL_NONE && call != MT_CALL_FREE && call != MT_CALL_FREE_SIZED &&
	       call != MT_CALL_FREE_ALIGNED_SIZED && call != MT_CALL_EVENT && call < MT_CALL_COUNT;
}

static inline int mt_call_has_nmemb(unsigned call)
{
	return call == MT_CALL_CALLOC || call == MT_CALL_REALLOCARRAY;
}

static inline int mt_call_has_align(unsigned call)
{
	return call == MT_CALL_MEMALIGN || call == MT_CALL_ALIGNED_ALLOC ||
	       call == MT_CALL_POSIX_MEMALIGN || call == MT_CALL_FREE_ALIGNED_SIZED;
}

/* Bytes the caller asked for; what usable size is measured against. */
static inline uint64_t mt_rec_requested(const struct mt_rec *r)
{
	return mt_call_has_nmemb(r->call) ? r->nmemb * r->size : r->size;
}

static inline size_t mt_put_ptr(uint8_t *p, struct mt_codec_state *s, uint64_t ptr)
{
	size_t n = mt_varint_put(p, mt_zigzag((int64_t)(ptr - s->last_ptr)));
	s->last_ptr = ptr;
	return n;
}

/*
 * Encodes r's body at dst+1 and returns the record's full length; the head
 * byte is returned in *head and NOT stored: the caller stores it last (after a
 * compiler barrier) to publish the record.  dst must have MT_RECORD_MAX bytes.
 * Always inlined: where r->call is a constant (the recorder's wrappers) the
 * field tests fold away and only that call's stores remain.
 */
static inline __attribute__((always_inline)) size_t mt_rec_encode(uint8_t *dst, struct mt_codec_state *s,
				   const struct mt_rec *r, uint8_t *head)
{
	uint8_t *p = dst + 1;
	unsigned call = r->call;

	p += mt_varint_put(p, r->ts - s->last_ts);
	s->last_ts = r->ts;
	if (call == MT_CALL_EVENT) {
		p += mt_varint_put(p, r->event);
		p += mt_varint_put(p, r->nargs);
		for (uint32_t i = 0; i < r->nargs; i++)
			p += mt_varint_put(p, r->args[i]);
		*head = (uint8_t)call;
		return (size_t)(p - dst);
	}
	if (mt_call_has_in(call) && !(r->flags & MT_RF_NULL_IN))
		p += mt_put_ptr(p, s, r->ptr_in);
	if (mt_call_has_align(call))
		p += mt_varint_put(p, r->align);
	if (mt_call_has_nmemb(call))
		p += mt_varint_put(p, r->nmemb);
	if (call != MT_CALL_FREE)
		p += mt_varint_put(p, r->size);
	if (mt_call_allocates(call)) {
		if (!(r->flags & MT_RF_NULL_OUT)) {
			p += mt_put_ptr(p, s, r->ptr_out);
			p += mt_varint_put(p, mt_zigzag((int64_t)(r->usable - mt_rec_requested(r))));
		} else if (call == MT_CALL_POSIX_MEMALIGN) {
			p += mt_varint_put(p, r->rc);
		}
	}
	*head = (uint8_t)(call | r->flags);
	return (size_t)(p - dst);
}

enum { MT_DEC_OK = 1, MT_DEC_END = 0, MT_DEC_CORRUPT = -1 };

/*
 * Decodes the record at [p, end).  Returns MT_DEC_END when p == end or the
 * head byte is 0 (no more records: an unwritten or unfinished one),
 * MT_DEC_CORRUPT when the bytes cannot be a record (call 0 under flags, a
 * pointer of 0 without its NULL flag, a bad varint...), else MT_DEC_OK with
 * *len set.  Fields the call does not use are zeroed.
 */
static inline int mt_rec_decode(const uint8_t *p, const uint8_t *end, struct mt_codec_state *s,
				struct mt_rec *r, size_t *len)
{
	const uint8_t *q = p;
	uint64_t v;

	if (p >= end || *p == 0)
		return MT_DEC_END;
	*r = (struct mt_rec){ .call = *p & 0x0f, .flags = *p & 0xf0 };
	q++;
	unsigned call = r->call;
	if (call == MT_CALL_NONE || call >= MT_CALL_COUNT) /* a head of flags alone */
		return MT_DEC_CORRUPT;
	if (mt_varint_get(&q, end, &v))
		return MT_DEC_CORRUPT;
	r->ts = s->last_ts + v;
	if (call == MT_CALL_EVENT) {
		uint64_t ev, nargs;
		if (r->flags || mt_varint_get(&q, end, &ev) || mt_varint_get(&q, end, &nargs) ||
		    nargs > MT_EVENT_ARGS_MAX || ev > UINT32_MAX)
			return MT_DEC_CORRUPT;
		r->event = (uint32_t)ev;
		r->nargs = (uint32_t)nargs;
		for (uint32_t i = 0; i < r->nargs; i++)
			if (mt_varint_get(&q, end, &r->args[i]))
				return MT_DEC_CORRUPT;
		goto done;
	}
	if (mt_call_has_in(call) && !(r->flags & MT_RF_NULL_IN)) {
		if (mt_varint_get(&q, end, &v))
			return MT_DEC_CORRUPT;
		r->ptr_in = s->last_ptr + (uint64_t)mt_unzigzag(v);
		s->last_ptr = r->ptr_in;
		if (!r->ptr_in) /* NULL is said by the flag, never by the value */
			return MT_DEC_CORRUPT;
	}
	if (mt_call_has_align(call) && mt_varint_get(&q, end, &r->align))
		return MT_DEC_CORRUPT;
	if (mt_call_has_nmemb(call) && mt_varint_get(&q, end, &r->nmemb))
		return MT_DEC_CORRUPT;
	if (call != MT_CALL_FREE && mt_varint_get(&q, end, &r->size))
		return MT_DEC_CORRUPT;
	if (mt_call_allocates(call)) {
		if (!(r->flags & MT_RF_NULL_OUT)) {
			if (mt_varint_get(&q, end, &v))
				return MT_DEC_CORRUPT;
			r->ptr_out = s->last_ptr + (uint64_t)mt_unzigzag(v);
			s->last_ptr = r->ptr_out;
			if (!r->ptr_out || mt_varint_get(&q, end, &v))
				return MT_DEC_CORRUPT;
			r->usable = mt_rec_requested(r) + (uint64_t)mt_unzigzag(v);
		} else if (call == MT_CALL_POSIX_MEMALIGN) {
			if (mt_varint_get(&q, end, &v) || v > UINT32_MAX)
				return MT_DEC_CORRUPT;
			r->rc = (uint32_t)v;
		}
	}
done:
	s->last_ts = r->ts;
	*len = (size_t)(q - p);
	return MT_DEC_OK;
}

#endif
