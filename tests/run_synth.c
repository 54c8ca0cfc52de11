/*
 * run_synth - write synthetic workloads with known answers for trace_run's
 * tests and benchmark, through lib/'s writer.
 *
 *   run_synth SCENARIO OUT [N]
 *   run_synth prodcons OUT N SIZE
 *
 * Scenarios:
 *   basic      one thread: malloc, calloc, realloc, free; ideal peak 1300
 *   every      one thread, every call the format has, including realloc(p, 0),
 *              realloc(NULL, n), free(NULL), recorded failures (one that will
 *              fail again, one that will succeed now)
 *   handoff    4 threads pass a token round N times (default 100); each frees
 *              the block the previous holder made, so every free is of a
 *              block another thread allocated
 *   timed      one thread, 5 mallocs 20 ms apart (MT_WLF_TIMING)
 *   idle       one thread, timed: malloc, then malloc 2^50 ns (13 days) later,
 *              free
 *   prodcons   2 threads, timed: a producer makes N (default 1000) blocks of
 *              SIZE bytes (default 64 KiB), one every 100 us, and signals
 *              each; a consumer frees each 50 us after it was made: one
 *              block live at a time, paced (unpaced, the producer may run
 *              ahead by all of them).
 *   stall      one thread, malloc(RUN_STALL_SIZE): tests/run_stall.so blocks there
 *   huge       one thread: recorded successes no allocator can grant (pvalloc
 *              of 2^64 - 101, malloc and realloc of 2^63, an overflowing
 *              calloc); they count as no bytes
 *   block      one thread, malloc(N) and its free
 *   keep       one thread, malloc(N), never freed
 *   freenull   one thread, N (default 20000) calls of free(NULL)
 *   short      one thread, malloc(RUN_SHORT_SIZE): tests/run_stall.so hands
 *              out a 64-byte block for it
 *   sleepy     one thread, N (default 100) blocks of RUN_SLEEP_SIZE, in
 *              which tests/run_stall.so sleeps, each made and freed after
 *              1000 pairs of small blocks: 200,200 calls for N = 100
 *   cycle      2 threads, each waiting for the other's signal (load error)
 *   early      a free of an object before it is allocated (load error)
 *   nosignal   a WAIT no thread signals (load error)
 *   badcount   header objects one more than the streams allocate (load error)
 *   extrasync  handoff for one round, header sync points one more than the
 *              streams signal (load error)
 *   threads    N threads (default 20000), none of which makes a call
 *   busy       N threads (default 2000), each a malloc and its free
 *   bench      one thread, N (default 1000000) calls of mixed sizes, a
 *              working set of 1000 blocks, for bench/trace_run.sh
 *   churn      one thread, N (default 10000000) short-lived blocks, 16 live
 *              at a time, their object numbers reused as trace2wl reuses
 *              them (the number a free gave back goes to the next malloc)
 *   hold       one thread, N bytes (default 50 MiB) in blocks of 4 KiB,
 *              all live at once, then freed
 *
 * After writing it prints what a correct replay must report, one
 * "name value" per line: ideal_peak, objects, syncs and the count of every
 * call made.  The ideal peak is simulated here in emission order, which is
 * the only order the sync points allow.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_stall.h"
#include "trace.h"
#include "workload.h"

struct synth {
	struct mt_wl_writer *w;
	struct mt_error e;
	uint64_t next_obj, syncs, live, peak;
	uint64_t *size;   /* requested bytes by object */
	uint64_t cap;
	uint64_t calls[16];
	int extra_object; /* badcount */
	int extra_sync;   /* extrasync */
};

static void die(struct synth *s)
{
	fprintf(stderr, "run_synth: %s\n", s->e.msg);
	exit(1);
}

static void op(struct synth *s, int t, const struct mt_op *o)
{
	if (mt_wl_writer_op(s->w, t, o, &s->e))
		die(s);
	s->calls[o->code]++;
}

static void live_add(struct synth *s, int64_t d)
{
	s->live = (uint64_t)((int64_t)s->live + d);
	if (s->live > s->peak)
		s->peak = s->live;
}

