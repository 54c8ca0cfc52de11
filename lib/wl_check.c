/*
 * wl_check.c - prove a workload replayable before a replay starts.
 *
 * A replay runs each stream in its own thread, and the only order between
 * threads is what the sync points impose: any interleaving they allow may
 * happen.  So the check does not trust the order it happens to play the
 * streams in.  It tracks happens-before with a vector clock per thread
 * (lib/vclock.h): a WAIT takes in the clock of the thread that signalled, as
 * it was at the SIGNAL, and that thread's position there.  Each live object
 * remembers the thread and stream position of its allocation or last use,
 * and every call that passes it in must come after that in happens-before:
 * in the same thread, or after a wait that covers it.  A use is then ordered
 * after the allocation and every earlier use, whatever the interleaving, and
 * a free after all of them.
 *
 * The play itself runs threads until they wait for a sync point not yet
 * signalled; if threads remain blocked when none can run, a replay would
 * hang there.  Every op must decode, every object be live when passed in
 * and allocated again only after it was freed (a free the allocation is
 * ordered after, as for a use), every sync point be signalled once, and
 * the counts must match the header and table.
 *
 * A first pass decodes every op and counts the SIGNALs and the waits on
 * each sync point (so the clock a SIGNAL leaves is dropped after its last
 * waiter); the play then decodes the ops again, each thread letting go of
 * the stream pages behind it (mt_let_go).  Memory: 8 bytes and 2 bits per
 * object index, 20 bytes per sync point (both bounded by the file's size),
 * and the clocks, which share what they have in common.
 */
#include "config.h"

#include <stdlib.h>

#include "mapped.h"
#include "vclock.h"
#include "wl_internal.h"

/* Thread and stream position packed in 64 bits: a point in the workload. */
#define POS_BITS 40
#define AT(t, pos) ((uint64_t)(t) << POS_BITS | (pos))
#define AT_THREAD(at) ((uint32_t)((at) >> POS_BITS))
#define AT_POS(at) ((at) & ((1ull << POS_BITS) - 1))

struct run {
	const uint8_t *p, *end, *held; /* held: the first byte not let go of */
	struct mt_op_state st;
	uint64_t ops;
	struct mt_vclock clock;
	uint32_t next_waiter; /* + 1, in the list of the sync it waits on */
};

/* A sync point: before its SIGNAL the threads blocked on it, after it the
 * signaller's clock and position until the last WAIT has taken them. */
struct sync {
	union {
		uint32_t first_waiter; /* + 1, 0 for none */
		struct mt_vclock clock;
	} u;
	uint64_t at;               /* the SIGNAL, AT(thread, position); 0 before */
};

struct check {
	const struct mt_wl *w;
	struct mt_error *e;
	struct run *runs;
	uint32_t *ready, nready;
	/* By object index: where it was allocated, last used or freed, and
	 * whether it was ever allocated and is live now (bitmaps).  Tables as
	 * long as the highest index, from mmap, so the allocator a replay is
	 * about to measure keeps none of them. */
	uint64_t *obj_at;
	uint8_t *seen, *live;
	struct sync *sync;
	uint32_t *waits_left;      /* WAITs still to come, per sync point */
	struct mt_vc_pool clocks;
	uint64_t top, signals, calls[16];
};

static int bit(const uint8_t *map, uint64_t i)
{
	return map[i >> 3] >> (i & 7) & 1;
}

static void set_bit(uint8_t *map, uint64_t i)
{
	map[i >> 3] |= (uint8_t)(1u << (i & 7));
}

static void clear_bit(uint8_t *map, uint64_t i)
{
	map[i >> 3] &= (uint8_t)~(1u << (i & 7));
}

static int op_error(struct check *c, uint32_t t, uint64_t op, const char *what, uint64_t v)
{
	const struct mt_wl_thread *th = &c->w->threads[t];
	return mt_error_set(c->e, c->w->path, "thread %u (tid %u), op %llu: %s %llu", t, th->tid,
			    (unsigned long long)op, what, (unsigned long long)v);
}

/* ---- the play ---- */

/* Thread t, at stream position pos, is ordered after at in every replay
 * order: at is its own, or a wait it made covers it.  Else the error. */
static int after(struct check *c, uint32_t t, uint64_t pos, uint64_t o, uint64_t at,
		 const char *what)
{
	if (AT_THREAD(at) == t || mt_vc_get(&c->clocks, &c->runs[t].clock, AT_THREAD(at)) >= AT_POS(at))
		return 0;
	return mt_error_set(c->e, c->w->path, "thread %u (tid %u), op %llu: %s object %llu with no "
			    "wait after thread %u's op %llu, which %s it", t, c->w->threads[t].tid,
			    (unsigned long long)(pos - 1), what, (unsigned long long)o, AT_THREAD(at),
			    (unsigned long long)(AT_POS(at) - 1),
			    bit(c->live, o) ? "allocated or used" : "freed");
}

