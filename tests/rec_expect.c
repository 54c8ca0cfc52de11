/*
 * rec_expect - does a recorded trace hold exactly the calls a test program
 * says it made?
 *
 * Usage: rec_expect [--skip-before] [--prefix] [--exit-frees] TRACE LOG
 *
 * LOG is what the program wrote with rec_log.h.  For every thread in LOG,
 * the trace's records of that thread must equal the logged calls, field by
 * field, in order.  --skip-before lets the trace hold earlier records (libc
 * start-up) before the first logged call; --prefix accepts a trace cut short
 * by kill -9: it may end after any logged call, one call past the log at
 * most (a call is recorded before the program logs it).  --exit-frees
 * accepts free(NULL) records after the last logged call: glibc makes such
 * calls on the thread's behalf as it exits.  Exit 0 on a match,
 * 1 with one line saying where they differ.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

struct want {
	uint32_t tid;
	struct mt_rec r;
};

static struct want *wants;
static size_t nwants, wants_cap;
static int skip_before, prefix, exit_frees;
/* Chunk flags are glibc's: another allocator below records none. */
static int chunk_flags_apply;
static const char *trace_path;

static unsigned call_by_name(const char *name)
{
	for (unsigned c = 1; c < MT_CALL_COUNT; c++)
		if (strcmp(mt_call_name(c), name) == 0)
			return c;
	fprintf(stderr, "rec_expect: unknown call '%s' in the log\n", name);
	exit(2);
}

/* Doubles the array: a log of 300 k calls (t-rec-kill) took minutes
 * under ASan when it grew one element per line. */
static void grow_wants(void)
{
	wants_cap = wants_cap ? 2 * wants_cap : 1024;
	wants = realloc(wants, wants_cap * sizeof *wants);
	if (!wants) {
		fprintf(stderr, "rec_expect: out of memory for %zu logged calls\n", wants_cap);
		exit(2);
	}
}

static void read_log(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "rec_expect: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	char call[32];
	unsigned long long in, out, nmemb, size, align, usable;
	unsigned tid, chunk;
	int rc;
	while (fscanf(f, "%u %31s %llx %llx %llu %llu %llu %d %llu %x", &tid, call, &in, &out,
		      &nmemb, &size, &align, &rc, &usable, &chunk) == 10) {
		if (nwants == wants_cap)
			grow_wants();
		struct mt_rec r = { .call = (uint8_t)call_by_name(call), .ptr_in = in, .ptr_out = out,
				    .nmemb = nmemb, .size = size, .align = align, .usable = usable };
		if (r.call == MT_CALL_POSIX_MEMALIGN && !out)
			r.rc = (uint32_t)rc;
		/* The flags the recorder must have set, from what the program saw. */
		r.flags = (uint8_t)(chunk_flags_apply ? chunk : 0);
		if (mt_call_has_in(r.call) && !in)
			r.flags |= MT_RF_NULL_IN;
		if (mt_call_allocates(r.call) && !out)
			r.flags |= MT_RF_NULL_OUT;
		wants[nwants++] = (struct want){ .tid = tid, .r = r };
	}
	fclose(f);
	if (!nwants) {
		fprintf(stderr, "rec_expect: %s: no calls logged\n", path);
		exit(2);
	}
}

static int same(const struct mt_rec *a, const struct mt_rec *b)
{
	return a->call == b->call && a->ptr_in == b->ptr_in && a->ptr_out == b->ptr_out &&
	       a->nmemb == b->nmemb && a->size == b->size && a->align == b->align &&
	       a->rc == b->rc && a->usable == b->usable && a->flags == b->flags;
}

static void show(char *buf, size_t n, const struct mt_rec *r)
{
	snprintf(buf, n, "%s(in 0x%" PRIx64 ", nmemb %" PRIu64 ", size %" PRIu64 ", align %" PRIu64
		 ") = 0x%" PRIx64 " rc %u usable %" PRIu64 " flags 0x%x",
		 mt_call_name(r->call), r->ptr_in, r->nmemb, r->size, r->align, r->ptr_out, r->rc,
		 r->usable, r->flags);
}

static size_t thread_of(const struct mt_trace *t, uint32_t tid)
{
	for (size_t i = 0; i < mt_trace_threads(t); i++)
		if (mt_trace_thread_tid(t, i) == tid)
			return i;
	fprintf(stderr, "rec_expect: %s: no records of thread %u\n", trace_path, tid);
	exit(1);
}

