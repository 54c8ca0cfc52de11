/*
 * varint.h - LEB128 varints and zigzag mapping, shared by every format.
 *
 * Both the trace (written on the recorder's hot path) and the workload use
 * the same integer coding, so it lives here once.  Everything is inline and
 * allocation-free: the recorder includes this file and must never call malloc.
 *
 * Coding: unsigned LEB128, 7 bits per byte, least significant group first,
 * high bit set on every byte but the last.  A 64-bit value takes 1..10 bytes.
 * Signed values go through zigzag first (0,-1,1,-2.. -> 0,1,2,3..) so that
 * small deltas of either sign stay short.
 */
#ifndef MT_VARINT_H
#define MT_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define MT_VARINT_MAX 10 /* bytes for a 64-bit value */

static inline uint64_t mt_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline __attribute__((always_inline)) int64_t mt_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Writes v at p; returns the number of bytes written (1..10). */
static inline size_t mt_varint_put(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* Little-endian fixed-width helpers for headers (formats are little-endian). */
static inline void mt_put_le16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void mt_put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}
static inline void mt_put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint16_t mt_get_le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t mt_get_le32(const uint8_t *p)
{
	uint32_t v = 0;
	for (int i = 3; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}
/* Also the wide varint readers' load, so spelt out: gcc merges these eight
 * byte loads into one mov on x86-64, but not a loop's. */
static inline __attribute__((always_inline)) uint64_t mt_get_le64(const uint8_t *p)
{
	return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
	       (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
	       (uint64_t)p[7] << 56;
}

/* Bytes a caller of mt_varint_get_wide must have readable from *pp on. */
#define MT_VARINT_WIDE 8

/* The value of the varint whose first MT_VARINT_WIDE bytes w holds, loaded
 * little-endian, and whose stop bits stops marks (~w & 0x80 in each byte,
 * not all clear): the bytes up to the first stop bit, then pairs, quads
 * and octets of 7-bit groups joined, by three shift-and-mask steps. */
static inline __attribute__((always_inline)) uint64_t mt_varint_pack(uint64_t w, uint64_t stops)
{
	uint64_t x = w & (stops ^ (stops - 1)) & 0x7f7f7f7f7f7f7f7full;
	x = (x & 0x007f007f007f007full) | (x >> 1 & 0x3f803f803f803f80ull);
	x = (x & 0x00003fff00003fffull) | (x >> 2 & 0x0fffc0000fffc000ull);
	return (x & 0x000000000fffffffull) | (x >> 4 & 0x00fffffff0000000ull);
}

/*
 * mt_varint_get's long path: three bytes or more, or input that ends
 * inside the varint.  Most of these are a trace's pointer deltas: three to
 * five bytes between blocks of one heap, seven between heaps.
 * Where MT_VARINT_WIDE bytes are readable, one load and mt_varint_pack
 * read up to eight bytes without a branch per byte.  Nine and ten bytes,
 * and varints near end, go byte by byte, checked against end.
 */
static __attribute__((noinline)) int mt_varint_get_long(const uint8_t **pp, const uint8_t *end,
							 uint64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;
	if (end - p >= MT_VARINT_WIDE) {
		uint64_t w = mt_get_le64(p);
		uint64_t stops = ~w & 0x8080808080808080ull;
		if (stops) {
			*out = mt_varint_pack(w, stops);
			*pp = p + __builtin_ctzll(stops) / 8 + 1;
			return 0;
		}
	}
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (p >= end)
			return -1;
		uint8_t b = *p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*pp = p;
			*out = v;
			return 0;
		}
	}
	return -1;
}

/*
 * Reads a varint from [*pp, end).  Returns 0 and advances *pp on success,
 * -1 if the input ends inside the varint or it is longer than 10 bytes.
 * Most values of both formats (times, sizes, slack, object deltas) take one
 * or two bytes: those cost a compare or two here, inline, on the paths
 * that decode one record or op per call (trace2wl, trace_run).
 */
static inline __attribute__((always_inline)) int mt_varint_get(const uint8_t **pp,
								 const uint8_t *end, uint64_t *out)
{
	const uint8_t *p = *pp;
	if (p < end && *p < 0x80) {
		*out = *p;
		*pp = p + 1;
		return 0;
	}
	if (end - p >= 2 && p[1] < 0x80) {
		*out = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
		*pp = p + 2;
		return 0;
	}
	return mt_varint_get_long(pp, end, out);
}

/* A varint read by value: where it ends (NULL when the bytes are no
 * varint) and its value.  A reader whose position is passed by address
 * to a function that is not inlined keeps it in memory, loaded and stored
 * at every varint of its loop. */
struct mt_varint {
	const uint8_t *p;
	uint64_t v;
};

/* mt_varint_get_long by value, out of line. */
static __attribute__((noinline)) struct mt_varint mt_varint_long_at(const uint8_t *p,
								     const uint8_t *end)
{
	uint64_t v;
	if (mt_varint_get_long(&p, end, &v))
		return (struct mt_varint){ NULL, 0 };
	return (struct mt_varint){ p, v };
}

/*
 * The varint at p, for decoders that know MT_VARINT_WIDE bytes are
 * readable (a record far from its window's end): one 8-byte load, the stop
 * bit found by ctz and the groups packed by mt_varint_pack, with no test
 * per byte or against end - about 15 instructions and one branch for any
 * length up to 8 bytes, where mt_varint_get tests the first two bytes and
 * their bounds and calls its long path for longer ones (most pointer
 * deltas of a trace).  Nine and ten bytes go to the long path too.  One
 * and two bytes, tested first, take 4 and 7 instructions: most sizes and
 * most records' time deltas (hundreds to thousands of clock ticks) are
 * one or two bytes, and the test costs longer varints two instructions
 * (trace2wl on the quick corpus traces: 10-18 fewer a record).  By value,
 * so that a decoding loop keeps its position in a register.
 */
static inline __attribute__((always_inline)) struct mt_varint mt_varint_wide_at(const uint8_t *p,
										 const uint8_t *end)
{
	uint64_t w = mt_get_le64(p);
	if (!(w & 0x80))
		return (struct mt_varint){ p + 1, w & 0x7f };
	if (!(w & 0x8000))
		return (struct mt_varint){ p + 2, (w & 0x7f) | (w >> 1 & 0x3f80) };
	uint64_t stops = ~w & 0x8080808080808080ull;
	if (!stops)
		return mt_varint_long_at(p, end);
	return (struct mt_varint){ p + __builtin_ctzll(stops) / 8 + 1, mt_varint_pack(w, stops) };
}

/* mt_varint_get for decoders that know MT_VARINT_WIDE bytes are readable:
 * mt_varint_wide_at, with mt_varint_get's calling convention. */
static inline __attribute__((always_inline)) int mt_varint_get_wide(const uint8_t **pp,
								      const uint8_t *end, uint64_t *out)
{
	struct mt_varint f = mt_varint_wide_at(*pp, end);
	if (!f.p)
		return -1;
	*pp = f.p;
	*out = f.v;
	return 0;
}

#endif
