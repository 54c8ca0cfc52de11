/*
 * conv_internal.h - state shared by the converter's loop (convert.c), its
 * causality repairs (park.c) and its output side (emit.c).
 */
#ifndef TRACE2WL_CONV_INTERNAL_H
#define TRACE2WL_CONV_INTERNAL_H

#include <assert.h>

#include "addrmap.h"
#include "convert.h"
#include "vclock.h"
#include "workload.h"

/* Running and held threads are in the heap, parked and done ones are not. */
#define NO_PULLER UINT32_MAX
enum src_state { SRC_RUNNING, SRC_PARKED, SRC_HELD, SRC_DONE };

/* Records decoded ahead of use, so their map slots can be prefetched while
 * earlier records are converted: the map's cache misses then overlap.
 * With 16-byte slots (one thread), sixteen records (some 600 ns of work)
 * cover a miss that also walks the page tables, as a VM's misses on a
 * large table do.  With 24-byte slots a quarter of them take two
 * prefetches, and eight records ahead did better: more lines in flight
 * made the prefetches wait for each other (docs/BENCHMARKS.md).  A thread
 * with fewer records gets a shorter ring (a power of two), so
 * thousands of short threads do not cost a full ring each; one longer than
 * its records, so that the cursor reads to the end and lets go of the
 * thread's trace pages at once. */
#define LOOKAHEAD_ONE 16
#define LOOKAHEAD_USERS 8

struct ahead {
	struct mt_rec r;
	uint64_t recno;
};

/* One traced thread: its input cursor and its output stream. */
struct src {
	struct mt_trace_cursor cur;
	struct ahead *ahead;      /* ring of ahead_mask + 1; NULL until opened and once done */
	unsigned ahead_mask, ahead_first, ahead_count;
	int opened;               /* its cursor and ring exist (convert.c, open_source) */
	int cursor_done;
	struct mt_rec *head;      /* next record to convert, in ahead[] */
	uint64_t recno;           /* head's index in the thread */
	uint64_t key;             /* heap order: head.ts, or while held its deadline */
	size_t hpos;              /* place in the heap, NOT_IN_HEAP when out */
	uint32_t tid;
	int state;                /* enum src_state */
	uint64_t park_addr;       /* SRC_PARKED: address it waits to see freed;
				     SRC_HELD: address it waits to see allocated */
	uint32_t puller;          /* parked or held: the thread pulled to bring
				     park_addr, or NO_PULLER */

	int wl;                   /* workload thread index, -1 before its first op */
	uint64_t ops;             /* ops in its stream so far */
	uint64_t last_ts;         /* of its previous call, for timing deltas */
	uint64_t sig_id, sig_pos; /* last SIGNAL and the stream length after it */
	int has_sig;
	struct mt_vclock known;   /* how far it knows other streams to be */
	/* Object indices this thread freed, the last on top: its next
	 * allocations take them again (convert.c, obj_give), unless another
	 * thread adopts them first (adoptable: on c->adoptable; own_freed:
	 * indices it gave since its list last changed hands). */
	uint64_t *free_objs;
	size_t nfree_objs, free_objs_cap, own_freed;
	int adoptable;
};

struct conv {
	struct mt_trace *t;
	const char *in_name, *out_name;
	struct mt_error *e;
	struct mt_wl_writer *w;
	int timing;
	uint64_t ts_freq, start_ts, skew, clock_error;

	struct src *src;
	size_t nsrc;
	uint32_t *heap;           /* running and held threads by key */
	size_t nheap;
	uint32_t *parked;         /* threads waiting for an address to be freed */
	size_t nparked;
	uint32_t *holding;        /* held threads (in the heap, by deadline) */
	size_t nholding;
	uint32_t *woken;          /* unparked or unheld, to re-key after this step */
	size_t nwoken;
	uint32_t *adoptable;      /* threads whose freed indices another may take */
	size_t nadoptable;
	uint32_t *ended;          /* threads done whose end no new thread waits for yet */
	size_t nended;

