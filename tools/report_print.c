/*
 * report_print.c - how mtrace-report shows its sections: ranked text for
 * people, one JSON object per trace for scripts, and folded stacks
 * ("main;parse;leak_here 12345") for flamegraph.pl and speedscope.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* Frames a text entry shows; JSON and folded output show them all. */
#define TEXT_FRAMES 16

struct ranking {
	const char *title;   /* text heading */
	const char *key;     /* JSON array */
	unsigned section;
	uint64_t (*bytes)(const struct site *);
	uint64_t (*count)(const struct site *);
	int by_count;        /* ranked by count, not bytes */
};

static uint64_t alloc_bytes(const struct site *s) { return s->bytes; }
static uint64_t alloc_count(const struct site *s) { return s->allocs; }
static uint64_t leak_bytes(const struct site *s) { return s->leak_bytes; }
static uint64_t leak_count(const struct site *s) { return s->leak_count; }
static uint64_t peak_bytes(const struct site *s) { return s->peak_bytes; }
static uint64_t peak_count(const struct site *s) { return s->peak_count; }
static uint64_t temp_bytes(const struct site *s) { return s->temp_bytes; }
static uint64_t temp_count(const struct site *s) { return s->temp_count; }

static const struct ranking rankings[] = {
	{ "allocations by calls", NULL, SEC_ALLOCATIONS, alloc_bytes, alloc_count, 1 },
	{ "allocations by bytes", "allocations", SEC_ALLOCATIONS, alloc_bytes, alloc_count, 0 },
	{ "leaks (blocks never freed)", "leaks", SEC_LEAKS, leak_bytes, leak_count, 0 },
	{ "peak (blocks live at the highest live heap)", "peak", SEC_PEAK, peak_bytes, peak_count, 0 },
	{ "temporary (freed with no other allocation of their thread in between)", "temporary",
	  SEC_TEMPORARY, temp_bytes, temp_count, 1 },
};
#define NRANKINGS (sizeof rankings / sizeof rankings[0])

static const struct ranking *sort_by;

static int by_metric(const void *a, const void *b)
{
	const struct site *x = *(const struct site *const *)a, *y = *(const struct site *const *)b;
	uint64_t kx = sort_by->by_count ? sort_by->count(x) : sort_by->bytes(x);
	uint64_t ky = sort_by->by_count ? sort_by->count(y) : sort_by->bytes(y);
	if (kx != ky)
		return kx > ky ? -1 : 1;
	uint64_t sx = sort_by->by_count ? sort_by->bytes(x) : sort_by->count(x);
	uint64_t sy = sort_by->by_count ? sort_by->bytes(y) : sort_by->count(y);
	if (sx != sy)
		return sx > sy ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

/* The sites with a non-zero count in the ranking, best first; *n of them. */
static const struct site **ranked(const struct analysis *a, const struct ranking *r, size_t *n)
{
	const struct site **v = malloc((a->nsites ? a->nsites : 1) * sizeof *v);
	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < a->nsites; i++)
		if (r->count(&a->sites[i]))
			v[(*n)++] = &a->sites[i];
	sort_by = r;
	qsort(v, *n, sizeof *v, by_metric);
	return v;
}

const struct site **report_ranked(const struct analysis *a, unsigned section, size_t *n)
{
	for (size_t i = 1; i < NRANKINGS; i++)
		if (rankings[i].section == section)
			return ranked(a, &rankings[i], n);
	*n = 0;
	return NULL;
}

static size_t shown(size_t n, const struct report_opts *o)
{
	return o->top && o->top < n ? o->top : n;
}

/* ---- text ---- */

static void text_frame(FILE *out, const struct frame *f)
{
	if (f->function)
		fprintf(out, "      %s", f->function);
	else
		fprintf(out, "      0x%" PRIx64, f->address);
	if (f->file) {
		const char *slash = strrchr(f->file, '/');
		fprintf(out, "  %s:%d", slash ? slash + 1 : f->file, f->line);
	}
	fprintf(out, "  [%s]\n", f->module ? f->module : "?");
}

static void text_stack(FILE *out, struct symbols *sym, uint64_t stack)
{
	size_t n;
	const struct frame *f = symbols_stack(sym, stack, &n);
	if (!n) {
		fputs("      unknown\n", out);
		return;
	}
	for (size_t i = 0; i < n && i < TEXT_FRAMES; i++)
		text_frame(out, &f[i]);
	if (n > TEXT_FRAMES)
		fprintf(out, "      ... %zu more frames\n", n - TEXT_FRAMES);
}

