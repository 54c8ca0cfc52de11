/*
 * fuzz_log.c - libFuzzer target for the text log importers (malloc-log
 * lines from the stap and bpftrace scripts, glibc MALLOC_TRACE output:
 * lib/log_*.c).  A log that imports is read back as a trace, so the trace
 * the importer writes is checked by the reader too.
 */
#include <stdint.h>

#include "fuzz_file.h"
#include "log_import.h"
#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static struct fuzz_file in, out;
	if (!in.path[0]) {
		fuzz_file_init(&in, "log");
		fuzz_file_init(&out, "trace");
	}
	fuzz_file_fill(&in, data, len);

	(void)mt_log_sniff(data, len);
	(void)mt_log_sniff_file(in.path);
	struct mt_error e;
	if (mt_log_import(in.path, out.path, &e))
		return 0;
	struct mt_trace *t = mt_trace_open(out.path, &e);
	if (!t)
		__builtin_trap(); /* the importer wrote a trace its own reader refuses */
	struct mt_trace_merge *m = mt_trace_merge_open(t);
	struct mt_rec r;
	size_t thread;
	uint64_t recno;
	while (m && mt_trace_merge_next(m, &r, &thread, &recno, &e) > 0)
		;
	mt_trace_merge_close(m);
	mt_trace_close(t);
	return 0;
}
