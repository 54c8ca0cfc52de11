/*
 * compare.c - running one replay per allocator and lining the figures up.
 *
 * Each allocator gets a fresh process (an allocator cannot be swapped inside
 * one, and a fresh heap keeps the runs independent): this trace_run
 * re-executes itself with --allocator=NAME --json and the same replay
 * options, reads the JSON back, and prints one row per figure, one column
 * per allocator, with each column's ratio to the first.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "allocator.h"
#include "compare.h"
#include "report.h"
#include "trace.h"
#include "wl_format.h"

enum { MAX_ALLOCATORS = 8, MAX_ARGS = 64 };

static const char *prog = "trace_run";

struct column {
	const char *name;
	char *json;
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

/* The child's command line: the same replay, one allocator, JSON out. */
static void child_args(const struct rt_cli *cli, char *alloc_arg, char **av, char store[][96])
{
	static const char *const touch[] = { "none", "page", "all" };
	const struct rt_opts *o = &cli->run;
	int n = 0, s = 0;

	av[n++] = (char *)prog;
	av[n++] = alloc_arg;
	av[n++] = "--json";
	snprintf(av[n++] = store[s++], 96, "--touch=%s", touch[o->touch]);
	snprintf(av[n++] = store[s++], 96, "--timer=%s", rt_timer_name(o->timer));
	snprintf(av[n++] = store[s++], 96, "--sample-ms=%u", o->sample_ms);
	snprintf(av[n++] = store[s++], 96, "--watchdog=%u", o->watchdog_s);
	snprintf(av[n++] = store[s++], 96, "--window=%llu", (unsigned long long)o->window_us);
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

/* Runs one child; returns 0 with its JSON in col, or an exit status. */
static int run_one(const struct rt_cli *cli, struct column *col)
{
	char *av[MAX_ARGS], store[MAX_ARGS][96], alloc_arg[PATH_MAX + 16];
	int fds[2], status;
	snprintf(alloc_arg, sizeof alloc_arg, "--allocator=%s", col->name);
	child_args(cli, alloc_arg, av, store);
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
	col->json = pid > 0 ? slurp(fds[0]) : NULL;
	close(fds[0]);
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		fprintf(stderr, "%s: --compare: %s: %s\n", prog, col->name, strerror(errno));
		return 1;
	}
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "%s: --compare: the %s replay died of signal %d\n", prog, col->name,
			WTERMSIG(status));
		return 1;
	}
	if (WEXITSTATUS(status))
		return WEXITSTATUS(status); /* it said why on stderr */
	return col->json ? 0 : 1;
}

/* The number after "key": at or after from; 0 when absent. */
static uint64_t json_u64(const char *from, const char *key)
{
	char pat[64];
	snprintf(pat, sizeof pat, "\"%s\":", key);
	const char *p = from ? strstr(from, pat) : NULL;
	return p ? strtoull(p + strlen(pat), NULL, 10) : 0;
}

static const char *json_call(const char *json, unsigned call)
{
	char pat[64];
	const char *calls = strstr(json, "\"calls\":{");
	snprintf(pat, sizeof pat, "\"%s\":{", mt_call_name(call));
	return calls ? strstr(calls, pat) : NULL;
}

static void row(const char *label, const uint64_t *v, int n)
{
	printf("%-22s %14s", label, rt_comma(v[0]));
	for (int i = 1; i < n; i++) {
		char ratio[16] = "-";
		if (v[0])
			snprintf(ratio, sizeof ratio, "%.2fx", (double)v[i] / (double)v[0]);
		printf(" %14s %7s", rt_comma(v[i]), ratio);
	}
	printf("\n");
}

static void top_row(const char *label, const char *key, struct column *cols, int n)
{
	uint64_t v[MAX_ALLOCATORS];
	for (int i = 0; i < n; i++)
		v[i] = json_u64(cols[i].json, key);
	row(label, v, n);
}

/* avg and p99 of each call type the first run made. */
static void call_rows(struct column *cols, int n)
{
	static const char *const keys[] = { "avg", "p99" };
	for (unsigned c = 1; c < MT_CALL_COUNT; c++) {
		if (!mt_op_is_call(c) || !json_call(cols[0].json, c))
			continue;
		for (int k = 0; k < 2; k++) {
			char label[64];
			uint64_t v[MAX_ALLOCATORS];
			snprintf(label, sizeof label, "%s %s", keys[k], mt_call_name(c));
			for (int i = 0; i < n; i++)
				v[i] = json_u64(json_call(cols[i].json, c), keys[k]);
			row(label, v, n);
		}
	}
}

static void table(struct column *cols, int n)
{
	char unit[32] = "cycles";
	const char *u = strstr(cols[0].json, "\"unit\":\"");
	if (u)
		sscanf(u + 8, "%31[a-z]", unit);
	printf("%-22s %14s", "", cols[0].name);
	for (int i = 1; i < n; i++)
		printf(" %14s %7s", cols[i].name, "ratio");
	printf("\n");
	top_row(unit, "elapsed", cols, n);
	top_row("usec wall time", "wall_usec", cols, n);
	top_row("usec user time", "user_usec", cols, n);
	top_row("Kb Max RSS", "max_rss_kb", cols, n);
	top_row("Kb Max Ideal RSS", "ideal_rss_kb", cols, n);
	top_row("Kb held at the end", "held_kb", cols, n);
	top_row("total call time", "total_call_time", cols, n);
	call_rows(cols, n);
	top_row("calls failed now", "failed_now", cols, n);
}

/* --compare --json: the children's objects, in order, as one array. */
static void json_array(struct column *cols, int n)
{
	printf("[");
	for (int i = 0; i < n; i++) {
		size_t len = strcspn(cols[i].json, "\n");
		printf("%s%.*s", i ? "," : "", (int)len, cols[i].json);
	}
	printf("]\n");
}

int rt_compare(const struct rt_cli *cli)
{
	struct column cols[MAX_ALLOCATORS] = { 0 };
	char lib[PATH_MAX], why[PATH_MAX + 256], names[PATH_MAX];
	int n = split(cli->compare, names, sizeof names, cols), status = 0;
	if (n < 0)
		return 2;
	for (int i = 0; i < n; i++) {
		int bad = rt_allocator_check(cols[i].name, cli->tun.n, 1, 1, lib, sizeof lib, why,
					     sizeof why);
		if (bad) {
			fprintf(stderr, "%s: %s\n", prog, why);
			return bad;
		}
	}
	for (int i = 0; i < n && !status; i++)
		status = run_one(cli, &cols[i]);
	if (!status) {
		if (cli->json)
			json_array(cols, n);
		else
			table(cols, n);
	}
	for (int i = 0; i < n; i++)
		free(cols[i].json);
	return status;
}
