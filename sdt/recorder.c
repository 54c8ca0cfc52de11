/*
 * recorder.c - the recorder's state machine and the slow side of its
 * per-call path.
 *
 * State: one global word, mt_rec_epoch, is the number of the current
 * recording (a new one per trace file, and after a failed exec) while
 * recording, 0 while stopped or paused, and MT_EPOCH_UNDECIDED until the
 * library has decided whether to record at all.  Each thread keeps the epoch its window belongs to; a mismatch
 * sends it to the slow path, which is how threads learn, on their own next
 * call, that recording stopped or moved to a new file.  The slow path and
 * the control API take one mutex; the per-call path (mt_record, inline in
 * recorder.h) takes nothing.
 *
 * Re-entry: a per-thread busy flag is set whenever this thread is inside the
 * recorder, here as on the per-call path.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

extern char **environ;

#include "next_alloc.h"
#include "rec_clock.h"
#include "rec_config.h"
#include "rec_file.h"
#include "rec_helper.h"
#include "rec_list.h"
#include "rec_text.h"
#include "rec_thread.h"
#include "recorder.h"

struct mt_owner mt_block_owner[MT_OWNER_SLOTS];
static uint32_t last_token;        /* atomic */
static uint64_t threads_recorded;  /* atomic: threads given a token; 1 in a
				      forked child whose thread has one */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct mt_file file = { .fd = { .fd = -1 } };
static struct mt_config config;
static unsigned file_epoch;   /* recording of the open file; 0 = none */
static unsigned last_epoch;
static int paused;
static uint64_t dropped;      /* atomic: calls not recorded in this file */
static int file_cut;          /* atomic: someone truncated the file under a window */
static pthread_key_t exit_key;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

void mt_record_dropped(void)
{
	if (mt_tls.busy != MT_BUSY_INTERNAL && mt_recording())
		__atomic_fetch_add(&dropped, 1, __ATOMIC_RELAXED);
}

/*
 * The thread's first record: its token, and the end of sparse stamps if
 * another thread was given one first.  The flag is stored and fenced
 * before this record's stamp decision, and so before the effects of the
 * calls this thread records (recorder.h says why that orders the first
 * thread's unstamped records).  Without the lock: the stamp decision
 * comes before the window (mt_record_slow).
 */
