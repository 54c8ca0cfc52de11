/*
 * fmt_gen.h - records with known contents for the format tests.
 *
 * The round-trip tests need a stream of records that exercises every call
 * type and flag, with deltas both small and huge, and that the test can
 * regenerate to compare against what the reader returns.  fmt_rec_canon()
 * states which fields each call carries: the reader must return exactly
 * those and zero elsewhere.
 */
#ifndef MT_FMT_GEN_H
#define MT_FMT_GEN_H

#include <stdint.h>
#include <stdio.h>

#include "trace_codec.h"

/* Zeroes what the call type does not carry, as the decoder does. */
static inline void fmt_rec_canon(struct mt_rec *r)
{
	unsigned c = r->call;
	if (c == MT_CALL_EVENT) {
		*r = (struct mt_rec){ .call = c, .ts = r->ts, .event = r->event, .nargs = r->nargs,
				      .args = { r->args[0], r->args[1], r->args[2], r->args[3] } };
		for (uint32_t i = r->nargs; i < MT_EVENT_ARGS_MAX; i++)
			r->args[i] = 0;
		return;
	}
	r->event = r->nargs = 0;
	if (!mt_call_allocates(c))
		r->stack = 0; /* only allocating calls carry one */
	for (int i = 0; i < MT_EVENT_ARGS_MAX; i++)
		r->args[i] = 0;
	/* A pointer of 0 is NULL, which only its flag says: 0 without it is
	 * no record. */
	if (mt_call_has_in(c) && !r->ptr_in)
		r->flags |= MT_RF_NULL_IN;
	if (mt_call_allocates(c) && !r->ptr_out)
		r->flags |= MT_RF_NULL_OUT;
	/* The NULL flag of a pointer the call does not have is its stamp bit
	 * in version 3 (mt_stamp_bit), no flag. */
	if (!mt_call_has_in(c))
		r->flags &= (uint8_t)~MT_RF_NULL_IN;
	if (!mt_call_allocates(c))
		r->flags &= (uint8_t)~MT_RF_NULL_OUT;
	if (!mt_call_has_in(c) || r->flags & MT_RF_NULL_IN)
		r->ptr_in = 0;
	if (!mt_call_has_align(c))
		r->align = 0;
	if (!mt_call_has_nmemb(c))
		r->nmemb = 0;
	if (c == MT_CALL_FREE)
		r->size = 0;
	if (!mt_call_allocates(c) || r->flags & MT_RF_NULL_OUT)
		r->ptr_out = r->usable = 0;
	if (c != MT_CALL_POSIX_MEMALIGN || !(r->flags & MT_RF_NULL_OUT))
		r->rc = 0;
}

static inline int fmt_rec_equal(const struct mt_rec *a, const struct mt_rec *b)
{
	for (int i = 0; i < MT_EVENT_ARGS_MAX; i++)
		if (a->args[i] != b->args[i])
			return 0;
	return a->call == b->call && a->flags == b->flags && a->rc == b->rc && a->ts == b->ts &&
	       a->ptr_in == b->ptr_in && a->ptr_out == b->ptr_out && a->size == b->size &&
	       a->nmemb == b->nmemb && a->align == b->align && a->usable == b->usable &&
	       a->event == b->event && a->nargs == b->nargs && a->stack == b->stack;
}

static inline void fmt_rec_print(FILE *out, const char *what, const struct mt_rec *r)
{
	fprintf(out, "%s: call %u flags %#x rc %u ts %llu in %#llx out %#llx size %llu nmemb %llu "
		     "align %llu usable %llu event %u nargs %u stack %llu\n",
		what, r->call, r->flags, r->rc, (unsigned long long)r->ts,
		(unsigned long long)r->ptr_in, (unsigned long long)r->ptr_out,
		(unsigned long long)r->size, (unsigned long long)r->nmemb,
		(unsigned long long)r->align, (unsigned long long)r->usable, r->event, r->nargs,
		(unsigned long long)r->stack);
}

/* A cheap deterministic mix, so records differ without a random source. */
static inline uint64_t fmt_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

#define FMT_START_TS 1000000u

/*
 * Record i of generated thread k: every call type and flag in turn, mostly
 * heap-like pointers and small sizes, now and then extremes.  Timestamps rise
 * within a thread and tie across threads every fourth record, so merge order
 * on ties is tested too.
 */
static inline void fmt_gen_rec(struct mt_rec *r, unsigned k, uint64_t i)
{
	uint64_t h = fmt_mix(i * 131 + k);
	int extreme = h % 29 == 0;
	*r = (struct mt_rec){
		.call = (uint8_t)(1 + (i + k) % (MT_CALL_COUNT - 1)),
		.flags = (uint8_t)((h >> 8) & 0xf0),
		.rc = 12,
		.ts = FMT_START_TS + i * 8 + (i % 4 ? k % 8 : 0),
		.ptr_in = 0x55d0c0a2a000ull + (h >> 20) % 4096 * 16,
		.ptr_out = extreme ? UINT64_MAX - h % 64 : 0x55d0c0a2a000ull + (h >> 32) % 4096 * 16,
		.size = extreme ? UINT64_MAX >> (h % 3) : (h >> 40) % 2000,
		.nmemb = 1 + (h >> 12) % 8,
		.align = (uint64_t)16 << (h % 6),
		.event = 1 + (uint32_t)(h % MT_EV_DYN_THRESHOLDS),
		.nargs = (uint32_t)(h >> 50) % (MT_EVENT_ARGS_MAX + 1),
		.args = { h, h >> 7, 1, 0 },
	};
	r->usable = mt_rec_requested(r) + (h >> 4) % 24;
	fmt_rec_canon(r);
}

#endif
