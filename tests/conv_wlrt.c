/*
 * conv_wlrt.c - the workload writer and reader agree, and the reader's full
 * check refuses workloads a replay could not perform.
 *
 * Usage: conv_wlrt DIR.  Writes workloads under DIR: a round trip of three
 * threads with enough ops to cross many spill chunks (every call type,
 * handoffs, failed calls, timing), then damaged variants whose errors are
 * known, handoffs that no sync point, or a wrong one, orders, object
 * numbers reused right and wrong, and a version 1 file.  Exit 0
 * when every expectation holds, 1 with the first mismatch.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "workload.h"

#define ROUNDS 20000 /* x 3 threads x ~8 ops: about 30 spill chunks per thread */

static const char *dir;
static char path[4096];

static int fail(const char *what)
{
	fprintf(stderr, "conv_wlrt: %s\n", what);
	exit(1);
}

static void check(int ok, const char *what)
{
	if (!ok)
		fail(what);
}

static int same_op(const struct mt_op *a, const struct mt_op *b)
{
	return a->code == b->code && a->flags == b->flags && a->delta_ns == b->delta_ns &&
	       a->old_obj == b->old_obj && a->new_obj == b->new_obj && a->align == b->align &&
	       a->nmemb == b->nmemb && a->size == b->size && a->sync == b->sync;
}

/* The ops of round i in thread t; the same function generates and verifies. */
static size_t round_ops(uint32_t t, uint64_t i, uint64_t *next_obj, struct mt_op *ops)
{
	size_t n = 0;
	uint64_t a = (*next_obj)++, b = (*next_obj)++;
	ops[n++] = (struct mt_op){ .code = MT_CALL_MALLOC, .new_obj = a, .size = 1 + i % 5000,
				   .delta_ns = i };
	ops[n++] = (struct mt_op){ .code = MT_CALL_POSIX_MEMALIGN, .new_obj = b, .align = 64,
				   .size = 100 };
	ops[n++] = (struct mt_op){ .code = MT_CALL_REALLOC, .old_obj = a, .new_obj = (*next_obj)++,
				   .size = 9000 };
	ops[n++] = (struct mt_op){ .code = MT_CALL_MALLOC, .flags = MT_OPF_NULL_OUT,
				   .size = UINT64_MAX >> 1 };
	ops[n++] = (struct mt_op){ .code = MT_CALL_CALLOC, .new_obj = (*next_obj)++, .nmemb = 3,
				   .size = t + 1 };
	ops[n++] = (struct mt_op){ .code = MT_CALL_FREE, .old_obj = b };
	ops[n++] = (struct mt_op){ .code = MT_CALL_FREE, .old_obj = *next_obj - 1 };
	ops[n++] = (struct mt_op){ .code = MT_CALL_FREE, .old_obj = *next_obj - 2 };
	ops[n++] = (struct mt_op){ .code = MT_CALL_FREE, .flags = MT_OPF_NULL_IN };
	return n;
}

static void write_roundtrip(void)
{
	struct mt_error e;
	struct mt_wl_writer *w = mt_wl_writer_open(path, 0, 1, 8, &e);
	check(w != NULL, "writer_open failed");
	struct mt_wl_info tot = { .syncs = 1 };
	struct mt_op op, ops[16];
	uint64_t next_obj = 1;

	for (uint32_t t = 0; t < 3; t++)
		check(mt_wl_writer_thread(w, 100 + t, &e) == (int)t, "thread index");
	/* thread 1 frees thread 0's first block after a handoff */
	uint64_t shared = next_obj++;
	op = (struct mt_op){ .code = MT_CALL_VALLOC, .new_obj = shared, .size = 4096 };
	check(mt_wl_writer_op(w, 0, &op, &e) == 0, "op");
	op = (struct mt_op){ .code = MT_OP_SIGNAL, .sync = 0 };
	check(mt_wl_writer_op(w, 0, &op, &e) == 0, "signal");
	op = (struct mt_op){ .code = MT_OP_WAIT, .sync = 0 };
	check(mt_wl_writer_op(w, 1, &op, &e) == 0, "wait");
	op = (struct mt_op){ .code = MT_CALL_FREE, .old_obj = shared };
	check(mt_wl_writer_op(w, 1, &op, &e) == 0, "handoff free");
	for (uint64_t i = 0; i < ROUNDS; i++)
		for (uint32_t t = 0; t < 3; t++) {
			size_t n = round_ops(t, i, &next_obj, ops);
			for (size_t k = 0; k < n; k++)
				check(mt_wl_writer_op(w, (int)t, &ops[k], &e) == 0, e.msg);
		}
	tot.objects = next_obj - 1;
	tot.ideal_peak = 12345;
	check(mt_wl_writer_finish(w, &tot, &e) == 0, e.msg);
}

