/*
 * trace_reader.c - open a trace, map it, and index its windows by thread.
 *
 * Opening does all the checking that needs the whole file (header, window
 * headers, damage left by a killed recorder) so that a tool learns early if a
 * trace is unusable; the records themselves are decoded later, one at a time,
 * by the cursor (trace_cursor.c).  Only windows left open and windows cut by
 * truncation are decoded here, because only their decoding tells how many
 * records they hold.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mapped.h"
#include "trace_internal.h"

/* ---- warnings ---- */

static void warn(struct mt_trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warn(struct mt_trace *t, const char *fmt, ...)
{
	struct mt_error msg;
	va_list ap;
	va_start(ap, fmt);
	mt_error_vset(&msg, t->path, fmt, ap);
	va_end(ap);

	char **w = realloc(t->warnings, (t->nwarnings + 2) * sizeof *w);
	if (!w)
		return; /* a lost warning is better than a lost trace */
	t->warnings = w;
	if ((w[t->nwarnings] = strdup(msg.msg)))
		t->nwarnings++;
	w[t->nwarnings] = NULL;
}

/* ---- getting the bytes ---- */

/* Pipes cannot be mapped: copy them to an unlinked file first. */
static int copy_to_temp(int in, const char *name, struct mt_error *e)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	int fd = mt_anon_file(dir, "mtrace-");
	if (fd < 0)
		return mt_error_set(e, name, "cannot create a temporary copy in %s: %s", dir,
				    strerror(errno));
	static char buf[1 << 16];
	ssize_t n;
	while ((n = read(in, buf, sizeof buf)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || write(fd, buf, (size_t)n) != n) {
			mt_error_set(e, name, "%s while copying to a temporary file",
				     n < 0 ? strerror(errno) : "short write");
			close(fd);
			return -1;
		}
	}
	return fd;
}

