/*
 * fmt_codec.c - the record codec and varints, exhaustively over call types,
 * flags and extreme values.
 *
 * Everything else trusts that decode(encode(r)) == r and that a record cut
 * short never decodes as some other call (a torn record must be seen as
 * torn), so both are checked for every call type, every flag combination
 * and values at the edges of every field.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fmt_gen.h"

static const uint64_t edges[] = {
	0, 1, 63, 64, 127, 128, 16383, 16384, UINT32_MAX, (uint64_t)UINT32_MAX + 1,
	0x7fffdeadbeefull, INT64_MAX, (uint64_t)INT64_MAX + 1, UINT64_MAX - 1, UINT64_MAX,
};
#define NEDGES (sizeof edges / sizeof edges[0])

/* The wide reader, and the plain one with bytes to spare after the varint
 * (its long path then loads eight at once), read x back, for every length. */
static void check_wide(uint64_t x)
{
	uint8_t buf[MT_VARINT_MAX + MT_VARINT_WIDE];
	memset(buf, 0xff, sizeof buf); /* what follows a varint must not matter */
	size_t n = mt_varint_put(buf, x);
	const uint8_t *p = buf;
	uint64_t v;
	CHECK(mt_varint_get_wide(&p, buf + sizeof buf, &v) == 0 && v == x && p == buf + n,
	      "wide varint round trip of %llu", (unsigned long long)x);
	p = buf;
	CHECK(mt_varint_get(&p, buf + sizeof buf, &v) == 0 && v == x && p == buf + n,
	      "varint round trip of %llu with bytes after it", (unsigned long long)x);
}

static void test_varints(void)
{
	uint8_t buf[MT_VARINT_MAX + MT_VARINT_WIDE];
	for (size_t i = 0; i < NEDGES; i++) {
		for (int neg = 0; neg < 2; neg++) {
			/* Negated as unsigned: -(int64_t) of 2^63 would overflow. */
			int64_t s = (int64_t)(neg ? 0 - edges[i] : edges[i]);
			CHECK(mt_unzigzag(mt_zigzag(s)) == s, "zigzag %lld", (long long)s);
		}
		size_t n = mt_varint_put(buf, edges[i]);
		const uint8_t *p = buf;
		uint64_t v;
		CHECK(n >= 1 && n <= MT_VARINT_MAX, "varint length %zu", n);
		CHECK(mt_varint_get(&p, buf + n, &v) == 0 && v == edges[i] && p == buf + n,
		      "varint round trip of %llu", (unsigned long long)edges[i]);
		p = buf;
		CHECK(n == 1 || mt_varint_get(&p, buf + n - 1, &v) == -1, "cut varint accepted");
		check_wide(edges[i]);
	}
	for (unsigned bits = 1; bits < 64; bits++) { /* both sides of each length */
		check_wide((1ull << bits) - 1);
		check_wide(1ull << bits);
	}
	memset(buf, 0x80, sizeof buf); /* never terminates within 10 bytes */
	const uint8_t *p = buf;
	uint64_t v;
	CHECK(mt_varint_get(&p, buf + sizeof buf, &v) == -1, "overlong varint accepted");
	p = buf;
	CHECK(mt_varint_get_wide(&p, buf + sizeof buf, &v) == -1, "overlong wide varint accepted");
}

/* Encodes r (already canonical) after prev, decodes it, compares; with
 * stacks, as in a trace whose allocating records carry a stack number. */
