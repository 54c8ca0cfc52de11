/*
 * mtrace-record - run a program with the malloc recorder preloaded, the way
 * `heaptrack prog` does: the user names the trace file and gets the
 * program's exit status back; the environment plumbing is ours.
 *
 * It stays the program's parent rather than exec'ing it, because what the
 * user means by "the program" is known only at the end: `python3` may be a
 * shim that runs `env`, which execs a shell script, which execs the real
 * interpreter.  Every image of every process writes its own numbered file
 * and lists it (MTRACE_RECORD_LIST, sdt/rec_list.h); when the started
 * process is gone, the trace of the last image it became is renamed to
 * -o's FILE and one table names them all (record_files.c).
 *
 * The recorder library goes in front of any LD_PRELOAD already set, so an
 * allocator preloaded there (jemalloc...) becomes the one below the recorder.
 * MTRACE_LIBDIR overrides where the library is looked for (tests use it).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record_files.h"
#include "tool_output.h"

static const char *prog = "mtrace-record";

struct options {
	const char *out;   /* absolute -o FILE, or NULL */
	int quiet;
	int no_children;
	const char *stacks; /* --stacks: frames per stack, as MTRACE_STACKS takes it */
	char **argv;       /* the program and its arguments */
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: %s [-o FILE] [-q] [--no-children] [--stacks[=N]] [--] PROGRAM [ARG]...\n"
		"Run PROGRAM with every malloc-family call recorded.\n"
		"\n"
		"  -o, --output FILE  the trace of the program PROGRAM's process became last\n"
		"                     (behind wrappers such as env or a script that execs)\n"
		"                     is FILE; other images and processes write FILE.PID,\n"
		"                     FILE.PID.2... (default: /tmp/mtrace.out.PID..., or\n"
		"                     $MTRACE_CTL_FILE.PID...)\n"
		"      --no-children  record PROGRAM's process alone, not the processes\n"
		"                     it starts\n"
		"      --stacks[=N]   record the call stack of every allocating call, up\n"
		"                     to N frames (default 64, at most 256), for\n"
		"                     mtrace-report(1)\n"
		"  -q, --quiet        no table of the traces written at the end\n"
		"  -h, --help         show this help and exit\n"
		"  -V, --version      show the version and exit\n"
		"\n"
		"Exit status: PROGRAM's (killed by a signal: the same signal), or 2 for a\n"
		"usage error, 127 if PROGRAM is not found.  Read the trace with mtrace-dump(1).\n",
		prog);
}

static void die(int status, const char *what, const char *why)
{
	fprintf(stderr, "%s: %s%s\n", prog, what, why);
	exit(status);
}

static const char *absolute(const char *path)
{
	static char buf[PATH_MAX];
	if (path[0] == '/')
		return path;
	/* The program may chdir before it forks. */
	if (!getcwd(buf, sizeof buf) || strlen(buf) + 1 + strlen(path) >= sizeof buf)
		die(2, path, ": cannot make this name absolute");
	strcat(strcat(buf, "/"), path);
	return buf;
}

static void check_output_dir(const char *out)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", out);
	char *slash = strrchr(dir, '/');
	*(slash == dir ? slash + 1 : slash) = 0;
	if (access(dir, W_OK | X_OK) != 0) {
		fprintf(stderr, "%s: %s: directory '%s' is not writable\n", prog, out, dir);
		exit(2);
	}
}

/* --stacks's N, checked here so that a bad one is a usage error. */
static const char *stack_depth(const char *arg)
{
	if (!arg)
		return "64";
	char *end;
	errno = 0;
	unsigned long n = strtoul(arg, &end, 10);
	const char *bad = !*arg || *end || errno || *arg == '-' || *arg == '+'
				  ? "needs a number of frames"
			  : n < 1 || n > 256 ? "takes 1 to 256 frames"
					     : NULL;
	if (bad) {
		fprintf(stderr, "%s: option '--stacks' %s, not '%s'\n", prog, bad, arg);
		exit(2);
	}
	return arg;
}

