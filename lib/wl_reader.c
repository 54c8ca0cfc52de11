/*
 * wl_reader.c - open a workload file and check it before anyone replays it.
 *
 * trace_run times every call it makes, so it must not discover mid-replay
 * that a stream is cut, an object is freed before it exists or a thread waits
 * for a signal nobody sends.  Opening maps the file and checks the header,
 * the thread table and the stream bounds; the full check (wl_check.c) also
 * decodes every stream twice: a first pass, then a play of the threads.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mapped.h"
#include "trace.h"
#include "wl_internal.h"

static int map_file(struct mt_wl *w, const char *path, struct mt_error *e)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return mt_error_set(e, path, "cannot open: %s", strerror(errno));
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return mt_error_set(e, path, "not a regular file, so not a workload");
	}
	w->len = (size_t)st.st_size;
	return mt_map_fd(fd, w->len, &w->map, path, e);
}

static int parse_header(struct mt_wl *w, struct mt_error *e)
{
	const uint8_t *h = w->map;
	struct mt_wl_info *in = &w->info;

	if (w->len < 8 || memcmp(h, MT_WL_MAGIC, 8) != 0)
		return mt_error_set(e, w->path, "not a workload (no MTWLOAD magic)");
	if (w->len < MT_WL_HEADER_SIZE)
		return mt_error_set(e, w->path, "truncated: %zu bytes, the header alone is %d",
				    w->len, MT_WL_HEADER_SIZE);
	in->version = mt_get_le16(h + MT_WH_L_VERSION);
	if (in->version > MT_WL_VERSION)
		return mt_error_set(e, w->path,
				    "workload format version %u is newer than this program reads (%d)",
				    in->version, MT_WL_VERSION);
	in->endian = h[MT_WH_L_ENDIAN];
	in->ptr_size = h[MT_WH_L_PTR_SIZE];
	in->flags = mt_get_le32(h + MT_WH_L_FLAGS);
	in->threads = mt_get_le32(h + MT_WH_L_THREADS);
	in->objects = mt_get_le64(h + MT_WH_L_OBJECTS);
	in->syncs = mt_get_le64(h + MT_WH_L_SYNCS);
	in->ops = mt_get_le64(h + MT_WH_L_OPS);
	in->unknown_frees = mt_get_le64(h + MT_WH_L_UNKNOWN_FREES);
	in->double_frees = mt_get_le64(h + MT_WH_L_DOUBLE_FREES);
	in->source_records = mt_get_le64(h + MT_WH_L_SOURCE_RECORDS);
	in->ideal_peak = mt_get_le64(h + MT_WH_L_IDEAL_PEAK);
	in->source_dropped = mt_get_le64(h + MT_WH_L_SOURCE_DROPPED);
	in->contradictions = mt_get_le64(h + MT_WH_L_CONTRADICTIONS);
	for (int i = 0; i < 16; i++)
		in->calls[i] = mt_get_le64(h + MT_WH_L_CALLS + 8 * i);

	if (in->version == 0 || mt_get_le32(h + MT_WH_L_HEADER_SIZE) != MT_WL_HEADER_SIZE ||
	    (in->endian != 1 && in->endian != 2) || (in->ptr_size != 4 && in->ptr_size != 8) ||
	    in->flags & ~(uint32_t)MT_WLF_TIMING)
		return mt_error_set(e, w->path, "corrupt header (version, size, endian or flags)");
	/* Reserved bytes are zero: anything else was not written by a writer of
	 * this version, or is damage.  Version 1 reserves the stop fields too. */
	if (in->version < 2 &&
	    !mt_all_zero(h + MT_WH_L_SOURCE_STOP, MT_WH_L_RESERVED2 - MT_WH_L_SOURCE_STOP))
		return mt_error_set(e, w->path, "corrupt header: reserved bytes are not zero");
	if (!mt_all_zero(h + MT_WH_L_RESERVED2, MT_WL_HEADER_SIZE - MT_WH_L_RESERVED2) ||
	    !mt_all_zero(h + MT_WH_L_RESERVED3, 4))
		return mt_error_set(e, w->path, "corrupt header: reserved bytes are not zero");
	in->source_stop = mt_get_le32(h + MT_WH_L_SOURCE_STOP);
	in->source_stop_records = mt_get_le64(h + MT_WH_L_SOURCE_STOP_RECORDS);
	return 0;
}

