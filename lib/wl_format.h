/*
 * wl_format.h - the workload file (.wl), versions 1 and 2: layout and op codec.
 *
 * A workload is what trace2wl makes of a trace and trace_run replays: for
 * each traced thread, the calls it must make, in order, with the sync points
 * that keep a replay causally valid (a block is freed only after it was
 * allocated, whichever threads do the two).  docs/FORMAT.md describes the
 * same bytes for people; this header is the definition.
 *
 *   [header, 256 bytes][thread table, 32 bytes per thread][streams...]
 *
 * Fixed-width fields are little-endian.  Each thread's stream is a run of
 * ops; an op is a head byte and varints:
 *   head bits 0-4: opcode (enum mt_call values 1..12 for calls, MT_OP_SIGNAL,
 *                  MT_OP_WAIT); bit 5 MT_OPF_NULL_OUT (the call returned NULL
 *                  when recorded); bit 6 MT_OPF_NULL_IN (pointer arg was NULL);
 *                  bit 7 must be 0.
 *   [delta]  only with MT_WLF_TIMING: ns since this thread's previous call in
 *            the trace (for its first call, since the trace started); 0 on
 *            SIGNAL and WAIT, which the trace does not have
 *   calls:   [old] [new] [align] [nmemb] [size]
 *            old  - object passed in (realloc*, free*): zigzag(index - last_new),
 *                   absent with NULL_IN
 *            new  - object returned by an allocating call: zigzag(index - last_new)
 *                   (version 1: index - last_new, indices growing along a
 *                   stream), absent with NULL_OUT
 *            align, nmemb, size - where the call takes them, as in the trace
 *   SIGNAL, WAIT: sync point id (absolute)
 * last_new starts at 0 for each stream and becomes each new index.  Object
 * index 0 means NULL; indices run 1..object_count (the header's objects).
 * Version 2 reuses an index once its block is freed, so object_count is the
 * highest index, about the most blocks live at once; an index is allocated
 * again only after a free of it that happens before in every replay order.
 * Version 1 gave each block its own index.
 */
#ifndef MT_WL_FORMAT_H
#define MT_WL_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "trace_codec.h"
#include "varint.h"

#define MT_WL_MAGIC "MTWLOAD\x1a" /* 8 bytes, no NUL */
/* Version 2 gives object numbers out again once freed (the new field is
 * zigzagged) and carries the source trace's early stop (bytes 224..239,
 * reserved zero in version 1).  Readers take both versions. */
#define MT_WL_VERSION 2
#define MT_WL_HEADER_SIZE 256
#define MT_WL_THREAD_ENTRY 32
#define MT_WL_OPCODES 32
#define MT_WL_OP_MAX 64 /* longest encoded op */

enum { MT_OP_SIGNAL = 16, MT_OP_WAIT = 17 };
enum { MT_OPF_NULL_OUT = 0x20, MT_OPF_NULL_IN = 0x40 };
enum { MT_WLF_TIMING = 1 };

/* Header field offsets. */
enum {
	MT_WH_L_MAGIC = 0,         /* 8  magic */
	MT_WH_L_VERSION = 8,       /* 2  */
	MT_WH_L_ENDIAN = 10,       /* 1  traced machine: 1 little, 2 big */
	MT_WH_L_PTR_SIZE = 11,     /* 1  traced machine's pointer size */
	MT_WH_L_FLAGS = 12,        /* 4  MT_WLF_* */
	MT_WH_L_HEADER_SIZE = 16,  /* 4  = 256 */
	MT_WH_L_THREADS = 20,      /* 4  thread count */
	MT_WH_L_OBJECTS = 24,      /* 8  highest object index (v1: each block its own) */
	MT_WH_L_SYNCS = 32,        /* 8  sync point count */
	MT_WH_L_OPS = 40,          /* 8  ops in all streams, sync ops included */
	MT_WH_L_UNKNOWN_FREES = 48,/* 8  frees of blocks never seen allocated, dropped */
	MT_WH_L_DOUBLE_FREES = 56, /* 8  frees of blocks already freed, dropped */
	MT_WH_L_SOURCE_RECORDS = 64,/* 8 records read from the trace */
	MT_WH_L_IDEAL_PEAK = 72,   /* 8  peak of live requested bytes, in conversion order */
	MT_WH_L_SOURCE_DROPPED = 80,/* 8 calls the recorder did not record (trace header) */
	MT_WH_L_CONTRADICTIONS = 88,/* 8 blocks taken as freed where the trace contradicts itself */
	MT_WH_L_CALLS = 96,        /* 16 x 8: ops per opcode 0..15 */
	MT_WH_L_SOURCE_STOP = 224, /* 4  v2: the trace's enum mt_stop_reason (0: complete) */
	MT_WH_L_RESERVED3 = 228,   /* 4  v2: zero */
	MT_WH_L_SOURCE_STOP_RECORDS = 232, /* 8 v2: records the trace holds before its stop */
	MT_WH_L_RESERVED2 = 240,   /* 16 zero (v1: 32 bytes from 224 are zero) */
};

