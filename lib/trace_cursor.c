/*
 * trace_cursor.c - hand out one thread's records in order, window by window.
 *
 * This is where closed windows are verified: their headers promised a number
 * of records in a number of bytes, and the cursor checks the promise when it
 * leaves the window, so a damaged trace is refused rather than misread, at no
 * cost of a second pass over the file.  Cost per record: one inline decode.
 */
#include <sys/mman.h>

#include "trace_internal.h"

static const struct mt_trace_window *cur_window(const struct mt_trace_cursor *c)
{
	return &c->t->wins[c->t->threads[c->thread].first_win + c->window];
}

/*
 * Maps the window's records in with one system call, where the kernel can
 * (MADV_POPULATE_READ, Linux 5.14): reading them page by page took a fault
 * each, a tenth of a converter's time.  Elsewhere the faults just happen.
 */
static void enter_window(struct mt_trace_cursor *c)
{
	const struct mt_trace_window *w = cur_window(c);
	c->p = c->t->map + w->off + MT_WINDOW_HEADER_SIZE;
	c->end = c->t->map + w->data_end;
	c->recno = w->first_rec;
	mt_codec_init(&c->st, w->base_ts, mt_trace_codec_mode(c->t));
	c->wide_end = !c->st.varints && c->end - c->p >= MT_REC_WIDE ? c->end - MT_REC_WIDE + 1 : c->p;
#ifdef MADV_POPULATE_READ
	madvise((void *)(c->t->map + w->off), w->data_end - w->off, MADV_POPULATE_READ);
#endif
}

void mt_trace_cursor_init(struct mt_trace_cursor *c, const struct mt_trace *t, size_t thread)
{
	*c = (struct mt_trace_cursor){ .t = t, .thread = thread };
	if (t->threads[thread].nwin)
		enter_window(c);
}

/* At the end of a window's records: do they match what its header said? */
static int leave_window(struct mt_trace_cursor *c, struct mt_error *e)
{
	const struct mt_trace_window *w = cur_window(c);
	uint64_t got = c->recno - w->first_rec;
	if (c->p != c->end || got != w->count)
		return mt_error_set(e, c->t->path,
				    "offset %llu: window of thread %u ends after %llu records in %llu "
				    "bytes, its header says %u in %llu",
				    (unsigned long long)w->off, w->tid, (unsigned long long)got,
				    (unsigned long long)(c->p - c->t->map - w->off - MT_WINDOW_HEADER_SIZE),
				    w->count,
				    (unsigned long long)(w->data_end - w->off - MT_WINDOW_HEADER_SIZE));
	return 0;
}

/*
 * Drops the window's pages from this process once read: the mapping is
 * read-only and private, so they stay in the page cache for anyone else,
 * but a reader's resident size then stays that of the windows in use, not
 * of the whole trace.  Whole blocks of the kernel's fault-around: a fault
 * in this window also mapped the neighbouring windows' pages of its 64 KiB
 * block, which, where their threads had already ended, nothing else would
 * drop (3,000 short CPython threads: 87 MB of such pages).  A neighbour
 * still being read takes its pages again at a minor fault.
 *
 * Windows read one after another lie near one another in the file (a
 * thread's, and those of threads run in turn), so what they leave is
 * dropped in spans of up to MT_DROP_BATCH: a drop a window took most of
 * the converter's time on a trace of 3,000 threads run in turn (8,000
 * windows of ~30 KB).  A span may take in a window that a cursor is still
 * reading, which then faults its pages in again; only pages are lost, no
 * data, as the mapping is the file's.
 */
static void drop_pages(struct mt_trace *t)
{
	if (t->drop_to > t->drop_from)
		madvise((void *)(t->map + t->drop_from), t->drop_to - t->drop_from, MADV_DONTNEED);
	t->drop_from = t->drop_to = 0;
}

static void release_window(const struct mt_trace_cursor *c)
{
	/* mt_trace_open made it writable; its cursors share this state */
	struct mt_trace *t = (struct mt_trace *)c->t;
	const struct mt_trace_window *w = cur_window(c);
	uint64_t from = w->off & ~(uint64_t)(MT_FAULT_AROUND - 1);
	uint64_t to = (w->off + w->size + MT_FAULT_AROUND - 1) & ~(uint64_t)(MT_FAULT_AROUND - 1);
	if (to > t->len)
		to = t->len;
	if (t->drop_to > t->drop_from) {
		uint64_t lo = from < t->drop_from ? from : t->drop_from;
		uint64_t hi = to > t->drop_to ? to : t->drop_to;
		if (hi - lo <= MT_DROP_BATCH)
			from = lo, to = hi;
		else
			drop_pages(t);
	}
	t->drop_from = from;
	t->drop_to = to;
	if (to - from >= MT_DROP_BATCH)
		drop_pages(t);
}

int mt_trace_cursor_turn(struct mt_trace_cursor *c, int rc, struct mt_rec *r, uint64_t *recno,
			 struct mt_error *e)
{
	const struct mt_trace_thread *th = &c->t->threads[c->thread];
	size_t len;

	while (c->window < th->nwin) {
		if (rc == MT_DEC_CORRUPT)
			return mt_error_set(e, c->t->path, "offset %llu: record %u:%llu does not decode",
					    (unsigned long long)(c->p - c->t->map), th->tid,
					    (unsigned long long)c->recno);
		if (leave_window(c, e))
			return -1;
		release_window(c);
		if (++c->window == th->nwin)
			break;
		enter_window(c);
		rc = mt_rec_decode(c->p, c->end, &c->st, r, &len);
		if (rc == MT_DEC_OK) {
			c->p += len;
			*recno = c->recno++;
			return 1;
		}
	}
	return 0;
}

int mt_trace_cursor_slow(struct mt_trace_cursor *c, struct mt_rec *r, uint64_t *recno,
			 struct mt_error *e)
{
	size_t len;
	int rc = mt_rec_decode(c->p, c->end, &c->st, r, &len);
	if (rc != MT_DEC_OK)
		return mt_trace_cursor_turn(c, rc, r, recno, e);
	c->p += len;
	*recno = c->recno++;
	return 1;
}
