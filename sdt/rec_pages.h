/*
 * rec_pages.h - a window's pages made ready for the recording thread's
 * stores, for the helper thread (rec_helper.c) and for a thread that maps
 * its own window (rec_thread.c: its first, or when the helper is late).
 *
 * A store to a page of a shared file mapping that is not mapped writable
 * costs a fault: on ext4 every page mapped by MAP_POPULATE (read-only,
 * for write notification) faults once more at its first store, ~2-4 us,
 * 128 a 512 KiB window.  Writing the window's zeros through the file
 * first and then populating it writable costs a third of that
 * (docs/BENCHMARKS.md, issue #15's ninth round).  Called with the
 * recorder lock held; nothing here allocates.
 */
#ifndef MT_REC_PAGES_H
#define MT_REC_PAGES_H

#include <stdint.h>

#include "rec_file.h"

/* Zeros over the window at off in f past its header, before anyone
 * writes into it: pages that a write put in the page cache cost the
 * populate far less than pages it must create by faulting.  Not where
 * fallocate made the pages already (tmpfs).  Best effort. */
void mt_pages_write_zeros(struct mt_file *f, uint64_t off, uint32_t size);

/* Faults the mapped window [m, m+size) in, writable, and touches each page
 * from this thread, so that no first store of the recording thread costs
 * more than another. */
void mt_pages_populate(uint8_t *m, uint32_t size);

#endif
