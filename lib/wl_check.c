/*
 * wl_check.c - prove a workload replayable before a replay starts.
 *
 * The check plays the workload without calling malloc: threads run until
 * they wait for a sync point not yet signalled, and run again when it is.
 * Along the way every object must be allocated exactly once and be live when
 * a call passes it in, every op must decode, and the counts must match the
 * header and thread table.  If threads remain blocked when none can run, a
 * replay would hang there, so that is reported too.  Memory: two bits per
 * object and four bytes per sync point, both bounded by the file's size.
 */
#include "config.h"

#include <stdlib.h>

#include "wl_internal.h"

#define SIGNALLED UINT32_MAX /* sync state; 0 = not yet, else first waiter + 1 */

struct run {
	const uint8_t *p, *end;
	struct mt_op_state st;
	uint64_t ops;
	uint32_t next_waiter; /* + 1, in the list of the sync it waits on */
};

struct check {
	const struct mt_wl *w;
	struct mt_error *e;
	struct run *runs;
	uint32_t *ready, nready;
	uint8_t *allocated, *freed; /* bitmaps by object index */
	uint32_t *sync;
	uint64_t objects, calls[16];
};

static int bit(const uint8_t *map, uint64_t i)
{
	return map[i >> 3] >> (i & 7) & 1;
}

static void set_bit(uint8_t *map, uint64_t i)
{
	map[i >> 3] |= (uint8_t)(1u << (i & 7));
}

static int op_error(struct check *c, uint32_t t, const char *what, uint64_t v)
{
	const struct mt_wl_thread *th = &c->w->threads[t];
	return mt_error_set(c->e, c->w->path, "thread %u (tid %u), op %llu: %s %llu", t, th->tid,
			    (unsigned long long)c->runs[t].ops, what, (unsigned long long)v);
}

static int use_object(struct check *c, uint32_t t, const struct mt_op *op)
{
	if (op->old_obj) {
		if (op->old_obj > c->w->info.objects)
			return op_error(c, t, "object index out of range:", op->old_obj);
		if (!bit(c->allocated, op->old_obj))
			return op_error(c, t, "uses an object before it is allocated:", op->old_obj);
		if (bit(c->freed, op->old_obj))
			return op_error(c, t, "uses an object after it was freed:", op->old_obj);
		if (mt_op_releases_old(op))
			set_bit(c->freed, op->old_obj);
	}
	if (op->new_obj) {
		if (op->new_obj > c->w->info.objects)
			return op_error(c, t, "object index out of range:", op->new_obj);
		if (bit(c->allocated, op->new_obj))
			return op_error(c, t, "allocates an object a second time:", op->new_obj);
		set_bit(c->allocated, op->new_obj);
		c->objects++;
	}
	c->calls[op->code]++;
	return 0;
}

/* Returns 1 if the thread must wait on this op, 0 to go on, -1 on error. */
static int sync_op(struct check *c, uint32_t t, const struct mt_op *op)
{
	if (op->sync >= c->w->info.syncs)
		return op_error(c, t, "sync point out of range:", op->sync);
	uint32_t *s = &c->sync[op->sync];
	if (op->code == MT_OP_WAIT) {
		if (*s == SIGNALLED)
			return 0;
		c->runs[t].next_waiter = *s;
		*s = t + 1;
		return 1;
	}
	if (*s == SIGNALLED)
		return op_error(c, t, "signals a second time: sync point", op->sync);
	for (uint32_t x = *s; x; x = c->runs[x - 1].next_waiter)
		c->ready[c->nready++] = x - 1;
	*s = SIGNALLED;
	return 0;
}

/* Runs thread t until it blocks or ends. */
static int run_thread(struct check *c, uint32_t t)
{
	struct run *r = &c->runs[t];
	int timing = c->w->info.flags & MT_WLF_TIMING;
	struct mt_op op;

	while (r->p < r->end) {
		uint64_t at = (uint64_t)(r->p - c->w->map);
		if (mt_op_decode(&r->p, r->end, &r->st, &op, timing) < 0)
			return op_error(c, t, "does not decode, at offset", at);
		int rc = mt_op_is_call(op.code) ? use_object(c, t, &op) : sync_op(c, t, &op);
		r->ops++;
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
			return op_error(c, t, "waits forever (no thread signals it) before byte",
					(uint64_t)(c->runs[t].p - c->w->map));
		if (c->runs[t].ops != c->w->threads[t].ops)
			return op_error(c, t, "stream ends; the thread table says ops:",
					c->w->threads[t].ops);
	}
	if (c->objects != in->objects)
		return mt_error_set(c->e, c->w->path, "header says %llu objects, streams allocate %llu",
				    (unsigned long long)in->objects, (unsigned long long)c->objects);
	for (int i = 0; i < 16; i++)
		if (c->calls[i] != in->calls[i])
			return mt_error_set(c->e, c->w->path, "header says %llu %s calls, streams hold %llu",
					    (unsigned long long)in->calls[i], mt_op_name((unsigned)i),
					    (unsigned long long)c->calls[i]);
	return 0;
}

static int play(struct check *c)
{
	uint32_t n = c->w->info.threads;
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
	size_t bits = (size_t)(w->info.objects / 8 + 1);
	struct check c = {
		.w = w,
		.e = e,
		.runs = calloc(n ? n : 1, sizeof *c.runs),
		.ready = calloc(n ? n : 1, sizeof *c.ready),
		.allocated = calloc(bits, 1),
		.freed = calloc(bits, 1),
		.sync = calloc(w->info.syncs ? w->info.syncs : 1, sizeof *c.sync),
	};
	int rc = -1;
	if (!c.runs || !c.ready || !c.allocated || !c.freed || !c.sync)
		mt_error_set(e, w->path, "out of memory to check %llu objects",
			     (unsigned long long)w->info.objects);
	else
		rc = play(&c);
	free(c.runs);
	free(c.ready);
	free(c.allocated);
	free(c.freed);
	free(c.sync);
	return rc;
}
