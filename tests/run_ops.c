/*
 * run_ops.c - the workload op decoder's fast path (mt_op_decode_common,
 * then mt_op_decode_more, lib/wl_format.h) against the general decoder,
 * which trace_run falls back to whenever the fast path declines.
 *
 * For every opcode and head-byte flag, with and without timing, in both
 * encodings of new objects (version 1, version 2's zigzag), values at
 * the varint length edges, followed by more bytes of either kind or cut
 * short, the fast path must either decode exactly what mt_op_decode does
 * (position, state, delta, object, nmemb, size), or decline and touch
 * nothing.  With MT_WL_OP_MAX bytes after the head byte it must decline
 * nothing it was made for: a flagless malloc or calloc, a flagless free of
 * an object other than 0, a free of NULL.
 */
#include <string.h>

#include "check.h"
#include "wl_format.h"

static const uint64_t values[] = { 0, 1, 127, 128, 16383, 16384, UINT32_MAX, UINT64_MAX };
#define NVALUES (sizeof values / sizeof values[0])

static unsigned cases, fast;
static int new_signed; /* the workload version's encoding of new objects */

/* Decodes [b, b + n) both ways, from state last_new. */
static void compare(const uint8_t *b, size_t n, uint64_t last_new, int timing)
{
	struct mt_op_state s1 = { last_new, new_signed }, s2 = { last_new, new_signed };
	const uint8_t *p1 = b, *p2 = b, *end = b + n;
	uint64_t delta = 7, obj = 7, nmemb = 7, size = 7;
	struct mt_op op;
	unsigned code = mt_op_decode_common(&p1, end, &s1, timing, &delta, &obj, &size);
	if (!code) {
		CHECK(p1 == b && s1.last_new == last_new, "head %#x, %zu bytes: declined, but moved",
		      b[0], n);
		code = mt_op_decode_more(&p1, end, &s1, timing, &delta, &obj, &nmemb, &size);
	} else {
		CHECK(code == MT_CALL_MALLOC || code == MT_CALL_FREE,
		      "head %#x: the first step decoded %u", b[0], code);
	}
	int rc = mt_op_decode(&p2, end, &s2, &op, timing);
	unsigned head = rc ? 0 : (unsigned)(op.code | op.flags);
	int made_for = (head == MT_CALL_MALLOC && op.new_obj) ||
		       (head == MT_CALL_CALLOC && op.new_obj) ||
		       (head == MT_CALL_FREE && op.old_obj) || head == MT_OP_FREE_NULL;
	int room = n > MT_WL_OP_MAX;

	cases++;
	if (!code) {
		CHECK(!made_for || !room, "head %#x, %zu bytes, timing %d: declined op %u", b[0], n,
		      timing, op.code);
		CHECK(p1 == b && s1.last_new == last_new, "head %#x, %zu bytes: declined, but moved",
		      b[0], n);
		return;
	}
	fast++;
	CHECK(made_for && code == head, "head %#x, %zu bytes, timing %d: decoded as %u", b[0], n,
	      timing, code);
	if (!made_for)
		return;
	CHECK(p1 == p2 && s1.last_new == s2.last_new && delta == op.delta_ns,
	      "head %#x, %zu bytes: position, state or delta differ", b[0], n);
	if (code == MT_CALL_MALLOC || code == MT_CALL_CALLOC)
		CHECK(obj == op.new_obj && size == op.size, "%s: object %llu size %llu, not %llu %llu",
		      code == MT_CALL_MALLOC ? "malloc" : "calloc", (unsigned long long)obj,
		      (unsigned long long)size, (unsigned long long)op.new_obj,
		      (unsigned long long)op.size);
	if (code == MT_CALL_CALLOC)
		CHECK(nmemb == op.nmemb, "calloc: nmemb %llu, not %llu", (unsigned long long)nmemb,
		      (unsigned long long)op.nmemb);
	if (code == MT_CALL_FREE || code == MT_OP_FREE_NULL)
		CHECK(obj == op.old_obj, "free: object %llu, not %llu", (unsigned long long)obj,
		      (unsigned long long)op.old_obj);
}

/* The op encoded from last_new, followed by a stream's worth of bytes that
 * end varints and of bytes that do not, then every prefix of it alone. */
static void encoded(const struct mt_op *op, uint64_t last_new, int timing)
{
	uint8_t b[2 * MT_WL_OP_MAX];
	struct mt_op_state s = { last_new, new_signed };
	size_t n = mt_op_encode(b, &s, op, timing);
	memset(b + n, 0, sizeof b - n);
	compare(b, sizeof b, last_new, timing);
	memset(b + n, 0xff, sizeof b - n);
	compare(b, sizeof b, last_new, timing);
	for (size_t k = 1; k <= n; k++)
		compare(b, k, last_new, timing);
}

int main(void)
{
	for (new_signed = 0; new_signed <= 1; new_signed++)
		for (int timing = 0; timing <= 1; timing++)
			for (unsigned code = 0; code < MT_WL_OPCODES; code++)
				for (unsigned flags = 0; flags <= 0xe0; flags += 0x20)
					for (size_t a = 0; a < NVALUES; a++)
						for (size_t v = 0; v < NVALUES; v++) {
							struct mt_op op = {
								.code = (uint8_t)code, .flags = (uint8_t)flags,
								.delta_ns = timing ? values[a] : 0,
								.old_obj = values[v], .new_obj = 1000 + values[v],
								.align = 16, .nmemb = values[NVALUES - 1 - v],
								.size = values[a],
								.sync = values[v],
							};
							encoded(&op, 1000, timing);
							encoded(&op, 0, timing);
							encoded(&op, 1u << 20, timing); /* a reused, lower one */
							op.old_obj = 0; /* index 0 is NULL: the general path's */
							encoded(&op, 1000, timing);
						}
	/* A varint longer than ten bytes is no op either way. */
	uint8_t runaway[2 * MT_WL_OP_MAX];
	memset(runaway, 0xff, sizeof runaway);
	runaway[0] = MT_CALL_FREE;
	compare(runaway, sizeof runaway, 5, 0);
	CHECK(fast > 0, "none of %u cases took the fast path", cases);
	return check_result();
}
