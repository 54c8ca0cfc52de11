/*
 * dump_stats.c - mtrace-dump --stats: what a trace amounts to.
 *
 * Answers the first questions asked of a recording (how many calls of each
 * kind, from which threads, how big, how much the allocator rounded up, did
 * anything fail or get dropped) without printing millions of lines.  Walks
 * each thread with its own cursor: order across threads does not matter for
 * totals, and it saves the merge.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>

#include "dump.h"

#define HIST_BUCKETS 65 /* 0, then [2^(k-1), 2^k) for k = 1..64 */

struct thread_stats {
	uint64_t records, allocs, frees, requested;
};

struct stats {
	uint64_t calls[MT_CALL_COUNT], failed[MT_CALL_COUNT];
	uint64_t records, allocs, requested, usable, free_null;
	uint64_t hist[HIST_BUCKETS];
	struct thread_stats *thread; /* by reader thread index */
};

static unsigned bucket(uint64_t size)
{
	return size ? 64 - (unsigned)__builtin_clzll(size) : 0;
}

static uint64_t bucket_min(unsigned b) { return b ? (uint64_t)1 << (b - 1) : 0; }
static uint64_t bucket_max(unsigned b) { return b ? bucket_min(b) * 2 - 1 : 0; }

static void count(struct stats *s, struct thread_stats *ts, const struct mt_rec *r)
{
	s->records++;
	ts->records++;
	s->calls[r->call]++;
	if (r->flags & MT_RF_NULL_OUT)
		s->failed[r->call]++;
	if (mt_call_has_in(r->call) && !mt_call_allocates(r->call)) {
		ts->frees++;
		s->free_null += (r->flags & MT_RF_NULL_IN) != 0;
	}
	if (!mt_call_allocates(r->call))
		return;
	uint64_t req = mt_rec_requested(r);
	s->hist[bucket(req)]++;
	if (r->flags & MT_RF_NULL_OUT)
		return; /* nothing was allocated: its size would only skew the sums */
	s->allocs++;
	s->requested += req;
	s->usable += r->usable;
	ts->allocs++;
	ts->requested += req;
}