/* An fd on the input's bytes as a regular file, and their number. */
static int open_input(const struct mt_trace *t, const char *path, size_t *len,
		      struct mt_error *e)
{
	int fd = strcmp(path, "-") == 0 ? dup(0) : open(path, O_RDONLY);
	if (fd < 0)
		return mt_error_set(e, t->path, "cannot open: %s", strerror(errno));
	struct stat st;
	int rc = fstat(fd, &st);
	if (rc != 0 || S_ISDIR(st.st_mode)) {
		rc == 0 ? mt_error_set(e, t->path, "is a directory, not a trace")
			: mt_error_set(e, t->path, "cannot stat: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (S_ISREG(st.st_mode)) {
		*len = (size_t)st.st_size;
		return fd;
	}
	int copy = copy_to_temp(fd, t->path, e);
	close(fd);
	if (copy >= 0)
		*len = (size_t)lseek(copy, 0, SEEK_END);
	return copy;
}

static int map_input(struct mt_trace *t, const char *path, struct mt_error *e)
{
	int fd = open_input(t, path, &t->len, e);
	if (fd < 0)
		return -1;
	return mt_map_fd(fd, t->len, &t->map, t->path, e);
}

/* ---- the window index ---- */

static int push_window(struct mt_trace *t, const struct mt_trace_window *w, size_t *cap)
{
	if (t->nwins == *cap) {
		size_t ncap = *cap ? 2 * *cap : 64;
		struct mt_trace_window *n = realloc(t->wins, ncap * sizeof *n);
		if (!n)
			return -1;
		t->wins = n;
		*cap = ncap;
	}
	t->wins[t->nwins++] = *w;
	return 0;
}

/*
 * A record that fails to decode right at a cut may just be incomplete: it is
 * cut if it decodes once the missing bytes are supplied and would have
 * reached past the cut.  The filler is 2, not 0: a missing pointer must not
 * come out as 0 (no pointer), which the decoder refuses.
 */
static int cut_record(const uint8_t *p, const uint8_t *end, struct mt_codec_state st)
{
	uint8_t buf[2 * MT_RECORD_MAX];
	size_t have = (size_t)(end - p), len;
	struct mt_rec r;
	if (have >= MT_RECORD_MAX)
		return 0;
	memset(buf, 2, sizeof buf);
	memcpy(buf, p, have);
	return mt_rec_decode(buf, buf + sizeof buf, &st, &r, &len) == MT_DEC_OK && len > have;
}

/* Counts the records of a window whose header cannot say (open or cut). */
static void scan_window(struct mt_trace *t, struct mt_trace_window *w, uint64_t wend)
{
	const uint8_t *p = t->map + w->off + MT_WINDOW_HEADER_SIZE, *end = t->map + wend;
	struct mt_codec_state st;
	struct mt_rec r;
	size_t len;
	int rc;

	mt_codec_init(&st, w->base_ts, mt_trace_codec_mode(t));
	w->count = 0;
	while ((rc = mt_rec_decode(p, end, &st, &r, &len)) == MT_DEC_OK) {
		p += len;
		w->count++;
	}
	/* Garbage is left for the cursor to report where it meets it. */
	if (rc == MT_DEC_CORRUPT && !(wend < w->off + w->size && cut_record(p, end, st)))
		p = end;
	w->data_end = (uint64_t)(p - t->map);
}

static int parse_window(struct mt_trace *t, uint64_t off, uint64_t limit,
			struct mt_trace_window *w, struct mt_error *e)
{
	const uint8_t *h = t->map + off;
	*w = (struct mt_trace_window){
		.off = off,
		.tid = mt_get_le32(h + MT_WH_TID),
		.seq = mt_get_le32(h + MT_WH_SEQ),
		.size = mt_get_le32(h + MT_WH_SIZE),
		.base_ts = mt_get_le64(h + MT_WH_BASE_TS),
		.base_mono = mt_get_le64(h + MT_WH_BASE_MONO),
		.first_rec = mt_get_le64(h + MT_WH_FIRST_REC),
		.flags = mt_get_le32(h + MT_WH_FLAGS),
	};
	uint32_t used = mt_get_le32(h + MT_WH_USED);
	if (w->tid == 0 || w->size < MT_TRACE_ALIGN || w->size % MT_TRACE_ALIGN ||
	    w->size > (1u << 30) || w->flags & ~(uint32_t)(MT_WHF_CLOSED | MT_WHF_LAST) ||
	    (w->flags & MT_WHF_CLOSED && used > w->size - MT_WINDOW_HEADER_SIZE))
		return mt_error_set(e, t->path, "offset %llu: corrupt window header",
				    (unsigned long long)off);

