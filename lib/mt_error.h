/*
 * mt_error.h - how the format library reports what is wrong with an input.
 *
 * Every reader and writer fills a struct mt_error with one line of the form
 * "FILE: what is wrong" (no trailing newline, no program name); the tool in
 * front prints "PROGRAM: " before it and exits non-zero.  Keeping the file
 * name in the message is what lets a user with ten traces see which is bad.
 */
#ifndef MT_ERROR_H
#define MT_ERROR_H

#include <stdarg.h>
#include <stddef.h>

#define MT_ERROR_MAX 512

struct mt_error {
	char msg[MT_ERROR_MAX];
};

/* Formats "FILE: message" into e (if e is non-NULL); returns -1 for tail calls. */
int mt_error_set(struct mt_error *e, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same for a function that takes the arguments itself, such as a
 * reader's list of warnings in the same form. */
int mt_error_vset(struct mt_error *e, const char *file, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/* Prints "prog: message" on stderr (one line). */
void mt_error_print(const char *prog, const struct mt_error *e);

#endif