static void verify_roundtrip(void)
{
	struct mt_error e;
	struct mt_wl *w = mt_wl_open(path, 1, &e);
	if (!w)
		fail(e.msg);
	const struct mt_wl_info *in = mt_wl_get_info(w);
	check(in->threads == 3 && in->ideal_peak == 12345 && in->flags == MT_WLF_TIMING,
	      "header fields");
	check(in->calls[MT_CALL_MALLOC] == 2 * 3 * ROUNDS && in->calls[MT_CALL_VALLOC] == 1 &&
	      in->calls[MT_CALL_FREE] == 4 * 3 * ROUNDS + 1, "calls per opcode");
	check(in->ops == 9 * 3 * ROUNDS + 4, "op count");
	check(in->version == MT_WL_VERSION && in->source_stop == 0,
	      "a workload of a complete trace carries no stop");

	/* Replays generation per thread: thread t's objects are not contiguous,
	 * so walk the generator in the same global order and compare. */
	const uint8_t *p[3], *end[3];
	struct mt_op_state st[3];
	struct mt_op op, ops[16];
	for (uint32_t t = 0; t < 3; t++) {
		p[t] = mt_wl_stream(w, t);
		st[t] = mt_wl_first_state(in);
		end[t] = p[t] + mt_wl_get_thread(w, t)->length;
		check(mt_wl_get_thread(w, t)->tid == 100 + t, "tid");
	}
	unsigned skip[3] = { 2, 2, 0 };
	for (uint32_t t = 0; t < 3; t++)
		for (unsigned k = 0; k < skip[t]; k++)
			check(mt_op_decode(&p[t], end[t], &st[t], &op, 1) == 0, "decode preamble");
	uint64_t next_obj = 2;
	for (uint64_t i = 0; i < ROUNDS; i++)
		for (uint32_t t = 0; t < 3; t++) {
			size_t n = round_ops(t, i, &next_obj, ops);
			for (size_t k = 0; k < n; k++) {
				check(mt_op_decode(&p[t], end[t], &st[t], &op, 1) == 0, "decode");
				check(same_op(&op, &ops[k]), "op differs after round trip");
			}
		}
	for (uint32_t t = 0; t < 3; t++)
		check(p[t] == end[t], "stream longer than written");
	mt_wl_close(w);
}

/* Copies path to DIR/NAME.wl (its name in copy) and opens the copy. */
static FILE *copy_workload(const char *name, char copy[4096])
{
	char cmd[9000];
	snprintf(copy, 4096, "%s/%s.wl", dir, name);
	snprintf(cmd, sizeof cmd, "cp '%s' '%s'", path, copy);
	check(system(cmd) == 0, "cp");
	FILE *f = fopen(copy, "r+b");
	check(f != NULL, "open copy");
	return f;
}