static void text_ranking(FILE *out, const struct analysis *a, struct symbols *sym,
			 const struct ranking *r, const struct report_opts *o)
{
	size_t n;
	const struct site **v = ranked(a, r, &n);
	fprintf(out, "\n%s:\n", r->title);
	if (!v)
		return;
	if (!n)
		fputs("  none\n", out);
	for (size_t i = 0; i < shown(n, o); i++) {
		fprintf(out, "  %zu. %" PRIu64 " bytes in %" PRIu64 " %s\n", i + 1, r->bytes(v[i]),
			r->count(v[i]), r->section == SEC_ALLOCATIONS ? "calls" : "blocks");
		text_stack(out, sym, v[i]->stack);
	}
	if (n > shown(n, o))
		fprintf(out, "  ... %zu more\n", n - shown(n, o));
	free(v);
}

static void text_histogram(FILE *out, const char *title, const char *unit, const uint64_t *h)
{
	fprintf(out, "  %s:\n", title);
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		if (!h[b])
			continue;
		uint64_t lo = b ? 1ull << (b - 1) : 0, hi = b ? (b == 64 ? UINT64_MAX : (1ull << b) - 1) : 0;
		fprintf(out, "    %20" PRIu64 " .. %-20" PRIu64 " %s %12" PRIu64 "\n", lo, hi, unit, h[b]);
	}
}

static void text_summary(FILE *out, const struct mt_trace *t, const struct analysis *a)
{
	const struct mt_trace_info *in = mt_trace_get_info(t);
	uint64_t ns = (uint64_t)((unsigned __int128)(a->peak_ts - in->start_ts) * 1000000000u /
				 in->ts_freq);
	fprintf(out, "\nsummary:\n");
	fprintf(out, "  %" PRIu64 " allocations, %" PRIu64 " bytes; %" PRIu64 " frees\n", a->allocs,
		a->bytes, a->frees);
	fprintf(out, "  leaked %" PRIu64 " bytes in %" PRIu64 " blocks\n", a->leak_bytes,
		a->leak_count);
	fprintf(out, "  peak %" PRIu64 " bytes in %" PRIu64 " blocks, at +%" PRIu64 ".%09" PRIu64
		     " s\n",
		a->peak_bytes, a->peak_count, ns / 1000000000u, ns % 1000000000u);
	fprintf(out, "  temporary %" PRIu64 " allocations, %" PRIu64 " bytes\n", a->temp_count,
		a->temp_bytes);
	if (a->unknown_frees)
		fprintf(out, "  %" PRIu64 " frees of blocks allocated before the trace began\n",
			a->unknown_frees);
	text_histogram(out, "sizes (bytes requested)", "bytes", a->size_hist);
	text_histogram(out, "lifetimes of freed blocks", "ns", a->lifetime_hist);
}

void report_text(FILE *out, const struct mt_trace *t, struct analysis *a, struct symbols *s,
		 const struct report_opts *o)
{
	const struct mt_trace_info *in = mt_trace_get_info(t);
	fprintf(out, "trace %s: pid %" PRIu32 ", %s\n", mt_trace_path(t), in->pid,
		in->exe[0] ? in->exe : "(executable unknown)");
	if (!mt_trace_has_stacks(t))
		fputs("no call stacks in this trace (record with mtrace-record --stacks): every "
		      "block is counted at one unknown site\n", out);
	if (a->unknown_stacks)
		fprintf(out, "%" PRIu64 " allocations name a stack the table lacks: counted as "
			     "unknown\n", a->unknown_stacks);
	for (size_t i = 0; i < NRANKINGS; i++)
		if (o->sections & rankings[i].section)
			text_ranking(out, a, s, &rankings[i], o);
	if (o->sections == SEC_ALL)
		text_summary(out, t, a);
}

/* ---- JSON ---- */

static void json_stack(FILE *out, struct symbols *sym, uint64_t stack)
{
	size_t n;
	const struct frame *f = symbols_stack(sym, stack, &n);
	fputc('[', out);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",{\"function\":" : "{\"function\":", out);
		f[i].function ? mt_json_string(out, f[i].function) : (void)fputs("null", out);
		fputs(",\"file\":", out);
		f[i].file ? mt_json_string(out, f[i].file) : (void)fputs("null", out);
		fprintf(out, ",\"line\":%d,\"module\":", f[i].line);
		f[i].module ? mt_json_string(out, f[i].module) : (void)fputs("null", out);
		fprintf(out, ",\"address\":\"0x%" PRIx64 "\"}", f[i].address);
	}
	fputc(']', out);
}

