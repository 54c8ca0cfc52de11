/*
 * tool_output.c - see tool_output.h.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mt_error.h"
#include "tool_output.h"
#include "trace.h"

int mt_stdout_checked(const char *prog, int status)
{
	static int reported;
	errno = 0;
	int flush_failed = fflush(stdout) != 0;
	int err = errno;
	if (!flush_failed && !ferror(stdout))
		return status;
	/* An earlier write failed and fflush had nothing left to retry: its
	 * errno is gone, and EIO says no more than that. */
	if (!reported)
		fprintf(stderr, "%s: writing standard output: %s\n", prog, strerror(err ? err : EIO));
	reported = 1;
	return 1;
}

int mt_bad_option(const char *prog, int c, const char *option)
{
	if (c == ':')
		fprintf(stderr, "%s: option '%s' needs an argument; try '%s --help'\n", prog, option,
			prog);
	else
		fprintf(stderr, "%s: unknown option '%s'; try '%s --help'\n", prog, option, prog);
	return -1;
}

struct mt_trace *mt_tool_open_trace(const char *prog, const char *path)
{
	struct mt_error e;
	struct mt_trace *t = mt_trace_open(path, &e);
	if (!t) {
		mt_error_print(prog, &e);
		return NULL;
	}
	for (const char *const *w = mt_trace_warnings(t); *w; w++)
		fprintf(stderr, "%s: %s\n", prog, *w);
	return t;
}
