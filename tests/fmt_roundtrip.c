/*
 * fmt_roundtrip.c - writer to reader: every record comes back, in order,
 * under its right name, through cursors and through the merge.
 *
 * Runs the same generated records through three window layouts: many small
 * fixed windows across interleaved threads, the recorder's growing windows
 * (up to MT_WINDOW_MAX), and a trace left open as a killed recorder leaves
 * it, where counts come from decoding and the timestamp frequency must be
 * derived from the window stamps.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fmt_gen.h"
#include "trace.h"

#define FREQ 2400000000ull /* a TSC-like frequency, not a round 1 GHz */

struct layout {
	const char *name;
	unsigned threads;
	uint64_t records;     /* per thread; thread k writes records - k*7 */
	uint32_t window_size; /* 0: grow like the recorder */
	int leave_open;
};

static uint64_t thread_records(const struct layout *l, unsigned k) { return l->records - k * 7; }
static uint32_t tid_of(unsigned k) { return 4711 + k * 3; }

/* Writes the threads' records interleaved, as concurrent threads would. */
static int write_trace(const char *path, const struct layout *l)
{
	struct mt_trace_info in = {
		.pid = 4711, .ppid = 1, .ts_source = MT_TS_TSC, .allocator = MT_ALLOC_GLIBC,
		.start_realtime_ns = 1700000000123456789ull, .start_mono_ns = 5000000000ull,
		.start_ts = FMT_START_TS, .ts_freq = FREQ,
	};
	strcpy(in.exe, "/usr/bin/roundtrip");
	strcpy(in.allocator_name, "glibc 2.36");
	struct mt_error e;
	struct mt_trace_writer *w = mt_trace_writer_open(path, &in, l->window_size, &e);
	if (!w) {
		fprintf(stderr, "%s\n", e.msg);
		return -1;
	}
	for (uint64_t i = 0; i < l->records; i++)
		for (unsigned k = 0; k < l->threads; k++) {
			struct mt_rec r;
			if (i >= thread_records(l, k))
				continue;
			fmt_gen_rec(&r, k, i);
			if (mt_trace_writer_add(w, tid_of(k), &r, &e)) {
				fprintf(stderr, "%s\n", e.msg);
				return -1;
			}
		}
	if (mt_trace_writer_close(w, l->leave_open, &e)) {
		fprintf(stderr, "%s\n", e.msg);
		return -1;
	}
	return 0;
}

static unsigned gen_thread_of(const struct mt_trace *t, size_t thread)
{
	return (mt_trace_thread_tid(t, thread) - 4711) / 3;
}

static void check_header(const struct mt_trace *t, const struct layout *l)
{
	const struct mt_trace_info *in = mt_trace_get_info(t);
	CHECK(in->pid == 4711 && in->ppid == 1 && strcmp(in->exe, "/usr/bin/roundtrip") == 0 &&
	      strcmp(in->allocator_name, "glibc 2.36") == 0 && in->allocator == MT_ALLOC_GLIBC,
	      "%s: header fields", l->name);
	CHECK(!(in->flags & MT_FHF_CLOSED) == !!l->leave_open, "%s: closed flag", l->name);
	/* Derived from window stamps when left open: nanosecond rounding only. */
	uint64_t err = in->ts_freq > FREQ ? in->ts_freq - FREQ : FREQ - in->ts_freq;
	CHECK(err <= FREQ / 10000, "%s: ts_freq %llu, want %llu", l->name,
	      (unsigned long long)in->ts_freq, FREQ);
	const char *const *w = mt_trace_warnings(t);
	CHECK(l->leave_open ? w[0] && strstr(w[0], "left open") && !w[1] : !w[0],
	      "%s: warnings: %s", l->name, w[0] ? w[0] : "(none)");
}

/* What a lean cursor (the converter's) must read as a full one does. */
static int lean_equal(const struct mt_rec *a, const struct mt_rec *b)
{
	return a->call == b->call && a->flags == b->flags && a->ts == b->ts &&
	       a->ptr_in == b->ptr_in && a->ptr_out == b->ptr_out && a->size == b->size &&
	       a->nmemb == b->nmemb && a->align == b->align &&
	       (a->call != MT_CALL_EVENT || (a->event == b->event && a->nargs == b->nargs &&
					     !memcmp(a->args, b->args, a->nargs * sizeof *a->args)));
}

