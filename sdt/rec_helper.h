/*
 * rec_helper.h - the recorder's helper thread: the page work of the
 * recording threads.
 *
 * A recording thread only writes into memory already mapped and faulted
 * in: while it fills one window, the helper claims its next one in the
 * file, maps it and populates it (MADV_POPULATE_WRITE where the kernel has
 * it, then a load from each page for a hypervisor's shadow page tables,
 * rec_pages.c), and it unmaps the windows that are full.  The thread then
 * swaps a pointer at a window's end (mt_window_open).  Without the helper
 * (it could not be started, or has not been yet) threads do that work
 * themselves, as before.
 *
 * The helper is started where recording starts outside any allocator call
 * (recorder.c: the constructor, the control API, a forked child's fork
 * handler), with every signal blocked so that the program's signals never
 * land on it, and one priority level above a real-time creator (so that
 * busy SCHED_FIFO threads cannot starve it); it never records and never
 * allocates.  It is started with
 * the recorder lock free and the calling thread not busy, so that
 * pthread_create's own allocation for it (the new thread's TLS vector,
 * made by glibc through the interposed calloc) is recorded like any other
 * call of the process, and the glibc events it causes too.  The helper
 * exists in one process only: a forked child starts its own.  Everything
 * else here is called with the recorder lock held.
 */
#ifndef MT_REC_HELPER_H
#define MT_REC_HELPER_H

#include <pthread.h>
#include <stdint.h>

#include "rec_file.h"
#include "rec_thread.h"
#include "visibility.h"

/* Starts the helper (which takes `lock`, the recorder's) while recording,
 * unless it runs or could not be started in this process.  Called without
 * the lock, outside the recorder (mt_tls.busy clear). */
void mt_helper_start(pthread_mutex_t *lock);

/* s wants its next window, of `size` bytes in f, prepared.  Without a
 * helper nothing is asked: the thread opens its next window itself. */
void mt_helper_want(struct mt_slot *s, struct mt_file *f, uint32_t size);

/* The full window [base, base+size) of s is unmapped: by the helper if it
 * runs and has room for it, else here. */
void mt_helper_unmap(struct mt_slot *s, uint8_t *base, uint32_t size);

/* [base, base+size) is unmapped now, or, if it is the window the helper is
 * still filling (taken by a thread that has since gone), by the helper
 * when it is done: it reads every page it fills. */
void mt_helper_release(uint8_t *base, uint32_t size);

/* Whether base is the window the helper is still filling. */
int mt_helper_filling(const uint8_t *base);

/* The window the helper is filling is taken by its thread as it stands:
 * the helper leaves it mapped when done. */
void mt_helper_hand_over(void);

/* CPU time the helper has used so far, in ns; 0 when none runs. */
uint64_t mt_helper_cpu_ns(void);

/* In a forked child: no helper runs; the mapping it was unmapping in the
 * parent goes, and the next window wanted starts a new helper. */
void mt_helper_forget(void);

#endif
