/*
 * rec_text.h - building file names and messages without stdio.
 *
 * The recorder runs inside malloc, where printf and friends (which may
 * allocate, and take stdio locks the interrupted program may hold) are off
 * limits.  These helpers append to a fixed buffer and write(2) one line.
 */
#ifndef MT_REC_TEXT_H
#define MT_REC_TEXT_H

#include <stddef.h>
#include <stdint.h>

struct mt_text {
	char *buf;
	size_t cap, len;
	int overflow;   /* something did not fit: the text is cut */
};

void mt_text_init(struct mt_text *t, char *buf, size_t cap);
void mt_text_add(struct mt_text *t, const char *s);
void mt_text_add_u64(struct mt_text *t, uint64_t v);

/* Informational messages obey MTRACE_CTL_QUIET; errors always print. */
extern int mt_quiet;
enum { MT_SAY_INFO, MT_SAY_ERROR };

/* Keeps a private copy of stderr, so the message at exit still reaches the
 * user when the program closed its stderr first (as ls does). */
void mt_say_keep_stderr(void);

/* Writes "mtrace: " and the NULL-terminated list of strings as one line. */
void mt_say(int kind, ...) __attribute__((sentinel));

/* Decimal text of v in buf (21 bytes), for mt_say arguments. */
const char *mt_u64_text(char buf[21], uint64_t v);

#endif