/* Copies path to a damaged variant and expects mt_wl_open to say want. */
static void expect_damage(const char *name, long at, const uint8_t *bytes, size_t n,
			  long truncate_to, const char *want)
{
	char bad[4096];
	FILE *f = copy_workload(name, bad);
	if (n) {
		fseek(f, at, SEEK_SET);
		fwrite(bytes, 1, n, f);
	}
	fclose(f);
	if (truncate_to >= 0)
		check(truncate(bad, truncate_to) == 0, "truncate");
	struct mt_error e;
	struct mt_wl *w = mt_wl_open(bad, 1, &e);
	if (w || !strstr(e.msg, want) || strncmp(e.msg, bad, strlen(bad)) != 0) {
		fprintf(stderr, "conv_wlrt: %s: expected an error with '%s', got '%s'\n", name, want,
			w ? "success" : e.msg);
		exit(1);
	}
}

/* Writes the roundtrip workload as version 2 with a stop (and one padding
 * byte when pad) under name, and opens it. */
static struct mt_wl *open_stopped(const char *name, int pad, struct mt_error *e)
{
	char copy[4096];
	FILE *f = copy_workload(name, copy);
	uint8_t h[MT_WL_HEADER_SIZE];
	check(fread(h, 1, sizeof h, f) == sizeof h, "read header");
	mt_put_le16(h + MT_WH_L_VERSION, 2);
	mt_put_le32(h + MT_WH_L_SOURCE_STOP, MT_STOP_FSIZE);
	mt_put_le64(h + MT_WH_L_SOURCE_STOP_RECORDS, 4242);
	h[MT_WH_L_RESERVED3] = (uint8_t)pad;
	rewind(f);
	check(fwrite(h, 1, sizeof h, f) == sizeof h && fclose(f) == 0, "write header");
	return mt_wl_open(copy, 1, e);
}

/* Version 2's stop fields read back; their padding must stay zero. */
static void check_stop_fields(void)
{
	struct mt_error e;
	struct mt_wl *w = open_stopped("v2-stop", 0, &e);
	if (!w)
		fail(e.msg);
	const struct mt_wl_info *in = mt_wl_get_info(w);
	check(in->version == 2 && in->source_stop == MT_STOP_FSIZE &&
	      in->source_stop_records == 4242, "version 2 stop fields");
	mt_wl_close(w);
	check(open_stopped("v2-pad", 1, &e) == NULL &&
	      strstr(e.msg, "corrupt header: reserved bytes are not zero"),
	      "version 2 padding must be zero");
}

struct top {
	int thread;
	struct mt_op op;
};

/* A tiny workload from a list of (thread, op). */
static void write_small(const char *name, const struct top *ops, size_t n, uint64_t objects,
			uint64_t syncs, int threads)
{
	char p[4096];
	struct mt_error e;
	snprintf(p, sizeof p, "%s/%s.wl", dir, name);
	struct mt_wl_writer *w = mt_wl_writer_open(p, 1, 0, 8, &e);
	check(w != NULL, e.msg);
	for (int t = 0; t < threads; t++)
		mt_wl_writer_thread(w, 1 + (uint32_t)t, &e);
	for (size_t i = 0; i < n; i++)
		check(mt_wl_writer_op(w, ops[i].thread, &ops[i].op, &e) == 0, e.msg);
	struct mt_wl_info tot = { .objects = objects, .syncs = syncs };
	check(mt_wl_writer_finish(w, &tot, &e) == 0, e.msg);
}

static void expect_open_error(const char *name, const char *want)
{
	char p[4096];
	struct mt_error e;
	snprintf(p, sizeof p, "%s/%s.wl", dir, name);
	struct mt_wl *w = mt_wl_open(p, 1, &e);
	if (w || !strstr(e.msg, want)) {
		fprintf(stderr, "conv_wlrt: %s: expected '%s', got '%s'\n", name, want,
			w ? "success" : e.msg);
		exit(1);
	}
}

