/*
 * compare.c - running one replay per allocator and lining the figures up.
 *
 * Each allocator gets a fresh process (an allocator cannot be swapped inside
 * one, and a fresh heap keeps the runs independent): this trace_run
 * re-executes itself with --allocator=NAME --json and the same replay
 * options, reads the JSON back, and prints one row per figure, one column
 * per allocator, with each column's ratio to the first.
 *
 * With --repeat=N (3 by default under --compare) each allocator is replayed
 * N times, the allocators in turn (glibc, jemalloc, glibc, jemalloc, ...)
 * so that a change in the machine's load falls on all of them alike; each
 * cell is the median of its N runs with their min-max spread, and a ratio
 * whose spread overlaps the first column's is printed in parentheses: the
 * runs do not tell the two apart.  --repeat without --compare does the same
 * for the one allocator.
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "allocator.h"
#include "sort_u64.h"
#include "compare.h"
#include "html_report.h"
#include "report.h"
#include "trace.h"
#include "wl_format.h"

enum { MAX_ALLOCATORS = RT_MAX_ALLOCATORS, MAX_ARGS = 64 };

static const char *prog = "trace_run";

/* One allocator: its name (NULL: whatever malloc is, no --allocator) and
 * the JSON of each of its runs, and for --html the --timeline file each
 * run wrote. */
struct column {
	const char *name;
	char *json[RT_MAX_REPEAT];
	char *timeline[RT_MAX_REPEAT];
};

/* Splits list into cols; the names point into buf. */
static int split(const char *list, char *buf, size_t len, struct column *cols)
{
	char *save;
	int n = 0;
	if (snprintf(buf, len, "%s", list) >= (int)len) {
		fprintf(stderr, "%s: --compare: list too long\n", prog);
		return -1;
	}
	for (char *s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
		if (n == MAX_ALLOCATORS) {
			fprintf(stderr, "%s: --compare: at most %d allocators\n", prog, MAX_ALLOCATORS);
			return -1;
		}
		cols[n++].name = s;
	}
	if (!n)
		fprintf(stderr, "%s: --compare: no allocator named\n", prog);
	return n ? n : -1;
}

/* The child's command line: the same replay, one allocator (alloc_arg, or
 * NULL for whatever malloc is), JSON out, the samples to timeline_arg
 * when not NULL. */
static void child_args(const struct rt_cli *cli, char *alloc_arg, char *timeline_arg, char **av,
		       char store[][96])
{
	static const char *const touch[] = { "none", "page", "all" };
	const struct rt_opts *o = &cli->run;
	int n = 0, s = 0;

	av[n++] = (char *)prog;
	if (alloc_arg)
		av[n++] = alloc_arg;
	av[n++] = "--json";
	if (timeline_arg)
		av[n++] = timeline_arg;
	snprintf(av[n++] = store[s++], 96, "--touch=%s", touch[o->touch]);
	snprintf(av[n++] = store[s++], 96, "--timer=%s", rt_timer_name(o->timer));
	snprintf(av[n++] = store[s++], 96, "--sample-ms=%u", o->sample_ms);
	snprintf(av[n++] = store[s++], 96, "--watchdog=%u", o->watchdog_s);
	if (o->window_us == RT_WINDOW_AUTO)
		av[n++] = "--window=auto";
	else
		snprintf(av[n++] = store[s++], 96, "--window=%llu", (unsigned long long)o->window_us);
	if (o->unpaced)
		av[n++] = "--unpaced";
	if (o->trim_every)
		snprintf(av[n++] = store[s++], 96, "--trim-every=%llu",
			 (unsigned long long)o->trim_every);
	if (o->pace)
		av[n++] = "--pace";
	for (int i = 0; i < cli->tun.n; i++)
		snprintf(av[n++] = store[s++], 96, "-o%s=%ld", cli->tun.t[i].name,
			 cli->tun.t[i].value);
	av[n++] = "--";
	av[n++] = (char *)cli->path;
	av[n] = NULL;
}

static char *slurp(int fd)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t n;
	while (buf && (n = read(fd, buf + len, cap - len - 1)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		len += (size_t)n;
		if (cap - len < 2 && !(buf = realloc(buf, cap *= 2)))
			return NULL;
	}
	if (buf)
		buf[len] = 0;
	return buf;
}

