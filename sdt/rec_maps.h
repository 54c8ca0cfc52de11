/*
 * rec_maps.h - where the trace's windows are mapped, and how they are
 * unmapped: a few at a time.
 *
 * Unmapping a window that was written to is a TLB shootdown, an interrupt
 * to every other processor the program runs on; on the 2-core VMs here,
 * where such interrupts go through the hypervisor, the unmaps of a program
 * that starts a thread for each of 3,000 tasks (two or three windows a
 * thread) took 1.6 of the 2.5 CPU seconds that recording it added.  So the
 * windows are mapped at fixed places in an area of address space reserved
 * for them, a file offset's window always at the same place, so windows
 * next to each other in the file are next to each other in memory; and the
 * windows given up are put back into the reservation MT_MAPS_BATCH at a
 * time, the ones that touch in one system call.  Where the reservation
 * cannot be made (a ulimit -v) or is used up, windows are mapped anywhere
 * and unmapped one by one, as before.
 *
 * Called with the recorder lock held, which guards everything here; in a
 * forked child, before any other thread exists.  Nothing here allocates.
 */
#ifndef MT_REC_MAPS_H
#define MT_REC_MAPS_H

#include <stdint.h>

#include "rec_file.h"

/* Windows given up are unmapped this many at a time (at most 8 MiB of the
 * file's pages stay mapped meanwhile: MT_REC_WINDOW_MAX each). */
enum { MT_MAPS_BATCH = 16 };

/* Maps [off, off+size) of f writable and shared; MAP_FAILED with errno
 * set if it cannot. */
uint8_t *mt_maps_window(const struct mt_file *f, uint64_t off, uint32_t size);

/* [base, base+size), a window or part of one that nothing will store to
 * again, is unmapped, now or with the next batch. */
void mt_maps_unmap(uint8_t *base, uint32_t size);

/* The windows given up so far are unmapped now: when a recording stops,
 * and in a forked child, where they are the parent's. */
void mt_maps_flush(void);

#endif
