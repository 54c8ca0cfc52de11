/*
 * recorder.h - the in-process recorder, as the interposer and the glibc
 * event deriver see it.
 *
 * Wrappers test mt_recording() (one load, one predictable branch) and only
 * then build a record; mt_record() is the per-call path, and everything
 * else about files, threads and windows is behind its slow path.
 */
#ifndef MT_RECORDER_H
#define MT_RECORDER_H

#include <stdint.h>

#include "rec_clock.h"
#include "rec_helper.h"
#include "rec_regions.h"
#include "rec_stack.h"
#include "rec_thread.h"
#include "trace_codec.h"
#include "visibility.h"

/* Non-zero while recording (not stopped, not paused), and while the
 * library has not yet decided whether to record (MT_EPOCH_UNDECIDED: the
 * first calls then take the slow path, which decides). */
MT_HIDDEN extern unsigned mt_rec_epoch;
#define MT_EPOCH_UNDECIDED 0xffffffffu

static inline int mt_recording(void)
{
	return __atomic_load_n(&mt_rec_epoch, __ATOMIC_RELAXED) != 0;
}

/* All ones when the trace is to hold the glibc events (MTRACE_GLIBC_EVENTS=1,
 * rec_config.h), else 0: ANDed with mt_rec_epoch by the deriver's gate
 * (glibc_events.h), so that recording alone does not run the deriver. */
MT_HIDDEN extern unsigned mt_rec_glibc_mask;

/* Behind mt_record: a call that cannot be recorded now, and the thread
 * that needs a window (0: it cannot record now). */
void mt_record_dropped(void);
int mt_record_window(struct mt_tls *t, unsigned epoch);

/* A stack table window of the trace file numbered serial (mt_file.serial),
 * claimed and mapped; NULL when that file is no longer being written.
 * *size asks for a size and returns the one claimed: less near the
 * file-size limit (mt_file_claim). */
uint8_t *mt_record_table_window(unsigned serial, uint32_t *size);

#define mt_compiler_barrier() __asm__ volatile("" ::: "memory")

/*
 * The block owner table: for each slot (1 MiB regions of the address
 * space, hashed), the token (mt_tls.token) of the thread whose allocation
 * of a block there was last seen, recorded or not.  What it proves: when a
 * thread's allocation returns the block its previous record freed and the
 * slot still holds the thread's own token, no other thread allocated that
 * block in between (it would have written its token, before its own free
 * of the block, which the allocator's lock or atomics order before this
 * thread's allocation of it; only this thread writes its token, and it
 * made no call in between).  Another thread's allocation nearby, or a
 * collision, only writes another token: the allocation is then stamped.
 *
 * A slot covers a region, not a block, and has a cache line of its own:
 * threads allocate from heaps of their own (glibc's arenas), so each
 * thread's stores stay in lines of its own, in its core's cache.  A slot
 * per block (4096 of them, 16 to a line) made two threads of alloc_heavy
 * write the same lines all the time: 12 ns a call more.  16 KiB; a store
 * an allocation, to a line the thread wrote last, or a load for the
 * allocation of a block its thread just freed.
 */
#define MT_OWNER_SLOTS 256
#define MT_OWNER_REGION_SHIFT 20
struct mt_owner {
	uint32_t token;
} __attribute__((aligned(64)));
MT_HIDDEN extern struct mt_owner mt_block_owner[MT_OWNER_SLOTS];

static inline uint32_t *mt_owner_slot(uint64_t block)
{
	uint64_t region = block >> MT_OWNER_REGION_SHIFT;
	uint64_t slot = (region ^ (region >> 8) ^ (region >> 16)) & (MT_OWNER_SLOTS - 1);
	return &mt_block_owner[slot].token;
}

