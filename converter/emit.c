/*
 * emit.c - the output side of trace2wl: ops into per-thread streams, and the
 * sync points that keep a replay causally valid.
 *
 * Two rules add sync points.  A thread's first op waits for the thread whose
 * call preceded it (its creator, as far as a trace can tell).  A call that
 * passes in a block owned by another thread waits for a signal placed at the
 * owner's stream end, unless it already waited on the owner at or after the
 * allocation (or the block's last use, see convert.c).  A signal nobody
 * consumed yet is reused, so a burst of handoffs from one owner costs one
 * SIGNAL.  Knowledge is transitive: a
 * thread that waited on A also knows whatever A had waited for; the clocks
 * that say so (lib/vclock.h) share their common parts, so a program that
 * starts thousands of threads one after another costs memory and time near
 * linear in their number.
 */
#include "config.h"

#include "conv_internal.h"

/* A signal at the end of a's stream: everything a did so far precedes it. */
static int signal_at_end(struct conv *c, uint32_t a, uint64_t *id)
{
	struct src *x = &c->src[a];
	if (!x->has_sig || x->sig_pos != x->ops) {
		struct mt_op op = { .code = MT_OP_SIGNAL, .sync = c->res.syncs };
		if (emit_op(c, a, &op) < 0)
			return -1;
		x->sig_id = c->res.syncs++;
		x->sig_pos = x->ops;
		x->has_sig = 1;
		if (x->state == SRC_DONE && emit_thread_done(c, a) < 0)
			return -1;
	}
	*id = x->sig_id;
	return 0;
}

static int wait_for(struct conv *c, uint32_t s, uint32_t a)
{
	uint64_t id;
	if (signal_at_end(c, a, &id) < 0)
		return -1;
	struct mt_op op = { .code = MT_OP_WAIT, .sync = id };
	if (emit_op(c, s, &op) < 0)
		return -1;
	/* The signal sits at a's end, so what a knew then is what it knows
	 * now: s inherits it, and needs no wait of its own on those threads. */
	struct src *x = &c->src[s], *y = &c->src[a];
	if (mt_vc_join(&c->clocks, &x->known, &y->known) < 0 ||
	    mt_vc_raise(&c->clocks, &x->known, a, y->ops) < 0)
		return mt_error_set(c->e, c->out_name, "out of memory for the threads' clocks");
	return 0;
}

/*
 * A new stream also waits for the end of a thread that has ended and that
 * no new stream waits for yet, even where it knows of that end through
 * another thread: in the recording that end came first, so the wait holds
 * nothing back, and it lets trace_run run the two streams
 * on one replay thread, one after the other (trace_run/replay.c, chain): a
 * program that starts a thread for each piece of work and joins it would
 * otherwise replay with a thread, a stack and a stream window for every
 * thread it ever ran (3,000 CPython threads: 138 MB before the clock).
 * Where that thread made the last call before this one, the first wait
 * was on its end already.
 */
int emit_stream(struct conv *c, uint32_t s)
{
	struct src *x = &c->src[s];
	if (x->wl >= 0)
		return 0;
	if ((x->wl = mt_wl_writer_thread(c->w, x->tid, c->e)) < 0)
		return -1;
	c->res.threads++;
	if (c->last_caller >= 0 && wait_for(c, s, (uint32_t)c->last_caller) < 0)
		return -1;
	if (c->nended) {
		uint32_t a = c->ended[--c->nended];
		if (a != s && (int)a != c->last_caller && wait_for(c, s, a) < 0)
			return -1;
	}
	return 0;
}

/* s waits for a's stream up to pos ops, unless it knows that much already. */
static int wait_unless_known(struct conv *c, uint32_t s, uint32_t a, uint64_t pos)
{
	if (emit_stream(c, s) < 0)
		return -1;
	if (mt_vc_get(&c->clocks, &c->src[s].known, a) >= pos)
		return 0;
	return wait_for(c, s, a);
}

int emit_handoff(struct conv *c, uint32_t s, const struct am_entry *obj)
{
	return wait_unless_known(c, s, am_owner(&c->map, obj), am_pos(&c->map, obj));
}

int emit_wait_all(struct conv *c, uint32_t s, uint32_t a)
{
	return wait_unless_known(c, s, a, c->src[a].ops);
}

/* A thread with no records left only ever gets signals now and then: its
 * buffer goes back, so threads that ended cost no stream memory. */
int emit_thread_done(struct conv *c, uint32_t s)
{
	int wl = c->src[s].wl;
	return wl < 0 ? 0 : mt_wl_writer_flush_thread(c->w, wl, c->e);
}

