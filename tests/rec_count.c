/*
 * rec_count - the calls a trace holds between rec_storm's markers, per
 * thread, for holding against what rec_storm counted as it made them.
 *
 * Usage: rec_count TRACE...
 *
 * Prints "PID TID CALLS" for each span (a malloc(REC_SPAN_BEGIN) up to the
 * next malloc(REC_SPAN_END) in the same thread; allocator events are not
 * calls).  Fails, naming the trace, if the trace has any warning, did not
 * close cleanly, dropped a call, or its header's record count differs from
 * the records read: a trace that lost anything cannot pass.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "rec_storm.h"
#include "trace.h"

static int is_marker(const struct mt_rec *r, uint64_t size)
{
	return r->call == MT_CALL_MALLOC && r->size == size;
}

/* Prints the thread's spans; adds its records to *records.  0 or -1. */
static int count_thread(const struct mt_trace *t, size_t thread, uint64_t *records)
{
	const struct mt_trace_info *in = mt_trace_get_info(t);
	uint32_t tid = mt_trace_thread_tid(t, thread);
	struct mt_trace_cursor c;
	struct mt_rec r;
	struct mt_error e;
	uint64_t recno, calls = 0;
	int inside = 0, rc;
	mt_trace_cursor_init(&c, t, thread);
	while ((rc = mt_trace_cursor_next(&c, &r, &recno, &e)) > 0) {
		++*records;
		if (inside && is_marker(&r, REC_SPAN_END)) {
			printf("%" PRIu32 " %" PRIu32 " %" PRIu64 "\n", in->pid, tid, calls);
			inside = 0;
		} else if (inside) {
			calls += r.call != MT_CALL_EVENT;
		} else if (is_marker(&r, REC_SPAN_BEGIN)) {
			inside = 1;
			calls = 0;
		}
	}
	if (rc < 0) {
		mt_error_print("rec_count", &e);
		return -1;
	}
	if (inside) {
		fprintf(stderr, "rec_count: %s: thread %" PRIu32 ": a span never ends\n",
			mt_trace_path(t), tid);
		return -1;
	}
	return 0;
}

static int count_trace(const char *path)
{
	struct mt_error e;
	struct mt_trace *t = mt_trace_open(path, &e);
	if (!t) {
		mt_error_print("rec_count", &e);
		return -1;
	}
	const struct mt_trace_info *in = mt_trace_get_info(t);
	const char *const *w = mt_trace_warnings(t);
	int rc = -1;
	uint64_t records = 0;
	if (*w)
		fprintf(stderr, "rec_count: %s\n", *w);
	else if (!(in->flags & MT_FHF_CLOSED) || in->dropped || in->stop_reason)
		fprintf(stderr, "rec_count: %s: %s, %" PRIu64 " dropped, stop reason %" PRIu32 "\n",
			path, in->flags & MT_FHF_CLOSED ? "closed" : "not closed", in->dropped,
			in->stop_reason);
	else
		rc = 0;
	for (size_t i = 0; rc == 0 && i < mt_trace_threads(t); i++)
		rc = count_thread(t, i, &records);
	if (rc == 0 && records != in->records) {
		fprintf(stderr, "rec_count: %s: the header counts %" PRIu64 " records, read %" PRIu64 "\n",
			path, in->records, records);
		rc = -1;
	}
	mt_trace_close(t);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: rec_count TRACE...\n");
		return 2;
	}
	int status = 0;
	for (int i = 1; i < argc; i++)
		if (count_trace(argv[i]))
			status = 1;
	return fflush(stdout) == 0 ? status : 1;
}
