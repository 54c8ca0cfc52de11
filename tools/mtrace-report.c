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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "report.h"

static const char *prog = "mtrace-report";

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: %s [OPTION]... TRACE...\n"
		"Rank the call sites of a recorded trace: allocations, leaks, the peak, temporaries.\n"
		"\n"
		"      --leaks         only the blocks never freed, by stack\n"
		"      --peak          only the blocks live at the highest live heap, by stack\n"
		"      --temporary     only the blocks freed with no other allocation in between\n"
		"  -n, --top=N         entries per ranking (default 10, 0 for all)\n"
		"  -j, --json          one JSON object per trace\n"
		"      --folded        folded stacks for flamegraph.pl and speedscope\n"
		"      --weight=W      what --folded weighs: bytes (default) or count\n"
		"      --html=FILE     one self-contained HTML page of charts and tables\n"
		"  -h, --help          show this help and exit\n"
		"  -V, --version       show the version and exit\n"
		"\n"
		"Record with 'mtrace-record --stacks'; a trace without stacks is reported at\n"
		"one unknown site.  Exit status: 0 ok, 1 a trace could not be read, 2 usage.\n",
		prog);
}

enum { OPT_LEAKS = 256, OPT_PEAK, OPT_TEMPORARY, OPT_FOLDED, OPT_WEIGHT, OPT_HTML };

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
		{ "html", required_argument, NULL, OPT_HTML },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	*o = (struct report_opts){ .top = 10 };
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":n:jhV", longopts, NULL)) != -1) {
		char *end;
		switch (c) {
		case OPT_LEAKS: o->sections |= SEC_LEAKS; break;
		case OPT_PEAK: o->sections |= SEC_PEAK; break;
		case OPT_TEMPORARY: o->sections |= SEC_TEMPORARY; break;
		case OPT_FOLDED: o->folded = 1; break;
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
		case 'h': usage(stdout); exit(0);
		case 'V': printf("%s (%s) %s\n", prog, PACKAGE_NAME, PACKAGE_VERSION); exit(0);
		case ':':
			fprintf(stderr, "%s: option '%s' needs an argument; try '%s --help'\n", prog,
				argv[optind - 1], prog);
			return -1;
		default:
			fprintf(stderr, "%s: unknown option '%s'; try '%s --help'\n", prog,
				argv[optind - 1], prog);
			return -1;
		}
	}
	if (html_path && (o->json || o->folded || !*html_path)) {
		fprintf(stderr, "%s: --html needs a file name and goes without --json and --folded\n",
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
	if (!o->sections)
		o->sections = SEC_ALL;
	return 0;
}

static int report_file(const char *path, const struct report_opts *o, int first)
{
	struct mt_error e;
	struct mt_trace *t = mt_trace_open(path, &e);
	if (!t) {
		mt_error_print(prog, &e);
		return 1;
	}
	for (const char *const *w = mt_trace_warnings(t); *w; w++)
		fprintf(stderr, "%s: %s\n", prog, *w);
	struct analysis a = { 0 };
	struct symbols *s = NULL;
	struct timeline *tl = o->html ? timeline_open(t) : NULL;
	int rc = o->html && !tl ? mt_error_set(&e, path, "out of memory")
				: analyse_timeline(t, &a, tl, &e);
	if (rc == 0 && !(s = symbols_open(t)))
		rc = mt_error_set(&e, path, "out of memory");
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
	fflush(stdout);
	if (rc)
		mt_error_print(prog, &e);
	symbols_close(s);
	timeline_close(tl);
	analysis_free(&a);
	mt_trace_close(t);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct report_opts o;
	if (parse_options(argc, argv, &o))
		return 2;
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
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: writing standard output: %s\n", prog, strerror(errno));
		return 1;
	}
	return status;
}