static void expect_open_ok(const char *name, const char *why)
{
	char p[4096];
	struct mt_error e;
	snprintf(p, sizeof p, "%s/%s.wl", dir, name);
	struct mt_wl *w = mt_wl_open(p, 1, &e);
	if (!w) {
		fprintf(stderr, "conv_wlrt: %s: %s, but: %s\n", name, why, e.msg);
		exit(1);
	}
	mt_wl_close(w);
}

static void semantic_errors(void)
{
	struct top use_before[] = {
		{ 0, { .code = MT_CALL_FREE, .old_obj = 1 } },
		{ 1, { .code = MT_CALL_MALLOC, .new_obj = 1, .size = 8 } },
	};
	write_small("use-before", use_before, 2, 1, 0, 2);
	expect_open_error("use-before", "uses an object before it is allocated: 1");

	struct top twice[] = {
		{ 0, { .code = MT_CALL_MALLOC, .new_obj = 1, .size = 8 } },
		{ 0, { .code = MT_CALL_FREE, .old_obj = 1 } },
		{ 0, { .code = MT_CALL_FREE, .old_obj = 1 } },
	};
	write_small("double", twice, 3, 1, 0, 1);
	expect_open_error("double", "uses an object after it was freed: 1");

	struct top deadlock[] = {
		{ 0, { .code = MT_OP_WAIT, .sync = 0 } },
		{ 0, { .code = MT_OP_SIGNAL, .sync = 1 } },
		{ 1, { .code = MT_OP_WAIT, .sync = 1 } },
		{ 1, { .code = MT_OP_SIGNAL, .sync = 0 } },
		{ 0, { .code = MT_CALL_MALLOC, .new_obj = 1, .size = 8 } },
	};
	write_small("deadlock", deadlock, 5, 1, 2, 2);
	expect_open_error("deadlock", "waits forever");

	struct top realloc0[] = {
		{ 0, { .code = MT_CALL_MALLOC, .new_obj = 1, .size = 8 } },
		{ 0, { .code = MT_CALL_REALLOC, .flags = MT_OPF_NULL_OUT, .old_obj = 1, .size = 0 } },
		{ 0, { .code = MT_CALL_FREE, .old_obj = 1 } },
	};
	write_small("realloc0", realloc0, 3, 1, 0, 1);
	expect_open_error("realloc0", "uses an object after it was freed: 1");

	struct top realloc_fail[] = {
		{ 0, { .code = MT_CALL_MALLOC, .new_obj = 1, .size = 8 } },
		{ 0, { .code = MT_CALL_REALLOC, .flags = MT_OPF_NULL_OUT, .old_obj = 1, .size = 1ull << 62 } },
		{ 0, { .code = MT_CALL_FREE, .old_obj = 1 } },
	};
	write_small("realloc-fail", realloc_fail, 3, 1, 0, 1);
	expect_open_ok("realloc-fail", "a failed realloc must leave its block live");

	struct top reuse[] = {
		{ 0, { .code = MT_CALL_MALLOC, .new_obj = 2, .size = 8 } },
		{ 0, { .code = MT_CALL_MALLOC, .new_obj = 1, .size = 8 } },
		{ 0, { .code = MT_CALL_FREE, .old_obj = 1 } },
		{ 0, { .code = MT_CALL_MALLOC, .new_obj = 1, .size = 16 } },
		{ 0, { .code = MT_CALL_FREE, .old_obj = 2 } },
		{ 0, { .code = MT_CALL_FREE, .old_obj = 1 } },
	};
	write_small("reuse", reuse, 6, 2, 0, 1);
	expect_open_ok("reuse", "a freed object number may be allocated again");

	struct top reuse_live[] = {
		{ 0, { .code = MT_CALL_MALLOC, .new_obj = 1, .size = 8 } },
		{ 0, { .code = MT_CALL_MALLOC, .new_obj = 1, .size = 8 } },
	};
	write_small("reuse-live", reuse_live, 2, 1, 0, 1);
	expect_open_error("reuse-live", "allocates an object still live: 1");

	/* Thread 1 frees #1, then thread 0 takes the number again after a
	 * wait for thread 2, which orders nothing: a replay could run the
	 * malloc first (the check plays the free first, and must see it). */
	struct top reuse_unordered[] = {
		{ 0, { .code = MT_CALL_MALLOC, .new_obj = 1, .size = 8 } },
		{ 0, { .code = MT_OP_SIGNAL, .sync = 0 } },
		{ 0, { .code = MT_OP_WAIT, .sync = 1 } },
		{ 1, { .code = MT_OP_WAIT, .sync = 0 } },
		{ 1, { .code = MT_CALL_FREE, .old_obj = 1 } },
		{ 2, { .code = MT_OP_SIGNAL, .sync = 1 } },
		{ 0, { .code = MT_CALL_MALLOC, .new_obj = 1, .size = 8 } },
	};
	write_small("reuse-unordered", reuse_unordered, 7, 1, 2, 3);
	expect_open_error("reuse-unordered", "allocates again object 1 with no wait after thread 1's "
			  "op 1, which freed it");
	reuse_unordered[5].thread = 1; /* the free is signalled: ordered */
	write_small("reuse-ordered", reuse_unordered, 7, 1, 2, 3);
	expect_open_ok("reuse-ordered", "a number freed in another thread may be allocated again "
		       "after a wait for that free");
}

