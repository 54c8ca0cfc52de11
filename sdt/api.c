/*
 * api.c - the public <mtrace.h> functions, exported from both libraries.
 * They only translate to the recorder's internal calls, so the recorder's
 * own names can stay hidden.
 */
#include "config.h"

#include "mtrace.h"
#include "recorder.h"
#include "visibility.h"


MT_EXPORT int mtrace_start(void)
{
	return mt_recorder_start();
}

MT_EXPORT int mtrace_stop(void)
{
	return mt_recorder_stop();
}

MT_EXPORT int mtrace_pause(void)
{
	return mt_recorder_pause(1);
}

MT_EXPORT int mtrace_unpause(void)
{
	return mt_recorder_pause(0);
}

MT_EXPORT unsigned long long mtrace_sync(void)
{
	return mt_recorder_sync();
}

MT_EXPORT int mtrace_reset(void)
{
	return mt_recorder_reset();
}
