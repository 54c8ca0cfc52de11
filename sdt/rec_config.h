/*
 * rec_config.h - what the environment asks of the recorder, checked.
 *
 *   MTRACE_CTL_FILE    name prefix of the trace (default /tmp/mtrace.out);
 *                      each process writes PREFIX.PID
 *   MTRACE_RECORD_PID  set by mtrace-record: the process with this pid
 *                      writes exactly MTRACE_CTL_FILE
 *   MTRACE_CTL_QUIET   1 silences the informational messages
 *   MTRACE_GLIBC_EVENTS 1 puts the derived glibc events (arenas, heaps,
 *                      sbrk, thresholds) in the trace; unset or 0, the
 *                      deriver stays off the recording path
 *
 * A bad value gets one line on stderr naming the variable, and a sane
 * default; it never stops the program.
 */
#ifndef MT_REC_CONFIG_H
#define MT_REC_CONFIG_H

#include <limits.h>

#define MT_DEFAULT_PREFIX "/tmp/mtrace.out"
/* Room left after the prefix for ".PID.N". */
#define MT_PREFIX_MAX (PATH_MAX - 32)

struct mt_config {
	char prefix[MT_PREFIX_MAX];
	int exact;   /* write exactly prefix, not prefix.PID */
	int glibc_events;   /* the trace holds the derived glibc events */
};

/* Reads and checks the environment; sets mt_quiet.  Takes the exact-name
 * request out of the environment so children and exec'd images do not
 * overwrite this process's file. */
void mt_config_load(struct mt_config *c);

#endif
