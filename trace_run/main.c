/*
 * trace_run - replay a workload against an allocator and report what each
 * call cost, how much memory the process held, and how much it needed.
 *
 * This file chooses the process the replay runs in: with --allocator or a
 * GLIBC_TUNABLES setting it re-executes itself with the environment that
 * takes effect only at start-up, then checks that the allocator asked for is
 * really the one malloc resolves to.  --compare hands over to compare.c.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "allocator.h"
#include "compare.h"
#include "options.h"
#include "report.h"
#include "tool_output.h"
#include "workload.h"

static const char *prog = "trace_run";
#define REEXEC_MARK "TRACE_RUN_REEXEC"

/* One line on stderr; returns status. */
static int say(const char *why, int status)
{
	fprintf(stderr, "%s: %s\n", prog, why);
	return status;
}

static void prepend_preload(const char *lib)
{
	const char *old = getenv("LD_PRELOAD");
	char buf[PATH_MAX * 4];
	snprintf(buf, sizeof buf, "%s%s%s", lib, old && *old ? ":" : "", old ? old : "");
	setenv("LD_PRELOAD", buf, 1);
}

/* Runs again with the allocator preloaded and the tunables in the
 * environment; returns only on failure. */
static int reexec(char **argv, const char *lib, const char *tunables)
{
	if (*lib)
		prepend_preload(lib);
	if (tunables)
		setenv("GLIBC_TUNABLES", tunables, 1);
	setenv(REEXEC_MARK, "1", 1);
	execv("/proc/self/exe", argv);
	fprintf(stderr, "%s: re-executing with LD_PRELOAD=%s: %s\n", prog, lib, strerror(errno));
	return 1;
}

/* The preload took effect: malloc comes from lib ("": the C library). */
static int check_allocator(const char *name, const char *lib)
{
	char want[PATH_MAX], have[PATH_MAX], why[PATH_MAX * 2 + 128];
	const char *origin = rt_malloc_origin();
	if (!*lib ? rt_malloc_is_libc()
		  : realpath(lib, want) && realpath(origin, have) && !strcmp(want, have))
		return 0;
	if (*lib)
		snprintf(why, sizeof why, "%s: LD_PRELOAD of %s did not take effect (malloc is %s's)",
			 name, lib, origin);
	else
		snprintf(why, sizeof why, "%s: malloc is %s's, not the C library's", name, origin);
	return say(why, 1);
}

/* Sets up the allocator and tunables; returns -1 (go on), or an exit status. */
static int choose_process(const struct rt_cli *cli, char **argv)
{
	char lib[PATH_MAX], why[PATH_MAX + 256];
	const char *name = cli->allocator ? cli->allocator : "glibc";
	int first = !getenv(REEXEC_MARK);
	int status = rt_allocator_check(name, cli->tun.n, 0, first, lib, sizeof lib, why, sizeof why);
	if (status)
		return say(why, status);
	if (first) {
		const char *tunables = rt_tunables_env(&cli->tun);
		int dropped = cli->allocator ? rt_allocator_unpreload() : 0;
		if (*lib || tunables || dropped)
			return reexec(argv, lib, tunables);
	}
	unsetenv(REEXEC_MARK);
	if (cli->allocator && check_allocator(name, lib))
		return 1;
	if (!cli->allocator && cli->tun.n && !rt_malloc_is_libc()) {
		snprintf(why, sizeof why, "-o sets glibc's malloc, and malloc here is %s's "
			 "(from LD_PRELOAD; --allocator=glibc drops it)", rt_malloc_origin());
		return say(why, 2);
	}
	if (rt_tunables_apply(&cli->tun, why, sizeof why))
		return say(why, 1);
	return -1;
}

int main(int argc, char **argv)
{
	struct rt_cli cli;
	struct rt_result res;
	struct mt_error e;

	/* Past the file-size limit (ulimit -f) a write then fails with EFBIG,
	 * which is reported with the file's name, instead of killing us. */
	signal(SIGXFSZ, SIG_IGN);
	if (rt_parse_options(argc, argv, &cli))
		return 2;
	const char *why;
	if (rt_timer_check(cli.run.timer, &why))
		return say(why, 1);
	if (cli.compare || cli.repeat > 1 || cli.html)
		return mt_stdout_checked(prog, rt_compare(&cli));
	int status = choose_process(&cli, argv);
	if (status >= 0)
		return status;
	if (rt_replay_run(cli.path, &cli.run, &res, &e)) {
		mt_error_print(prog, &e);
		return 1;
	}
	if (mt_wl_incomplete(cli.path, res.source_stop, res.source_stop_records, &e))
		mt_error_print(prog, &e);
	res.allocator = cli.allocator ? cli.allocator : "default";
	res.allocator_lib = rt_malloc_origin();
	if (cli.json)
		rt_report_json(stdout, &res);
	else
		rt_report_text(stdout, &res);
	double ratio;
	if (rt_ideal_differs(&res, &ratio))
		fprintf(stderr, "%s: %s: warning: Max Ideal RSS %s Kb is %.1fx the recorded ideal peak "
			"of %s Kb: the threads ran in another order than recorded (see --window)\n",
			prog, cli.path, rt_comma((res.ideal_peak + 1023) / 1024), ratio,
			rt_comma((res.header_ideal_peak + 1023) / 1024));
	return mt_stdout_checked(prog, 0);
}