/*
 * A version 1 file, byte by byte as that version's writer made them: two
 * mallocs, #1 and #2 (the second's new field 1 - 1 = +1, where version 2
 * would zigzag it), then their frees.  It must open, checked, and decode
 * to those ops.
 */
static void version1(void)
{
	static const uint8_t stream[] = { 0x01, 0x01, 24, 0x01, 0x01, 32, 0x02, 0x01, 0x02, 0x00 };
	uint8_t file[MT_WL_HEADER_SIZE + MT_WL_THREAD_ENTRY + sizeof stream] = { 0 };
	uint8_t *h = file, *t = file + MT_WL_HEADER_SIZE;
	memcpy(h + MT_WH_L_MAGIC, MT_WL_MAGIC, 8);
	mt_put_le16(h + MT_WH_L_VERSION, 1);
	h[MT_WH_L_ENDIAN] = 1;
	h[MT_WH_L_PTR_SIZE] = 8;
	mt_put_le32(h + MT_WH_L_HEADER_SIZE, MT_WL_HEADER_SIZE);
	mt_put_le32(h + MT_WH_L_THREADS, 1);
	mt_put_le64(h + MT_WH_L_OBJECTS, 2);
	mt_put_le64(h + MT_WH_L_OPS, 4);
	mt_put_le64(h + MT_WH_L_CALLS + 8 * MT_CALL_MALLOC, 2);
	mt_put_le64(h + MT_WH_L_CALLS + 8 * MT_CALL_FREE, 2);
	mt_put_le32(t + MT_WT_TID, 9);
	mt_put_le64(t + MT_WT_OFFSET, MT_WL_HEADER_SIZE + MT_WL_THREAD_ENTRY);
	mt_put_le64(t + MT_WT_LENGTH, sizeof stream);
	mt_put_le64(t + MT_WT_OPS, 4);
	memcpy(t + MT_WL_THREAD_ENTRY, stream, sizeof stream);

	char p[4096];
	struct mt_error e;
	snprintf(p, sizeof p, "%s/v1.wl", dir);
	FILE *f = fopen(p, "wb");
	check(f && fwrite(file, sizeof file, 1, f) == 1 && fclose(f) == 0, "writing v1.wl");
	struct mt_wl *w = mt_wl_open(p, 1, &e);
	check(w != NULL, e.msg);
	struct mt_op_state st = mt_wl_first_state(mt_wl_get_info(w));
	const uint8_t *s = mt_wl_stream(w, 0), *end = s + sizeof stream;
	static const uint64_t want[4][2] = { { 0, 1 }, { 0, 2 }, { 1, 0 }, { 2, 0 } };
	for (int i = 0; i < 4; i++) {
		struct mt_op op;
		check(mt_op_decode(&s, end, &st, &op, 0) == 0, "v1.wl: decode");
		check(op.old_obj == want[i][0] && op.new_obj == want[i][1], "v1.wl: op differs");
	}
	mt_wl_close(w);

	/* Version 1 reserves the stop fields that version 2 fills in. */
	h[MT_WH_L_SOURCE_STOP] = 1;
	snprintf(p, sizeof p, "%s/v1-stop.wl", dir);
	f = fopen(p, "wb");
	check(f && fwrite(file, sizeof file, 1, f) == 1 && fclose(f) == 0, "writing v1-stop.wl");
	check(mt_wl_open(p, 1, &e) == NULL && strstr(e.msg, "reserved bytes are not zero"),
	      "version 1 with a stop must be refused");
}

