/*
 * rec_file.c - see rec_file.h.
 *
 * Space: each window claim extends the file by exactly the window with
 * fallocate, so a full disk is found at the claim (one line, recording
 * stops) rather than as SIGBUS when a mapped page is first touched, and a
 * killed process leaves a file that ends with its last window.  A claim is
 * at most one per 512 KiB of records per thread, so its syscall does not show.
 *
 * Limits: the file-size limit (RLIMIT_FSIZE, ulimit -f) is checked before
 * every write or claim that could pass it, because passing it raises
 * SIGXFSZ, which kills the program; the recorder stops at the limit
 * instead, and the header says why and after how many records
 * (enum mt_stop_reason), so a reader knows the trace is incomplete.
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "next_alloc.h"
#include "rec_clock.h"
#include "rec_file.h"
#include "rec_helper.h"
#include "rec_stack.h"
#include "rec_text.h"

/* Would a file of `end` bytes pass the file-size limit?  Sets *limit. */
static int over_fsize_limit(uint64_t end, uint64_t *limit)
{
	struct rlimit lim;
	if (getrlimit(RLIMIT_FSIZE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY)
		return 0;
	*limit = lim.rlim_cur;
	return end > lim.rlim_cur;
}

/* "cannot create PATH" or "cannot extend PATH", why, and what now. */
static void say_fsize_limit(const char *verb, const char *path, uint64_t limit,
			    const char *then)
{
	char n[21];
	mt_say(MT_SAY_ERROR, verb, path, ": the file size limit (ulimit -f) of ",
	       mt_u64_text(n, limit), " bytes is reached; ", then, NULL);
}

static int create(struct mt_file *f, const char *name, pid_t pid)
{
	struct mt_text t;
	int fd = -1;
	for (unsigned n = 1; n < 10000; n++) {
		mt_text_init(&t, f->path, sizeof f->path);
		mt_text_add(&t, name);
		mt_text_add(&t, ".");
		mt_text_add_u64(&t, (uint64_t)pid);
		if (n > 1) {
			mt_text_add(&t, ".");
			mt_text_add_u64(&t, n);
		}
		uint64_t limit;
		if (over_fsize_limit(MT_TRACE_HEADER_SIZE, &limit)) {
			say_fsize_limit("cannot create ", f->path, limit, "not recording");
			return -1;
		}
		fd = open(f->path, O_RDWR | O_CREAT | O_CLOEXEC | O_EXCL, 0644);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd >= 0 && mt_fd_keep(&f->fd, fd, 1) == 0)
		return 0;
	mt_say(MT_SAY_ERROR, "cannot create ", f->path, ": ", strerrordesc_np(errno),
	       "; not recording", NULL);
	if (fd >= 0)
		close(fd);
	return -1;
}

/*
 * Before each use of the descriptor: if the program closed it (or reused
 * its number), open the file again by name, provided it is still the file
 * we made.  0, or -1 after printing why recording cannot go on.
 */
static int still_open(struct mt_file *f)
{
	struct mt_fd again;
	if (mt_fd_ours(&f->fd))
		return 0;
	if (f->fd.fd < 0)
		return -1; /* lost before, and said so then */
	int fd = open(f->path, O_RDWR | O_CLOEXEC);
	if (fd >= 0 && mt_fd_keep(&again, fd, 1) == 0) {
		if (again.dev == f->fd.dev && again.ino == f->fd.ino) {
			f->fd = again;
			return 0;
		}
		close(again.fd);
	} else if (fd >= 0) {
		close(fd);
	}
	f->fd.fd = -1;
	mt_say(MT_SAY_ERROR, "lost ", f->path,
	       ": the program closed its descriptor and the file is gone; recording stopped", NULL);
	return -1;
}

static void fill_info(struct mt_trace_info *in, pid_t pid)
{
	memset(in, 0, sizeof *in);
	in->endian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? 1 : 2;
	in->ptr_size = sizeof(void *);
	in->ts_source = MT_TS_SOURCE;
	in->allocator = (uint8_t)mt_next_kind;
	in->pid = (uint32_t)pid;
	in->ppid = (uint32_t)getppid();
	memcpy(in->allocator_name, mt_next_name, sizeof mt_next_name);
	ssize_t n = readlink("/proc/self/exe", in->exe, sizeof in->exe - 1);
	in->exe[n > 0 ? n : 0] = 0;
	in->start_realtime_ns = mt_clock_ns(CLOCK_REALTIME);
	in->start_mono_ns = mt_clock_ns(CLOCK_MONOTONIC);
	in->start_ts = mt_clock_ts();
	/* The bound for the whole file: every rule but the precise one
	 * leaves up to MT_SPARSE_STAMP_EVERY - 1 records in a row unstamped
	 * (recorder.h). */
	unsigned dense = __atomic_load_n(&mt_stamp_dense, __ATOMIC_RELAXED);
	in->stamp_every = dense & MT_DENSE_PRECISE ? 1 : MT_SPARSE_STAMP_EVERY;
	in->stamp_tick_ns = 0;
}

/* 0, or -1 with errno set (EFBIG: the file-size limit is below the
 * header, which only a program that lowers it while recording makes). */
static int write_header(struct mt_file *f)
{
	uint8_t page[MT_TRACE_HEADER_SIZE];
	uint64_t limit;
	if (over_fsize_limit(sizeof page, &limit)) {
		errno = EFBIG;
		return -1;
	}
	mt_trace_header_encode(page, &f->info);
	ssize_t n;
	do
		n = pwrite(f->fd.fd, page, sizeof page, 0);
	while (n < 0 && errno == EINTR);
	if (n >= 0 && n < (ssize_t)sizeof page)
		errno = ENOSPC; /* a short write sets none */
	return n == (ssize_t)sizeof page ? 0 : -1;
}

int mt_file_open(struct mt_file *f, const char *name, pid_t pid)
{
	static unsigned serials;
	f->serial = ++serials;
	f->next = MT_TRACE_HEADER_SIZE;
	f->records = f->windows = f->dropped = 0;
	f->stop_reason = MT_STOP_NONE;
	if (create(f, name, pid))
		return -1;
	fill_info(&f->info, pid);
	f->helper_cpu_at_open = mt_helper_cpu_ns();
	mt_stacks_file_opened(f);
	if (write_header(f)) {
		/* A file without its header is no trace: nothing is left. */
		mt_say(MT_SAY_ERROR, "cannot write ", f->path, ": ", strerrordesc_np(errno),
		       "; not recording", NULL);
		struct stat st; /* a device named as the trace (/dev/full) stays */
		if (fstat(f->fd.fd, &st) == 0 && S_ISREG(st.st_mode))
			unlink(f->path);
		mt_file_close(f);
		return -1;
	}
	return 0;
}

/* The reason a failed extension gives a reader, from its errno. */
static uint32_t stop_reason_of(int err)
{
	switch (err) {
	case EFBIG: return MT_STOP_FSIZE;
	case ENOSPC: return MT_STOP_DISK_FULL;
	case EDQUOT: return MT_STOP_QUOTA;
	default: return MT_STOP_IO;
	}
}

/*
 * Where the filesystem has no fallocate, the window's blocks are written
 * as zeros: a sparse window would find a full disk only when a page is
 * first stored to, as SIGBUS in the program.  0, or -1 with errno set and
 * the file back at its old end.
 */
static int extend_by_writing(struct mt_file *f, uint32_t size)
{
	static uint8_t zeros[64 << 10]; /* .bss: never stored to, costs no page */
	uint64_t at = f->next, end = f->next + size;
	while (at < end) {
		size_t n = end - at < sizeof zeros ? (size_t)(end - at) : sizeof zeros;
		ssize_t k = pwrite(f->fd.fd, zeros, n, (off_t)at);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			int err = k < 0 ? errno : ENOSPC;
			if (ftruncate(f->fd.fd, (off_t)f->next) != 0)
				err = errno;
			errno = err;
			return -1;
		}
		at += (uint64_t)k;
	}
	return 0;
}