static uint64_t new_obj(struct synth *s, uint64_t req)
{
	uint64_t i = ++s->next_obj;
	if (i >= s->cap) {
		s->cap = s->cap * 2 + 1024;
		s->size = realloc(s->size, s->cap * sizeof *s->size);
		if (!s->size) {
			fprintf(stderr, "run_synth: out of memory\n");
			exit(1);
		}
	}
	s->size[i] = req;
	live_add(s, (int64_t)req);
	return i;
}

/* An allocating call without an object passed in; fail: recorded NULL. */
static uint64_t alloc(struct synth *s, int t, unsigned code, uint64_t align, uint64_t nmemb,
		      uint64_t size, int fail)
{
	struct mt_op o = { .code = (uint8_t)code, .align = align, .nmemb = nmemb, .size = size };
	if (fail)
		o.flags = MT_OPF_NULL_OUT;
	else
		o.new_obj = new_obj(s, code == MT_CALL_CALLOC ? nmemb * size : size);
	op(s, t, &o);
	return o.new_obj;
}

static uint64_t m(struct synth *s, int t, uint64_t size)
{
	return alloc(s, t, MT_CALL_MALLOC, 0, 0, size, 0);
}

/* realloc or reallocarray of obj (0: NULL); fail: recorded NULL. */
static uint64_t re(struct synth *s, int t, unsigned code, uint64_t obj, uint64_t nmemb,
		   uint64_t size, int fail)
{
	struct mt_op o = { .code = (uint8_t)code, .old_obj = obj, .nmemb = nmemb, .size = size };
	uint64_t req = code == MT_CALL_REALLOCARRAY ? nmemb * size : size;
	uint64_t old = obj ? s->size[obj] : 0;
	if (!obj)
		o.flags |= MT_OPF_NULL_IN;
	if (fail) {
		o.flags |= MT_OPF_NULL_OUT;
		if (!req)
			live_add(s, -(int64_t)old);
	} else {
		live_add(s, -(int64_t)old);
		o.new_obj = new_obj(s, req);
	}
	op(s, t, &o);
	return o.new_obj;
}

static void fr(struct synth *s, int t, unsigned code, uint64_t obj, uint64_t align)
{
	struct mt_op o = { .code = (uint8_t)code, .old_obj = obj, .align = align };
	if (obj) {
		o.size = s->size[obj];
		live_add(s, -(int64_t)s->size[obj]);
	} else {
		o.flags = MT_OPF_NULL_IN;
	}
	op(s, t, &o);
}

static void f(struct synth *s, int t, uint64_t obj)
{
	fr(s, t, MT_CALL_FREE, obj, 0);
}

static void sync_op(struct synth *s, int t, unsigned code, uint64_t id)
{
	struct mt_op o = { .code = (uint8_t)code, .sync = id };
	if (mt_wl_writer_op(s->w, t, &o, &s->e))
		die(s);
	if (id + 1 > s->syncs)
		s->syncs = id + 1;
}

static int thread(struct synth *s, uint32_t tid)
{
	int t = mt_wl_writer_thread(s->w, tid, &s->e);
	if (t < 0)
		die(s);
	return t;
}

static void basic(struct synth *s)
{
	int t = thread(s, 100);
	uint64_t a = m(s, t, 100);                                    /* 100 */
	uint64_t b = alloc(s, t, MT_CALL_CALLOC, 0, 10, 20, 0);       /* 300 */
	uint64_t c = re(s, t, MT_CALL_REALLOC, a, 0, 300, 0);         /* 500 */
	f(s, t, b);                                                   /* 300 */
	uint64_t d = m(s, t, 1000);                                   /* 1300 */
	f(s, t, c);
	f(s, t, d);
	f(s, t, 0);
}

