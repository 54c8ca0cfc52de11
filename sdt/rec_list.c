/*
 * rec_list.c - see rec_list.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "rec_list.h"
#include "rec_text.h"

void mt_list_add(const char *list, const char *path)
{
	static int said;
	char line[PATH_MAX + 1];
	struct mt_text t;
	mt_text_init(&t, line, sizeof line - 1);
	mt_text_add(&t, path);
	line[t.len++] = '\n';
	int fd = open(list, O_WRONLY | O_APPEND | O_CLOEXEC);
	ssize_t wrote = fd >= 0 ? write(fd, line, t.len) : -1;
	int ok = wrote == (ssize_t)t.len;
	int err = wrote >= 0 ? ENOSPC : errno; /* a short write: the disk filled */
	if (fd >= 0)
		close(fd);
	if (!ok && !said) {
		said = 1;
		mt_say(MT_SAY_ERROR, "cannot add ", path, " to ", list, ": ", strerrordesc_np(err),
		       "; mtrace-record will not name it", NULL);
	}
}
