/*
 * options.h - trace_run's command line, parsed and checked in one place.
 *
 * Every value is checked before anything runs, so that a typo costs one
 * line on stderr and never a half-done replay.
 */
#ifndef RT_OPTIONS_H
#define RT_OPTIONS_H

#include "replay.h"
#include "tunables.h"

enum { RT_MAX_REPEAT = 100 };

struct rt_cli {
	struct rt_opts run;
	struct rt_tunables tun; /* -o */
	const char *allocator;  /* --allocator, NULL for whatever malloc is */
	const char *compare;    /* --compare list, or NULL */
	unsigned repeat;        /* --repeat: runs of each allocator (3 with --compare, else 1) */
	int json;
	const char *html;       /* --html page, or NULL */
	const char *path;
};

/* Returns 0, or -1 after printing one line (exit status 2). */
int rt_parse_options(int argc, char **argv, struct rt_cli *cli);

#endif