	struct mt_vc_pool clocks;
	struct addrmap map;
	int last_caller;          /* source thread of the last call written, -1 */
	uint64_t live_bytes;
	struct conv_result res;
};

/* emit.c */
/* Gives s its stream on its first op, after the call that preceded it. */
int emit_stream(struct conv *c, uint32_t s);
/* s passes in obj, which another thread allocated or used last: s waits
 * for that use, unless it already knows of it. */
int emit_handoff(struct conv *c, uint32_t s, const struct am_entry *obj);
/* s waits for a's stream as it stands, unless it already knows all of it. */
int emit_wait_all(struct conv *c, uint32_t s, uint32_t a);
int emit_thread_done(struct conv *c, uint32_t s);

/* Appends op to s's stream; timing is c's (a constant in the loop, see
 * emit_call).  This and emit_call are inline, as the loop writes an op for
 * each call: an encode into the stream's buffer. */
static inline __attribute__((always_inline)) int emit_op_timed(struct conv *c, uint32_t s,
								 const struct mt_op *op, int timing)
{
	struct src *x = &c->src[s];
	if (mt_wl_writer_op_timed(c->w, x->wl, op, timing, c->e) < 0)
		return -1;
	x->ops++;
	return 0;
}

static inline int emit_op(struct conv *c, uint32_t s, const struct mt_op *op)
{
	return emit_op_timed(c, s, op, c->timing);
}

/* With --timing, once per call: a product that fits 64 bits (a delta under
 * 1.8e10 ticks, 18 s at 1 GHz) takes one div instruction, where the 128-bit
 * division is a call to libgcc (--timing 3% faster on 10 M calls). */
static inline uint64_t ticks_to_ns(const struct conv *c, uint64_t ticks)
{
	if (ticks <= UINT64_MAX / 1000000000u)
		return ticks * 1000000000u / c->ts_freq;
	return (uint64_t)((unsigned __int128)ticks * 1000000000u / c->ts_freq);
}

/* Writes s's call op (its delta_ns is set here) at trace time ts.  timing
 * is c's, passed by the loop as a constant (convert.c makes the loop once
 * for each): the tests of it here and in the encoder cost 5 instructions
 * a call. */
static inline __attribute__((always_inline)) int emit_call(struct conv *c, uint32_t s,
							     struct mt_op *op, uint64_t ts,
							     int timing)
{
	struct src *x = &c->src[s];
	if (x->wl < 0 && emit_stream(c, s) < 0)
		return -1;
	if (timing) {
		op->delta_ns = ts > x->last_ts ? ticks_to_ns(c, ts - x->last_ts) : 0;
		x->last_ts = ts > x->last_ts ? ts : x->last_ts;
	}
	if (emit_op_timed(c, s, op, timing) < 0)
		return -1;
	c->last_caller = (int)s;
	c->res.calls++;
	return 0;
}

/* park.c */
void unpark_address(struct conv *c, uint64_t addr);

/* e's block is freed by thread s's head record; stride is the map's.
 * Inline, as every free comes here. */
static inline void release_block(struct conv *c, uint32_t s, struct am_entry *e, size_t stride)
{
	uint64_t addr = e->addr;
	assert(e->live && !e->wanted);
	c->live_bytes -= am_release_as(&c->map, e, s, c->src[s].recno, stride);
	if (c->nparked)
		unpark_address(c, addr);
}
/* -1, with the error for a map that cannot grow. */
int map_full(struct conv *c);

/* heap.c */
#define NOT_IN_HEAP SIZE_MAX
void heap_push(struct conv *c, uint32_t s);
void heap_fix_top(struct conv *c);
void heap_pop(struct conv *c);
void heap_update(struct conv *c, uint32_t s);

/* park.c */
void park_on_address(struct conv *c, uint32_t s, uint64_t addr);
void pull_key(struct conv *c, uint32_t s);
int hold_for_address(struct conv *c, uint32_t s, uint64_t addr);
void unhold_address(struct conv *c, uint64_t addr);
void end_hold(struct conv *c, uint32_t s);
void break_cycle(struct conv *c);
void conv_warn(struct conv *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
