/*
 * mtrace-dump - show what a recorded trace holds, for people and scripts.
 *
 * A trace is binary and split into per-thread windows; this tool is how a
 * user checks that a recording worked and what their program asked of
 * malloc: every record in time order, or a --stats summary, as text or JSON.
 * All parsing is lib/'s; this file only chooses what to print.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "tool_output.h"

static const char *prog = "mtrace-dump";

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: %s [OPTION]... FILE...\n"
		"Print the records of mtrace traces (FILE '-' reads standard input).\n"
		"\n"
		"  -s, --stats        summary: calls by type and thread, bytes, size histogram\n"
		"  -j, --json         JSON: one object per record, or with --stats one per file\n"
		"  -t, --thread TID   only the records of thread TID\n"
		"  -n, --limit N      print at most N records per file\n"
		"  -h, --help         show this help and exit\n"
		"  -V, --version      show the version and exit\n"
		"\n"
		"Warnings about damaged traces go to standard error; the readable part is\n"
		"still printed.  Exit status: 0 ok, 1 a trace could not be read, 2 usage.\n",
		prog);
}

static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (!*s || *end || errno || v > max || s[0] == '-')
		return -1;
	*out = v;
	return 0;
}

static int parse_options(int argc, char **argv, struct dump_opts *o)
{
	static const struct option longopts[] = {
		{ "stats", no_argument, NULL, 's' },   { "json", no_argument, NULL, 'j' },
		{ "thread", required_argument, NULL, 't' }, { "limit", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },    { "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	*o = (struct dump_opts){ .limit = UINT64_MAX };
	opterr = 0; /* our own one-line messages below */
	while ((c = getopt_long(argc, argv, ":sjt:n:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 's': o->stats = 1; break;
		case 'j': o->json = 1; break;
		case 't':
			if (parse_u64(optarg, UINT32_MAX, &v) || v == 0) {
				fprintf(stderr, "%s: --thread: '%s' is not a thread id\n", prog, optarg);
				return -1;
			}
			o->one_thread = 1;
			o->tid = (uint32_t)v;
			break;
		case 'n':
			if (parse_u64(optarg, UINT64_MAX, &o->limit)) {
				fprintf(stderr, "%s: --limit: '%s' is not a count\n", prog, optarg);
				return -1;
			}
			break;
		case 'h': usage(stdout); exit(mt_stdout_checked(prog, 0));
		case 'V': printf("%s (%s) %s\n", prog, PACKAGE_NAME, PACKAGE_VERSION);
			exit(mt_stdout_checked(prog, 0));
		default:
			return mt_bad_option(prog, c, argv[optind - 1]);
		}
	}
	if (optind == argc) {
		fprintf(stderr, "%s: no trace given; try '%s --help'\n", prog, prog);
		return -1;
	}
	return 0;
}

/* Every record in timestamp order, across threads. */
static int list_records(const struct mt_trace *t, const struct dump_opts *o, struct mt_error *e)
{
	struct mt_trace_merge *m = mt_trace_merge_open(t);
	if (!m)
		return mt_error_set(e, mt_trace_path(t), "out of memory");
	struct mt_rec r;
	size_t thread;
	uint64_t recno, printed = 0;
	int rc = 0;
	while (printed < o->limit && (rc = mt_trace_merge_next(m, &r, &thread, &recno, e)) > 0) {
		uint32_t tid = mt_trace_thread_tid(t, thread);
		if (o->one_thread && tid != o->tid)
			continue;
		if (o->json)
			dump_record_json(stdout, &r, tid, recno);
		else
			dump_record_text(stdout, t, &r, tid, recno);
		printed++;
	}
	mt_trace_merge_close(m);
	return rc < 0 ? -1 : 0;
}

static int dump_file(const char *path, const struct dump_opts *o)
{
	struct mt_trace *t = mt_tool_open_trace(prog, path);
	if (!t)
		return 1;
	struct mt_error e;
	int rc;
	if (o->stats) {
		rc = dump_stats(stdout, t, o, &e);
	} else {
		if (!o->json)
			dump_header(stdout, t);
		rc = list_records(t, o, &e);
	}
	int lost = mt_stdout_checked(prog, 0);
	if (rc)
		mt_error_print(prog, &e);
	mt_trace_close(t);
	return rc || lost ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct dump_opts o;
	/* Past the file-size limit (ulimit -f) a write then fails with EFBIG,
	 * which is reported with the file's name, instead of killing us. */
	signal(SIGXFSZ, SIG_IGN);
	if (parse_options(argc, argv, &o))
		return 2;
	int status = 0;
	for (int i = optind; i < argc; i++)
		status |= dump_file(argv[i], &o);
	return mt_stdout_checked(prog, status);
}
