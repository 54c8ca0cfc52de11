/*
 * park.c - hold threads back where timestamps contradict causality.
 *
 * Per-thread timestamps are taken around, not at, the moment the allocator
 * hands a block over, so a trace can show an allocation returning an address
 * before the free that released it in another thread.  The allocating thread
 * is then parked - taken out of the merge with all its later records - until
 * some thread frees that address, however long the chain of such waits.
 * If only parked threads remain, the trace is contradictory (a free was lost
 * or the file is corrupt): the oldest block they wait on is taken as freed,
 * with a warning, so conversion always finishes.
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

/* Called when addr is released: its waiters may now take it. */
void unpark_address(struct conv *c, uint64_t addr)
{
	for (size_t i = 0; i < c->nparked;) {
		uint32_t s = c->parked[i];
		if (c->src[s].park_addr != addr) {
			i++;
			continue;
		}
		c->parked[i] = c->parked[--c->nparked];
		c->src[s].state = SRC_RUNNING;
		c->src[s].key = c->src[s].head->ts;
		c->woken[c->nwoken++] = s; /* the loop still works on the heap's top */
	}
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
