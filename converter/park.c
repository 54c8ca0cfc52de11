/*
 * park.c - hold threads back where timestamps contradict causality.
 *
 * Per-thread timestamps are taken around, not at, the moment the allocator
 * hands a block over, and the cores' clocks may disagree by a little, so a
 * trace can show a call before another thread's call it depends on.  Two
 * waits repair that, however long the chain of them:
 *
 * - An allocation that returns an address still live waits for its free:
 *   the thread is parked - taken out of the merge with all its later
 *   records - until some thread frees that address.  If only parked threads
 *   remain, the trace is contradictory (a free was lost or the file is
 *   corrupt): the oldest block they wait on is taken as freed, with a
 *   warning, so conversion always finishes.
 * - A free (or realloc) of an address not live waits for its allocation:
 *   the thread is held - kept in the merge, keyed by a deadline of its
 *   record's time plus the clock skew allowed - and woken, back to its own
 *   time, as soon as some thread allocates that address.  A held thread
 *   that reaches the top of the merge has seen every running thread pass
 *   its deadline (parked and held ones are not running): no allocation is
 *   coming, and the free is of a block never seen (allocated before
 *   recording) or a double free.
 *
 * Both waits let the other threads run on, past the waiting thread's later
 * calls, so the sooner a wait ends the fewer calls are paired wrongly.  One
 * cause of long parks is known and cut short: a realloc is stamped when it
 * returns, after it freed its old block, so a thread preempted inside one
 * shows the free long after another thread took the address again.  That
 * realloc, when it is the next call of some thread, is converted first.
 */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "conv_internal.h"

void conv_warn(struct conv *c, const char *fmt, ...)
{
	if (c->res.problems++ >= CONV_NOTES)
		return;
	char *note = c->res.notes[c->res.problems - 1];
	int n = snprintf(note, MT_ERROR_MAX, "%s: ", c->in_name);
	if (n < 0 || n >= MT_ERROR_MAX)
		n = 0; /* a name too long to quote: the message alone */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(note + n, MT_ERROR_MAX - (size_t)n, fmt, ap);
	va_end(ap);
}

/* Whether r releases addr before it is stamped: a realloc is stamped when it
 * returns, after freeing its old block, and a thread preempted inside one
 * shows the release long after another thread took the address again. */
static int releases_early(const struct mt_rec *r, uint64_t addr)
{
	return (r->call == MT_CALL_REALLOC || r->call == MT_CALL_REALLOCARRAY) &&
	       !(r->flags & MT_RF_NULL_IN) && r->ptr_in == addr;
}

/* y's next call, looking past allocator events (the deriver stamps those
 * inside the call, just before it); NULL if none is read ahead. */
static const struct mt_rec *next_call(const struct src *y)
{
	for (unsigned i = 0; i < y->ahead_count; i++) {
		const struct mt_rec *r = &y->ahead[(y->ahead_first + i) & y->ahead_mask].r;
		if (r->call != MT_CALL_EVENT)
			return r;
	}
	return NULL;
}

/* Parks s until addr is freed.  If the release it waits for is a realloc at
 * another thread's head, that thread goes first, at s's time: waiting for
 * its stamp would let every thread run ahead of s's later calls. */
void park_on_address(struct conv *c, uint32_t s, uint64_t addr)
{
	struct src *x = &c->src[s];
	x->state = SRC_PARKED;
	x->park_addr = addr;
	c->parked[c->nparked++] = s;
	for (size_t i = 0; i < c->nheap; i++) {
		struct src *y = &c->src[c->heap[i]];
		const struct mt_rec *r = next_call(y);
		if (y->state == SRC_RUNNING && y->key > x->head->ts && r && releases_early(r, addr)) {
			y->key = x->head->ts;
			c->woken[c->nwoken++] = c->heap[i]; /* s still tops the heap */
		}
	}
}

/* s's new head may be the release a parked thread waits for: then it goes
 * at that thread's time, as in park_on_address. */
void pull_early_release(struct conv *c, uint32_t s)
{
	struct src *x = &c->src[s];
	const struct mt_rec *r = next_call(x);
	for (size_t i = 0; r && i < c->nparked; i++) {
		const struct src *p = &c->src[c->parked[i]];
		if (p->head->ts < x->key && releases_early(r, p->park_addr))
			x->key = p->head->ts;
	}
}

/* Wakes the threads of list waiting on addr: they go back to their record's
 * time, so they run before threads whose records are later. */
static void wake(struct conv *c, uint32_t *list, size_t *n, uint64_t addr)
{
	for (size_t i = 0; i < *n;) {
		uint32_t s = list[i];
		if (c->src[s].park_addr != addr) {
			i++;
			continue;
		}
		list[i] = list[--*n];
		c->src[s].state = SRC_RUNNING;
		c->src[s].key = c->src[s].head->ts;
		c->woken[c->nwoken++] = s; /* the loop still works on the heap's top */
	}
}

/* Called when addr is released: its waiters may now take it. */
void unpark_address(struct conv *c, uint64_t addr)
{
	wake(c, c->parked, &c->nparked, addr);
}

int hold_for_address(struct conv *c, uint32_t s, uint64_t addr)
{
	struct am_entry *e = am_get(&c->map, addr);
	if (!e)
		return mt_error_set(c->e, c->out_name, "out of memory for %zu live blocks",
				    c->map.live);
	e->wanted = 1;
	struct src *x = &c->src[s];
	x->state = SRC_HELD;
	x->park_addr = addr;
	x->key = x->head->ts + c->skew < x->head->ts ? UINT64_MAX : x->head->ts + c->skew;
	c->holding[c->nholding++] = s;
	return 0;
}

/* Called when addr is allocated: the frees held for it may now pass. */
void unhold_address(struct conv *c, uint64_t addr)
{
	wake(c, c->holding, &c->nholding, addr);
}

void end_hold(struct conv *c, uint32_t s)
{
	struct src *x = &c->src[s];
	x->state = SRC_RUNNING;
	for (size_t i = 0; i < c->nholding; i++)
		if (c->holding[i] == s) {
			c->holding[i] = c->holding[--c->nholding];
			break;
		}
	for (size_t i = 0; i < c->nholding; i++)
		if (c->src[c->holding[i]].park_addr == x->park_addr)
			return;
	am_find(&c->map, x->park_addr)->wanted = 0;
}

void break_cycle(struct conv *c)
{
	struct am_entry *oldest = NULL;
	uint32_t who = 0;
	for (size_t i = 0; i < c->nparked; i++) {
		uint32_t s = c->parked[i];
		struct am_entry *e = am_find(&c->map, c->src[s].park_addr);
		if (!oldest || e->obj < oldest->obj) {
			oldest = e;
			who = s;
		}
	}
	const struct src *x = &c->src[who];
	conv_warn(c, "0x%" PRIx64 " returned at record %" PRIu32 ":%" PRIu64
		  " while still allocated (never freed in the trace); taking it as freed",
		  oldest->addr, x->tid, x->recno);
	c->res.cycles_broken++;
	c->live_bytes -= oldest->size;
	oldest->obj = x->tid;
	oldest->size = x->recno;
	am_set_freed(&c->map, oldest);
	unpark_address(c, oldest->addr);
}
