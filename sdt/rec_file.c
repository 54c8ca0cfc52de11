/*
 * rec_file.c - see rec_file.h.
 *
 * Space: each window claim extends the file by exactly the window with
 * fallocate, so a full disk is found at the claim (one line, recording
 * stops) rather than as SIGBUS when a mapped page is first touched, and a
 * killed process leaves a file that ends with its last window.  A claim is
 * at most one per MiB of records per thread, so its syscall does not show.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "next_alloc.h"
#include "rec_clock.h"
#include "rec_file.h"
#include "rec_text.h"

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
}

static int write_header(struct mt_file *f)
{
	uint8_t page[MT_TRACE_HEADER_SIZE];
	mt_trace_header_encode(page, &f->info);
	return pwrite(f->fd.fd, page, sizeof page, 0) == (ssize_t)sizeof page ? 0 : -1;
}

int mt_file_open(struct mt_file *f, const char *name, pid_t pid)
{
	static unsigned serials;
	f->serial = ++serials;
	f->next = MT_TRACE_HEADER_SIZE;
	f->records = f->windows = f->dropped = 0;
	if (create(f, name, pid))
		return -1;
	fill_info(&f->info, pid);
	if (write_header(f)) {
		mt_say(MT_SAY_ERROR, "cannot write ", f->path, ": ", strerrordesc_np(errno),
		       "; not recording", NULL);
		mt_file_close(f);
		return -1;
	}
	return 0;
}

int mt_file_claim(struct mt_file *f, uint32_t size, uint64_t *off)
{
	if (still_open(f))
		return -1;
	int rc = fallocate(f->fd.fd, 0, (off_t)f->next, size);
	if (rc && (errno == EOPNOTSUPP || errno == ENOSYS))
		rc = ftruncate(f->fd.fd, (off_t)(f->next + size)); /* no reservation here */
	if (rc) {
		const char *why = errno == ENOSPC || errno == EDQUOT ? "disk full"
								      : strerrordesc_np(errno);
		mt_say(MT_SAY_ERROR, "cannot extend ", f->path, ": ", why, "; recording stopped",
		       NULL);
		return -1;
	}
	*off = f->next;
	f->next += size;
	f->windows++;
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
	in->ts_freq = ts_freq(in, mono_ns, ts);
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