	uint64_t start = off + MT_WINDOW_HEADER_SIZE, wend = off + w->size;
	if (wend > limit) {
		if (!t->cut_warned)
			warn(t, "truncated at offset %llu (in the window of thread %u at offset %llu)",
			     (unsigned long long)limit, w->tid, (unsigned long long)off);
		t->cut_warned = 1;
		wend = limit;
	}
	if (w->flags & MT_WHF_CLOSED && start + used <= wend) {
		w->count = mt_get_le32(h + MT_WH_COUNT);
		w->data_end = start + used;
		w->checked = 1;
	} else {
		scan_window(t, w, wend);
	}
	/* Threads are ordered by their first record's time: read it now, while
	 * its page is mapped anyway (it follows the header). */
	struct mt_codec_state st;
	struct mt_rec r;
	size_t len;
	mt_codec_init(&st, w->base_ts, mt_trace_codec_mode(t));
	w->first_ts = w->base_ts;
	if (w->count && mt_rec_decode(t->map + start, t->map + w->data_end, &st, &r, &len) == MT_DEC_OK)
		w->first_ts = r.ts;
	return 0;
}

/* The size of the padding window (v3) whose header is h, or 0 if it is
 * none: space claimed for a thread that never used it. */
static uint64_t padding_size(const struct mt_trace *t, const uint8_t *h)
{
	uint32_t size = mt_get_le32(h + MT_WH_SIZE);
	if (t->info.version < 3 || mt_get_le32(h + MT_WH_TID) != 0 ||
	    mt_get_le32(h + MT_WH_FLAGS) != MT_WHF_CLOSED || size < MT_TRACE_ALIGN ||
	    size % MT_TRACE_ALIGN || size > (1u << 30))
		return 0;
	return size;
}

/* start is 0 when there is no run (offset 0 is the file header). */
static void warn_zero_run(struct mt_trace *t, uint64_t start, uint64_t end)
{
	if (start)
		warn(t, "offset %llu: %llu bytes of windows claimed but never written (skipped)",
		     (unsigned long long)start, (unsigned long long)(end - start));
}

/* Walks the file window by window, from the first aligned offset after the
 * header; windows are as long as their header says. */
static int walk_windows(struct mt_trace *t, struct mt_error *e)
{
	uint64_t limit = t->len, zero_from = 0, off = MT_TRACE_HEADER_SIZE;
	uint64_t dropped = MT_TRACE_HEADER_SIZE; /* mapped pages below it are dropped */
	size_t cap = 0, open = 0;

	if (t->info.flags & MT_FHF_CLOSED && t->info.end_offset) {
		if (t->info.end_offset <= t->len) {
			limit = t->info.end_offset;
		} else {
			warn(t, "truncated at offset %zu (the header says the trace ends at %llu)",
			     t->len, (unsigned long long)t->info.end_offset);
			t->cut_warned = 1;
		}
	}
	while (off < limit) {
		const uint8_t *h = t->map + off;
		size_t avail = limit - off < MT_WINDOW_HEADER_SIZE ? limit - off : MT_WINDOW_HEADER_SIZE;
		if (mt_all_zero(h, avail)) {
			if (!zero_from)
				zero_from = off;
			off += MT_TRACE_ALIGN;
			continue;
		}
		warn_zero_run(t, zero_from, off);
		zero_from = 0;
		if (avail >= MT_WINDOW_HEADER_SIZE && memcmp(h, MT_TABLE_MAGIC, 4) == 0) {
			uint64_t size;
			if (mt_stack_table_window(t, off, limit, &size, e))
				return -1;
			off += size;
			continue;
		}
		if (memcmp(h, MT_WINDOW_MAGIC, avail < 4 ? avail : 4) != 0)
			return mt_error_set(e, t->path, "offset %llu: corrupt window header",
					    (unsigned long long)off);
		if (avail < MT_WINDOW_HEADER_SIZE) {
			if (!t->cut_warned)
				warn(t, "truncated at offset %llu (inside a window header)",
				     (unsigned long long)limit);
			t->cut_warned = 1;
			break;
		}
		uint64_t pad = padding_size(t, h);
		if (pad) {
			off += pad;
			continue;
		}
		struct mt_trace_window w;
		if (parse_window(t, off, limit, &w, e))
			return -1;
		if (push_window(t, &w, &cap))
			return mt_error_set(e, t->path, "out of memory");
		/* Reading the header mapped the 64 KiB around it (the kernel's
		 * fault-around), the tail of windows walked before included,
		 * which would stay resident until a cursor came by: a long
		 * trace's index would hold much of the file.  So all of that goes,
		 * MT_DROP_BATCH at a time: dropped a window at a time, the index
		 * of a trace of 8,000 small windows cost more than its records'
		 * decoding.  The cursors map pages again as they read them. */
		uint64_t from = off & ~(uint64_t)(MT_FAULT_AROUND - 1);
		uint64_t to = off + w.size < limit ? off + w.size : limit;
		if (from > dropped)
			from = dropped;
		if (to - from >= MT_DROP_BATCH) {
			madvise((void *)(t->map + from), to - from, MADV_DONTNEED);
			dropped = to & ~(uint64_t)(MT_TRACE_ALIGN - 1);
		}
		open += !(w.flags & MT_WHF_CLOSED);
		off += w.size;
	}
	warn_zero_run(t, zero_from, off < limit ? off : limit);
	if (dropped < t->len) /* pages mapped around the last headers */
		madvise((void *)(t->map + dropped), t->len - dropped, MADV_DONTNEED);
	if (t->table_cut && !t->cut_warned)
		warn(t, "truncated inside the stack table at offset %llu", (unsigned long long)limit);
	if (open)
		warn(t, "%zu window%s left open (the recorder did not stop cleanly): "
		     "read up to the last complete record", open, open == 1 ? "" : "s");
	return 0;
}

/* ---- threads ---- */

static int by_tid_offset(const void *a, const void *b)
{
	const struct mt_trace_window *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static int by_first_ts(const void *a, const void *b)
{
	const struct mt_trace_thread *x = a, *y = b;
	if (x->first_ts != y->first_ts)
		return x->first_ts < y->first_ts ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->first_win < y->first_win ? -1 : 1;
}

/* Threads whose windows are lost leave gaps in the sequence: say which
 * records went missing, numbered as the thread counted them. */
static void check_sequence(struct mt_trace *t, const struct mt_trace_window *prev,
			   const struct mt_trace_window *w)
{
	uint32_t want = prev ? prev->seq + 1 : 0;
	uint64_t first = prev ? prev->first_rec + prev->count : 0;
	if (w->seq == want)
		return;
	char which[32];
	if (w->seq == want + 1)
		snprintf(which, sizeof which, "window %u", want);
	else
		snprintf(which, sizeof which, "windows %u..%u", want, w->seq - 1);
	if (w->first_rec > first)
		warn(t, "thread %u: %s missing (records %u:%llu..%u:%llu lost)", w->tid, which,
		     w->tid, (unsigned long long)first, w->tid, (unsigned long long)w->first_rec - 1);
	else
		warn(t, "thread %u: %s missing (no records lost)", w->tid, which);
}

/* Timestamp of the thread's first record (its first window's base if none). */
static uint64_t first_ts(const struct mt_trace *t, const struct mt_trace_thread *th)
{
	for (size_t i = th->first_win; i < th->first_win + th->nwin; i++)
		if (t->wins[i].count)
			return t->wins[i].first_ts;
	return t->wins[th->first_win].base_ts;
}

/*
 * Groups the windows into threads.  Windows are sorted by thread id and file
 * offset, which is claim order; a kernel thread id can be reused after its
 * thread ended, so a window that follows a thread's last window, or whose
 * sequence starts over, begins a new thread.
 */
static int group_threads(struct mt_trace *t)
{
	/* A trace with no window (a program that never allocated, or a damaged
	 * file) has no array to sort: qsort's pointer must not be NULL even
	 * for zero elements. */
	if (t->nwins)
		qsort(t->wins, t->nwins, sizeof *t->wins, by_tid_offset);
	t->threads = calloc(t->nwins ? t->nwins : 1, sizeof *t->threads);
	if (!t->threads)
		return -1;
	const struct mt_trace_window *prev = NULL;
	for (size_t i = 0; i < t->nwins; i++) {
		const struct mt_trace_window *w = &t->wins[i];
		if (!prev || w->tid != prev->tid || w->seq <= prev->seq || prev->flags & MT_WHF_LAST) {
			prev = NULL;
			t->threads[t->nthreads++] = (struct mt_trace_thread){ .tid = w->tid, .first_win = i };
		}
		check_sequence(t, prev, w);
		struct mt_trace_thread *th = &t->threads[t->nthreads - 1];
		th->nwin++;
		th->records += w->count;
		prev = w;
	}
	for (size_t i = 0; i < t->nthreads; i++)
		t->threads[i].first_ts = first_ts(t, &t->threads[i]);
	qsort(t->threads, t->nthreads, sizeof *t->threads, by_first_ts);
	return 0;
}

/* ---- header facts the recorder could not write ---- */

/*
 * A killed recorder never wrote the timestamp frequency.  Every window header
 * pairs a timestamp with CLOCK_MONOTONIC, as the file header does at start,
 * so the frequency is the ratio of the two spans up to the latest window.
 */
static void derive_ts_freq(struct mt_trace *t)
{
	struct mt_trace_info *in = &t->info;
	if (in->ts_freq)
		return;
	if (in->ts_source == MT_TS_MONOTONIC_NS) {
		in->ts_freq = 1000000000;
		return;
	}
	const struct mt_trace_window *last = NULL;
	for (size_t i = 0; i < t->nwins; i++)
		if (!last || t->wins[i].base_mono > last->base_mono)
			last = &t->wins[i];
	if (last && last->base_mono > in->start_mono_ns && last->base_ts > in->start_ts) {
		long double ticks = (long double)(last->base_ts - in->start_ts);
		long double freq = ticks * 1e9L / (long double)(last->base_mono - in->start_mono_ns);
		/* A damaged window header can claim any span: a frequency that
		 * does not fit is as unknown as a missing one. */
		if (freq >= 1 && freq < 0x1p64L)
			in->ts_freq = (uint64_t)freq;
	}
	if (!in->ts_freq) {
		in->ts_freq = 1000000000;
		warn(t, "timestamp frequency unknown (not in the header, too few windows to derive it): "
			"assuming 1 GHz");
	}
}

/* A cut file explains its own shortfall; other losses are worth a word. */
static void check_totals(struct mt_trace *t)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < t->nthreads; i++)
		sum += t->threads[i].records;
	if (t->info.flags & MT_FHF_CLOSED && !t->cut_warned && sum != t->info.records)
		warn(t, "the header counts %llu records but the windows hold %llu",
		     (unsigned long long)t->info.records, (unsigned long long)sum);
}

