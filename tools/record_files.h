/*
 * record_files.h - the trace files one mtrace-record run made: read from
 * the list the recorders wrote (sdt/rec_list.h), the started program's
 * chosen for -o's name, and all of them shown in one short table.
 */
#ifndef MT_RECORD_FILES_H
#define MT_RECORD_FILES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct record_file {
	char *path;          /* where it is now (after the rename to -o's name) */
	int readable;        /* 0: why says what is wrong */
	char *why;
	uint32_t pid;
	uint64_t records;
	int closed;          /* the header was completed */
	char *exe;
};

struct record_files {
	struct record_file *file;
	size_t count;
	struct record_file *program;   /* the last image of the started process, or NULL */
};

/* Reads the list: every file named there, in the order they were made;
 * `started` is the pid of the process mtrace-record started.  Never fails:
 * a list that cannot be read gives no files, a file that cannot be read a
 * row saying why. */
void record_files_read(struct record_files *f, const char *list, pid_t started);

/* Renames the program's trace to `out` (when both exist); a failure or a
 * missing trace is one line on stderr. */
void record_files_name_output(struct record_files *f, const char *out, const char *prog);

/* The table: the program's trace first, then the others by calls, at most
 * a dozen rows and a line summing the rest. */
void record_files_print(FILE *to, const struct record_files *f, const char *out,
			const char *prog);

void record_files_free(struct record_files *f);

#endif
