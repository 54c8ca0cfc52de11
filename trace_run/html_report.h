/*
 * html_report.h - trace_run --html: the figures of --compare and --repeat as one
 * self-contained page of charts (see lib/html.h).
 */
#ifndef RT_HTML_REPORT_H
#define RT_HTML_REPORT_H

#include "options.h"

/* One allocator's runs as compare.c collected them: each run's JSON and
 * the --timeline CSV its child wrote. */
struct rt_html_column {
	const char *name;
	char *const *json;      /* nruns */
	char *const *timeline;  /* nruns file names */
};

/* Writes cli->html; 0, or 1 after one line on stderr. */
int rt_html_write(const struct rt_cli *cli, const struct rt_html_column *cols, int ncols,
		  int nruns);

#endif
