/*
 * gen_writer.h - the trace writer of the test programs that make traces of
 * their own (conv_fresh, fmt_threads): a header naming the program,
 * stamped in nanoseconds from 1000, and one line and exit 1 where the
 * file cannot be made.
 */
#ifndef MT_GEN_WRITER_H
#define MT_GEN_WRITER_H

#include <stdio.h>
#include <stdlib.h>

#include "trace.h"

static inline struct mt_trace_writer *gen_writer_open(const char *prog, const char *path,
						      uint32_t pid)
{
	struct mt_trace_info info = { .pid = pid, .ts_freq = 1000000000u,
				      .ts_source = MT_TS_MONOTONIC_NS, .start_ts = 1000 };
	snprintf(info.exe, sizeof info.exe, "/usr/bin/%s", prog);
	struct mt_error e;
	struct mt_trace_writer *w = mt_trace_writer_open(path, &info, 0, &e);
	if (!w) {
		mt_error_print(prog, &e);
		exit(1);
	}
	return w;
}

#endif
