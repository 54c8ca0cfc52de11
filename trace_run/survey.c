/*
 * survey.c - one pass over the streams before the clock starts (their third
 * decode, after the load-time check's two), for what the replay must know
 * in advance and that check does not say.
 *
 * Call types: a thread's statistics are allocated for the types it makes.
 *
 * Recorded time: each op's delta is the time since its thread's previous
 * call, its first since the trace started, so a running sum is the call's
 * time on one clock shared by all threads (see clock.c).  The sums must
 * stay below 2^63 ns, which keeps the clock's arithmetic and its "no call
 * left" mark (RT_AT_NONE) apart.
 *
 * Idle stretches: --pace sleeps as long as the program did between calls,
 * so a recording that sat idle for days would replay for days.  A stretch
 * in which no thread made a call is the intersection, over the threads, of
 * each thread's own pauses (its time after its last call counts as one);
 * those longer than the idle limit are kept, sorted, and --pace shortens
 * each to the limit.  Intersecting thread by thread keeps only stretches
 * already longer than the limit, so the lists stay as short as the answer.
 *
 * Cold frees: a thread whose frees mostly find their object's slot out of
 * the cache has the replay loop prefetch the slots of its frees four ops
 * ahead (replay_loop.c: a second cursor and a ring of decoded ops, where
 * a missed slot costs ~20 ns).  The pass
 * stamps each 64-byte line of the object table with the number of the op
 * that last touched it, counting ops across all streams; a free whose line
 * was last touched COLD_AGE ops or more before counts as cold, and a
 * thread with at least one cold free in COLD_SHARE calls prefetches.  On
 * the real-program corpus perl's threads free cold at about one call in
 * four (a hash cleared or refilled), CPython at one in fifteen and the
 * others at one in fifty or fewer; only perl gains more than the
 * prefetch costs (docs/BENCHMARKS.md).
 *
 * Chains: a stream that, before it calls or signals anything, waits for
 * the signal that ends another stream can run on that stream's replay
 * thread, after it (replay.c): the pass notes each stream's last SIGNAL,
 * its leading WAITs and its first call's time.
 *
 * Memory comes from mmap, so the allocator under test has not been asked
 * for any of it before it is measured; the stream pages read are let go of
 * behind the pass (mt_let_go), as the load-time check does.
 */
#include "config.h"

#include <string.h>
#include <sys/mman.h>

#include "mapped.h"
#include "replay_internal.h"

/* slots of the object table that share a 64-byte cache line */
enum { SLOTS_A_LINE = 64 / sizeof(struct rt_slot), COLD_AGE = 16384, COLD_SHARE = 8 };
_Static_assert(64 % sizeof(struct rt_slot) == 0, "object slots tile a cache line");

/* The op stamps of the object table's lines, for the cold frees. */
struct stamps {
	uint32_t *line;
	size_t bytes;
	uint32_t now; /* ops so far, all streams; wraps, as ages are differences */
};

struct gaps {
	struct rt_gap *v;
	size_t n, cap; /* cap in entries; v is cap * sizeof *v bytes of mmap */
};

static int push(struct gaps *g, uint64_t from, uint64_t to)
{
	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 256;
		void *v = g->v ? mremap(g->v, g->cap * sizeof *g->v, cap * sizeof *g->v, MREMAP_MAYMOVE)
			       : mmap(NULL, cap * sizeof *g->v, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (v == MAP_FAILED)
			return -1;
		g->v = v;
		g->cap = cap;
	}
	g->v[g->n++] = (struct rt_gap){ from, to };
	return 0;
}

static void drop(struct gaps *g)
{
	if (g->v)
		munmap(g->v, g->cap * sizeof *g->v);
	*g = (struct gaps){ 0 };
}

/* into = a ∩ b, keeping pieces longer than cap; both sorted and disjoint. */
static int intersect(const struct gaps *a, const struct gaps *b, uint64_t cap, struct gaps *into)
{
	size_t i = 0, j = 0;
	into->n = 0;
	while (i < a->n && j < b->n) {
		uint64_t from = a->v[i].from > b->v[j].from ? a->v[i].from : b->v[j].from;
		uint64_t to = a->v[i].to < b->v[j].to ? a->v[i].to : b->v[j].to;
		if (to > from && to - from > cap && push(into, from, to))
			return -1;
		if (a->v[i].to < b->v[j].to)
			i++;
		else
			j++;
	}
	return 0;
}

/* Notes an op touching the slots of old (which it frees, if not 0) and
 * new; 1 if the free is cold. */
static int touch_slots(struct stamps *s, uint64_t old, uint64_t new)
{
	int cold = 0;
	s->now++;
	if (old) {
		cold = (uint32_t)(s->now - s->line[old / SLOTS_A_LINE]) >= COLD_AGE;
		s->line[old / SLOTS_A_LINE] = s->now;
	}
	if (new)
		s->line[new / SLOTS_A_LINE] = s->now;
	return cold;
}

/* The stream pages the pass has read and not let go of.  Streams follow
 * one another in the file, so the pages of short ones are let go of
 * together: one madvise a stream cost 3,000 TLB shootdowns on a program
 * that ran a thread for each of 3,000 tasks. */
struct behind {
	const uint8_t *from, *to;
};

