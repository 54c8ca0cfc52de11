/*
 * convert.c - the conversion loop: merge the threads of a trace by time,
 * map addresses to objects, and write each call into its thread's stream.
 *
 * Each record is handled once, in an order that is the timestamp order
 * except where causality overrules it (park.c): a block is freed after its
 * allocation, and an address is handed out again only after its free.  Per
 * record the cost is one decode, one hash probe or two, one encode and a
 * compare of the thread's new key with the next thread's (the heap is
 * sifted only when it passes that); nothing is allocated on the way.
 */
#include "config.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "conv_internal.h"

/* How long an unexplained free waits for an allocation that another thread's
 * skewed clock may still be holding back: 1 ms of trace time. */
#define SKEW_DIVISOR 1000
/* How far two cores' stamps of the same moment may disagree, when one is
 * held against another to rule a call out: 1 us of trace time. */
#define CLOCK_ERROR_DIVISOR 1000000

enum step { STEP_DONE, STEP_PARKED, STEP_HELD };

/* A record's NULL flags are its op's, one bit higher: one shift and mask a
 * call, where a test of each cost 3 more instructions. */
enum { RF_TO_OPF = 1 };
_Static_assert(MT_RF_NULL_OUT >> RF_TO_OPF == MT_OPF_NULL_OUT &&
	       MT_RF_NULL_IN >> RF_TO_OPF == MT_OPF_NULL_IN, "NULL flags one bit apart");

/* Decodes s's next record into ring slot i and prefetches the map slots it
 * will probe: 1, or 0 at the thread's end, or -1 on a corrupt record.
 * stride is the map's, a constant in the loop (see loop). */
static inline __attribute__((always_inline)) int read_one(struct conv *c, struct src *x, unsigned i,
							   size_t stride)
{
	struct ahead *a = &x->ahead[i];
	int rc = mt_trace_cursor_next_lean(&x->cur, &a->r, &a->recno, c->e);
	if (rc <= 0) {
		x->cursor_done = rc == 0;
		return rc;
	}
	if (a->r.ptr_in)
		am_prefetch_as(&c->map, a->r.ptr_in, stride);
	if (a->r.ptr_out)
		am_prefetch_as(&c->map, a->r.ptr_out, stride);
	return 1;
}

/* Fills s's lookahead ring at its start. */
static int fill_ahead(struct conv *c, struct src *x)
{
	int rc = 1;
	while (x->ahead_count <= x->ahead_mask && (rc = read_one(c, x, x->ahead_count, c->map.stride)) > 0)
		x->ahead_count++;
	return rc < 0 ? -1 : 0;
}

/* s's head is now ahead[ahead_first].  `several`: whether the trace has
 * more than one thread (a constant in the loop); a lone thread that takes
 * its next head is running, so it is neither parked nor held, and no other
 * thread can be: there is no one to pull it for. */
static inline __attribute__((always_inline)) int take_head(struct conv *c, uint32_t s,
							    int several)
{
	struct src *x = &c->src[s];
	x->head = &x->ahead[x->ahead_first].r;
	x->recno = x->ahead[x->ahead_first].recno;
	x->key = x->head->ts;
	if (several && (c->nparked || c->nholding))
		pull_key(c, s);
	c->res.records++;
	return 1;
}

/* s's thread has no records left: it leaves the ring behind, and its
 * freed object indices to whichever thread adopts them (obj_take): a
 * program that runs thousands of short threads would otherwise lose each
 * one's numbers and make new ones for the next (3,000 CPython threads of
 * 7,600 calls each: 6.02 M numbers for 21,444 blocks live at the peak). */
static int end_of_thread(struct conv *c, uint32_t s)
{
	struct src *x = &c->src[s];
	x->state = SRC_DONE;
	x->head = NULL;
	free(x->ahead);
	x->ahead = NULL;
	if (x->wl >= 0)
		c->ended[c->nended++] = s;
	if (x->nfree_objs && !x->adoptable) {
		x->adoptable = 1;
		c->adoptable[c->nadoptable++] = s;
	} else if (!x->nfree_objs) {
		free(x->free_objs);
		x->free_objs = NULL;
		x->free_objs_cap = 0;
	}
	return 0;
}

