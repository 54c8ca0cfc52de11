/*
 * mtrace.h - control the malloc-trace-kit recorder from the traced program.
 *
 * Link with -lmtrace (or preload libmtrace.so / libmtracectl.so) to record
 * only the part of a run that matters.  Every function may be called from
 * any thread at any time; threads that are allocating meanwhile notice on
 * their next call.  See libmtrace(3).
 */
#ifndef MTRACE_H
#define MTRACE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Starts recording into a new trace file (PREFIX.PID, see MTRACE_CTL_FILE),
 * or resumes a paused recording.  0, or -1 if the file cannot be created. */
int mtrace_start(void);

/* Ends the trace file: every thread's records are counted and the header
 * completed.  0 (also when not recording). */
int mtrace_stop(void);

/* Stops recording calls without ending the file; mtrace_unpause resumes.
 * 0, or -1 when not recording. */
int mtrace_pause(void);
int mtrace_unpause(void);

/* Brings the file's header up to date and returns the number of records
 * written so far to the current file (0 when not recording). */
unsigned long long mtrace_sync(void);

/* Ends this trace file and begins a new one (PREFIX.PID.2, .3...).
 * 0, or -1 when not recording or the new file cannot be created. */
int mtrace_reset(void);

#ifdef __cplusplus
}
#endif

#endif
