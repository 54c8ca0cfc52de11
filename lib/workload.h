/*
 * workload.h - reading and writing workload files (see wl_format.h).
 *
 * trace2wl writes through mt_wl_writer, trace_run and the tests read through
 * mt_wl_reader; nothing else touches workload bytes.
 *
 * The writer keeps memory bounded by the number of threads, not by the
 * length of the workload: each thread's ops are encoded into a small buffer
 * that is spilled to a temporary file beside the output; finishing writes
 * the header and thread table and concatenates the streams into a file
 * without a name, then links it into place, so a failed or interrupted run
 * leaves nothing.
 */
#ifndef MT_WORKLOAD_H
#define MT_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "mt_error.h"
#include "wl_format.h"

struct mt_wl_info {
	uint16_t version;
	uint8_t endian, ptr_size;
	uint32_t flags;        /* MT_WLF_* */
	uint32_t threads;
	uint64_t objects, syncs, ops;
	uint64_t unknown_frees, double_frees, source_records, ideal_peak;
	uint64_t source_dropped, contradictions;
	uint32_t source_stop;        /* enum mt_stop_reason of the trace, 0 when complete */
	uint64_t source_stop_records;
	uint64_t calls[16];    /* ops per opcode */
};

struct mt_wl_thread {
	uint32_t tid;
	uint64_t offset, length, ops;
};

/* ---- reader ---- */

struct mt_wl;

/* Maps and validates path: header, thread table, stream bounds.  With
 * full_check, also decodes every stream and checks that op counts, object
 * and sync indices agree with the header, every object is allocated once,
 * every sync point is signalled once, no WAIT is left waiting, and every
 * use of an object follows its allocation and earlier uses through sync
 * points in any replay order. */
struct mt_wl *mt_wl_open(const char *path, int full_check, struct mt_error *e);
void mt_wl_close(struct mt_wl *w);
const struct mt_wl_info *mt_wl_get_info(const struct mt_wl *w);
const struct mt_wl_thread *mt_wl_get_thread(const struct mt_wl *w, uint32_t i);
/* The thread's stream bytes, valid until mt_wl_close. */
const uint8_t *mt_wl_stream(const struct mt_wl *w, uint32_t i);
const char *mt_wl_path(const struct mt_wl *w);
/* 1 with msg set to "FILE: warning: made from an incomplete trace: ..."
 * when the trace a workload came from stopped early (source_stop and
 * source_stop_records of its header; a replay then misses the calls after
 * the stop), else 0.  Every tool that reads workloads says it so. */
int mt_wl_incomplete(const char *path, uint32_t source_stop, uint64_t source_stop_records,
		     struct mt_error *msg);

/* The decoding state each stream of a workload starts in: its version says
 * how new object indices are encoded (wl_format.h). */
static inline struct mt_op_state mt_wl_first_state(const struct mt_wl_info *in)
{
	return (struct mt_op_state){ .new_signed = in->version >= 2 };
}

/* ---- writer ---- */

/* The writer and its streams are public only so that mt_wl_writer_op can be
 * inline (trace2wl writes one op per traced call, and a call into the
 * library cost it as many instructions as the encoding); their fields are
 * wl_writer.c's own. */
struct mt_wl_stream {
	uint32_t tid;
	uint32_t used, size;          /* bytes in buf, and its size */
	uint8_t *buf;                 /* NULL until the thread writes, and after a flush */
	struct mt_wl_chunk *chunks;   /* spilled bytes, in stream order */
	size_t nchunks, cap;
	uint64_t spilled;             /* their total */
	uint64_t ops;
	struct mt_op_state st;
};

struct mt_wl_writer {
	char *path, *tmp_path;
	int fd, spill;                /* temporary output, unlinked spill file */
	int overwrite, timing;
	int direct;                   /* one thread so far: its chunks go to fd, in place */
	uint8_t ptr_size;
	uint64_t spill_end;           /* bytes in the spill file */
	struct mt_wl_stream *s;
	size_t ns, scap;
	uint64_t ops, calls[MT_WL_OPCODES]; /* by opcode; the header has the calls' */
};

/* Starts a workload to be put at path at finish; fails if path exists
 * unless overwrite.  timing: store per-op ns deltas (MT_WLF_TIMING). */
struct mt_wl_writer *mt_wl_writer_open(const char *path, int overwrite, int timing,
				       uint8_t ptr_size, struct mt_error *e);
/* Adds a thread; returns its index (0, 1, ...) or -1 with e set. */
int mt_wl_writer_thread(struct mt_wl_writer *w, uint32_t tid, struct mt_error *e);
/* Encodes op at the end of s's buffer, which has MT_WL_OP_MAX bytes free,
 * and counts it; timing is w's. */
static inline __attribute__((always_inline)) void mt_wl_writer_put(struct mt_wl_writer *w,
								     struct mt_wl_stream *s,
								     const struct mt_op *op,
								     int timing)
{
	s->used += (uint32_t)mt_op_encode(s->buf + s->used, &s->st, op, timing);
	s->ops++;
	w->ops++;
	w->calls[op->code & (MT_WL_OPCODES - 1)]++;
}

/* mt_wl_writer_op's rare case: a full buffer. */
int mt_wl_writer_op_slow(struct mt_wl_writer *w, int thread, const struct mt_op *op,
			 struct mt_error *e);

/* mt_wl_writer_op for a caller that knows w's timing, and passes it as a
 * constant (trace2wl's loop, made once for each): the encoder's test of it
 * then folds away. */
static inline __attribute__((always_inline)) int mt_wl_writer_op_timed(struct mt_wl_writer *w,
									 int thread,
									 const struct mt_op *op,
									 int timing,
									 struct mt_error *e)
{
	struct mt_wl_stream *s = &w->s[thread];
	if (s->size - s->used < MT_WL_OP_MAX)
		return mt_wl_writer_op_slow(w, thread, op, e);
	mt_wl_writer_put(w, s, op, timing);
	return 0;
}

/* Appends op to thread's stream; counts it.  Inline: one encode straight
 * into the thread's buffer (tens of instructions), with a call only every
 * few thousand ops. */
static inline int mt_wl_writer_op(struct mt_wl_writer *w, int thread, const struct mt_op *op,
				  struct mt_error *e)
{
	return mt_wl_writer_op_timed(w, thread, op, w->timing, e);
}
/* Moves the thread's buffered ops to the spill file and frees its buffer,
 * for a thread that is done or idle: memory then follows the threads still
 * writing.  Later ops to the thread start a new buffer. */
int mt_wl_writer_flush_thread(struct mt_wl_writer *w, int thread, struct mt_error *e);
/* Writes header and streams, puts the file into place, frees w.  The caller gives
 * the totals it alone knows (objects, syncs, drops, ideal peak). */
int mt_wl_writer_finish(struct mt_wl_writer *w, const struct mt_wl_info *totals, struct mt_error *e);
/* Drops everything written so far (temporary files removed), frees w. */
void mt_wl_writer_abort(struct mt_wl_writer *w);

const char *mt_op_name(unsigned code);

#endif