/*
 * Opens s when it first reaches the merge's top: its ring, its cursor, and
 * its first records decoded (which maps its first window in).  Until then
 * it waits in the merge keyed by its first record's time, which the trace's
 * index holds, and costs neither memory nor pages: a trace of thousands of
 * threads that ran one after another once had every thread's first window
 * resident at the start (3,000 CPython threads: 214 MB, for 21,444 blocks
 * live at the peak), where now only the threads open at once are.  -1 on a
 * corrupt record or out of memory.
 */
static int open_source(struct conv *c, uint32_t s)
{
	struct src *x = &c->src[s];
	unsigned lookahead = am_has_users(&c->map) ? LOOKAHEAD_USERS : LOOKAHEAD_ONE;
	uint64_t records = mt_trace_thread_records(c->t, s);
	while (x->ahead_mask + 1 < lookahead && x->ahead_mask < records)
		x->ahead_mask = 2 * x->ahead_mask + 1;
	if (!(x->ahead = calloc(x->ahead_mask + 1, sizeof *x->ahead)))
		return mt_error_set(c->e, c->in_name, "out of memory for %zu threads", c->nsrc);
	x->opened = 1;
	mt_trace_cursor_init(&x->cur, c->t, s);
	if (fill_ahead(c, x) < 0)
		return -1;
	if (x->ahead_count ? take_head(c, s, c->nsrc > 1) : end_of_thread(c, s))
		heap_fix_top(c);
	else
		heap_pop(c);
	return 0;
}

/* Makes s's next record its head; 0 at the end, -1 on a corrupt record.
 * Inline in the loop, which calls it once per record: until the thread's
 * records run out the ring is full, so the slot the head leaves is the one
 * to refill - one inline decode (about 110 instructions with the cursor's,
 * on cc1plus's trace) and one or two
 * prefetches - and the ring's count only changes once they have run out. */
static inline __attribute__((always_inline)) int advance(struct conv *c, uint32_t s,
							  size_t stride)
{
	struct src *x = &c->src[s];
	unsigned left = x->ahead_first;
	x->ahead_first = (left + 1) & x->ahead_mask;
	int rc = x->cursor_done ? 0 : read_one(c, x, left, stride);
	if (rc < 0)
		return -1;
	if (rc == 0)
		x->ahead_count--;
	return x->ahead_count ? take_head(c, s, am_users(stride)) : end_of_thread(c, s);
}

int map_full(struct conv *c)
{
	return mt_error_set(c->e, c->out_name, "out of memory for %zu live blocks", c->map.live);
}

/* A free of addr, which is not live: a double free where its entry says
 * it was freed, else a block allocated before recording began. */
static void report_bad_free(struct conv *c, const struct src *x, uint64_t addr)
{
	const struct am_entry *f = am_find(&c->map, addr);
	if (!f || !am_freed_here(f)) {
		c->res.unknown_frees++;
		return;
	}
	c->res.double_frees++;
	conv_warn(c, "double free of 0x%" PRIx64 " at record %" PRIu32 ":%" PRIu64
		  " (freed at %" PRIu32 ":%" PRIu64 ")", addr, x->tid, x->recno,
		  c->src[am_owner(&c->map, f)].tid, (uint64_t)f->obj);
}

/*
 * Object indices are given out again once their block is freed, so the
 * highest index (the header's objects, and the size of trace_run's object
 * table) follows the most blocks live at once, not all blocks ever made.
 * An index goes back to the thread that freed it, and that thread takes it
 * again: its later allocation then comes after the free in its own stream,
 * in every replay order, without a sync op.  Last freed, first taken: the
 * replay's slot for it is still in cache.  A thread with none to give
 * gets a new index.
 *
 * That alone lets a producer and consumer pair (one thread allocates what
 * another frees, as in a thread pool) make a new index for every block:
 * the consumer's freed indices pile up in its list while the producer has
 * none (CPython, four producer and four consumer threads: 1.51 M indices
 * for 44,307 blocks live at the peak, docs/BENCHMARKS.md).  So once the
 * indices made outgrow the most blocks live at once by ADOPT_SLACK, a
 * thread with none adopts the list of one that gave ADOPT_LIST or more
 * since its list last changed hands: it first waits for that thread's
 * stream as it stands (emit_wait_all), which holds every free of those
 * indices, so its allocations of them still come after their frees in
 * every replay order.  The wait is one the recording already implies: the
 * merge has converted only that thread's records stamped before this one.
 * A list counts what its holder freed itself, not what it took over, so
 * two threads that allocate never pass a list back and forth (a sync each
 * time): there is at most one adoption for every ADOPT_LIST frees, and
 * one for each thread that ends holding numbers (end_of_thread).
 */
