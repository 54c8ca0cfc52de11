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
 */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "conv_internal.h"

#define WARN_MAX 10 /* damage lines printed; all are counted */

void conv_warn(struct conv *c, const char *fmt, ...)
{
	if (c->warned++ == WARN_MAX) {
		fprintf(stderr, "trace2wl: %s: further problems are counted, not printed\n",
			c->in_name);
		return;
	}
	if (c->warned > WARN_MAX)
		return;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "trace2wl: %s: ", c->in_name);
	vfprintf(stderr, fmt, ap);
	putc('\n', stderr);
	va_end(ap);
}

void park_on_address(struct conv *c, uint32_t s, uint64_t addr)
{
	c->src[s].state = SRC_PARKED;
	c->src[s].park_addr = addr;
	c->parked[c->nparked++] = s;
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