static void first_record(struct mt_tls *t)
{
	uint32_t token;
	do
		token = __atomic_add_fetch(&last_token, 1, __ATOMIC_RELAXED);
	while (!token); /* 0 is no thread's */
	t->token = token;
	t->region_token = mt_region_token_of(token);
	/* Written once, not by every thread: the line is every wrapper's. */
	if (__atomic_fetch_add(&threads_recorded, 1, __ATOMIC_RELAXED) &&
	    !(__atomic_load_n(&mt_stamp_dense, __ATOMIC_RELAXED) & MT_DENSE_THREADS))
		__atomic_fetch_or(&mt_stamp_dense, MT_DENSE_THREADS, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void mt_record_slow(struct mt_rec r)
{
	struct mt_tls *t = &mt_tls;
	if (t->busy) {
		/* Not recorded, but the block is this thread's now: another
		 * thread's allocation of it must not go unstamped, nor a call
		 * of another thread on a block of its region.  A thread with
		 * no token yet marks the regions shared. */
		if (mt_call_allocates(r.call))
			__atomic_store_n(mt_owner_slot(r.ptr_out), t->token, __ATOMIC_RELAXED);
		mt_record_regions_alone(t->region_token ? t->region_token : MT_REGION_NOBODY, &r);
		mt_record_dropped();
		return;
	}
	t->busy = 1;
	mt_compiler_barrier(); /* a signal handler from here on sees busy */
	if (!t->token)
		first_record(t);
	/* A stamp's moment is now, before a stack walk that may take long:
	 * another thread may already be handed the block this call freed. */
	int alone;
	int stamp = mt_record_stamped(t, &r, &alone);
	uint64_t ts = stamp ? mt_record_ts(&r, alone) : 0;
	if (mt_call_allocates(r.call) && mt_stack_depth)
		r.stack = mt_stack_capture();
	unsigned e = __atomic_load_n(&mt_rec_epoch, __ATOMIC_RELAXED);
	if ((!e || e != t->epoch || t->cur > t->limit) && !mt_record_window(t, e))
		goto out;
	if (!stamp && !t->count) {
		/* A window's first record is stamped: the time it would carry,
		 * the window's base_ts, is later than its call, and the sparse
		 * rule counts from it (recorder.h). */
		stamp = 1;
		ts = mt_record_ts(&r, alone);
	}
	mt_record_commit(t, &r, ts, stamp, t->codec.stacks);
out:
	t->last_freed = mt_call_has_in(r.call) ? r.ptr_in : 0;
	mt_compiler_barrier();
	t->busy = 0;
}

/* ---- the trace file's life ---- */

/* A new recording of the open file: threads see the new number on their
 * next call and open fresh windows. */
static void new_epoch_locked(void)
{
	if (++last_epoch == 0 || last_epoch == MT_EPOCH_UNDECIDED)
		last_epoch = 1;
	file_epoch = last_epoch;
	if (!paused)
		__atomic_store_n(&mt_rec_epoch, file_epoch, __ATOMIC_RELEASE);
}

/* Under mtrace-record --no-children only one process records. */
static int wanted_here(void)
{
	return !config.only_pid || config.only_pid == getpid();
}

static int open_locked(const char *name)
{
	__atomic_store_n(&dropped, 0, __ATOMIC_RELAXED);
	if (!wanted_here() || mt_file_open(&file, name, getpid()))
		return -1;
	__atomic_store_n(&file_cut, 0, __ATOMIC_RELAXED);
	mt_sigbus_guard();
	paused = 0;
	if (config.list[0])
		mt_list_add(config.list, file.path);
	mt_say(MT_SAY_INFO, "writing to ", file.path, NULL);
	new_epoch_locked();
	return 0;
}

/*
 * The helper thread (rec_helper.h) starts only where recording starts
 * outside any allocator call - the library's constructor, the control API,
 * a forked child's fork handler - with the lock released.  Never from the
 * per-call slow path: that call may come from inside glibc's
 * pthread_create (the new thread's TLS vector is calloc'ed with the stack
 * cache lock held), and creating a thread there deadlocks on that lock.
 */
static void start_helper(void)
{
	mt_helper_start(&lock);
}

static int start_locked(void)
{
	mt_config_load(&config);
	__atomic_store_n(&mt_rec_glibc_mask, config.glibc_events ? ~0u : 0, __ATOMIC_RELAXED);
	if (config.precise_time)
		__atomic_fetch_or(&mt_stamp_dense, MT_DENSE_PRECISE, __ATOMIC_RELAXED);
	else
		__atomic_fetch_and(&mt_stamp_dense, ~MT_DENSE_PRECISE, __ATOMIC_RELAXED);
	return open_locked(config.prefix);
}

/* Every thread's window is closed from here, by reading what it holds
 * (the owners unmap theirs when they next call in), and the header is
 * completed: the trace is whole as it stands. */
static void seal_locked(void)
{
	__atomic_store_n(&mt_rec_epoch, 0, __ATOMIC_RELEASE);
	file.records += mt_windows_collect(file_epoch, 1);
	file.dropped = __atomic_load_n(&dropped, __ATOMIC_RELAXED);
	if (__atomic_load_n(&file_cut, __ATOMIC_ACQUIRE))
		file.stop_reason = MT_STOP_CUT;
	mt_file_update(&file, file.records, 1);
	char n[21];
	mt_say(MT_SAY_INFO, mt_u64_text(n, file.records), " calls recorded in ", file.path, NULL);
}

static void stop_locked(void)
{
	if (file_epoch)
		mt_windows_drop_prepared(&file); /* before the header says where the file ends */
	seal_locked();
	mt_file_close(&file);
	file_epoch = 0;
	paused = 0;
}

/*
 * The library's first calls can come before its constructor: a preloaded
 * library is initialised after the program's own dependencies, whose
 * constructors allocate.  So until the constructor or the first call after
 * libc has set up the environment decides, the epoch is MT_EPOCH_UNDECIDED,
 * which sends every call here.  Earlier calls (the dynamic loader's own)
 * go unrecorded.
 */
static void decide_locked(void)
{
	if (__atomic_load_n(&mt_rec_epoch, __ATOMIC_RELAXED) != MT_EPOCH_UNDECIDED || !environ)
		return;
	if (!mt_autostart_wanted() || start_locked() != 0)
		__atomic_store_n(&mt_rec_epoch, 0, __ATOMIC_RELEASE);
}

static int pause_locked(int pause)
{
	if (!file_epoch)
		return -1;
	paused = pause;
	__atomic_store_n(&mt_rec_epoch, pause ? 0 : file_epoch, __ATOMIC_RELEASE);
	return 0;
}

/* ---- the per-call path's slow side (mt_record is in recorder.h) ---- */

/* With the lock held: make sure the thread has room in a window of the
 * current recording.  0 when it cannot record now. */
static int window_ready(struct mt_tls *t)
{
	unsigned e = __atomic_load_n(&mt_rec_epoch, __ATOMIC_RELAXED);
	if (!e)
		return 0;
	if (__atomic_load_n(&file_cut, __ATOMIC_ACQUIRE)) {
		stop_locked(); /* resumed (mtrace_unpause...) after the cut */
		return 0;
	}
	if (!t->slot) {
		if (!(t->slot = mt_slot_get(&file, e)))
			return 0;
		pthread_setspecific(exit_key, t);
	}
	if (e == t->epoch && t->cur <= t->limit)
		return 1;
	if (e == t->epoch && t->cur <= t->full) {
		mt_window_want_next(t, &file); /* half full */
		return 1;
	}
	mt_window_release(t, &file);
	if (mt_window_open(t, e, &file) == 0)
		return 1;
	stop_locked();
	return 0;
}

int mt_record_window(struct mt_tls *t, unsigned e)
{
	if (!e)
		return 0;
	pthread_mutex_lock(&lock);
	if (e == MT_EPOCH_UNDECIDED) {
		mt_recorder_init();
		decide_locked();
	}
	int ok = window_ready(t);
	pthread_mutex_unlock(&lock);
	if (!ok)
		mt_record_dropped();
	return ok;
}

uint8_t *mt_record_table_window(unsigned serial, uint32_t *size)
{
	uint8_t *m = NULL;
	uint64_t off;
	pthread_mutex_lock(&lock);
	if (file_epoch && file.serial == serial && mt_file_claim(&file, size, &off) == 0) {
		m = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_SHARED, file.fd.fd, (off_t)off);
		if (m == MAP_FAILED) {
			mt_file_unclaim(&file, off, errno);
			m = NULL;
		}
	}
	pthread_mutex_unlock(&lock);
	return m;
}

void mt_recorder_event(unsigned event, unsigned nargs, const uint64_t *args)
{
	if (!mt_recording())
		return;
	struct mt_rec r = { .call = MT_CALL_EVENT, .event = event };
	r.nargs = nargs < MT_EVENT_ARGS_MAX ? nargs : MT_EVENT_ARGS_MAX;
	memcpy(r.args, args, r.nargs * sizeof *args);
	mt_record(&r);
}

void mt_recorder_file_cut(void)
{
	__atomic_store_n(&mt_rec_epoch, 0, __ATOMIC_RELEASE);
	if (!__atomic_exchange_n(&file_cut, 1, __ATOMIC_ACQ_REL))
		mt_say(MT_SAY_ERROR, "cannot go on with ", file.path,
		       ": another process cut it short; recording stopped", NULL);
}

/* ---- threads, fork ---- */

static void lock_busy(void)
{
	mt_tls.busy = 1;
	mt_compiler_barrier();
	pthread_mutex_lock(&lock);
}

static void unlock_busy(void)
{
	pthread_mutex_unlock(&lock);
	mt_compiler_barrier();
	mt_tls.busy = 0;
}

static void thread_exit(void *arg)
{
	struct mt_tls *t = arg;
	lock_busy();
	mt_slot_exited(t->slot);
	unlock_busy();
}

/*
 * The child of fork is a new process: it gets its own trace (PREFIX.PID)
 * and none of the parent's windows, whose mappings it simply drops.  The
 * lock is held across fork so no window is half made.  A child that does
 * not record (--no-children, or no file) is stopped, so its calls take
 * the fast path.
 */
static void child_after_fork(void)
{
	pthread_mutex_init(&lock, NULL);
	mt_stacks_after_fork();
	mt_windows_forget();
	/* One thread now, and the child's trace holds only the child's
	 * records: stamps are sparse again until a second thread records. */
	threads_recorded = mt_tls.token != 0;
	__atomic_fetch_and(&mt_stamp_dense, ~MT_DENSE_THREADS, __ATOMIC_RELAXED);
	if (file_epoch) {
		int was_paused = paused;
		mt_file_close(&file);
		file_epoch = 0;
		if (open_locked(config.prefix) != 0)
			__atomic_store_n(&mt_rec_epoch, 0, __ATOMIC_RELEASE);
		else if (was_paused)
			pause_locked(1);
	}
	mt_compiler_barrier();
	mt_tls.busy = 0;
	start_helper();
}

static void init(void)
{
	/* What libc allocates for us here is not the program's.  Restored, not
	 * cleared: the first recorded call may be what runs this. */
	uint8_t was_busy = mt_tls.busy;
	mt_tls.busy = 1;
	mt_next_resolve();
	mt_say_keep_stderr();
	mt_stacks_configure();
	mt_regions_reserve();
	pthread_key_create(&exit_key, thread_exit);
	pthread_atfork(lock_busy, unlock_busy, child_after_fork);
	mt_tls.busy = was_busy;
}

void mt_recorder_init(void)
{
	pthread_once(&init_once, init);
}

/* ---- the control API ---- */

/* Entered from a signal handler that interrupted the recorder: refuse. */
static int api_enter(void)
{
	if (mt_tls.busy)
		return -1;
	mt_recorder_init();
	lock_busy();
	return 0;
}

int mt_recorder_start(void)
{
	if (api_enter())
		return -1;
	int rc = 0;
	if (!file_epoch)
		rc = start_locked();
	else if (paused)
		rc = pause_locked(0);
	unlock_busy();
	start_helper();
	return rc;
}

void mt_recorder_autostart(void)
{
	if (api_enter())
		return;
	decide_locked();
	unlock_busy();
	start_helper();
}

int mt_recorder_stop(void)
{
	if (api_enter())
		return -1;
	if (file_epoch)
		stop_locked();
	unlock_busy();
	return 0;
}

int mt_recorder_pause(int pause)
{
	if (api_enter())
		return -1;
	int rc = pause_locked(pause);
	unlock_busy();
	return rc;
}

int mt_recorder_reset(void)
{
	if (api_enter())
		return -1;
	int rc = -1;
	if (file_epoch) {
		int was_paused = paused;
		stop_locked();
		rc = start_locked();
		if (rc == 0 && was_paused)
			pause_locked(1);
	}
	unlock_busy();
	start_helper();
	return rc;
}

uint64_t mt_recorder_sync(void)
{
	if (api_enter())
		return 0;
	uint64_t records = 0;
	if (file_epoch) {
		records = file.records + mt_windows_collect(file_epoch, 0);
		file.dropped = __atomic_load_n(&dropped, __ATOMIC_RELAXED);
		mt_file_update(&file, records, 0);
	}
	unlock_busy();
	return records;
}

/* A vfork child shares our memory but not our pid: it must not end the
 * parent's trace, so only the process that opened the file ends it. */
static int ours_locked(void)
{
	return file_epoch && file.info.pid == (uint32_t)getpid();
}

void mt_recorder_image_end(void)
{
	if (api_enter())
		return;
	if (ours_locked())
		stop_locked();
	unlock_busy();
}

/*
 * exec: the trace is sealed as if stopped, so it is whole if the exec
 * succeeds (the close-on-exec descriptor goes with the old image); the
 * file stays open, and after a failed exec (a PATH search tries one
 * directory after another) recording goes on in the same file.
 */
int mt_recorder_exec_begin(void)
{
	if (api_enter())
		return 0;
	int was = ours_locked();
	if (was)
		seal_locked();
	unlock_busy();
	return was;
}

void mt_recorder_exec_failed(int was_recording)
{
	if (!was_recording || api_enter())
		return;
	if (ours_locked()) {
		new_epoch_locked();
		mt_file_update(&file, file.records, 0);
	}
	unlock_busy();
}
