/*
 * convert.h - turn an opened trace into a workload file (the engine of
 * trace2wl; main.c only parses options and prints the result).
 */
#ifndef TRACE2WL_CONVERT_H
#define TRACE2WL_CONVERT_H

#include <stdint.h>

#include "mt_error.h"
#include "trace.h"

/* Whether the workload keeps each call's time.  By default a trace of
 * more than one thread keeps them: trace_run needs them to hold the threads
 * to the recorded order, and without it a producer runs ahead of its
 * consumers.  One thread has no order to keep, and the times cost ~1 byte
 * a call. */
enum conv_timing { CONV_TIMING_AUTO, CONV_TIMING_ON, CONV_TIMING_OFF };

struct conv_opts {
	const char *input_name; /* for messages: the user's name, not a temporary one */
	const char *output;
	int overwrite;
	enum conv_timing timing; /* keep per-op ns deltas */
	int progress;   /* progress with ETA on stderr (also when it is a terminal) */
};

#define CONV_NOTES 10 /* problems described for the user; all are counted */

struct conv_result {
	uint32_t threads;      /* workload threads (those with at least one op) */
	uint64_t calls;        /* call ops written, sync ops not counted */
	uint64_t records;      /* trace records read, events included */
	uint64_t dropped;      /* calls the recorder did not record (its header says) */
	uint32_t stop_reason;  /* the recording stopped early (its header says) */
	uint64_t stop_records;
	uint64_t events;       /* allocator events skipped */
	uint64_t objects, syncs, never_freed;
	uint64_t adoptions;    /* freed-index lists one thread took from another */
	uint64_t unknown_frees, double_frees, cycles_broken;
	uint64_t ideal_peak;
	uint64_t peak_live;    /* blocks live at once, at most */
	uint64_t bytes;        /* size of the workload file */
	/* Damage met on the way (double frees, contradictions), to print once
	 * the conversion succeeded: a failure is one line, its error. */
	uint64_t problems;
	struct mt_error notes[CONV_NOTES]; /* the first ones */
};

/* Converts t into opts->output.  0, or -1 with e set and no output left. */
int convert(struct mt_trace *t, const struct conv_opts *opts, struct conv_result *res,
	    struct mt_error *e);

#endif
