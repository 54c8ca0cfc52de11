/*
 * fmt_threads.c - a trace of many short threads run one after another,
 * as a program that starts a thread for each request writes: for the test
 * that the trace's readers keep resident only the threads open at once,
 * not every thread's first window (tests/t-fmt-threads.sh).
 *
 * Usage: fmt_threads OUT.mtrace THREADS CALLS
 * Each thread, after the one before has ended, makes CALLS calls: it
 * allocates 64 blocks, frees and allocates again one at a time, and frees
 * what is left; so at most 64 blocks are live at once.  The windows are
 * the recorder's sizes, each thread's in claim order, as the recorder
 * leaves them.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "gen_writer.h"
#include "trace.h"

enum { LIVE = 64 };

static struct mt_trace_writer *w;
static uint64_t ts = 1000, next_addr = 0x100000;

static void add(uint32_t tid, struct mt_rec *r)
{
	struct mt_error e;
	r->ts = ts += 25;
	if (mt_trace_writer_add(w, tid, r, &e) < 0) {
		mt_error_print("fmt_threads", &e);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: fmt_threads OUT.mtrace THREADS CALLS\n");
		return 2;
	}
	unsigned long threads = strtoul(argv[2], NULL, 10);
	unsigned long calls = strtoul(argv[3], NULL, 10);
	if (!threads || calls < 2 * LIVE || calls % 2) {
		fprintf(stderr, "fmt_threads: THREADS must be positive and CALLS even, at least %d\n",
			2 * LIVE);
		return 2;
	}
	w = gen_writer_open("fmt_threads", argv[1], 4244);
	uint64_t ring[LIVE];
	for (unsigned long t = 1; t <= threads; t++) {
		uint32_t tid = (uint32_t)(1000 + t);
		for (int i = 0; i < LIVE; i++) {
			struct mt_rec r = { .call = MT_CALL_MALLOC, .size = 48, .ptr_out = next_addr += 64 };
			add(tid, &r);
			ring[i] = r.ptr_out;
		}
		for (unsigned long i = 0; i < calls / 2 - LIVE; i++) {
			struct mt_rec f = { .call = MT_CALL_FREE, .ptr_in = ring[i % LIVE] };
			add(tid, &f);
			struct mt_rec r = { .call = MT_CALL_MALLOC, .size = 48, .ptr_out = next_addr += 64 };
			add(tid, &r);
			ring[i % LIVE] = r.ptr_out;
		}
		for (int i = 0; i < LIVE; i++) {
			struct mt_rec f = { .call = MT_CALL_FREE, .ptr_in = ring[i] };
			add(tid, &f);
		}
	}
	struct mt_error e;
	if (mt_trace_writer_close(w, 0, &e) < 0) {
		mt_error_print("fmt_threads", &e);
		return 1;
	}
	return 0;
}
