/*
 * wl_writer.c - write a workload file with memory bounded by thread count.
 *
 * trace2wl produces ops for all threads interleaved, but the file wants each
 * thread's stream contiguous.  Holding the streams in memory would make the
 * converter's footprint grow with the trace, so each thread encodes into a
 * small buffer; a full buffer is appended as one chunk to a single unlinked
 * spill file and only the chunk's place is kept.  Buffers start small and
 * grow to CHUNK, and a thread that is done hands its buffer back
 * (mt_wl_writer_flush_thread), so thousands of short threads cost little.
 * Finishing writes the header and thread table, copies each thread's chunks
 * in order, fsyncs, and links the output into place: a failed or
 * interrupted run leaves no workload behind.  While there is one thread,
 * its chunks go straight to the output, where a one-thread workload has
 * its stream: most traces are of one thread, and copying their stream
 * from the spill file at the end was 5% of trace2wl's CPU time (CPython's
 * 72 MB workload); a second thread moves them to the spill file.
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mapped.h"
#include "workload.h"

#define CHUNK (64u << 10)  /* largest per-thread buffer, and spill unit */
#define FIRST_BUF 256u     /* a thread's first buffer; doubles up to CHUNK */
/* Where a one-thread workload's stream starts. */
#define DIRECT_START (MT_WL_HEADER_SIZE + MT_WL_THREAD_ENTRY)

/* A run of a stream's bytes in the spill file. */
struct mt_wl_chunk {
	uint64_t off;
	uint32_t len;
};

/* ---- the output before it is complete ----
 *
 * The workload is written to a file without a name (O_TMPFILE) in the
 * output's directory and linked into place through /proc/self/fd once
 * complete: a run cut short by Ctrl-C, a closed pipe or a kill leaves
 * nothing behind, with no handler to run.  Where the filesystem or a
 * missing /proc does not allow that, the file gets a temporary name beside
 * the output, and a handler of the signals that would end the process
 * removes it first.  The spill file is never linked: anonymous too, or
 * unlinked right after its creation.
 */

static const char *volatile doomed; /* the temporary name to remove on a signal */
static const int fatal_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ };
#define NFATAL (sizeof fatal_signals / sizeof *fatal_signals)
static int handled[NFATAL];