static void parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "no-children", no_argument, NULL, 'C' },
		{ "stacks", optional_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	*o = (struct options){ 0 };
	opterr = 0;
	/* '+': options end at the program's name, whose own options are its. */
	while ((c = getopt_long(argc, argv, "+:o:qhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!*optarg)
				die(2, "option '-o' needs a file name; try 'mtrace-record --help'", "");
			o->out = optarg;
			break;
		case 'q': o->quiet = 1; break;
		case 'C': o->no_children = 1; break;
		case 'S': o->stacks = stack_depth(optarg); break;
		case 'h': usage(stdout); exit(mt_stdout_checked(prog, 0));
		case 'V':
			printf("%s (%s) %s\n", prog, PACKAGE_NAME, PACKAGE_VERSION);
			exit(mt_stdout_checked(prog, 0));
		case ':':
			fprintf(stderr, "%s: option '%s' needs a file name; try '%s --help'\n", prog,
				argv[optind - 1], prog);
			exit(2);
		default:
			fprintf(stderr, "%s: unknown option '%s'; try '%s --help'\n", prog,
				argv[optind - 1], prog);
			exit(2);
		}
	}
	if (optind == argc)
		die(2, "no program given; try 'mtrace-record --help'", "");
	o->argv = argv + optind;
	if (o->out) {
		o->out = absolute(o->out);
		check_output_dir(o->out);
	}
}

/* Would execvp find it?  Checked before forking so that a typo gets one
 * clean line and status 127, with no table. */
static int findable(const char *name)
{
	if (strchr(name, '/'))
		return access(name, X_OK) == 0;
	const char *path = getenv("PATH");
	for (const char *p = path ? path : "/bin:/usr/bin"; ; p++) {
		const char *end = strchrnul(p, ':');
		char full[PATH_MAX];
		struct stat st;
		int n = snprintf(full, sizeof full, "%.*s%s%s", (int)(end - p), p,
				 end == p ? "" : "/", name);
		if (n < (int)sizeof full && stat(full, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(full, X_OK) == 0)
			return 1;
		if (!*end)
			return 0;
		p = end;
	}
}

static const char *recorder_library(void)
{
	static char lib[PATH_MAX];
	const char *dir = getenv("MTRACE_LIBDIR");
	snprintf(lib, sizeof lib, "%s/libmtracectl.so", dir ? dir : MT_LIBDIR);
	if (access(lib, R_OK) != 0)
		die(2, lib, ": recorder library not found (is MTRACE_LIBDIR right?)");
	return lib;
}

static char list_path[PATH_MAX];

static void make_list(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(list_path, sizeof list_path, "%s/mtrace-record.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	int fd = mkostemp(list_path, O_CLOEXEC);
	if (fd < 0)
		die(2, list_path, ": cannot create the list of traces");
	close(fd);
}

/* ---- the child ---- */

static struct sigaction saved_int, saved_quit;

static void set_env(const char *name, const char *value)
{
	if (setenv(name, value, 1) != 0)
		die(126, name, ": cannot set this variable");
}

static void exec_program(const struct options *o, const char *lib, const sigset_t *mask)
{
	sigaction(SIGINT, &saved_int, NULL);
	sigaction(SIGQUIT, &saved_quit, NULL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	sigprocmask(SIG_SETMASK, mask, NULL);
	const char *old = getenv("LD_PRELOAD");
	char preload[2 * PATH_MAX];
	snprintf(preload, sizeof preload, "%s%s%s", lib, old && *old ? " " : "", old ? old : "");
	set_env("LD_PRELOAD", preload);
	set_env("MTRACE_RECORD_LIST", list_path);
	set_env("MTRACE_CTL_QUIET", "1"); /* the table replaces every process's lines */
	unsetenv("MTRACE_RECORD_ONLY");
	if (o->out)
		set_env("MTRACE_CTL_FILE", o->out);
	if (o->stacks)
		set_env("MTRACE_STACKS", o->stacks);
	if (o->no_children) {
		char pid[24];
		snprintf(pid, sizeof pid, "%ld", (long)getpid());
		set_env("MTRACE_RECORD_ONLY", pid);
	}
	execvp(o->argv[0], o->argv);
	fprintf(stderr, "%s: %s: %s\n", prog, o->argv[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

/* ---- the parent ---- */

static volatile pid_t child;

/* kill(1) and timeout(1) signal us, not the program: pass it on.  Keyboard
 * signals reach the whole process group, the program included. */
static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

static int wait_program(void)
{
	int status;
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR)
			die(1, "waiting for the program: ", strerror(errno));
	return status;
}

/* Leave as the program did: its status, or death by its signal. */
static void exit_like(int status)
{
	if (WIFEXITED(status))
		exit(WEXITSTATUS(status));
	int sig = WTERMSIG(status);
	fflush(NULL);
	signal(sig, SIG_DFL);
	sigset_t one;
	sigemptyset(&one);
	sigaddset(&one, sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	raise(sig);
	exit(128 + sig); /* reached only for a signal whose default is not to end a process */
}

int main(int argc, char **argv)
{
	struct options o;
	parse_options(argc, argv, &o);
	const char *lib = recorder_library();
	if (!findable(o.argv[0]))
		die(127, o.argv[0], ": command not found");
	make_list();

	/* The signals to pass on wait, blocked, until the child's pid is known. */
	struct sigaction ignore = { .sa_handler = SIG_IGN }, pass = { .sa_handler = forward };
	sigset_t passed, mask;
	sigemptyset(&passed);
	sigaddset(&passed, SIGTERM);
	sigaddset(&passed, SIGHUP);
	sigprocmask(SIG_BLOCK, &passed, &mask);
	sigaction(SIGINT, &ignore, &saved_int);
	sigaction(SIGQUIT, &ignore, &saved_quit);
	sigaction(SIGTERM, &pass, NULL);
	sigaction(SIGHUP, &pass, NULL);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		unlink(list_path);
		die(1, "cannot start the program: ", strerror(errno));
	}
	if (pid == 0)
		exec_program(&o, lib, &mask);
	child = pid;
	sigprocmask(SIG_SETMASK, &mask, NULL);
	int status = wait_program();

	struct record_files files;
	record_files_read(&files, list_path, pid);
	unlink(list_path);
	record_files_name_output(&files, o.out, prog);
	if (!o.quiet)
		record_files_print(stderr, &files, o.out, prog);
	record_files_free(&files);
	exit_like(status);
}
