/*
 * rec_fork - a process that forks, and a child that execs, each logging
 * its own calls, for the test that every process gets its own complete
 * trace: the parent's, the child's before exec, and the exec'd image's.
 *
 * Usage: rec_fork DIR        parent: logs to DIR/parent.log, forks
 *        rec_fork DIR exec   the exec'd image: logs to DIR/exec.log
 * The child first tries an exec that fails, as a PATH search does: its
 * calls before and after that belong in one trace.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rec_log.h"

static void some_calls(size_t seed)
{
	void *a = malloc(100 + seed);
	rec_log("malloc", 0, a, 0, 100 + seed, 0, 0);
	void *b = calloc(3, 50 + seed);
	rec_log("calloc", 0, b, 3, 50 + seed, 0, 0);
	rec_free(a);
	rec_free(b);
}

static void open_log(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	rec_log_open(path);
	rec_log_mark();
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[2], "exec") == 0) {
		open_log(argv[1], "exec.log");
		some_calls(3);
		return 0;
	}
	if (argc != 2)
		return 2;
	open_log(argv[1], "parent.log");
	some_calls(1);
	pid_t pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		close(rec_log_fd);
		open_log(argv[1], "child.log");
		some_calls(2);
		execl("/nonexistent/rec_fork", argv[0], argv[1], "exec", (char *)NULL);
		some_calls(5);
		execl("/proc/self/exe", argv[0], argv[1], "exec", (char *)NULL);
		_exit(127);
	}
	some_calls(4);
	int status;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	return 0;
}
