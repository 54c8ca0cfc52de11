/*
 * rec_stress - the situations an interposed recorder tends to break in.
 *
 * Usage: rec_stress churn N   N short threads, a few at a time
 *        rec_stress signal    a signal handler that allocates, firing
 *                             while the main thread allocates
 *        rec_stress dlopen    dlopen/dlclose of a library, repeatedly
 * Every mode also allocates malloc(REC_CTOR_SIZE) in a constructor, before
 * main, which the trace must hold.
 */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#define REC_CTOR_SIZE 0xc0c0

static void *ctor_block;

__attribute__((constructor)) static void allocate_early(void)
{
	ctor_block = malloc(REC_CTOR_SIZE);
}

static void *short_thread(void *arg)
{
	void *p = malloc(64 + (size_t)(uintptr_t)arg % 100);
	free(p);
	return NULL;
}

static int churn(long n)
{
	enum { BATCH = 8 };
	for (long i = 0; i < n; i += BATCH) {
		pthread_t th[BATCH];
		int k;
		for (k = 0; k < BATCH && i + k < n; k++)
			if (pthread_create(&th[k], NULL, short_thread, (void *)(uintptr_t)(i + k)))
				return 1;
		while (k--)
			pthread_join(th[k], NULL);
	}
	return 0;
}

static volatile sig_atomic_t handled;

static void on_alarm(int sig)
{
	(void)sig;
	void *p = malloc(48);
	free(p);
	handled++;
}

static int signals(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	setitimer(ITIMER_REAL, &it, NULL);
	void *live[32] = { 0 };
	for (long i = 0; handled < 200; i++) {
		size_t k = (size_t)i % 32;
		free(live[k]);
		live[k] = malloc(16 + (size_t)i % 500);
	}
	setitimer(ITIMER_REAL, &(struct itimerval){ 0 }, NULL);
	for (int k = 0; k < 32; k++)
		free(live[k]);
	return 0;
}

static int dlopens(void)
{
	for (int i = 0; i < 50; i++) {
		void *h = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
		if (!h)
			h = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			fprintf(stderr, "rec_stress: dlopen: %s\n", dlerror());
			return 1;
		}
		void *p = malloc(100);
		dlclose(h);
		free(p);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int rc = 2;
	if (argc == 3 && strcmp(argv[1], "churn") == 0)
		rc = churn(atol(argv[2]));
	else if (argc == 2 && strcmp(argv[1], "signal") == 0)
		rc = signals();
	else if (argc == 2 && strcmp(argv[1], "dlopen") == 0)
		rc = dlopens();
	else
		fprintf(stderr, "usage: rec_stress churn N | signal | dlopen\n");
	free(ctor_block);
	return rc;
}
