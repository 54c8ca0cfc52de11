/*
 * rec_config.h - what the environment asks of the recorder, checked.
 *
 *   MTRACE_CTL_FILE    name prefix of the trace (default /tmp/mtrace.out);
 *                      each process writes PREFIX.PID
 *   MTRACE_RECORD_ONLY  set by mtrace-record --no-children: only the
 *                      process with this pid records (all its images)
 *   MTRACE_RECORD_LIST  set by mtrace-record: each trace file's name is
 *                      appended to this file as it is created, so that
 *                      mtrace-record can name them all at the end
 *   MTRACE_CTL_QUIET   1 silences the informational messages
 *   MTRACE_GLIBC_EVENTS 1 puts the derived glibc events (arenas, heaps,
 *                      sbrk, thresholds) in the trace; unset or 0, the
 *                      deriver stays off the recording path
 *   MTRACE_PRECISE_TIME 1 stamps every record; unset or 0, one record
 *                      in 16 while one thread records, then all but a
 *                      thread's allocation of the block it just freed,
 *                      which no other thread took meanwhile, which
 *                      carries the free's time (recorder.h)
 *
 * A bad value gets one line on stderr naming the variable, and a sane
 * default; it never stops the program.
 */
#ifndef MT_REC_CONFIG_H
#define MT_REC_CONFIG_H

#include <limits.h>
#include <sys/types.h>

#define MT_DEFAULT_PREFIX "/tmp/mtrace.out"
/* Room left after the prefix for ".PID.N". */
#define MT_PREFIX_MAX (PATH_MAX - 32)

struct mt_config {
	char prefix[MT_PREFIX_MAX];
	pid_t only_pid;          /* 0, or the one process that records */
	char list[PATH_MAX];     /* "", or where to list the files made */
	int glibc_events;        /* the trace holds the derived glibc events */
	int precise_time;        /* MTRACE_PRECISE_TIME: every record stamped (recorder.h) */
};

/* Reads and checks the environment; sets mt_quiet. */
void mt_config_load(struct mt_config *c);

#endif