/* Thread table entry field offsets. */
enum {
	MT_WT_TID = 0,     /* 4  traced thread id */
	MT_WT_FLAGS = 4,   /* 4  reserved, 0 */
	MT_WT_OFFSET = 8,  /* 8  stream's file offset */
	MT_WT_LENGTH = 16, /* 8  stream's length in bytes */
	MT_WT_OPS = 24,    /* 8  ops in the stream */
};

/* One decoded op. */
struct mt_op {
	uint8_t code;      /* enum mt_call 1..12, MT_OP_SIGNAL or MT_OP_WAIT */
	uint8_t flags;     /* MT_OPF_* */
	uint64_t delta_ns; /* with MT_WLF_TIMING: ns since the thread's previous call */
	uint64_t old_obj;  /* 0 when none or NULL */
	uint64_t new_obj;  /* 0 when none or NULL */
	uint64_t align, nmemb, size;
	uint64_t sync;     /* SIGNAL / WAIT */
};

/* A stream's decoding state; new_signed for version 2 and later, where
 * the new object field is zigzagged (mt_wl_op_state gives the right one). */
struct mt_op_state {
	uint64_t last_new;
	int new_signed;
};

static inline uint64_t mt_op_new_delta(const struct mt_op_state *s, uint64_t new_obj)
{
	return s->new_signed ? mt_zigzag((int64_t)(new_obj - s->last_new)) : new_obj - s->last_new;
}

static inline __attribute__((always_inline)) uint64_t mt_op_new_index(const struct mt_op_state *s,
									   uint64_t v)
{
	return s->last_new + (s->new_signed ? (uint64_t)mt_unzigzag(v) : v);
}

static inline int mt_op_is_call(unsigned code)
{
	return code >= MT_CALL_MALLOC && code <= MT_CALL_FREE_ALIGNED_SIZED;
}

/*
 * Bytes a call asks for: nmemb * size for calloc and reallocarray, else
 * size.  A product that overflows is UINT64_MAX: it asked for more than
 * memory, not for the few bytes it wraps to (nor for none).
 */
static inline uint64_t mt_nmemb_bytes(uint64_t nmemb, uint64_t size)
{
	uint64_t bytes;
	return __builtin_mul_overflow(nmemb, size, &bytes) ? UINT64_MAX : bytes;
}

static inline uint64_t mt_op_requested(const struct mt_op *op)
{
	if (!mt_call_has_nmemb(op->code))
		return op->size;
	return mt_nmemb_bytes(op->nmemb, op->size);
}

/*
 * Whether a call releases the object it was passed: frees always; a realloc
 * that succeeded (the old block became the new one); a realloc to zero bytes
 * that returned NULL (glibc freed the block).  A realloc that failed for any
 * other size left the old block live.  Converter, reader and replayer all
 * apply this one rule.
 */
static inline int mt_op_releases_old(const struct mt_op *op)
{
	if (!mt_call_has_in(op->code) || (op->flags & MT_OPF_NULL_IN))
		return 0;
	if (!mt_call_allocates(op->code) || !(op->flags & MT_OPF_NULL_OUT))
		return 1;
	return mt_op_requested(op) == 0;
}

/* Encodes op at dst (MT_WL_OP_MAX bytes); returns its length. */
static inline __attribute__((always_inline)) size_t mt_op_encode(uint8_t *dst,
								   struct mt_op_state *s,
								   const struct mt_op *op,
								   int timing)
{
	uint8_t *p = dst;
	unsigned code = op->code;

	*p++ = (uint8_t)(code | op->flags);
	if (timing)
		p += mt_varint_put(p, op->delta_ns);
	if (code == MT_OP_SIGNAL || code == MT_OP_WAIT) {
		p += mt_varint_put(p, op->sync);
		return (size_t)(p - dst);
	}
	unsigned f = mt_call_field_set(code); /* a call's op has its record's fields */
	if (f & MT_FIELD_IN && !(op->flags & MT_OPF_NULL_IN))
		p += mt_varint_put(p, mt_zigzag((int64_t)(op->old_obj - s->last_new)));
	if (f & MT_FIELD_OUT && !(op->flags & MT_OPF_NULL_OUT)) {
		p += mt_varint_put(p, mt_op_new_delta(s, op->new_obj));
		s->last_new = op->new_obj;
	}
	if (f & MT_FIELD_ALIGN)
		p += mt_varint_put(p, op->align);
	if (f & MT_FIELD_NMEMB)
		p += mt_varint_put(p, op->nmemb);
	if (f & MT_FIELD_SIZE)
		p += mt_varint_put(p, op->size);
	return (size_t)(p - dst);
}