static void check_cursors(const struct mt_trace *t, const struct layout *l)
{
	CHECK(mt_trace_threads(t) == l->threads, "%s: %zu threads", l->name, mt_trace_threads(t));
	for (size_t th = 0; th < mt_trace_threads(t); th++) {
		unsigned k = gen_thread_of(t, th);
		/* Thread 0 starts first; the others tie on the first timestamp
		 * and are ordered by tid. */
		CHECK(k == th, "%s: thread %zu is generated thread %u", l->name, th, k);
		CHECK(mt_trace_thread_records(t, th) == thread_records(l, k), "%s: thread %u count",
		      l->name, k);
		struct mt_trace_cursor c, lc;
		struct mt_rec want, got, lean;
		struct mt_error e;
		uint64_t recno, lean_recno, n = 0;
		int rc;
		mt_trace_cursor_init(&c, t, th);
		mt_trace_cursor_init(&lc, t, th);
		while ((rc = mt_trace_cursor_next(&c, &got, &recno, &e)) > 0) {
			CHECK(mt_trace_cursor_next_lean(&lc, &lean, &lean_recno, &e) == 1 &&
			      lean_recno == recno && lean_equal(&lean, &got),
			      "%s: lean record %u:%llu differs", l->name, tid_of(k),
			      (unsigned long long)n);
			fmt_gen_rec(&want, k, n);
			CHECK(recno == n, "%s: %u:%llu named %llu", l->name, tid_of(k),
			      (unsigned long long)n, (unsigned long long)recno);
			if (!fmt_rec_equal(&want, &got)) {
				fmt_rec_print(stderr, "wrote", &want);
				fmt_rec_print(stderr, "read ", &got);
				CHECK(0, "%s: record %u:%llu differs", l->name, tid_of(k),
				      (unsigned long long)n);
			}
			n++;
		}
		CHECK(rc == 0, "%s: cursor: %s", l->name, e.msg);
		CHECK(mt_trace_cursor_next_lean(&lc, &lean, &lean_recno, &e) == 0,
		      "%s: the lean cursor reads past the end", l->name);
		CHECK(n == thread_records(l, k), "%s: thread %u gave %llu records", l->name, k,
		      (unsigned long long)n);
	}
}

/* Merge order: by timestamp, ties by thread index, nothing lost. */
static void check_merge(const struct mt_trace *t, const struct layout *l)
{
	struct mt_trace_merge *m = mt_trace_merge_open(t);
	uint64_t next[64] = { 0 }, total = 0, last_ts = 0;
	size_t last_th = 0, th;
	struct mt_rec r, want;
	struct mt_error e;
	uint64_t recno;
	int rc;
	while ((rc = mt_trace_merge_next(m, &r, &th, &recno, &e)) > 0) {
		CHECK(total == 0 || r.ts > last_ts || (r.ts == last_ts && th > last_th),
		      "%s: merge order at %llu", l->name, (unsigned long long)total);
		CHECK(recno == next[th], "%s: thread %zu record %llu out of order", l->name, th,
		      (unsigned long long)recno);
		fmt_gen_rec(&want, gen_thread_of(t, th), recno);
		CHECK(fmt_rec_equal(&want, &r), "%s: merged record differs", l->name);
		next[th] = recno + 1;
		last_ts = r.ts;
		last_th = th;
		total++;
	}
	CHECK(rc == 0, "%s: merge: %s", l->name, e.msg);
	uint64_t want_total = 0;
	for (unsigned k = 0; k < l->threads; k++)
		want_total += thread_records(l, k);
	CHECK(total == want_total, "%s: merged %llu of %llu", l->name, (unsigned long long)total,
	      (unsigned long long)want_total);
	mt_trace_merge_close(m);
}

static void run(const struct layout *l, const char *dir)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/roundtrip-%d.mtr", dir, (int)getpid());
	if (write_trace(path, l)) {
		CHECK(0, "%s: writing failed", l->name);
		return;
	}
	struct mt_error e;
	struct mt_trace *t = mt_trace_open(path, &e);
	CHECK(t, "%s: open: %s", l->name, e.msg);
	if (t) {
		check_header(t, l);
		check_cursors(t, l);
		check_merge(t, l);
		printf("%s: %zu threads, %zu windows\n", l->name, mt_trace_threads(t),
		       mt_trace_windows(t));
		mt_trace_close(t);
	}
	unlink(path);
}

int main(void)
{
	static const struct layout layouts[] = {
		{ "small windows", 5, 3000, 4096, 0 },
		{ "growing windows", 2, 400000, 0, 0 },
		{ "left open", 3, 5000, 4096, 1 },
	};
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
		run(&layouts[i], dir);
	return check_result();
}
