/*
 * trace_codec.h - encode and decode one trace record (format version 3,
 * and the records of version 2 for reading).
 *
 * The encoder runs on the recorder's hot path inside the traced program, so
 * it is inline, branch-light and never allocates.  The decoder is its exact
 * mirror and is the only code that turns record bytes back into calls.
 *
 * Body after the head byte (see trace_format.h), all varints, by call:
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
 *   stack: only in a trace with MT_FHF_STACKS, last in every allocating
 *   call's record (NULL_OUT or not): zigzag delta from the previous stack
 *   number of the window (0 at its start); stack 0 is "not known".
 * Time: in version 3 a record is stamped by its head's stamp bit
 * (mt_stamp_bit: its body then begins with the time's delta from the
 * window's previous stamp) or, for the calls without one, by a stamp record
 * before it (MT_HEAD_STAMP and the delta); a record without a stamp
 * carries the time of the last one before it.  In version 2 every record's
 * body begins with the delta from the previous record's time.
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
	uint64_t stack;   /* stack table number of an allocating call, 0 unknown */
	uint8_t stamped;  /* decoded: ts was stamped on this record, not carried */
	uint32_t event;   /* enum mt_event, for MT_CALL_EVENT */
	uint32_t nargs;
	uint64_t args[MT_EVENT_ARGS_MAX];
};

/* Delta state of one window, for encoder and decoder alike. */
struct mt_codec_state {
	uint64_t last_ts;
	uint64_t last_ptr;
	uint64_t last_stack;
	uint8_t stacks;   /* the trace's allocating records carry a stack */
	uint8_t ts_each;  /* version 2: every record's body starts with its time */
};

/* mt_codec_init's mode: bits of what the trace's records hold. */
enum { MT_CODEC_STACKS = 1, MT_CODEC_TS_EACH = 2 };

static inline void mt_codec_init(struct mt_codec_state *s, uint64_t base_ts, unsigned mode)
{
	s->last_ts = base_ts;
	s->last_ptr = 0;
	s->last_stack = 0;
	s->stacks = (mode & MT_CODEC_STACKS) != 0;
	s->ts_each = (mode & MT_CODEC_TS_EACH) != 0;
}

/*
 * Which fields a call's record carries, one bit each, as in the table above.
 * The decoder reads a record by these bits, the encoder writes it by them,
 * and the tools and the converter ask them: one table, so none can
 * disagree.  Where the call is a constant (the recorder's wrappers) the
 * compiler reads the table at build time, so the encoder stays as fast.
 */
enum {
	MT_FIELD_IN = 1,     /* the pointer passed in, unless NULL_IN */
	MT_FIELD_ALIGN = 2,
	MT_FIELD_NMEMB = 4,
	MT_FIELD_SIZE = 8,
	MT_FIELD_OUT = 16,   /* allocates: out and slack, unless NULL_OUT */
	MT_FIELD_RC = 32,    /* posix_memalign: rc in their place with NULL_OUT */
	MT_FIELD_EVENT = 64, /* kind, nargs, args */
};

static const uint8_t mt_call_fields[32] = {
	[MT_CALL_MALLOC] = MT_FIELD_SIZE | MT_FIELD_OUT,
	[MT_CALL_FREE] = MT_FIELD_IN,
	[MT_CALL_CALLOC] = MT_FIELD_NMEMB | MT_FIELD_SIZE | MT_FIELD_OUT,
	[MT_CALL_REALLOC] = MT_FIELD_IN | MT_FIELD_SIZE | MT_FIELD_OUT,
	[MT_CALL_REALLOCARRAY] = MT_FIELD_IN | MT_FIELD_NMEMB | MT_FIELD_SIZE | MT_FIELD_OUT,
	[MT_CALL_MEMALIGN] = MT_FIELD_ALIGN | MT_FIELD_SIZE | MT_FIELD_OUT,
	[MT_CALL_POSIX_MEMALIGN] = MT_FIELD_ALIGN | MT_FIELD_SIZE | MT_FIELD_OUT | MT_FIELD_RC,
	[MT_CALL_ALIGNED_ALLOC] = MT_FIELD_ALIGN | MT_FIELD_SIZE | MT_FIELD_OUT,
	[MT_CALL_VALLOC] = MT_FIELD_SIZE | MT_FIELD_OUT,
	[MT_CALL_PVALLOC] = MT_FIELD_SIZE | MT_FIELD_OUT,
	[MT_CALL_FREE_SIZED] = MT_FIELD_IN | MT_FIELD_SIZE,
	[MT_CALL_FREE_ALIGNED_SIZED] = MT_FIELD_IN | MT_FIELD_ALIGN | MT_FIELD_SIZE,
	[MT_CALL_EVENT] = MT_FIELD_EVENT,
};

