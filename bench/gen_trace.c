/*
 * gen_trace.c - a synthetic trace of any length for bench/trace2wl.sh.
 *
 * The converter's speed and memory depend on what a trace looks like, so
 * this one looks like a program's: several threads taking turns in bursts,
 * mostly small sizes with a tail of large ones, a bounded live set (so peak
 * RSS of the converter should not grow with length), addresses reused the
 * way a size-class allocator reuses them, some realloc and calloc, and a
 * share of blocks freed by another thread than the one that allocated them.
 *
 * Usage: gen_trace OUT.mtrace CALLS [THREADS [LIVE]]
 *   THREADS default 4, LIVE (blocks kept live per thread) default 4096.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

#define BURST 64        /* calls a thread makes before the next one runs */
#define CLASSES 64      /* size classes of 16 bytes, then one "large" class */

struct block {
	uint64_t addr, size;
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Mostly small requests, a tail up to 64 KiB. */
static uint64_t pick_size(void)
{
	uint64_t r = rnd() % 100;
	if (r < 70)
		return 8 + rnd() % 120;
	if (r < 95)
		return 128 + rnd() % 896;
	return 1024 + rnd() % 65536;
}

/* A toy size-class allocator: freed addresses are handed out again first. */
static uint64_t *free_list[CLASSES + 1];
static size_t free_n[CLASSES + 1], free_cap[CLASSES + 1];
static uint64_t brk_addr = 0x555555560000ull;

static unsigned class_of(uint64_t size)
{
	uint64_t c = (size + 15) / 16;
	return c < CLASSES ? (unsigned)c : CLASSES;
}

static uint64_t take_addr(uint64_t size)
{
	unsigned c = class_of(size);
	if (c < CLASSES && free_n[c])
		return free_list[c][--free_n[c]];
	uint64_t a = brk_addr;
	brk_addr += c < CLASSES ? c * 16 + 16 : ((size + 4095) & ~4095ull) + 4096;
	return a;
}

static void give_addr(uint64_t addr, uint64_t size)
{
	unsigned c = class_of(size);
	if (c == CLASSES)
		return; /* large blocks are "unmapped": never reused */
	if (free_n[c] == free_cap[c]) {
		free_cap[c] = free_cap[c] ? 2 * free_cap[c] : 1024;
		free_list[c] = realloc(free_list[c], free_cap[c] * sizeof *free_list[c]);
		if (!free_list[c]) {
			fprintf(stderr, "gen_trace: out of memory\n");
			exit(1);
		}
	}
	free_list[c][free_n[c]++] = addr;
}

static void add(struct mt_trace_writer *w, uint32_t tid, const struct mt_rec *r)
{
	struct mt_error e;
	if (mt_trace_writer_add(w, tid, r, &e) < 0) {
		mt_error_print("gen_trace", &e);
		exit(1);
	}
}

/* One call by thread t on a random slot of a (usually its own) live set. */
static void one_call(struct mt_trace_writer *w, uint32_t tid, struct block *slots, uint64_t ts)
{
	struct block *b = &slots[0];
	struct mt_rec r = { .ts = ts };
	if (!b->addr) {
		r.size = pick_size();
		r.call = rnd() % 16 ? MT_CALL_MALLOC : MT_CALL_CALLOC;
		if (r.call == MT_CALL_CALLOC) {
			r.nmemb = 1 + rnd() % 4;
			r.size = (r.size + r.nmemb - 1) / r.nmemb;
		}
		uint64_t want = mt_rec_requested(&r);
		r.ptr_out = take_addr(want);
		r.usable = (want + 15) & ~15ull;
		*b = (struct block){ r.ptr_out, want };
	} else if (rnd() % 8 == 0) {
		r.call = MT_CALL_REALLOC;
		r.ptr_in = b->addr;
		r.size = pick_size();
		give_addr(b->addr, b->size);
		r.ptr_out = take_addr(r.size);
		r.usable = (r.size + 15) & ~15ull;
		*b = (struct block){ r.ptr_out, r.size };
	} else {
		r.call = MT_CALL_FREE;
		r.ptr_in = b->addr;
		give_addr(b->addr, b->size);
		*b = (struct block){ 0, 0 };
	}
	add(w, tid, &r);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: gen_trace OUT.mtrace CALLS [THREADS [LIVE]]\n");
		return 2;
	}
	uint64_t calls = strtoull(argv[2], NULL, 10);
	uint32_t threads = argc > 3 ? (uint32_t)atoi(argv[3]) : 4;
	size_t live = argc > 4 ? (size_t)atol(argv[4]) : 4096;
	if (!calls || threads < 1 || live < 1) {
		fprintf(stderr, "gen_trace: CALLS, THREADS and LIVE must be positive\n");
		return 2;
	}
	struct mt_trace_info info = { .pid = 4242, .ts_freq = 1000000000u,
				      .ts_source = MT_TS_MONOTONIC_NS, .start_ts = 1000 };
	strcpy(info.exe, "/usr/bin/gen_trace");
	struct mt_error e;
	struct mt_trace_writer *w = mt_trace_writer_open(argv[1], &info, 0, &e);
	struct block *slots = calloc(threads * live, sizeof *slots);
	if (!w || !slots) {
		mt_error_print("gen_trace", &e);
		return 1;
	}
	uint64_t ts = 1000;
	for (uint64_t n = 0; n < calls;) {
		uint32_t t = (uint32_t)(rnd() % threads);
		for (int k = 0; k < BURST && n < calls; k++, n++) {
			/* one call in 32 touches the next thread's blocks: a handoff */
			uint32_t owner = rnd() % 32 ? t : (t + 1) % threads;
			ts += 20 + rnd() % 60;
			one_call(w, 1000 + t, &slots[owner * live + rnd() % live], ts);
		}
	}
	if (mt_trace_writer_close(w, 0, &e) < 0) {
		mt_error_print("gen_trace", &e);
		return 1;
	}
	free(slots);
	return 0;
}