enum { ADOPT_SLACK = 1 << 14, ADOPT_LIST = 4096 };

/* Gives s, which has no freed indices left, the list of a thread on
 * c->adoptable that has ended, or still holds ADOPT_LIST of its own
 * frees; the others leave the stack (obj_give puts them back).  -1 when
 * out of memory. */
static int adopt(struct conv *c, uint32_t s)
{
	while (c->nadoptable) {
		uint32_t a = c->adoptable[--c->nadoptable];
		struct src *x = &c->src[s], *y = &c->src[a];
		y->adoptable = 0;
		if (a == s || !y->nfree_objs || (y->state != SRC_DONE && y->own_freed < ADOPT_LIST))
			continue;
		if (emit_wait_all(c, s, a) < 0)
			return -1;
		uint64_t *mine = x->free_objs;
		size_t mine_cap = x->free_objs_cap;
		x->free_objs = y->free_objs;
		x->nfree_objs = y->nfree_objs;
		x->free_objs_cap = y->free_objs_cap;
		x->own_freed = y->own_freed = y->nfree_objs = 0;
		if (y->state == SRC_DONE) {
			free(mine);
			y->free_objs = NULL;
			y->free_objs_cap = 0;
		} else {
			y->free_objs = mine;
			y->free_objs_cap = mine_cap;
		}
		c->res.adoptions++;
		return 0;
	}
	return 0;
}

/* The index of s's next new block in *obj; -1 when out of memory. */
static inline __attribute__((always_inline)) int obj_take(struct conv *c, uint32_t s,
							   uint64_t *obj)
{
	struct src *x = &c->src[s];
	if (!x->nfree_objs && c->nadoptable && c->res.objects >= c->map.peak_live + ADOPT_SLACK &&
	    adopt(c, s) < 0)
		return -1;
	*obj = x->nfree_objs ? x->free_objs[--x->nfree_objs] : ++c->res.objects;
	return 0;
}

/*
 * Keeps obj for x's next allocation; -1 when out of memory.  A thread that
 * frees more than it allocates (a consumer) would keep numbers it never
 * takes again, 8 bytes for every free it makes: past FREE_OBJS_MAX its
 * numbers are let go, so the converter's memory stays bounded whatever
 * the trace's length (the workload then has more numbers, not more ops;
 * adoption takes most such lists first).  At ADOPT_LIST of its own, x
 * goes on the stack of lists other threads may adopt.
 */
enum { FREE_OBJS_MAX = 1 << 20 };

static inline __attribute__((always_inline)) int obj_give(struct conv *c, uint32_t s,
							   uint64_t obj)
{
	struct src *x = &c->src[s];
	if (++x->own_freed >= ADOPT_LIST && !x->adoptable) {
		x->adoptable = 1;
		c->adoptable[c->nadoptable++] = s;
	}
	if (x->nfree_objs == FREE_OBJS_MAX)
		return 0;
	if (x->nfree_objs == x->free_objs_cap) {
		size_t cap = x->free_objs_cap ? 2 * x->free_objs_cap : 64;
		uint64_t *v = realloc(x->free_objs, cap * sizeof *v);
		if (!v)
			return mt_error_set(c->e, c->out_name, "out of memory for %zu free object "
					    "indices", cap);
		x->free_objs = v;
		x->free_objs_cap = cap;
	}
	x->free_objs[x->nfree_objs++] = obj;
	return 0;
}


/* A call that passed the block in and left it live (a failed realloc) is a
 * use: whoever frees the block later must be ordered after it too, so the
 * block's last user, not its allocator, is what the next handoff waits on. */
static inline void use(struct conv *c, uint32_t s, struct am_entry *e, size_t stride)
{
	am_use_as(e, s, c->src[s].ops, stride);
}

/* e, the entry of the address s's call returned, now holds object obj. */
static inline __attribute__((always_inline)) int take(struct conv *c, uint32_t s,
						       struct am_entry *e, uint64_t obj,
						       uint64_t bytes, size_t stride)
{
	int wanted = e->wanted;
	if (am_set_live_as(&c->map, e, bytes, obj, s, c->src[s].ops, stride) < 0)
		return map_full(c);
	if (wanted)
		unhold_address(c, e->addr);
	c->live_bytes += bytes;
	if (c->live_bytes > c->res.ideal_peak)
		c->res.ideal_peak = c->live_bytes;
	return 0;
}

