/*
 * run_mt - a real multi-threaded program for trace_run's tests to record:
 * producers hand blocks through a bounded queue (a mutex and two condition
 * variables) to consumers, which free them.  At most SLOTS blocks are in
 * the queue, so the program never holds much: a replay in another order
 * than the recording's (producers running ahead) holds far more.
 * Producers also make short-lived blocks of their own with calloc, realloc
 * and posix_memalign, so more than malloc and free is replayed.
 *
 *   run_mt [-p PRODUCERS] [-c CONSUMERS] [-q SLOTS] [-s MAX] [ITEMS]
 *
 * ITEMS blocks per producer (default 5000) of 16 to MAX bytes (default
 * 4000); 4 producers, 4 consumers and 64 slots by default.  The consumers
 * share the blocks out evenly, the first ones taking one more when they
 * do not divide.
 *
 * Built with -fno-builtin so the compiler keeps every call it could prove
 * pointless.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

enum { MAX_THREADS = 64, MAX_SLOTS = 4096 };

static void *queue[MAX_SLOTS];
static unsigned head, tail, items, slots = 64, producers = 4, consumers = 4;
static size_t max_size = 4000;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER, not_empty = PTHREAD_COND_INITIALIZER;

static void put(void *p)
{
	pthread_mutex_lock(&lock);
	while (tail - head == slots)
		pthread_cond_wait(&not_full, &lock);
	queue[tail++ % slots] = p;
	pthread_cond_signal(&not_empty);
	pthread_mutex_unlock(&lock);
}

static void *get(void)
{
	pthread_mutex_lock(&lock);
	while (tail == head)
		pthread_cond_wait(&not_empty, &lock);
	void *p = queue[head++ % slots];
	pthread_cond_signal(&not_full);
	pthread_mutex_unlock(&lock);
	return p;
}

static void *producer(void *arg)
{
	unsigned seed = (unsigned)(size_t)arg;
	for (unsigned i = 0; i < items; i++) {
		size_t size = 16 + (i * 37 + seed * 101) % (max_size - 15);
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
	size_t index = (size_t)arg, total = (size_t)producers * items;
	size_t share = total / consumers + (index < total % consumers);
	for (size_t i = 0; i < share; i++)
		free(get());
	return NULL;
}

static unsigned count(const char *s, unsigned min, unsigned max)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	if (*s < '0' || *s > '9' || *end || v < min || v > max) {
		fprintf(stderr, "run_mt: '%s' is not a number from %u to %u\n", s, min, max);
		exit(2);
	}
	return (unsigned)v;
}

int main(int argc, char **argv)
{
	pthread_t t[2 * MAX_THREADS];
	int c;
	while ((c = getopt(argc, argv, "p:c:q:s:")) != -1) {
		switch (c) {
		case 'p': producers = count(optarg, 1, MAX_THREADS); break;
		case 'c': consumers = count(optarg, 1, MAX_THREADS); break;
		case 'q': slots = count(optarg, 1, MAX_SLOTS); break;
		case 's': max_size = count(optarg, 16, 1u << 30); break;
		default: return 2;
		}
	}
	items = optind < argc ? count(argv[optind], 0, 100000000) : 5000;
	/* producers and consumers interleaved, as they were when there were
	 * always as many of each */
	size_t n = 0;
	for (size_t i = 0; i < producers || i < consumers; i++) {
		if (i < producers && pthread_create(&t[n++], NULL, producer, (void *)(2 * i)))
			goto cannot;
		if (i < consumers && pthread_create(&t[n++], NULL, consumer, (void *)i))
			goto cannot;
	}
	for (size_t i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
cannot:
	fprintf(stderr, "run_mt: cannot start thread %zu\n", n);
	return 1;
}
