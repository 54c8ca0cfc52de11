/*
 * rec_storm - many threads calling the malloc family as fast as they can
 * while the process forks, its children exec a traced image, and every
 * thread is hit by a storm of signals: the test that the recorder loses
 * nothing, counted exactly, per thread and per process.
 *
 * Usage: rec_storm LOG THREADS CALLS FORKS   the parent
 *        rec_storm LOG exec CALLS            the image a child execs
 *        rec_storm LOG turn THREADS CALLS    THREADS threads started and
 *                                            joined one after another, CALLS
 *                                            calls each, no signal, no fork
 *
 * Each thread that counts makes its calls between two markers, a
 * malloc(REC_SPAN_BEGIN) and a malloc(REC_SPAN_END), and makes no other
 * call in between; rec_count counts the trace's records between the
 * markers.  At its end the thread appends "PID TID CALLS" to LOG (one
 * write(2), O_APPEND), which must match.  Counting threads: the THREADS
 * workers (CALLS calls each); the main thread of each of the FORKS
 * children, before it execs (CALLS / 64 calls); the exec'd image's main
 * thread (CALLS / 64).  The main thread forks while the workers run.
 *
 * Signals: a thread sends SIGUSR1 to the workers round robin until they are
 * done; the handler (installed without SA_RESTART, so interrupted system
 * calls fail with EINTR) only counts.  A worker starts its calls once it
 * has been hit, so every worker is interrupted however the threads are
 * scheduled, and the main thread forks only once all of them have started.  Standard output gets one line that depends on the arguments
 * only, so a traced run can be compared with an untraced one.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rec_storm.h"

enum { MAX_THREADS = 64, LIVE = 256 };

static const char *log_path;
static volatile sig_atomic_t hits[MAX_THREADS + 1];
static volatile int workers_done;
static pid_t worker_tid[MAX_THREADS];
static int nworkers;
static __thread int my_index = MAX_THREADS; /* the main thread's hits go to the last */

static void on_signal(int sig)
{
	(void)sig;
	hits[my_index]++;
}

static uint64_t next_random(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void die(const char *what)
{
	fprintf(stderr, "rec_storm: %s: %s\n", what, strerror(errno));
	exit(2);
}

/*
 * `calls` malloc-family calls of every kind, between the markers, and the
 * "PID TID CALLS" line.  Returns a checksum of the sizes asked for, which
 * depends on seed and calls only.
 */
static uint64_t mixed_calls(uint64_t seed, long calls)
{
	void *live[LIVE] = { 0 };
	uint64_t s = seed | 1, sum = 0;
	long made = 0;
	void *begin = malloc(REC_SPAN_BEGIN);
	for (; made < calls; made++) { /* one call per turn */
		uint64_t r = next_random(&s);
		size_t k = r % LIVE, size = 1 + (size_t)(r >> 16) % 2000;
		sum += size;
		if (live[k] && (r >> 40) % 2) {
			live[k] = realloc(live[k], size);
			continue;
		}
		if (live[k]) {
			free(live[k]);
			live[k] = NULL;
			continue;
		}
		switch ((r >> 48) % 8) {
		case 0: live[k] = calloc(1 + size % 7, size / 7 + 1); break;
		case 1: live[k] = memalign(64, size); break;
		case 2: live[k] = aligned_alloc(32, (size + 31) & ~(size_t)31); break;
		case 3:
			if (posix_memalign(&live[k], 128, size))
				live[k] = NULL;
			break;
		case 4: live[k] = reallocarray(NULL, 1 + size % 5, size / 5 + 1); break;
		case 5: free(NULL); break;
		default: live[k] = malloc(size); break;
		}
	}
	void *end = malloc(REC_SPAN_END);
	for (size_t k = 0; k < LIVE; k++)
		free(live[k]);
	free(begin);
	free(end);

	char line[96];
	int n = snprintf(line, sizeof line, "%d %d %ld\n", (int)getpid(), (int)gettid(), made);
	int fd = open(log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, line, (size_t)n) != n)
		die(log_path);
	close(fd);
	return sum;
}

struct worker {
	int index;
	long calls;
	uint64_t sum;
};

static void *worker(void *arg)
{
	struct worker *w = arg;
	my_index = w->index;
	__atomic_store_n(&worker_tid[w->index], gettid(), __ATOMIC_RELEASE);
	while (!hits[w->index])
		; /* no call here: the span starts once the storm has reached us */
	w->sum = mixed_calls(0x9e3779b97f4a7c15ull * (uint64_t)(w->index + 1), w->calls);
	return NULL;
}

