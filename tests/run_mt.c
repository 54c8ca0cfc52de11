/*
 * run_mt - a real multi-threaded program for trace_run's tests to record:
 * 4 producers hand blocks through a 64-slot queue (a mutex and two
 * condition variables) to 4 consumers, which free them.  At most 64 blocks
 * are in the queue, so the program never holds much: a replay in another
 * order than the recording's (producers running ahead) holds far more.
 * Producers also make short-lived blocks of their own with calloc, realloc
 * and posix_memalign, so more than malloc and free is replayed.
 *
 *   run_mt [ITEMS]   items per producer (default 5000)
 *
 * Built with -fno-builtin so the compiler keeps every call it could prove
 * pointless.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PAIRS = 4, SLOTS = 64 };

static void *queue[SLOTS];
static unsigned head, tail, items;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER, not_empty = PTHREAD_COND_INITIALIZER;

static void put(void *p)
{
	pthread_mutex_lock(&lock);
	while (tail - head == SLOTS)
		pthread_cond_wait(&not_full, &lock);
	queue[tail++ % SLOTS] = p;
	pthread_cond_signal(&not_empty);
	pthread_mutex_unlock(&lock);
}

static void *get(void)
{
	pthread_mutex_lock(&lock);
	while (tail == head)
		pthread_cond_wait(&not_empty, &lock);
	void *p = queue[head++ % SLOTS];
	pthread_cond_signal(&not_full);
	pthread_mutex_unlock(&lock);
	return p;
}

static void *producer(void *arg)
{
	unsigned seed = (unsigned)(size_t)arg;
	for (unsigned i = 0; i < items; i++) {
		size_t size = 16 + (i * 37 + seed * 101) % 4000;
		char *p = malloc(size);
		memset(p, 1, size);
		char *tmp = calloc(3, 50);
		tmp = realloc(tmp, 100 + i % 300);
		void *aligned = NULL;
		if (posix_memalign(&aligned, 64, 200) == 0)
			free(aligned);
		free(tmp);
		put(p);
	}
	return NULL;
}

static void *consumer(void *arg)
{
	for (unsigned i = 0; i < items; i++)
		free(get());
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2 * PAIRS];
	items = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 5000;
	for (size_t i = 0; i < 2 * PAIRS; i++)
		if (pthread_create(&t[i], NULL, i % 2 ? consumer : producer, (void *)i)) {
			fprintf(stderr, "run_mt: cannot start thread %zu\n", i);
			return 1;
		}
	for (size_t i = 0; i < 2 * PAIRS; i++)
		pthread_join(t[i], NULL);
	return 0;
}