/* Thread t passes in op->old_obj, or allocates op->new_obj, at stream
 * position pos (its ops up to and including this one).  An object index
 * may be allocated again once its block is freed, by a call ordered after
 * that free: the replay keeps one slot per index. */
static int use_object(struct check *c, uint32_t t, uint64_t pos, const struct mt_op *op)
{
	if (op->old_obj) {
		uint64_t o = op->old_obj;
		if (o > c->w->info.objects)
			return op_error(c, t, pos - 1, "object index out of range:", o);
		if (!bit(c->seen, o))
			return op_error(c, t, pos - 1, "uses an object before it is allocated:", o);
		if (!bit(c->live, o))
			return op_error(c, t, pos - 1, "uses an object after it was freed:", o);
		if (after(c, t, pos, o, c->obj_at[o], "uses"))
			return -1;
		if (mt_op_releases_old(op))
			clear_bit(c->live, o);
		c->obj_at[o] = AT(t, pos);
	}
	if (op->new_obj) {
		uint64_t o = op->new_obj;
		if (o > c->w->info.objects)
			return op_error(c, t, pos - 1, "object index out of range:", o);
		if (bit(c->live, o))
			return op_error(c, t, pos - 1, "allocates an object still live:", o);
		if (bit(c->seen, o) && after(c, t, pos, o, c->obj_at[o], "allocates again"))
			return -1;
		set_bit(c->seen, o);
		set_bit(c->live, o);
		c->obj_at[o] = AT(t, pos);
		if (o > c->top)
			c->top = o;
	}
	c->calls[op->code]++;
	return 0;
}

/* Thread t has waited on s: it now knows what the signaller knew there. */
static int take_clock(struct check *c, uint32_t t, uint64_t s)
{
	struct sync *y = &c->sync[s];
	struct mt_vclock *mine = &c->runs[t].clock;
	if (mt_vc_join(&c->clocks, mine, &y->u.clock) < 0 ||
	    mt_vc_raise(&c->clocks, mine, AT_THREAD(y->at), AT_POS(y->at)) < 0)
		return mt_error_set(c->e, c->w->path, "out of memory for the threads' clocks");
	if (!--c->waits_left[s])
		mt_vc_clear(&c->clocks, &y->u.clock);
	return 0;
}

/* Returns 1 if the thread must wait on this op, 0 to go on, -1 on error. */
static int sync_op(struct check *c, uint32_t t, uint64_t pos, const struct mt_op *op)
{
	struct sync *y = &c->sync[op->sync];
	if (op->code == MT_OP_WAIT) {
		if (y->at)
			return take_clock(c, t, op->sync);
		c->runs[t].next_waiter = y->u.first_waiter;
		y->u.first_waiter = t + 1;
		return 1;
	}
	if (y->at)
		return op_error(c, t, pos - 1, "signals a second time: sync point", op->sync);
	uint32_t waiter = y->u.first_waiter;
	y->at = AT(t, pos);
	y->u.clock = (struct mt_vclock){ NULL };
	mt_vc_copy(&c->clocks, &y->u.clock, &c->runs[t].clock);
	for (; waiter; waiter = c->runs[waiter - 1].next_waiter) {
		if (take_clock(c, waiter - 1, op->sync) < 0)
			return -1;
		c->ready[c->nready++] = waiter - 1;
	}
	if (!c->waits_left[op->sync])
		mt_vc_clear(&c->clocks, &y->u.clock);
	return 0;
}

/* Runs thread t until it blocks or ends. */
static int run_thread(struct check *c, uint32_t t)
{
	struct run *r = &c->runs[t];
	int timing = c->w->info.flags & MT_WLF_TIMING;
	struct mt_op op;

	while (r->p < r->end) {
		/* Cannot fail: count_waits decoded every op first. */
		mt_op_decode(&r->p, r->end, &r->st, &op, timing);
		r->ops++;
		if (r->p - r->held >= MT_LET_GO_EVERY) {
			mt_let_go(r->held, r->p);
			r->held = r->p;
		}
		int rc = mt_op_is_call(op.code) ? use_object(c, t, r->ops, &op)
						: sync_op(c, t, r->ops, &op);
		if (rc)
			return rc < 0 ? -1 : 0;
	}
	return 0;
}

