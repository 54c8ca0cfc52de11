/*
 * mtrace-report - where the memory went: the call sites that allocate
 * most, the leaks, what was live at the peak, and the temporaries, from a
 * trace recorded with stacks (mtrace-record --stacks), symbolised offline
 * with elfutils.
 *
 * Each TRACE is read twice, streaming, through lib/ (report_analyse.c),
 * then its ranked sites are symbolised (report_symbols.c) and printed
 * (report_print.c).  Several traces - the processes of one run - are
 * reported one after another.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "report.h"
#include "tool_output.h"

static const char *prog = "mtrace-report";

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: %s [OPTION]... TRACE...\n"
		"  or:  %s --diff=BASE [OPTION]... NEW\n"
		"Rank the call sites of a recorded trace: allocations, leaks, the peak, temporaries.\n"
		"\n"
		"      --leaks         only the blocks never freed, by stack\n"
		"      --peak          only the blocks live at the highest live heap, by stack\n"
		"      --temporary     only the blocks freed with no other allocation in between\n"
		"  -n, --top=N         entries per ranking (default 10, 0 for all)\n"
		"  -j, --json          one JSON object per trace\n"
		"      --folded        folded stacks for flamegraph.pl and speedscope\n"
		"      --weight=W      what --folded weighs: bytes (default) or count\n"
		"      --diff=BASE     the call sites whose allocations, leaks and peak changed\n"
		"                      most from trace BASE to trace NEW (matched by function)\n"
		"      --html=FILE     one self-contained HTML page of charts and tables\n"
		"      --export=DIR    write the traces as gzip CSV tables under DIR\n"
		"                      (calls, blocks, stacks, processes) for SQL engines\n"
		"      --host=NAME     the host partition of --export (default: this host's name)\n"
		"      --jobs=N        --export N traces at once (default 1)\n"
		"      --part-rows=N   rows per --export file (default 1000000)\n"
		"  -h, --help          show this help and exit\n"
		"  -V, --version       show the version and exit\n"
		"\n"
		"Record with 'mtrace-record --stacks'; a trace without stacks is reported at\n"
		"one unknown site.  Exit status: 0 ok, 1 a trace could not be read, 2 usage.\n",
		prog, prog);
}

enum { OPT_LEAKS = 256, OPT_PEAK, OPT_TEMPORARY, OPT_FOLDED, OPT_WEIGHT, OPT_DIFF, OPT_HTML, OPT_EXPORT,
       OPT_HOST, OPT_JOBS, OPT_PART_ROWS };

/* A count from 1 to max for option name; 0, or -1 after saying why not. */
static int export_count(const char *name, const char *arg, uint64_t max, uint64_t *out)
{
	char *end;
	errno = 0;
	*out = strtoull(arg, &end, 10);
	if (!*arg || *end || errno || arg[0] == '-' || *out == 0 || *out > max) {
		fprintf(stderr, "%s: %s: '%s' is not a count from 1 to %" PRIu64 "\n", prog, name, arg,
			max);
		return -1;
	}
	return 0;
}

static const char *html_path;

static int parse_options(int argc, char **argv, struct report_opts *o)
{
	static const struct option longopts[] = {
		{ "leaks", no_argument, NULL, OPT_LEAKS },
		{ "peak", no_argument, NULL, OPT_PEAK },
		{ "temporary", no_argument, NULL, OPT_TEMPORARY },
		{ "top", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "folded", no_argument, NULL, OPT_FOLDED },
		{ "weight", required_argument, NULL, OPT_WEIGHT },
		{ "diff", required_argument, NULL, OPT_DIFF },
		{ "html", required_argument, NULL, OPT_HTML },
		{ "export", required_argument, NULL, OPT_EXPORT },
		{ "host", required_argument, NULL, OPT_HOST },
		{ "jobs", required_argument, NULL, OPT_JOBS },
		{ "part-rows", required_argument, NULL, OPT_PART_ROWS },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	uint64_t jobs = 1;
	*o = (struct report_opts){ .top = 10, .jobs = 1, .part_rows = 1000000 };
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":n:jhV", longopts, NULL)) != -1) {
		char *end;
		switch (c) {
		case OPT_LEAKS: o->sections |= SEC_LEAKS; break;
		case OPT_PEAK: o->sections |= SEC_PEAK; break;
		case OPT_TEMPORARY: o->sections |= SEC_TEMPORARY; break;
		case OPT_FOLDED: o->folded = 1; break;
		case OPT_DIFF: o->diff_base = optarg; break;
		case OPT_EXPORT: o->export_dir = optarg; break;
		case OPT_HOST: o->host = optarg; break;
		case OPT_JOBS:
		case OPT_PART_ROWS:
			if (export_count(c == OPT_JOBS ? "--jobs" : "--part-rows", optarg,
					 c == OPT_JOBS ? 1024 : UINT64_MAX, c == OPT_JOBS ? &jobs : &o->part_rows))
				return -1;
			o->jobs = (unsigned)jobs;
			break;
		case 'j': o->json = 1; break;
		case OPT_HTML: html_path = optarg; break;
		case 'n':
			errno = 0;
			o->top = (size_t)strtoull(optarg, &end, 10);
			if (!*optarg || *end || errno || optarg[0] == '-') {
				fprintf(stderr, "%s: --top: '%s' is not a count\n", prog, optarg);
				return -1;
			}
			break;
		case OPT_WEIGHT:
			if (strcmp(optarg, "bytes") && strcmp(optarg, "count")) {
				fprintf(stderr, "%s: --weight: '%s' is neither bytes nor count\n", prog,
					optarg);
				return -1;
			}
			o->weight_count = strcmp(optarg, "count") == 0;
			break;
		case 'h': usage(stdout); exit(mt_stdout_checked(prog, 0));
		case 'V':
			printf("%s (%s) %s\n", prog, PACKAGE_NAME, PACKAGE_VERSION);
			exit(mt_stdout_checked(prog, 0));
		default:
			return mt_bad_option(prog, c, argv[optind - 1]);
		}
	}
	if (html_path && (o->json || o->folded || !*html_path)) {
		fprintf(stderr, "%s: --html needs a file name and goes without --json and --folded\n",
			prog);
		return -1;
	}
	if (o->export_dir && (o->json || o->folded || o->diff_base || o->sections || html_path)) {
		fprintf(stderr, "%s: --export takes no other output option; try '%s --help'\n", prog,
			prog);
		return -1;
	}
	if (o->json && o->folded) {
		fprintf(stderr, "%s: --json and --folded exclude each other\n", prog);
		return -1;
	}
	if (optind == argc) {
		fprintf(stderr, "%s: no trace given; try '%s --help'\n", prog, prog);
		return -1;
	}
	if (o->diff_base && (optind + 1 != argc || o->folded || html_path)) {
		fprintf(stderr, "%s: --diff takes one NEW trace and no --folded or --html; try '%s --help'\n",
			prog, prog);
		return -1;
	}
	if (!o->sections)
		o->sections = SEC_ALL;
	return 0;
}