/* A recording cut short is whole up to the stop: readable, but not all of
 * the program's calls, which whoever reads its numbers must be told. */
static void check_stop(struct mt_trace *t)
{
	uint32_t why = t->info.stop_reason;
	if (why == MT_STOP_NONE)
		return;
	if (why < MT_STOP_REASONS)
		warn(t, "incomplete: recording stopped early (%s) after %llu calls",
		     mt_stop_reason_name(why), (unsigned long long)t->info.stop_records);
	else
		warn(t, "incomplete: recording stopped early (unknown reason %u) after %llu calls",
		     why, (unsigned long long)t->info.stop_records);
}

/* ---- public ---- */

struct mt_trace *mt_trace_open(const char *path, struct mt_error *e)
{
	struct mt_trace *t = calloc(1, sizeof *t);
	if (!t || !(t->path = strdup(strcmp(path, "-") == 0 ? "<stdin>" : path))) {
		free(t);
		mt_error_set(e, path, "out of memory");
		return NULL;
	}
	if (map_input(t, path, e) ||
	    mt_trace_header_decode(t->map, t->len, &t->info, t->path, e) ||
	    walk_windows(t, e) || mt_stack_table_finish(t, e))
		goto fail;
	if (group_threads(t)) {
		mt_error_set(e, t->path, "out of memory");
		goto fail;
	}
	derive_ts_freq(t);
	check_totals(t);
	check_stop(t);
	return t;
fail:
	mt_trace_close(t);
	return NULL;
}

