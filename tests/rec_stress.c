/*
 * rec_stress - the situations an interposed recorder tends to break in.
 *
 * Usage: rec_stress churn N   N short threads, a few at a time; then
 *                             prints "mappings M", the lines of
 *                             /proc/self/maps (a leak per thread shows)
 *        rec_stress signal    a signal handler that allocates, firing
 *                             while the main thread is being recorded
 *        rec_stress dlopen    dlopen/dlclose of a library, repeatedly
 *        rec_stress fds FILE  a daemon's start: closes every descriptor
 *                             above 2, opens FILE (append) under every
 *                             number from 3 to 127, writes "fd N" lines
 *                             through each, and allocates enough to need
 *                             new trace windows in between
 *        rec_stress cut FIFO  allocates, waits for a byte from FIFO (the
 *                             test truncates the trace meanwhile), then
 *                             allocates into windows past the cut; prints
 *                             "allocated N" at the end
 *        rec_stress bus FILE  a SIGBUS of the program's own: stores into
 *                             a mapping of FILE after truncating it
 * Every mode also allocates malloc(REC_CTOR_SIZE) in a constructor, before
 * main, which the trace must hold.
 */
#include "config.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>

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
	FILE *maps = fopen("/proc/self/maps", "r");
	int lines = 0;
	for (int c; maps && (c = getc(maps)) != EOF;)
		lines += c == '\n';
	if (maps)
		fclose(maps);
	printf("mappings %d\n", lines);
	return 0;
}

/* Many calls of one thread: enough records for several trace windows. */
static void busy_allocating(long calls)
{
	void *live[64] = { 0 };
	for (long i = 0; i < calls; i++) {
		free(live[i % 64]);
		live[i % 64] = malloc(8 + (size_t)i % 300);
	}
	for (int k = 0; k < 64; k++)
		free(live[k]);
}

static int say_fd(int fd)
{
	char line[32];
	int n = snprintf(line, sizeof line, "fd %d\n", fd);
	return write(fd, line, (size_t)n) == n ? 0 : 1;
}

static int fds(const char *file)
{
	enum { LAST_FD = 127 };
	busy_allocating(100000);
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	for (int fd = 3; fd <= LAST_FD; fd++)
		if (open(file, O_WRONLY | O_APPEND | O_CREAT, 0644) != fd) {
			fprintf(stderr, "rec_stress: %s did not open as fd %d\n", file, fd);
			return 1;
		}
	int rc = 0;
	for (int fd = 3; fd <= LAST_FD; fd++)
		rc |= say_fd(fd);
	busy_allocating(1000000);
	for (int fd = 3; fd <= LAST_FD; fd++)
		rc |= say_fd(fd);
	return rc;
}

static int cut(const char *fifo)
{
	busy_allocating(200000);
	char byte;
	int fd = open(fifo, O_RDONLY);
	if (fd < 0 || read(fd, &byte, 1) != 1) {
		perror(fifo);
		return 1;
	}
	close(fd);
	busy_allocating(1000000);
	printf("allocated %d\n", 1200000);
	return 0;
}

static int bus(const char *file)
{
	int fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, 4096) != 0) {
		perror(file);
		return 1;
	}
	volatile char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED || ftruncate(fd, 0) != 0) {
		perror(file);
		return 1;
	}
	p[0] = 1; /* SIGBUS: the page is past the file's end */
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

/*
 * The handler allocates while the main thread is inside the recorder.
 * glibc's malloc itself must not be interrupted by a handler that
 * allocates (its per-thread cache is not reentrant), so the main thread
 * only frees NULL: the recorder records it, glibc returns at once.
 */
static int signals(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	setitimer(ITIMER_REAL, &it, NULL);
	while (handled < 200)
		free(NULL);
	setitimer(ITIMER_REAL, &(struct itimerval){ 0 }, NULL);
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
	else if (argc == 3 && strcmp(argv[1], "fds") == 0)
		rc = fds(argv[2]);
	else if (argc == 3 && strcmp(argv[1], "cut") == 0)
		rc = cut(argv[2]);
	else if (argc == 3 && strcmp(argv[1], "bus") == 0)
		rc = bus(argv[2]);
	else
		fprintf(stderr, "usage: rec_stress churn N | signal | dlopen | fds FILE | cut FIFO | bus FILE\n");
	free(ctor_block);
	return rc;
}
