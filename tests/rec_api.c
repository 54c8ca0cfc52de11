/*
 * rec_api - the <mtrace.h> control API, called from several threads while
 * others allocate.  Linked with -lmtrace; MTRACE_CTL_FILE starts recording.
 *
 * Phases, each in its own trace file:
 *   1. workers allocate while every thread calls mtrace_sync; after the
 *      join, mtrace_sync's count is printed ("synced N") and mtrace_reset
 *      ends the file - so the first file must hold exactly N records;
 *   2. calls made while paused (malloc(PAUSED_SIZE)) must be missing, the
 *      one after mtrace_unpause (malloc(UNPAUSED_SIZE)) present; then a
 *      worker stops recording while the others still allocate;
 *   3. mtrace_start opens a third file, closed at exit.
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mtrace.h"

#define PAUSED_SIZE 0x9a05e
#define UNPAUSED_SIZE 0x9a05f
#define WORKERS 3

static int stop_in_worker;

static void *worker(void *arg)
{
	int id = (int)(uintptr_t)arg;
	void *live[16] = { 0 };
	for (int i = 0; i < 20000; i++) {
		free(live[i % 16]);
		live[i % 16] = malloc(16 + (size_t)(i * 31 + id) % 700);
		if (i % 5000 == 0)
			mtrace_sync();
		if (stop_in_worker && id == 0 && i == 10000)
			mtrace_stop();
	}
	for (int k = 0; k < 16; k++)
		free(live[k]);
	return NULL;
}

static void run_workers(void)
{
	pthread_t th[WORKERS];
	for (uintptr_t k = 0; k < WORKERS; k++)
		pthread_create(&th[k], NULL, worker, (void *)k);
	for (int k = 0; k < WORKERS; k++)
		pthread_join(th[k], NULL);
}

static void say(const char *what, unsigned long long n)
{
	char line[64];
	int len = snprintf(line, sizeof line, "%s %llu\n", what, n);
	if (write(1, line, (size_t)len) != len)
		exit(2);
}

int main(void)
{
	if (mtrace_start() != 0) /* already started by MTRACE_CTL_FILE: a no-op */
		return 1;
	run_workers();
	say("synced", mtrace_sync());
	if (mtrace_reset() != 0)
		return 1;

	if (mtrace_pause() != 0)
		return 1;
	for (int i = 0; i < 10; i++)
		free(malloc(PAUSED_SIZE));
	if (mtrace_unpause() != 0)
		return 1;
	free(malloc(UNPAUSED_SIZE));
	stop_in_worker = 1;
	run_workers();
	if (mtrace_pause() != -1) /* stopped: nothing to pause */
		return 1;

	if (mtrace_start() != 0)
		return 1;
	run_workers();
	return 0;
}