static void every(struct synth *s)
{
	int t = thread(s, 200);
	uint64_t a = m(s, t, 64);
	uint64_t b = alloc(s, t, MT_CALL_CALLOC, 0, 8, 16, 0);
	a = re(s, t, MT_CALL_REALLOC, a, 0, 4000, 0);
	uint64_t c = re(s, t, MT_CALL_REALLOC, 0, 0, 50, 0);       /* realloc(NULL, 50) */
	re(s, t, MT_CALL_REALLOC, c, 0, 0, 1);                     /* realloc(p, 0): freed, NULL */
	b = re(s, t, MT_CALL_REALLOCARRAY, b, 4, 100, 0);
	uint64_t d = alloc(s, t, MT_CALL_MEMALIGN, 64, 0, 100, 0);
	uint64_t e = alloc(s, t, MT_CALL_POSIX_MEMALIGN, 128, 0, 200, 0);
	uint64_t g = alloc(s, t, MT_CALL_ALIGNED_ALLOC, 4096, 0, 8192, 0);
	uint64_t h = alloc(s, t, MT_CALL_VALLOC, 0, 0, 300, 0);
	uint64_t i = alloc(s, t, MT_CALL_PVALLOC, 0, 0, 5000, 0);
	alloc(s, t, MT_CALL_MALLOC, 0, 0, 1ull << 62, 1);          /* failed, fails again */
	alloc(s, t, MT_CALL_MALLOC, 0, 0, 32, 1);                  /* failed, succeeds now */
	re(s, t, MT_CALL_REALLOC, a, 0, 1ull << 62, 1);            /* failed: a stays */
	f(s, t, a);
	f(s, t, 0);                                                /* free(NULL) */
	fr(s, t, MT_CALL_FREE_SIZED, b, 0);
	fr(s, t, MT_CALL_FREE_ALIGNED_SIZED, d, 64);
	f(s, t, e);
	f(s, t, g);
	f(s, t, h);
	f(s, t, i);
}

/* Token passing: holder k frees the previous holder's block, makes its own,
 * signals k; the next waits on k.  One total order, so one ideal peak. */
static void handoff(struct synth *s, uint64_t rounds)
{
	int t[4];
	for (int i = 0; i < 4; i++)
		t[i] = thread(s, 300 + (uint32_t)i);
	uint64_t prev = 0, k = 0, keep[4] = { 0 };
	for (uint64_t r = 0; r < rounds; r++)
		for (int i = 0; i < 4; i++, k++) {
			if (k)
				sync_op(s, t[i], MT_OP_WAIT, k - 1);
			if (prev)
				f(s, t[i], prev);
			if (keep[i])
				f(s, t[i], keep[i]);
			keep[i] = m(s, t[i], 64 * (uint64_t)(i + 1) + r % 7);
			prev = m(s, t[i], 1000 + 100 * ((r + (uint64_t)i) % 5));
			sync_op(s, t[i], MT_OP_SIGNAL, k);
		}
	/* the last holder cleans up; the others' kept blocks stay live */
	f(s, t[3], prev);
}

static void timed(struct synth *s)
{
	int t = thread(s, 400);
	for (int i = 0; i < 5; i++) {
		struct mt_op o = { .code = MT_CALL_MALLOC, .size = 100, .delta_ns = 20000000 };
		o.new_obj = new_obj(s, 100);
		op(s, t, &o);
	}
}

/* An allocating call recorded as granted whose size no allocator can
 * grant: the ideal counts it as no bytes. */
static uint64_t granted(struct synth *s, int t, struct mt_op o)
{
	if (o.old_obj)
		live_add(s, -(int64_t)s->size[o.old_obj]);
	o.new_obj = new_obj(s, 0);
	op(s, t, &o);
	return o.new_obj;
}

static void huge(struct synth *s)
{
	int t = thread(s, 1000);
	uint64_t a = m(s, t, 100);
	uint64_t b = granted(s, t, (struct mt_op){ .code = MT_CALL_PVALLOC, .size = UINT64_MAX - 100 });
	uint64_t c = granted(s, t, (struct mt_op){ .code = MT_CALL_MALLOC, .size = 1ull << 63 });
	uint64_t d = granted(s, t, (struct mt_op){ .code = MT_CALL_CALLOC, .nmemb = 1ull << 32,
						  .size = 1ull << 32 });
	a = granted(s, t, (struct mt_op){ .code = MT_CALL_REALLOC, .old_obj = a, .size = 1ull << 63 });
	f(s, t, a);
	f(s, t, b);
	f(s, t, c);
	f(s, t, d);
}