void mt_trace_close(struct mt_trace *t)
{
	if (!t)
		return;
	if (t->map)
		munmap((void *)t->map, t->len);
	for (size_t i = 0; i < t->nwarnings; i++)
		free(t->warnings[i]);
	free(t->warnings);
	mt_stack_table_free(t);
	free(t->wins);
	free(t->threads);
	free(t->path);
	free(t);
}

const struct mt_trace_info *mt_trace_get_info(const struct mt_trace *t) { return &t->info; }
const char *mt_trace_path(const struct mt_trace *t) { return t->path; }

const char *const *mt_trace_warnings(const struct mt_trace *t)
{
	static const char *const none[] = { NULL };
	return t->warnings ? (const char *const *)t->warnings : none;
}

size_t mt_trace_windows(const struct mt_trace *t) { return t->nwins; }
size_t mt_trace_threads(const struct mt_trace *t) { return t->nthreads; }
uint32_t mt_trace_thread_tid(const struct mt_trace *t, size_t thread) { return t->threads[thread].tid; }
uint64_t mt_trace_thread_records(const struct mt_trace *t, size_t thread)
{
	return t->threads[thread].records;
}

uint64_t mt_trace_thread_first_ts(const struct mt_trace *t, size_t thread)
{
	return t->threads[thread].first_ts;
}
