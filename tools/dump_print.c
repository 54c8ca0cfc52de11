/*
 * dump_print.c - how mtrace-dump shows a trace's header and its records.
 *
 * The text form reads like the C calls the program made, so a developer can
 * grep a dump for "realloc(0x55..." and recognise their own code; the JSON
 * form names its fields after struct mt_rec so scripts need no second
 * vocabulary.
 */
#include "config.h"

#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "dump.h"

const char *dump_ts_source_name(unsigned source)
{
	return source == MT_TS_TSC ? "tsc" : source == MT_TS_MONOTONIC_NS ? "monotonic" : "unknown";
}

/* The module map and the stack table, as comment lines before the records:
 * "# module G START-END PATH [build-id HEX]" and "# stack ID (G): FRAME...". */
static void dump_stack_table(FILE *out, const struct mt_trace *t)
{
	fprintf(out, "# stacks of up to %" PRIu32 " frames: %zu stacks, %zu modules\n",
		mt_trace_get_info(t)->stack_depth, mt_trace_stack_count(t),
		mt_trace_module_count(t));
	for (size_t i = 0; i < mt_trace_module_count(t); i++) {
		const struct mt_trace_module *m = mt_trace_module_at(t, i);
		fprintf(out, "# module %" PRIu32 " 0x%" PRIx64 "-0x%" PRIx64 " %s", m->generation,
			m->start, m->end, m->path);
		if (m->build_id_len)
			fputs(" build-id ", out);
		for (size_t b = 0; b < m->build_id_len; b++)
			fprintf(out, "%02x", m->build_id[b]);
		putc('\n', out);
	}
	for (size_t i = 0; i < mt_trace_stack_count(t); i++) {
		const struct mt_trace_stack *s = mt_trace_stack_at(t, i);
		fprintf(out, "# stack %" PRIu64 " (%" PRIu32 "):", s->id, s->generation);
		for (size_t f = 0; f < s->nframes; f++)
			fprintf(out, " 0x%" PRIx64, s->frames[f]);
		putc('\n', out);
	}
}

void dump_header(FILE *out, const struct mt_trace *t)
{
	const struct mt_trace_info *in = mt_trace_get_info(t);
	uint64_t records = 0;
	for (size_t i = 0; i < mt_trace_threads(t); i++)
		records += mt_trace_thread_records(t, i);

	char when[64] = "unknown";
	time_t sec = (time_t)(in->start_realtime_ns / 1000000000);
	struct tm tm;
	if (in->start_realtime_ns && gmtime_r(&sec, &tm))
		strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);

	fprintf(out, "# trace %s (format %u)\n", mt_trace_path(t), in->version);
	fprintf(out, "# pid %" PRIu32 ", ppid %" PRIu32 ", exe %s\n", in->pid, in->ppid,
		in->exe[0] ? in->exe : "(unknown)");
	fprintf(out, "# allocator %s, %u-byte pointers, %s-endian\n", mt_allocator_name(in),
		in->ptr_size, in->endian == 2 ? "big" : "little");
	fprintf(out, "# timestamps %s at %" PRIu64 " Hz, started %s\n",
		dump_ts_source_name(in->ts_source), in->ts_freq, when);
	fprintf(out, "# %s, %zu thread%s, %" PRIu64 " records, %zu window%s, %" PRIu64 " dropped\n",
		in->flags & MT_FHF_CLOSED ? "closed cleanly" : "NOT closed (the recorder was killed?)",
		mt_trace_threads(t), mt_trace_threads(t) == 1 ? "" : "s", records,
		mt_trace_windows(t), mt_trace_windows(t) == 1 ? "" : "s", in->dropped);
	if (in->helper_cpu_ns)
		fprintf(out, "# the recorder's helper thread used %.3f s of CPU\n",
			(double)in->helper_cpu_ns / 1e9);
	if (in->stop_reason)
		fprintf(out, "# INCOMPLETE: recording stopped early (%s) after %" PRIu64 " calls\n",
			mt_stop_reason_name(in->stop_reason), in->stop_records);
	if (mt_trace_has_stacks(t))
		dump_stack_table(out, t);
}

static void put_ptr(FILE *out, uint64_t p)
{
	if (p)
		fprintf(out, "0x%" PRIx64, p);
	else
		fputs("NULL", out);
}

static void put_sep(FILE *out, int *nargs)
{
	if ((*nargs)++)
		fputs(", ", out);
}

