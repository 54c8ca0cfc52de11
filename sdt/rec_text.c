/*
 * rec_text.c - see rec_text.h: bounded string building and one-line
 * messages, safe inside malloc and in a freshly forked child.
 */
#include "config.h"

#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "rec_fd.h"
#include "rec_text.h"

int mt_quiet;
static struct mt_fd say = { .fd = -1 };

void mt_say_keep_stderr(void)
{
	mt_fd_keep(&say, 2, 0);
}

void mt_text_init(struct mt_text *t, char *buf, size_t cap)
{
	*t = (struct mt_text){ .buf = buf, .cap = cap };
	buf[0] = 0;
}

void mt_text_add(struct mt_text *t, const char *s)
{
	size_t n = strlen(s);
	if (t->len + n >= t->cap) {
		n = t->cap - 1 - t->len;
		t->overflow = 1;
	}
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = 0;
}

const char *mt_u64_text(char buf[21], uint64_t v)
{
	char *p = buf + 20;
	*p = 0;
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return p;
}

void mt_text_add_u64(struct mt_text *t, uint64_t v)
{
	char buf[21];
	mt_text_add(t, mt_u64_text(buf, v));
}

void mt_say(int kind, ...)
{
	if (kind == MT_SAY_INFO && mt_quiet)
		return;
	char buf[1024];
	struct mt_text t;
	mt_text_init(&t, buf, sizeof buf - 1);
	mt_text_add(&t, "mtrace: ");
	va_list ap;
	va_start(ap, kind);
	for (const char *s; (s = va_arg(ap, const char *));)
		mt_text_add(&t, s);
	va_end(ap);
	buf[t.len++] = '\n';
	/* Our copy of stderr, unless the program has since reused its number
	 * for a file of its own; then its stderr as it is now.  A closed or
	 * full stderr must not disturb the program: ignore it. */
	(void)!write(mt_fd_ours(&say) ? say.fd : 2, buf, t.len);
}
