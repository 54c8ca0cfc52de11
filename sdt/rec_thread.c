/*
 * rec_thread.c - see rec_thread.h: slots, and opening and closing windows.
 *
 * Window sizes double from MT_WINDOW_MIN to MT_REC_WINDOW_MAX per thread, so
 * a short thread costs one 4 KiB window and a busy one claims space once
 * per 512 KiB (smaller bridges while the helper is late: rec_thread.h).
 * Claims are serialised by the recorder lock rather than an atomic add on
 * the file offset alone: stop must be able to close any thread's window
 * and close the file, and a thread between "claimed" and "mapped" would
 * otherwise map a closed (or reused) descriptor.  At one
 * claim per 512 KiB of records the lock costs nothing measurable.
 *
 * A thread's slot lives until the thread is gone, not until its exit
 * destructor: glibc still frees in the thread after that.  Slots marked
 * exited are checked (one tgkill each) when a new slot is needed, so a
 * program that churns through threads keeps a bounded number of windows
 * mapped.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rec_clock.h"
#include "rec_helper.h"
#include "rec_maps.h"
#include "rec_pages.h"
#include "rec_thread.h"

__thread struct mt_tls mt_tls __attribute__((tls_model("initial-exec")));

enum { CHUNK_SLOTS = 63 };

struct slot_chunk {
	struct slot_chunk *next;
	struct mt_slot slots[CHUNK_SLOTS];
};

static struct slot_chunk first_chunk;
static unsigned exited_slots;   /* slots with `exited` set, still in use */

#define EACH_SLOT(s)                                                    \
	for (struct slot_chunk *c_ = &first_chunk; c_; c_ = c_->next)   \
		for (struct mt_slot *s = c_->slots; s < c_->slots + CHUNK_SLOTS; s++)

static int thread_gone(uint32_t tid)
{
	return tid != (uint32_t)gettid() && tgkill(getpid(), (pid_t)tid, 0) != 0 && errno == ESRCH;
}

static void close_header(struct mt_slot *s, uint32_t used, uint32_t count, uint32_t flags)
{
	mt_put_le32(s->base + MT_WH_USED, used);
	mt_put_le32(s->base + MT_WH_COUNT, count);
	mt_put_le32(s->base + MT_WH_FLAGS, MT_WHF_CLOSED | flags);
	s->open = 0;
	s->closed_count = count;
}

/* Records in an open window and the bytes they take, read from the window. */
static uint32_t scan(const struct mt_slot *s, uint32_t *used)
{
	const uint8_t *start = s->base + MT_WINDOW_HEADER_SIZE, *p = start;
	const uint8_t *end = s->base + s->size;
	struct mt_codec_state st;
	struct mt_rec r;
	size_t len;
	uint32_t n = 0;

	mt_codec_init(&st, s->base_ts, s->stacks);
	/* The owner stores a record's head byte last, so a head byte read as
	 * non-zero here means the whole record is there (x86 keeps stores in
	 * order; the owner publishes with a release store). */
	while (mt_rec_decode(p, end, &st, &r, &len) == MT_DEC_OK) {
		p += len;
		n++;
	}
	*used = (uint32_t)(p - start);
	return n;
}

/* Closes s's window where it stands, if it is open in `epoch`; returns its
 * records.  `last`: its thread is gone, so this was its last window. */
static uint32_t close_open_window(struct mt_slot *s, unsigned epoch, int last)
{
	uint32_t used, n;
	if (!s->base || !s->open || s->epoch != epoch)
		return 0;
	n = scan(s, &used);
	close_header(s, used, n, last ? MT_WHF_LAST : 0);
	return n;
}

/* Gives up s's window prepared ahead: unmapped if ready (it stays padding
 * in the file), left to the helper to unmap if it is being filled. */
static void drop_prepared(struct mt_slot *s)
{
	if (s->next_state == MT_NEXT_READY)
		mt_maps_unmap(s->next_base, s->next_size);
	s->next_base = NULL;
	s->next_state = MT_NEXT_NONE;
}

/*
 * What gone threads leave ready for others, so that a program that starts
 * a thread for each task (CPython's threading, a thread-per-request
 * server) does not claim, map, populate and unmap windows for every
 * thread beyond the bytes it fills: the window a thread had prepared
 * ahead, and the unused pages of its last window, cut off behind its
 * records as a padding window of their own (written before the cut, so
 * that a kill between the two leaves a well-formed file).  Both are
 * mapped and populated, and padding in the file until a thread writes a
 * header over one.
 *
 * A spare becomes the first window of a thread whose id no earlier slot
 * had (mt_slot_get), or the next window of a thread whose current one
 * lies before it (mt_window_want_next): readers group windows by thread
 * id and offset, so a thread's windows must follow one another in the
 * file, and a thread id the kernel reuses must not find an earlier
 * thread's windows after its first; a new id is in no window at all, so
 * its first can be anywhere.  At most SPARES_MAX are kept, the largest.
 * The recorder lock guards them.
 */