/* The call's arguments, in the order the C prototype takes them. */
static void put_args(FILE *out, const struct mt_rec *r)
{
	int n = 0;
	if (mt_call_has_in(r->call)) {
		put_sep(out, &n);
		put_ptr(out, r->ptr_in);
	}
	if (r->call == MT_CALL_FREE)
		return;
	if (mt_call_has_align(r->call)) {
		put_sep(out, &n);
		fprintf(out, "%s%" PRIu64, r->call == MT_CALL_POSIX_MEMALIGN ? "align " : "", r->align);
	}
	if (mt_call_has_nmemb(r->call)) {
		put_sep(out, &n);
		fprintf(out, "%" PRIu64, r->nmemb);
	}
	put_sep(out, &n);
	fprintf(out, "%" PRIu64, r->size);
}

static void put_result(FILE *out, const struct mt_rec *r)
{
	if (!mt_call_allocates(r->call))
		return;
	if (r->flags & MT_RF_NULL_OUT) {
		const char *name = r->rc ? strerrorname_np((int)r->rc) : NULL;
		if (r->call != MT_CALL_POSIX_MEMALIGN)
			fputs(" = NULL", out);
		else if (name)
			fprintf(out, " = %s", name);
		else
			fprintf(out, " = error %" PRIu32, r->rc);
		return;
	}
	fprintf(out, " = 0x%" PRIx64 "  usable %" PRIu64, r->ptr_out, r->usable);
	if (r->flags & MT_RF_MMAPPED)
		fputs("  [mmapped]", out);
	if (r->flags & MT_RF_NON_MAIN)
		fputs("  [non-main arena]", out);
}

void dump_record_text(FILE *out, const struct mt_trace *t, const struct mt_rec *r, uint32_t tid,
		      uint64_t recno)
{
	/* Integer nanoseconds: formatting a double took a third of the time. */
	const struct mt_trace_info *in = mt_trace_get_info(t);
	int64_t ticks = (int64_t)(r->ts - in->start_ts);
	uint64_t mag = ticks < 0 ? -(uint64_t)ticks : (uint64_t)ticks;
	uint64_t ns = (uint64_t)((unsigned __int128)mag * 1000000000u / in->ts_freq);
	fprintf(out, "%" PRIu32 ":%" PRIu64 "  %c%" PRIu64 ".%09" PRIu64 "  ", tid, recno,
		ticks < 0 ? '-' : '+', ns / 1000000000u, ns % 1000000000u);
	if (r->call == MT_CALL_EVENT) {
		fprintf(out, "event %s(", mt_event_name(r->event));
		for (uint32_t i = 0; i < r->nargs; i++)
			fprintf(out, "%s0x%" PRIx64, i ? ", " : "", r->args[i]);
		fputs(")\n", out);
		return;
	}
	fprintf(out, "%s(", mt_call_name(r->call));
	put_args(out, r);
	putc(')', out);
	put_result(out, r);
	if (r->stack)
		fprintf(out, "  stack %" PRIu64, r->stack);
	putc('\n', out);
}

void dump_record_json(FILE *out, const struct mt_rec *r, uint32_t tid, uint64_t recno)
{
	fprintf(out, "{\"call\":\"%s\",\"tid\":%" PRIu32 ",\"n\":%" PRIu64 ",\"ts\":%" PRIu64,
		mt_call_name(r->call), tid, recno, r->ts);
	if (r->call == MT_CALL_EVENT) {
		fprintf(out, ",\"event\":\"%s\",\"args\":[", mt_event_name(r->event));
		for (uint32_t i = 0; i < r->nargs; i++)
			fprintf(out, "%s%" PRIu64, i ? "," : "", r->args[i]);
		fputs("]}\n", out);
		return;
	}
	fprintf(out, ",\"ptr_in\":%" PRIu64 ",\"ptr_out\":%" PRIu64 ",\"size\":%" PRIu64
		     ",\"nmemb\":%" PRIu64 ",\"align\":%" PRIu64 ",\"usable\":%" PRIu64
		     ",\"flags\":%u,\"rc\":%" PRIu32,
		r->ptr_in, r->ptr_out, r->size, r->nmemb, r->align, r->usable, r->flags, r->rc);
	if (r->stack)
		fprintf(out, ",\"stack\":%" PRIu64, r->stack);
	fputs("}\n", out);
}
