/*
 * rec_sparse - a program that is one thread, then two, then one again in a
 * forked child, for the test of the recorder's sparse stamps
 * (t-rec-sparse): while only one thread of a process has recorded, it
 * stamps one record in 16; once a second thread has, the owner table's
 * rule applies to every thread; a forked child, one thread, is sparse
 * again (sdt/recorder.h).
 *
 * Each phase is opened by a malloc of a marker size no library asks for,
 * and makes CALLS calls of every common kind (malloc/free pairs that
 * reuse a block at once, calloc, realloc, blocks kept a while):
 *   SPARSE_ALONE  the main thread, before any other thread exists
 *   SPARSE_SECOND a second thread, joined before the next phase
 *   SPARSE_AFTER  the main thread again, after the join
 *   SPARSE_CHILD  the main thread of a forked child, which then exits
 *
 * Usage: rec_sparse CALLS   exits 0 when the child did.
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define SPARSE_ALONE 0x5a5a1u
#define SPARSE_SECOND 0x5a5a2u
#define SPARSE_AFTER 0x5a5a3u
#define SPARSE_CHILD 0x5a5a4u

static long calls;

/* A phase: its marker, then about `calls` calls of every kind. */
static void *phase(void *marker)
{
	free(malloc((size_t)(uintptr_t)marker));
	void *kept[32] = { 0 };
	uint32_t seed = (uint32_t)(uintptr_t)marker;
	for (long i = 0; i < calls; i += 4) {
		seed = seed * 1103515245u + 12345u;
		size_t size = 8 + (seed >> 16) % 600;
		free(malloc(size));
		void *p = seed & 1 ? calloc(1, size) : malloc(size);
		if (seed % 5 == 0)
			p = realloc(p, size * 3);
		unsigned k = (seed >> 8) % 32;
		free(kept[k]);
		kept[k] = p;
	}
	for (unsigned k = 0; k < 32; k++)
		free(kept[k]);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 2 || (calls = atol(argv[1])) <= 0)
		return 2;
	phase((void *)(uintptr_t)SPARSE_ALONE);
	pthread_t second;
	if (pthread_create(&second, NULL, phase, (void *)(uintptr_t)SPARSE_SECOND) ||
	    pthread_join(second, NULL))
		return 1;
	phase((void *)(uintptr_t)SPARSE_AFTER);
	pid_t child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		phase((void *)(uintptr_t)SPARSE_CHILD);
		_exit(0);
	}
	int status;
	return waitpid(child, &status, 0) == child && WIFEXITED(status) && !WEXITSTATUS(status)
		       ? 0
		       : 1;
}