/* The pass has read up to p: what is behind goes once it is
 * MT_LET_GO_EVERY.  b->to is set at a stream's end (survey_thread), not
 * at every op. */
static void behind_upto(struct behind *b, const uint8_t *p)
{
	if (p - b->from >= MT_LET_GO_EVERY) {
		mt_let_go(b->from, p);
		b->from = p;
	}
}

/* One thread's stream: the call types it makes, its pauses longer than
 * cap into mine (when pacing), that its recorded times fit, and whether it
 * frees cold enough to prefetch. */
static int survey_thread(struct rt_replay *r, uint32_t i, uint64_t cap, struct gaps *mine,
			 struct stamps *stamps, struct behind *held, struct mt_error *e)
{
	const struct mt_wl_thread *wt = mt_wl_get_thread(r->wl, i);
	const uint8_t *p = mt_wl_stream(r->wl, i), *end = p + wt->length;
	const int timing = (r->info->flags & MT_WLF_TIMING) != 0;
	struct mt_op_state st = mt_wl_first_state(r->info);
	struct mt_op op;
	uint64_t rec = 0, last = 0, first = UINT64_MAX, calls = 0, cold = 0;
	unsigned lead = 0;
	int leading = 1; /* every op so far a WAIT */

	mine->n = 0;
	if (held->to != p) {
		mt_let_go(held->from, held->to);
		held->from = held->to = p;
	}
	struct rt_thread *t = &r->threads[i];
	while (p < end) {
		/* Cannot fail: trace_run opens the workload with the full check. */
		mt_op_decode(&p, end, &st, &op, timing);
		t->last_signal = op.code == MT_OP_SIGNAL ? op.sync + 1 : 0;
		leading = leading && op.code == MT_OP_WAIT;
		if (leading && lead < RT_LEAD_WAITS)
			t->lead_waits[lead++] = op.sync + 1;
		behind_upto(held, p);
		if (__builtin_add_overflow(rec, op.delta_ns, &rec) || rec > (uint64_t)INT64_MAX)
			return mt_error_set(e, mt_wl_path(r->wl), "thread %u (tid %u): recorded time "
					    "passes 2^63 ns", i, wt->tid);
		if (!mt_op_is_call(op.code))
			continue;
		t->used |= 1u << op.code;
		calls++;
		cold += touch_slots(stamps, op.old_obj, op.new_obj);
		if (mt_call_allocates(op.code) && op.new_obj &&
		    __builtin_add_overflow(r->alloc_bytes, mt_op_requested(&op), &r->alloc_bytes))
			r->alloc_bytes = UINT64_MAX;
		if (first == UINT64_MAX)
			first = rec;
		if (r->o->pace && rec - last > cap && push(mine, last, rec))
			return mt_error_set(e, mt_wl_path(r->wl), "out of memory for idle stretches");
		last = rec;
	}
	behind_upto(held, end);
	held->to = end;
	t->prefetch = cold && cold >= calls / COLD_SHARE;
	_Static_assert(RT_AT_NONE == UINT64_MAX, "a stream without calls has its first at none");
	t->first_call_ns = first;
	if (first != UINT64_MAX) {
		r->first_call_ns = first < r->first_call_ns ? first : r->first_call_ns;
		r->last_call_ns = last > r->last_call_ns ? last : r->last_call_ns;
	}
	if (r->o->pace && push(mine, last, UINT64_MAX))
		return mt_error_set(e, mt_wl_path(r->wl), "out of memory for idle stretches");
	return 0;
}

int rt_survey(struct rt_replay *r, struct mt_error *e)
{
	struct gaps all = { 0 }, mine = { 0 }, next = { 0 };
	struct behind held = { 0 };
	struct stamps stamps = { .bytes = (r->info->objects / SLOTS_A_LINE + 1) * sizeof(uint32_t) };
	uint64_t cap = r->idle_cap_ns;
	int rc = push(&all, 0, UINT64_MAX);

	r->first_call_ns = UINT64_MAX;
	stamps.line = mmap(NULL, stamps.bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			   -1, 0);
	if (stamps.line == MAP_FAILED) {
		drop(&all);
		return mt_error_set(e, mt_wl_path(r->wl), "out of memory for the object table's stamps");
	}

	for (uint32_t i = 0; !rc && i < r->info->threads; i++) {
		rc = survey_thread(r, i, cap, &mine, &stamps, &held, e);
		if (!rc && r->o->pace) {
			if (intersect(&all, &mine, cap, &next))
				rc = mt_error_set(e, mt_wl_path(r->wl), "out of memory for idle stretches");
			struct gaps swap = all;
			all = next;
			next = swap;
		}
	}
	mt_let_go(held.from, held.to);
	munmap(stamps.line, stamps.bytes);
	drop(&mine);
	drop(&next);
	/* The stretch after the last call of all is no pause: the replay ends. */
	if (!rc && all.n && all.v[all.n - 1].to == UINT64_MAX)
		all.n--;
	if (rc || !r->o->pace || !all.n) {
		drop(&all);
		return rc;
	}
	r->gaps = all.v;
	r->ngaps = all.n;
	r->gaps_bytes = all.cap * sizeof *all.v;
	for (size_t g = 0; g < all.n; g++)
		r->idle_cut_ns += all.v[g].to - all.v[g].from - cap;
	return 0;
}
