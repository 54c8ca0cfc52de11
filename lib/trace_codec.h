/*
 * trace_codec.h - encode and decode one trace record (format version 4,
 * and the records of versions 1 to 3 for reading).
 *
 * The encoder runs on the recorder's hot path inside the traced program, so
 * it is inline, branch-light and never allocates.  The decoder is its exact
 * mirror and is the only code that turns record bytes back into calls.
 *
 * Body after the head byte (see trace_format.h), by call (version 4:
 * a tag, then packed fields; versions 1 to 3: varints):
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
 * Time: since version 3 a record is stamped by its head's stamp bit
 * (mt_stamp_bit: its body then begins with the time's delta from the
 * window's previous stamp) or, for the calls without one, by a stamp record
 * before it (MT_HEAD_STAMP and the delta); a record without a stamp
 * carries the time of the last one before it.  In version 2 every record's
 * body begins with the delta from the previous record's time.
 *
 * Packed fields (version 4): after the head byte, a tag of
 * mt_tag_bytes(call) bytes, little-endian, holds a length code for each
 * field the record has (mt_tag_bits), in body order from bit 0 (bits left over are 0,
 * and readers ignore them: a record cut inside its tag must still read as
 * cut once filled out); the field is then mt_pack_len(code) bytes,
 * little-endian, the fewest of its lengths that hold it (0 takes one).
 * Events keep their varints and have no tag.  Why: a varint's length costs
 * a branch per byte, mispredicted wherever lengths vary (pointer deltas,
 * times either side of 128 ticks); a packed field is found with one bit
 * scan and written with one 8-byte store, whatever its length.
 */
#ifndef MT_TRACE_CODEC_H
#define MT_TRACE_CODEC_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
	/* Before last_stack: the recorder's fast path reads it on every
	 * call, last_stack only with stacks (sdt/rec_thread.h, mt_tls). */
	uint8_t stacks;   /* the trace's allocating records carry a stack */
	uint8_t ts_each;  /* version 2: every record's body starts with its time */
	uint8_t varints;  /* versions 1 to 3: fields are varints, no tag */
	uint64_t last_stack;
	/* By head call (MT_HEAD_STAMP included), for the decoder: its tag's
	 * bytes (mt_tag_bytes) and the mask of their bits, and its stamp bit
	 * (mt_stamp_bit), a load each where working them out at each record
	 * cost the decoder about 50 instructions a record, and the tag's
	 * bytes and mask from its bits 7 more (docs/BENCHMARKS.md). */
	uint8_t tag_bytes[16], stamp_bit[16];
	uint16_t tag_mask[16];
};

/* mt_codec_init's mode: bits of what the trace's records hold.  The
 * encoder writes version 4 only (neither TS_EACH nor VARINTS). */
enum { MT_CODEC_STACKS = 1, MT_CODEC_TS_EACH = 2, MT_CODEC_VARINTS = 4 };

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

/* 256 entries, so that a call number held in a byte (a record's call, an
 * op's code) needs no test of its range: it cost the converter 6
 * instructions a record. */