/* Converts s's head record, or says why it must wait; timing is c's, and
 * stride the map's. */
static inline __attribute__((always_inline)) int step(struct conv *c, uint32_t s, enum step *how,
						       int timing, size_t stride)
{
	struct src *x = &c->src[s];
	const struct mt_rec *r = x->head;
	/* The decoder leaves a pointer 0 where the call has none or it was NULL. */
	int in = r->ptr_in != 0, out = r->ptr_out != 0;
	struct am_entry *old = NULL, *new = NULL;

	*how = STEP_DONE;
	if (r->call == MT_CALL_EVENT) {
		c->res.events++;
		return 0;
	}
	/* Field by field: the op's encoder reads only the fields its call has
	 * (delta_ns only with timing, set by emit_call; sync never), and the
	 * compound literal's zeroing of all nine cost 4 more instructions a call. */
	struct mt_op op;
	op.code = r->call;
	op.flags = (r->flags >> RF_TO_OPF) & (MT_OPF_NULL_OUT | MT_OPF_NULL_IN);
	op.align = r->align;
	op.nmemb = r->nmemb;
	op.size = r->size;
	op.old_obj = op.new_obj = 0;
	if (in) {
		old = am_find_as(&c->map, r->ptr_in, stride);
		if (!old || !old->live) {
			if (x->state != SRC_HELD) {
				*how = STEP_HELD;
				return hold_for_address(c, s, r->ptr_in);
			}
			end_hold(c, s); /* every running thread is past the deadline */
			report_bad_free(c, x, r->ptr_in);
			if (!out)
				return 0;
			op.flags |= MT_OPF_NULL_IN; /* realloc of an unknown block: a fresh one */
			in = 0;
			old = NULL;
		}
	}
	/* Added at once where no block is passed in; else only looked up, as
	 * adding could sweep or grow the table and move old's entry. */
	if (out) {
		new = in ? am_find_as(&c->map, r->ptr_out, stride) :
			   am_get_as(&c->map, r->ptr_out, stride);
		if (!in && !new)
			return map_full(c);
	}
	if (out && new && new->live && new != old) {
		park_on_address(c, s, r->ptr_out);
		*how = STEP_PARKED;
		return 0;
	}
	if (in) {
		op.old_obj = old->obj;
		if (am_owner_as(old, stride) != s && emit_handoff(c, s, old) < 0)
			return -1;
	}
	if (out && obj_take(c, s, &op.new_obj) < 0)
		return -1;
	if (op.new_obj > AM_MAX_OBJECTS)
		return mt_error_set(c->e, c->in_name, "more than %llu blocks live at once",
				    (unsigned long long)AM_MAX_OBJECTS);
	if (emit_call(c, s, &op, r->ts, timing) < 0)
		return -1;
	if (in && mt_op_releases_old(&op)) {
		if (obj_give(c, s, old->obj) < 0)
			return -1;
		if (new == old) { /* a realloc in place: the entry stays, for take */
			c->live_bytes -= am_size(&c->map, old);
			am_unset_live(&c->map, old);
		} else {
			release_block(c, s, old, stride);
		}
	} else if (in) {
		use(c, s, old, stride);
	}
	if (out && !new && !(new = am_get_as(&c->map, r->ptr_out, stride)))
		return map_full(c);
	return out ? take(c, s, new, op.new_obj, mt_rec_requested(r), stride) : 0;
}

/* ---- progress ---- */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Once a second, from the first second on: a line each where asked for
 * with -p, or one line rewritten in place on a terminal. */
struct progress {
	uint64_t total, next_check; /* UINT64_MAX without progress: one test a record */
	double start, last;
	int tty, shown;
};

static void progress_tick(struct progress *p, uint64_t done)
{
	double t = now();
	p->next_check = done + (1u << 20);
	if (t - p->last < 1.0)
		return;
	p->last = t;
	double rate = done / (t - p->start);
	double eta = rate > 0 && p->total > done ? (p->total - done) / rate : 0;
	fprintf(stderr, "%strace2wl: %5.1f%% (%" PRIu64 " of %" PRIu64 " records), %.1f M/s, %.0f s left%s",
		p->tty ? "\r" : "", p->total ? 100.0 * done / p->total : 100.0, done, p->total,
		rate / 1e6, eta, p->tty ? "\033[K" : "\n");
	p->shown = 1;
}

