/*
 * rec_helper.c - see rec_helper.h.
 *
 * Cost to a recording thread: at each window's end (4 KiB, then doubling
 * to 512 KiB) the swap under the recorder lock and one condition signal;
 * nothing per call.  The helper holds that lock while it writes a
 * window's zeros (0.1-0.3 ms a MiB): a thread that asks for it then waits
 * for that one write at most.  The helper's own cost: per window a
 * fallocate, a 64-byte pwrite, an mmap, a pwrite of zeros, the populate
 * and a load from each page (rec_pages.c), and a share of an unmap
 * (rec_maps.c); it sleeps until a thread asks (a check every 100 ms).
 *
 * A claimed window is made padding (a window header with tid 0, which
 * readers skip) before it is mapped, so a window prepared but never used -
 * recording stopped, the thread ended, the process was killed - leaves a
 * well-formed file.
 */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "rec_clock.h"
#include "rec_helper.h"
#include "rec_maps.h"
#include "rec_pages.h"
#include "recorder.h"

static pthread_mutex_t *lock;   /* the recorder's */
static struct mt_file *file;    /* the recorder's */
static pthread_cond_t wake;
static int running, failed;
static clockid_t cpu_clock;     /* the helper's CPU-time clock, when have_cpu_clock */
static int have_cpu_clock;
static uint8_t *filling;        /* the window being populated, outside the lock */
static uint32_t filling_size;
static int handed_over;         /* its thread took it as it was */
static int done_with;           /* and filled it already: unmapped once populated */
static int creator_policy;      /* of the thread that started the helper */
static struct sched_param creator_param;

/* A window header that says "claimed, never used" (trace_format.h). */
static int write_padding(int fd, uint64_t off, uint32_t size)
{
	struct mt_window_info w = { .size = size, .flags = MT_WHF_CLOSED };
	uint8_t h[MT_WINDOW_HEADER_SIZE];
	mt_window_header_encode(h, &w);
	ssize_t n;
	do
		n = pwrite(fd, h, sizeof h, (off_t)off);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof h ? 0 : -1;
}

/* s's next window: claimed and made padding under the lock, populated
 * outside it, and handed over unless it was given up meanwhile.  Not when
 * the program has closed the trace's descriptor: reopening takes the
 * lowest free number, which a program rebuilding its descriptors (a
 * daemon at start) may be counting on at that very moment; the thread
 * reopens it itself, in one of its own calls, as without the helper. */
static void prepare(struct mt_slot *s)
{
	uint32_t size = s->next_size;
	uint64_t off;
	int rc = s->next_serial == file->serial ? mt_file_claim_open(file, &size, &off) : 1;
	if (rc > 0) {
		s->next_state = MT_NEXT_NONE;
		return;
	}
	if (rc < 0) {
		s->next_state = MT_NEXT_FAILED; /* said why; the thread stops at its window's end */
		return;
	}
	uint8_t *m = MAP_FAILED;
	if (write_padding(file->fd.fd, off, size) == 0)
		m = mt_maps_window(file, off, size);
	if (m == MAP_FAILED) {
		/* As when a thread maps its own: the space goes back, and the
		 * thread stops at its window's end. */
		mt_file_unclaim(file, off, errno);
		s->next_state = MT_NEXT_FAILED;
		return;
	}
	mt_pages_write_zeros(file, off, size);
	s->next_base = m;
	s->next_size = size;
	s->next_off = off;
	s->next_state = MT_NEXT_FILLING;
	filling = m;
	filling_size = size;
	pthread_mutex_unlock(lock);
	mt_pages_populate(m, size);
	pthread_mutex_lock(lock);
	filling = NULL;
	if (handed_over && !done_with)
		; /* the thread writes into it already */
	else if (!handed_over && s->next_state == MT_NEXT_FILLING && s->next_base == m)
		s->next_state = MT_NEXT_READY;
	else
		mt_maps_unmap(m, size); /* full already, or given up (it stays padding) */
	handed_over = done_with = 0;
}

static void unmap_old(struct mt_slot *s)
{
	uint8_t *base = s->old_base;
	s->old_base = NULL;
	mt_maps_unmap(base, s->old_size);
}

static uint64_t now_ns(void)
{
	return mt_clock_ns(CLOCK_MONOTONIC);
}

