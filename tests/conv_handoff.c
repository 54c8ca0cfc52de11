/*
 * conv_handoff.c - threads that hand blocks to each other through atomics
 * alone, for the real-trace tests: no lock orders their calls, so the only
 * evidence of who freed what after whom is the trace's timestamps, taken on
 * different cores.
 *
 * Each of 4 threads allocates a block, swaps it into one of 64 shared slots
 * with atomic_exchange and frees (or first reallocates) whatever block it
 * got back, usually another thread's.  Addresses are reused at once by the
 * allocator, so a converter that pairs a free with the wrong allocation
 * reports double frees that never happened.
 *
 * Usage: conv_handoff [ROUNDS]  (per thread, default 20000).  Exit 0.
 */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#define THREADS 4
#define SLOTS 64

static _Atomic(void *) slot[SLOTS];
static long rounds = 20000;

static void *work(void *arg)
{
	uint32_t seed = (uint32_t)(uintptr_t)arg * 7919u + 1;
	for (long i = 0; i < rounds; i++) {
		seed = seed * 1103515245u + 12345u;
		void *mine = malloc(8 + (seed >> 20) % 500);
		void *got = atomic_exchange(&slot[(seed >> 8) % SLOTS], mine);
		if (got && seed % 8 == 0) {
			void *moved = realloc(got, 600 + seed % 64);
			if (moved)
				got = moved;
		}
		free(got);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		rounds = atol(argv[1]);
	pthread_t t[THREADS];
	for (uintptr_t i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, work, (void *)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < SLOTS; i++)
		free(atomic_exchange(&slot[i], NULL));
	return 0;
}