static void *storm(void *arg)
{
	(void)arg;
	struct timespec pause = { 0, 20000 };
	for (unsigned i = 0; !__atomic_load_n(&workers_done, __ATOMIC_ACQUIRE); i++) {
		pid_t tid = __atomic_load_n(&worker_tid[i % nworkers], __ATOMIC_ACQUIRE);
		if (tid && tgkill(getpid(), tid, SIGUSR1) != 0 && errno != ESRCH)
			die("tgkill");
		if (i % nworkers == 0)
			nanosleep(&pause, NULL);
	}
	return NULL;
}

/* A program that starts a thread for each piece of work and joins it
 * before the next: each thread's windows end the trace when it ends. */
static void *turn_worker(void *arg)
{
	struct worker *w = arg;
	w->sum = mixed_calls(0x9e3779b97f4a7c15ull * (uint64_t)(w->index + 1), w->calls);
	return NULL;
}

static uint64_t threads_in_turn(int threads, long calls)
{
	uint64_t sum = 0;
	for (int i = 0; i < threads; i++) {
		struct worker w = { .index = i, .calls = calls };
		pthread_t th;
		if (pthread_create(&th, NULL, turn_worker, &w))
			die("pthread_create");
		pthread_join(th, NULL);
		sum += w.sum;
	}
	return sum;
}

/* A child: its calls, then exec of the counting image, which is traced too. */
static void child(const char *self, long calls)
{
	mixed_calls(0x1234567ull + (uint64_t)getpid(), calls);
	char n[32];
	snprintf(n, sizeof n, "%ld", calls);
	execl(self, self, log_path, "exec", n, (char *)NULL);
	die(self);
}

static void fork_children(const char *self, int forks, long calls)
{
	for (int i = 0; i < forks; i++) {
		pid_t pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0)
			child(self, calls);
		int status;
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR)
				die("waitpid");
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			fprintf(stderr, "rec_storm: child %d failed (status %#x)\n", (int)pid, status);
			exit(2);
		}
	}
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[2], "exec") == 0) {
		log_path = argv[1];
		mixed_calls(0xabcdefull, atol(argv[3]));
		return 0;
	}
	if (argc == 5 && strcmp(argv[2], "turn") == 0 && atoi(argv[3]) > 0 && atol(argv[4]) > 0) {
		log_path = argv[1];
		uint64_t sum = threads_in_turn(atoi(argv[3]), atol(argv[4]));
		printf("rec_storm: %s threads in turn x %s calls: checksum %llu\n", argv[3], argv[4],
		       (unsigned long long)sum);
		return fflush(stdout) == 0 ? 0 : 1;
	}
	if (argc != 5 || atoi(argv[2]) < 1 || atoi(argv[2]) > MAX_THREADS || atol(argv[3]) < 1) {
		fprintf(stderr, "usage: rec_storm LOG THREADS CALLS FORKS | LOG exec CALLS | "
			"LOG turn THREADS CALLS\n");
		return 2;
	}
	log_path = argv[1];
	nworkers = atoi(argv[2]);
	long calls = atol(argv[3]);
	int forks = atoi(argv[4]);

	struct sigaction sa = { .sa_handler = on_signal }; /* no SA_RESTART */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);

	static struct worker w[MAX_THREADS];
	pthread_t th[MAX_THREADS], sender;
	for (int i = 0; i < nworkers; i++) {
		w[i] = (struct worker){ .index = i, .calls = calls };
		if (pthread_create(&th[i], NULL, worker, &w[i]))
			die("pthread_create");
	}
	if (pthread_create(&sender, NULL, storm, NULL))
		die("pthread_create");
	/* Fork once every worker is inside its span: the forks meet threads
	 * in the middle of their calls. */
	for (int i = 0; i < nworkers; i++)
		while (!hits[i])
			sched_yield();
	fork_children(argv[0], forks, calls / 64 + 1);
	uint64_t sum = 0;
	for (int i = 0; i < nworkers; i++) {
		pthread_join(th[i], NULL);
		sum += w[i].sum;
	}
	__atomic_store_n(&workers_done, 1, __ATOMIC_RELEASE);
	pthread_join(sender, NULL);
	printf("rec_storm: %d threads x %ld calls, %d forks: checksum %llu\n", nworkers, calls,
	       forks, (unsigned long long)sum);
	return fflush(stdout) == 0 ? 0 : 1;
}