/*
 * A replay may interleave threads in any order their sync points allow, so
 * a call that passes in another thread's object must follow, through waits,
 * the op that allocated it or used it last.  The check plays one order and
 * must still refuse these, whichever thread it happens to run first.
 */
static void causality_errors(void)
{
	/* Thread 0 allocates, thread 1 frees: nothing orders the two. */
	struct top unsynced[] = {
		{ 0, { .code = MT_CALL_MALLOC, .new_obj = 1, .size = 8 } },
		{ 1, { .code = MT_CALL_FREE, .old_obj = 1 } },
	};
	write_small("unsynced", unsynced, 2, 1, 0, 2);
	expect_open_error("unsynced", "thread 1 (tid 2), op 0: uses object 1 with no wait after "
				      "thread 0's op 0");

	/* Thread 1 waits, but on a signal given before the allocation. */
	struct top early_signal[] = {
		{ 0, { .code = MT_OP_SIGNAL, .sync = 0 } },
		{ 0, { .code = MT_CALL_MALLOC, .new_obj = 1, .size = 8 } },
		{ 1, { .code = MT_OP_WAIT, .sync = 0 } },
		{ 1, { .code = MT_CALL_FREE, .old_obj = 1 } },
	};
	write_small("early-signal", early_signal, 4, 1, 1, 2);
	expect_open_error("early-signal", "thread 1 (tid 2), op 1: uses object 1 with no wait "
					  "after thread 0's op 1");

	/* Thread 1's failed realloc is a use: thread 0's free must wait for it,
	 * and waiting for thread 2 does not do. */
	struct top unsynced_use[] = {
		{ 0, { .code = MT_CALL_MALLOC, .new_obj = 1, .size = 8 } },
		{ 0, { .code = MT_OP_SIGNAL, .sync = 0 } },
		{ 0, { .code = MT_OP_WAIT, .sync = 1 } },
		{ 0, { .code = MT_CALL_FREE, .old_obj = 1 } },
		{ 1, { .code = MT_OP_WAIT, .sync = 0 } },
		{ 1, { .code = MT_CALL_REALLOC, .flags = MT_OPF_NULL_OUT, .old_obj = 1,
		       .size = 1ull << 62 } },
		{ 2, { .code = MT_OP_SIGNAL, .sync = 1 } },
	};
	write_small("unsynced-use", unsynced_use, 7, 1, 2, 3);
	expect_open_error("unsynced-use", "thread 0 (tid 1), op 3: uses object 1 with no wait "
					  "after thread 1's op 1");

	/* The same with thread 0 waiting for the realloc: valid. */
	struct top synced_use[] = {
		{ 0, { .code = MT_CALL_MALLOC, .new_obj = 1, .size = 8 } },
		{ 0, { .code = MT_OP_SIGNAL, .sync = 0 } },
		{ 1, { .code = MT_OP_WAIT, .sync = 0 } },
		{ 1, { .code = MT_CALL_REALLOC, .flags = MT_OPF_NULL_OUT, .old_obj = 1,
		       .size = 1ull << 62 } },
		{ 1, { .code = MT_OP_SIGNAL, .sync = 1 } },
		{ 0, { .code = MT_OP_WAIT, .sync = 1 } },
		{ 0, { .code = MT_CALL_FREE, .old_obj = 1 } },
	};
	write_small("synced-use", synced_use, 7, 1, 2, 2);
	expect_open_ok("synced-use", "a free after a wait on the last user must pass");

	/* Knowledge passes through threads: 0 allocates and signals, 1 waits
	 * and signals, 2 waits on 1 only and frees, 3 waits on 2 and frees its
	 * own block that 2 used.  Valid. */
	struct top hops[] = {
		{ 0, { .code = MT_CALL_MALLOC, .new_obj = 1, .size = 8 } },
		{ 0, { .code = MT_OP_SIGNAL, .sync = 0 } },
		{ 1, { .code = MT_OP_WAIT, .sync = 0 } },
		{ 1, { .code = MT_OP_SIGNAL, .sync = 1 } },
		{ 3, { .code = MT_CALL_MALLOC, .new_obj = 2, .size = 8 } },
		{ 3, { .code = MT_OP_SIGNAL, .sync = 2 } },
		{ 2, { .code = MT_OP_WAIT, .sync = 1 } },
		{ 2, { .code = MT_OP_WAIT, .sync = 2 } },
		{ 2, { .code = MT_CALL_FREE, .old_obj = 1 } },
		{ 2, { .code = MT_CALL_REALLOC, .flags = MT_OPF_NULL_OUT, .old_obj = 2,
		       .size = 1ull << 62 } },
		{ 2, { .code = MT_OP_SIGNAL, .sync = 3 } },
		{ 3, { .code = MT_OP_WAIT, .sync = 3 } },
		{ 3, { .code = MT_CALL_FREE, .old_obj = 2 } },
	};
	write_small("hops", hops, 13, 2, 4, 4);
	expect_open_ok("hops", "a handoff through a chain of waits must pass");

	/* The same chain with thread 1 signalling before it waits: the chain
	 * is broken, thread 2 knows nothing of thread 0. */
	struct top broken[] = {
		{ 0, { .code = MT_CALL_MALLOC, .new_obj = 1, .size = 8 } },
		{ 0, { .code = MT_OP_SIGNAL, .sync = 0 } },
		{ 1, { .code = MT_OP_SIGNAL, .sync = 1 } },
		{ 1, { .code = MT_OP_WAIT, .sync = 0 } },
		{ 2, { .code = MT_OP_WAIT, .sync = 1 } },
		{ 2, { .code = MT_CALL_FREE, .old_obj = 1 } },
	};
	write_small("broken-chain", broken, 6, 1, 2, 3);
	expect_open_error("broken-chain", "thread 2 (tid 3), op 1: uses object 1 with no wait "
					  "after thread 0's op 0");
}

