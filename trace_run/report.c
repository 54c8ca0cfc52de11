/*
 * report.c - the text and JSON reports (see report.h).
 */
#include "config.h"

#include <string.h>

#include "report.h"
#include "trace.h"

const char *rt_comma(uint64_t v)
{
	static char ring[8][32];
	static unsigned next;
	char digits[32], *out = ring[next++ % 8];
	int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v), o = 0;
	for (int i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[i];
	}
	out[o] = 0;
	return out;
}

uint64_t rt_total_call_time(const struct rt_result *res)
{
	uint64_t sum = 0;
	for (int c = 0; c < MT_CALL_COUNT; c++)
		sum += res->calls[c].total;
	return sum;
}

static uint64_t total_calls(const struct rt_result *res)
{
	uint64_t n = 0;
	for (int c = 0; c < MT_CALL_COUNT; c++)
		n += res->calls[c].count;
	return n;
}

/*
 * trace_run's own cost, ns a call: the replay threads' CPU time outside
 * the allocator's calls (their timed time less the time off the processor
 * found in the long ones, which is no CPU time: res->off_cpu_ns), less the
 * timer's two reads a call (pair_cost),
 * which the allocator's figures need but which are no part of the replay's
 * machinery, and less the CPU time the shared clock's waits took (*clock_ns
 * a call), which is what holding the threads to the recorded concurrency
 * costs, shown beside it, never hidden.  The figure a replay must keep
 * small for the calls' costs to stand out: decoding, the object table, the
 * ideal RSS, the stream windows.  The rest of the process's CPU time, the
 * monitor's RSS samples every 1-10 ms and the main thread's start and
 * end, is a cost per second, not per call: *monitor_ns a call, shown apart.
 * *timer_ns gets the timer's share.  Waits that sleep take no CPU time.
 */
struct own_cost {
	double own_ns, timer_ns, clock_ns, monitor_ns;
};

static struct own_cost own_cost(const struct rt_result *res)
{
	uint64_t calls = total_calls(res);
	double ns_per_unit = res->timer.tsc_mhz > 0 ? 1000.0 / res->timer.tsc_mhz : 1.0;
	struct own_cost c = { .timer_ns = (double)res->timer.pair_cost * ns_per_unit };
	if (!calls)
		return c;
	double process_ns = (double)(res->user_usec + res->sys_usec) * 1000.0;
	double threads_ns = (double)res->threads_cpu_ns;
	double in_calls = (double)rt_total_call_time(res) * ns_per_unit - (double)res->off_cpu_ns;
	double outside = threads_ns - in_calls;
	c.clock_ns = (double)res->clock_cpu_ns / (double)calls;
	c.monitor_ns = process_ns > threads_ns ? (process_ns - threads_ns) / (double)calls : 0;
	c.own_ns = outside / (double)calls - c.timer_ns - c.clock_ns;
	return c;
}

static uint64_t avg(const struct rt_callstat *s)
{
	return s->count ? s->total / s->count : 0;
}

/* The original's four lines always, in its order; other calls when made. */
static const unsigned order[] = {
	MT_CALL_MALLOC, MT_CALL_CALLOC, MT_CALL_REALLOC, MT_CALL_FREE,
	MT_CALL_REALLOCARRAY, MT_CALL_MEMALIGN, MT_CALL_POSIX_MEMALIGN, MT_CALL_ALIGNED_ALLOC,
	MT_CALL_VALLOC, MT_CALL_PVALLOC, MT_CALL_FREE_SIZED, MT_CALL_FREE_ALIGNED_SIZED,
};
enum { ORIGINAL_LINES = 4, NUMBER_END = 22, NUMBER_WIDTH = 6 };

/*
 * "Avg malloc time:    385 in        154 calls": the average ends in column
 * number_end.  The original's four lines are printed as it printed them:
 * hand-padded to column 22, and a call type never made as "0 in 1 calls"
 * (it counted one call to avoid dividing by zero, and scripts that parse
 * the lines have only ever seen that).  The lines this version adds, for
 * longer names, share a column of their own.
 */
static void avg_line(FILE *out, unsigned call, const struct rt_callstat *s, int original,
		     int number_end)
{
	char label[64];
	int len = snprintf(label, sizeof label, "Avg %s time:", mt_call_name(call));
	uint64_t count = original && !s->count ? 1 : s->count;
	fprintf(out, "%s %*s in %10s calls\n", label, number_end - len, rt_comma(s->total / count),
		rt_comma(count));
}

