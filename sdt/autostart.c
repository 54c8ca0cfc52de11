/*
 * autostart.c - when recording starts and stops by itself.
 *
 * Built twice.  In libmtrace.so recording starts at load only when
 * MTRACE_CTL_FILE is set, so the library can stay preloaded (or linked) for
 * its markers and <mtrace.h> at no cost.  In libmtracectl.so (built with
 * MT_ALWAYS_START) it always starts, as the original libmtracectl did.
 * Either way a recording still running at exit is stopped, so its header is
 * complete.  As a preloaded library this constructor runs before those of
 * the program's other libraries, and the destructor after theirs.
 */
#include "config.h"

#include <stdlib.h>

#include "recorder.h"

__attribute__((constructor)) static void mt_autostart(void)
{
	mt_recorder_init();
#ifdef MT_ALWAYS_START
	mt_recorder_start();
#else
	if (getenv("MTRACE_CTL_FILE"))
		mt_recorder_start();
#endif
}

__attribute__((destructor)) static void mt_autostop(void)
{
	mt_recorder_stop();
}
