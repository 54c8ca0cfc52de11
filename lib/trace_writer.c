/*
 * trace_writer.c - build a trace file outside the recorder.
 *
 * Tests need traces with known contents, and log importers need to turn text
 * into something trace2wl reads; both must produce what the recorder would,
 * or the reader would be tested against a format nobody writes.  So the
 * writer claims windows the way the recorder does: a thread claims its next
 * window (at the next free file offset) when it has no room for a record,
 * windows grow from MT_WINDOW_MIN to MT_WINDOW_MAX, the file header is
 * written at open and completed at close.  Each thread's window is buffered
 * in memory and written whole when it fills or at close.  A writer that
 * fails removes its file: no partial trace is left behind.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace.h"

struct wthread {
	uint32_t tid;
	uint32_t seq;        /* of the current window; windows claimed so far */
	uint32_t size;       /* current window's size, 0 before the first */
	uint64_t off;        /* current window's file offset */
	uint64_t base_ts, base_mono;
	uint64_t first_rec;  /* records of this thread before the current window */
	uint32_t used, count;
	struct mt_codec_state st;
	uint8_t *buf;        /* the current window, header included */
};

struct mt_trace_writer {
	char *path;
	int fd;
	struct mt_trace_info info;
	uint32_t fixed_size; /* 0: grow like the recorder */
	uint64_t next_off;   /* where the next window is claimed */
	uint64_t last_ts;
	struct wthread *threads;
	size_t nthreads, cap;
	size_t *slots;       /* open-addressing table of thread indexes + 1 */
	size_t nslots;
};

/* Closes fd; returns rc, or -1 with e set when the close fails.  A trace
 * that failed is removed (one we could not write is no trace) if it is a
 * file: a device named as the output stays. */
static int close_output(int fd, const char *path, int rc, struct mt_error *e)
{
	struct stat st;
	int regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	if (close(fd) != 0 && rc == 0)
		rc = mt_error_set(e, path, "close failed: %s", strerror(errno));
	if (rc && regular)
		unlink(path);
	return rc;
}