static void idle(struct synth *s)
{
	int t = thread(s, 1200);
	struct mt_op o = { .code = MT_CALL_MALLOC, .size = 10, .delta_ns = 1000 };
	o.new_obj = new_obj(s, 10);
	op(s, t, &o);
	uint64_t a = o.new_obj;
	o.delta_ns = 1ull << 50;
	o.new_obj = new_obj(s, 10);
	op(s, t, &o);
	fr(s, t, MT_CALL_FREE, a, 0);
}

static void prodcons(struct synth *s, uint64_t n, uint64_t size)
{
	enum { EVERY_NS = 100000 };
	int p = thread(s, 1300), c = thread(s, 1301);
	for (uint64_t i = 0; i < n; i++) {
		struct mt_op o = { .code = MT_CALL_MALLOC, .size = size, .delta_ns = EVERY_NS };
		o.new_obj = new_obj(s, size);
		op(s, p, &o);
		sync_op(s, p, MT_OP_SIGNAL, i);
		sync_op(s, c, MT_OP_WAIT, i);
		struct mt_op fo = { .code = MT_CALL_FREE, .old_obj = o.new_obj,
				    .delta_ns = i ? EVERY_NS : EVERY_NS + EVERY_NS / 2 };
		live_add(s, -(int64_t)size);
		op(s, c, &fo);
	}
}

static void free_nulls(struct synth *s, uint64_t n)
{
	int t = thread(s, 1500);
	for (uint64_t i = 0; i < n; i++)
		f(s, t, 0);
}

static void sleepy(struct synth *s, uint64_t n)
{
	int t = thread(s, 1700);
	for (uint64_t i = 0; i < n; i++) {
		for (int j = 0; j < 1000; j++)
			f(s, t, m(s, t, 32));
		f(s, t, m(s, t, RUN_SLEEP_SIZE));
	}
}

/* n threads; with calls, each makes a malloc and frees it. */
static void many(struct synth *s, uint64_t n, int calls)
{
	for (uint64_t i = 0; i < n; i++) {
		int t = thread(s, 2000 + (uint32_t)i);
		if (calls)
			f(s, t, m(s, t, 100));
	}
}

static void cycle(struct synth *s)
{
	int a = thread(s, 500), b = thread(s, 501);
	sync_op(s, a, MT_OP_WAIT, 1);
	m(s, a, 10);
	sync_op(s, a, MT_OP_SIGNAL, 0);
	sync_op(s, b, MT_OP_WAIT, 0);
	m(s, b, 10);
	sync_op(s, b, MT_OP_SIGNAL, 1);
}

static void early(struct synth *s)
{
	int t = thread(s, 600);
	struct mt_op o = { .code = MT_CALL_FREE, .old_obj = 1 };
	op(s, t, &o);
	m(s, t, 10);
}

static void nosignal(struct synth *s)
{
	int a = thread(s, 700);
	m(s, a, 10);
	sync_op(s, a, MT_OP_WAIT, 0);
	m(s, a, 20);
}

/* A steady mix: a ring of 1000 blocks, each call frees the oldest and makes
 * a new one of a size from a fixed pseudo-random sequence. */
static void bench(struct synth *s, uint64_t n)
{
	enum { RING = 1000 };
	static uint64_t ring[RING];
	int t = thread(s, 800);
	uint64_t x = 88172645463325252ull;
	for (uint64_t i = 0; i < n / 2; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint64_t *slot = &ring[i % RING];
		if (*slot)
			f(s, t, *slot);
		*slot = m(s, t, 16 + (x % 8 ? x % 256 : x % 8192));
	}
}

/* malloc(size) as object obj, a number freed before. */
static void m_again(struct synth *s, int t, uint64_t obj, uint64_t size)
{
	struct mt_op o = { .code = MT_CALL_MALLOC, .new_obj = obj, .size = size };
	s->size[obj] = size;
	live_add(s, (int64_t)size);
	op(s, t, &o);
}

static void churn(struct synth *s, uint64_t n)
{
	enum { LIVE = 16 };
	int t = thread(s, 1700);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t size = 16 + i % 200;
		if (i < LIVE) {
			m(s, t, size);
			continue;
		}
		f(s, t, i % LIVE + 1);
		m_again(s, t, i % LIVE + 1, size);
	}
	for (uint64_t k = 1; k <= LIVE && k <= n; k++)
		f(s, t, k);
}