static void avg_lines(FILE *out, const struct rt_result *res)
{
	const size_t n = sizeof order / sizeof order[0];
	int extra_end = NUMBER_END;
	for (size_t i = ORIGINAL_LINES; i < n; i++) {
		int len = (int)strlen(mt_call_name(order[i])) + (int)strlen("Avg  time:");
		if (res->calls[order[i]].count && len + NUMBER_WIDTH > extra_end)
			extra_end = len + NUMBER_WIDTH;
	}
	for (size_t i = 0; i < n; i++)
		if (i < ORIGINAL_LINES || res->calls[order[i]].count)
			avg_line(out, order[i], &res->calls[order[i]], i < ORIGINAL_LINES,
				 i < ORIGINAL_LINES ? NUMBER_END : extra_end);
}

static void percentiles(FILE *out, const struct rt_result *res)
{
	fprintf(out, "Percentiles (%s):  %10s %10s %10s\n", res->timer.unit, "p50", "p99", "max");
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
		const struct rt_callstat *s = &res->calls[order[i]];
		if (!s->count)
			continue;
		fprintf(out, "  %-20s %10s %10s %10s\n", mt_call_name(order[i]),
			rt_comma(rt_callstat_quantile(s, 0.5)), rt_comma(rt_callstat_quantile(s, 0.99)),
			rt_comma(s->max));
	}
}

/* "Timer: rdtscp (auto), TSC at 2596.1 MHz (measured against
 * CLOCK_MONOTONIC_RAW), 52 cycles of timer cost subtracted per call". */
static void timer_line(FILE *out, const struct rt_result *res)
{
	const struct rt_timer_info *t = &res->timer;
	fprintf(out, "Timer: %s (%s), ", rt_timer_name(t->source), t->chosen_by);
	if (t->source == RT_TIMER_CLOCK)
		fprintf(out, "clock_gettime(CLOCK_MONOTONIC_RAW), figures in ns");
	else
		fprintf(out, "%s at %.1f MHz (%s)", t->source == RT_TIMER_CNTVCT ? "counter" : "TSC",
			t->tsc_mhz, t->freq_source);
	fprintf(out, ", %s %s of timer cost subtracted per call", rt_comma(t->overhead), t->unit);
	/* A counter that moves in steps (a VM's TSC) times no call finer. */
	if (t->step > 1)
		fprintf(out, "; the counter moves %s %s at a time", rt_comma(t->step), t->unit);
	fputc('\n', out);
}

/* The own cost, how often other processes took the processor, and the time
 * off the processor found inside long calls: a preempted call's timed region
 * counts the time away, so the allocator's figures grow; the own cost leaves
 * out what the long calls' checks found (off_cpu_check), and shrinks by the
 * rest (preemptions shorter than a long call: a busy machine without
 * --rt's priority). */
enum { OWN_COST_MIN_CALLS = 100000 }; /* below, start-up is most of the figure */

static void own_line(FILE *out, const struct rt_result *res)
{
	struct own_cost c = own_cost(res);
	if (total_calls(res) < OWN_COST_MIN_CALLS) {
		fprintf(out, "Own cost: not measured under %s calls (starting the threads is most of "
			"it); the timer's two reads cost %.1f ns a call\n",
			rt_comma(OWN_COST_MIN_CALLS), c.timer_ns);
		return;
	}
	fprintf(out, "Own cost: %.1f ns a call (CPU time outside the allocator's calls, less the "
		"timer's %.1f ns a call for its two reads", c.own_ns, c.timer_ns);
	if (res->clocked)
		fprintf(out, " and the shared clock's %.1f ns a call in %s waits", c.clock_ns,
			rt_comma(res->clock_waits));
	fprintf(out, "); preempted: %s; off the processor in calls: %.1f ms\n",
		rt_comma(res->preempted), (double)res->off_cpu_ns / 1e6);
	fprintf(out, "Monitor: %.1f ns a call (CPU time of the monitor's RSS samples and of the "
		"main thread, apart from the replay threads' own cost)\n", c.monitor_ns);
}