/* A workload of one thread that spills many chunks, then (threads 2) a
 * second thread added before its first op (late) or with the first (not
 * late): the writer keeps a lone thread's stream in place in the output
 * and moves it to the spill file when a second comes, and either way the
 * files must be the same bytes. */
static void write_late(const char *name, int threads, int late)
{
	char p[4096];
	struct mt_error e;
	snprintf(p, sizeof p, "%s/%s.wl", dir, name);
	struct mt_wl_writer *w = mt_wl_writer_open(p, 1, 0, 8, &e);
	check(w != NULL, e.msg);
	check(mt_wl_writer_thread(w, 7, &e) == 0, "first thread");
	if (threads == 2 && !late)
		check(mt_wl_writer_thread(w, 8, &e) == 1, "second thread");
	uint64_t obj = 0;
	for (uint64_t i = 0; i < 5 * ROUNDS; i++) {
		struct mt_op a = { .code = MT_CALL_MALLOC, .new_obj = ++obj, .size = i % 700 };
		struct mt_op f = { .code = MT_CALL_FREE, .old_obj = obj };
		check(mt_wl_writer_op(w, 0, &a, &e) == 0 && mt_wl_writer_op(w, 0, &f, &e) == 0,
		      e.msg);
	}
	if (threads == 2 && late)
		check(mt_wl_writer_thread(w, 8, &e) == 1, "second thread, late");
	for (int t = 0; t < threads; t++) {
		struct mt_op a = { .code = MT_CALL_MALLOC, .new_obj = ++obj, .size = 5 };
		check(mt_wl_writer_op(w, t, &a, &e) == 0, e.msg);
	}
	struct mt_wl_info tot = { .objects = obj };
	check(mt_wl_writer_finish(w, &tot, &e) == 0, e.msg);
	struct mt_wl *wl = mt_wl_open(p, 1, &e);
	if (!wl)
		fail(e.msg);
	check(mt_wl_get_info(wl)->ops == 10 * ROUNDS + (uint64_t)threads, "ops of a late thread");
	mt_wl_close(wl);
}

