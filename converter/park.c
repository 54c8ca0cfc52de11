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
 * calls, so the sooner a wait ends the fewer calls are paired wrongly.  The
 * stamps that caused the wait are often wrong by more than a nanosecond:
 * the cores of some machines (VMs) disagree by tens of microseconds, and a
 * realloc is stamped when it returns, after it freed its old block, so a
 * thread preempted inside one shows the free long after another thread
 * took the address again.  So of the running threads whose calls read
 * ahead bring what a waiting thread needs - the release for a parked one,
 * the allocation for a held one - the one whose call is stamped first goes
 * at the waiting thread's time, with its calls before that one, which its
 * program order put earlier still.
 */
#include "config.h"

#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>

#include "conv_internal.h"

void conv_warn(struct conv *c, const char *fmt, ...)
{
	if (c->res.problems++ >= CONV_NOTES)
		return;
	va_list ap;
	va_start(ap, fmt);
	mt_error_vset(&c->res.notes[c->res.problems - 1], c->in_name, fmt, ap);
	va_end(ap);
}

/* How many of a thread's calls read ahead may bring what another waits
 * for: a rule of the conversion, apart from how far ahead the loop reads
 * to prefetch (LOOKAHEAD_ONE, _USERS), so that tuning that leaves
 * workloads alone. */
#define PULL_AHEAD 8

/* The first of y's next PULL_AHEAD calls that passes in or returns addr,
 * or NULL.  addr is never 0, and the decoder leaves a pointer 0 exactly
 * where the call has none or it was NULL: the pointers alone say. */
static const struct mt_rec *next_use(const struct src *y, uint64_t addr)
{
	for (unsigned i = 0; i < y->ahead_count && i < PULL_AHEAD; i++) {
		const struct mt_rec *r = &y->ahead[(y->ahead_first + i) & y->ahead_mask].r;
		if (r->ptr_in == addr || r->ptr_out == addr)
			return r;
	}
	return NULL;
}

/*
 * y's next use of the address w waits for, if it may be what w waits for:
 * for a held thread an allocation (stamped on return, which can come late);
 * for a parked one a release (a realloc in place keeps the address) - a
 * realloc whatever its stamp, as it is stamped on return, after it freed
 * the block, but a free, stamped on entry, only if no later than w's record
 * give or take the cores' disagreement.
 */
static const struct mt_rec *candidate(const struct conv *c, const struct src *y,
				      const struct src *w)
{
	const struct mt_rec *r = next_use(y, w->park_addr);
	if (!r)
		return NULL;
	int takes = r->ptr_out == w->park_addr; /* else it passes the address in */
	if (w->state == SRC_HELD)
		return takes ? r : NULL;
	if (takes)
		return NULL;
	return mt_call_allocates(r->call) || r->ts <= w->head->ts + c->clock_error ? r : NULL;
}

/* Of the running threads, the one whose candidate is stamped first goes at
 * w's time (see the top of this file), and stays pulled while w waits. */
static void pull_for(struct conv *c, struct src *w)
{
	const struct mt_rec *best = NULL;
	for (size_t i = 0; i < c->nheap; i++) {
		const struct src *y = &c->src[c->heap[i]];
		const struct mt_rec *r = y->state == SRC_RUNNING ? candidate(c, y, w) : NULL;
		if (r && (!best || r->ts < best->ts)) {
			best = r;
			w->puller = c->heap[i];
		}
	}
	struct src *y = best ? &c->src[w->puller] : NULL;
	if (y && y->key > w->head->ts) {
		y->key = w->head->ts;
		c->woken[c->nwoken++] = w->puller; /* the loop still works on the top */
	}
}

/* Keeps s at the time of a thread it was pulled for, or pulls it for a
 * waiting thread that found no candidate so far. */
static void pull_on(struct conv *c, uint32_t s, const uint32_t *list, size_t n)
{
	struct src *x = &c->src[s];
	for (size_t i = 0; i < n; i++) {
		struct src *w = &c->src[list[i]];
		if ((w->puller == s || w->puller == NO_PULLER) && w->head->ts < x->key &&
		    candidate(c, x, w)) {
			w->puller = s;
			x->key = w->head->ts;
		}
	}
}

void pull_key(struct conv *c, uint32_t s)
{
	pull_on(c, s, c->parked, c->nparked);
	pull_on(c, s, c->holding, c->nholding);
}

void park_on_address(struct conv *c, uint32_t s, uint64_t addr)
{
	struct src *x = &c->src[s];
	x->state = SRC_PARKED;
	x->park_addr = addr;
	x->puller = NO_PULLER;
	c->parked[c->nparked++] = s;
	pull_for(c, x);
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
		return map_full(c);
	e->wanted = 1;
	struct src *x = &c->src[s];
	x->state = SRC_HELD;
	x->park_addr = addr;
	x->puller = NO_PULLER;
	x->key = x->head->ts + c->skew < x->head->ts ? UINT64_MAX : x->head->ts + c->skew;
	c->holding[c->nholding++] = s;
	pull_for(c, x);
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
	struct am_entry *e = am_find(&c->map, x->park_addr);
	assert(e && e->wanted && !e->live);
	e->wanted = 0; /* dead now, swept out when the table fills */
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
	release_block(c, who, oldest, c->map.stride);
}
