/*
 * run_loop - the floor trace_run's replay is measured against: the same
 * allocator calls as a one-thread workload, made from a pre-decoded array
 * in a plain loop.
 *
 *   run_loop WORKLOAD plain [TIMER]   the calls, nothing else
 *   run_loop WORKLOAD timed [TIMER]   each call between the same two timer
 *                                     reads trace_run uses, summed
 *   run_loop - empty [TIMER]          the timer's cost and residual: what an
 *                                     empty timed region costs before and
 *                                     after trace_run's calibration is
 *                                     subtracted, the residual as the mean
 *                                     of the fastest 99% (the slowest 1% are
 *                                     preemptions)
 *
 * TIMER is a --timer name of trace_run (default auto); one this processor
 * lacks exits with status 3 and one line, so a script can skip it.
 * Prints one JSON object: calls, wall_ns (the loop alone), and the sum of
 * timed cycles or the residual.  bench/trace_run.sh subtracts these from
 * trace_run's own figures to get the replay's cost per call.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timer.h"
#include "workload.h"

struct call {
	uint8_t code;
	uint32_t in, out; /* object indices */
	size_t size;
};

static struct call *decode(const char *path, size_t *ncalls, uint64_t *nobjects)
{
	struct mt_error e;
	struct mt_wl *w = mt_wl_open(path, 1, &e);
	if (!w) {
		fprintf(stderr, "run_loop: %s\n", e.msg);
		exit(1);
	}
	const struct mt_wl_info *info = mt_wl_get_info(w);
	if (info->threads != 1 || info->objects > UINT32_MAX) {
		fprintf(stderr, "run_loop: %s: needs one thread and < 2^32 objects\n", path);
		exit(1);
	}
	const struct mt_wl_thread *t = mt_wl_get_thread(w, 0);
	const uint8_t *p = mt_wl_stream(w, 0), *end = p + t->length;
	struct call *calls = calloc(t->ops, sizeof *calls);
	struct mt_op_state st = { 0 };
	struct mt_op op;
	size_t n = 0;
	while (calls && p < end && !mt_op_decode(&p, end, &st, &op, info->flags & MT_WLF_TIMING)) {
		if (op.code != MT_CALL_MALLOC && op.code != MT_CALL_FREE) {
			fprintf(stderr, "run_loop: %s: only malloc and free are looped\n", path);
			exit(1);
		}
		calls[n++] = (struct call){ op.code, (uint32_t)op.old_obj, (uint32_t)op.new_obj,
					    (size_t)op.size };
	}
	*ncalls = n;
	*nobjects = info->objects;
	mt_wl_close(w);
	return calls;
}

/* noinline: callgrind counts this function alone (bench/trace_run.sh). */
__attribute__((noinline)) static uint64_t loop(const struct call *calls, size_t n, void **obj, int timed,
						  enum rt_timer_source timer)
{
	uint64_t sum = 0, t0 = 0, t1 = 0;
	for (size_t i = 0; i < n; i++) {
		const struct call *c = &calls[i];
		if (timed)
			t0 = rt_now(timer);
		if (c->code == MT_CALL_MALLOC)
			obj[c->out] = malloc(c->size);
		else
			free(obj[c->in]);
		if (timed) {
			t1 = rt_now(timer);
			sum += t1 - t0;
		}
	}
	return sum;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void empty(const struct rt_timer_info *ti)
{
	enum { N = 1000000, KEPT = N / 100 * 99 };
	static uint64_t d[N];
	for (int i = 0; i < N; i++) {
		uint64_t t0 = rt_now(ti->source);
		uint64_t t1 = rt_now(ti->source);
		d[i] = t1 - t0;
	}
	qsort(d, N, sizeof d[0], cmp_u64);
	double sum = 0;
	for (int i = 0; i < KEPT; i++)
		sum += (double)d[i] - (double)ti->overhead;
	printf("{\"timer\":\"%s\",\"overhead\":%llu,\"residual\":%.2f,\"unit\":\"%s\","
	       "\"tsc_mhz\":%.1f,\"freq_source\":\"%s\"}\n", rt_timer_name(ti->source),
	       (unsigned long long)ti->overhead, sum / KEPT, ti->unit, ti->tsc_mhz, ti->freq_key);
}

int main(int argc, char **argv)
{
	enum rt_timer_source want = RT_TIMER_AUTO;
	if (argc < 3 || argc > 4 ||
	    (strcmp(argv[2], "plain") && strcmp(argv[2], "timed") && strcmp(argv[2], "empty")) ||
	    (argc == 4 && rt_timer_parse(argv[3], &want))) {
		fprintf(stderr, "usage: run_loop WORKLOAD plain|timed [TIMER], "
			"or run_loop - empty [TIMER]\n");
		return 2;
	}
	struct rt_timer_info ti;
	const char *why;
	if (rt_timer_init(want, &ti, &why)) {
		fprintf(stderr, "run_loop: %s\n", why);
		return 3;
	}
	if (!strcmp(argv[2], "empty")) {
		empty(&ti);
		return 0;
	}
	size_t n;
	uint64_t objects;
	struct call *calls = decode(argv[1], &n, &objects);
	void **obj = calloc(objects + 1, sizeof *obj);
	if (!calls || !obj) {
		fprintf(stderr, "run_loop: out of memory\n");
		return 1;
	}
	uint64_t t0 = rt_clock_ns();
	uint64_t sum = loop(calls, n, obj, !strcmp(argv[2], "timed"), ti.source);
	uint64_t t1 = rt_clock_ns();
	printf("{\"calls\":%zu,\"wall_ns\":%llu,\"timed_sum\":%llu}\n", n,
	       (unsigned long long)(t1 - t0), (unsigned long long)sum);
	return 0;
}