/* One trace opened, analysed (with its time series into *tl when the
 * --html page wants one) and ready to symbolise; 0, or -1 after printing
 * why not. */
static int load(const char *path, const struct report_opts *o, struct mt_trace **t,
		struct analysis *a, struct symbols **s, struct timeline **tl)
{
	struct mt_error e;
	*s = NULL;
	*tl = NULL;
	memset(a, 0, sizeof *a);
	if (!(*t = mt_tool_open_trace(prog, path)))
		return -1;
	if (o->html)
		*tl = timeline_open(*t);
	int rc = o->html && !*tl ? mt_error_set(&e, path, "out of memory")
				 : analyse_timeline(*t, a, *tl, &e);
	if (rc == 0 && !(*s = symbols_open(*t)))
		rc = mt_error_set(&e, path, "out of memory");
	if (rc)
		mt_error_print(prog, &e);
	return rc;
}

static void unload(struct mt_trace *t, struct analysis *a, struct symbols *s, struct timeline *tl)
{
	symbols_close(s);
	timeline_close(tl);
	analysis_free(a);
	mt_trace_close(t);
}

static int diff_files(const char *base, const char *new, const struct report_opts *o)
{
	struct mt_trace *t[2] = { NULL, NULL };
	struct analysis a[2];
	struct symbols *s[2] = { NULL, NULL };
	struct timeline *tl[2] = { NULL, NULL };
	int rc = load(base, o, &t[0], &a[0], &s[0], &tl[0]);
	if (rc == 0)
		rc = load(new, o, &t[1], &a[1], &s[1], &tl[1]);
	else
		memset(&a[1], 0, sizeof a[1]);
	struct analysis *ap[2] = { &a[0], &a[1] };
	if (rc == 0 && report_diff(stdout, (const struct mt_trace **)t, ap, s, o)) {
		fprintf(stderr, "%s: out of memory comparing %s and %s\n", prog, base, new);
		rc = -1;
	}
	for (int i = 0; i < 2; i++)
		unload(t[i], &a[i], s[i], tl[i]);
	return rc ? 1 : 0;
}

static int report_file(const char *path, const struct report_opts *o, int first)
{
	struct mt_trace *t;
	struct analysis a;
	struct symbols *s;
	struct timeline *tl;
	int rc = load(path, o, &t, &a, &s, &tl);
	if (rc == 0) {
		if (o->html)
			report_html(o->html, t, &a, s, tl, o);
		else if (o->json)
			report_json(stdout, t, &a, s, o);
		else if (o->folded)
			report_folded(stdout, &a, s, o);
		else {
			if (!first)
				putchar('\n');
			report_text(stdout, t, &a, s, o);
		}
	}
	unload(t, &a, s, tl);
	/* Each file's report out before the next is read, checked as it goes. */
	return mt_stdout_checked(prog, rc ? 1 : 0);
}

int main(int argc, char **argv)
{
	struct report_opts o;
	if (parse_options(argc, argv, &o))
		return 2;
	if (o.export_dir)
		return mt_stdout_checked(prog, export_traces(argv + optind, argc - optind, &o));
	if (o.diff_base)
		return mt_stdout_checked(prog, diff_files(o.diff_base, argv[optind], &o));
	if (html_path && !(o.html = fopen(html_path, "w"))) {
		fprintf(stderr, "%s: cannot create %s: %s\n", prog, html_path, strerror(errno));
		return 1;
	}
	if (o.html)
		html_begin(o.html, "mtrace-report: where the memory went");
	int status = 0;
	for (int i = optind; i < argc; i++)
		status |= report_file(argv[i], &o, i == optind);
	if (o.html) {
		html_end(o.html);
		if (ferror(o.html) | (fclose(o.html) != 0)) {
			fprintf(stderr, "%s: writing %s: %s\n", prog, html_path, strerror(errno));
			return 1;
		}
	}
	return mt_stdout_checked(prog, status);
}
