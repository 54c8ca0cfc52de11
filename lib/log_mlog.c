/*
 * log_mlog.c - one line of the malloc-log text format into one call.
 *
 * The format is what stap/malloc-log.stp and its bpftrace twins print, and
 * is defined in docs/FORMAT.md ("malloc-log text format"):
 *
 *     mlog1 TID TS_NS CALL ARG... [= PTR [RC]]
 *
 * Arguments come in a fixed order per call, the order C programmers know
 * them in; calls that return a block end with "= PTR", posix_memalign with
 * "= PTR RC", the free family with nothing.
 */
#include "config.h"

#include <string.h>

#include "log_internal.h"
#include "trace.h"

#define MLOG_VERSION 1
#define MLOG_FIELDS_MAX 12

/* Argument order: i pointer passed in, a alignment, n element count, s size. */
static const char *const arg_order[MT_CALL_COUNT] = {
	[MT_CALL_MALLOC] = "s",          [MT_CALL_FREE] = "i",
	[MT_CALL_CALLOC] = "ns",         [MT_CALL_REALLOC] = "is",
	[MT_CALL_REALLOCARRAY] = "ins",  [MT_CALL_MEMALIGN] = "as",
	[MT_CALL_POSIX_MEMALIGN] = "as", [MT_CALL_ALIGNED_ALLOC] = "as",
	[MT_CALL_VALLOC] = "s",          [MT_CALL_PVALLOC] = "s",
	[MT_CALL_FREE_SIZED] = "is",     [MT_CALL_FREE_ALIGNED_SIZED] = "ias",
};

static unsigned call_by_name(const char *name)
{
	for (unsigned c = 1; c < MT_CALL_COUNT; c++)
		if (arg_order[c] && strcmp(mt_call_name(c), name) == 0)
			return c;
	return MT_CALL_NONE;
}

static int number(struct log_reader *r, const char *tok, const char *what, uint64_t *v)
{
	if (mt_log_number(tok, v))
		return mt_log_error(r, "%s '%s' is not a number", what, tok);
	return 0;
}

/* Checks the version tag: "mlog1", or a clear word on anything else. */
static int check_tag(struct log_reader *r, const char *tag)
{
	uint64_t v;
	if (strncmp(tag, "mlog", 4) != 0 || mt_log_number(tag + 4, &v))
		return mt_log_error(r, "not a malloc-log line (expected 'mlog%d TID TS CALL ...')",
				    MLOG_VERSION);
	if (v != MLOG_VERSION)
		return mt_log_error(r, "malloc-log version %llu, this reader knows version %d",
				    (unsigned long long)v, MLOG_VERSION);
	return 0;
}

/* Fills the arguments of rec->call from tok[] in arg_order. */
static int parse_args(struct log_reader *r, struct mt_rec *rec, char **tok)
{
	const char *order = arg_order[rec->call];
	for (size_t i = 0; order[i]; i++) {
		uint64_t *dst = order[i] == 'i' ? &rec->ptr_in
			      : order[i] == 'a' ? &rec->align
			      : order[i] == 'n' ? &rec->nmemb : &rec->size;
		const char *what = order[i] == 'i' ? "pointer"
				 : order[i] == 'a' ? "alignment"
				 : order[i] == 'n' ? "count" : "size";
		if (number(r, tok[i], what, dst))
			return -1;
	}
	if (mt_call_has_in(rec->call) && rec->ptr_in == 0)
		rec->flags |= MT_RF_NULL_IN;
	return 0;
}

/* Fills the result ("= PTR" or "= PTR RC") from tok[], n tokens. */
static int parse_result(struct log_reader *r, struct mt_rec *rec, char **tok, size_t n)
{
	int pm = rec->call == MT_CALL_POSIX_MEMALIGN;
	const char *name = mt_call_name(rec->call);
	uint64_t rc = 0;

	if (n != (pm ? 3u : 2u))
		return mt_log_error(r, "%s must end with '= PTR%s'", name, pm ? " RC" : "");
	if (number(r, tok[1], "result", &rec->ptr_out) || (pm && number(r, tok[2], "rc", &rc)))
		return -1;
	if (pm && (rc > UINT32_MAX || (rc == 0) != (rec->ptr_out != 0)))
		return mt_log_error(r, "posix_memalign result %s with rc %s: one of them must be 0",
				    tok[1], tok[2]);
	if (rec->ptr_out == 0) {
		rec->flags |= MT_RF_NULL_OUT;
		rec->rc = (uint32_t)rc;
	} else {
		rec->usable = mt_rec_requested(rec); /* the log does not say; assume no slack */
	}
	return 0;
}

/* Arguments run up to "=" (or the end of the line). */
static size_t count_args(char **tok, size_t n)
{
	size_t i = 0;
	while (i < n && strcmp(tok[i], "=") != 0)
		i++;
	return i;
}

int mt_mlog_parse_line(struct log_reader *r, char *line)
{
	char *tok[MLOG_FIELDS_MAX + 1];
	size_t n = 0;
	char *save;

	for (char *t = strtok_r(line, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (n == MLOG_FIELDS_MAX)
			return mt_log_error(r, "too many fields for a malloc-log line");
		tok[n++] = t;
	}
	if (check_tag(r, tok[0]))
		return -1;
	if (n < 4)
		return mt_log_error(r, "expected 'mlog%d TID TS CALL ...', got %zu fields",
				    MLOG_VERSION, n);

	struct mt_rec rec = { .call = (uint8_t)call_by_name(tok[3]) };
	uint64_t tid;
	if (rec.call == MT_CALL_NONE)
		return mt_log_error(r, "unknown call '%s'", tok[3]);
	if (number(r, tok[1], "thread id", &tid) || number(r, tok[2], "timestamp", &rec.ts))
		return -1;
	if (tid == 0 || tid > UINT32_MAX)
		return mt_log_error(r, "thread id %s out of range", tok[1]);

	size_t want = strlen(arg_order[rec.call]);
	size_t nargs = count_args(tok + 4, n - 4);
	int allocates = mt_call_allocates(rec.call);
	if (nargs != want)
		return mt_log_error(r, "%s takes %zu argument%s, got %zu", tok[3], want,
				    want == 1 ? "" : "s", nargs);
	if (parse_args(r, &rec, tok + 4))
		return -1;
	if (!allocates && n > 4 + nargs)
		return mt_log_error(r, "%s returns nothing, but the line has '= ...'", tok[3]);
	if (allocates && parse_result(r, &rec, tok + 4 + nargs, n - 4 - nargs))
		return -1;
	return mt_log_push(r, (uint32_t)tid, &rec);
}
