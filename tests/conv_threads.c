/*
 * conv_threads.c - a small multi-threaded program for the real-trace tests:
 * one producer allocates blocks that three consumers reallocate and free, so
 * its trace has handoffs between threads that a workload must keep in order.
 *
 * Usage: conv_threads [ITEMS]  (default 3000).  Prints nothing; exit 0.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define CONSUMERS 3
#define SLOTS 64

static struct {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	void *slot[SLOTS];
	unsigned head, tail;
	int done;
} q = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, { 0 }, 0, 0, 0 };

static void put(void *p)
{
	pthread_mutex_lock(&q.lock);
	while (q.tail - q.head == SLOTS)
		pthread_cond_wait(&q.changed, &q.lock);
	q.slot[q.tail++ % SLOTS] = p;
	pthread_cond_broadcast(&q.changed);
	pthread_mutex_unlock(&q.lock);
}

static void *get(void)
{
	void *p = NULL;
	pthread_mutex_lock(&q.lock);
	while (q.tail == q.head && !q.done)
		pthread_cond_wait(&q.changed, &q.lock);
	if (q.tail != q.head)
		p = q.slot[q.head++ % SLOTS];
	pthread_cond_broadcast(&q.changed);
	pthread_mutex_unlock(&q.lock);
	return p;
}

static void *consume(void *arg)
{
	void *p;
	while ((p = get())) {
		void *bigger = realloc(p, 200 + (size_t)arg);
		if (bigger)
			p = bigger;
		free(p);
		free(malloc(16));
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long items = argc > 1 ? atol(argv[1]) : 3000;
	pthread_t t[CONSUMERS];
	for (long i = 0; i < CONSUMERS; i++)
		pthread_create(&t[i], NULL, consume, (void *)i);
	for (long i = 0; i < items; i++) {
		char *p = malloc(8 + (size_t)(i % 120));
		memset(p, 1, 8);
		put(p);
	}
	pthread_mutex_lock(&q.lock);
	q.done = 1;
	pthread_cond_broadcast(&q.changed);
	pthread_mutex_unlock(&q.lock);
	for (int i = 0; i < CONSUMERS; i++)
		pthread_join(t[i], NULL);
	return 0;
}