/*
 * Sparse stamps, while only one thread of the process has ever recorded.
 * mt_stamp_dense (rec_thread.h) is 0 until a thread that is not the first
 * to record makes its first record: that thread sets MT_DENSE_THREADS,
 * with a full fence, before its record's stamp decision and so before the
 * effects of the calls it records (mt_record_slow).  It is never cleared,
 * but in a forked child, which has one thread.  While the word is 0 (the
 * flag clear, MTRACE_PRECISE_TIME off), the one recording thread stamps
 * only its window's first record and every MT_SPARSE_STAMP_EVERY-th after
 * it; the others carry the last stamp's time, and the block owner table
 * is neither read nor written (the region table is, mt_record_stamped).
 * The trace header's stamp_every says MT_SPARSE_STAMP_EVERY (rec_file.c),
 * which holds under every rule but MTRACE_PRECISE_TIME=1's (1).
 *
 * Why that keeps the order a converter needs.  An unstamped record
 * carries its thread's earlier stamp: a time no later than its own.  So
 * it can read as too early only against a record of another thread that
 * it depends on: its call saw that record's effect (malloc returned the
 * block the other thread freed; free was handed a block the other thread
 * allocated).  The other thread set the flag and fenced before its first
 * record, and so before every effect its records describe (a free's
 * record is made before the free; an allocation's before the block
 * reaches the program); our thread loads the flag after the load that
 * saw the effect: after the allocator call in an allocation's record
 * maker, at a free's entry after the program loaded the pointer.  With
 * the acquire fence below between the two loads, a fence on either side
 * (C11's fence-to-fence synchronisation, for an effect seen through an
 * atomic, as the allocator's locks and atomics are) guarantees on every
 * CPU that our load sees the flag set, and the record is then stamped by
 * the owner table's rule; on x86 the acquire fence is a compiler barrier
 * only, as TSO keeps two loads in order.  A record that read the flag
 * clear can be misordered only against records it does not depend on.
 * One effect comes before the flag: a new thread's first call, if it is
 * a realloc, frees its old block before it is recorded (and stamped on
 * return, as every realloc is); trace2wl repairs that order as it does
 * for any realloc (converter/park.c).
 */
static inline unsigned mt_stamp_rule(void)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&mt_stamp_dense, __ATOMIC_RELAXED);
}

/*
 * The region table's part of the stamp rule (rec_regions.h): every block
 * r passes in or returns marks its region for the thread whose region
 * token is tok, whatever the rule in force,
 * so that the table is whole once a second thread records (the first
 * thread's sparse-stamped records included); 1 when the thread had every
 * such region to itself before this call.
 */
static inline __attribute__((always_inline)) int mt_record_regions_alone(unsigned tok,
									   const struct mt_rec *r)
{
	int alone = 1;
	if (mt_call_has_in(r->call))
		alone &= mt_region_alone(r->ptr_in, tok);
	if (mt_call_allocates(r->call))
		alone &= mt_region_alone(r->ptr_out, tok);
	return alone;
}

/*
 * Whether r is to be stamped, and the marks of the owner tables.  The
 * window's first record and every MT_SPARSE_STAMP_EVERY-th after it are
 * (t->count counts the window's records; the first is the slow path's,
 * which stamps it), under every rule.  While stamps are sparse (above),
 * no other.  Else, unless MTRACE_PRECISE_TIME=1, two kinds go unstamped:
 *
 * - A call with a stamp bit (not realloc, not an event) whose blocks lie
 *   in regions the thread has had to itself (rec_regions.h).  Why that
 *   keeps the order trace2wl needs: an unstamped record reads too early
 *   only against a record of another thread whose effect its call saw
 *   (the block it allocated was that thread's freed one; the block it
 *   frees was that thread's allocation).  That thread marked the block's
 *   region (its token, or shared) before the effect: a free's record is
 *   made before the free, an allocation's before the block reaches the
 *   program; and an entry never goes back to 0, nor shows a thread's
 *   token but while that thread alone has used the region or, for a
 *   moment, while that thread makes it shared (rec_regions.h).  Our thread loads the entry after the load that saw
 *   the effect, with mt_stamp_rule's acquire fence between them, as for
 *   the stamp rule's flag: it finds the mark, not its own token, and
 *   stamps.  A call of the thread's own on a block of that region, or on
 *   a block the other thread's call did not make visible to it, depends
 *   on nothing the other record did.
 *
 * - An allocation with a stamp bit that returns the block its thread's
 *   previous record freed, with the block's owner slot still the
 *   thread's (the block owner table, above).  Its time is then the
 *   free's, and nothing another thread did to the block lies between the
 *   two: trace2wl pairs its frees as with a stamp (tests/conv_handoff).
 *   Only the thread that recorded first ever has sparse stamps, and every
 *   other thread's allocations outside a region of its own write their
 *   tokens, so the slots it left unwritten prove nothing wrong; an
 *   allocation inside a region of its own writes none, but one by another
 *   thread of a block there makes the region shared first, and writes.
 */
static inline __attribute__((always_inline)) int mt_record_stamped(struct mt_tls *t,
								     const struct mt_rec *r,
								     int *alone_out)
{
	unsigned dense = mt_stamp_rule();
	int alone = *alone_out = mt_record_regions_alone(t->region_token, r);
	int due = (t->count & (MT_SPARSE_STAMP_EVERY - 1)) == 0;
	if (!dense)
		return due;
	int may_skip = !due && mt_stamp_bit(r->call) && !(dense & MT_DENSE_PRECISE);
	if (alone && may_skip)
		return 0;
	if (!mt_call_allocates(r->call))
		return 1;
	uint32_t *owner = mt_owner_slot(r->ptr_out);
	/* Read only for a block the thread just freed: a load of a line the
	 * other core wrote waits for it, a store does not.  Not written when
	 * it is the thread's already: its line stays shared. */
	if (r->ptr_out && r->ptr_out == t->last_freed &&
	    __atomic_load_n(owner, __ATOMIC_RELAXED) == t->token)
		return !may_skip;
	__atomic_store_n(owner, t->token, __ATOMIC_RELAXED);
	return 1;
}

