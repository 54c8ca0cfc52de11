/*
 * fuzz_trace.c - libFuzzer target for the trace reader: header, window
 * index, every thread's cursor and the merged stream, as mtrace-dump and
 * trace2wl drive them.  It goes only through lib/trace.h, so record kinds
 * and tables added to the format later are covered without change here.
 */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_file.h"
#include "trace.h"

static void walk_threads(struct mt_trace *t)
{
	for (size_t i = 0; i < mt_trace_threads(t); i++) {
		struct mt_trace_cursor c;
		struct mt_rec r;
		uint64_t recno;
		struct mt_error e;
		(void)mt_trace_thread_tid(t, i);
		(void)mt_trace_thread_records(t, i);
		mt_trace_cursor_init(&c, t, i);
		while (mt_trace_cursor_next(&c, &r, &recno, &e) > 0)
			(void)mt_call_name(r.call);
	}
}

static void walk_merged(struct mt_trace *t)
{
	struct mt_trace_merge *m = mt_trace_merge_open(t);
	if (!m)
		return;
	struct mt_rec r;
	size_t thread;
	uint64_t recno;
	struct mt_error e;
	while (mt_trace_merge_next(m, &r, &thread, &recno, &e) > 0)
		;
	mt_trace_merge_close(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static struct fuzz_file in;
	if (!in.path[0])
		fuzz_file_init(&in, "trace");
	fuzz_file_fill(&in, data, len);

	struct mt_error e;
	struct mt_trace *t = mt_trace_open(in.path, &e);
	if (!t)
		return 0;
	(void)mt_trace_get_info(t);
	for (const char *const *w = mt_trace_warnings(t); *w; w++)
		;
	(void)mt_trace_windows(t);
	walk_threads(t);
	walk_merged(t);
	mt_trace_close(t);
	return 0;
}