/* The terminal's line goes back to the shell clean. */
static void progress_end(const struct progress *p)
{
	if (p->tty && p->shown)
		fputs("\r\033[K", stderr);
}

/* ---- the loop ---- */

/* The key the top must stay below to keep its place without a sift: the
 * smaller of its children's (a tie goes to the sift, which orders by
 * thread). */
static inline uint64_t next_key(const struct conv *c)
{
	uint64_t k = c->nheap < 2 ? UINT64_MAX : c->src[c->heap[1]].key;
	if (c->nheap > 2 && c->src[c->heap[2]].key < k)
		k = c->src[c->heap[2]].key;
	return k;
}

/* Threads woken in the last step: parked ones come back into the heap, held
 * ones (still in it) move up to their record's time. */
static void rejoin(struct conv *c)
{
	while (c->nwoken) {
		uint32_t s = c->woken[--c->nwoken];
		if (c->src[s].hpos == NOT_IN_HEAP)
			heap_push(c, s);
		else
			heap_update(c, s);
	}
}

/* The loop, made once for each of timing and not, and of the map's two
 * strides (loop): both are constants in each, so a call pays no test of
 * them.  The stride also says whether the trace has several threads (an
 * am_user in each slot): the lone thread of the other copy is always
 * source 0, never needs a handoff, and runs one burst from each wait to
 * the next (about 15 instructions a record fewer on cc1plus's trace). */
static inline __attribute__((always_inline)) int loop_as(struct conv *c, struct progress *p,
							   int timing, size_t stride)
{
	const int several = am_users(stride);
	for (;; rejoin(c)) {
		if (!c->nheap) {
			if (!c->nparked)
				return 0;
			break_cycle(c);
			continue;
		}
		assert(several || (c->nsrc == 1 && c->nheap == 1 && c->heap[0] == 0));
		uint32_t s = several ? c->heap[0] : 0;
		struct src *x = &c->src[s];
		if (!x->opened) {
			if (open_source(c, s) < 0)
				return -1;
			continue;
		}
		/* Threads run in bursts: the top converts records while its key
		 * stays below the others' and no step woke a thread (which may
		 * change their keys), one compare a record instead of a sift. */
		uint64_t limit = several ? next_key(c) : UINT64_MAX;
		int rc;
		do {
			enum step how;
			if (step(c, s, &how, timing, stride) < 0)
				return -1;
			if (how == STEP_PARKED) {
				heap_pop(c);
				goto next;
			}
			if (how == STEP_HELD) {
				heap_fix_top(c);
				goto next;
			}
			if ((rc = advance(c, s, stride)) <= 0) {
				if (rc < 0 || emit_thread_done(c, s) < 0)
					return -1;
				heap_pop(c);
				goto next;
			}
			if (c->res.records >= p->next_check)
				progress_tick(p, c->res.records);
		} while ((!several || x->key < limit) && !c->nwoken);
		if (several && x->key >= limit)
			heap_fix_top(c);
	next:;
	}
}

static int loop(struct conv *c, struct progress *p)
{
	assert(c->map.stride == AM_STRIDE_ONE || c->map.stride == AM_STRIDE_USERS);
	if (c->map.stride == AM_STRIDE_USERS)
		return c->timing ? loop_as(c, p, 1, AM_STRIDE_USERS) : loop_as(c, p, 0, AM_STRIDE_USERS);
	return c->timing ? loop_as(c, p, 1, AM_STRIDE_ONE) : loop_as(c, p, 0, AM_STRIDE_ONE);
}

static int run(struct conv *c, int asked)
{
	struct progress p = { .start = now(), .last = now(), .tty = isatty(2) };
	p.next_check = asked || p.tty ? 1u << 20 : UINT64_MAX;
	for (size_t s = 0; s < c->nsrc; s++)
		p.total += mt_trace_thread_records(c->t, s);
	int rc = loop(c, &p);
	progress_end(&p);
	return rc;
}

