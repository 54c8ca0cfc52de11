/*
 * run_probe.so - preloaded into trace_run to see what its options did to
 * glibc's malloc, where the replay's figures cannot show it: every mallopt
 * call (passed on to glibc), the number of malloc_trim calls, the
 * GLIBC_TUNABLES the process started with, and glibc's arenas at exit
 * (malloc_info's XML, one <heap nr=...> element per arena).  It defines no
 * malloc, so trace_run keeps it in LD_PRELOAD and it sees the process that
 * replays.
 *
 * At exit it writes, to the file named by RUN_PROBE_LOG:
 *   mallopt PARAM VALUE     one line per call, in order
 *   trims N
 *   tunables VALUE          (or "tunables -" when unset)
 *   malloc_info's XML
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static _Atomic unsigned long trims;
static int opts[32][2], nopts;
static char tunables[1024] = "-";

__attribute__((constructor)) static void start(void)
{
	const char *t = getenv("GLIBC_TUNABLES");
	if (t)
		snprintf(tunables, sizeof tunables, "%s", t);
}

int mallopt(int param, int value)
{
	int (*real)(int, int) = (int (*)(int, int))dlsym(RTLD_NEXT, "mallopt");
	if (nopts < 32) {
		opts[nopts][0] = param;
		opts[nopts++][1] = value;
	}
	return real(param, value);
}

int malloc_trim(size_t pad)
{
	int (*real)(size_t) = (int (*)(size_t))dlsym(RTLD_NEXT, "malloc_trim");
	trims++;
	return real(pad);
}

__attribute__((destructor)) static void finish(void)
{
	const char *path = getenv("RUN_PROBE_LOG");
	FILE *log = path ? fopen(path, "w") : NULL;
	if (!log)
		return;
	for (int i = 0; i < nopts; i++)
		fprintf(log, "mallopt %d %d\n", opts[i][0], opts[i][1]);
	fprintf(log, "trims %lu\ntunables %s\n", (unsigned long)trims, tunables);
	malloc_info(0, log);
	fclose(log);
}
