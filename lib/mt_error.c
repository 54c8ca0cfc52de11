/*
 * mt_error.c - one-line error messages naming the file at fault.
 */
#include <stdarg.h>
#include <stdio.h>

#include "mt_error.h"

int mt_error_vset(struct mt_error *e, const char *file, const char *fmt, va_list ap)
{
	if (!e)
		return -1;
	int n = snprintf(e->msg, sizeof e->msg, "%s: ", file ? file : "(input)");
	if (n < 0 || (size_t)n >= sizeof e->msg)
		n = 0; /* a name too long to quote: the message alone */
	vsnprintf(e->msg + n, sizeof e->msg - (size_t)n, fmt, ap);
	return -1;
}

int mt_error_set(struct mt_error *e, const char *file, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	mt_error_vset(e, file, fmt, ap);
	va_end(ap);
	return -1;
}

void mt_error_print(const char *prog, const struct mt_error *e)
{
	fprintf(stderr, "%s: %s\n", prog, e->msg);
}