static void round_trip(const struct mt_rec *prev, const struct mt_rec *r, int stacks)
{
	uint8_t buf[MT_RECORD_MAX + MT_REC_WIDE];
	struct mt_codec_state enc, dec;
	struct mt_rec out;
	uint8_t head;
	size_t len, got;

	mt_codec_init(&enc, 5, stacks);
	mt_codec_init(&dec, 5, stacks);
	size_t plen = mt_rec_encode(buf, &enc, prev, prev->ts != enc.last_ts, enc.stacks, &head);
	buf[0] = head;
	CHECK(mt_rec_decode(buf, buf + plen, &dec, &out, &got) == MT_DEC_OK && got == plen,
	      "previous record did not decode");

	memset(buf, 0xee, sizeof buf);
	struct mt_codec_state before = dec;
	len = mt_rec_encode(buf, &enc, r, r->ts != enc.last_ts, enc.stacks, &head);
	CHECK(len <= MT_RECORD_MAX, "call %u: %zu bytes > MT_RECORD_MAX", r->call, len);
	CHECK(head == MT_HEAD_STAMP || (head != 0 && (head & 0x0f) == r->call),
	      "call %u: head byte %#x", r->call, head);

	buf[0] = 0; /* not yet published: invisible */
	CHECK(mt_rec_decode(buf, buf + len, &dec, &out, &got) == MT_DEC_END,
	      "unpublished record visible");
	buf[0] = head;
	for (size_t cut = 1; cut < len; cut++) {
		struct mt_codec_state s = before;
		CHECK(mt_rec_decode(buf, buf + cut, &s, &out, &got) == MT_DEC_CORRUPT,
		      "call %u cut at %zu of %zu bytes decoded", r->call, cut, len);
	}
	dec = before;
	int rc = mt_rec_decode(buf, buf + len, &dec, &out, &got);
	CHECK(rc == MT_DEC_OK && got == len, "call %u: decode rc %d, %zu of %zu bytes", r->call, rc,
	      got, len);
	if (!fmt_rec_equal(&out, r)) {
		fmt_rec_print(stderr, "wrote", r);
		fmt_rec_print(stderr, "read ", &out);
		CHECK(0, "call %u flags %#x: round trip differs", r->call, r->flags);
	}
	CHECK(dec.last_ts == enc.last_ts && dec.last_ptr == enc.last_ptr &&
	      dec.last_stack == enc.last_stack, "delta state diverged");
	/* Far from the end, as most of a window's records are: the wide path. */
	dec = before;
	rc = mt_rec_decode(buf, buf + sizeof buf, &dec, &out, &got);
	CHECK(rc == MT_DEC_OK && got == len && fmt_rec_equal(&out, r),
	      "call %u flags %#x: wide decode differs", r->call, r->flags);
}

/* Every call x every flag combination x edge values in every field, in a
 * trace without stacks and in one with. */
static void test_records(int stacks)
{
	struct mt_rec prev = { .call = MT_CALL_MALLOC, .ts = 77, .size = 8,
			       .ptr_out = 0x55d0c0a2a2a0ull, .usable = 24, .stack = stacks ? 9 : 0 };
	unsigned n = 0;
	for (unsigned call = 1; call < MT_CALL_COUNT; call++)
		for (unsigned flags = 0; flags < 0x100; flags += 0x10)
			for (size_t i = 0; i < NEDGES; i++) {
				uint64_t v = edges[i], w = edges[(i + 5) % NEDGES];
				struct mt_rec r = {
					.call = (uint8_t)call, .flags = (uint8_t)flags,
					.rc = (uint32_t)v, .ts = w, .ptr_in = v, .ptr_out = w,
					.size = v, .nmemb = w, .align = v, .usable = w,
					.event = (uint32_t)v, .nargs = (uint32_t)(i % 5),
					.args = { v, w, UINT64_MAX, 0 },
					.stack = stacks ? v : 0,
				};
				fmt_rec_canon(&r);
				round_trip(&prev, &r, stacks);
				n++;
			}
	printf("%u record round trips %s stacks\n", n, stacks ? "with" : "without");
}

/* A long chain in one buffer, as a window holds it. */
static void test_chain(void)
{
	enum { N = 20000 };
	static uint8_t buf[N * MT_RECORD_MAX];
	struct mt_codec_state enc, dec;
	struct mt_rec r, out;
	uint8_t *p = buf, head;
	size_t len;

	mt_codec_init(&enc, FMT_START_TS, 0);
	for (uint64_t i = 0; i < N; i++) {
		fmt_gen_rec(&r, 3, i);
		len = mt_rec_encode(p, &enc, &r, r.ts != enc.last_ts, enc.stacks, &head);
		p[0] = head;
		p += len;
	}
	const uint8_t *q = buf;
	mt_codec_init(&dec, FMT_START_TS, 0);
	for (uint64_t i = 0; i < N; i++) {
		fmt_gen_rec(&r, 3, i);
		int rc = mt_rec_decode(q, p, &dec, &out, &len);
		CHECK(rc == MT_DEC_OK && fmt_rec_equal(&r, &out), "chain record %llu", (unsigned long long)i);
		q += len;
	}
	CHECK(q == p && mt_rec_decode(q, p, &dec, &out, &len) == MT_DEC_END, "chain end");
	printf("chain of %d records: %.2f bytes per record\n", N, (double)(p - buf) / N);
}

/* Records stamped one in four, the others carrying the stamp's time, as
 * the recorder writes them by default: each reads back with the time of
 * the last stamp and says whether it was stamped. */