static void hold(struct synth *s, uint64_t bytes)
{
	enum { BLOCK = 4096 };
	int t = thread(s, 1800);
	uint64_t first = s->next_obj + 1, blocks = bytes / BLOCK;
	for (uint64_t i = 0; i < blocks; i++)
		m(s, t, BLOCK);
	for (uint64_t i = 0; i < blocks; i++)
		f(s, t, first + i);
}

static void run(struct synth *s, const char *name, uint64_t n, uint64_t size)
{
	if (!strcmp(name, "basic")) basic(s);
	else if (!strcmp(name, "every")) every(s);
	else if (!strcmp(name, "handoff")) handoff(s, n ? n : 100);
	else if (!strcmp(name, "timed")) timed(s);
	else if (!strcmp(name, "idle")) idle(s);
	else if (!strcmp(name, "prodcons")) prodcons(s, n ? n : 1000, size ? size : 64 << 10);
	else if (!strcmp(name, "stall")) m(s, thread(s, 900), RUN_STALL_SIZE);
	else if (!strcmp(name, "huge")) huge(s);
	else if (!strcmp(name, "freenull")) free_nulls(s, n ? n : 20000);
	else if (!strcmp(name, "keep")) m(s, thread(s, 1600), n);
	else if (!strcmp(name, "block")) f(s, 0, m(s, thread(s, 1400), n));
	else if (!strcmp(name, "short")) f(s, 0, m(s, thread(s, 1100), RUN_SHORT_SIZE));
	else if (!strcmp(name, "sleepy")) sleepy(s, n ? n : 100);
	else if (!strcmp(name, "cycle")) cycle(s);
	else if (!strcmp(name, "early")) early(s);
	else if (!strcmp(name, "nosignal")) nosignal(s);
	else if (!strcmp(name, "badcount")) { basic(s); s->extra_object = 1; }
	else if (!strcmp(name, "extrasync")) { handoff(s, 1); s->extra_sync = 1; }
	else if (!strcmp(name, "threads")) many(s, n ? n : 20000, 0);
	else if (!strcmp(name, "busy")) many(s, n ? n : 2000, 1);
	else if (!strcmp(name, "bench")) bench(s, n ? n : 1000000);
	else if (!strcmp(name, "churn")) churn(s, n ? n : 10000000);
	else if (!strcmp(name, "hold")) hold(s, n ? n : 50u << 20);
	else {
		fprintf(stderr, "run_synth: unknown scenario '%s'\n", name);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	struct synth s = { 0 };
	if (argc < 3 || argc > 5 || (argc == 5 && strcmp(argv[1], "prodcons"))) {
		fprintf(stderr, "usage: run_synth SCENARIO OUT [N], or run_synth prodcons OUT N SIZE\n");
		return 2;
	}
	uint64_t n = argc >= 4 ? strtoull(argv[3], NULL, 10) : 0;
	uint64_t size = argc == 5 ? strtoull(argv[4], NULL, 10) : 0;
	int timing = !strcmp(argv[1], "timed") || !strcmp(argv[1], "idle") ||
		     !strcmp(argv[1], "prodcons");
	s.w = mt_wl_writer_open(argv[2], 1, timing, 8, &s.e);
	if (!s.w)
		die(&s);
	run(&s, argv[1], n, size);
	struct mt_wl_info totals = {
		.objects = s.next_obj + (uint64_t)s.extra_object,
		.syncs = s.syncs + (uint64_t)s.extra_sync,
		.ideal_peak = s.peak,
	};
	if (mt_wl_writer_finish(s.w, &totals, &s.e))
		die(&s);
	printf("ideal_peak %llu\nobjects %llu\nsyncs %llu\n", (unsigned long long)s.peak,
	       (unsigned long long)s.next_obj, (unsigned long long)s.syncs);
	for (unsigned c = 1; c < MT_CALL_EVENT; c++)
		printf("%s %llu\n", mt_call_name(c), (unsigned long long)s.calls[c]);
	free(s.size);
	return 0;
}