static void remove_and_die(int sig)
{
	const char *path = doomed;
	if (path)
		unlink(path);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Only signals left at their default action: one the caller ignores or
 * handles stays as the caller set it. */
static void guard_temp(const char *path)
{
	doomed = path;
	for (size_t i = 0; i < NFATAL; i++) {
		struct sigaction now, sa = { .sa_handler = remove_and_die };
		sigemptyset(&sa.sa_mask);
		handled[i] = sigaction(fatal_signals[i], NULL, &now) == 0 && now.sa_handler == SIG_DFL &&
			     sigaction(fatal_signals[i], &sa, NULL) == 0;
	}
}

static void unguard_temp(void)
{
	for (size_t i = 0; i < NFATAL; i++)
		if (handled[i])
			signal(fatal_signals[i], SIG_DFL);
	doomed = NULL;
}

/* path's directory, malloc'd; NULL when out of memory. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
}

static void proc_name(char name[32], int fd)
{
	snprintf(name, 32, "/proc/self/fd/%d", fd);
}

/* A temporary file beside path, for when it cannot be anonymous. */
static int make_temp(const char *path, const char *tag, char **out)
{
	size_t n = strlen(path) + strlen(tag) + 8;
	char *name = malloc(n);
	if (!name)
		return -1;
	snprintf(name, n, "%s.%sXXXXXX", path, tag);
	int fd = mkstemp(name);
	if (fd < 0) {
		free(name);
		return -1;
	}
	*out = name;
	return fd;
}

/* The output, anonymous in dir where it can be linked into place later,
 * else under a temporary name beside path. */
static int open_output(struct mt_wl_writer *w, const char *dir, struct mt_error *e)
{
	char proc[32];
	w->fd = open(dir, O_TMPFILE | O_RDWR, 0666); /* -1 where the filesystem has none */
	if (w->fd >= 0) {
		proc_name(proc, w->fd);
		if (access(proc, F_OK) < 0) { /* no /proc to link it through */
			close(w->fd);
			w->fd = -1;
		}
	}
	if (w->fd < 0) {
		w->fd = make_temp(w->path, "tmp", &w->tmp_path);
		if (w->fd < 0)
			return mt_error_set(e, w->path, "cannot create the output: %s", strerror(errno));
		guard_temp(w->tmp_path);
		mode_t mask = umask(0); /* mkstemp's 0600 would hide the workload from others */
		umask(mask);
		fchmod(w->fd, 0666 & ~mask);
	}
	return 0;
}

static int open_files(struct mt_wl_writer *w, struct mt_error *e)
{
	struct stat st;
	if (lstat(w->path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return mt_error_set(e, w->path, "is a directory, not a workload file name");
		if (!w->overwrite)
			return mt_error_set(e, w->path, "already exists; not overwriting it");
	}
	char *dir = dir_of(w->path);
	if (!dir)
		return mt_error_set(e, w->path, "out of memory");
	int rc = open_output(w, dir, e);
	if (rc == 0 && (w->spill = mt_anon_file(dir, "mtwl-spill-")) < 0)
		rc = mt_error_set(e, w->path, "cannot create a spill file beside it: %s",
				  strerror(errno));
	free(dir);
	return rc;
}

struct mt_wl_writer *mt_wl_writer_open(const char *path, int overwrite, int timing,
				       uint8_t ptr_size, struct mt_error *e)
{
	struct mt_wl_writer *w = calloc(1, sizeof *w);
	if (!w || !(w->path = strdup(path))) {
		free(w);
		mt_error_set(e, path, "out of memory");
		return NULL;
	}
	w->fd = w->spill = -1;
	w->direct = 1;
	w->overwrite = overwrite;
	w->timing = timing;
	w->ptr_size = ptr_size;
	if (open_files(w, e) < 0) {
		mt_wl_writer_abort(w);
		return NULL;
	}
	return w;
}

static int leave_direct(struct mt_wl_writer *w, struct mt_error *e);

int mt_wl_writer_thread(struct mt_wl_writer *w, uint32_t tid, struct mt_error *e)
{
	if (w->ns == 1 && w->direct && leave_direct(w, e) < 0)
		return -1;
	if (w->ns == w->scap) {
		size_t ncap = w->scap ? 2 * w->scap : 16;
		struct mt_wl_stream *n = realloc(w->s, ncap * sizeof *n);
		if (!n)
			return mt_error_set(e, w->path, "out of memory for %zu threads", ncap);
		w->s = n;
		w->scap = ncap;
	}
	w->s[w->ns] = (struct mt_wl_stream){ .tid = tid, .st = { .new_signed = 1 } };
	return (int)w->ns++;
}

/* Writes all n bytes at p to fd: at offset `off`, or where fd stands if
 * off is WRITE_HERE. */
#define WRITE_HERE UINT64_MAX
static int put_all(int fd, const uint8_t *p, size_t n, uint64_t off)
{
	while (n) {
		ssize_t k = off == WRITE_HERE ? write(fd, p, n) : pwrite(fd, p, n, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
		if (off != WRITE_HERE)
			off += (uint64_t)k;
	}
	return 0;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	return put_all(fd, p, n, WRITE_HERE);
}

/* Room in s's list for one more chunk. */
static int chunk_room(struct mt_wl_writer *w, struct mt_wl_stream *s, struct mt_error *e)
{
	if (s->nchunks < s->cap)
		return 0;
	size_t ncap = s->cap ? 2 * s->cap : 8;
	struct mt_wl_chunk *n = realloc(s->chunks, ncap * sizeof *n);
	if (!n)
		return mt_error_set(e, w->path, "out of memory");
	s->chunks = n;
	s->cap = ncap;
	return 0;
}

/* Appends the buffer's bytes to the spill file, or while direct (s is then
 * the only stream) to the output at the stream's place, and empties it. */
static int spill(struct mt_wl_writer *w, struct mt_wl_stream *s, struct mt_error *e)
{
	if (w->direct) {
		assert(s == w->s && w->ns == 1);
		if (put_all(w->fd, s->buf, s->used, DIRECT_START + s->spilled) < 0)
			return mt_error_set(e, w->path, "cannot write: %s", strerror(errno));
	} else {
		if (chunk_room(w, s, e) < 0)
			return -1;
		if (write_all(w->spill, s->buf, s->used) < 0)
			return mt_error_set(e, w->path, "cannot write the spill file: %s",
					    strerror(errno));
		s->chunks[s->nchunks++] = (struct mt_wl_chunk){ w->spill_end, s->used };
		w->spill_end += s->used;
	}
	s->spilled += s->used;
	s->used = 0;
	return 0;
}

static int copy_range(int from, uint64_t off, size_t len, int to, uint8_t *buf);

/* A second thread comes: the first one's bytes, written to the output,
 * move to the spill file as chunks, and the output is empty again. */
static int leave_direct(struct mt_wl_writer *w, struct mt_error *e)
{
	struct mt_wl_stream *s = &w->s[0];
	uint8_t *buf = malloc(CHUNK);
	if (!buf)
		return mt_error_set(e, w->path, "out of memory");
	errno = 0;
	w->direct = 0;
	for (uint64_t done = 0; done < s->spilled;) {
		uint32_t len = s->spilled - done < CHUNK ? (uint32_t)(s->spilled - done) : CHUNK;
		if (chunk_room(w, s, e) < 0)
			goto fail;
		if (copy_range(w->fd, DIRECT_START + done, len, w->spill, buf) < 0) {
			mt_error_set(e, w->path, "cannot write the spill file: %s",
				     errno ? strerror(errno) : "short copy");
			goto fail;
		}
		s->chunks[s->nchunks++] = (struct mt_wl_chunk){ w->spill_end, len };
		w->spill_end += len;
		done += len;
	}
	free(buf);
	if (ftruncate(w->fd, 0) < 0)
		return mt_error_set(e, w->path, "cannot write: %s", strerror(errno));
	return 0;
fail:
	free(buf);
	return -1;
}

/* Room for one more op: a bigger buffer, or the full one spilled. */
static int make_room(struct mt_wl_writer *w, struct mt_wl_stream *s, struct mt_error *e)
{
	if (s->size == CHUNK)
		return spill(w, s, e);
	uint32_t size = s->size ? 2 * s->size : FIRST_BUF;
	uint8_t *buf = realloc(s->buf, size);
	if (!buf)
		return mt_error_set(e, w->path, "out of memory for the stream of thread %u", s->tid);
	s->buf = buf;
	s->size = size;
	return 0;
}

int mt_wl_writer_op_slow(struct mt_wl_writer *w, int thread, const struct mt_op *op,
			 struct mt_error *e)
{
	struct mt_wl_stream *s = &w->s[thread];
	if (s->size - s->used < MT_WL_OP_MAX && make_room(w, s, e) < 0)
		return -1;
	mt_wl_writer_put(w, s, op, w->timing);
	return 0;
}

int mt_wl_writer_flush_thread(struct mt_wl_writer *w, int thread, struct mt_error *e)
{
	struct mt_wl_stream *s = &w->s[thread];
	if (s->used && spill(w, s, e) < 0)
		return -1;
	free(s->buf);
	s->buf = NULL;
	s->size = 0;
	return 0;
}

/* ---- finishing ---- */

static uint64_t stream_length(const struct mt_wl_stream *s)
{
	return s->spilled + s->used;
}

static void encode_header(uint8_t h[MT_WL_HEADER_SIZE], const struct mt_wl_writer *w,
			  const struct mt_wl_info *t)
{
	memset(h, 0, MT_WL_HEADER_SIZE);
	memcpy(h + MT_WH_L_MAGIC, MT_WL_MAGIC, 8);
	mt_put_le16(h + MT_WH_L_VERSION, MT_WL_VERSION);
	h[MT_WH_L_ENDIAN] = t->endian ? t->endian : 1;
	h[MT_WH_L_PTR_SIZE] = w->ptr_size;
	mt_put_le32(h + MT_WH_L_FLAGS, w->timing ? MT_WLF_TIMING : 0);
	mt_put_le32(h + MT_WH_L_HEADER_SIZE, MT_WL_HEADER_SIZE);
	mt_put_le32(h + MT_WH_L_THREADS, (uint32_t)w->ns);
	mt_put_le64(h + MT_WH_L_OBJECTS, t->objects);
	mt_put_le64(h + MT_WH_L_SYNCS, t->syncs);
	mt_put_le64(h + MT_WH_L_OPS, w->ops);
	mt_put_le64(h + MT_WH_L_UNKNOWN_FREES, t->unknown_frees);
	mt_put_le64(h + MT_WH_L_DOUBLE_FREES, t->double_frees);
	mt_put_le64(h + MT_WH_L_SOURCE_RECORDS, t->source_records);
	mt_put_le64(h + MT_WH_L_IDEAL_PEAK, t->ideal_peak);
	mt_put_le64(h + MT_WH_L_SOURCE_DROPPED, t->source_dropped);
	mt_put_le64(h + MT_WH_L_CONTRADICTIONS, t->contradictions);
	mt_put_le32(h + MT_WH_L_SOURCE_STOP, t->source_stop);
	mt_put_le64(h + MT_WH_L_SOURCE_STOP_RECORDS, t->source_stop ? t->source_stop_records : 0);
	for (int i = 0; i < 16; i++)
		mt_put_le64(h + MT_WH_L_CALLS + 8 * i, w->calls[i]);
}

static int write_head(struct mt_wl_writer *w, const struct mt_wl_info *totals)
{
	uint8_t h[MT_WL_HEADER_SIZE], t[MT_WL_THREAD_ENTRY];
	encode_header(h, w, totals);
	if (write_all(w->fd, h, sizeof h) < 0)
		return -1;
	uint64_t off = MT_WL_HEADER_SIZE + (uint64_t)w->ns * MT_WL_THREAD_ENTRY;
	for (size_t i = 0; i < w->ns; i++) {
		const struct mt_wl_stream *s = &w->s[i];
		memset(t, 0, sizeof t);
		mt_put_le32(t + MT_WT_TID, s->tid);
		mt_put_le64(t + MT_WT_OFFSET, off);
		mt_put_le64(t + MT_WT_LENGTH, stream_length(s));
		mt_put_le64(t + MT_WT_OPS, s->ops);
		if (write_all(w->fd, t, sizeof t) < 0)
			return -1;
		off += stream_length(s);
	}
	return 0;
}

/* Appends len bytes of `from` at off to `to`, in the kernel where it can
 * (no trip through this process's memory), else through buf (CHUNK bytes,
 * len at most that). */
static int copy_range(int from, uint64_t off, size_t len, int to, uint8_t *buf)
{
	loff_t at = (loff_t)off;
	size_t left = len;
	while (left) {
		ssize_t n = copy_file_range(from, &at, to, NULL, left, 0);
		if (n <= 0)
			break;
		left -= (size_t)n;
	}
	if (!left)
		return 0;
	size_t done = len - left;
	return pread(from, buf, left, (off_t)(off + done)) == (ssize_t)left &&
		       write_all(to, buf, left) == 0 ? 0 : -1;
}

/* A direct stream's bytes are in place already, after the header. */
static int copy_stream(struct mt_wl_writer *w, const struct mt_wl_stream *s, uint8_t *buf)
{
	if (w->direct)
		return put_all(w->fd, s->buf, s->used, DIRECT_START + s->spilled);
	for (size_t i = 0; i < s->nchunks; i++)
		if (copy_range(w->spill, s->chunks[i].off, s->chunks[i].len, w->fd, buf) < 0)
			return -1;
	return write_all(w->fd, s->buf, s->used);
}

/* Links the anonymous output at path.  Replacing a file goes through a name
 * of its own and a rename, so path always holds a whole workload; signals
 * wait meanwhile, so that name cannot be left behind. */
static int link_in_place(struct mt_wl_writer *w, struct mt_error *e)
{
	char proc[32];
	proc_name(proc, w->fd);
	if (linkat(AT_FDCWD, proc, AT_FDCWD, w->path, AT_SYMLINK_FOLLOW) == 0)
		return 0;
	if (errno != EEXIST)
		return mt_error_set(e, w->path, "cannot create: %s", strerror(errno));
	if (!w->overwrite)
		return mt_error_set(e, w->path, "already exists; not overwriting it");
	size_t n = strlen(w->path) + 40;
	char *tmp = malloc(n);
	if (!tmp)
		return mt_error_set(e, w->path, "out of memory");
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	int rc = -1;
	for (unsigned i = 0; rc < 0 && i < 100; i++) {
		snprintf(tmp, n, "%s.tmp%ld.%u", w->path, (long)getpid(), i);
		rc = linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW);
		if (rc < 0 && errno != EEXIST)
			break;
	}
	if (rc < 0)
		mt_error_set(e, w->path, "cannot create a name to rename from: %s", strerror(errno));
	else if ((rc = rename(tmp, w->path)) < 0) {
		mt_error_set(e, w->path, "cannot rename into place: %s", strerror(errno));
		unlink(tmp);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(tmp);
	return rc;
}

/* Replaces path only when allowed, atomically either way. */
static int put_in_place(struct mt_wl_writer *w, struct mt_error *e)
{
	if (!w->tmp_path)
		return link_in_place(w, e);
	if (w->overwrite) {
		if (rename(w->tmp_path, w->path) < 0)
			return mt_error_set(e, w->path, "cannot rename into place: %s", strerror(errno));
	} else if (link(w->tmp_path, w->path) < 0) {
		if (errno == EEXIST)
			return mt_error_set(e, w->path, "already exists; not overwriting it");
		return mt_error_set(e, w->path, "cannot create: %s", strerror(errno));
	} else {
		unlink(w->tmp_path);
	}
	unguard_temp();
	free(w->tmp_path);
	w->tmp_path = NULL; /* nothing left for abort to remove */
	return 0;
}

int mt_wl_writer_finish(struct mt_wl_writer *w, const struct mt_wl_info *totals, struct mt_error *e)
{
	uint8_t *buf = malloc(CHUNK);
	int rc = -1;
	errno = 0; /* a short pread leaves it alone */
	if (!buf) {
		mt_error_set(e, w->path, "out of memory");
		goto out;
	}
	if (write_head(w, totals) < 0)
		goto io_error;
	for (size_t i = 0; i < w->ns; i++)
		if (copy_stream(w, &w->s[i], buf) < 0)
			goto io_error;
	if (fsync(w->fd) < 0)
		goto io_error;
	rc = put_in_place(w, e);
	goto out;
io_error:
	mt_error_set(e, w->path, "cannot write: %s", errno ? strerror(errno) : "short write");
out:
	free(buf);
	mt_wl_writer_abort(w);
	return rc;
}

void mt_wl_writer_abort(struct mt_wl_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	if (w->spill >= 0)
		close(w->spill);
	if (w->tmp_path) {
		unlink(w->tmp_path);
		unguard_temp();
	}
	for (size_t i = 0; i < w->ns; i++) {
		free(w->s[i].buf);
		free(w->s[i].chunks);
	}
	free(w->s);
	free(w->tmp_path);
	free(w->path);
	free(w);
}