/*
 * Decodes the op at *pp (before end), advancing *pp.  Returns 0, or -1 when
 * the bytes are not a valid op (unknown opcode, reserved bit, short input).
 * Object indices are not range-checked here: the reader does that.
 * Always inlined: out of line, the full check (wl_check.c), which decodes
 * every op twice at load, took a third more instructions, and trace_run's
 * replay of recorded mixed workloads (the ops mt_op_decode_common declines
 * come here) up to 2.4 more a call, against 2 fewer on malloc and free
 * alone.
 */
static inline __attribute__((always_inline)) int mt_op_decode(const uint8_t **pp, const uint8_t *end, struct mt_op_state *s,
			       struct mt_op *op, int timing)
{
	const uint8_t *p = *pp;
	uint64_t v;

	if (p >= end)
		return -1;
	op->code = *p & 0x1f;
	op->flags = *p & 0xe0;
	p++;
	op->delta_ns = op->old_obj = op->new_obj = op->align = op->nmemb = op->size = op->sync = 0;
	unsigned code = op->code;
	if (op->flags & 0x80)
		return -1;
	if (timing && mt_varint_get(&p, end, &op->delta_ns))
		return -1;
	if (code == MT_OP_SIGNAL || code == MT_OP_WAIT) {
		if (op->flags || mt_varint_get(&p, end, &op->sync))
			return -1;
		*pp = p;
		return 0;
	}
	if (!mt_op_is_call(code))
		return -1;
	unsigned f = mt_call_field_set(code);
	if (f & MT_FIELD_IN && !(op->flags & MT_OPF_NULL_IN)) {
		if (mt_varint_get(&p, end, &v))
			return -1;
		op->old_obj = s->last_new + (uint64_t)mt_unzigzag(v);
	}
	if (f & MT_FIELD_OUT && !(op->flags & MT_OPF_NULL_OUT)) {
		if (mt_varint_get(&p, end, &v))
			return -1;
		op->new_obj = mt_op_new_index(s, v);
		s->last_new = op->new_obj;
	}
	if ((f & MT_FIELD_ALIGN && mt_varint_get(&p, end, &op->align)) ||
	    (f & MT_FIELD_NMEMB && mt_varint_get(&p, end, &op->nmemb)) ||
	    (f & MT_FIELD_SIZE && mt_varint_get(&p, end, &op->size)))
		return -1;
	*pp = p;
	return 0;
}

/* A varint read for mt_op_decode_common, position and value by value: a
 * variable whose address is taken lives in memory, and the decoding loop's
 * would be loaded and stored at every op (mt_varint_get_wide on a local p,
 * whose long path takes its address, cost trace_run's loop 14% more
 * instructions).  p is NULL when the bytes are no varint. */
struct mt_op_field {
	const uint8_t *p;
	uint64_t v;
};

static inline struct mt_op_field mt_op_field_long(const uint8_t *p, const uint8_t *end)
{
	struct mt_varint f = mt_varint_long_at(p, end);
	return (struct mt_op_field){ f.p, f.v };
}

/* The varint at p, whose op the caller knows to end before end: one and
 * two bytes by compares, three to eight by one 8-byte load and
 * mt_varint_pack, all inline without a bounds check (the op fits); nine
 * and ten bytes out of line.  Inline, three bytes and more cost ~15
 * instructions, where the out-of-line reader cost ~58 with its call: a
 * free of an older block carries a three-byte object delta (CPython's
 * corpus workload: a third of its fast-path ops). */