enum { SPARES_MAX = 8 };

struct spare {
	uint8_t *base;
	uint32_t size;
	uint64_t off;
	unsigned serial;
};

static struct spare spares[SPARES_MAX];
static unsigned nspares;

static void spare_drop(unsigned i)
{
	mt_maps_unmap(spares[i].base, spares[i].size); /* it stays padding */
	spares[i] = spares[--nspares];
}

static void spare_keep(uint8_t *base, uint32_t size, uint64_t off, unsigned serial)
{
	unsigned smallest = 0;
	for (unsigned i = 1; i < nspares; i++)
		smallest = spares[i].size < spares[smallest].size ? i : smallest;
	if (nspares == SPARES_MAX) {
		if (spares[smallest].size >= size) {
			mt_maps_unmap(base, size);
			return;
		}
		spare_drop(smallest);
	}
	spares[nspares++] = (struct spare){ base, size, off, serial };
}

/* The largest spare of f after offset `after` and of `least` bytes or
 * more, handed to s as its window prepared ahead; 0 if there is none. */
static int spare_take(struct mt_slot *s, const struct mt_file *f, uint64_t after,
		      uint32_t least)
{
	int best = -1;
	for (unsigned i = 0; i < nspares; i++)
		if (spares[i].serial == f->serial && spares[i].off > after &&
		    spares[i].size >= least &&
		    (best < 0 || spares[i].size > spares[best].size))
			best = (int)i;
	if (best < 0)
		return 0;
	s->next_base = spares[best].base;
	s->next_size = spares[best].size;
	s->next_off = spares[best].off;
	s->next_serial = f->serial;
	s->next_state = MT_NEXT_READY;
	spares[best] = spares[--nspares];
	return 1;
}

/* What s's gone thread leaves goes to the spares; returns the bytes of its
 * window (s->base, if any) to unmap. */
static uint32_t leave_spares(struct mt_slot *s, const struct mt_file *f)
{
	if (s->next_state == MT_NEXT_READY && s->next_serial == f->serial) {
		spare_keep(s->next_base, s->next_size, s->next_off, s->next_serial);
		s->next_base = NULL;
		s->next_state = MT_NEXT_NONE;
	}
	if (!s->base)
		return 0;
	uint32_t used = MT_WINDOW_HEADER_SIZE + mt_get_le32(s->base + MT_WH_USED);
	uint32_t keep = (used + MT_TRACE_ALIGN - 1) & ~(uint32_t)(MT_TRACE_ALIGN - 1);
	if (s->open || s->serial != f->serial || keep + MT_WINDOW_MIN > s->size ||
	    mt_helper_filling(s->base))
		return s->size;
	struct mt_window_info pad = { .size = s->size - keep, .flags = MT_WHF_CLOSED };
	mt_window_header_encode(s->base + keep, &pad);
	mt_put_le32(s->base + MT_WH_SIZE, keep);
	spare_keep(s->base + keep, s->size - keep, s->off + keep, s->serial);
	s->size = keep;
	return s->size;
}

/* The slot's thread is gone: close and unmap its window, free the slot.
 * With f, the current file, what it leaves goes to the spares. */
static uint32_t retire(struct mt_slot *s, unsigned epoch, const struct mt_file *f)
{
	uint32_t n = close_open_window(s, epoch, 1);
	uint32_t size = f ? leave_spares(s, f) : s->size;
	if (s->base)
		mt_helper_release(s->base, size);
	drop_prepared(s);
	if (s->old_base)
		mt_maps_unmap(s->old_base, s->old_size);
	if (s->exited)
		exited_slots--;
	*s = (struct mt_slot){ 0 };
	return n;
}