static const char *label(const struct column *col)
{
	return col->name ? col->name : "default";
}

/* Runs one child; returns 0 with its JSON in *json, or an exit status. */
static int run_one(const struct rt_cli *cli, const struct column *col, const char *timeline,
		   char **json)
{
	char *av[MAX_ARGS], store[MAX_ARGS][96], alloc_arg[PATH_MAX + 16];
	char timeline_arg[PATH_MAX + 16];
	int fds[2], status;
	snprintf(alloc_arg, sizeof alloc_arg, "--allocator=%s", label(col));
	snprintf(timeline_arg, sizeof timeline_arg, "--timeline=%s", timeline ? timeline : "");
	child_args(cli, col->name ? alloc_arg : NULL, timeline ? timeline_arg : NULL, av, store);
	fflush(NULL);
	if (pipe(fds)) {
		fprintf(stderr, "%s: --compare: pipe: %s\n", prog, strerror(errno));
		return 1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execv("/proc/self/exe", av);
		fprintf(stderr, "%s: --compare: running myself: %s\n", prog, strerror(errno));
		_exit(1);
	}
	close(fds[1]);
	*json = pid > 0 ? slurp(fds[0]) : NULL;
	close(fds[0]);
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		fprintf(stderr, "%s: --compare: %s: %s\n", prog, label(col), strerror(errno));
		return 1;
	}
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "%s: --compare: the %s replay died of signal %d\n", prog, label(col),
			WTERMSIG(status));
		return 1;
	}
	if (WEXITSTATUS(status))
		return WEXITSTATUS(status); /* it said why on stderr */
	return *json ? 0 : 1;
}

uint64_t rt_json_u64(const char *from, const char *key)
{
	char pat[64];
	snprintf(pat, sizeof pat, "\"%s\":", key);
	const char *p = from ? strstr(from, pat) : NULL;
	return p ? strtoull(p + strlen(pat), NULL, 10) : 0;
}

const char *rt_json_call(const char *json, unsigned call)
{
	char pat[64];
	const char *calls = strstr(json, "\"calls\":{");
	snprintf(pat, sizeof pat, "\"%s\":{", mt_call_name(call));
	return calls ? strstr(calls, pat) : NULL;
}

/* A figure's value in each run of each column: v[column][run]. */
typedef uint64_t runs_t[RT_MAX_REPEAT];

struct rt_spread rt_summarise(uint64_t *v, int n)
{
	rt_sort_u64(v, (size_t)n);
	uint64_t lo = v[(n - 1) / 2], hi = v[n / 2];
	struct rt_spread s = { lo + (hi - lo) / 2, v[0], v[n - 1] };
	assert(s.min <= s.median && s.median <= s.max);
	return s;
}

/* One run each: the value and its ratio to the first column's. */
static void row_single(const char *name, runs_t *v, int ncols)
{
	printf("%-22s %14s", name, rt_comma(v[0][0]));
	for (int i = 1; i < ncols; i++) {
		char ratio[16] = "-";
		if (v[0][0])
			snprintf(ratio, sizeof ratio, "%.2fx", (double)v[i][0] / (double)v[0][0]);
		printf(" %14s %7s", rt_comma(v[i][0]), ratio);
	}
	printf("\n");
}

/* "1,234 [1,200-1,300]", or the value alone when every run gave it. */
static void cell(char *out, size_t len, struct rt_spread s)
{
	if (s.min == s.max)
		snprintf(out, len, "%s", rt_comma(s.median));
	else
		snprintf(out, len, "%s [%s-%s]", rt_comma(s.median), rt_comma(s.min),
			 rt_comma(s.max));
}

/* The rows of a table of repeated runs, kept until every cell's width is
 * known. */
enum { MAX_ROWS = 2 + 2 * MT_CALL_COUNT + 8 };

struct grid {
	int rows;
	struct {
		char name[64];
		char cell[MAX_ALLOCATORS][96];
		char ratio[MAX_ALLOCATORS][24];
	} row[MAX_ROWS];
};

/* Several runs each: median [min-max], and the ratio of medians to the
 * first column's, in parentheses when the two spreads overlap. */
