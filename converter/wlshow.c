/*
 * wlshow.c - print what a workload holds, for people (--stats, --dump) and
 * scripts (--stats --json).
 *
 * The dump is what the tests hold against the trace: one line per op in each
 * thread's order, calls written like mtrace-dump writes them but with object
 * numbers (#N) where the trace has addresses.
 */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "trace.h"
#include "wlshow.h"

static double per_call(uint64_t bytes, uint64_t calls)
{
	return calls ? (double)bytes / (double)calls : 0.0;
}

static uint64_t call_total(const struct mt_wl_info *in)
{
	uint64_t n = 0;
	for (unsigned c = MT_CALL_MALLOC; c <= MT_CALL_FREE_ALIGNED_SIZED; c++)
		n += in->calls[c];
	return n;
}

static void stats_json(FILE *out, const struct mt_wl *w, uint64_t bytes)
{
	const struct mt_wl_info *in = mt_wl_get_info(w);
	uint64_t calls = call_total(in);
	fputs("{\"file\":", out);
	mt_json_string(out, mt_wl_path(w));
	fprintf(out, ",\"version\":%u,\"timing\":%s,\"threads\":%" PRIu32 ",\"calls\":%" PRIu64
		",\"ops\":%" PRIu64 ",\"objects\":%" PRIu64 ",\"syncs\":%" PRIu64
		",\"unknown_frees\":%" PRIu64 ",\"double_frees\":%" PRIu64
		",\"contradictions\":%" PRIu64 ",\"source_records\":%" PRIu64
		",\"source_dropped\":%" PRIu64 ",\"ideal_peak\":%" PRIu64 ",\"bytes\":%" PRIu64
		",\"bytes_per_call\":%.2f,\"by_call\":{",
		in->version, in->flags & MT_WLF_TIMING ? "true" : "false", in->threads, calls, in->ops,
		in->objects, in->syncs, in->unknown_frees, in->double_frees, in->contradictions,
		in->source_records, in->source_dropped, in->ideal_peak, bytes, per_call(bytes, calls));
	int n = 0;
	for (unsigned c = MT_CALL_MALLOC; c <= MT_CALL_FREE_ALIGNED_SIZED; c++)
		if (in->calls[c])
			fprintf(out, "%s\"%s\":%" PRIu64, n++ ? "," : "", mt_op_name(c), in->calls[c]);
	fputc('}', out);
	mt_json_stop(out, in->source_stop, in->source_stop_records);
	fprintf(out, ",\"thread_list\":[");
	for (uint32_t i = 0; i < in->threads; i++) {
		const struct mt_wl_thread *t = mt_wl_get_thread(w, i);
		fprintf(out, "%s{\"tid\":%" PRIu32 ",\"ops\":%" PRIu64 ",\"bytes\":%" PRIu64 "}",
			i ? "," : "", t->tid, t->ops, t->length);
	}
	fprintf(out, "]}\n");
}