struct mt_slot *mt_slot_get(struct mt_file *f, unsigned epoch)
{
	static uint32_t highest_tid; /* of any slot made so far */
	const uint32_t tid = (uint32_t)gettid();
	struct mt_slot heir = { 0 };
	if (exited_slots)
		EACH_SLOT(s) if (s->in_use && s->exited && thread_gone(s->tid))
			f->records += retire(s, epoch, f);
	if (tid > highest_tid)
		spare_take(&heir, f, 0, 0);
	highest_tid = tid > highest_tid ? tid : highest_tid;
	for (struct slot_chunk *c = &first_chunk;; c = c->next) {
		for (int i = 0; i < CHUNK_SLOTS; i++) {
			struct mt_slot *s = &c->slots[i];
			if (!s->in_use) {
				*s = heir;
				s->in_use = 1;
				s->tid = tid;
				return s;
			}
		}
		if (!c->next) {
			void *m = mmap(NULL, sizeof *c, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (m == MAP_FAILED) {
				drop_prepared(&heir);
				return NULL;
			}
			c->next = m; /* zeroed: all slots free */
		}
	}
}

void mt_slot_exited(struct mt_slot *s)
{
	if (s && !s->exited) {
		s->exited = 1;
		exited_slots++;
	}
}

static uint32_t window_size(uint32_t seq)
{
	uint32_t size = MT_WINDOW_MIN;
	while (seq-- && size < MT_REC_WINDOW_MAX)
		size <<= 1;
	return size;
}

/* The window the helper prepared for s in f, with its size; NULL when
 * there is none yet, MAP_FAILED when the helper found the file cannot
 * grow.  One it is still filling is taken as it is (the thread faults in
 * what the helper has not): waiting would stall the thread, and a window
 * claimed now would come before it in the file, out of sequence. */
static uint8_t *take_prepared(struct mt_slot *s, const struct mt_file *f, uint32_t *size)
{
	uint8_t *m = s->next_base;
	*size = s->next_size;
	if (s->next_serial != f->serial) {
		drop_prepared(s);
		return NULL;
	}
	switch (s->next_state) {
	case MT_NEXT_FILLING:
		mt_helper_hand_over();
		break;
	case MT_NEXT_READY:
		break;
	case MT_NEXT_FAILED:
		m = MAP_FAILED;
		break;
	default:
		return NULL; /* still wanted: the helper prepares the one after */
	}
	s->next_base = NULL;
	s->next_state = MT_NEXT_NONE;
	return m;
}

/* The size of a window the thread maps itself: a bridge (rec_thread.h)
 * while the helper has yet to start on the one it was asked for. */
static uint32_t own_window_size(struct mt_slot *s, uint32_t seq)
{
	uint32_t full = window_size(seq);
	if (s->next_state != MT_NEXT_WANTED || (MT_BRIDGE_MIN << s->bridges) >= full)
		return full;
	return MT_BRIDGE_MIN << s->bridges++;
}

/* A window claimed and mapped by the calling thread itself: its first, or
 * when the helper is not there or late.  Its pages are made writable as
 * the helper makes them (MAP_POPULATE would leave them write-protected on
 * ext4: a fault a page at the first store).  NULL after saying why not. */
static uint8_t *map_window(struct mt_file *f, uint32_t want, uint32_t *size, uint64_t *off)
{
	*size = want;
	if (mt_file_claim(f, size, off))
		return NULL;
	mt_pages_write_zeros(f, *off, *size);
	uint8_t *m = mt_maps_window(f, *off, *size);
	if (m == MAP_FAILED) {
		mt_file_unclaim(f, *off, errno);
		return NULL;
	}
	mt_pages_populate(m, *size);
	return m;
}

int mt_window_open(struct mt_tls *t, unsigned epoch, struct mt_file *f)
{
	struct mt_slot *s = t->slot;
	if (t->seq_file != f->serial) {
		/* A new file: this thread's numbering starts over. */
		t->seq_file = f->serial;
		t->seq = 0;
		t->first_rec = 0;
	} else {
		t->seq++;
	}
	uint32_t size;
	uint64_t off = s->next_off;
	uint8_t *m = take_prepared(s, f, &size);
	if (m == MAP_FAILED)
		return -1;
	if (m)
		s->bridges = 0;
	else if (!(m = map_window(f, own_window_size(s, t->seq), &size, &off)))
		return -1;
	s->base = m;
	s->size = size;
	s->off = off;
	s->serial = f->serial;
	s->epoch = epoch;
	s->base_ts = mt_clock_ts();
	s->open = 1;
	s->closed_count = 0;
	s->stacks = (f->info.flags & MT_FHF_STACKS) != 0;
	struct mt_window_info w = {
		.tid = s->tid, .seq = t->seq, .size = size, .base_ts = s->base_ts,
		.base_mono = mt_clock_ns(CLOCK_MONOTONIC), .first_rec = t->first_rec,
	};
	mt_window_header_encode(s->base, &w);
	t->cur = s->base + MT_WINDOW_HEADER_SIZE;
	t->full = s->base + size - MT_RECORD_MAX;
	t->limit = s->base + size / 2;
	t->count = 0;
	mt_codec_init(&t->codec, s->base_ts, s->stacks);
	t->epoch = epoch;
	return 0;
}

/* The next window is a spare that lies after this one, if there is one of
 * half the size wanted or more (a smaller one would only make more
 * windows to map and unmap); else the helper's, never smaller than this
 * one, which may be a spare: a thread-per-task program's threads then pass
 * windows of a size on to each other instead of growing one from 4 KiB in
 * each. */
void mt_window_want_next(struct mt_tls *t, struct mt_file *f)
{
	struct mt_slot *s = t->slot;
	uint32_t size = window_size(t->seq + 1);
	size = size > s->size ? size : s->size;
	t->limit = t->full;
	if (s->next_state == MT_NEXT_NONE && !spare_take(s, f, s->off, size / 2))
		mt_helper_want(s, f, size);
}

void mt_window_release(struct mt_tls *t, struct mt_file *f)
{
	struct mt_slot *s = t->slot;
	if (!s || !s->base)
		return;
	if (s->open) {
		uint32_t used = (uint32_t)(t->cur - s->base - MT_WINDOW_HEADER_SIZE);
		close_header(s, used, t->count, 0);
		f->records += t->count;
	}
	/* Closed here or by a stop that counted it: either way it is behind
	 * the thread's next window. */
	t->first_rec += s->closed_count;
	mt_helper_unmap(s, s->base, s->size);
	s->base = NULL;
	t->epoch = 0; /* the next call takes the slow path and opens a window */
}

uint64_t mt_windows_collect(unsigned epoch, int close)
{
	uint64_t total = 0;
	EACH_SLOT(s) {
		if (!s->in_use)
			continue;
		if (close && thread_gone(s->tid)) {
			total += retire(s, epoch, NULL);
		} else if (close) {
			total += close_open_window(s, epoch, 0);
		} else if (s->base && s->open && s->epoch == epoch) {
			uint32_t used;
			total += scan(s, &used);
		}
	}
	return total;
}

static int holds(uint8_t *b, uint32_t n, const uint8_t *a, uint8_t **base, uint32_t *size)
{
	if (!b || a < b || a >= b + n)
		return 0;
	*base = b;
	*size = n;
	return 1;
}

int mt_window_holding(const void *addr, uint8_t **base, uint32_t *size)
{
	EACH_SLOT(s) {
		if (holds(s->base, s->size, addr, base, size) ||
		    holds(s->next_base, s->next_size, addr, base, size))
			return 1;
	}
	for (unsigned i = 0; i < nspares; i++)
		if (holds(spares[i].base, spares[i].size, addr, base, size))
			return 1;
	return 0;
}

struct mt_slot *mt_slot_needing_help(void)
{
	EACH_SLOT(s) {
		if (s->in_use && (s->old_base || s->next_state == MT_NEXT_WANTED))
			return s;
	}
	return NULL;
}

/* Gives back the window that ends f if it was only prepared, never
 * written (a slot's window prepared ahead, or a spare): the file is cut
 * where it starts.  0, or -1 when no such window ends f or the cut failed. */
static int give_back_end(struct mt_file *f)
{
	EACH_SLOT(s) {
		if (s->in_use && s->next_state == MT_NEXT_READY && s->next_serial == f->serial &&
		    s->next_off + s->next_size == f->next) {
			if (mt_file_unclaim_quietly(f, s->next_off))
				return -1;
			drop_prepared(s);
			return 0;
		}
	}
	for (unsigned i = 0; i < nspares; i++) {
		if (spares[i].serial == f->serial && spares[i].off + spares[i].size == f->next) {
			if (mt_file_unclaim_quietly(f, spares[i].off))
				return -1;
			spare_drop(i);
			return 0;
		}
	}
	return -1;
}

void mt_windows_drop_prepared(struct mt_file *f)
{
	while (give_back_end(f) == 0)
		continue;
	EACH_SLOT(s) {
		if (s->in_use)
			drop_prepared(s);
	}
	while (nspares)
		spare_drop(0);
	mt_maps_flush();
}

void mt_windows_forget(void)
{
	EACH_SLOT(s) {
		if (s->in_use && s->base)
			mt_maps_unmap(s->base, s->size);
		if (s->next_base)
			mt_maps_unmap(s->next_base, s->next_size);
		if (s->old_base)
			mt_maps_unmap(s->old_base, s->old_size);
		*s = (struct mt_slot){ 0 };
	}
	while (nspares)
		spare_drop(0);
	mt_helper_forget();
	mt_maps_flush();
	exited_slots = 0;
	mt_tls.slot = NULL;
	mt_tls.epoch = 0;
}