/*
 * Encodes r, stamped at ts if `stamp`, at the thread's window position and
 * commits it.  The thread is busy and its window open.  `stacks`: the
 * window's t->codec.stacks, or 0 where the caller knows it is 0 for r
 * (mt_rec_encode).
 */
static inline __attribute__((always_inline)) void mt_record_commit(struct mt_tls *t,
								     struct mt_rec *r, uint64_t ts,
								     int stamp, int stacks)
{
	/* TSCs of two cores may disagree a little, and a window opened after
	 * the stamp was read. */
	r->ts = ts > t->codec.last_ts ? ts : t->codec.last_ts;
	uint8_t head;
	size_t n = mt_rec_encode(t->cur, &t->codec, r, stamp, stacks, &head);
	/* The commit: until this byte is non-zero the record does not exist. */
	__atomic_store_n(t->cur, head, __ATOMIC_RELEASE);
	t->cur += n;
	t->count++;
}

/* mt_record's slow path, out of line: the thread is re-entering, a window
 * is to be opened or asked for, or a stack is to be walked.  r is passed
 * by value so that the fast path never stores it. */
void mt_record_slow(struct mt_rec r);

/*
 * Appends r to the calling thread's window.  Inline, so that with the call
 * type known at the call site the encoder keeps only that call's fields
 * and the record never exists in memory.  The fast path calls nothing, so
 * in the wrapper it needs no register saved beyond the wrapper's own.
 *
 * Time: while one thread records, one record in MT_SPARSE_STAMP_EVERY is
 * stamped; once more do, the same, and every other record but a call on
 * blocks in regions its thread has had to itself and an allocation that
 * mt_record_stamped shows no other thread can have come between (a
 * malloc/free loop's malloc), which carry their thread's last stamp: one
 * rdtsc less.  With MTRACE_PRECISE_TIME=1 every record is stamped.
 * (Version 3's MTRACE_SPARSE_TIME=1 left the same allocations unstamped
 * without the owner table, and trace2wl paired frees wrongly when another
 * thread took the block in between: tests/conv_handoff, about one run in
 * ten.)
 *
 * Cost, window open: a TLS busy flag set and cleared, one relaxed load of
 * the global state and of the stamp rule and stack settings, five
 * compares, the region table's load and compare (rec_regions.h), rdtsc
 * (on one record in 16 where its thread's regions are its own; 10-20 ns
 * back to back here, about 4 ns a call in alloc_heavy's loop,
 * docs/BENCHMARKS.md), the packed fields' stores (one 8-byte store each,
 * 7-8 bytes a record on alloc_heavy) into a page already mapped and
 * faulted in by the helper (rec_helper.h), and the head byte stored last,
 * which on x86 is a plain store: about 60 instructions for malloc, 45 for
 * free (callgrind, bench/recorder.sh).  No lock, no atomic
 * read-modify-write, no syscall, no allocation.  With MTRACE_STACKS an
 * allocating call adds its stack walk and table probe (rec_stack.c):
 * about 270 instructions a call on bench/alloc_heavy, where the walk
 * reuses the outer frames of the last one (rec_stack_memo.c; callgrind,
 * docs/BENCHMARKS.md).
 *
 * Cache lines, which a program whose own code and data evict ours between
 * two calls (cc1plus) fetches again: the wrapper's and its record maker's
 * code, side by side in .text.hot (interpose.c: malloc's about 10 lines,
 * free's 7), and seven lines of data: the globals' line (rec_hot.c),
 * mt_next's, the GOT entry of mt_tls's offset, mt_tls's first line, the
 * block's region entry, its owner slot (allocations outside the thread's
 * own regions) and the window's line.  On cc1plus a
 * call then costs about 130 instructions in the kit's code, and 1.9 more
 * I1 misses and 0.4 more D1 read misses than untraced (callgrind,
 * docs/BENCHMARKS.md, issue #15's sixth round).
 *
 * Re-entry: calls that arrive while this thread is inside the recorder -
 * from our own use of libc, or from a signal handler that interrupted a
 * record - go straight to the allocator and are counted as dropped.
 */
static inline __attribute__((always_inline)) int mt_record_fast_ok(struct mt_tls *t, unsigned e,
								      unsigned call)
{
	return __builtin_expect(!t->busy && !(mt_call_allocates(call) && t->codec.stacks) &&
					e == t->epoch && t->cur <= t->limit,
				1);
}

