/*
 * report_diff.c - mtrace-report --diff=BASE NEW: which call sites changed
 * most between two recordings of the same program, as a reviewer of a
 * patch would ask.
 *
 * Addresses move between builds and runs, so sites are matched by their
 * symbolised stacks: the chain of function and module names of every
 * frame.  Stacks that differ only in addresses (a site reached from an
 * unrolled loop) count as one.  Three rankings, by the size of the change
 * in bytes: all allocations, leaks, and the blocks live at the peak.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

struct diff_site {
	char *key;                 /* function@module;... allocating call outwards */
	uint64_t bytes[2][3];      /* [base, new][allocations, leaks, peak] */
	uint64_t count[2][3];
	struct symbols *sym;       /* where its frames come from, and its stack */
	uint64_t stack;
};

static const char *const metric_names[3] = { "allocations", "leaks", "peak" };

static char *stack_key(struct symbols *s, uint64_t stack)
{
	size_t n, len;
	char *text;
	FILE *out = open_memstream(&text, &len);
	if (!out)
		return NULL;
	const struct frame *f = symbols_stack(s, stack, &n);
	if (!n)
		fputs("unknown", out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%s@%s", i ? ";" : "", f[i].function ? f[i].function : "?",
			f[i].module ? f[i].module : "?");
	return fclose(out) == 0 ? text : NULL;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct diff_site *)a)->key, ((const struct diff_site *)b)->key);
}

/* Every site of both analyses, merged by key; NULL when out of memory. */
static struct diff_site *merge_sites(struct analysis *a[2], struct symbols *s[2], size_t *n)
{
	size_t total = a[0]->nsites + a[1]->nsites, k = 0;
	struct diff_site *v = calloc(total ? total : 1, sizeof *v);
	if (!v)
		return NULL;
	for (int side = 0; side < 2; side++)
		for (size_t i = 0; i < a[side]->nsites; i++) {
			const struct site *st = &a[side]->sites[i];
			struct diff_site *d = &v[k];
			if (!(d->key = stack_key(s[side], st->stack))) {
				while (k-- > 0)
					free(v[k].key);
				free(v);
				return NULL;
			}
			k++;
			d->sym = s[side];
			d->stack = st->stack;
			const uint64_t b[3] = { st->bytes, st->leak_bytes, st->peak_bytes };
			const uint64_t c[3] = { st->allocs, st->leak_count, st->peak_count };
			memcpy(d->bytes[side], b, sizeof b);
			memcpy(d->count[side], c, sizeof c);
		}
	qsort(v, k, sizeof *v, by_key);
	size_t out = 0;
	for (size_t i = 0; i < k; i++) {
		if (out && strcmp(v[i].key, v[out - 1].key) == 0) {
			for (int side = 0; side < 2; side++)
				for (int m = 0; m < 3; m++) {
					v[out - 1].bytes[side][m] += v[i].bytes[side][m];
					v[out - 1].count[side][m] += v[i].count[side][m];
				}
			if (v[i].sym == s[1]) { /* frames from the new trace where it has them */
				v[out - 1].sym = v[i].sym;
				v[out - 1].stack = v[i].stack;
			}
			free(v[i].key);
		} else {
			v[out++] = v[i];
		}
	}
	*n = out;
	return v;
}

static int metric;

static uint64_t change(const struct diff_site *d)
{
	uint64_t b = d->bytes[0][metric], n = d->bytes[1][metric];
	return b > n ? b - n : n - b;
}

static int by_change(const void *a, const void *b)
{
	const struct diff_site *x = *(const struct diff_site *const *)a;
	const struct diff_site *y = *(const struct diff_site *const *)b;
	uint64_t cx = change(x), cy = change(y);
	if (cx != cy)
		return cx > cy ? -1 : 1;
	return strcmp(x->key, y->key);
}

static void print_text(FILE *out, struct diff_site **v, size_t n, const struct report_opts *o)
{
	fprintf(out, "\n%s, by change in bytes:\n", metric_names[metric]);
	size_t shown = 0;
	for (size_t i = 0; i < n && (!o->top || shown < o->top); i++) {
		const struct diff_site *d = v[i];
		if (!change(d))
			break;
		int64_t delta = (int64_t)(d->bytes[1][metric] - d->bytes[0][metric]);
		fprintf(out, "  %zu. %+" PRId64 " bytes: %" PRIu64 " -> %" PRIu64 " bytes, %" PRIu64
			     " -> %" PRIu64 " %s\n",
			++shown, delta, d->bytes[0][metric], d->bytes[1][metric], d->count[0][metric],
			d->count[1][metric], metric ? "blocks" : "calls");
		size_t nf;
		const struct frame *f = symbols_stack(d->sym, d->stack, &nf);
		if (!nf)
			fputs("      unknown\n", out);
		for (size_t k = 0; k < nf && k < 8; k++)
			fprintf(out, "      %s  [%s]\n", f[k].function ? f[k].function : "?",
				f[k].module ? f[k].module : "?");
	}
	if (!shown)
		fputs("  no change\n", out);
}

static void print_json(FILE *out, struct diff_site **v, size_t n, const struct report_opts *o)
{
	fprintf(out, "%s\"%s\":[", metric ? "," : "", metric_names[metric]);
	size_t shown = 0;
	for (size_t i = 0; i < n && (!o->top || shown < o->top) && change(v[i]); i++) {
		const struct diff_site *d = v[i];
		fprintf(out, "%s{\"bytes_base\":%" PRIu64 ",\"bytes_new\":%" PRIu64
			     ",\"count_base\":%" PRIu64 ",\"count_new\":%" PRIu64 ",\"stack\":[",
			shown++ ? "," : "", d->bytes[0][metric], d->bytes[1][metric],
			d->count[0][metric], d->count[1][metric]);
		size_t nf;
		const struct frame *f = symbols_stack(d->sym, d->stack, &nf);
		for (size_t k = 0; k < nf; k++) {
			fputs(k ? ",{\"function\":" : "{\"function\":", out);
			f[k].function ? mt_json_string(out, f[k].function) : (void)fputs("null", out);
			fputs(",\"module\":", out);
			f[k].module ? mt_json_string(out, f[k].module) : (void)fputs("null", out);
			fputc('}', out);
		}
		fputs("]}", out);
	}
	fputc(']', out);
}

int report_diff(FILE *out, const struct mt_trace *t[2], struct analysis *a[2], struct symbols *s[2],
		const struct report_opts *o)
{
	size_t n = 0;
	struct diff_site *v = merge_sites(a, s, &n);
	struct diff_site **rank = malloc((n ? n : 1) * sizeof *rank);
	if (!v || !rank) {
		free(v);
		free(rank);
		return -1;
	}
	if (o->json)
		fputc('{', out);
	else
		fprintf(out, "diff %s (base) -> %s (new)\n", mt_trace_path(t[0]), mt_trace_path(t[1]));
	for (metric = 0; metric < 3; metric++) {
		for (size_t i = 0; i < n; i++)
			rank[i] = &v[i];
		qsort(rank, n, sizeof *rank, by_change);
		if (o->json)
			print_json(out, rank, n, o);
		else
			print_text(out, rank, n, o);
	}
	if (o->json)
		fputs("}\n", out);
	for (size_t i = 0; i < n; i++)
		free(v[i].key);
	free(v);
	free(rank);
	return 0;
}
