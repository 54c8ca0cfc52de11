/*
 * options.c - parsing and checking trace_run's command line (see options.h).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "tool_output.h"

static const char *prog = "trace_run";

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: %s [OPTION]... WORKLOAD\n"
		"Replay a workload made by trace2wl and time every allocator call.\n"
		"\n"
		"  -a, --allocator=NAME   glibc, jemalloc, tcmalloc, mimalloc, or a library PATH\n"
		"  -c, --compare=LIST     replay under each allocator in LIST (comma-separated),\n"
		"                         one fresh process each, and print one table\n"
		"  -r, --repeat=N         replay each allocator N times, in turn, and print\n"
		"                         medians and min-max spreads (default 3 with\n"
		"                         --compare, else 1)\n"
		"  -o NAME=VALUE,...      glibc tunables: mmap_threshold, trim_threshold, top_pad,\n"
		"                         mmap_max, arena_max, arena_test, perturb (mallopt);\n"
		"                         tcache_count, tcache_max (GLIBC_TUNABLES)\n"
		"  -T, --trim-every=N     call malloc_trim(0) after every N calls of a thread\n"
		"  -t, --touch=HOW        write into blocks after allocation and before free:\n"
		"                         all (every byte, the default), page (one byte a page), none\n"
		"  -p, --pace             follow the recorded time between calls\n"
		"  -W, --window=USEC      an allocating call waits until every other thread is\n"
		"                         within USEC of its recorded time (default auto: from\n"
		"                         the workload's peak and allocation rate), and while\n"
		"                         it would take the live bytes past 1/32 over the\n"
		"                         recorded ideal peak\n"
		"  -u, --unpaced          order the threads by their sync points alone\n"
		"  -s, --sample-ms=MS     RSS sampling interval (default 10)\n"
		"  -l, --timeline=FILE    write the samples as CSV:\n"
		"                         time_ms,vmrss_kb,vmsize_kb,ideal_kb,calls\n"
		"      --html=FILE        also write the figures as charts on one self-contained\n"
		"                         HTML page (with or without --compare)\n"
		"  -w, --watchdog=SEC     give up after SEC seconds without progress (default 10)\n"
		"      --timer=SOURCE     auto (default: the first the processor has of rdtscp,\n"
		"                         rdtsc, cntvct), rdtscp, rdtsc (LFENCE;RDTSC;LFENCE),\n"
		"                         cntvct (aarch64), or clock (CLOCK_MONOTONIC_RAW)\n"
		"  -j, --json             print the figures as one JSON object\n"
		"  -h, --help             show this help and exit\n"
		"  -V, --version          show the version and exit\n"
		"\n"
		"Exit status: 0 ok, 1 the workload or a resource was bad, 2 usage,\n"
		"3 the replay stalled (threads waiting on sync points nobody signals).\n",
		prog);
}

static int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	/* strtoull would take leading spaces and a sign: only digits are a count */
	if (s[0] < '0' || s[0] > '9' || *end || errno || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int bad(const char *opt, const char *val, const char *want)
{
	fprintf(stderr, "%s: %s: '%s' is not %s\n", prog, opt, val, want);
	return -1;
}

static int parse_touch(const char *s, enum rt_touch *t)
{
	static const char *const names[] = { "none", "page", "all" };
	for (int i = 0; i < 3; i++)
		if (!strcmp(s, names[i])) {
			*t = (enum rt_touch)i;
			return 0;
		}
	return bad("--touch", s, "none, page or all");
}

static int parse_timer(const char *s, enum rt_timer_source *t)
{
	if (rt_timer_parse(s, t))
		return bad("--timer", s, "auto, rdtscp, rdtsc, cntvct or clock");
	return 0;
}

enum { OPT_TIMER = 256, OPT_HTML };

static int one_option(int c, const char *arg, struct rt_cli *cli)
{
	uint64_t v;
	char why[256];

	switch (c) {
	case 'a': cli->allocator = arg; return 0;
	case 'c': cli->compare = arg; return 0;
	case 'j': cli->json = 1; return 0;
	case 'p': cli->run.pace = 1; return 0;
	case 'l': cli->run.timeline = arg; return 0;
	case OPT_HTML: cli->html = arg; return 0;
	case 't': return parse_touch(arg, &cli->run.touch);
	case OPT_TIMER: return parse_timer(arg, &cli->run.timer);
	case 'o':
		if (rt_tunables_parse(&cli->tun, arg, why, sizeof why)) {
			fprintf(stderr, "%s: %s\n", prog, why);
			return -1;
		}
		return 0;
	case 'T':
		if (parse_u64(arg, 1, UINT64_MAX, &cli->run.trim_every))
			return bad("--trim-every", arg, "a count of calls (1 or more)");
		return 0;
	case 'r':
		if (parse_u64(arg, 1, RT_MAX_REPEAT, &v))
			return bad("--repeat", arg, "a number of runs from 1 to 100");
		cli->repeat = (unsigned)v;
		return 0;
	case 's':
		if (parse_u64(arg, 1, 60000, &v))
			return bad("--sample-ms", arg, "a number of milliseconds from 1 to 60000");
		cli->run.sample_ms = (unsigned)v;
		return 0;
	case 'u': cli->run.unpaced = 1; return 0;
	case 'W':
		if (!strcmp(arg, "auto"))
			cli->run.window_us = RT_WINDOW_AUTO;
		else if (parse_u64(arg, 0, 3600000000u, &cli->run.window_us))
			return bad("--window", arg, "auto or a number of microseconds up to 3600000000");
		return 0;
	case 'w':
		if (parse_u64(arg, 0, 86400, &v))
			return bad("--watchdog", arg, "a number of seconds from 0 (off) to 86400");
		cli->run.watchdog_s = (unsigned)v;
		return 0;
	case 'h': usage(stdout); exit(mt_stdout_checked(prog, 0));
	case 'V': printf("%s (%s) %s\n", prog, PACKAGE_NAME, PACKAGE_VERSION);
			exit(mt_stdout_checked(prog, 0));
	}
	return -1;
}

/* Options that cannot go together, and the one operand. */
static int check(int argc, char **argv, struct rt_cli *cli)
{
	if (optind == argc) {
		fprintf(stderr, "%s: no workload given; try '%s --help'\n", prog, prog);
		return -1;
	}
	if (optind + 1 < argc) {
		fprintf(stderr, "%s: one workload at a time ('%s' is extra); try '%s --help'\n", prog,
			argv[optind + 1], prog);
		return -1;
	}
	cli->path = argv[optind];
	if (cli->compare && cli->allocator) {
		fprintf(stderr, "%s: --compare and --allocator cannot go together\n", prog);
		return -1;
	}
	if (cli->run.timeline && !*cli->run.timeline) {
		fprintf(stderr, "%s: --timeline: no file name given\n", prog);
		return -1;
	}
	if (cli->html && (!*cli->html || cli->run.timeline)) {
		fprintf(stderr, "%s: --html needs a file name and goes without --timeline\n", prog);
		return -1;
	}
	if (cli->compare && cli->run.timeline) {
		fprintf(stderr, "%s: --compare and --timeline cannot go together\n", prog);
		return -1;
	}
	if (!cli->repeat)
		cli->repeat = cli->compare ? 3 : 1;
	if (cli->repeat > 1 && cli->run.timeline) {
		fprintf(stderr, "%s: --repeat and --timeline cannot go together\n", prog);
		return -1;
	}
	return 0;
}

int rt_parse_options(int argc, char **argv, struct rt_cli *cli)
{
	static const struct option longopts[] = {
		{ "allocator", required_argument, NULL, 'a' },
		{ "compare", required_argument, NULL, 'c' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "trim-every", required_argument, NULL, 'T' },
		{ "touch", required_argument, NULL, 't' },
		{ "pace", no_argument, NULL, 'p' },
		{ "sample-ms", required_argument, NULL, 's' },
		{ "timeline", required_argument, NULL, 'l' },
		{ "html", required_argument, NULL, OPT_HTML },
		{ "watchdog", required_argument, NULL, 'w' },
		{ "window", required_argument, NULL, 'W' },
		{ "unpaced", no_argument, NULL, 'u' },
		{ "timer", required_argument, NULL, OPT_TIMER },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(cli, 0, sizeof *cli);
	cli->run.touch = RT_TOUCH_ALL;
	cli->run.sample_ms = 10;
	cli->run.watchdog_s = 10;
	cli->run.window_us = RT_WINDOW_AUTO;
	opterr = 0; /* our own one-line messages */
	while ((c = getopt_long(argc, argv, ":a:c:r:o:T:t:ps:l:w:W:ujhV", longopts, NULL)) != -1) {
		if (c == ':') {
			fprintf(stderr, "%s: option '%s' needs an argument; try '%s --help'\n", prog,
				argv[optind - 1], prog);
			return -1;
		}
		if (c == '?') {
			fprintf(stderr, "%s: unknown option '%s'; try '%s --help'\n", prog,
				argv[optind - 1], prog);
			return -1;
		}
		if (one_option(c, optarg, cli))
			return -1;
	}
	return check(argc, argv, cli);
}