/* Streams follow the table back to back, in table order, to the file's end. */
static int parse_threads(struct mt_wl *w, struct mt_error *e)
{
	uint32_t n = w->info.threads;
	uint64_t table_end = MT_WL_HEADER_SIZE + (uint64_t)n * MT_WL_THREAD_ENTRY;
	if (table_end > w->len)
		return mt_error_set(e, w->path, "truncated: the thread table of %u threads ends at %llu",
				    n, (unsigned long long)table_end);
	w->threads = calloc(n ? n : 1, sizeof *w->threads);
	if (!w->threads)
		return mt_error_set(e, w->path, "out of memory for %u threads", n);

	uint64_t off = table_end, ops = 0;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *t = w->map + MT_WL_HEADER_SIZE + (size_t)i * MT_WL_THREAD_ENTRY;
		struct mt_wl_thread *th = &w->threads[i];
		th->tid = mt_get_le32(t + MT_WT_TID);
		th->offset = mt_get_le64(t + MT_WT_OFFSET);
		th->length = mt_get_le64(t + MT_WT_LENGTH);
		th->ops = mt_get_le64(t + MT_WT_OPS);
		if (mt_get_le32(t + MT_WT_FLAGS))
			return mt_error_set(e, w->path, "thread %u (tid %u): flags %#x, none is defined",
					    i, th->tid, mt_get_le32(t + MT_WT_FLAGS));
		if (th->offset != off || th->length > w->len - off)
			return mt_error_set(e, w->path,
					    "thread %u (tid %u): stream at %llu, %llu bytes, does not "
					    "fit the file (truncated?)", i, th->tid,
					    (unsigned long long)th->offset, (unsigned long long)th->length);
		if (th->ops > th->length)
			return mt_error_set(e, w->path, "thread %u (tid %u): %llu ops cannot fit %llu bytes",
					    i, th->tid, (unsigned long long)th->ops,
					    (unsigned long long)th->length);
		off += th->length;
		ops += th->ops;
	}
	if (off != w->len)
		return mt_error_set(e, w->path, "%llu bytes after the last stream",
				    (unsigned long long)(w->len - off));
	if (ops != w->info.ops)
		return mt_error_set(e, w->path, "header says %llu ops, the thread table %llu",
				    (unsigned long long)w->info.ops, (unsigned long long)ops);
	/* Every object and sync point needs an op: a bound that keeps a lying
	 * header from sizing the full check's tables beyond the file's size. */
	if (w->info.objects > ops || w->info.syncs > ops)
		return mt_error_set(e, w->path, "corrupt header: more objects or sync points than ops");
	return 0;
}

struct mt_wl *mt_wl_open(const char *path, int full_check, struct mt_error *e)
{
	struct mt_wl *w = calloc(1, sizeof *w);
	if (!w || !(w->path = strdup(path))) {
		free(w);
		mt_error_set(e, path, "out of memory");
		return NULL;
	}
	if (map_file(w, path, e) < 0 || parse_header(w, e) < 0 || parse_threads(w, e) < 0 ||
	    (full_check && mt_wl_check(w, e) < 0)) {
		mt_wl_close(w);
		return NULL;
	}
	return w;
}

void mt_wl_close(struct mt_wl *w)
{
	if (!w)
		return;
	if (w->map)
		munmap((void *)w->map, w->len);
	free(w->threads);
	free(w->path);
	free(w);
}

const struct mt_wl_info *mt_wl_get_info(const struct mt_wl *w)
{
	return &w->info;
}

const struct mt_wl_thread *mt_wl_get_thread(const struct mt_wl *w, uint32_t i)
{
	return i < w->info.threads ? &w->threads[i] : NULL;
}

const uint8_t *mt_wl_stream(const struct mt_wl *w, uint32_t i)
{
	return i < w->info.threads ? w->map + w->threads[i].offset : NULL;
}

const char *mt_wl_path(const struct mt_wl *w)
{
	return w->path;
}

int mt_wl_incomplete(const char *path, uint32_t source_stop, uint64_t source_stop_records,
		     struct mt_error *msg)
{
	if (!source_stop)
		return 0;
	mt_error_set(msg, path, "warning: made from an incomplete trace: recording stopped "
		     "early (%s) after %llu calls", mt_stop_reason_name(source_stop),
		     (unsigned long long)source_stop_records);
	return 1;
}

const char *mt_op_name(unsigned code)
{
	if (code == MT_OP_SIGNAL)
		return "signal";
	if (code == MT_OP_WAIT)
		return "wait";
	return mt_op_is_call(code) ? mt_call_name(code) : "unknown";
}