static void row_repeated(struct grid *g, const char *name, runs_t *v, int ncols, int nruns)
{
	assert(g->rows < MAX_ROWS);
	int r = g->rows++;
	struct rt_spread first = rt_summarise(v[0], nruns);
	snprintf(g->row[r].name, sizeof g->row[r].name, "%s", name);
	for (int i = 0; i < ncols; i++) {
		struct rt_spread s = i ? rt_summarise(v[i], nruns) : first;
		int overlap = s.min <= first.max && first.min <= s.max;
		cell(g->row[r].cell[i], sizeof g->row[r].cell[i], s);
		snprintf(g->row[r].ratio[i], sizeof g->row[r].ratio[i], "-");
		if (first.median)
			snprintf(g->row[r].ratio[i], sizeof g->row[r].ratio[i],
				 overlap ? "(%.2fx)" : "%.2fx", (double)s.median / (double)first.median);
	}
}

static void row(struct grid *g, const char *name, runs_t *v, int ncols, int nruns)
{
	if (nruns == 1)
		row_single(name, v, ncols);
	else
		row_repeated(g, name, v, ncols, nruns);
}

static void top_row(struct grid *g, const char *name, const char *key, struct column *cols,
		    int ncols, int nruns)
{
	runs_t v[MAX_ALLOCATORS];
	for (int i = 0; i < ncols; i++)
		for (int k = 0; k < nruns; k++)
			v[i][k] = rt_json_u64(cols[i].json[k], key);
	row(g, name, v, ncols, nruns);
}

/* avg and p99 of each call type the first run made. */
static void call_rows(struct grid *g, struct column *cols, int ncols, int nruns)
{
	static const char *const keys[] = { "avg", "p99" };
	for (unsigned c = 1; c < MT_CALL_COUNT; c++) {
		if (!mt_op_is_call(c) || !rt_json_call(cols[0].json[0], c))
			continue;
		for (int k = 0; k < 2; k++) {
			char name[64];
			runs_t v[MAX_ALLOCATORS];
			snprintf(name, sizeof name, "%s %s", keys[k], mt_call_name(c));
			for (int i = 0; i < ncols; i++)
				for (int r = 0; r < nruns; r++)
					v[i][r] = rt_json_u64(rt_json_call(cols[i].json[r], c), keys[k]);
			row(g, name, v, ncols, nruns);
		}
	}
}

/* The repeated runs' table: a line saying how to read it, then each
 * column as wide as its widest cell. */
static void print_grid(const struct grid *g, struct column *cols, int ncols, int nruns)
{
	int width[MAX_ALLOCATORS];
	for (int i = 0; i < ncols; i++) {
		width[i] = (int)strlen(label(&cols[i]));
		for (int r = 0; r < g->rows; r++)
			if ((int)strlen(g->row[r].cell[i]) > width[i])
				width[i] = (int)strlen(g->row[r].cell[i]);
	}
	printf("Median of %d runs of each allocator, run in turn; [min-max] over the runs;\n"
	       "a ratio in parentheses is not a difference: the two min-max spreads overlap.\n",
	       nruns);
	printf("%-22s", "");
	for (int i = 0; i < ncols; i++)
		printf(i ? " %*s %8s" : " %*s", width[i], label(&cols[i]), "ratio");
	printf("\n");
	for (int r = 0; r < g->rows; r++) {
		printf("%-22s", g->row[r].name);
		for (int i = 0; i < ncols; i++)
			printf(i ? " %*s %8s" : " %*s", width[i], g->row[r].cell[i], g->row[r].ratio[i]);
		printf("\n");
	}
}

static void table(struct column *cols, int ncols, int nruns)
{
	static struct grid g;
	char unit[32] = "cycles";
	const char *u = strstr(cols[0].json[0], "\"unit\":\"");
	if (u)
		sscanf(u + 8, "%31[a-z]", unit);
	if (nruns == 1) {
		printf("%-22s %14s", "", label(&cols[0]));
		for (int i = 1; i < ncols; i++)
			printf(" %14s %7s", label(&cols[i]), "ratio");
		printf("\n");
	}
	g.rows = 0;
	top_row(&g, unit, "elapsed", cols, ncols, nruns);
	top_row(&g, "usec wall time", "wall_usec", cols, ncols, nruns);
	top_row(&g, "usec user time", "user_usec", cols, ncols, nruns);
	top_row(&g, "Kb Max RSS", "max_rss_kb", cols, ncols, nruns);
	top_row(&g, "Kb Max Ideal RSS", "ideal_rss_kb", cols, ncols, nruns);
	top_row(&g, "Kb held at the end", "held_kb", cols, ncols, nruns);
	top_row(&g, "total call time", "total_call_time", cols, ncols, nruns);
	call_rows(&g, cols, ncols, nruns);
	top_row(&g, "calls failed now", "failed_now", cols, ncols, nruns);
	if (nruns > 1)
		print_grid(&g, cols, ncols, nruns);
}

