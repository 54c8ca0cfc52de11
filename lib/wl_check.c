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
 * hang there.  Every op must decode, every object be allocated once and be
 * live when passed in, every sync point be signalled once, and the counts
 * must match the header and table.
 *
 * A first pass decodes every op and counts the SIGNALs and the waits on
 * each sync point (so the clock a SIGNAL leaves is dropped after its last
 * waiter); the play then decodes the ops again.  Memory: a bit per object, 20
 * bytes per sync point (both bounded by the file's size), 32 bytes per live
 * object, and the clocks, which share what they have in common.
 */
#include "config.h"

#include <stdlib.h>

#include "vclock.h"
#include "wl_internal.h"

/* Thread and stream position packed in 64 bits: a point in the workload. */
#define POS_BITS 40
#define AT(t, pos) ((uint64_t)(t) << POS_BITS | (pos))
#define AT_THREAD(at) ((uint32_t)((at) >> POS_BITS))
#define AT_POS(at) ((at) & ((1ull << POS_BITS) - 1))

struct run {
	const uint8_t *p, *end;
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

/* Live objects: object index -> where it was allocated or last used. */
struct live {
	uint64_t *key, *at;        /* key 0: empty slot */
	size_t mask, n;
};

struct check {
	const struct mt_wl *w;
	struct mt_error *e;
	struct run *runs;
	uint32_t *ready, nready;
	uint8_t *allocated;        /* bitmap by object index */
	struct live live;
	struct sync *sync;
	uint32_t *waits_left;      /* WAITs still to come, per sync point */
	struct mt_vc_pool clocks;
	uint64_t objects, signals, calls[16];
};

static int bit(const uint8_t *map, uint64_t i)
{
	return map[i >> 3] >> (i & 7) & 1;
}

static void set_bit(uint8_t *map, uint64_t i)
{
	map[i >> 3] |= (uint8_t)(1u << (i & 7));
}

static int op_error(struct check *c, uint32_t t, uint64_t op, const char *what, uint64_t v)
{
	const struct mt_wl_thread *th = &c->w->threads[t];
	return mt_error_set(c->e, c->w->path, "thread %u (tid %u), op %llu: %s %llu", t, th->tid,
			    (unsigned long long)op, what, (unsigned long long)v);
}

/* ---- live objects: linear probing, deletion by backward shift ---- */

static size_t live_slot(const struct live *l, uint64_t obj)
{
	return (size_t)((obj * 0x9e3779b97f4a7c15ull) >> 17) & l->mask;
}

static size_t live_find(const struct live *l, uint64_t obj)
{
	size_t i = live_slot(l, obj);
	while (l->key[i] && l->key[i] != obj)
		i = (i + 1) & l->mask;
	return i;
}

static int live_grow(struct live *l)
{
	size_t n = l->mask ? 2 * (l->mask + 1) : 1024;
	struct live g = { calloc(n, sizeof *g.key), calloc(n, sizeof *g.at), n - 1, l->n };
	if (!g.key || !g.at) {
		free(g.key);
		free(g.at);
		return -1;
	}
	for (size_t i = 0; l->mask && i <= l->mask; i++)
		if (l->key[i]) {
			size_t j = live_find(&g, l->key[i]);
			g.key[j] = l->key[i];
			g.at[j] = l->at[i];
		}
	free(l->key);
	free(l->at);
	*l = g;
	return 0;
}

static int live_put(struct live *l, uint64_t obj, uint64_t at)
{
	if (2 * (l->n + 1) > l->mask + 1 && live_grow(l) < 0)
		return -1;
	size_t i = live_find(l, obj);
	l->key[i] = obj;
	l->at[i] = at;
	l->n++;
	return 0;
}

static void live_remove(struct live *l, size_t i)
{
	l->key[i] = 0;
	l->n--;
	for (size_t j = (i + 1) & l->mask; l->key[j]; j = (j + 1) & l->mask) {
		size_t home = live_slot(l, l->key[j]);
		/* Move j back into the hole unless its home lies after the hole. */
		if (((j - home) & l->mask) >= ((j - i) & l->mask)) {
			l->key[i] = l->key[j];
			l->at[i] = l->at[j];
			l->key[j] = 0;
			i = j;
		}
	}
}

/* ---- the play ---- */

/* Thread t passes in op->old_obj, or allocates op->new_obj, at stream
 * position pos (its ops up to and including this one). */
static int use_object(struct check *c, uint32_t t, uint64_t pos, const struct mt_op *op)
{
	if (op->old_obj) {
		uint64_t o = op->old_obj;
		if (o > c->w->info.objects)
			return op_error(c, t, pos - 1, "object index out of range:", o);
		if (!bit(c->allocated, o))
			return op_error(c, t, pos - 1, "uses an object before it is allocated:", o);
		size_t i = live_find(&c->live, o);
		if (!c->live.key[i])
			return op_error(c, t, pos - 1, "uses an object after it was freed:", o);
		uint64_t at = c->live.at[i];
		if (AT_THREAD(at) != t && mt_vc_get(&c->clocks, &c->runs[t].clock, AT_THREAD(at)) < AT_POS(at))
			return mt_error_set(c->e, c->w->path,
					    "thread %u (tid %u), op %llu: uses object %llu with no wait "
					    "after thread %u's op %llu, which allocated or used it last",
					    t, c->w->threads[t].tid, (unsigned long long)(pos - 1),
					    (unsigned long long)o, AT_THREAD(at),
					    (unsigned long long)(AT_POS(at) - 1));
		if (mt_op_releases_old(op))
			live_remove(&c->live, i);
		else
			c->live.at[i] = AT(t, pos);
	}
	if (op->new_obj) {
		uint64_t o = op->new_obj;
		if (o > c->w->info.objects)
			return op_error(c, t, pos - 1, "object index out of range:", o);
		if (bit(c->allocated, o))
			return op_error(c, t, pos - 1, "allocates an object a second time:", o);
		set_bit(c->allocated, o);
		if (live_put(&c->live, o, AT(t, pos)) < 0)
			return mt_error_set(c->e, c->w->path, "out of memory for %zu live objects",
					    c->live.n);
		c->objects++;
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
	if (c->objects != in->objects)
		return mt_error_set(c->e, c->w->path, "header says %llu objects, streams allocate %llu",
				    (unsigned long long)in->objects, (unsigned long long)c->objects);
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
		const uint8_t *end = p + c->w->threads[t].length;
		struct mt_op_state st = { 0 };
		struct mt_op op;
		for (uint64_t n = 0; p < end; n++) {
			uint64_t at = (uint64_t)(p - c->w->map);
			if (mt_op_decode(&p, end, &st, &op, timing) < 0)
				return op_error(c, t, n, "does not decode, at offset", at);
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
		c->runs[t].p = c->w->map + c->w->threads[t].offset;
		c->runs[t].end = c->runs[t].p + c->w->threads[t].length;
		c->ready[c->nready++] = n - 1 - t; /* thread 0 runs first */
	}
	while (c->nready)
		if (run_thread(c, c->ready[--c->nready]) < 0)
			return -1;
	return final_counts(c);
}

int mt_wl_check(const struct mt_wl *w, struct mt_error *e)
{
	uint32_t n = w->info.threads;
	size_t syncs = w->info.syncs ? (size_t)w->info.syncs : 1;
	struct check c = {
		.w = w,
		.e = e,
		.runs = calloc(n ? n : 1, sizeof *c.runs),
		.ready = calloc(n ? n : 1, sizeof *c.ready),
		.allocated = calloc((size_t)(w->info.objects / 8 + 1), 1),
		.sync = calloc(syncs, sizeof *c.sync),
		.waits_left = calloc(syncs, sizeof *c.waits_left),
	};
	mt_vc_pool_init(&c.clocks, n);
	int rc = -1;
	if (!c.runs || !c.ready || !c.allocated || !c.sync || !c.waits_left || live_grow(&c.live) < 0)
		mt_error_set(e, w->path, "out of memory to check %llu objects",
			     (unsigned long long)w->info.objects);
	else
		rc = play(&c);
	mt_vc_pool_free(&c.clocks);
	free(c.runs);
	free(c.ready);
	free(c.allocated);
	free(c.live.key);
	free(c.live.at);
	free(c.sync);
	free(c.waits_left);
	return rc;
}
