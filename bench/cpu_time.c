/*
 * cpu_time - run a command and write what it cost: wall time, peak RSS and
 * CPU time (user + sys of the process and every descendant it waited for),
 * the CPU time to the microsecond.
 *
 * bench/real.sh once took these from /usr/bin/time, which prints CPU time
 * to the hundredth of a second: on git's 1.79 M calls that is 5.6 ns a
 * call for each of user and sys, a step as large as a quarter of the 25 ns
 * a call the recording is allowed.  wait4()'s rusage carries microseconds
 * (the kernel splits the exact run time between user and sys), so this
 * tool reads it and writes one line to FILE:
 *
 *   WALL_NS PEAK_KB CPU_NS
 *
 * Usage: cpu_time FILE COMMAND [ARG]...   (exit status: the command's; a
 * command killed by a signal gives 128 + the signal, as a shell does)
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long long timeval_ns(struct timeval t)
{
	return t.tv_sec * 1000000000LL + t.tv_usec * 1000LL;
}

int main(int argc, char **argv)
{
	if (argc < 3 || strcmp(argv[1], "--help") == 0) {
		fprintf(argc < 3 ? stderr : stdout, "Usage: cpu_time FILE COMMAND [ARG]...\n"
			"Run COMMAND; write \"WALL_NS PEAK_KB CPU_NS\" to FILE.\n");
		return argc < 3 ? 2 : 0;
	}
	FILE *out = fopen(argv[1], "w");
	if (!out) {
		fprintf(stderr, "cpu_time: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	long long start = now_ns();
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "cpu_time: fork: %s\n", strerror(errno));
		return 2;
	}
	if (pid == 0) {
		fclose(out);
		execvp(argv[2], argv + 2);
		fprintf(stderr, "cpu_time: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	int status;
	struct rusage ru;
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR) {
			fprintf(stderr, "cpu_time: waiting for %s: %s\n", argv[2], strerror(errno));
			return 2;
		}
	long long wall = now_ns() - start;
	fprintf(out, "%lld %ld %lld\n", wall, ru.ru_maxrss,
		timeval_ns(ru.ru_utime) + timeval_ns(ru.ru_stime));
	if (fclose(out) != 0) {
		fprintf(stderr, "cpu_time: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
