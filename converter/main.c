/*
 * trace2wl - turn a recorded malloc trace into a compact workload that
 * trace_run can replay, and show what a workload holds.
 *
 * The work is in convert.c; this file parses the command line, opens the
 * input, and prints the one summary line users and scripts read.
 */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "convert.h"
#include "input.h"
#include "tool_output.h"
#include "wlshow.h"

static const char *prog = "trace2wl";

enum mode { MODE_CONVERT, MODE_STATS, MODE_DUMP };

struct opts {
	enum mode mode;
	int json;
	struct conv_opts conv;
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: %s [OPTION]... OUTPUT.wl INPUT\n"
		"       %s --stats [--json] FILE.wl\n"
		"       %s --dump FILE.wl\n"
		"Convert a malloc trace (from libmtrace, or a malloc-log / MALLOC_TRACE text\n"
		"log) into a workload for trace_run.  INPUT '-' reads standard input.\n"
		"\n"
		"  -f, --force        overwrite OUTPUT.wl if it exists\n"
		"  -p, --progress     print progress and the time left on standard error\n"
		"                     (always when it is a terminal)\n"
		"  -t, --timing       keep each call's time since the thread's previous one\n"
		"                     (the default for traces of more than one thread)\n"
		"  -T, --no-timing    leave the times out, whatever the threads\n"
		"  -j, --json         print the summary (or --stats) as JSON\n"
		"  -s, --stats        summarise an existing workload\n"
		"  -d, --dump         print an existing workload, one line per op\n"
		"  -h, --help         show this help and exit\n"
		"  -V, --version      show the version and exit\n"
		"\n"
		"Exit status: 0 ok, 1 bad input or output, 2 usage.\n",
		prog, prog, prog);
}

static int parse_options(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "force", no_argument, NULL, 'f' },  { "progress", no_argument, NULL, 'p' },
		{ "timing", no_argument, NULL, 't' }, { "no-timing", no_argument, NULL, 'T' },
		{ "json", no_argument, NULL, 'j' },
		{ "stats", no_argument, NULL, 's' },  { "dump", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },   { "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, "fptTjsdhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': o->conv.overwrite = 1; break;
		case 'p': o->conv.progress = 1; break;
		case 't': o->conv.timing = CONV_TIMING_ON; break;
		case 'T': o->conv.timing = CONV_TIMING_OFF; break;
		case 'j': o->json = 1; break;
		case 's': o->mode = MODE_STATS; break;
		case 'd': o->mode = MODE_DUMP; break;
		case 'h': usage(stdout); exit(mt_stdout_checked(prog, 0));
		case 'V': printf("%s (%s) %s\n", prog, PACKAGE_NAME, PACKAGE_VERSION);
			exit(mt_stdout_checked(prog, 0));
		default:
			fprintf(stderr, "%s: try '%s --help'\n", prog, prog);
			exit(2);
		}
	}
	int want = o->mode == MODE_CONVERT ? 2 : 1;
	if (argc - optind != want) {
		fprintf(stderr, "%s: expected %s; try '%s --help'\n", prog,
			want == 2 ? "OUTPUT.wl and INPUT" : "one workload file", prog);
		exit(2);
	}
	return optind;
}

static uint64_t file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

static int show(const struct opts *o, const char *path)
{
	struct mt_error e;
	struct mt_wl *w = mt_wl_open(path, 1, &e);
	int rc = 0;
	if (!w) {
		mt_error_print(prog, &e);
		return 1;
	}
	const struct mt_wl_info *in = mt_wl_get_info(w);
	if (mt_wl_incomplete(path, in->source_stop, in->source_stop_records, &e))
		mt_error_print(prog, &e);
	if (o->mode == MODE_STATS)
		wl_print_stats(stdout, w, file_size(path), o->json);
	else if (wl_print_dump(stdout, w, &e) < 0) {
		mt_error_print(prog, &e);
		rc = 1;
	}
	mt_wl_close(w);
	return rc;
}

static double per_call(const struct conv_result *r)
{
	return r->calls ? (double)r->bytes / (double)r->calls : 0.0;
}

