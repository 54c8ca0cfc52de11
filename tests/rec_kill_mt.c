/*
 * rec_kill_mt - a multi-threaded program killed with SIGKILL mid-run, and
 * the check that its trace holds every call it made before that (issue
 * #15: page work moved to a helper thread must lose nothing).
 *
 * Usage: rec_kill_mt run PROGRESS THREADS CALLS KILL_AT
 *        rec_kill_mt check PROGRESS TRACE
 *
 * run: THREADS threads each make CALLS calls - malloc of a size that
 * depends on the call's number, then its free - after a marker
 * malloc(KILL_MT_MARKER).  Each thread publishes its tid and how many
 * calls it has made (after making them) in the PROGRESS file, a shared
 * mapping that outlives the process; the first thread kills the process
 * with SIGKILL once it has made KILL_AT calls, while the others run.
 *
 * check: for each thread, the trace's records after its marker are its
 * calls exactly, in order (sizes, and each free of the block just
 * allocated), and there are at least as many as it published: only calls
 * in flight at the kill (made since its last publication) may be missing.
 */
#include "config.h"

#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trace.h"

#define KILL_MT_MARKER 999983
#define MAX_THREADS 16
#define PUBLISH_EVERY 1024 /* calls between publications */

struct progress {
	uint64_t tid;
	uint64_t made;
};

static struct progress *progress;
static uint64_t calls, kill_at;

static size_t size_of(uint64_t k)
{
	return 16 + (size_t)(k / 2 % 4000);
}

static void *worker(void *arg)
{
	struct progress *me = arg;
	void *p = NULL;
	free(malloc(KILL_MT_MARKER));
	__atomic_store_n(&me->tid, (uint64_t)gettid(), __ATOMIC_RELEASE);
	for (uint64_t k = 0; k < calls; k++) {
		if (k % 2 == 0) {
			p = malloc(size_of(k));
		} else {
			free(p);
		}
		if ((k + 1) % PUBLISH_EVERY == 0) {
			__atomic_store_n(&me->made, k + 1, __ATOMIC_RELEASE);
			if (me == progress && k + 1 >= kill_at)
				kill(getpid(), SIGKILL);
		}
	}
	__atomic_store_n(&me->made, calls, __ATOMIC_RELEASE);
	/* A thread done before the kill parks: its exit would make calls of
	 * glibc's own (freeing the thread's buffers) after the program's. */
	if (me != progress)
		for (;;)
			pause();
	return NULL;
}

static struct progress *map_progress(const char *path, int create)
{
	int fd = open(path, create ? O_RDWR | O_CREAT | O_TRUNC : O_RDONLY, 0644);
	size_t len = MAX_THREADS * sizeof(struct progress);
	if (fd < 0 || (create && ftruncate(fd, (off_t)len) != 0)) {
		perror(path);
		exit(2);
	}
	void *m = mmap(NULL, len, create ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		perror(path);
		exit(2);
	}
	close(fd);
	return m;
}

static int run(char **argv)
{
	unsigned threads = (unsigned)strtoul(argv[3], NULL, 10);
	calls = strtoull(argv[4], NULL, 10);
	kill_at = strtoull(argv[5], NULL, 10);
	if (threads == 0 || threads > MAX_THREADS || calls == 0 || kill_at >= calls) {
		fprintf(stderr, "rec_kill_mt: bad arguments\n");
		return 2;
	}
	progress = map_progress(argv[2], 1);
	pthread_t th[MAX_THREADS];
	for (unsigned i = 0; i < threads; i++)
		if (pthread_create(&th[i], NULL, worker, &progress[i]) != 0) {
			fprintf(stderr, "rec_kill_mt: cannot start a thread\n");
			return 2;
		}
	for (unsigned i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	fprintf(stderr, "rec_kill_mt: not killed: KILL_AT was never reached\n");
	return 1;
}

/* The thread of trace t whose tid is tid, or -1. */
static long thread_of(const struct mt_trace *t, uint64_t tid)
{
	for (size_t i = 0; i < mt_trace_threads(t); i++)
		if (mt_trace_thread_tid(t, i) == tid)
			return (long)i;
	return -1;
}

/* Holds one thread's records against its calls; prints what it found. */
static int check_thread(const struct mt_trace *t, const struct progress *pr)
{
	long thread = thread_of(t, pr->tid);
	if (thread < 0) {
		fprintf(stderr, "rec_kill_mt: thread %" PRIu64 " is not in the trace\n", pr->tid);
		return -1;
	}
	struct mt_trace_cursor c;
	struct mt_rec r;
	struct mt_error e;
	uint64_t recno, k = 0, last_out = 0;
	int phase = 0; /* 0: before the marker, 1: the marker's free next, 2: the calls */
	int rc;
	mt_trace_cursor_init(&c, t, (size_t)thread);
	while ((rc = mt_trace_cursor_next(&c, &r, &recno, &e)) > 0) {
		int ok;
		if (phase == 0) {
			phase = r.call == MT_CALL_MALLOC && r.size == KILL_MT_MARKER;
			last_out = r.ptr_out;
			continue;
		} else if (phase == 1) {
			ok = r.call == MT_CALL_FREE && r.ptr_in == last_out;
		} else if (k % 2 == 0) {
			ok = r.call == MT_CALL_MALLOC && r.size == size_of(k) && r.ptr_out;
		} else {
			ok = r.call == MT_CALL_FREE && r.ptr_in == last_out;
		}
		if (!ok) {
			fprintf(stderr, "rec_kill_mt: thread %" PRIu64 ": record %" PRIu64
				" is not the program's call %" PRIu64 "\n", pr->tid, recno, k);
			return -1;
		}
		k += phase == 2;
		phase = 2;
		last_out = r.ptr_out;
	}
	if (rc < 0) {
		mt_error_print("rec_kill_mt", &e);
		return -1;
	}
	printf("thread %" PRIu64 ": %" PRIu64 " calls made and published, %" PRIu64 " recorded\n",
	       pr->tid, pr->made, k);
	if (k < pr->made || k > pr->made + PUBLISH_EVERY) {
		fprintf(stderr, "rec_kill_mt: thread %" PRIu64 ": %" PRIu64 " calls recorded, %" PRIu64
			" made before its last publication\n", pr->tid, k, pr->made);
		return -1;
	}
	return 0;
}

static int check(char **argv)
{
	const struct progress *pr = map_progress(argv[2], 0);
	struct mt_error e;
	struct mt_trace *t = mt_trace_open(argv[3], &e);
	if (!t) {
		mt_error_print("rec_kill_mt", &e);
		return 1;
	}
	int bad = 0;
	unsigned n = 0;
	for (unsigned i = 0; i < MAX_THREADS && pr[i].tid; i++, n++)
		bad |= check_thread(t, &pr[i]) != 0;
	mt_trace_close(t);
	if (n == 0) {
		fprintf(stderr, "rec_kill_mt: no thread published anything\n");
		return 1;
	}
	return bad;
}

int main(int argc, char **argv)
{
	if (argc == 6 && strcmp(argv[1], "run") == 0)
		return run(argv);
	if (argc == 4 && strcmp(argv[1], "check") == 0)
		return check(argv);
	fprintf(stderr, "usage: rec_kill_mt run PROGRESS THREADS CALLS KILL_AT\n"
			"       rec_kill_mt check PROGRESS TRACE\n");
	return 2;
}
