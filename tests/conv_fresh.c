/*
 * conv_fresh.c - a trace whose allocations never reuse an address, for the
 * test that trace2wl's memory follows the live set and not how many
 * distinct addresses a trace touches (a program that maps fresh memory as
 * it goes, or an allocator that never reuses, looks like this).
 *
 * Usage: conv_fresh OUT.mtrace CALLS LIVE
 * One thread allocates LIVE blocks, then frees its oldest block and
 * allocates a new one (every eighth time by realloc) until CALLS calls are
 * made, then frees what is left: exactly LIVE blocks are live at the peak,
 * and every allocation returns an address higher than all before it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "gen_writer.h"
#include "trace.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static struct mt_trace_writer *w;
static uint64_t ts = 1000, next_addr = 0x10000, calls;

static void add(struct mt_rec *r)
{
	struct mt_error e;
	r->ts = ts += 10 + rnd() % 40;
	if (mt_trace_writer_add(w, 7, r, &e) < 0) {
		mt_error_print("conv_fresh", &e);
		exit(1);
	}
	calls++;
}

/* The next address never handed out before, at an irregular distance. */
static uint64_t fresh(void)
{
	return next_addr += 16 * (1 + rnd() % 64);
}

static uint64_t alloc(void)
{
	struct mt_rec r = { .call = MT_CALL_MALLOC, .size = 8 + rnd() % 248, .ptr_out = fresh() };
	add(&r);
	return r.ptr_out;
}

static void release(uint64_t addr)
{
	struct mt_rec r = { .call = MT_CALL_FREE, .ptr_in = addr };
	add(&r);
}

static uint64_t move(uint64_t addr)
{
	struct mt_rec r = { .call = MT_CALL_REALLOC, .ptr_in = addr, .size = 8 + rnd() % 248,
			    .ptr_out = fresh() };
	add(&r);
	return r.ptr_out;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: conv_fresh OUT.mtrace CALLS LIVE\n");
		return 2;
	}
	uint64_t want = strtoull(argv[2], NULL, 10);
	size_t live = strtoull(argv[3], NULL, 10);
	uint64_t *ring = live ? calloc(live, sizeof *ring) : NULL;
	if (!ring || want < 2 * live) {
		fprintf(stderr, "conv_fresh: LIVE must be positive and CALLS at least twice LIVE\n");
		return 2;
	}
	w = gen_writer_open("conv_fresh", argv[1], 4243);
	for (size_t i = 0; i < live; i++)
		ring[i] = alloc();
	/* ring[oldest] is the oldest live block; one turn a call or two, so
	 * that the frees at the end make exactly CALLS calls. */
	for (size_t oldest = 0; calls + live < want; oldest = (oldest + 1) % live) {
		if (rnd() % 8 == 0 || calls + live + 1 == want) {
			ring[oldest] = move(ring[oldest]);
		} else {
			release(ring[oldest]);
			ring[oldest] = alloc();
		}
	}
	for (size_t i = 0; i < live; i++)
		release(ring[i]);
	free(ring);
	struct mt_error e;
	if (mt_trace_writer_close(w, 0, &e) < 0) {
		mt_error_print("conv_fresh", &e);
		return 1;
	}
	return 0;
}