static void print_nonzero(uint64_t n, const char *one, const char *many)
{
	if (n)
		printf(", %" PRIu64 " %s", n, n == 1 ? one : many);
}

static void print_summary(const struct opts *o, const struct conv_result *r)
{
	const char *out = o->conv.output;
	if (o->json) {
		printf("{\"output\":");
		mt_json_string(stdout, out);
		printf(",\"threads\":%" PRIu32 ",\"calls\":%" PRIu64 ",\"never_freed\":%" PRIu64
		       ",\"unknown_frees\":%" PRIu64 ",\"double_frees\":%" PRIu64
		       ",\"contradictions\":%" PRIu64 ",\"dropped\":%" PRIu64 ",\"records\":%" PRIu64
		       ",\"events\":%" PRIu64 ",\"objects\":%" PRIu64 ",\"syncs\":%" PRIu64
		       ",\"adoptions\":%" PRIu64 ",\"ideal_peak\":%" PRIu64 ",\"peak_live\":%" PRIu64
		       ",\"bytes\":%" PRIu64 ",\"bytes_per_call\":%.2f",
		       r->threads, r->calls, r->never_freed, r->unknown_frees, r->double_frees,
		       r->cycles_broken, r->dropped, r->records, r->events, r->objects, r->syncs,
		       r->adoptions, r->ideal_peak, r->peak_live, r->bytes, per_call(r));
		mt_json_stop(stdout, r->stop_reason, r->stop_records);
		printf("}\n");
		return;
	}
	printf("%s: %" PRIu32 " thread%s, %" PRIu64 " call%s, %" PRIu64 " block%s never freed, %" PRIu64
	       " unknown free%s", prog, r->threads, r->threads == 1 ? "" : "s", r->calls,
	       r->calls == 1 ? "" : "s", r->never_freed, r->never_freed == 1 ? "" : "s",
	       r->unknown_frees, r->unknown_frees == 1 ? "" : "s");
	/* What went wrong only when something did, so the common line stays short. */
	print_nonzero(r->double_frees, "double free", "double frees");
	print_nonzero(r->cycles_broken, "contradiction", "contradictions");
	print_nonzero(r->dropped, "call not recorded", "calls not recorded");
	printf(" -> %s (%" PRIu64 " bytes, %.1f B/call)\n", out, r->bytes, per_call(r));
}

static int convert_file(struct opts *o, const char *input)
{
	struct mt_error e;
	struct conv_result res;
	o->conv.input_name = strcmp(input, "-") == 0 ? "<stdin>" : input;
	struct mt_trace *t = input_open(input, &e);
	if (!t) {
		mt_error_print(prog, &e);
		return 1;
	}
	int rc = convert(t, &o->conv, &res, &e);
	if (rc < 0) {
		mt_trace_close(t);
		mt_error_print(prog, &e);
		return 1;
	}
	for (const char *const *w = mt_trace_warnings(t); w && *w; w++)
		fprintf(stderr, "%s: warning: %s\n", prog, *w);
	mt_trace_close(t);
	for (uint64_t i = 0; i < res.problems && i < CONV_NOTES; i++)
		mt_error_print(prog, &res.notes[i]);
	if (res.problems > CONV_NOTES)
		fprintf(stderr, "%s: %s: further problems are counted, not printed\n", prog,
			o->conv.input_name);
	print_summary(o, &res);
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = { .mode = MODE_CONVERT };
	/* Past the file-size limit (ulimit -f) a write then fails with EFBIG,
	 * which is reported with the file's name, instead of killing us. */
	signal(SIGXFSZ, SIG_IGN);
	int i = parse_options(argc, argv, &o);
	/* A file-size limit makes a write fail with EFBIG, reported with the
	 * file's name, rather than kill trace2wl half-way. */
	signal(SIGXFSZ, SIG_IGN);
	if (o.mode != MODE_CONVERT)
		return mt_stdout_checked(prog, show(&o, argv[i]));
	o.conv.output = argv[i];
	if (strcmp(o.conv.output, "-") == 0) {
		fprintf(stderr, "%s: -: a workload is written to a file (it is renamed into place)\n",
			prog);
		return 2;
	}
	return mt_stdout_checked(prog, convert_file(&o, argv[i + 1]));
}
