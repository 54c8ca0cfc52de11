/*
 * maxrss.c - run a command and write its peak resident size, so tests can
 * hold a program's memory to a bound without depending on /usr/bin/time.
 *
 * Usage: maxrss FILE COMMAND [ARG]...
 * Writes COMMAND's peak RSS in KiB (getrusage's ru_maxrss, through wait4)
 * to FILE and exits with COMMAND's status (128 + N if a signal N ended it,
 * 127 if it could not be run).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: maxrss FILE COMMAND [ARG]...\n");
		return 2;
	}
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "maxrss: cannot fork: %s\n", strerror(errno));
		return 127;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "maxrss: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	int status;
	struct rusage ru;
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR) {
			fprintf(stderr, "maxrss: wait4: %s\n", strerror(errno));
			return 127;
		}
	FILE *f = fopen(argv[1], "w");
	if (!f || fprintf(f, "%ld\n", ru.ru_maxrss) < 0 || fclose(f) != 0) {
		fprintf(stderr, "maxrss: %s: cannot write: %s\n", argv[1], strerror(errno));
		return 127;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