/* The thread's call records (events left out), in order. */
static struct mt_rec *read_thread(const struct mt_trace *t, uint32_t tid, size_t *n)
{
	struct mt_trace_cursor c;
	struct mt_error e;
	struct mt_rec r, *all = NULL;
	uint64_t recno;
	int rc;

	*n = 0;
	mt_trace_cursor_init(&c, t, thread_of(t, tid));
	while ((rc = mt_trace_cursor_next(&c, &r, &recno, &e)) > 0) {
		if (r.call == MT_CALL_EVENT)
			continue; /* derived allocator events are not calls */
		r.ts = 0;
		all = realloc(all, (*n + 1) * sizeof *all);
		all[(*n)++] = r;
	}
	if (rc < 0) {
		mt_error_print("rec_expect", &e);
		exit(1);
	}
	return all;
}

static void fail_at(uint32_t tid, size_t k, const struct mt_rec *want, const struct mt_rec *got)
{
	char a[256], b[256];
	show(a, sizeof a, want);
	show(b, sizeof b, got);
	fprintf(stderr, "rec_expect: thread %u, logged call %zu: expected %s, recorded %s\n", tid, k,
		a, b);
	exit(1);
}

/* Checks one thread: its logged calls against its records. */
static void check_thread(const struct mt_trace *t, uint32_t tid)
{
	struct mt_rec *want = malloc(nwants * sizeof *want);
	size_t m = 0, n, start = 0;
	for (size_t i = 0; i < nwants; i++)
		if (wants[i].tid == tid)
			want[m++] = wants[i].r;
	struct mt_rec *got = read_thread(t, tid, &n);

	if (skip_before)
		while (start < n && !same(&got[start], &want[0]))
			start++;
	if (start == n) {
		fprintf(stderr, "rec_expect: thread %u: the first logged call is not in the trace\n", tid);
		exit(1);
	}
	size_t have = n - start;
	for (size_t k = 0; k < m && k < have; k++)
		if (!same(&got[start + k], &want[k]))
			fail_at(tid, k, &want[k], &got[start + k]);
	if (have < m) {
		fprintf(stderr, "rec_expect: thread %u: trace ends after %zu of %zu logged calls\n", tid,
			have, m);
		exit(1);
	}
	while (exit_frees && have > m && got[start + have - 1].call == MT_CALL_FREE &&
	       !got[start + have - 1].ptr_in)
		have--;
	/* Under --prefix one more record may be there: made, not yet logged. */
	if (have > m + (size_t)prefix) {
		char a[256];
		show(a, sizeof a, &got[start + m]);
		fprintf(stderr, "rec_expect: thread %u: %zu records after the last logged call, first %s\n",
			tid, have - m, a);
		exit(1);
	}
	printf("thread %u: %zu calls match (%zu earlier records skipped)\n", tid, m, start);
	free(got);
	free(want);
}

int main(int argc, char **argv)
{
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--skip-before") == 0)
			skip_before = 1;
		else if (strcmp(argv[i], "--prefix") == 0)
			prefix = 1;
		else if (strcmp(argv[i], "--exit-frees") == 0)
			exit_frees = 1;
		else
			break;
	}
	if (argc - i != 2) {
		fprintf(stderr, "usage: rec_expect [--skip-before] [--prefix] [--exit-frees] TRACE LOG\n");
		return 2;
	}
	trace_path = argv[i];
	struct mt_error e;
	struct mt_trace *t = mt_trace_open(trace_path, &e);
	if (!t) {
		mt_error_print("rec_expect", &e);
		return 1;
	}
	chunk_flags_apply = mt_trace_get_info(t)->allocator == MT_ALLOC_GLIBC;
	read_log(argv[i + 1]);
	const char *const *w = mt_trace_warnings(t);
	if (*w && !prefix) {
		fprintf(stderr, "rec_expect: unexpected warning: %s\n", *w);
		return 1;
	}
	for (size_t k = 0; k < nwants; k++) {
		int seen = 0;
		for (size_t j = 0; j < k && !seen; j++)
			seen = wants[j].tid == wants[k].tid;
		if (!seen)
			check_thread(t, wants[k].tid);
	}
	mt_trace_close(t);
	return 0;
}
