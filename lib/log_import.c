/*
 * log_import.c - turn a malloc-log or a glibc MALLOC_TRACE file into a trace.
 *
 * trace2wl only understands traces; rather than teaching the converter two
 * more inputs, text logs are rewritten as the trace the recorder would have
 * produced, so everything downstream (converter, dump, tests) has one input.
 *
 * The whole log is read into memory, sorted by timestamp (tracers print from
 * per-CPU buffers, so a thread that migrated can appear out of order) and
 * then written thread by thread through mt_trace_writer.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log_internal.h"
#include "trace.h"

/* ---- helpers shared with the line parsers ---- */

int mt_log_error(struct log_reader *r, const char *fmt, ...)
{
	char where[MT_ERROR_MAX / 2];
	char what[MT_ERROR_MAX];
	va_list ap;

	snprintf(where, sizeof where, "%s:%lu", r->path, r->line);
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return mt_error_set(r->e, where, "%s", what);
}

int mt_log_push(struct log_reader *r, uint32_t tid, const struct mt_rec *rec)
{
	if (r->ncalls == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 1024;
		struct log_call *c = realloc(r->calls, cap * sizeof *c);
		if (!c)
			return mt_log_error(r, "out of memory after %zu calls", r->ncalls);
		r->calls = c;
		r->cap = cap;
	}
	r->calls[r->ncalls] = (struct log_call){ .seq = r->ncalls, .tid = tid, .r = *rec };
	r->ncalls++;
	return 0;
}

int mt_log_number(const char *tok, uint64_t *v)
{
	int hex = tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X');
	const char *digits = hex ? tok + 2 : tok;
	char *end;

	/* strtoull alone would take a sign or leading spaces */
	if (hex ? !isxdigit((unsigned char)*digits) : !isdigit((unsigned char)*digits))
		return -1;
	errno = 0;
	unsigned long long n = strtoull(digits, &end, hex ? 16 : 10);
	if (errno || *end || end == digits)
		return -1;
	*v = n;
	return 0;
}

/* ---- sniffing ---- */

static int starts_with(const uint8_t *p, const uint8_t *end, const char *s)
{
	size_t n = strlen(s);
	return (size_t)(end - p) >= n && memcmp(p, s, n) == 0;
}

/* Lines that carry no call: blank, '#' comments, and the "Attaching N
 * probes..." banner bpftrace writes at the top of its -o file. */
static int skippable(const uint8_t *p, const uint8_t *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p == end || *p == '\n' || *p == '#' || starts_with(p, end, "Attaching ");
}

/* The first line that is not skippable, past its leading blanks, or NULL. */
static const uint8_t *first_line(const uint8_t *p, const uint8_t *end)
{
	while (p < end) {
		const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
		const uint8_t *eol = nl ? nl : end;
		if (!skippable(p, eol)) {
			while (p < eol && (*p == ' ' || *p == '\t'))
				p++;
			return p;
		}
		if (!nl)
			break; /* eol + 1 would point past the buffer */
		p = nl + 1;
	}
	return NULL;
}

/* Text: no byte below space but blanks and line ends (UTF-8 passes).  A
 * trace's magic ends in 0x1a and its header holds NULs, so traces fail. */
static int is_text(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] < 0x20 && p[i] != '\t' && p[i] != '\n' && p[i] != '\r' && p[i] != '\f' &&
		    p[i] != '\v')
			return 0;
	return len > 0;
}

enum mt_log_kind mt_log_sniff(const uint8_t *head, size_t len)
{
	const uint8_t *end = head + len;
	const uint8_t *p = first_line(head, end);

	if (!is_text(head, len))
		return MT_LOG_NONE;
	if (!p)
		return MT_LOG_TEXT;
	/* any version: the parser names one it does not know */
	if (starts_with(p, end, "mlog") && p + 4 < end && p[4] >= '0' && p[4] <= '9')
		return MT_LOG_MALLOC_LOG;
	/* glibc's operations, each followed by a space; "+ (nil) 0x10" too */
	if (starts_with(p, end, "= Start") ||
	    (p + 1 < end && strchr("@+-<>!", *p) && p[1] == ' '))
		return MT_LOG_GLIBC_MTRACE;
	return MT_LOG_TEXT;
}