static int setup(struct conv *c, const struct conv_opts *o)
{
	const struct mt_trace_info *in = mt_trace_get_info(c->t);
	c->nsrc = mt_trace_threads(c->t);
	if (c->nsrc > AM_MAX_THREADS)
		return mt_error_set(c->e, c->in_name, "%zu threads; trace2wl handles up to %u",
				    c->nsrc, AM_MAX_THREADS);
	c->ts_freq = in->ts_freq ? in->ts_freq : 1000000000u;
	c->start_ts = in->start_ts;
	c->skew = c->ts_freq / SKEW_DIVISOR;
	c->clock_error = c->ts_freq / CLOCK_ERROR_DIVISOR;
	c->last_caller = -1;
	mt_vc_pool_init(&c->clocks, c->nsrc);
	c->src = calloc(c->nsrc ? c->nsrc : 1, sizeof *c->src);
	c->heap = calloc(c->nsrc ? c->nsrc : 1, sizeof *c->heap);
	c->parked = calloc(c->nsrc ? c->nsrc : 1, sizeof *c->parked);
	c->holding = calloc(c->nsrc ? c->nsrc : 1, sizeof *c->holding);
	c->woken = calloc(c->nsrc ? c->nsrc : 1, sizeof *c->woken);
	c->adoptable = calloc(c->nsrc ? c->nsrc : 1, sizeof *c->adoptable);
	c->ended = calloc(c->nsrc ? c->nsrc : 1, sizeof *c->ended);
	if (!c->src || !c->heap || !c->parked || !c->holding || !c->woken || !c->adoptable ||
	    !c->ended || am_init(&c->map, c->nsrc) < 0)
		return mt_error_set(c->e, c->in_name, "out of memory for %zu threads", c->nsrc);
	for (size_t s = 0; s < c->nsrc; s++) {
		struct src *x = &c->src[s];
		x->tid = mt_trace_thread_tid(c->t, s);
		x->hpos = NOT_IN_HEAP;
		x->wl = -1;
		x->last_ts = c->start_ts;
		x->key = mt_trace_thread_first_ts(c->t, s);
		if (mt_trace_thread_records(c->t, s))
			heap_push(c, (uint32_t)s);
		else
			x->state = SRC_DONE;
	}
	c->timing = o->timing == CONV_TIMING_AUTO ? c->nsrc > 1 : o->timing == CONV_TIMING_ON;
	c->w = mt_wl_writer_open(o->output, o->overwrite, c->timing, in->ptr_size, c->e);
	return c->w ? 0 : -1;
}

static int finish(struct conv *c)
{
	const struct mt_trace_info *in = mt_trace_get_info(c->t);
	struct mt_wl_info tot = {
		.endian = in->endian,
		.objects = c->res.objects,
		.syncs = c->res.syncs,
		.unknown_frees = c->res.unknown_frees,
		.double_frees = c->res.double_frees,
		.source_records = c->res.records,
		.ideal_peak = c->res.ideal_peak,
		.source_dropped = in->dropped,
		.contradictions = c->res.cycles_broken,
		.source_stop = in->stop_reason,
		.source_stop_records = in->stop_records,
	};
	struct mt_wl_writer *w = c->w;
	c->w = NULL;
	if (mt_wl_writer_finish(w, &tot, c->e) < 0)
		return -1;
	struct stat st;
	c->res.bytes = stat(c->out_name, &st) == 0 ? (uint64_t)st.st_size : 0;
	c->res.never_freed = c->map.live;
	c->res.peak_live = c->map.peak_live;
	c->res.dropped = in->dropped;
	c->res.stop_reason = in->stop_reason;
	c->res.stop_records = in->stop_records;
	return 0;
}

static void cleanup(struct conv *c)
{
	mt_wl_writer_abort(c->w);
	mt_vc_pool_free(&c->clocks);
	for (size_t s = 0; c->src && s < c->nsrc; s++) {
		free(c->src[s].ahead);
		free(c->src[s].free_objs);
	}
	free(c->src);
	free(c->heap);
	free(c->parked);
	free(c->holding);
	free(c->woken);
	free(c->adoptable);
	free(c->ended);
	am_free(&c->map);
}

int convert(struct mt_trace *t, const struct conv_opts *opts, struct conv_result *res,
	    struct mt_error *e)
{
	struct conv c = {
		.t = t,
		.in_name = opts->input_name,
		.out_name = opts->output,
		.e = e,
	};
	int rc = setup(&c, opts);
	if (rc == 0)
		rc = run(&c, opts->progress);
	if (rc == 0)
		rc = finish(&c);
	*res = c.res;
	cleanup(&c);
	return rc;
}