/* How the threads were kept in order, when there was more than one. */
static void order_line(FILE *out, const struct rt_result *res)
{
	if (res->threads < 2)
		return;
	if (res->clocked) {
		fprintf(out, "Order: recorded; an allocation waits for the other threads to come within "
			"%s usec of its time (--window)", rt_comma(res->window_us));
		if (res->ideal_cap)
			fprintf(out, " and while it would take the live requested bytes past %s Kb "
				"(%.2fx the recorded ideal peak)", rt_comma((res->ideal_cap + 1023) / 1024),
				(double)res->ideal_cap / (double)res->header_ideal_peak);
		fputc('\n', out);
	}
	else if (res->timed)
		fprintf(out, "Order: sync points only (--unpaced)\n");
	else
		fprintf(out, "Order: sync points only (no recorded times: convert with trace2wl "
			"--timing)\n");
}

static void pacing_line(FILE *out, const struct rt_result *res)
{
	if (!res->idle_stretches)
		return;
	fprintf(out, "Pacing: %s idle stretch%s longer than %s s shortened to it, %s s of "
		"recorded time left out\n", rt_comma(res->idle_stretches),
		res->idle_stretches == 1 ? "" : "es", rt_comma(res->idle_cap_ns / 1000000000u),
		rt_comma(res->idle_cut_ns / 1000000000u));
}

int rt_ideal_differs(const struct rt_result *res, double *ratio)
{
	if (!res->header_ideal_peak)
		return 0;
	*ratio = (double)res->ideal_peak / (double)res->header_ideal_peak;
	return *ratio > 2.0 || *ratio < 0.5;
}

void rt_report_text(FILE *out, const struct rt_result *res)
{
	const char *unit = res->timer.unit;
	long grew = res->maxrss_end_kb - res->maxrss_start_kb;

	fprintf(out, "%s %s\n", rt_comma(res->elapsed), unit);
	fprintf(out, "%s usec wall time\n", rt_comma(res->wall_usec));
	fprintf(out, "%s usec across %u thread%s\n", rt_comma(res->user_usec), res->threads,
		res->threads == 1 ? "" : "s");
	fprintf(out, "%s Kb Max RSS (%s -> %s)\n", rt_comma(grew > 0 ? (uint64_t)grew : 0),
		rt_comma((uint64_t)res->maxrss_start_kb), rt_comma((uint64_t)res->maxrss_end_kb));
	fprintf(out, "%s Kb Max Ideal RSS\n", rt_comma((res->ideal_peak + 1023) / 1024));
	fprintf(out, "\n");
	avg_lines(out, res);
	fprintf(out, "Total call time: %s %s\n", rt_comma(rt_total_call_time(res)), unit);
	fprintf(out, "\n");
	percentiles(out, res);
	fprintf(out, "Outcomes: %s calls failed that succeeded when recorded, "
		"%s recorded failures succeeded\n", rt_comma(res->failed_now),
		rt_comma(res->recorded_failed_ok));
	fprintf(out, "Recorded ideal peak: %s Kb (trace2wl, in the recorded order)\n",
		rt_comma((res->header_ideal_peak + 1023) / 1024));
	if (res->recorded_span_ns)
		fprintf(out, "Recorded span: %s usec from the first call to the last\n",
			rt_comma(res->recorded_span_ns / 1000u));
	order_line(out, res);
	pacing_line(out, res);
	fprintf(out, "Replayer: %s Kb resident before the clock started (tables, streams, "
		"threads)\n", rt_comma(res->replayer_kb));
	fprintf(out, "Held: %s Kb more resident when the replay ended (live blocks and what the "
		"allocator keeps)\n", rt_comma(res->held_kb));
	timer_line(out, res);
	own_line(out, res);
	fprintf(out, "Allocator: %s (%s)\n", res->allocator, res->allocator_lib);
	if (res->emulated) {
		fprintf(out, "Emulated (the allocator lacks them):");
		for (unsigned c = 0; c < MT_CALL_COUNT; c++)
			if (res->emulated >> c & 1)
				fprintf(out, " %s", mt_call_name(c));
		fprintf(out, "\n");
	}
}

static void json_calls(FILE *out, const struct rt_result *res)
{
	int first = 1;
	fprintf(out, "\"calls\":{");
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
		const struct rt_callstat *s = &res->calls[order[i]];
		if (!s->count)
			continue;
		fprintf(out, "%s\"%s\":{\"count\":%llu,\"total\":%llu,\"avg\":%llu,\"p50\":%llu,"
			"\"p99\":%llu,\"max\":%llu}", first ? "" : ",", mt_call_name(order[i]),
			(unsigned long long)s->count, (unsigned long long)s->total,
			(unsigned long long)avg(s),
			(unsigned long long)rt_callstat_quantile(s, 0.5),
			(unsigned long long)rt_callstat_quantile(s, 0.99), (unsigned long long)s->max);
		first = 0;
	}
	fprintf(out, "}");
}

