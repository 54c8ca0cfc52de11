/*
 * record_files.c - see record_files.h.  Headers are read through lib/ (the
 * window index gives the records of a trace whose writer was killed too).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "record_files.h"
#include "trace.h"

enum { ROWS_SHOWN = 12 };

static void read_one(struct record_file *r)
{
	struct mt_error e;
	struct mt_trace *t = mt_trace_open(r->path, &e);
	if (!t) {
		r->why = strdup(e.msg);
		return;
	}
	const struct mt_trace_info *in = mt_trace_get_info(t);
	r->readable = 1;
	r->pid = in->pid;
	r->closed = !!(in->flags & MT_FHF_CLOSED);
	r->exe = strdup(in->exe[0] ? in->exe : "(unknown)");
	for (size_t i = 0; i < mt_trace_threads(t); i++)
		r->records += mt_trace_thread_records(t, i);
	mt_trace_close(t);
}

void record_files_read(struct record_files *f, const char *list, pid_t started)
{
	*f = (struct record_files){ 0 };
	FILE *in = fopen(list, "r");
	if (!in)
		return;
	char *line = NULL;
	size_t cap = 0, room = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, in)) > 0) {
		if (line[n - 1] == '\n')
			line[n - 1] = 0;
		if (f->count == room) {
			room = room ? 2 * room : 16;
			struct record_file *more = realloc(f->file, room * sizeof *more);
			if (!more)
				break;
			f->file = more;
		}
		struct record_file *r = &f->file[f->count++];
		*r = (struct record_file){ .path = strdup(line) };
		read_one(r);
	}
	free(line);
	fclose(in);
	for (size_t i = 0; i < f->count; i++)
		if (f->file[i].readable && f->file[i].pid == (uint32_t)started)
			f->program = &f->file[i];
}

void record_files_name_output(struct record_files *f, const char *out, const char *prog)
{
	if (!out)
		return;
	if (!f->program) {
		fprintf(stderr, "%s: %s: not written: the program's process recorded nothing "
			"(statically linked, or it failed to start?)\n", prog, out);
		return;
	}
	if (rename(f->program->path, out) != 0) {
		fprintf(stderr, "%s: cannot rename %s to %s: %s\n", prog, f->program->path, out,
			strerror(errno));
		return;
	}
	free(f->program->path);
	f->program->path = strdup(out);
}

static int by_calls(const void *a, const void *b)
{
	const struct record_file *x = *(struct record_file *const *)a;
	const struct record_file *y = *(struct record_file *const *)b;
	return (x->records < y->records) - (x->records > y->records);
}

static void print_row(FILE *to, const struct record_file *r, const char *out, int exe_width)
{
	if (!r->readable) {
		fprintf(to, "  %8s %12s  %s\n", "-", "-", r->why ? r->why : r->path);
		return;
	}
	fprintf(to, "  %8" PRIu32 " %12" PRIu64 "  %-*s  %s%s%s\n", r->pid, r->records, exe_width,
		r->exe, r->path, r->closed ? "" : " (not closed)",
		out && r->path && strcmp(r->path, out) == 0 ? "  <- -o" : "");
}

void record_files_print(FILE *to, const struct record_files *f, const char *out,
			const char *prog)
{
	if (!f->count) {
		fprintf(to, "%s: no trace was written\n", prog);
		return;
	}
	struct record_file **order = malloc(f->count * sizeof *order);
	if (!order)
		return;
	size_t n = 0;
	if (f->program)
		order[n++] = f->program;
	for (size_t i = 0; i < f->count; i++)
		if (&f->file[i] != f->program)
			order[n++] = &f->file[i];
	qsort(order + !!f->program, n - !!f->program, sizeof *order, by_calls);
	size_t shown = n < ROWS_SHOWN ? n : ROWS_SHOWN - 1;
	int exe_width = 10; /* "executable" */
	for (size_t i = 0; i < shown; i++)
		if (order[i]->readable && (int)strlen(order[i]->exe) > exe_width)
			exe_width = (int)strlen(order[i]->exe);
	fprintf(to, "%s: %zu trace file%s\n  %8s %12s  %-*s  %s\n", prog, f->count,
		f->count == 1 ? "" : "s", "pid", "calls", exe_width, "executable", "file");
	for (size_t i = 0; i < shown; i++)
		print_row(to, order[i], out, exe_width);
	uint64_t rest = 0;
	for (size_t i = shown; i < n; i++)
		rest += order[i]->records;
	if (shown < n)
		fprintf(to, "  ... %zu more file%s, %" PRIu64 " calls\n", n - shown,
			n - shown == 1 ? "" : "s", rest);
	free(order);
}

void record_files_free(struct record_files *f)
{
	for (size_t i = 0; i < f->count; i++) {
		free(f->file[i].path);
		free(f->file[i].why);
		free(f->file[i].exe);
	}
	free(f->file);
}
