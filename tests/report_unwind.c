/*
 * report_unwind.c - stacks that test the recorder's own walker against
 * libunwind's (t-report-unwind.sh): stacks that grow and shrink between
 * consecutive calls (the walker reuses the outer part of the last one),
 * deeper than the recorded depth (64) and then shallower again, a frame
 * whose CFA is rbp-based (alloca), a signal handler that allocates (a
 * signal frame: the walker hands that stack to libunwind), and a second
 * thread doing the same.  Deterministic: the same calls in every run.
 */
#include <alloca.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static void *volatile sink;

static __attribute__((noinline)) void leaf(size_t n)
{
	sink = malloc(n);
	free(sink);
}

/* depth frames of recursion, a block at every level on the way back. */
static __attribute__((noinline)) void climb(int depth, size_t n)
{
	if (depth > 0)
		climb(depth - 1, n + 1);
	leaf(n);
	sink = malloc(n + 8);
	free(sink);
}

/* A frame that addresses its locals through rbp: its CFA is rbp-based. */
static __attribute__((noinline)) void with_alloca(size_t n)
{
	char *buf = alloca(n + 16);
	memset(buf, 1, n + 16);
	sink = buf;
	climb(3, n);
}

static void on_signal(int sig)
{
	(void)sig;
	leaf(77);
}

static void *work(void *arg)
{
	int rounds = *(int *)arg;
	for (int r = 0; r < rounds; r++) {
		climb(r % 90, 16);   /* 0..89 levels: past 64 and back */
		with_alloca((size_t)r % 200);
		if (r % 25 == 0)
			raise(SIGUSR1);
	}
	return NULL;
}

int main(void)
{
	int rounds = 200;
	signal(SIGUSR1, on_signal);
	work(&rounds);
	pthread_t t;
	if (pthread_create(&t, NULL, work, &rounds) != 0)
		return 1;
	pthread_join(t, NULL);
	return 0;
}
