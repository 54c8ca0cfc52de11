/*
 * input.c - open what the user handed trace2wl: a recorder trace, or a text
 * log (malloc-log from stap/bpftrace, glibc MALLOC_TRACE) that lib/ first
 * rewrites as a trace, so the converter itself only ever reads traces.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input.h"
#include "log_import.h"
#include "mapped.h"

/* A pipe cannot be read twice (once to sniff, once to convert), so standard
 * input that is not a file is first copied to an unlinked one put in its
 * place: the readers still see "-" and name it "<stdin>". */
static int stdin_to_file(struct mt_error *e)
{
	struct stat st;
	if (fstat(0, &st) == 0 && S_ISREG(st.st_mode))
		return 0;
	const char *dir = getenv("TMPDIR");
	int fd = mt_anon_file(dir && *dir ? dir : "/tmp", "trace2wl-stdin-");
	if (fd < 0)
		return mt_error_set(e, "<stdin>", "cannot make a temporary copy: %s", strerror(errno));
	static char buf[1 << 16];
	ssize_t n;
	while ((n = read(0, buf, sizeof buf)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || write(fd, buf, (size_t)n) != n) {
			close(fd);
			return mt_error_set(e, "<stdin>", "cannot copy to a temporary file: %s",
					    n < 0 ? strerror(errno) : "short write");
		}
	}
	if (dup2(fd, 0) < 0 || lseek(0, 0, SEEK_SET) < 0) {
		close(fd);
		return mt_error_set(e, "<stdin>", "cannot reopen: %s", strerror(errno));
	}
	close(fd);
	return 0;
}

static struct mt_trace *import_log(const char *path, struct mt_error *e)
{
	const char *dir = getenv("TMPDIR");
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s/trace2wl-import-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(tmp);
	if (fd < 0) {
		mt_error_set(e, path, "cannot create a temporary trace: %s", strerror(errno));
		return NULL;
	}
	close(fd);
	struct mt_trace *t = NULL;
	if (mt_log_import(path, tmp, e) == 0)
		t = mt_trace_open(tmp, e);
	unlink(tmp); /* the reader has it mapped */
	return t;
}

struct mt_trace *input_open(const char *path, struct mt_error *e)
{
	if (strcmp(path, "-") == 0 && stdin_to_file(e) < 0)
		return NULL;
	if (mt_log_sniff_file(path) != MT_LOG_NONE) /* text: the importer judges it */
		return import_log(path, e);
	return mt_trace_open(path, e); /* it says what is wrong with anything else */
}