static void same_bytes(const char *a, const char *b)
{
	char pa[4096], pb[4096];
	snprintf(pa, sizeof pa, "%s/%s.wl", dir, a);
	snprintf(pb, sizeof pb, "%s/%s.wl", dir, b);
	FILE *fa = fopen(pa, "rb"), *fb = fopen(pb, "rb");
	check(fa && fb, "open for comparison");
	int ca, cb;
	do {
		ca = getc(fa);
		cb = getc(fb);
	} while (ca == cb && ca != EOF);
	check(ca == cb, "a thread added late changes the workload's bytes");
	fclose(fa);
	fclose(fb);
}

static void late_threads(void)
{
	write_late("lone", 1, 0);
	write_late("early", 2, 0);
	write_late("late", 2, 1);
	same_bytes("early", "late");
}

int main(int argc, char **argv)
{
	if (argc != 2)
		fail("usage: conv_wlrt DIR");
	dir = argv[1];
	snprintf(path, sizeof path, "%s/rt.wl", dir);
	unlink(path);
	write_roundtrip();
	verify_roundtrip();

	struct mt_error e;
	check(mt_wl_writer_open(path, 0, 0, 8, &e) == NULL && strstr(e.msg, "already exists"),
	      "existing output must be refused without overwrite");

	static const uint8_t v3[] = { 3, 0 }, zero8[8] = { 0 }, junk[] = { 0x80 };
	expect_damage("magic", 0, (const uint8_t *)"NOTAWL!!", 8, -1, "not a workload");
	expect_damage("version", MT_WH_L_VERSION, v3, 2, -1, "version 3 is newer");
	expect_damage("cut", 0, NULL, 0, 5000, "does not fit the file");
	expect_damage("ops", MT_WH_L_OPS, zero8, 8, -1, "header says 0 ops");
	expect_damage("objects", MT_WH_L_OBJECTS, zero8, 8, -1, "object index out of range");
	expect_damage("calls", MT_WH_L_CALLS + 8 * MT_CALL_CALLOC, zero8, 8, -1, "calloc calls");
	expect_damage("opbyte", MT_WL_HEADER_SIZE + 3 * MT_WL_THREAD_ENTRY, junk, 1, -1,
		      "does not decode");
	static const uint8_t one[] = { 1 };
	expect_damage("reserved", MT_WL_HEADER_SIZE - 1, one, 1, -1,
		      "corrupt header: reserved bytes are not zero");
	check_stop_fields();
	expect_damage("threadflags", MT_WL_HEADER_SIZE + MT_WL_THREAD_ENTRY + MT_WT_FLAGS, one, 1, -1,
		      "thread 1 (tid 101): flags 0x1, none is defined");
	semantic_errors();
	causality_errors();
	version1();
	late_threads();
	return 0;
}