/* The fields of call; 0 for numbers that are no call. */
static inline unsigned mt_call_field_set(unsigned call)
{
	return call < sizeof mt_call_fields ? mt_call_fields[call] : 0;
}

static inline int mt_call_has_in(unsigned call)
{
	return mt_call_field_set(call) & MT_FIELD_IN;
}

static inline int mt_call_allocates(unsigned call)
{
	return mt_call_field_set(call) & MT_FIELD_OUT;
}

static inline int mt_call_has_nmemb(unsigned call)
{
	return mt_call_field_set(call) & MT_FIELD_NMEMB;
}

static inline int mt_call_has_align(unsigned call)
{
	return mt_call_field_set(call) & MT_FIELD_ALIGN;
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
 * The head bit that says a record of `call` is stamped (version 3): the
 * NULL_IN flag of a call that passes no block in, the NULL_OUT flag of one
 * that returns none; 0 for the calls that have both (realloc,
 * reallocarray) and events, which a stamp record precedes instead.
 * mt_stamp_bit_of says it for a call's field set, for a decoder that has
 * looked that up already.
 */
static inline unsigned mt_stamp_bit_of(unsigned fields)
{
	if (!fields || fields & MT_FIELD_EVENT)
		return 0;
	if (!(fields & MT_FIELD_IN))
		return MT_RF_NULL_IN;
	return fields & MT_FIELD_OUT ? 0 : MT_RF_NULL_OUT;
}

static inline unsigned mt_stamp_bit(unsigned call)
{
	return mt_stamp_bit_of(mt_call_field_set(call));
}

/*
 * Encodes r's body at dst+1 and returns the record's full length; the head
 * byte is returned in *head and NOT stored: the caller stores it last
 * (after a compiler barrier) to publish the record.  With `stamp` (only
 * where mt_stamp_bit has a bit) r->ts goes first, and the bit is set.
 * dst must have MT_RECORD_MAX bytes.  Always inlined: where r->call is a
 * constant (the recorder's wrappers) the field tests fold away and only
 * that call's stores remain.
 */
static inline __attribute__((always_inline)) size_t mt_rec_encode_body(uint8_t *dst,
									 struct mt_codec_state *s,
									 const struct mt_rec *r,
									 int stamp, uint8_t *head)
{
	uint8_t *p = dst + 1;
	unsigned call = r->call, f = mt_call_field_set(call), bit = mt_stamp_bit(call);

	if (stamp) {
		p += mt_varint_put(p, r->ts - s->last_ts);
		s->last_ts = r->ts;
	}
	if (f & MT_FIELD_EVENT) {
		p += mt_varint_put(p, r->event);
		p += mt_varint_put(p, r->nargs);
		for (uint32_t i = 0; i < r->nargs; i++)
			p += mt_varint_put(p, r->args[i]);
		*head = (uint8_t)call;
		return (size_t)(p - dst);
	}
	if (f & MT_FIELD_IN && !(r->flags & MT_RF_NULL_IN))
		p += mt_put_ptr(p, s, r->ptr_in);
	if (f & MT_FIELD_ALIGN)
		p += mt_varint_put(p, r->align);
	if (f & MT_FIELD_NMEMB)
		p += mt_varint_put(p, r->nmemb);
	if (f & MT_FIELD_SIZE)
		p += mt_varint_put(p, r->size);
	if (f & MT_FIELD_OUT) {
		if (!(r->flags & MT_RF_NULL_OUT)) {
			p += mt_put_ptr(p, s, r->ptr_out);
			p += mt_varint_put(p, mt_zigzag((int64_t)(r->usable - mt_rec_requested(r))));
		} else if (f & MT_FIELD_RC) {
			p += mt_varint_put(p, r->rc);
		}
		if (s->stacks) {
			p += mt_varint_put(p, mt_zigzag((int64_t)(r->stack - s->last_stack)));
			s->last_stack = r->stack;
		}
	}
	*head = (uint8_t)(call | (r->flags & ~bit) | (stamp ? bit : 0));
	return (size_t)(p - dst);
}

/* A stamp record of ts at dst+1; its head byte MT_HEAD_STAMP goes to dst
 * last, as a record's.  Returns its length. */
static inline size_t mt_stamp_encode(uint8_t *dst, struct mt_codec_state *s, uint64_t ts)
{
	size_t n = 1 + mt_varint_put(dst + 1, ts - s->last_ts);
	s->last_ts = ts;
	return n;
}

/*
 * Encodes r, with r->ts as its time when `stamp` (in the head's bit, or by
 * a stamp record before it for the calls without one); without, the record
 * carries the window's last stamp.  Returns the bytes written; *first is
 * the first byte, NOT stored, to be stored last as mt_rec_encode_body's
 * head.  dst must have MT_RECORD_MAX bytes.  A time before the window's
 * last stamp wraps around in the delta and back in the decoder.
 */
static inline __attribute__((always_inline)) size_t mt_rec_encode(uint8_t *dst,
								    struct mt_codec_state *s,
								    const struct mt_rec *r, int stamp,
								    uint8_t *first)
{
	uint8_t *rec = dst;
	int in_head = stamp && mt_stamp_bit(r->call);
	if (stamp && !in_head)
		rec += mt_stamp_encode(dst, s, r->ts);
	size_t n = mt_rec_encode_body(rec, s, r, in_head, first);
	if (rec != dst) {
		*rec = *first; /* published by the stamp's byte, stored last */
		*first = MT_HEAD_STAMP;
	}
	return (size_t)(rec - dst) + n;
}

enum { MT_DEC_OK = 1, MT_DEC_END = 0, MT_DEC_CORRUPT = -1 };

/* Bytes a record may read from its start with the wide varint reader: up to
 * eight varints of at most ten bytes after the head (its stamp's included,
 * and the stamp's head), and the reader's load of MT_VARINT_WIDE bytes at
 * the last one's start. */
#define MT_REC_WIDE (2 + 8 * MT_VARINT_MAX + MT_VARINT_WIDE)

/* One varint of a record: wide (a constant) where the record starts at
 * least MT_REC_WIDE bytes before end. */
static inline __attribute__((always_inline)) int mt_rec_varint(const uint8_t **pp,
								 const uint8_t *end, uint64_t *out,
								 int wide)
{
	return wide ? mt_varint_get_wide(pp, end, out) : mt_varint_get(pp, end, out);
}

/* mt_rec_decode's body, once for each reader (wide a constant). */
static inline __attribute__((always_inline)) int mt_rec_decode_body(const uint8_t *p,
								      const uint8_t *end,
								      struct mt_codec_state *s,
								      struct mt_rec *r, size_t *len,
								      int wide)
{
	const uint8_t *q = p;
	uint64_t v;

	unsigned head = *q++, f;
	/* Field by field: a compound literal is zeroed with rep stos, whose start
	 * costs more than the whole record.  The call's fields and stamp bit
	 * are looked up once, from the head that holds the call. */
	r->stamped = 1;
	if (s->ts_each) {
		if (mt_rec_varint(&q, end, &v, wide))
			return MT_DEC_CORRUPT;
		r->ts = s->last_ts + v;
		f = mt_call_field_set(head & 0x0f);
	} else if (head == MT_HEAD_STAMP) {
		/* The record after a stamp was stored before the stamp's byte; it
		 * may not be a stamp nor carry one (call 0 and 14 have no fields,
		 * refused below). */
		if (mt_rec_varint(&q, end, &v, wide) || q >= end)
			return MT_DEC_CORRUPT;
		r->ts = s->last_ts + v;
		head = *q++;
		f = mt_call_field_set(head & 0x0f);
		if (head & mt_stamp_bit_of(f))
			return MT_DEC_CORRUPT;
	} else {
		f = mt_call_field_set(head & 0x0f);
		unsigned bit = mt_stamp_bit_of(f);
		if (head & bit) {
			if (mt_rec_varint(&q, end, &v, wide))
				return MT_DEC_CORRUPT;
			r->ts = s->last_ts + v;
			head &= ~bit;
		} else {
			r->ts = s->last_ts;
			r->stamped = 0;
		}
	}
	r->call = (uint8_t)(head & 0x0f);
	r->flags = (uint8_t)(head & 0xf0);
	r->rc = r->event = r->nargs = 0;
	r->ptr_in = r->ptr_out = r->size = r->nmemb = r->align = r->usable = r->stack = 0;
	r->args[0] = r->args[1] = r->args[2] = r->args[3] = 0;
	if (!f) /* call 0 under flags alone, or 14, 15 */
		return MT_DEC_CORRUPT;
	if (f & MT_FIELD_EVENT) {
		uint64_t ev, nargs;
		if (r->flags || mt_rec_varint(&q, end, &ev, wide) ||
		    mt_rec_varint(&q, end, &nargs, wide) || nargs > MT_EVENT_ARGS_MAX ||
		    ev > UINT32_MAX)
			return MT_DEC_CORRUPT;
		r->event = (uint32_t)ev;
		r->nargs = (uint32_t)nargs;
		for (uint32_t i = 0; i < r->nargs; i++)
			if (mt_rec_varint(&q, end, &r->args[i], wide))
				return MT_DEC_CORRUPT;
		goto done;
	}
	if (f & MT_FIELD_IN && !(head & MT_RF_NULL_IN)) {
		if (mt_rec_varint(&q, end, &v, wide))
			return MT_DEC_CORRUPT;
		r->ptr_in = s->last_ptr + (uint64_t)mt_unzigzag(v);
		s->last_ptr = r->ptr_in;
		if (!r->ptr_in) /* NULL is said by the flag, never by the value */
			return MT_DEC_CORRUPT;
	}
	if ((f & MT_FIELD_ALIGN && mt_rec_varint(&q, end, &r->align, wide)) ||
	    (f & MT_FIELD_NMEMB && mt_rec_varint(&q, end, &r->nmemb, wide)) ||
	    (f & MT_FIELD_SIZE && mt_rec_varint(&q, end, &r->size, wide)))
		return MT_DEC_CORRUPT;
	if (f & MT_FIELD_OUT) {
		if (!(head & MT_RF_NULL_OUT)) {
			if (mt_rec_varint(&q, end, &v, wide))
				return MT_DEC_CORRUPT;
			r->ptr_out = s->last_ptr + (uint64_t)mt_unzigzag(v);
			s->last_ptr = r->ptr_out;
			if (!r->ptr_out || mt_rec_varint(&q, end, &v, wide))
				return MT_DEC_CORRUPT;
			r->usable = (f & MT_FIELD_NMEMB ? r->nmemb * r->size : r->size) +
				    (uint64_t)mt_unzigzag(v);
		} else if (f & MT_FIELD_RC) {
			if (mt_rec_varint(&q, end, &v, wide) || v > UINT32_MAX)
				return MT_DEC_CORRUPT;
			r->rc = (uint32_t)v;
		}
		if (s->stacks) {
			if (mt_rec_varint(&q, end, &v, wide))
				return MT_DEC_CORRUPT;
			r->stack = s->last_stack + (uint64_t)mt_unzigzag(v);
			s->last_stack = r->stack;
		}
	}
done:
	s->last_ts = r->ts;
	*len = (size_t)(q - p);
	return MT_DEC_OK;
}

/* A record near its window's end, read with checked varints: out of line,
 * as only the last few of a window's thousands come here. */
static __attribute__((noinline)) int mt_rec_decode_near_end(const uint8_t *p, const uint8_t *end,
							    struct mt_codec_state *s,
							    struct mt_rec *r, size_t *len)
{
	return mt_rec_decode_body(p, end, s, r, len, 0);
}

/*
 * Decodes the record at [p, end).  Returns MT_DEC_END when p == end or the
 * head byte is 0 (no more records: an unwritten or unfinished one),
 * MT_DEC_CORRUPT when the bytes cannot be a record (call 0 under flags, a
 * pointer of 0 without its NULL flag, a bad varint...), else MT_DEC_OK with
 * *len set.  Fields the call does not use are zeroed.  All but a window's
 * last few records are read with the wide varint reader, which roughly
 * halves a record's instructions; the same values either way.  Always
 * inline, as readers decode records in loops: about 100 instructions a
 * record of malloc, free or realloc.
 */
static inline __attribute__((always_inline)) int mt_rec_decode(const uint8_t *p, const uint8_t *end,
								 struct mt_codec_state *s,
								 struct mt_rec *r, size_t *len)
{
	if (p >= end || *p == 0)
		return MT_DEC_END;
	if (end - p < MT_REC_WIDE)
		return mt_rec_decode_near_end(p, end, s, r, len);
	return mt_rec_decode_body(p, end, s, r, len, 1);
}

#endif
