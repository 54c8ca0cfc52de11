/*
 * rec_table.h - the trace's stack table windows, written from the recorder.
 *
 * Stacks and module maps are appended as entries (trace_format.h) to a
 * table window of the current trace file; a full window is left as it is
 * and a new one claimed.  Everything here runs under the table lock, which
 * is taken after the dynamic loader's lock (inside a dl_iterate_phdr
 * callback, see rec_modules.c) and before the recorder's, never the other
 * way round.
 */
#ifndef MT_REC_TABLE_H
#define MT_REC_TABLE_H

#include <stddef.h>
#include <stdint.h>

void mt_table_lock(void);
void mt_table_unlock(void);

/* The trace file now being written (rec_stack.c keeps it); table entries
 * always go to that file. */
unsigned mt_table_current_serial(void);

/*
 * Appends one entry: entry[0] is its kind, stored last.  Returns the serial
 * of the file it went to, or 0 if it could not be written (no file, the
 * file cannot grow, or a STACK entry while the file has no module map yet).
 */
unsigned mt_table_put(uint8_t *entry, size_t len);

/* The file written to has its module map (rec_modules.c says so after
 * writing it); a new file needs its own. */
int mt_table_has_modules(void);
void mt_table_set_modules(void);

/* Whether addr lies in the mapped table window, and where that is: for the
 * SIGBUS guard (rec_sigbus.c), from a signal handler, so without the lock. */
int mt_table_window_holding(const void *addr, uint8_t **base, uint32_t *size);

/* In a forked child: the lock may have been held by a thread that is gone. */
void mt_table_after_fork(void);

#endif