static void test_carried(void)
{
	uint8_t buf[64 * MT_RECORD_MAX], *p = buf, head;
	struct mt_codec_state enc, dec;
	struct mt_rec r, out;
	size_t len;
	uint64_t stamp = FMT_START_TS;

	mt_codec_init(&enc, FMT_START_TS, 0);
	for (uint64_t i = 0; i < 64; i++) {
		fmt_gen_rec(&r, 3, i);
		if (i % 4 == 1)
			stamp = r.ts;
		r.ts = stamp;
		int moved = r.ts != enc.last_ts;
		len = mt_rec_encode(p, &enc, &r, moved, enc.stacks, &head);
		CHECK(moved == (head == MT_HEAD_STAMP || (head & mt_stamp_bit(r.call)) != 0),
		      "record %llu stamped", (unsigned long long)i);
		p[0] = head;
		p += len;
	}
	const uint8_t *q = buf;
	mt_codec_init(&dec, FMT_START_TS, 0);
	stamp = FMT_START_TS;
	for (uint64_t i = 0; i < 64; i++) {
		fmt_gen_rec(&r, 3, i);
		int stamped = i % 4 == 1; /* times only grow */
		if (i % 4 == 1)
			stamp = r.ts;
		r.ts = stamp;
		CHECK(mt_rec_decode(q, p, &dec, &out, &len) == MT_DEC_OK && fmt_rec_equal(&r, &out) &&
		      out.stamped == stamped, "carried record %llu", (unsigned long long)i);
		q += len;
	}
	CHECK(q == p, "carried chain length");
}

static void test_invalid(void)
{
	struct mt_codec_state s;
	struct mt_rec r;
	size_t len;
	const uint8_t bad_call[] = { 0x0f, 0, 0, 0 };
	const uint8_t event_flags[] = { MT_CALL_EVENT | MT_RF_MMAPPED, 1, 0, 0 };
	const uint8_t event_nargs[] = { MT_CALL_EVENT, 1, MT_EVENT_ARGS_MAX + 1, 0, 0, 0, 0, 0, 0 };
	const uint8_t stamp_twice[] = { MT_HEAD_STAMP, 3, MT_HEAD_STAMP, 3, MT_CALL_FREE, 2 };
	const uint8_t stamp_alone[] = { MT_HEAD_STAMP, 3, 0, 0 };
	const uint8_t stamp_and_bit[] = { MT_HEAD_STAMP, 3, MT_CALL_FREE | MT_RF_NULL_OUT, 3, 2 };
	mt_codec_init(&s, 0, 0);
	CHECK(mt_rec_decode(bad_call, bad_call + 4, &s, &r, &len) == MT_DEC_CORRUPT, "call 15");
	CHECK(mt_rec_decode(event_flags, event_flags + 4, &s, &r, &len) == MT_DEC_CORRUPT,
	      "event with flags");
	CHECK(mt_rec_decode(event_nargs, event_nargs + 9, &s, &r, &len) == MT_DEC_CORRUPT,
	      "event with 5 args");
	CHECK(mt_rec_decode(stamp_twice, stamp_twice + 6, &s, &r, &len) == MT_DEC_CORRUPT,
	      "two stamps in a row");
	CHECK(mt_rec_decode(stamp_alone, stamp_alone + 4, &s, &r, &len) == MT_DEC_CORRUPT,
	      "a stamp without its record");
	CHECK(mt_rec_decode(stamp_and_bit, stamp_and_bit + 5, &s, &r, &len) == MT_DEC_CORRUPT,
	      "a stamp record before a record with its stamp bit");
}

/* Version 2 records, each with its time delta first, still read. */
static void test_version2(void)
{
	const uint8_t v2[] = { MT_CALL_MALLOC, 5, 24, 0x80, 0x02, 0, MT_CALL_FREE, 7, 0 };
	const uint8_t v2_stamp_head[] = { MT_HEAD_STAMP, 1, MT_CALL_FREE, 7, 0 };
	struct mt_codec_state s;
	struct mt_rec r;
	size_t len;
	mt_codec_init(&s, 100, MT_CODEC_TS_EACH);
	CHECK(mt_rec_decode(v2, v2 + sizeof v2, &s, &r, &len) == MT_DEC_OK && len == 6 &&
	      r.call == MT_CALL_MALLOC && r.ts == 105 && r.size == 24 && r.ptr_out == 128 &&
	      r.usable == 24 && r.stamped, "version 2 malloc");
	CHECK(mt_rec_decode(v2 + 6, v2 + sizeof v2, &s, &r, &len) == MT_DEC_OK && len == 3 &&
	      r.call == MT_CALL_FREE && r.ts == 112 && r.ptr_in == 128, "version 2 free");
	mt_codec_init(&s, 100, MT_CODEC_TS_EACH);
	CHECK(mt_rec_decode(v2_stamp_head, v2_stamp_head + 5, &s, &r, &len) == MT_DEC_CORRUPT,
	      "a stamp in a version 2 trace");
}

int main(void)
{
	test_varints();
	test_records(0);
	test_records(1);
	test_chain();
	test_carried();
	test_invalid();
	test_version2();
	return check_result();
}