static int write_at(struct mt_trace_writer *w, const void *p, size_t n, uint64_t off,
		    struct mt_error *e)
{
	const uint8_t *b = p;
	while (n) {
		ssize_t k = pwrite(w->fd, b, n, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return mt_error_set(e, w->path, "write failed: %s",
					    k < 0 ? strerror(errno) : "no space");
		b += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

/* The monotonic time a timestamp stands for, as the recorder would have
 * read it beside the counter when claiming a window. */
static uint64_t ts_to_mono(const struct mt_trace_info *in, uint64_t ts)
{
	uint64_t freq = in->ts_freq ? in->ts_freq : 1000000000;
	unsigned __int128 ns = (unsigned __int128)(ts - in->start_ts) * 1000000000u / freq;
	return in->start_mono_ns + (uint64_t)ns;
}

static int write_header(struct mt_trace_writer *w, const struct mt_trace_info *in,
			struct mt_error *e)
{
	static uint8_t page[MT_TRACE_HEADER_SIZE];
	mt_trace_header_encode(page, in);
	return write_at(w, page, sizeof page, 0, e);
}

/* ---- threads by tid ---- */

static size_t slot_of(const struct mt_trace_writer *w, uint32_t tid)
{
	size_t i = (tid * 2654435761u) & (w->nslots - 1);
	while (w->slots[i] && w->threads[w->slots[i] - 1].tid != tid)
		i = (i + 1) & (w->nslots - 1);
	return i;
}

/* Keeps the table at most half full, rebuilding it when it doubles. */
static int grow_slots(struct mt_trace_writer *w)
{
	size_t n = w->nslots ? 2 * w->nslots : 64;
	size_t *s = calloc(n, sizeof *s);
	if (!s)
		return -1;
	free(w->slots);
	w->slots = s;
	w->nslots = n;
	for (size_t i = 0; i < w->nthreads; i++)
		w->slots[slot_of(w, w->threads[i].tid)] = i + 1;
	return 0;
}

static struct wthread *thread_of(struct mt_trace_writer *w, uint32_t tid)
{
	size_t i = slot_of(w, tid);
	if (w->slots[i])
		return &w->threads[w->slots[i] - 1];
	if (w->nthreads == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 16;
		struct wthread *t = realloc(w->threads, cap * sizeof *t);
		if (!t)
			return NULL;
		w->threads = t;
		w->cap = cap;
	}
	w->threads[w->nthreads] = (struct wthread){ .tid = tid };
	w->slots[i] = ++w->nthreads;
	if (2 * w->nthreads > w->nslots && grow_slots(w))
		return NULL;
	return &w->threads[w->nthreads - 1];
}

/* ---- windows ---- */

static int flush_window(struct mt_trace_writer *w, struct wthread *th, uint32_t flags,
			struct mt_error *e)
{
	struct mt_window_info wi = {
		.tid = th->tid, .seq = th->seq, .size = th->size,
		.base_ts = th->base_ts, .base_mono = th->base_mono, .first_rec = th->first_rec,
		.used = flags & MT_WHF_CLOSED ? th->used : 0,
		.count = flags & MT_WHF_CLOSED ? th->count : 0,
		.flags = flags,
	};
	mt_window_header_encode(th->buf, &wi);
	return write_at(w, th->buf, MT_WINDOW_HEADER_SIZE + th->used, th->off, e);
}

/* Closes the thread's full window, if any, and claims the next one. */
static int next_window(struct mt_trace_writer *w, struct wthread *th, uint64_t ts,
		       struct mt_error *e)
{
	uint32_t size = w->fixed_size;
	if (th->size) {
		if (flush_window(w, th, MT_WHF_CLOSED, e))
			return -1;
		th->seq++;
		th->first_rec += th->count;
		if (!size)
			size = th->size < MT_WINDOW_MAX ? 2 * th->size : MT_WINDOW_MAX;
	} else if (!size) {
		size = MT_WINDOW_MIN;
	}
	if (size != th->size) {
		uint8_t *b = realloc(th->buf, size);
		if (!b)
			return mt_error_set(e, w->path, "out of memory");
		th->buf = b;
	}
	th->size = size;
	th->off = w->next_off;
	w->next_off += size;
	th->base_ts = ts;
	th->base_mono = ts_to_mono(&w->info, ts);
	th->used = th->count = 0;
	mt_codec_init(&th->st, ts, (w->info.flags & MT_FHF_STACKS) != 0);
	return 0;
}

/* ---- public ---- */

struct mt_trace_writer *mt_trace_writer_open(const char *path, const struct mt_trace_info *info,
					     uint32_t window_size, struct mt_error *e)
{
	if (window_size % MT_TRACE_ALIGN || window_size > (1u << 30)) {
		mt_error_set(e, path, "window size %u is not a multiple of %d up to 1 GiB",
			     window_size, MT_TRACE_ALIGN);
		return NULL;
	}
	struct mt_trace_writer *w = calloc(1, sizeof *w);
	if (!w) {
		mt_error_set(e, path, "out of memory");
		return NULL;
	}
	w->fd = -1;
	if (!(w->path = strdup(path)) || grow_slots(w)) {
		mt_error_set(e, path, "out of memory");
		goto fail;
	}
	w->info = *info;
	w->info.endian = info->endian ? info->endian : 1;
	w->info.ptr_size = info->ptr_size ? info->ptr_size : (uint8_t)sizeof(void *);
	w->info.ts_source = info->ts_source ? info->ts_source : MT_TS_MONOTONIC_NS;
	w->info.stamp_every = 1; /* each record's time is its own */
	w->info.stamp_tick_ns = 0;
	w->info.helper_cpu_ns = 0; /* no recorder's helper made this file */
	w->fixed_size = window_size;
	w->next_off = MT_TRACE_HEADER_SIZE;
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		mt_error_set(e, path, "cannot create: %s", strerror(errno));
		goto fail;
	}
	/* What the recorder writes at start: no frequency, nothing closed. */
	struct mt_trace_info start = w->info;
	start.flags &= ~(uint32_t)MT_FHF_CLOSED;
	start.ts_freq = start.end_mono_ns = start.end_ts = 0;
	start.records = start.windows = start.end_offset = 0;
	if (write_header(w, &start, e))
		goto fail;
	return w;
fail:
	if (w->fd >= 0)
		close_output(w->fd, path, -1, e);
	free(w->slots);
	free(w->path);
	free(w);
	return NULL;
}

int mt_trace_writer_add(struct mt_trace_writer *w, uint32_t tid, const struct mt_rec *r,
			struct mt_error *e)
{
	if (r->call == MT_CALL_NONE || r->call >= MT_CALL_COUNT || tid == 0)
		return mt_error_set(e, w->path, "cannot write a record of call type %u for thread %u",
				    r->call, tid);
	struct wthread *th = thread_of(w, tid);
	if (!th)
		return mt_error_set(e, w->path, "out of memory");
	if (!th->size || MT_WINDOW_HEADER_SIZE + th->used + MT_RECORD_MAX > th->size)
		if (next_window(w, th, r->ts, e))
			return -1;
	uint8_t *dst = th->buf + MT_WINDOW_HEADER_SIZE + th->used;
	uint8_t head;
	th->used += (uint32_t)mt_rec_encode(dst, &th->st, r, r->ts != th->st.last_ts, th->st.stacks, &head);
	dst[0] = head;
	th->count++;
	if (r->ts > w->last_ts)
		w->last_ts = r->ts;
	return 0;
}

/* Each thread's last window: closed and marked last, or left as a killed
 * recorder leaves it. */
static int flush_threads(struct mt_trace_writer *w, int leave_open, struct mt_error *e)
{
	uint64_t records = 0;
	for (size_t i = 0; i < w->nthreads; i++) {
		struct wthread *th = &w->threads[i];
		if (!th->size)
			continue; /* its first window could not be claimed */
		if (flush_window(w, th, leave_open ? 0 : MT_WHF_CLOSED | MT_WHF_LAST, e))
			return -1;
		records += th->first_rec + th->count;
		w->info.windows += th->seq + 1;
	}
	w->info.records = records;
	return 0;
}

int mt_trace_writer_close(struct mt_trace_writer *w, int leave_open, struct mt_error *e)
{
	int rc = flush_threads(w, leave_open, e);
	if (rc == 0 && ftruncate(w->fd, (off_t)w->next_off) != 0)
		rc = mt_error_set(e, w->path, "cannot extend: %s", strerror(errno));
	if (rc == 0 && !leave_open) {
		struct mt_trace_info *in = &w->info;
		in->flags |= MT_FHF_CLOSED;
		if (in->ts_source == MT_TS_MONOTONIC_NS && !in->ts_freq)
			in->ts_freq = 1000000000;
		in->end_ts = w->last_ts > in->start_ts ? w->last_ts : in->start_ts;
		in->end_mono_ns = ts_to_mono(in, in->end_ts);
		in->end_offset = w->next_off;
		rc = write_header(w, in, e);
	}
	rc = close_output(w->fd, w->path, rc, e);
	for (size_t i = 0; i < w->nthreads; i++)
		free(w->threads[i].buf);
	free(w->threads);
	free(w->slots);
	free(w->path);
	free(w);
	return rc;
}
