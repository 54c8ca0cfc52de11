/*
 * log_import.h - turn text logs of malloc calls into a trace, so trace2wl
 * converts them like recorder output; and tell an input's format.
 *
 * Two kinds of text are understood: the malloc-log lines printed by
 * stap/malloc-log.stp and its bpftrace twin (format in docs/FORMAT.md), and
 * glibc's own MALLOC_TRACE output from mtrace() (no thread ids: one thread).
 */
#ifndef MT_LOG_IMPORT_H
#define MT_LOG_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "mt_error.h"

/* MT_LOG_TEXT: text, but its first line is of neither kind (or it has no
 * call line at all); importing it reports that line, or "no calls". */
enum mt_log_kind { MT_LOG_NONE = 0, MT_LOG_MALLOC_LOG = 1, MT_LOG_GLIBC_MTRACE = 2, MT_LOG_TEXT = 3 };

/* Which kind of log the first bytes of a file look like: MT_LOG_NONE only
 * if they are empty or not text (a trace, or anything binary), so that
 * every text input is the importer's to judge, line by line. */
enum mt_log_kind mt_log_sniff(const uint8_t *head, size_t len);

/* mt_log_sniff of the first bytes of the file at path: MT_LOG_NONE for a
 * recorder trace (its magic is not text), anything else binary, and a file
 * that is empty or cannot be read (opening it properly says why).  "-" is
 * standard input, which must be a regular file to be read again afterwards. */
enum mt_log_kind mt_log_sniff_file(const char *path);

/* Reads the log at path ("-" for standard input) and writes the same calls
 * as a trace file at trace_path.  Returns 0, or -1 with e set to a one-line
 * error naming path and the line at fault. */
int mt_log_import(const char *path, const char *trace_path, struct mt_error *e);

#endif
