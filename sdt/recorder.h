/*
 * recorder.h - the in-process recorder, as the interposer and the glibc
 * event deriver see it.
 *
 * Wrappers test mt_recording() (one load, one predictable branch) and only
 * then build a record; everything else about files, threads and windows is
 * behind mt_record().
 */
#ifndef MT_RECORDER_H
#define MT_RECORDER_H

#include <stdint.h>

#include "trace_codec.h"

/* Non-zero while recording (not stopped, not paused). */
extern unsigned mt_rec_epoch;

static inline int mt_recording(void)
{
	return __atomic_load_n(&mt_rec_epoch, __ATOMIC_RELAXED) != 0;
}

/* Appends r (its ts is filled in here) to the calling thread's window. */
void mt_record(struct mt_rec *r);

/* Records an MT_CALL_EVENT record (enum mt_event) in the calling thread. */
void mt_recorder_event(unsigned event, unsigned nargs, const uint64_t *args);

/* Library set-up: resolves the next allocator, creates the thread-exit
 * key and the fork handlers.  Idempotent. */
void mt_recorder_init(void);

/* The control API behind <mtrace.h>. */
int mt_recorder_start(void);
int mt_recorder_stop(void);
int mt_recorder_pause(int pause);
int mt_recorder_reset(void);
uint64_t mt_recorder_sync(void);

/* Before exec or _exit: finish this image's trace (returns 1 if it was
 * recording); after a failed exec, resume into a new file. */
int mt_recorder_exec_begin(void);
void mt_recorder_exec_failed(int was_recording);

#endif
