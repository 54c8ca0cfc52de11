/*
 * tool_output.c - see tool_output.h.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tool_output.h"

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