void report_json(FILE *out, const struct mt_trace *t, struct analysis *a, struct symbols *s,
		 const struct report_opts *o)
{
	const struct mt_trace_info *in = mt_trace_get_info(t);
	fputs("{\"file\":", out);
	mt_json_string(out, mt_trace_path(t));
	fprintf(out, ",\"pid\":%" PRIu32 ",\"exe\":", in->pid);
	mt_json_string(out, in->exe);
	fprintf(out, ",\"stacks\":%s", mt_trace_has_stacks(t) ? "true" : "false");
	for (size_t i = 0; i < NRANKINGS; i++) {
		const struct ranking *r = &rankings[i];
		if (!r->key)
			continue;
		fprintf(out, ",\"%s\":[", r->key);
		size_t n = 0;
		const struct site **v = o->sections & r->section ? ranked(a, r, &n) : NULL;
		for (size_t k = 0; v && k < shown(n, o); k++) {
			fprintf(out, "%s{\"bytes\":%" PRIu64 ",\"count\":%" PRIu64 ",\"stack\":",
				k ? "," : "", r->bytes(v[k]), r->count(v[k]));
			json_stack(out, s, v[k]->stack);
			fputc('}', out);
		}
		free(v);
		fputc(']', out);
	}
	fprintf(out, ",\"summary\":{\"allocations\":%" PRIu64 ",\"bytes\":%" PRIu64
		     ",\"frees\":%" PRIu64 ",\"leaked_bytes\":%" PRIu64 ",\"leaked_blocks\":%" PRIu64
		     ",\"peak_bytes\":%" PRIu64 ",\"peak_blocks\":%" PRIu64
		     ",\"temporary\":%" PRIu64 ",\"unknown_stacks\":%" PRIu64 "}}\n",
		a->allocs, a->bytes, a->frees, a->leak_bytes, a->leak_count, a->peak_bytes,
		a->peak_count, a->temp_count, a->unknown_stacks);
}

/* ---- folded ---- */

static void folded_name(FILE *out, const struct frame *f)
{
	if (f->function) {
		/* ';' separates frames and ' ' ends the stack: neither may appear inside. */
		for (const char *c = f->function; *c; c++)
			fputc(*c == ';' || *c == ' ' ? '_' : *c, out);
	} else {
		fprintf(out, "%s+0x%" PRIx64, f->module ? f->module : "?", f->address);
	}
}

struct folded_line {
	char *text;
	uint64_t weight;
};

static int by_text(const void *a, const void *b)
{
	return strcmp(((const struct folded_line *)a)->text, ((const struct folded_line *)b)->text);
}

/* One line per distinct folded stack: stacks that differ only in
 * addresses (a site called from an unrolled loop) fold into one. */
void report_folded(FILE *out, struct analysis *a, struct symbols *s, const struct report_opts *o)
{
	const struct ranking *r = &rankings[1];
	for (size_t i = 1; i < NRANKINGS; i++)
		if (o->sections & rankings[i].section) {
			r = &rankings[i];
			break;
		}
	struct folded_line *lines = calloc(a->nsites ? a->nsites : 1, sizeof *lines);
	size_t nlines = 0;
	for (size_t i = 0; lines && i < a->nsites; i++) {
		const struct site *site = &a->sites[i];
		uint64_t w = o->weight_count ? r->count(site) : r->bytes(site);
		size_t n, len;
		char *text;
		FILE *line = w ? open_memstream(&text, &len) : NULL;
		if (!line)
			continue;
		const struct frame *f = symbols_stack(s, site->stack, &n);
		if (!n)
			fputs("unknown", line);
		for (size_t k = n; k-- > 0;) {
			folded_name(line, &f[k]);
			if (k)
				fputc(';', line);
		}
		fclose(line);
		lines[nlines++] = (struct folded_line){ .text = text, .weight = w };
	}
	qsort(lines, nlines, sizeof *lines, by_text);
	for (size_t i = 0; i < nlines; i++) {
		uint64_t w = lines[i].weight;
		while (i + 1 < nlines && strcmp(lines[i].text, lines[i + 1].text) == 0) {
			free(lines[i].text);
			w += lines[++i].weight;
		}
		fprintf(out, "%s %" PRIu64 "\n", lines[i].text, w);
		free(lines[i].text);
	}
	free(lines);
}