static inline __attribute__((always_inline)) struct mt_op_field mt_op_field(const uint8_t *p,
									    const uint8_t *end)
{
	if (p[0] < 0x80)
		return (struct mt_op_field){ p + 1, p[0] };
	if (p[1] < 0x80)
		return (struct mt_op_field){ p + 2, (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7 };
	uint64_t w = mt_get_le64(p), stops = ~w & 0x8080808080808080ull;
	if (!stops)
		return mt_op_field_long(p, end);
	return (struct mt_op_field){ p + __builtin_ctzll(stops) / 8 + 1, mt_varint_pack(w, stops) };
}

/* The fast path's new object from its field v, made the stream's last;
 * 0, leaving s as it was, for object 0 (NULL), which the general decoder
 * takes. */
static inline __attribute__((always_inline)) int mt_op_fast_new(struct mt_op_state *s, uint64_t v,
								   uint64_t *obj)
{
	*obj = mt_op_new_index(s, v);
	if (!*obj)
		return 0;
	s->last_new = *obj;
	return 1;
}

/* Whether a whole op of MT_WL_OP_MAX bytes fits between at, an op's head
 * byte, and end: a compare with end less a constant, which a decoding
 * loop computes once (end less the position, then the compare, took the
 * replay loop two instructions more an op). */
static inline int mt_op_fits(const uint8_t *at, const uint8_t *end)
{
	return (uintptr_t)at < (uintptr_t)end - MT_WL_OP_MAX;
}

/*
 * mt_op_decode's fast path for the two ops most of any workload is made
 * of: a malloc that returned a block and a free of one, with no flag in
 * the head byte, so the head byte alone says which fields follow.  Sets
 * *delta (0 without timing), *obj (the new object of a malloc, the old one
 * of a free, never 0: that is NULL) and, for a malloc, *size, and returns
 * the opcode, without the general decoder's field-table lookups, its
 * zeroing of seven fields, and bounds checks in every varint: one check
 * that a whole op fits.  Returns 0, leaving *pp and s as they were, for
 * any other op, for bytes that are no valid op, and within MT_WL_OP_MAX
 * bytes of end: mt_op_decode_more, then mt_op_decode, decode or refuse
 * them.
 */
static inline __attribute__((always_inline)) unsigned mt_op_decode_common(
	const uint8_t **pp, const uint8_t *end, struct mt_op_state *s, int timing,
	uint64_t *delta, uint64_t *obj, uint64_t *size)
{
	const uint8_t *p = *pp;
	unsigned head = *p++;
	struct mt_op_field d = { p, 0 }, o;

	if ((head != MT_CALL_MALLOC && head != MT_CALL_FREE) || !mt_op_fits(*pp, end))
		return 0;
	if (timing && !(d = mt_op_field(p, end)).p)
		return 0;
	if (!(o = mt_op_field(d.p, end)).p)
		return 0;
	p = o.p;
	if (head == MT_CALL_FREE) {
		*obj = s->last_new + (uint64_t)mt_unzigzag(o.v);
		if (!*obj)
			return 0;
	} else {
		struct mt_op_field z = mt_op_field(p, end);
		if (!z.p)
			return 0;
		p = z.p;
		if (!mt_op_fast_new(s, o.v, obj))
			return 0;
		*size = z.v;
	}
	*delta = d.v;
	*pp = p;
	return head;
}

/* The head byte of a free of NULL, which mt_op_decode_more returns for
 * one. */
#define MT_OP_FREE_NULL (MT_CALL_FREE | MT_OPF_NULL_IN)

/*
 * The fast path's second step, for the ops after malloc and free that
 * programs make most: a calloc that returned a block (gcc's cc1: one call
 * in six) and a free of NULL (cc1: one in eleven).  As
 * mt_op_decode_common, with *nmemb and *size for a calloc, *obj 0 for a
 * free of NULL, and the head byte returned (MT_CALL_CALLOC or
 * MT_OP_FREE_NULL).  Apart from mt_op_decode_common so that the loop's
 * malloc and free keep their registers.
 */
static inline __attribute__((always_inline)) unsigned mt_op_decode_more(
	const uint8_t **pp, const uint8_t *end, struct mt_op_state *s, int timing,
	uint64_t *delta, uint64_t *obj, uint64_t *nmemb, uint64_t *size)
{
	const uint8_t *p = *pp;
	unsigned head = *p++;
	struct mt_op_field d = { p, 0 }, o, n, z;

	if ((head != MT_CALL_CALLOC && head != MT_OP_FREE_NULL) || !mt_op_fits(*pp, end))
		return 0;
	if (timing && !(d = mt_op_field(p, end)).p)
		return 0;
	p = d.p;
	if (head == MT_OP_FREE_NULL) {
		*obj = 0;
	} else {
		if (!(o = mt_op_field(p, end)).p || !(n = mt_op_field(o.p, end)).p ||
		    !(z = mt_op_field(n.p, end)).p)
			return 0;
		p = z.p;
		if (!mt_op_fast_new(s, o.v, obj))
			return 0;
		*nmemb = n.v;
		*size = z.v;
	}
	*delta = d.v;
	*pp = p;
	return head;
}

#endif
