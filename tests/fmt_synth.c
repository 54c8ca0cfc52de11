/*
 * fmt_synth - write synthetic traces through lib/'s writer for shell tests.
 *
 *   fmt_synth calls OUT
 *       two threads making one of every call, with known arguments, results
 *       and timestamps (t-fmt-dump.sh knows the expected dump line by line)
 *   fmt_synth bulk OUT THREADS RECORDS WINDOW_SIZE [open|serial]
 *       generated records (tests/fmt_gen.h) of threads 1000, 1001... in
 *       fixed-size windows: interleaved and closed, or left open as by a
 *       killed recorder, or closed with each thread running after the
 *       previous one ended (as short threads do); the damage tests start
 *       from these
 *
 * Tests never write trace bytes by hand except to damage a file on purpose.
 */
#include <stdlib.h>
#include <string.h>

#include "fmt_gen.h"
#include "trace.h"

#define P(x) 0x55d0c0a2##x##ull

struct step {
	uint32_t tid;
	struct mt_rec r;
};

/* ts in nanoseconds since the trace started (monotonic source). */
static const struct step calls[] = {
	{ 100, { .call = MT_CALL_MALLOC, .ts = 1000, .size = 24, .ptr_out = P(a2a0), .usable = 24 } },
	{ 200, { .call = MT_CALL_CALLOC, .ts = 2000, .nmemb = 4, .size = 8, .ptr_out = P(a2c0), .usable = 40 } },
	{ 100, { .call = MT_CALL_REALLOC, .ts = 3000, .ptr_in = P(a2a0), .size = 100, .ptr_out = P(a300), .usable = 104 } },
	{ 200, { .call = MT_CALL_REALLOC, .flags = MT_RF_NULL_IN, .ts = 4000, .size = 10, .ptr_out = P(a370), .usable = 24 } },
	{ 100, { .call = MT_CALL_REALLOCARRAY, .flags = MT_RF_NON_MAIN, .ts = 5000, .ptr_in = P(a300), .nmemb = 3, .size = 50, .ptr_out = 0x7f0000001000ull, .usable = 152 } },
	{ 200, { .call = MT_CALL_MEMALIGN, .ts = 6000, .align = 64, .size = 100, .ptr_out = P(a400), .usable = 104 } },
	{ 100, { .call = MT_CALL_POSIX_MEMALIGN, .ts = 7000, .align = 64, .size = 100, .ptr_out = P(a480), .usable = 104 } },
	{ 200, { .call = MT_CALL_POSIX_MEMALIGN, .flags = MT_RF_NULL_OUT, .ts = 8000, .align = 3, .size = 100, .rc = 22 } },
	{ 100, { .call = MT_CALL_ALIGNED_ALLOC, .ts = 9000, .align = 4096, .size = 4096, .ptr_out = P(b000), .usable = 4096 } },
	{ 200, { .call = MT_CALL_VALLOC, .ts = 10000, .size = 100, .ptr_out = P(c000), .usable = 4096 } },
	{ 100, { .call = MT_CALL_PVALLOC, .ts = 11000, .size = 100, .ptr_out = P(d000), .usable = 4096 } },
	{ 200, { .call = MT_CALL_MALLOC, .flags = MT_RF_NULL_OUT, .ts = 12000, .size = UINT64_MAX } },
	{ 100, { .call = MT_CALL_MALLOC, .flags = MT_RF_MMAPPED, .ts = 13000, .size = 1048576, .ptr_out = 0x7f1234567010ull, .usable = 1052656 } },
	{ 200, { .call = MT_CALL_FREE, .ts = 14000, .ptr_in = 0x7f0000001000ull } },
	{ 100, { .call = MT_CALL_FREE, .flags = MT_RF_NULL_IN, .ts = 15000 } },
	{ 200, { .call = MT_CALL_FREE_SIZED, .ts = 16000, .ptr_in = P(a400), .size = 100 } },
	{ 100, { .call = MT_CALL_FREE_ALIGNED_SIZED, .ts = 17000, .ptr_in = P(a480), .align = 64, .size = 100 } },
	{ 200, { .call = MT_CALL_EVENT, .ts = 18000, .event = MT_EV_SBRK_MORE, .nargs = 2, .args = { P(b000), 0x21000 } } },
	{ 100, { .call = MT_CALL_FREE, .ts = 18000, .ptr_in = 0x7f1234567010ull } },
};

static struct mt_trace_info info(uint8_t source)
{
	struct mt_trace_info in = {
		.pid = 4242, .ppid = 1, .ts_source = source, .allocator = MT_ALLOC_GLIBC,
		.start_realtime_ns = 1700000000000000000ull, .start_mono_ns = 5000000000ull,
		.start_ts = 0, .ts_freq = source == MT_TS_TSC ? 2400000000ull : 1000000000ull,
	};
	strcpy(in.exe, "/usr/bin/synth");
	return in;
}

static int write_calls(const char *path, struct mt_error *e)
{
	struct mt_trace_info in = info(MT_TS_MONOTONIC_NS);
	struct mt_trace_writer *w = mt_trace_writer_open(path, &in, 0, e);
	if (!w)
		return -1;
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
		if (mt_trace_writer_add(w, calls[i].tid, &calls[i].r, e))
			return -1;
	return mt_trace_writer_close(w, 0, e);
}

enum bulk_mode { BULK_CLOSED, BULK_OPEN, BULK_SERIAL };

static int write_bulk(const char *path, unsigned threads, uint64_t records, uint32_t window,
		      enum bulk_mode mode, struct mt_error *e)
{
	struct mt_trace_info in = info(MT_TS_TSC);
	in.start_ts = FMT_START_TS;
	struct mt_trace_writer *w = mt_trace_writer_open(path, &in, window, e);
	if (!w)
		return -1;
	uint64_t rounds = mode == BULK_SERIAL ? threads : 1;
	for (uint64_t round = 0; round < rounds; round++)
		for (uint64_t i = 0; i < records; i++)
			for (unsigned k = 0; k < threads; k++) {
				if (mode == BULK_SERIAL && k != round)
					continue;
				struct mt_rec r;
				fmt_gen_rec(&r, k, i);
				r.ts += round * records * 8; /* serial threads follow each other */
				if (mt_trace_writer_add(w, 1000 + k, &r, e))
					return -1;
			}
	return mt_trace_writer_close(w, mode == BULK_OPEN, e);
}

int main(int argc, char **argv)
{
	struct mt_error e;
	int rc;
	if (argc == 3 && strcmp(argv[1], "calls") == 0) {
		rc = write_calls(argv[2], &e);
	} else if ((argc == 6 || argc == 7) && strcmp(argv[1], "bulk") == 0) {
		const char *mode = argc == 7 ? argv[6] : "closed";
		rc = write_bulk(argv[2], (unsigned)atoi(argv[3]), strtoull(argv[4], NULL, 10),
				(uint32_t)atoi(argv[5]),
				strcmp(mode, "open") == 0     ? BULK_OPEN
				: strcmp(mode, "serial") == 0 ? BULK_SERIAL
							      : BULK_CLOSED, &e);
	} else {
		fprintf(stderr, "usage: fmt_synth calls OUT | "
				"bulk OUT THREADS RECORDS WINDOW [open|serial]\n");
		return 2;
	}
	if (rc)
		fprintf(stderr, "fmt_synth: %s\n", e.msg);
	return rc ? 1 : 0;
}