static const uint8_t mt_call_fields[256] = {
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
 * Bits of a packed field's length code (version 4), by what it holds:
 * pointer deltas vary most (3 bits: 1 to 8 bytes); times, sizes and the
 * other numbers take 2 (1, 2, 4 or 8 bytes); slack, nearly always under
 * 256, takes 1 (1 or 8 bytes).  So malloc's and free's tags fit one byte.
 */
enum { MT_W_PTR = 3, MT_W_NUM = 2, MT_W_SLACK = 1 };

/* Bits of the tag of a record of `call` (or a stamp record, MT_HEAD_STAMP)
 * in version 4: the codes of every field it may carry, its time included. */
static inline unsigned mt_tag_bits(unsigned call, int stacks)
{
	unsigned f = mt_call_field_set(call);
	if (call == MT_HEAD_STAMP)
		return MT_W_NUM;
	if (!f || f & MT_FIELD_EVENT)
		return 0;
	return (mt_stamp_bit(call) ? MT_W_NUM : 0) + (f & MT_FIELD_IN ? MT_W_PTR : 0) +
	       (f & MT_FIELD_ALIGN ? MT_W_NUM : 0) + (f & MT_FIELD_NMEMB ? MT_W_NUM : 0) +
	       (f & MT_FIELD_SIZE ? MT_W_NUM : 0) +
	       (f & MT_FIELD_OUT ? MT_W_PTR + MT_W_SLACK + (stacks ? MT_W_NUM : 0) : 0);
}

/* The tag's bytes: 1 for malloc, free and the stamp record, 2 at most. */
static inline unsigned mt_tag_bytes(unsigned call, int stacks)
{
	return (mt_tag_bits(call, stacks) + 7) / 8;
}

static inline void mt_codec_init(struct mt_codec_state *s, uint64_t base_ts, unsigned mode)
{
	s->last_ts = base_ts;
	s->last_ptr = 0;
	s->last_stack = 0;
	s->stacks = (mode & MT_CODEC_STACKS) != 0;
	s->ts_each = (mode & MT_CODEC_TS_EACH) != 0;
	s->varints = (mode & (MT_CODEC_VARINTS | MT_CODEC_TS_EACH)) != 0;
	for (unsigned call = 0; call < sizeof s->tag_bytes; call++) {
		s->tag_bytes[call] = (uint8_t)mt_tag_bytes(call, s->stacks);
		s->tag_mask[call] = (uint16_t)((1u << 8 * s->tag_bytes[call]) - 1);
		s->stamp_bit[call] = (uint8_t)mt_stamp_bit(call);
	}
}

/* The bytes of a packed field of `width` code bits whose code is `code`.
 * A slack's 1 or 8 by arithmetic, not a choice: gcc made the decoder's
 * mask of `code ? 8 : 1` bytes 10 instructions of compares and sbb. */
static inline unsigned mt_pack_len(unsigned code, unsigned width)
{
	if (width == MT_W_PTR)
		return code + 1;
	if (width == MT_W_NUM)
		return 1u << code;
	return 1 + 7 * (code & 1);
}

/* Where a version 4 record's fields go, and the tag of their lengths. */
struct mt_packer {
	uint8_t *p;
	uint64_t tag;
	unsigned shift;
};

/*
 * Appends v as a packed field of `width` code bits: two bit scans at most
 * for its length, one 8-byte store (the bytes past the field are zeros,
 * which the next field or nothing overwrites), no branch once width is a
 * constant.  So 7 bytes past a record's end may be written: MT_RECORD_MAX
 * allows for them.
 */
static inline __attribute__((always_inline)) void mt_pack(struct mt_packer *k, uint64_t v,
							    unsigned width)
{
	unsigned bytes_less_1 = (unsigned)(__builtin_clzll(v | 1) ^ 63) / 8, code;
	if (width == MT_W_PTR)
		code = bytes_less_1;
	else if (width == MT_W_NUM) /* 0 1 2 2 3 3 3 3 */
		code = (unsigned)(__builtin_clz(2 * bytes_less_1 + 1) ^ 31);
	else
		code = bytes_less_1 != 0;
	uint64_t le = htole64(v);
	memcpy(k->p, &le, sizeof le);
	k->p += mt_pack_len(code, width);
	k->tag |= (uint64_t)code << k->shift;
	k->shift += width;
}

/*
 * A field nearly always under 256 (a time delta, slack) packed with a
 * branch for its length, not a computed one: a time comes from rdtsc,
 * whose result arrives late, and a length computed from it would hold back
 * the address of every store after it (the record's other fields, the next
 * record) until then, which made a tight malloc/free loop 6 ns a call
 * slower; a predicted branch lets them go.  Deltas under 256 ticks (calls
 * less than 100 ns apart) are the common case of a tight loop, larger ones
 * of a program that does much between two calls (cc1plus): the branch is
 * predicted either way, but the compiler lays out the case it is told is
 * rare on a far line, which the other kind of program then fetches on
 * every call.  Told neither (the probability 0.5), it lays out the wide
 * case in line and jumps for the narrow one: cc1plus's I1 misses in the
 * kit's code 1.06 -> 0.93 a call, the tight loop's instructions unchanged
 * (callgrind, docs/BENCHMARKS.md).
 */
static inline __attribute__((always_inline)) void mt_pack_small(struct mt_packer *k, uint64_t v,
								  unsigned width)
{
	if (__builtin_expect_with_probability(v < 0x100, 1, 0.5)) {
		*k->p++ = (uint8_t)v;
		k->shift += width;
	} else {
		mt_pack(k, v, width);
	}
}

static inline __attribute__((always_inline)) void mt_pack_ptr(struct mt_packer *k,
								struct mt_codec_state *s, uint64_t ptr)
{
	mt_pack(k, mt_zigzag((int64_t)(ptr - s->last_ptr)), MT_W_PTR);
	s->last_ptr = ptr;
}

/* Stores k's tag in the `bytes` after dst's head byte. */
static inline __attribute__((always_inline)) void mt_pack_tag(uint8_t *dst,
								const struct mt_packer *k,
								unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		dst[1 + i] = (uint8_t)(k->tag >> 8 * i);
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
									 int stamp, int stacks,
									 uint8_t *head)
{
	unsigned call = r->call, f = mt_call_field_set(call), bit = mt_stamp_bit(call);
	unsigned tag_bytes = mt_tag_bytes(call, stacks);
	struct mt_packer k = { dst + 1 + tag_bytes, 0, 0 };

	if (stamp) {
		mt_pack_small(&k, r->ts - s->last_ts, MT_W_NUM);
		s->last_ts = r->ts;
	}
	if (f & MT_FIELD_EVENT) {
		uint8_t *p = k.p;
		p += mt_varint_put(p, r->event);
		p += mt_varint_put(p, r->nargs);
		for (uint32_t i = 0; i < r->nargs; i++)
			p += mt_varint_put(p, r->args[i]);
		*head = (uint8_t)call;
		return (size_t)(p - dst);
	}
	if (f & MT_FIELD_IN && !(r->flags & MT_RF_NULL_IN))
		mt_pack_ptr(&k, s, r->ptr_in);
	if (f & MT_FIELD_ALIGN)
		mt_pack(&k, r->align, MT_W_NUM);
	if (f & MT_FIELD_NMEMB)
		mt_pack(&k, r->nmemb, MT_W_NUM);
	if (f & MT_FIELD_SIZE)
		mt_pack(&k, r->size, MT_W_NUM);
	if (f & MT_FIELD_OUT) {
		if (!(r->flags & MT_RF_NULL_OUT)) {
			mt_pack_ptr(&k, s, r->ptr_out);
			mt_pack_small(&k, mt_zigzag((int64_t)(r->usable - mt_rec_requested(r))),
				      MT_W_SLACK);
		} else if (f & MT_FIELD_RC) {
			mt_pack(&k, r->rc, MT_W_NUM);
		}
		if (stacks) {
			mt_pack(&k, mt_zigzag((int64_t)(r->stack - s->last_stack)), MT_W_NUM);
			s->last_stack = r->stack;
		}
	}
	mt_pack_tag(dst, &k, tag_bytes);
	*head = (uint8_t)(call | (r->flags & ~bit) | (stamp ? bit : 0));
	return (size_t)(k.p - dst);
}

/* A stamp record of ts at dst+1; its head byte MT_HEAD_STAMP goes to dst
 * last, as a record's.  Returns its length. */
static inline size_t mt_stamp_encode(uint8_t *dst, struct mt_codec_state *s, uint64_t ts)
{
	struct mt_packer k = { dst + 2, 0, 0 };
	mt_pack_small(&k, ts - s->last_ts, MT_W_NUM);
	mt_pack_tag(dst, &k, 1);
	s->last_ts = ts;
	return (size_t)(k.p - dst);
}

/*
 * Encodes r, with r->ts as its time when `stamp` (in the head's bit, or by
 * a stamp record before it for the calls without one); without, the record
 * carries the window's last stamp.  `stacks` is s->stacks, read by the
 * caller: once, as the encoder's stores may alias *s as far as the
 * compiler knows, or a constant where the caller knows it (the recorder's
 * fast path, which takes no allocating call with stacks), so that the
 * stack field's code goes.  Returns the bytes written; *first is
 * the first byte, NOT stored, to be stored last as mt_rec_encode_body's
 * head.  dst must have MT_RECORD_MAX bytes.  A time before the window's
 * last stamp wraps around in the delta and back in the decoder.
 */
static inline __attribute__((always_inline)) size_t mt_rec_encode(uint8_t *dst,
								    struct mt_codec_state *s,
								    const struct mt_rec *r, int stamp,
								    int stacks, uint8_t *first)
{
	uint8_t *rec = dst;
	int in_head = stamp && mt_stamp_bit(r->call);
	if (stamp && !in_head)
		rec += mt_stamp_encode(dst, s, r->ts);
	size_t n = mt_rec_encode_body(rec, s, r, in_head, stacks, first);
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

/* The tag of a version 4 record whose head holds `call` (or is a stamp
 * record's); nothing in versions 1 to 3 (`varints`, the state's, a
 * constant where the caller has tested it once for the record).  Wide as
 * for mt_rec_varint: a tag is 2 bytes at most, read with one load and
 * masked to its length. */
static inline __attribute__((always_inline)) int mt_rec_tag(const uint8_t **pp,
							      const uint8_t *end,
							      const struct mt_codec_state *s,
							      unsigned call, uint64_t *tag, int wide,
							      int varints)
{
	*tag = 0;
	if (varints)
		return 0;
	unsigned n = s->tag_bytes[call];
	if (wide) {
		*tag = ((*pp)[0] | (unsigned)(*pp)[1] << 8) & s->tag_mask[call];
	} else {
		if ((size_t)(end - *pp) < n)
			return -1;
		for (unsigned i = 0; i < n; i++)
			*tag |= (uint64_t)(*pp)[i] << 8 * i;
	}
	*pp += n;
	return 0;
}

/* The bits of a packed field of n bytes (1 to 8) in an 8-byte load: a
 * table, as the shifts that make it cost 4 more instructions a field. */
static const uint64_t mt_pack_mask[9] = {
	0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xffffffffffull, 0xffffffffffffull,
	0xffffffffffffffull, ~0ull,
};

/* A record's next field: a varint (versions 1 to 3) or the packed field
 * the tag's next code gives the length of (version 4), wide and varints
 * as for mt_rec_tag. */
static inline __attribute__((always_inline)) int mt_rec_field(const uint8_t **pp,
								const uint8_t *end,
								uint64_t *tag, unsigned width,
								uint64_t *out, int wide, int varints)
{
	if (varints)
		return mt_rec_varint(pp, end, out, wide);
	const uint8_t *p = *pp;
	unsigned n = mt_pack_len((unsigned)(*tag & ((1u << width) - 1)), width);
	*tag >>= width;
	if (wide) {
		*out = mt_get_le64(p) & mt_pack_mask[n];
	} else {
		if ((size_t)(end - p) < n)
			return -1;
		uint64_t v = 0;
		for (unsigned i = n; i-- > 0;)
			v = v << 8 | p[i];
		*out = v;
	}
	*pp = p + n;
	return 0;
}

/* A packed field of n bytes at *pp, read wide (MT_REC_WIDE bytes left). */
static inline __attribute__((always_inline)) uint64_t mt_rec_packed(const uint8_t **pp, unsigned n)
{
	uint64_t v = mt_get_le64(*pp) & mt_pack_mask[n];
	*pp += n;
	return v;
}

/* The heads of a malloc and a free, stamped or not, that have their
 * pointer, less the chunk's flags (perl's threads set NON_MAIN): most
 * records of every trace of the corpus, unstamped where the recorder's
 * stamps are sparse (one in 16 while one thread records, and in regions a
 * thread has to itself), stamped where they are not. */
#define MT_HEAD_MALLOC MT_CALL_MALLOC
#define MT_HEAD_MALLOC_STAMPED (MT_CALL_MALLOC | MT_RF_NULL_IN)
#define MT_HEAD_FREE MT_CALL_FREE
#define MT_HEAD_FREE_STAMPED (MT_CALL_FREE | MT_RF_NULL_OUT)
#define MT_HEAD_CHUNK_FLAGS (MT_RF_MMAPPED | MT_RF_NON_MAIN)

/* The flags, and the fields mt_rec_decode_body leaves 0 (all but call
 * and ts) where lean does not leave them as they were; q is the record's
 * end. */
static inline __attribute__((always_inline)) int mt_rec_decoded_common(const uint8_t *p,
									 const uint8_t *q,
									 struct mt_codec_state *s,
									 struct mt_rec *r, size_t *len,
									 unsigned flags, int stamped,
									 int lean)
{
	r->flags = (uint8_t)flags;
	r->nmemb = r->align = 0;
	if (!lean) {
		r->stamped = (uint8_t)stamped;
		r->rc = r->event = r->nargs = 0;
		r->stack = 0;
		r->args[0] = r->args[1] = r->args[2] = r->args[3] = 0;
	}
	s->last_ts = r->ts;
	*len = (size_t)(q - p);
	return MT_DEC_OK;
}

/* A pointer of the fixed layouts below: packed by its length code, as the
 * zigzagged distance from the thread's last pointer, which it becomes. */
static inline __attribute__((always_inline)) uint64_t mt_rec_packed_ptr(const uint8_t **q,
									  unsigned code,
									  struct mt_codec_state *s)
{
	uint64_t v = mt_rec_packed(q, mt_pack_len(code, MT_W_PTR));
	s->last_ptr += (uint64_t)mt_unzigzag(v);
	return s->last_ptr;
}

/* The time of a fixed layout's record: the delta in the tag's first code
 * where `stamped` (a constant), which then leaves the tag; else the
 * window's last stamp. */
static inline __attribute__((always_inline)) uint64_t mt_rec_fixed_ts(const uint8_t **q,
									unsigned *tag,
									const struct mt_codec_state *s,
									int stamped)
{
	if (!stamped)
		return s->last_ts;
	uint64_t ts = s->last_ts + mt_rec_packed(q, mt_pack_len(*tag & 3, MT_W_NUM));
	*tag >>= MT_W_NUM;
	return ts;
}

/* A malloc or free of a version 4 trace without stacks, with its pointer,
 * stamped or not (a constant), read wide by its own layout: a tag of one
 * byte whose codes are at fixed bits ([time,] size, out, slack; [time,]
 * in), so no lookup of the call's fields, stamp bit or tag, and no tests
 * of fields it cannot have (docs/BENCHMARKS.md, issue #11's eighth round;
 * the unstamped ones since stamps went sparse).  p is the record, q its
 * tag, flags the head's chunk flags. */
static inline __attribute__((always_inline)) int mt_rec_decode_malloc(const uint8_t *p,
									const uint8_t *q,
									struct mt_codec_state *s,
									struct mt_rec *r, size_t *len,
									unsigned flags, int stamped,
									int lean)
{
	unsigned tag = *q++;
	r->ts = mt_rec_fixed_ts(&q, &tag, s, stamped);
	r->size = mt_rec_packed(&q, mt_pack_len(tag & 3, MT_W_NUM));
	r->ptr_out = mt_rec_packed_ptr(&q, tag >> 2 & 7, s);
	uint64_t slack = mt_rec_packed(&q, mt_pack_len(tag >> 5 & 1, MT_W_SLACK));
	if (!r->ptr_out)
		return MT_DEC_CORRUPT;
	r->call = MT_CALL_MALLOC;
	r->ptr_in = 0;
	if (!lean)
		r->usable = r->size + (uint64_t)mt_unzigzag(slack);
	return mt_rec_decoded_common(p, q, s, r, len, flags, stamped, lean);
}

static inline __attribute__((always_inline)) int mt_rec_decode_free(const uint8_t *p,
								      const uint8_t *q,
								      struct mt_codec_state *s,
								      struct mt_rec *r, size_t *len,
								      unsigned flags, int stamped,
								      int lean)
{
	unsigned tag = *q++;
	r->ts = mt_rec_fixed_ts(&q, &tag, s, stamped);
	r->ptr_in = mt_rec_packed_ptr(&q, tag & 7, s);
	if (!r->ptr_in)
		return MT_DEC_CORRUPT;
	r->call = MT_CALL_FREE;
	r->ptr_out = r->size = 0;
	if (!lean)
		r->usable = 0;
	return mt_rec_decoded_common(p, q, s, r, len, flags, stamped, lean);
}

/* mt_rec_decode's body, once for each reader (wide a constant, and
 * varints, s->varints, one where the reader has tested it).  With `lean`
 * (a constant: mt_trace_cursor_next_lean) only the fields a converter
 * reads are set: call, flags, ts, the pointers, size, nmemb, align, and
 * an event's kind and arguments; rc, usable, stack and stamped are left
 * as they were (their stores and the usable size's sum cost 10
 * instructions a record). */
static inline __attribute__((always_inline)) int mt_rec_decode_body(const uint8_t *p,
								      const uint8_t *end,
								      struct mt_codec_state *s,
								      struct mt_rec *r, size_t *len,
								      int wide, int varints, int lean)
{
	const uint8_t *q = p;
	uint64_t v, tag = 0;

	unsigned head = *q++, f;
	if (wide && !varints && !s->stacks) {
		unsigned layout = head & ~MT_HEAD_CHUNK_FLAGS, flags = head & MT_HEAD_CHUNK_FLAGS;
		if (layout == MT_HEAD_MALLOC)
			return mt_rec_decode_malloc(p, q, s, r, len, flags, 0, lean);
		if (layout == MT_HEAD_FREE)
			return mt_rec_decode_free(p, q, s, r, len, flags, 0, lean);
		if (layout == MT_HEAD_MALLOC_STAMPED)
			return mt_rec_decode_malloc(p, q, s, r, len, flags, 1, lean);
		if (layout == MT_HEAD_FREE_STAMPED)
			return mt_rec_decode_free(p, q, s, r, len, flags, 1, lean);
	}
	/* Field by field: a compound literal is zeroed with rep stos, whose start
	 * costs more than the whole record.  The call's fields and stamp bit
	 * are looked up once, from the head that holds the call. */
	if (!lean)
		r->stamped = 1;
	if (varints && s->ts_each) {
		if (mt_rec_varint(&q, end, &v, wide))
			return MT_DEC_CORRUPT;
		r->ts = s->last_ts + v;
		f = mt_call_field_set(head & 0x0f);
	} else if (head == MT_HEAD_STAMP) {
		/* The record after a stamp was stored before the stamp's byte. */
		if (mt_rec_tag(&q, end, s, MT_HEAD_STAMP, &tag, wide, varints) ||
		    mt_rec_field(&q, end, &tag, MT_W_NUM, &v, wide, varints) || q >= end || *q == 0 ||
		    *q == MT_HEAD_STAMP)
			return MT_DEC_CORRUPT;
		r->ts = s->last_ts + v;
		head = *q++;
		f = mt_call_field_set(head & 0x0f);
		if (head & s->stamp_bit[head & 0x0f] ||
		    mt_rec_tag(&q, end, s, head & 0x0f, &tag, wide, varints))
			return MT_DEC_CORRUPT;
	} else {
		f = mt_call_field_set(head & 0x0f);
		unsigned bit = s->stamp_bit[head & 0x0f];
		if (mt_rec_tag(&q, end, s, head & 0x0f, &tag, wide, varints))
			return MT_DEC_CORRUPT;
		if (head & bit) {
			if (mt_rec_field(&q, end, &tag, MT_W_NUM, &v, wide, varints))
				return MT_DEC_CORRUPT;
			r->ts = s->last_ts + v;
			head &= ~bit;
		} else {
			r->ts = s->last_ts;
			if (!lean)
				r->stamped = 0;
		}
	}
	r->call = (uint8_t)(head & 0x0f);
	r->flags = (uint8_t)(head & 0xf0);
	r->ptr_in = r->ptr_out = r->size = r->nmemb = r->align = 0;
	if (!lean) {
		r->rc = r->event = r->nargs = 0;
		r->usable = r->stack = 0;
		r->args[0] = r->args[1] = r->args[2] = r->args[3] = 0;
	}
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
		if (mt_rec_field(&q, end, &tag, MT_W_PTR, &v, wide, varints))
			return MT_DEC_CORRUPT;
		r->ptr_in = s->last_ptr + (uint64_t)mt_unzigzag(v);
		s->last_ptr = r->ptr_in;
		if (!r->ptr_in) /* NULL is said by the flag, never by the value */
			return MT_DEC_CORRUPT;
	}
	if ((f & MT_FIELD_ALIGN && mt_rec_field(&q, end, &tag, MT_W_NUM, &r->align, wide, varints)) ||
	    (f & MT_FIELD_NMEMB && mt_rec_field(&q, end, &tag, MT_W_NUM, &r->nmemb, wide, varints)) ||
	    (f & MT_FIELD_SIZE && mt_rec_field(&q, end, &tag, MT_W_NUM, &r->size, wide, varints)))
		return MT_DEC_CORRUPT;
	if (f & MT_FIELD_OUT) {
		if (!(head & MT_RF_NULL_OUT)) {
			if (mt_rec_field(&q, end, &tag, MT_W_PTR, &v, wide, varints))
				return MT_DEC_CORRUPT;
			r->ptr_out = s->last_ptr + (uint64_t)mt_unzigzag(v);
			s->last_ptr = r->ptr_out;
			if (!r->ptr_out || mt_rec_field(&q, end, &tag, MT_W_SLACK, &v, wide, varints))
				return MT_DEC_CORRUPT;
			if (!lean)
				r->usable = (f & MT_FIELD_NMEMB ? r->nmemb * r->size : r->size) +
					    (uint64_t)mt_unzigzag(v);
		} else if (f & MT_FIELD_RC) {
			if (mt_rec_field(&q, end, &tag, MT_W_NUM, &v, wide, varints) || v > UINT32_MAX)
				return MT_DEC_CORRUPT;
			r->rc = (uint32_t)v;
		}
		if (s->stacks) {
			if (mt_rec_field(&q, end, &tag, MT_W_NUM, &v, wide, varints))
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
	return mt_rec_decode_body(p, end, s, r, len, 0, s->varints, 0);
}

/* A record of versions 1 to 3 (varints), out of line too: the fields of
 * version 4, inline, then need no test of the version each. */
static __attribute__((noinline)) int mt_rec_decode_varints(const uint8_t *p, const uint8_t *end,
							   struct mt_codec_state *s,
							   struct mt_rec *r, size_t *len)
{
	return mt_rec_decode_body(p, end, s, r, len, 1, 1, 0);
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
 * record of malloc, free or realloc (a cursor's records of version 4 skip
 * this function's tests: mt_trace_cursor_next).
 */
static inline __attribute__((always_inline)) int mt_rec_decode(const uint8_t *p, const uint8_t *end,
								 struct mt_codec_state *s,
								 struct mt_rec *r, size_t *len)
{
	if (p >= end || *p == 0)
		return MT_DEC_END;
	if (end - p < MT_REC_WIDE)
		return mt_rec_decode_near_end(p, end, s, r, len);
	if (s->varints)
		return mt_rec_decode_varints(p, end, s, r, len);
	return mt_rec_decode_body(p, end, s, r, len, 1, 0, 0);
}

#endif