void rt_report_json(FILE *out, const struct rt_result *res)
{
	long grew = res->maxrss_end_kb - res->maxrss_start_kb;
	fprintf(out, "{\"workload\":");
	mt_json_string(out, res->path);
	fprintf(out, ",\"allocator\":");
	mt_json_string(out, res->allocator);
	fprintf(out, ",\"allocator_lib\":");
	mt_json_string(out, res->allocator_lib);
	fprintf(out, ",\"unit\":\"%s\",\"elapsed\":%llu,\"wall_usec\":%llu,\"user_usec\":%llu,"
		"\"sys_usec\":%llu,\"threads\":%u,\"max_rss_kb\":%ld,\"rss_start_kb\":%ld,"
		"\"rss_end_kb\":%ld,\"ideal_rss_kb\":%llu,\"ideal_peak_bytes\":%llu,"
		"\"header_ideal_peak_bytes\":%llu,\"replayer_kb\":%llu,\"held_kb\":%llu,"
		"\"total_call_time\":%llu,"
		"\"failed_now\":%llu,\"recorded_failed_ok\":%llu,\"samples\":%llu,"
		"\"recorded_ideal_kb\":%llu,\"recorded_span_usec\":%llu,\"clocked\":%s,\"window_us\":%llu,\"ideal_cap_bytes\":%llu,\"idle_stretches\":%llu,"
		"\"idle_cut_ns\":%llu,",
		res->timer.unit, (unsigned long long)res->elapsed, (unsigned long long)res->wall_usec,
		(unsigned long long)res->user_usec, (unsigned long long)res->sys_usec, res->threads,
		grew > 0 ? grew : 0, res->maxrss_start_kb, res->maxrss_end_kb,
		(unsigned long long)((res->ideal_peak + 1023) / 1024),
		(unsigned long long)res->ideal_peak, (unsigned long long)res->header_ideal_peak,
		(unsigned long long)res->replayer_kb, (unsigned long long)res->held_kb,
		(unsigned long long)rt_total_call_time(res),
		(unsigned long long)res->failed_now, (unsigned long long)res->recorded_failed_ok,
		(unsigned long long)res->samples,
		(unsigned long long)((res->header_ideal_peak + 1023) / 1024),
		(unsigned long long)(res->recorded_span_ns / 1000u), res->clocked ? "true" : "false", (unsigned long long)res->window_us, (unsigned long long)res->ideal_cap, (unsigned long long)res->idle_stretches,
		(unsigned long long)res->idle_cut_ns);
	fprintf(out, "\"timer\":{\"source\":\"%s\",\"chosen_by\":\"%s\",\"tsc_mhz\":%.1f,"
		"\"freq_source\":\"%s\",\"overhead\":%llu,\"pair_cost\":%llu,\"step\":%llu},",
		rt_timer_name(res->timer.source), res->timer.chosen_by, res->timer.tsc_mhz,
		res->timer.freq_key, (unsigned long long)res->timer.overhead,
		(unsigned long long)res->timer.pair_cost, (unsigned long long)res->timer.step);
	struct own_cost c = own_cost(res);
	fprintf(out, "\"threads_cpu_usec\":%llu,\"own_ns_per_call\":%.2f,\"timer_ns_per_call\":%.2f,"
		"\"clock_ns_per_call\":%.2f,\"monitor_ns_per_call\":%.2f,\"clock_waits\":%llu,"
		"\"off_cpu_in_calls_usec\":%llu,\"preempted\":%llu,\"prefetching_threads\":%u,",
		(unsigned long long)(res->threads_cpu_ns / 1000u), c.own_ns, c.timer_ns, c.clock_ns,
		c.monitor_ns, (unsigned long long)res->clock_waits,
		(unsigned long long)(res->off_cpu_ns / 1000u), (unsigned long long)res->preempted,
		res->prefetching);
	fprintf(out, "\"emulated\":[");
	for (unsigned c = 0, n = 0; c < MT_CALL_COUNT; c++)
		if (res->emulated >> c & 1)
			fprintf(out, "%s\"%s\"", n++ ? "," : "", mt_call_name(c));
	fprintf(out, "],");
	json_calls(out, res);
	mt_json_stop(out, res->source_stop, res->source_stop_records);
	fprintf(out, "}\n");
}