static int collect(struct stats *s, const struct mt_trace *t, const struct dump_opts *o,
		   struct mt_error *e)
{
	for (size_t i = 0; i < mt_trace_threads(t); i++) {
		if (o->one_thread && mt_trace_thread_tid(t, i) != o->tid)
			continue;
		struct mt_trace_cursor c;
		struct mt_rec r;
		uint64_t recno;
		int rc;
		mt_trace_cursor_init(&c, t, i);
		while ((rc = mt_trace_cursor_next(&c, &r, &recno, e)) > 0)
			count(s, &s->thread[i], &r);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static uint64_t total_failed(const struct stats *s)
{
	uint64_t n = 0;
	for (unsigned c = 0; c < MT_CALL_COUNT; c++)
		n += s->failed[c];
	return n;
}

static double overhead_pct(const struct stats *s)
{
	return s->requested ? 100.0 * ((double)s->usable - (double)s->requested) / (double)s->requested
			    : 0.0;
}

static void print_text(FILE *out, const struct mt_trace *t, const struct stats *s)
{
	dump_header(out, t);
	fprintf(out, "calls by type:\n");
	for (unsigned c = 1; c < MT_CALL_COUNT; c++)
		if (s->calls[c]) {
			fprintf(out, "  %-20s %12" PRIu64, mt_call_name(c), s->calls[c]);
			if (s->failed[c])
				fprintf(out, "  (%" PRIu64 " failed)", s->failed[c]);
			putc('\n', out);
		}
	fprintf(out, "calls by thread:\n");
	for (size_t i = 0; i < mt_trace_threads(t); i++) {
		const struct thread_stats *ts = &s->thread[i];
		if (ts->records)
			fprintf(out, "  tid %-10" PRIu32 " %12" PRIu64 " records, %" PRIu64
				     " allocations (%" PRIu64 " bytes requested), %" PRIu64 " frees\n",
				mt_trace_thread_tid(t, i), ts->records, ts->allocs, ts->requested,
				ts->frees);
	}
	fprintf(out, "records %" PRIu64 ", failed calls %" PRIu64 ", free(NULL) %" PRIu64
		     ", dropped %" PRIu64 ", windows %zu\n",
		s->records, total_failed(s), s->free_null, mt_trace_get_info(t)->dropped,
		mt_trace_windows(t));
	if (mt_trace_has_stacks(t))
		fprintf(out, "stacks %zu (up to %" PRIu32 " frames), modules %zu\n",
			mt_trace_stack_count(t), mt_trace_get_info(t)->stack_depth,
			mt_trace_module_count(t));
	fprintf(out, "bytes requested %" PRIu64 " in %" PRIu64 " allocations, usable %" PRIu64
		     " (%+.1f%% overhead)\n",
		s->requested, s->allocs, s->usable, overhead_pct(s));
	fprintf(out, "size histogram (bytes requested, all allocating calls):\n");
	for (unsigned b = 0; b < HIST_BUCKETS; b++)
		if (s->hist[b])
			fprintf(out, "  %20" PRIu64 " .. %-20" PRIu64 " %12" PRIu64 "\n", bucket_min(b),
				bucket_max(b), s->hist[b]);
}

static void print_json_header(FILE *out, const struct mt_trace *t)
{
	const struct mt_trace_info *in = mt_trace_get_info(t);
	fputs("{\"file\":", out);
	mt_json_string(out, mt_trace_path(t));
	fprintf(out, ",\"version\":%u,\"pid\":%" PRIu32 ",\"ppid\":%" PRIu32 ",\"exe\":",
		in->version, in->pid, in->ppid);
	mt_json_string(out, in->exe);
	fputs(",\"allocator\":", out);
	mt_json_string(out, mt_allocator_name(in));
	fprintf(out, ",\"ptr_size\":%u,\"ts_source\":\"%s\",\"ts_freq\":%" PRIu64
		     ",\"start_realtime_ns\":%" PRIu64 ",\"closed\":%s,\"dropped\":%" PRIu64
		     ",\"windows\":%zu,\"stacks\":%zu,\"modules\":%zu,\"helper_cpu_ns\":%" PRIu64,
		in->ptr_size, dump_ts_source_name(in->ts_source), in->ts_freq, in->start_realtime_ns,
		in->flags & MT_FHF_CLOSED ? "true" : "false", in->dropped, mt_trace_windows(t),
		mt_trace_stack_count(t), mt_trace_module_count(t), in->helper_cpu_ns);
	mt_json_stop(out, in->stop_reason, in->stop_records);
	fputs(",\"warnings\":[", out);
	const char *const *w = mt_trace_warnings(t);
	for (size_t i = 0; w[i]; i++) {
		if (i)
			putc(',', out);
		mt_json_string(out, w[i]);
	}
	putc(']', out);
}

static void print_json(FILE *out, const struct mt_trace *t, const struct stats *s)
{
	print_json_header(out, t);
	fprintf(out, ",\"records\":%" PRIu64 ",\"failed\":%" PRIu64 ",\"free_null\":%" PRIu64
		     ",\"bytes_requested\":%" PRIu64 ",\"bytes_usable\":%" PRIu64
		     ",\"allocations\":%" PRIu64,
		s->records, total_failed(s), s->free_null, s->requested, s->usable, s->allocs);
	fputs(",\"calls\":{", out);
	for (unsigned c = 1, n = 0; c < MT_CALL_COUNT; c++)
		if (s->calls[c])
			fprintf(out, "%s\"%s\":%" PRIu64, n++ ? "," : "", mt_call_name(c), s->calls[c]);
	fputs("},\"failed_calls\":{", out);
	for (unsigned c = 1, n = 0; c < MT_CALL_COUNT; c++)
		if (s->failed[c])
			fprintf(out, "%s\"%s\":%" PRIu64, n++ ? "," : "", mt_call_name(c), s->failed[c]);
	fputs("},\"threads\":[", out);
	for (size_t i = 0, n = 0; i < mt_trace_threads(t); i++) {
		const struct thread_stats *ts = &s->thread[i];
		if (ts->records)
			fprintf(out, "%s{\"tid\":%" PRIu32 ",\"records\":%" PRIu64 ",\"allocations\":%" PRIu64
				     ",\"frees\":%" PRIu64 ",\"bytes_requested\":%" PRIu64 "}",
				n++ ? "," : "", mt_trace_thread_tid(t, i), ts->records, ts->allocs,
				ts->frees, ts->requested);
	}
	fputs("],\"size_histogram\":[", out);
	for (unsigned b = 0, n = 0; b < HIST_BUCKETS; b++)
		if (s->hist[b])
			fprintf(out, "%s{\"min\":%" PRIu64 ",\"max\":%" PRIu64 ",\"count\":%" PRIu64 "}",
				n++ ? "," : "", bucket_min(b), bucket_max(b), s->hist[b]);
	fputs("]}\n", out);
}

int dump_stats(FILE *out, const struct mt_trace *t, const struct dump_opts *o,
	       struct mt_error *e)
{
	struct stats s = { .thread = calloc(mt_trace_threads(t) + 1, sizeof *s.thread) };
	if (!s.thread)
		return mt_error_set(e, mt_trace_path(t), "out of memory");
	int rc = collect(&s, t, o, e);
	if (rc == 0) {
		if (o->json)
			print_json(out, t, &s);
		else
			print_text(out, t, &s);
	}
	free(s.thread);
	return rc;
}