static void sleep_until(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u) };
	pthread_cond_timedwait(&wake, lock, &ts);
}

/*
 * A helper started from a real-time thread (SCHED_FIFO or SCHED_RR)
 * inherits its priority; at that same priority it would wait, under
 * SCHED_FIFO, until a recording thread blocks, and a program whose
 * real-time threads keep every CPU busy would never let it run: each
 * thread would then prepare its own windows, in its calls.  One level
 * above, it preempts a thread for the time it works and sleeps again.
 * Nothing changes when raising is not allowed (RLIMIT_RTPRIO).
 */
static void outrank_creator(void)
{
	struct sched_param sp = { .sched_priority = creator_param.sched_priority + 1 };
	if ((creator_policy == SCHED_FIFO || creator_policy == SCHED_RR) &&
	    creator_param.sched_priority < sched_get_priority_max(creator_policy))
		pthread_setschedparam(pthread_self(), creator_policy, &sp);
}

static void *helper_main(void *arg)
{
	(void)arg;
	mt_tls.busy = MT_BUSY_INTERNAL;
	outrank_creator();
	pthread_mutex_lock(lock);
	for (;;) {
		struct mt_slot *s = mt_slot_needing_help();
		if (!s) /* nothing asked: a check every 100 ms */
			sleep_until(now_ns() + 100000000u);
		else if (s->old_base)
			unmap_old(s);
		else
			prepare(s);
	}
	return NULL;
}

void mt_helper_start(pthread_mutex_t *recorder_lock)
{
	pthread_condattr_t ca;
	pthread_attr_t a;
	pthread_t th;
	sigset_t all, old;

	pthread_mutex_lock(recorder_lock);
	int start = !running && !failed && mt_recording();
	if (start) {
		running = 1; /* claimed: no other thread starts one */
		lock = recorder_lock;
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&wake, &ca);
		pthread_condattr_destroy(&ca);
	}
	pthread_mutex_unlock(recorder_lock);
	if (!start)
		return;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&a, 64 << 10);
	/* The program's signals go to its own threads.  libc's allocation
	 * for the new thread (its TLS vector) is recorded as any other. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_getschedparam(pthread_self(), &creator_policy, &creator_param);
	int rc = pthread_create(&th, &a, helper_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&a);
	if (rc == 0) {
		pthread_setname_np(th, "mtrace-helper");
		/* th stays valid: the helper never returns. */
		pthread_mutex_lock(lock);
		have_cpu_clock = pthread_getcpuclockid(th, &cpu_clock) == 0;
		pthread_mutex_unlock(lock);
		return;
	}
	pthread_mutex_lock(lock);
	running = 0;
	failed = 1; /* threads go on preparing their own windows */
	pthread_mutex_unlock(lock);
}

void mt_helper_want(struct mt_slot *s, struct mt_file *f, uint32_t size)
{
	if (!running)
		return;
	file = f;
	s->next_size = size;
	s->next_serial = f->serial;
	s->next_state = MT_NEXT_WANTED;
	pthread_cond_signal(&wake);
}

void mt_helper_release(uint8_t *base, uint32_t size)
{
	if (base == filling)
		done_with = 1; /* the helper unmaps it when it has populated it */
	else
		mt_maps_unmap(base, size);
}

void mt_helper_unmap(struct mt_slot *s, uint8_t *base, uint32_t size)
{
	if (base != filling && running && !s->old_base) {
		s->old_base = base;
		s->old_size = size;
		pthread_cond_signal(&wake);
	} else {
		mt_helper_release(base, size);
	}
}

int mt_helper_filling(const uint8_t *base)
{
	return base == filling;
}

void mt_helper_hand_over(void)
{
	handed_over = 1;
}

uint64_t mt_helper_cpu_ns(void)
{
	struct timespec ts;
	if (!have_cpu_clock || clock_gettime(cpu_clock, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void mt_helper_forget(void)
{
	/* The parent's; a range unmapped twice (the slots' own went first) is
	 * no error, as nothing was mapped in between. */
	if (filling)
		mt_maps_unmap(filling, filling_size);
	filling = NULL;
	running = failed = handed_over = done_with = have_cpu_clock = 0;
}