void wl_print_stats(FILE *out, const struct mt_wl *w, uint64_t bytes, int json)
{
	if (json) {
		stats_json(out, w, bytes);
		return;
	}
	const struct mt_wl_info *in = mt_wl_get_info(w);
	uint64_t calls = call_total(in);
	fprintf(out, "workload %s (format %u%s)\n", mt_wl_path(w), in->version,
		in->flags & MT_WLF_TIMING ? ", with timing" : "");
	fprintf(out, "%" PRIu32 " thread%s, %" PRIu64 " calls, %" PRIu64 " ops, %" PRIu64
		" objects, %" PRIu64 " sync points\n", in->threads, in->threads == 1 ? "" : "s",
		calls, in->ops, in->objects, in->syncs);
	fprintf(out, "from %" PRIu64 " trace records: %" PRIu64 " unknown frees, %" PRIu64
		" double frees dropped", in->source_records, in->unknown_frees, in->double_frees);
	if (in->contradictions)
		fprintf(out, ", %" PRIu64 " contradictions resolved", in->contradictions);
	if (in->source_dropped)
		fprintf(out, "; %" PRIu64 " calls the recorder did not record", in->source_dropped);
	putc('\n', out);
	if (in->source_stop)
		fprintf(out, "INCOMPLETE: the trace stopped early (%s) after %" PRIu64 " calls\n",
			mt_stop_reason_name(in->source_stop), in->source_stop_records);
	fprintf(out, "ideal peak %" PRIu64 " bytes live; file %" PRIu64 " bytes, %.2f B/call\n",
		in->ideal_peak, bytes, per_call(bytes, calls));
	fprintf(out, "calls by type:\n");
	for (unsigned c = MT_CALL_MALLOC; c <= MT_CALL_FREE_ALIGNED_SIZED; c++)
		if (in->calls[c])
			fprintf(out, "  %-20s %12" PRIu64 "\n", mt_op_name(c), in->calls[c]);
	fprintf(out, "ops by thread:\n");
	for (uint32_t i = 0; i < in->threads; i++) {
		const struct mt_wl_thread *t = mt_wl_get_thread(w, i);
		fprintf(out, "  tid %-10" PRIu32 " %12" PRIu64 " ops %12" PRIu64 " bytes\n", t->tid,
			t->ops, t->length);
	}
}

static void put_obj(FILE *out, uint64_t obj, int null)
{
	if (null)
		fputs("NULL", out);
	else
		fprintf(out, "#%" PRIu64, obj);
}

/* Arguments in the order of the C prototype, as mtrace-dump prints them. */
static void put_call(FILE *out, const struct mt_op *op)
{
	const char *sep = "";
	fprintf(out, "%s(", mt_op_name(op->code));
	if (mt_call_has_in(op->code)) {
		put_obj(out, op->old_obj, op->flags & MT_OPF_NULL_IN);
		sep = ", ";
	}
	if (op->code != MT_CALL_FREE) {
		if (mt_call_has_align(op->code)) {
			fprintf(out, "%s%s%" PRIu64, sep,
				op->code == MT_CALL_POSIX_MEMALIGN ? "align " : "", op->align);
			sep = ", ";
		}
		if (mt_call_has_nmemb(op->code)) {
			fprintf(out, "%s%" PRIu64, sep, op->nmemb);
			sep = ", ";
		}
		fprintf(out, "%s%" PRIu64, sep, op->size);
	}
	putc(')', out);
	if (mt_call_allocates(op->code)) {
		fputs(" = ", out);
		put_obj(out, op->new_obj, op->flags & MT_OPF_NULL_OUT);
	}
}

int wl_print_dump(FILE *out, const struct mt_wl *w, struct mt_error *e)
{
	const struct mt_wl_info *in = mt_wl_get_info(w);
	int timing = in->flags & MT_WLF_TIMING;
	for (uint32_t i = 0; i < in->threads; i++) {
		const struct mt_wl_thread *t = mt_wl_get_thread(w, i);
		const uint8_t *p = mt_wl_stream(w, i), *end = p + t->length;
		struct mt_op_state st = mt_wl_first_state(in);
		struct mt_op op;
		fprintf(out, "# thread %" PRIu32 " tid %" PRIu32 ", %" PRIu64 " ops\n", i, t->tid, t->ops);
		while (p < end) {
			if (mt_op_decode(&p, end, &st, &op, timing) < 0)
				return mt_error_set(e, mt_wl_path(w), "thread %" PRIu32 ": op does not decode",
						    i);
			fprintf(out, "%" PRIu32 "  ", t->tid);
			if (mt_op_is_call(op.code))
				put_call(out, &op);
			else
				fprintf(out, "%s %" PRIu64, mt_op_name(op.code), op.sync);
			if (timing)
				fprintf(out, "  +%" PRIu64 "ns", op.delta_ns);
			putc('\n', out);
		}
	}
	return 0;
}
