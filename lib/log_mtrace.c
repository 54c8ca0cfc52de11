/*
 * log_mtrace.c - one line of glibc's MALLOC_TRACE text into calls.
 *
 * mtrace() (libc_malloc_debug.so in glibc 2.34 and later) prints, per call,
 * an optional caller "@ FILE:(SYM+OFF)[ADDR] " and then one of:
 *
 *     + PTR SIZE     a block was returned (malloc, calloc, memalign...: the
 *                    call type is not printed, so all become malloc)
 *     - PTR          free, or realloc to size 0
 *     < OLD          realloc, first half; the next line is always ...
 *     > NEW SIZE     ... its second half
 *     ! OLD SIZE     realloc that failed
 *
 * PTR is printed with %p, so NULL reads "(nil)"; SIZE is hex.  "= Start"
 * and "= End" frame the calls.  There are no thread ids or times: the calls
 * become one thread, one nanosecond apart, in file order.
 */
#include "config.h"

#include <string.h>

#include "log_internal.h"

#define MTRACE_TID 1

static int pointer(struct log_reader *r, const char *tok, uint64_t *v)
{
	if (strcmp(tok, "(nil)") == 0) {
		*v = 0;
		return 0;
	}
	if (mt_log_number(tok, v))
		return mt_log_error(r, "pointer '%s' is neither 0x... nor (nil)", tok);
	return 0;
}

static int size(struct log_reader *r, const char *tok, uint64_t *v)
{
	if (mt_log_number(tok, v))
		return mt_log_error(r, "size '%s' is not a number", tok);
	return 0;
}

/* Skips glibc's "@ caller[0xADDR] " prefix; NULL if it is malformed. */
static char *skip_caller(char *line)
{
	if (line[0] != '@')
		return line;
	char *close = strrchr(line, ']');
	return close && close[1] == ' ' ? close + 2 : NULL;
}

static int push(struct log_reader *r, struct mt_rec *rec)
{
	rec->ts = ++r->mtrace_clock;
	if (rec->ptr_out)
		rec->usable = rec->size; /* the log does not say; assume no slack */
	return mt_log_push(r, MTRACE_TID, rec);
}

/* The operation and its operands, caller already stripped. */
static int parse_op(struct log_reader *r, char op, char **tok, size_t n)
{
	static const size_t operands[128] = { ['+'] = 2, ['-'] = 1, ['<'] = 1, ['>'] = 2, ['!'] = 2 };
	size_t want = (unsigned char)op < 128 ? operands[(unsigned char)op] : 0;
	struct mt_rec rec = { 0 };

	if (!want)
		return mt_log_error(r, "unknown MALLOC_TRACE operation '%c'", op);
	if (n != want)
		return mt_log_error(r, "'%c' takes %zu operand%s, got %zu", op, want,
				    want == 1 ? "" : "s", n);
	if (r->realloc_open != (op == '>'))
		return mt_log_error(r, op == '>' ? "'>' without the '<' line before it"
						 : "'<' line not followed by '>'");
	switch (op) {
	case '<':
		r->realloc_open = 1;
		return pointer(r, tok[0], &r->realloc_old);
	case '>':
		r->realloc_open = 0;
		rec = (struct mt_rec){ .call = MT_CALL_REALLOC, .ptr_in = r->realloc_old };
		if (pointer(r, tok[0], &rec.ptr_out) || size(r, tok[1], &rec.size))
			return -1;
		break;
	case '+':
		rec.call = MT_CALL_MALLOC;
		if (pointer(r, tok[0], &rec.ptr_out) || size(r, tok[1], &rec.size))
			return -1;
		break;
	case '!':
		rec.call = MT_CALL_REALLOC;
		if (pointer(r, tok[0], &rec.ptr_in) || size(r, tok[1], &rec.size))
			return -1;
		break;
	default: /* '-' */
		rec.call = MT_CALL_FREE;
		if (pointer(r, tok[0], &rec.ptr_in))
			return -1;
		break;
	}
	if (mt_call_has_in(rec.call) && !rec.ptr_in)
		rec.flags |= MT_RF_NULL_IN;
	if (mt_call_allocates(rec.call) && !rec.ptr_out)
		rec.flags |= MT_RF_NULL_OUT;
	return push(r, &rec);
}

int mt_mtrace_parse_line(struct log_reader *r, char *line)
{
	if (line[0] == '=' && line[1] == ' ')
		return 0; /* "= Start", "= End" */
	char *rest = skip_caller(line);
	if (!rest)
		return mt_log_error(r, "caller field '@ ...[ADDR]' is not closed by '] '");

	char *tok[3];
	size_t n = 0;
	char *save;
	char *op = strtok_r(rest, " ", &save);
	if (!op || op[1] != '\0')
		return mt_log_error(r, "expected an operation (+ - < > !), got '%s'", op ? op : "");
	for (char *t = strtok_r(NULL, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		if (n == 3)
			return mt_log_error(r, "too many fields after '%c'", op[0]);
		tok[n++] = t;
	}
	return parse_op(r, op[0], tok, n);
}

int mt_mtrace_finish(struct log_reader *r)
{
	if (r->realloc_open)
		return mt_log_error(r, "log ends after a '<' line, without its '>'");
	return 0;
}