int mt_file_claim_open(struct mt_file *f, uint32_t *size_io, uint64_t *off)
{
	if (!f->stop_reason && !mt_fd_ours(&f->fd)) {
		errno = EBADF;
		return 1;
	}
	return mt_file_claim(f, size_io, off);
}

int mt_file_claim(struct mt_file *f, uint32_t *size_io, uint64_t *off)
{
	if (f->stop_reason) {
		errno = ENOSPC;
		return -1; /* a claim failed already, and said why */
	}
	if (still_open(f))
		return -1;
	uint32_t size = *size_io;
	uint64_t limit;
	if (over_fsize_limit(f->next + size, &limit)) {
		/* The last window takes what room is left, if a window fits. */
		uint64_t room = limit > f->next ? (limit - f->next) & ~(uint64_t)(MT_TRACE_ALIGN - 1)
						: 0;
		if (room < MT_WINDOW_MIN) {
			f->stop_reason = MT_STOP_FSIZE;
			say_fsize_limit("cannot extend ", f->path, limit, "recording stopped");
			return -1;
		}
		assert(room < size);
		size = (uint32_t)room;
	}
	int rc;
	do /* tmpfs gives up on a pending signal: a signal storm is no full disk */
		rc = fallocate(f->fd.fd, 0, (off_t)f->next, size);
	while (rc && errno == EINTR);
	if (rc && (errno == EOPNOTSUPP || errno == ENOSYS))
		rc = extend_by_writing(f, size);
	if (rc) {
		f->stop_reason = stop_reason_of(errno);
		const char *why = errno == ENOSPC || errno == EDQUOT ? "disk full"
								      : strerrordesc_np(errno);
		mt_say(MT_SAY_ERROR, "cannot extend ", f->path, ": ", why, "; recording stopped",
		       NULL);
		return -1;
	}
	*size_io = size;
	*off = f->next;
	f->next += size;
	f->windows++;
	return 0;
}

