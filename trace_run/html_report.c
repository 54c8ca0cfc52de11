/*
 * html_report.c - trace_run --html: time and memory per allocator as bars with
 * the --repeat spread as whiskers, each call type's p50/p99/max on a log
 * scale, and the resident set over time from the monitor's samples (the
 * --timeline CSV each child wrote), reduced to min/max columns; headed by
 * the workload and the machine it ran on.
 */
#include "config.h"

#include <errno.h>
#include <gnu/libc-version.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "columns.h"
#include "compare.h"
#include "html.h"
#include "html_report.h"
#include "trace.h"
#include "wl_format.h"

#define RSS_COLUMNS 1000

static const char *prog = "trace_run";

static void machine(FILE *out)
{
	char model[256] = "unknown", line[512];
	struct utsname u;
	FILE *f = fopen("/proc/cpuinfo", "re");
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "model name : %255[^\n]", model) == 1)
			break;
	if (f)
		fclose(f);
	if (uname(&u))
		strcpy(u.release, "unknown");
	fputs("<tr><td>machine</td><td>", out);
	html_text(out, model);
	fprintf(out, ", %ld cores; Linux ", sysconf(_SC_NPROCESSORS_ONLN));
	html_text(out, u.release);
	fputs(" ", out);
	html_text(out, u.machine);
	fputs("; glibc ", out);
	html_text(out, gnu_get_libc_version());
	fputs("</td></tr>\n", out);
}

/* A figure of every run of each column: median bars, min-max whiskers. */
static void figure_bars(FILE *out, const struct rt_html_column *cols, int ncols, int nruns,
			const char *key, const char *what, enum html_unit u, double scale)
{
	double v[RT_MAX_ALLOCATORS], lo[RT_MAX_ALLOCATORS], hi[RT_MAX_ALLOCATORS];
	const char *names[RT_MAX_ALLOCATORS];
	for (int i = 0; i < ncols; i++) {
		uint64_t runs[RT_MAX_REPEAT];
		for (int k = 0; k < nruns; k++)
			runs[k] = rt_json_u64(cols[i].json[k], key);
		struct rt_spread s = rt_summarise(runs, nruns);
		v[i] = (double)s.median * scale;
		lo[i] = (double)s.min * scale;
		hi[i] = (double)s.max * scale;
		names[i] = cols[i].name;
	}
	html_bars(out, what, u, names, v, lo, hi, (size_t)ncols, 0, 1, NULL);
}

/* p50, p99 and max of one call type, for every column (medians of the runs). */
static void latency(FILE *out, const struct rt_html_column *cols, int ncols, int nruns,
		    unsigned call, enum html_unit u, const char *unit)
{
	static const char *const keys[] = { "p50", "p99", "max" };
	double v[3 * RT_MAX_ALLOCATORS];
	const char *labels[3 * RT_MAX_ALLOCATORS], *names[RT_MAX_ALLOCATORS];
	char what[96];
	for (int i = 0; i < ncols; i++) {
		names[i] = cols[i].name;
		for (int k = 0; k < 3; k++) {
			uint64_t runs[RT_MAX_REPEAT];
			for (int r = 0; r < nruns; r++)
				runs[r] = rt_json_u64(rt_json_call(cols[i].json[r], call), keys[k]);
			v[3 * i + k] = (double)rt_summarise(runs, nruns).median;
			labels[3 * i + k] = keys[k];
		}
	}
	snprintf(what, sizeof what, "%s: time a call took (%s, log scale)", mt_call_name(call), unit);
	html_bars(out, what, u, labels, v, NULL, NULL, 3 * (size_t)ncols, 1, 3, names);
}

/* The first run's samples of each column: time_ms,vmrss_kb,vmsize_kb,ideal_kb,calls.
 * Series 2i is column i's resident set, 2i+1 the ideal. */
static int read_samples(const struct rt_html_column *cols, int ncols, struct columns *c)
{
	for (int i = 0; i < ncols; i++) {
		char line[256];
		FILE *f = fopen(cols[i].timeline[0], "re");
		if (!f) {
			fprintf(stderr, "%s: --html: reading %s: %s\n", prog, cols[i].timeline[0],
				strerror(errno));
			return -1;
		}
		while (fgets(line, sizeof line, f)) {
			unsigned long long ms, rss, size, calls;
			long long ideal;
			if (sscanf(line, "%llu,%llu,%llu,%lld,%llu", &ms, &rss, &size, &ideal, &calls) != 5)
				continue; /* the heading */
			size_t col = columns_at(c, ms);
			columns_level(c, col, 2 * (size_t)i, (int64_t)rss * 1024);
			columns_level(c, col, 2 * (size_t)i + 1, ideal * 1024);
		}
		fclose(f);
	}
	return 0;
}

