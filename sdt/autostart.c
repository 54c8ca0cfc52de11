/*
 * autostart.c - whether recording starts and stops by itself.
 *
 * Built twice.  In libmtrace.so recording starts only when MTRACE_CTL_FILE
 * is set, so the library can stay preloaded (or linked) for its markers
 * and <mtrace.h> at no cost.  In libmtracectl.so (built with
 * MT_ALWAYS_START) it always starts, as the original libmtracectl did.
 *
 * The decision is taken at the first malloc-family call after libc is up,
 * or in the constructor if that comes first: a preloaded library is
 * initialised after the program's other libraries, whose constructors
 * allocate, and those calls belong in the trace.  A recording still running
 * when the destructor runs is stopped there, so its header is complete.
 */
#include "config.h"

#include <stdlib.h>

#include "recorder.h"

int mt_autostart_wanted(void)
{
#ifdef MT_ALWAYS_START
	return 1;
#else
	return getenv("MTRACE_CTL_FILE") != NULL;
#endif
}

__attribute__((constructor)) static void mt_autostart(void)
{
	mt_recorder_init();
	mt_recorder_autostart();
}

__attribute__((destructor)) static void mt_autostop(void)
{
	mt_recorder_stop();
}