void mt_file_unclaim(struct mt_file *f, uint64_t off, int err)
{
	assert(off + MT_TRACE_ALIGN <= f->next);
	f->stop_reason = MT_STOP_MAP;
	mt_say(MT_SAY_ERROR, "cannot map ", f->path, ": ", strerrordesc_np(err),
	       "; recording stopped", NULL);
	/* Shrinking never meets the file-size limit; a failure leaves a zero
	 * window, which readers skip. */
	if (ftruncate(f->fd.fd, (off_t)off) == 0) {
		f->next = off;
		f->windows--;
	}
}

int mt_file_unclaim_quietly(struct mt_file *f, uint64_t off)
{
	assert(off + MT_TRACE_ALIGN <= f->next);
	if (still_open(f) || ftruncate(f->fd.fd, (off_t)off) != 0)
		return -1;
	f->next = off;
	f->windows--;
	return 0;
}

/* Ticks per second from the start stamps and a pair read now. */
static uint64_t ts_freq(const struct mt_trace_info *in, uint64_t mono_ns, uint64_t ts)
{
	if (MT_TS_SOURCE == MT_TS_MONOTONIC_NS)
		return 1000000000u;
	uint64_t ns = mono_ns - in->start_mono_ns;
	if (!ns)
		return 0; /* too short to tell: readers derive it */
	return (uint64_t)((unsigned __int128)(ts - in->start_ts) * 1000000000u / ns);
}

void mt_file_update(struct mt_file *f, uint64_t records, int closed)
{
	struct mt_trace_info *in = &f->info;
	uint64_t mono_ns = mt_clock_ns(CLOCK_MONOTONIC), ts = mt_clock_ts();
	in->records = records;
	in->dropped = f->dropped;
	in->windows = f->windows;
	in->end_offset = f->next;
	in->stop_reason = f->stop_reason;
	in->stop_records = f->stop_reason ? records : 0;
	in->ts_freq = ts_freq(in, mono_ns, ts);
	uint64_t helper_ns = mt_helper_cpu_ns();
	in->helper_cpu_ns = helper_ns > f->helper_cpu_at_open ? helper_ns - f->helper_cpu_at_open : 0;
	if (closed) {
		in->end_mono_ns = mono_ns;
		in->end_ts = ts;
		in->flags |= MT_FHF_CLOSED;
	} else {
		in->end_mono_ns = in->end_ts = 0;
		in->flags &= ~(uint32_t)MT_FHF_CLOSED;
	}
	if (still_open(f) == 0 && write_header(f))
		mt_say(MT_SAY_ERROR, "cannot write ", f->path, ": ", strerrordesc_np(errno), NULL);
}

void mt_file_close(struct mt_file *f)
{
	mt_fd_drop(&f->fd);
}