/* --json: every run's object, in the order run, as one array; with more
 * than one run of each, every object carries its run number first. */
static void json_array(struct column *cols, int ncols, int nruns)
{
	printf("[");
	for (int k = 0; k < nruns; k++)
		for (int i = 0; i < ncols; i++) {
			const char *j = cols[i].json[k];
			size_t len = strcspn(j, "\n");
			printf("%s", k || i ? "," : "");
			if (nruns > 1 && *j == '{')
				printf("{\"run\":%d,%.*s", k + 1, (int)len - 1, j + 1);
			else
				printf("%.*s", (int)len, j);
		}
	printf("]\n");
}

/* Which run is under way, on a terminal, once the runs have taken more
 * than a second; returns whether a line is showing. */
static int progress(int run, int nruns, const struct column *col, uint64_t start_ns)
{
	if (!isatty(2) || rt_clock_ns() - start_ns < 1000000000u)
		return 0;
	fprintf(stderr, "\r%s: run %d of %d: %s\033[K", prog, run + 1, nruns, label(col));
	return 1;
}

static int html(const struct rt_cli *cli, struct column *cols, int ncols, int nruns)
{
	struct rt_html_column h[MAX_ALLOCATORS];
	for (int i = 0; i < ncols; i++)
		h[i] = (struct rt_html_column){ label(&cols[i]), cols[i].json, cols[i].timeline };
	return rt_html_write(cli, h, ncols, nruns);
}

int rt_compare(const struct rt_cli *cli)
{
	struct column cols[MAX_ALLOCATORS] = { 0 };
	char lib[PATH_MAX], why[PATH_MAX + 256], names[PATH_MAX];
	const int nruns = (int)cli->repeat;
	int n = 1, status = 0;

	assert(nruns >= 1 && nruns <= RT_MAX_REPEAT);
	if (cli->compare)
		n = split(cli->compare, names, sizeof names, cols);
	else
		cols[0].name = cli->allocator;
	if (n < 0)
		return 2;
	for (int i = 0; i < n; i++) {
		int bad = cols[i].name ? rt_allocator_check(cols[i].name, cli->tun.n, cli->compare != NULL,
							    1, lib, sizeof lib, why, sizeof why)
				       : 0;
		if (bad) {
			fprintf(stderr, "%s: %s\n", prog, why);
			return bad;
		}
	}
	char tmp[PATH_MAX];
	const char *tmpdir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(tmp, sizeof tmp, "%s/trace_run-html-XXXXXX", tmpdir);
	if (cli->html && !mkdtemp(tmp)) {
		fprintf(stderr, "%s: --html: cannot make a directory in %s: %s\n", prog, tmpdir,
			strerror(errno));
		return 1;
	}
	const uint64_t start_ns = rt_clock_ns();
	int shown = 0;
	for (int k = 0; k < nruns && !status; k++)
		for (int i = 0; i < n && !status; i++) {
			shown |= progress(k, nruns, &cols[i], start_ns);
			if (cli->html && asprintf(&cols[i].timeline[k], "%s/%d-%d.csv", tmp, i, k) < 0)
				cols[i].timeline[k] = NULL;
			status = run_one(cli, &cols[i], cols[i].timeline[k], &cols[i].json[k]);
		}
	if (shown)
		fprintf(stderr, "\r\033[K");
	if (!status) {
		if (cli->json)
			json_array(cols, n, nruns);
		else
			table(cols, n, nruns);
	}
	if (!status && cli->html)
		status = html(cli, cols, n, nruns);
	for (int i = 0; cli->html && i < n; i++)
		for (int k = 0; k < nruns; k++)
			if (cols[i].timeline[k]) {
				unlink(cols[i].timeline[k]);
				free(cols[i].timeline[k]);
			}
	if (cli->html)
		rmdir(tmp);
	for (int i = 0; i < n; i++)
		for (int k = 0; k < nruns; k++)
			free(cols[i].json[k]);
	return status;
}