/*
 * The stamp of r's record; `alone` as mt_record_stamped found it.  A call
 * that passes in a block another thread may have handed it through memory
 * (a queue, an exchange) must not read the clock before the load that got
 * the block has completed: freed and reused at once by the allocator, the
 * block would seem freed before the allocation it frees, and trace2wl
 * would pair the free with the block's previous life (tests/conv_handoff,
 * t-conv-real; docs/BENCHMARKS.md, issue #15's tenth round).  A block in
 * regions its thread has had to itself cannot have come from another
 * thread, and an allocation's stamp reading early is harmless (trace2wl
 * parks an allocation of a live address until its free): those stay
 * unfenced.
 */
static inline __attribute__((always_inline)) uint64_t mt_record_ts(const struct mt_rec *r,
								    int alone)
{
	return mt_call_has_in(r->call) && !alone ? mt_clock_ts_ordered() : mt_clock_ts();
}

/*
 * mt_record's fast path, where mt_record_fast_ok says so, in two halves
 * so that a caller can complete r between them: the first marks the
 * thread busy, decides whether r is stamped and reads the clock (*ts);
 * the second encodes and commits.  Nothing the first half reads of r is
 * left for the caller to fill in: the call and its pointers only.  Why a
 * caller waits: a fenced stamp (mt_record_ts) waits for every load
 * before it, and a free's chunk header, read for its flags, is the load
 * most likely to miss the caches in a program with a large heap; read
 * after the stamp, its miss overlaps the record's work instead of
 * holding the fence.
 */
static inline __attribute__((always_inline)) int mt_record_fast_stamp(struct mt_tls *t,
								        const struct mt_rec *r,
								        uint64_t *ts)
{
	t->busy = 1;
	mt_compiler_barrier(); /* a signal handler from here on sees busy */
	int alone;
	int stamp = mt_record_stamped(t, r, &alone);
	*ts = stamp ? mt_record_ts(r, alone) : 0;
	return stamp;
}

static inline __attribute__((always_inline)) void mt_record_fast_commit(struct mt_tls *t,
									  struct mt_rec *r,
									  uint64_t ts, int stamp)
{
	/* No stacks for an allocating call here (mt_record_fast_ok): a
	 * constant, so its code has no stack field and a tag byte fewer. */
	mt_record_commit(t, r, ts, stamp, mt_call_allocates(r->call) ? 0 : t->codec.stacks);
	t->last_freed = mt_call_has_in(r->call) ? r->ptr_in : 0;
	mt_compiler_barrier();
	t->busy = 0;
}

static inline __attribute__((always_inline)) void mt_record_fast(struct mt_tls *t, struct mt_rec *r)
{
	uint64_t ts;
	int stamp = mt_record_fast_stamp(t, r, &ts);
	mt_record_fast_commit(t, r, ts, stamp);
}

static inline __attribute__((always_inline)) void mt_record(struct mt_rec *r)
{
	struct mt_tls *t = &mt_tls;
	unsigned e = __atomic_load_n(&mt_rec_epoch, __ATOMIC_RELAXED);
	if (e && mt_record_fast_ok(t, e, r->call))
		mt_record_fast(t, r);
	else
		mt_record_slow(*r);
}

/* Records an MT_CALL_EVENT record (enum mt_event) in the calling thread. */
void mt_recorder_event(unsigned event, unsigned nargs, const uint64_t *args);

/* Library set-up: resolves the next allocator, creates the thread-exit
 * key and the fork handlers.  Idempotent. */
void mt_recorder_init(void);

/* The control API behind <mtrace.h>. */
int mt_recorder_start(void);
int mt_recorder_stop(void);
int mt_recorder_pause(int pause);
int mt_recorder_reset(void);
uint64_t mt_recorder_sync(void);

/* Autostart (autostart.c, built once per library): does this library
 * record without being asked?  mt_recorder_autostart acts on it, once. */
int mt_autostart_wanted(void);
void mt_recorder_autostart(void);

/* rec_sigbus.c: while recording, a SIGBUS from a window whose file was
 * truncated by someone else stops recording instead of killing the
 * program.  The guard is installed only over SIGBUS's default action. */
void mt_sigbus_guard(void);
/* From the handler (async-signal-safe): the file under a window was cut;
 * recording stops at once, says so once, and the header says why. */
void mt_recorder_file_cut(void);

/* _exit: finish this image's trace.  exec: seal it (returns 1 if it was
 * recording), and after a failed exec go on recording in the same file. */
void mt_recorder_image_end(void);
int mt_recorder_exec_begin(void);
void mt_recorder_exec_failed(int was_recording);

#endif
