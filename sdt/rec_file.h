/*
 * rec_file.h - the trace file of one recording: its name, its header and
 * the space that windows are cut from.  Used by the recorder with its lock
 * held; nothing here allocates.
 */
#ifndef MT_REC_FILE_H
#define MT_REC_FILE_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "rec_fd.h"
#include "trace.h"

struct mt_file {
	struct mt_fd fd;          /* fd.fd -1 when no file is open */
	unsigned serial;          /* a new number for every file opened */
	char path[PATH_MAX];
	uint64_t next;            /* first free offset: the next window goes here */
	uint64_t records;         /* records in windows closed so far */
	uint64_t windows;         /* windows claimed */
	uint64_t dropped;         /* calls that could not be recorded */
	uint32_t stop_reason;     /* enum mt_stop_reason: why the file stopped growing */
	uint64_t helper_cpu_at_open; /* mt_helper_cpu_ns() when the file was opened */
	struct mt_trace_info info;
};

/*
 * Creates the trace file: name.PID, or name.PID.2, .3... when that exists
 * (an earlier image of the same process, or an earlier mtrace_reset).
 * Writes the header.  Returns 0, or -1 after printing one line on stderr;
 * no file is left then.
 */
int mt_file_open(struct mt_file *f, const char *name, pid_t pid);

/* Reserves *size bytes on disk for a new window (fewer, still a multiple
 * of MT_TRACE_ALIGN, when the file-size limit leaves less room); 0 with
 * *size and *off set (and f->fd.fd ready to map them), or -1 after printing
 * why (the file-size limit, disk full, or the program took the descriptor
 * and the file is gone), with f->stop_reason set where the header can
 * still say it. */
int mt_file_claim(struct mt_file *f, uint32_t *size, uint64_t *off);
/* mt_file_claim for the helper thread, which must not reopen a descriptor
 * the program closed (open takes the lowest free number, which the program
 * may be counting on just then): 1 with errno EBADF, saying nothing, when
 * the descriptor is not ours; the recording thread then claims its window
 * itself. */
int mt_file_claim_open(struct mt_file *f, uint32_t *size, uint64_t *off);

/* The window just claimed at off could not be mapped: gives its space back
 * (the file ends where it did) and prints why recording stops. */
void mt_file_unclaim(struct mt_file *f, uint64_t off, int err);

/* The unused window claimed last, at off, goes back: the file is cut to
 * off.  0, or -1 (the file stays as it is, the window padding). */
int mt_file_unclaim_quietly(struct mt_file *f, uint64_t off);

/* Rewrites the header with the current totals (and f->stop_reason, with
 * `records` as the count before the stop); `closed` stamps the end and
 * marks the trace complete, otherwise the trace is marked as going on. */
void mt_file_update(struct mt_file *f, uint64_t records, int closed);

void mt_file_close(struct mt_file *f);

#endif