static void rss_chart(FILE *out, const struct rt_html_column *cols, int ncols)
{
	struct columns c;
	struct chart ch;
	if (columns_init(&c, RSS_COLUMNS, 2 * (size_t)ncols)) {
		fputs("<p>out of memory</p>\n", out);
		return;
	}
	if (read_samples(cols, ncols, &c) == 0) {
		double top = 0, colw = (double)c.width / 1000;
		for (size_t i = 0; i < c.used; i++)
			for (size_t s = 0; s < c.nseries; s++)
				if (columns_cell(&c, i, s)->set && columns_cell(&c, i, s)->max > top)
					top = (double)columns_cell(&c, i, s)->max;
		chart_begin(&ch, out, 1100, 320, 0, colw * (double)(c.used ? c.used : 1), HU_SECONDS,
			    0, top * 1.1, HU_BYTES, 0, "time since the replay began", "resident memory");
		for (int i = 0; i < ncols; i++)
			for (int ideal = 0; ideal < 2 - (i > 0); ideal++) {
				/* each sample's column: its lowest and highest, joined;
				 * the ideal is the workload's, the same for all: one line */
				fprintf(out, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"%s d=\"",
					ideal ? "#888" : html_colour((size_t)i), ideal ? "1" : "1.5",
					ideal ? " stroke-dasharray=\"3 3\"" : "");
				char move = 'M';
				for (size_t k = 0; k < c.used; k++) {
					const struct col_cell *cell = columns_cell(&c, k, 2 * (size_t)i + ideal);
					if (!cell->set)
						continue;
					fprintf(out, "%c%.1f %.1fV%.1f", move,
						chart_x(&ch, colw * ((double)k + 0.5)),
						chart_y(&ch, (double)cell->min), chart_y(&ch, (double)cell->max));
					move = 'L';
				}
				fputs("\"/>\n", out);
			}
		const char *names[RT_MAX_ALLOCATORS];
		for (int i = 0; i < ncols; i++)
			names[i] = cols[i].name;
		chart_legend(&ch, names, (size_t)ncols, 0);
		chart_end(&ch);
		fputs("<p class=\"note\">Each allocator's resident set (its first run) as the monitor "
		      "sampled it; dashed grey: the ideal, the bytes the workload holds live.</p>\n",
		      out);
	}
	columns_free(&c);
}

static void page(FILE *out, const struct rt_cli *cli, const struct rt_html_column *cols,
		 int ncols, int nruns)
{
	char unit[32] = "cycles";
	const char *u = strstr(cols[0].json[0], "\"unit\":\"");
	if (u)
		sscanf(u + 8, "%31[a-z]", unit);
	enum html_unit lu = strcmp(unit, "ns") == 0 ? HU_NS : HU_COUNT;
	html_begin(out, "trace_run: allocators compared");
	fputs("<table class=\"facts\"><tr><td>workload</td><td>", out);
	html_text(out, cli->path);
	fprintf(out, "</td></tr><tr><td>threads</td><td>%llu</td></tr>",
		(unsigned long long)rt_json_u64(cols[0].json[0], "threads"));
	fprintf(out, "<tr><td>runs</td><td>%d of each allocator, in turn; bars are medians, "
		     "whiskers the lowest and highest run</td></tr>\n",
		nruns);
	machine(out);
	fputs("</table>\n<h2>Time</h2>\n", out);
	figure_bars(out, cols, ncols, nruns, "wall_usec", "wall time of the replay", HU_SECONDS, 1e-6);
	figure_bars(out, cols, ncols, nruns, "user_usec", "user time", HU_SECONDS, 1e-6);
	fputs("<h2>Memory</h2>\n", out);
	figure_bars(out, cols, ncols, nruns, "max_rss_kb", "Max RSS (growth during the replay)",
		    HU_BYTES, 1024);
	figure_bars(out, cols, ncols, nruns, "held_kb", "resident at the end beyond the replayer's own",
		    HU_BYTES, 1024);
	rss_chart(out, cols, ncols);
	fputs("<h2>Time per call</h2>\n", out);
	for (unsigned c = 1; c < MT_CALL_COUNT; c++)
		if (mt_op_is_call(c) && rt_json_call(cols[0].json[0], c))
			latency(out, cols, ncols, nruns, c, lu, unit);
	html_end(out);
}

int rt_html_write(const struct rt_cli *cli, const struct rt_html_column *cols, int ncols,
		  int nruns)
{
	FILE *out = fopen(cli->html, "w");
	if (!out) {
		fprintf(stderr, "%s: --html: cannot create %s: %s\n", prog, cli->html, strerror(errno));
		return 1;
	}
	page(out, cli, cols, ncols, nruns);
	if (ferror(out) | (fclose(out) != 0)) {
		fprintf(stderr, "%s: --html: writing %s: %s\n", prog, cli->html, strerror(errno));
		return 1;
	}
	return 0;
}
