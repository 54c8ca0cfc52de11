/*
 * log_internal.h - what the two text-log parsers share with the importer.
 *
 * log_import.c reads lines and writes the trace; log_mlog.c and
 * log_mtrace.c each turn one line of their format into calls.  Calls are
 * collected first and written after, because a malloc-log from bpftrace or
 * stap is printed from per-CPU buffers and may be out of time order.
 */
#ifndef MT_LOG_INTERNAL_H
#define MT_LOG_INTERNAL_H

#include <stdint.h>

#include "log_import.h"
#include "trace_codec.h"

struct log_call {
	uint64_t seq; /* line order, so equal timestamps keep it */
	uint32_t tid;
	struct mt_rec r;
};

struct log_reader {
	const char *path;
	unsigned long line;      /* 1-based number of the line being parsed */
	struct mt_error *e;
	struct log_call *calls;
	size_t ncalls, cap;
	uint64_t mtrace_clock;   /* MALLOC_TRACE: synthesised timestamp */
	int realloc_open;        /* MALLOC_TRACE: a "<" line awaits its ">" */
	uint64_t realloc_old;    /* its pointer */
};

/* Each parses one line (no newline, not a comment); 0 or -1 with r->e set. */
int mt_mlog_parse_line(struct log_reader *r, char *line);
int mt_mtrace_parse_line(struct log_reader *r, char *line);
/* Called by mt_mtrace_parse_line's caller at end of input. */
int mt_mtrace_finish(struct log_reader *r);

/* Appends one call; -1 with r->e set when memory runs out. */
int mt_log_push(struct log_reader *r, uint32_t tid, const struct mt_rec *rec);

/* Sets r->e to "PATH:LINE: message"; returns -1. */
int mt_log_error(struct log_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A number as the logs print it: decimal, or hex with 0x; 0 on success. */
int mt_log_number(const char *tok, uint64_t *v);

#endif