enum mt_log_kind mt_log_sniff_file(const char *path)
{
	uint8_t head[4096];
	int fd = strcmp(path, "-") == 0 ? dup(0) : open(path, O_RDONLY);
	if (fd < 0)
		return MT_LOG_NONE;
	ssize_t got = pread(fd, head, sizeof head, 0);
	close(fd);
	return mt_log_sniff(head, got > 0 ? (size_t)got : 0);
}

/* ---- reading ---- */

static void chomp(char *s)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

/* Parses every line of f with the parser the first line calls for. */
static int read_log(struct log_reader *r, FILE *f)
{
	enum mt_log_kind kind = MT_LOG_NONE;
	char *buf = NULL;
	size_t cap = 0;
	int rc = 0;

	while (rc == 0 && getline(&buf, &cap, f) >= 0) {
		r->line++;
		chomp(buf);
		size_t len = strlen(buf);
		if (skippable((const uint8_t *)buf, (const uint8_t *)buf + len))
			continue;
		if (starts_with((const uint8_t *)buf, (const uint8_t *)buf + len, "Lost ")) {
			rc = mt_log_error(r, "the tracer lost calls here ('%s'): the log is incomplete; "
					     "retry with a bigger buffer (BPFTRACE_PERF_RB_PAGES)", buf);
			break;
		}
		if (kind == MT_LOG_NONE) {
			kind = mt_log_sniff((const uint8_t *)buf, len);
			if (kind != MT_LOG_MALLOC_LOG && kind != MT_LOG_GLIBC_MTRACE) {
				rc = mt_log_error(r, "neither a malloc-log ('mlog1 ...') nor a "
						     "glibc MALLOC_TRACE line");
				break;
			}
		}
		rc = kind == MT_LOG_MALLOC_LOG ? mt_mlog_parse_line(r, buf)
					       : mt_mtrace_parse_line(r, buf);
	}
	if (rc == 0 && ferror(f))
		rc = mt_error_set(r->e, r->path, "read failed: %s", strerror(errno));
	if (rc == 0 && kind == MT_LOG_GLIBC_MTRACE)
		rc = mt_mtrace_finish(r);
	if (rc == 0 && r->ncalls == 0)
		rc = mt_error_set(r->e, r->path, "no calls (blank, comments or a tracer's header only): "
				  "was the program started after the script attached?");
	free(buf);
	return rc;
}

/* ---- writing ---- */

static int by_time(const void *a, const void *b)
{
	const struct log_call *x = a, *y = b;
	if (x->r.ts != y->r.ts)
		return x->r.ts < y->r.ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int write_trace(struct log_reader *r, const char *trace_path)
{
	qsort(r->calls, r->ncalls, sizeof *r->calls, by_time);

	struct mt_trace_info info = {
		.ptr_size = 8,
		.ts_source = MT_TS_MONOTONIC_NS,
		.ts_freq = 1000000000,
		.allocator = MT_ALLOC_UNKNOWN,
		.start_ts = r->ncalls ? r->calls[0].r.ts : 0,
	};
	info.start_mono_ns = info.start_ts;

	struct mt_trace_writer *w = mt_trace_writer_open(trace_path, &info, 0, r->e);
	if (!w)
		return -1;
	for (size_t i = 0; i < r->ncalls; i++) {
		if (mt_trace_writer_add(w, r->calls[i].tid, &r->calls[i].r, r->e)) {
			struct mt_error ignored;
			mt_trace_writer_close(w, 0, &ignored);
			return -1;
		}
	}
	return mt_trace_writer_close(w, 0, r->e);
}

int mt_log_import(const char *path, const char *trace_path, struct mt_error *e)
{
	int is_stdin = strcmp(path, "-") == 0;
	struct log_reader r = { .path = is_stdin ? "(stdin)" : path, .e = e };
	FILE *f = is_stdin ? stdin : fopen(path, "r");

	if (!f)
		return mt_error_set(e, path, "cannot open: %s", strerror(errno));
	int rc = read_log(&r, f);
	if (!is_stdin)
		fclose(f);
	if (rc == 0)
		rc = write_trace(&r, trace_path);
	free(r.calls);
	return rc;
}