static int final_counts(struct check *c)
{
	const struct mt_wl_info *in = &c->w->info;
	for (uint32_t t = 0; t < in->threads; t++) {
		if (c->runs[t].p < c->runs[t].end)
			return op_error(c, t, c->runs[t].ops,
					"waits forever (no thread signals it) before byte",
					(uint64_t)(c->runs[t].p - c->w->map));
		if (c->runs[t].ops != c->w->threads[t].ops)
			return op_error(c, t, c->runs[t].ops, "stream ends; the thread table says ops:",
					c->w->threads[t].ops);
	}
	if (c->top != in->objects)
		return mt_error_set(c->e, c->w->path, "header says %llu objects, the highest index the "
				    "streams allocate is %llu", (unsigned long long)in->objects,
				    (unsigned long long)c->top);
	/* No id is out of range or signalled twice, so as many SIGNALs as
	 * sync points means every id is signalled once. */
	if (c->signals != in->syncs)
		return mt_error_set(c->e, c->w->path, "header says %llu sync points, the streams "
				    "signal %llu", (unsigned long long)in->syncs,
				    (unsigned long long)c->signals);
	for (int i = 0; i < 16; i++)
		if (c->calls[i] != in->calls[i])
			return mt_error_set(c->e, c->w->path, "header says %llu %s calls, streams hold %llu",
					    (unsigned long long)in->calls[i], mt_op_name((unsigned)i),
					    (unsigned long long)c->calls[i]);
	return 0;
}

/* The first pass: every op decodes, every sync id is in range, how many
 * WAITs each sync point will see, and how many SIGNALs there are. */
static int count_waits(struct check *c)
{
	int timing = c->w->info.flags & MT_WLF_TIMING;
	for (uint32_t t = 0; t < c->w->info.threads; t++) {
		const uint8_t *p = c->w->map + c->w->threads[t].offset;
		const uint8_t *end = p + c->w->threads[t].length, *held = p;
		struct mt_op_state st = mt_wl_first_state(&c->w->info);
		struct mt_op op;
		for (uint64_t n = 0; p < end; n++) {
			uint64_t at = (uint64_t)(p - c->w->map);
			if (mt_op_decode(&p, end, &st, &op, timing) < 0)
				return op_error(c, t, n, "does not decode, at offset", at);
			if (p - held >= MT_LET_GO_EVERY) {
				mt_let_go(held, p);
				held = p;
			}
			if (mt_op_is_call(op.code))
				continue;
			if (op.sync >= c->w->info.syncs)
				return op_error(c, t, n, "sync point out of range:", op.sync);
			if (op.code == MT_OP_SIGNAL)
				c->signals++;
			else if (!++c->waits_left[op.sync])
				return op_error(c, t, n, "waits too often on sync point", op.sync);
		}
	}
	return 0;
}

static int play(struct check *c)
{
	uint32_t n = c->w->info.threads;
	if (count_waits(c) < 0)
		return -1;
	for (uint32_t t = 0; t < n; t++) {
		c->runs[t].p = c->runs[t].held = c->w->map + c->w->threads[t].offset;
		c->runs[t].st = mt_wl_first_state(&c->w->info);
		c->runs[t].end = c->runs[t].p + c->w->threads[t].length;
		c->ready[c->nready++] = n - 1 - t; /* thread 0 runs first */
	}
	while (c->nready)
		if (run_thread(c, c->ready[--c->nready]) < 0)
			return -1;
	return final_counts(c);
}

/* The tables, all from mmap (see struct check): n entries of size each. */
static void *table(size_t n, size_t size, size_t *bytes)
{
	*bytes = n * size;
	return mt_pages(*bytes);
}

int mt_wl_check(const struct mt_wl *w, struct mt_error *e)
{
	uint32_t n = w->info.threads ? w->info.threads : 1;
	/* parse_threads bounds objects and syncs by the file's size */
	size_t syncs = w->info.syncs ? (size_t)w->info.syncs : 1, objects = (size_t)w->info.objects + 1;
	size_t b_runs, b_ready, b_at, b_seen, b_live, b_sync, b_waits;
	struct check c = {
		.w = w,
		.e = e,
		.runs = table(n, sizeof *c.runs, &b_runs),
		.ready = table(n, sizeof *c.ready, &b_ready),
		.obj_at = table(objects, sizeof *c.obj_at, &b_at),
		.seen = table(objects / 8 + 1, 1, &b_seen),
		.live = table(objects / 8 + 1, 1, &b_live),
		.sync = table(syncs, sizeof *c.sync, &b_sync),
		.waits_left = table(syncs, sizeof *c.waits_left, &b_waits),
	};
	mt_vc_pool_init(&c.clocks, w->info.threads);
	int rc = -1;
	if (!c.runs || !c.ready || !c.obj_at || !c.seen || !c.live || !c.sync || !c.waits_left)
		mt_error_set(e, w->path, "out of memory to check %llu objects",
			     (unsigned long long)w->info.objects);
	else
		rc = play(&c);
	mt_vc_pool_free(&c.clocks);
	mt_pages_free(c.runs, b_runs);
	mt_pages_free(c.ready, b_ready);
	mt_pages_free(c.obj_at, b_at);
	mt_pages_free(c.seen, b_seen);
	mt_pages_free(c.live, b_live);
	mt_pages_free(c.sync, b_sync);
	mt_pages_free(c.waits_left, b_waits);
	mt_let_go(w->map, w->map + w->len);
	return rc;
}
