/*
 * rec_known - a known sequence of malloc-family calls on 4 threads, logged
 * (rec_log.h) for rec_expect to hold the trace against.
 *
 * Usage: rec_known LOG   (run under the recorder)
 *
 * Every call type and argument shape the recorder must get right: realloc
 * from NULL, growing, shrinking and to 0; every memalign variant, including
 * a failing posix_memalign; calloc; reallocarray; a malloc too big to
 * succeed; free(NULL); a block big enough to be mmapped; blocks of the
 * threads' own arenas; and blocks freed by another thread than the one
 * that allocated them.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <malloc.h>

#include "rec_log.h"

#define THREADS 4

static pthread_barrier_t barrier;
static void *handoff[THREADS];

static void *logged_malloc(size_t size)
{
	void *p = malloc(size);
	rec_log("malloc", 0, p, 0, size, 0, 0);
	return p;
}

static void *logged_realloc(void *old, size_t size)
{
	uintptr_t in = (uintptr_t)old;
	void *p = realloc(old, size);
	rec_log("realloc", in, p, 0, size, 0, 0);
	return p;
}

static void aligned_calls(size_t k, void **keep)
{
	keep[0] = memalign(64, 100 + k);
	rec_log("memalign", 0, keep[0], 0, 100 + k, 64, 0);

	void *p = NULL;
	int rc = posix_memalign(&p, 128, 200 + k);
	rec_log("posix_memalign", 0, rc ? NULL : p, 0, 200 + k, 128, rc);
	keep[1] = p;

	void *bad = NULL;
	rc = posix_memalign(&bad, 24, 16); /* not a power of two: EINVAL */
	rec_log("posix_memalign", 0, NULL, 0, 16, 24, rc);

	keep[2] = aligned_alloc(256, 512);
	rec_log("aligned_alloc", 0, keep[2], 0, 512, 256, 0);
	keep[3] = valloc(300 + k);
	rec_log("valloc", 0, keep[3], 0, 300 + k, 0, 0);
	keep[4] = pvalloc(5000 + k);
	rec_log("pvalloc", 0, keep[4], 0, 5000 + k, 0, 0);
}

static void realloc_calls(size_t k, void **keep)
{
	void *p = logged_realloc(NULL, 50 + k);   /* from NULL */
	p = logged_realloc(p, 5000 + k);          /* grow */
	p = logged_realloc(p, 20 + k);            /* shrink */
	logged_realloc(p, 0);                     /* to 0: glibc frees, returns NULL */

	keep[0] = reallocarray(NULL, 3, 40 + k);
	rec_log("reallocarray", 0, keep[0], 3, 40 + k, 0, 0);
	uintptr_t in = (uintptr_t)keep[0];
	void *q = reallocarray(keep[0], 5, 40 + k);
	rec_log("reallocarray", in, q, 5, 40 + k, 0, 0);
	keep[0] = q;
}

static void *worker(void *arg)
{
	size_t k = (size_t)(uintptr_t)arg;
	void *keep[8];

	rec_log_mark();
	void *m = logged_malloc(100 + k);
	keep[5] = calloc(10, 8 + k);
	rec_log("calloc", 0, keep[5], 10, 8 + k, 0, 0);
	realloc_calls(k, keep + 6);
	aligned_calls(k, keep);

	void *huge = malloc(SIZE_MAX / 2); /* fails */
	rec_log("malloc", 0, huge, 0, SIZE_MAX / 2, 0, 0);
	rec_free(NULL);
	rec_free(logged_malloc((4 << 20) + k)); /* above any mmap threshold */

	handoff[k] = logged_malloc(1000 + k);
	pthread_barrier_wait(&barrier);
	rec_free(handoff[(k + 1) % THREADS]); /* allocated by another thread */

	rec_free(m);
	for (int i = 0; i < 7; i++)
		rec_free(keep[i]);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: rec_known LOG\n");
		return 2;
	}
	rec_log_open(argv[1]);
	pthread_t th[THREADS];
	pthread_barrier_init(&barrier, NULL, THREADS);
	for (uintptr_t k = 0; k < THREADS; k++)
		if (pthread_create(&th[k], NULL, worker, (void *)k))
			return 2;
	for (int k = 0; k < THREADS; k++)
		pthread_join(th[k], NULL);
	return 0;
}
