/*
 * report_html.c - one trace's part of mtrace-report --html: live heap over
 * time per thread with the peak and the allocator's events, flame graphs
 * of allocated and leaked bytes (first: what a reader asks first), live
 * blocks, the allocation rate, the size and lifetime histograms, and the
 * leak and peak tables.
 *
 * Every chart is drawn from bounded data: the timeline's columns, the
 * 65-bucket histograms, and flame graphs whose frames under FLAME_MIN of
 * the total are drawn as one box per parent.  The page's size is the
 * charts', never the trace's.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "report.h"
#include "report_timeline.h"

#define CHART_W 1100
/* Frames narrower than this share of the total are summed per parent. */
#define FLAME_MIN 0.005
#define FLAME_ROW 17
/* Frames a table entry shows. */
#define TABLE_FRAMES 8

static double seconds(const struct mt_trace *t, uint64_t ticks)
{
	return (double)ticks / (double)mt_trace_get_info(t)->ts_freq;
}

/* ---- over time ---- */

static void group_name(const struct timeline *tl, size_t g, char *buf, size_t len)
{
	if (tl->other && g == tl->ngroups - 1)
		snprintf(buf, len, "other threads");
	else
		snprintf(buf, len, "thread %" PRIu32, tl->group_tid[g]);
}

static void event_marks(const struct chart *c, const struct timeline *tl, double colw)
{
	for (unsigned ev = 1; ev < TL_EVENTS; ev++)
		for (size_t i = 0; i < tl->cols.used; i++) {
			uint64_t k = columns_cell(&tl->cols, i, TL_EVENT + ev)->sum;
			if (!k)
				continue;
			double x = chart_x(c, colw * ((double)i + 0.5));
			fprintf(c->out, "<path d=\"M%.1f %.1fv9\" stroke=\"%s\" stroke-width=\"2\">"
					"<title>%s x%" PRIu64 "</title></path>\n",
				x, c->py0 + 1 + 10 * (ev % 3), html_colour(ev + 2), mt_event_name(ev), k);
		}
}

static void event_legend(FILE *out, const struct timeline *tl)
{
	int any = 0;
	for (unsigned ev = 1; ev < TL_EVENTS; ev++) {
		uint64_t k = 0;
		for (size_t i = 0; i < tl->cols.used; i++)
			k += columns_cell(&tl->cols, i, TL_EVENT + ev)->sum;
		if (!k)
			continue;
		fprintf(out, "%s<span style=\"color:%s\">&#9646;</span> %s %" PRIu64,
			any++ ? ", " : "<p class=\"note\">Allocator events (marks at the top): ",
			html_colour(ev + 2), mt_event_name(ev), k);
	}
	fputs(any ? "</p>\n" : "<p class=\"note\">No allocator events in this trace (glibc's "
			       "probes record them when the recorder sees them).</p>\n",
	      out);
}

/* A level over time: the threads' shares stacked (each column's last
 * value), the total's min-max per column over them, the peak marked. */
static void level_chart(FILE *out, const struct mt_trace *t, struct timeline *tl, size_t total,
			size_t groups, enum html_unit u, const char *what, uint64_t peak_ts,
			double peak_v)
{
	struct chart c;
	const struct columns *k = &tl->cols;
	double colw = seconds(t, k->width), top = 0;
	for (size_t i = 0; i < k->used; i++) {
		double v = (double)columns_cell(k, i, total)->max;
		top = v > top ? v : top;
	}
	chart_begin(&c, out, CHART_W, 300, 0, colw * (double)(k->used ? k->used : 1), HU_SECONDS, 0,
		    top * 1.1, u, 0, "time since the trace began", what);
	double *base = calloc(k->used + 1, sizeof *base);
	for (size_t g = 0; base && g < tl->ngroups; g++) {
		fprintf(out, "<path fill=\"%s\" fill-opacity=\".75\" d=\"M%.1f %.1f", html_colour(g),
			c.px0, c.py1);
		for (size_t i = 0; i < k->used; i++)
			fprintf(out, "H%.1fV%.1f", chart_x(&c, colw * (double)i),
				chart_y(&c, base[i] + (double)columns_cell(k, i, groups + g)->last));
		fprintf(out, "H%.1f", chart_x(&c, colw * (double)k->used));
		for (size_t i = k->used; i-- > 0;) {
			fprintf(out, "V%.1fH%.1f", chart_y(&c, base[i]), chart_x(&c, colw * (double)i));
			base[i] += (double)columns_cell(k, i, groups + g)->last;
		}
		fputs("Z\"/>\n", out);
	}
	free(base);
	fputs("<path stroke=\"#222\" stroke-width=\"1\" fill=\"none\" d=\"", out);
	for (size_t i = 0; i < k->used; i++) {
		const struct col_cell *cell = columns_cell(k, i, total);
		double x = chart_x(&c, colw * ((double)i + 0.5));
		fprintf(out, "M%.1f %.1fV%.1f", x, chart_y(&c, (double)cell->min),
			chart_y(&c, (double)cell->max) - 0.5);
	}
	fputs("\"/>\n", out);
	if (peak_v > 0) {
		/* the live heap's peak; on the blocks chart, the blocks live then */
		char b[32], s[32];
		double x = chart_x(&c, seconds(t, peak_ts - tl->start_ts));
		fprintf(out, "<line class=\"peak\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
			     "<text class=\"pk\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">",
			x, x, c.py0, c.py1, x + (x > c.px1 - 200 ? -4 : 4), c.py0 + 42,
			x > c.px1 - 200 ? "end" : "start");
		fprintf(out, u == HU_BYTES ? "heap peak %s at %s" : "%s live at the heap peak, %s",
			html_fmt(b, peak_v, u), html_fmt(s, seconds(t, peak_ts - tl->start_ts), HU_SECONDS));
		fputs("</text>\n", out);
	}
	event_marks(&c, tl, colw);
	char names[TL_GROUPS + 1][32];
	const char *legend[TL_GROUPS + 1];
	for (size_t g = 0; g < tl->ngroups; g++) {
		group_name(tl, g, names[g], sizeof names[g]);
		legend[g] = names[g];
	}
	chart_legend(&c, legend, tl->ngroups, 0);
	chart_end(&c);
}

static void rate_chart(FILE *out, const struct mt_trace *t, const struct timeline *tl,
		       size_t series, enum html_unit u, const char *what)
{
	struct chart c;
	const struct columns *k = &tl->cols;
	double colw = seconds(t, k->width), top = 0;
	for (size_t i = 0; i < k->used; i++) {
		double v = (double)columns_cell(k, i, series)->sum / colw;
		top = v > top ? v : top;
	}
	chart_begin(&c, out, CHART_W, 200, 0, colw * (double)(k->used ? k->used : 1), HU_SECONDS, 0,
		    top * 1.1, u, 0, "time since the trace began", what);
	fprintf(out, "<path stroke=\"%s\" fill=\"none\" d=\"", html_colour(0));
	for (size_t i = 0; i < k->used; i++) {
		double v = (double)columns_cell(k, i, series)->sum / colw;
		if (v > 0)
			fprintf(out, "M%.1f %.1fV%.1f", chart_x(&c, colw * ((double)i + 0.5)), c.py1,
				chart_y(&c, v));
	}
	fputs("\"/>\n", out);
	chart_end(&c);
}

/* ---- histograms ---- */

static void histogram(FILE *out, const uint64_t *h, enum html_unit u, const char *what)
{
	unsigned lo = HIST_BUCKETS, hi = 0;
	for (unsigned b = 0; b < HIST_BUCKETS; b++)
		if (h[b]) {
			lo = b < lo ? b : lo;
			hi = b;
		}
	if (lo > hi) {
		fputs("<p class=\"note\">None.</p>\n", out);
		return;
	}
	size_t n = hi - lo + 1;
	const char *labels[HIST_BUCKETS];
	char text[HIST_BUCKETS][40];
	double v[HIST_BUCKETS];
	for (size_t i = 0; i < n; i++) {
		unsigned b = lo + (unsigned)i;
		/* bucket b holds 2^(b-1) .. 2^b - 1: labelled by its upper end */
		char x[32];
		snprintf(text[i], sizeof text[i], "<%s",
			 html_fmt(x, b ? (double)(b == 64 ? UINT64_MAX : 1ull << b) : 1, u));
		labels[i] = b ? text[i] : "0";
		v[i] = (double)h[b];
	}
	html_bars(out, what, HU_COUNT, labels, v, NULL, NULL, n, 1, 1, NULL);
}

/* ---- flame graphs ---- */

struct fnode {
	char *name;
	uint64_t weight;
	struct fnode *child, *next;
};

static struct fnode *fnode_child(struct fnode *p, const char *name)
{
	for (struct fnode *c = p->child; c; c = c->next)
		if (strcmp(c->name, name) == 0)
			return c;
	struct fnode *c = calloc(1, sizeof *c);
	if (!c || !(c->name = strdup(name))) {
		free(c);
		return NULL;
	}
	c->next = p->child;
	p->child = c;
	return c;
}

static void fnode_free(struct fnode *n)
{
	while (n) {
		struct fnode *next = n->next;
		fnode_free(n->child);
		free(n->name);
		free(n);
		n = next;
	}
}

static void frame_name(char *buf, size_t len, const struct frame *f)
{
	if (f->function)
		snprintf(buf, len, "%s", f->function);
	else
		snprintf(buf, len, "%s+0x%" PRIx64, f->module ? f->module : "?", f->address);
}

/* The tree of stacks, outermost frame first, weighted by weight(site). */
static struct fnode *flame_tree(const struct analysis *a, struct symbols *s,
				uint64_t (*weight)(const struct site *))
{
	struct fnode *root = calloc(1, sizeof *root);
	if (!root || !(root->name = strdup("all"))) {
		free(root);
		return NULL;
	}
	for (size_t i = 0; i < a->nsites; i++) {
		uint64_t w = weight(&a->sites[i]);
		if (!w)
			continue;
		size_t n;
		const struct frame *f = symbols_stack(s, a->sites[i].stack, &n);
		struct fnode *at = root;
		root->weight += w;
		if (!n)
			at = fnode_child(at, "unknown");
		for (size_t k = n; at && k-- > 0;) {
			char name[512];
			frame_name(name, sizeof name, &f[k]);
			at = fnode_child(at, name);
			if (at)
				at->weight += w;
		}
		if (!n && at)
			at->weight += w;
	}
	return root;
}

static int flame_depth(const struct fnode *n, uint64_t min)
{
	int d = 0;
	for (const struct fnode *c = n->child; c; c = c->next)
		if (c->weight >= min) {
			int cd = flame_depth(c, min);
			d = cd > d ? cd : d;
		}
	return d + 1;
}

static void flame_box(FILE *out, double x, double y, double w, const char *name, uint64_t weight,
		      uint64_t total, const char *fill)
{
	char b[32];
	fprintf(out, "<g class=\"f\"><title>");
	html_text(out, name);
	fprintf(out, " - %s, %.2f%%</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" "
		     "fill=\"%s\"/>",
		html_fmt(b, (double)weight, HU_BYTES), 100.0 * (double)weight / (double)total, x, y,
		w, FLAME_ROW - 1, fill);
	size_t fit = w > 24 ? (size_t)((w - 6) / 6.2) : 0;
	if (fit) {
		char shown[256];
		size_t len = strlen(name);
		snprintf(shown, sizeof shown, "%.*s%s", (int)(len > fit ? fit - 1 : len), name,
			 len > fit ? "…" : "");
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">", x + 3, y + FLAME_ROW - 5);
		html_text(out, shown);
		fputs("</text>", out);
	}
	fputs("</g>\n", out);
}

static void flame_draw(FILE *out, const struct fnode *n, double x, double y, double scale,
		       uint64_t total, uint64_t min)
{
	unsigned h = 5381;
	for (const char *c = n->name; *c; c++)
		h = h * 33 + (unsigned char)*c;
	char fill[32];
	snprintf(fill, sizeof fill, "hsl(%u,75%%,%u%%)", h % 55, 55 + (h >> 8) % 15);
	flame_box(out, x, y, (double)n->weight * scale, n->name, n->weight, total, fill);
	uint64_t small = 0;
	size_t nsmall = 0;
	for (const struct fnode *c = n->child; c; c = c->next) {
		if (c->weight < min) {
			small += c->weight;
			nsmall++;
			continue;
		}
		flame_draw(out, c, x, y - FLAME_ROW, scale, total, min);
		x += (double)c->weight * scale;
	}
	if (small) {
		char name[64];
		snprintf(name, sizeof name, "%zu smaller frames", nsmall);
		flame_box(out, x, y - FLAME_ROW, (double)small * scale, name, small, total, "#ccc");
	}
}

static uint64_t alloc_weight(const struct site *s) { return s->bytes; }
static uint64_t leak_weight(const struct site *s) { return s->leak_bytes; }

static void flame_graph(FILE *out, const struct analysis *a, struct symbols *s,
			uint64_t (*weight)(const struct site *), const char *id)
{
	struct fnode *root = flame_tree(a, s, weight);
	if (!root || !root->weight) {
		fputs(root ? "<p class=\"note\">None.</p>\n" : "<p>out of memory</p>\n", out);
		fnode_free(root);
		return;
	}
	uint64_t min = (uint64_t)((double)root->weight * FLAME_MIN);
	int depth = flame_depth(root, min ? min : 1);
	int h = depth * FLAME_ROW + 4;
	fprintf(out, "<svg width=\"%d\" height=\"%d\" data-info=\"%s-info\">\n", CHART_W, h, id);
	flame_draw(out, root, 0, h - FLAME_ROW, (double)CHART_W / (double)root->weight, root->weight,
		   min ? min : 1);
	fprintf(out, "</svg>\n<div class=\"info\" id=\"%s-info\">Hover over a frame, or click it, "
		     "for its name and bytes.</div>\n",
		id);
	fnode_free(root);
}

/* ---- tables ---- */

static void table_frames(FILE *out, struct symbols *s, uint64_t stack)
{
	size_t n;
	const struct frame *f = symbols_stack(s, stack, &n);
	if (!n)
		fputs("unknown", out);
	for (size_t i = 0; i < n && i < TABLE_FRAMES; i++) {
		char name[512];
		frame_name(name, sizeof name, &f[i]);
		html_text(out, name);
		if (f[i].file) {
			const char *slash = strrchr(f[i].file, '/');
			fputs(" <span class=\"note\">", out);
			html_text(out, slash ? slash + 1 : f[i].file);
			fprintf(out, ":%d</span>", f[i].line);
		}
		fputs("<br>", out);
	}
	if (n > TABLE_FRAMES)
		fprintf(out, "<span class=\"note\">... %zu more frames</span>", n - TABLE_FRAMES);
}

static void site_table(FILE *out, const struct analysis *a, struct symbols *s, unsigned section,
		       const struct report_opts *o)
{
	size_t n;
	const struct site **v = report_ranked(a, section, &n);
	if (!v || !n) {
		fputs("<p class=\"note\">None.</p>\n", out);
		free(v);
		return;
	}
	fputs("<table><tr><th>#</th><th>bytes</th><th>blocks</th><th>stack (allocating call "
	      "first)</th></tr>\n",
	      out);
	size_t shown = o->top && o->top < n ? o->top : n;
	for (size_t i = 0; i < shown; i++) {
		char b[32];
		int leak = section == SEC_LEAKS;
		uint64_t bytes = leak ? v[i]->leak_bytes : v[i]->peak_bytes;
		uint64_t count = leak ? v[i]->leak_count : v[i]->peak_count;
		fprintf(out, "<tr><td class=\"n\">%zu</td><td class=\"n\">%s<br><span class=\"note\">"
			     "%" PRIu64 " B</span></td><td class=\"n\">%" PRIu64 "</td><td class=\"fr\">",
			i + 1, html_fmt(b, (double)bytes, HU_BYTES), bytes, count);
		table_frames(out, s, v[i]->stack);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
	if (n > shown)
		fprintf(out, "<p class=\"note\">... %zu more (--top=0 shows all)</p>\n", n - shown);
	free(v);
}

/* ---- the section ---- */

static void facts(FILE *out, const struct mt_trace *t, const struct analysis *a)
{
	const struct mt_trace_info *in = mt_trace_get_info(t);
	char b[32];
	fputs("<table class=\"facts\"><tr><td>trace</td><td>", out);
	html_text(out, mt_trace_path(t));
	fprintf(out, "</td></tr><tr><td>process</td><td>pid %" PRIu32 ", ", in->pid);
	html_text(out, in->exe[0] ? in->exe : "(executable unknown)");
	fprintf(out, "</td></tr><tr><td>threads</td><td>%zu</td></tr>", mt_trace_threads(t));
	fprintf(out, "<tr><td>allocations</td><td>%" PRIu64 " calls, %s requested; %" PRIu64
		     " frees</td></tr>",
		a->allocs, html_fmt(b, (double)a->bytes, HU_BYTES), a->frees);
	fprintf(out, "<tr><td>peak</td><td>%s in %" PRIu64 " blocks</td></tr>",
		html_fmt(b, (double)a->peak_bytes, HU_BYTES), a->peak_count);
	fprintf(out, "<tr><td>leaked</td><td>%s in %" PRIu64 " blocks</td></tr>",
		html_fmt(b, (double)a->leak_bytes, HU_BYTES), a->leak_count);
	fprintf(out, "<tr><td>temporary</td><td>%" PRIu64 " allocations</td></tr></table>\n",
		a->temp_count);
}

void report_html(FILE *out, const struct mt_trace *t, struct analysis *a, struct symbols *s,
		 struct timeline *tl, const struct report_opts *o)
{
	static unsigned traces;
	char id[32];
	traces++;
	fprintf(out, "<h2>pid %" PRIu32 ": ", mt_trace_get_info(t)->pid);
	html_text(out, mt_trace_get_info(t)->exe);
	fputs("</h2>\n", out);
	facts(out, t, a);
	if (!mt_trace_has_stacks(t))
		fputs("<p class=\"note\">No call stacks in this trace (record with mtrace-record "
		      "--stacks): no flame graphs, every block at one unknown site.</p>\n",
		      out);
	for (size_t i = 0; i < TL_SERIES(tl->ngroups); i++)
		if (i < TL_CALLS || i >= TL_GROUP_BYTES)
			columns_carry(&tl->cols, i);
	fputs("<h2>Live heap (bytes requested and not yet freed) by thread</h2>\n", out);
	level_chart(out, t, tl, TL_BYTES, TL_GROUP_BYTES, HU_BYTES, "live bytes", a->peak_ts,
		    (double)a->peak_bytes);
	event_legend(out, tl);
	fputs("<p class=\"note\">Areas: each thread's live bytes at the end of each column; black "
	      "strokes: the total's lowest to highest within the column.</p>\n",
	      out);
	if (mt_trace_has_stacks(t)) {
		fputs("<h2>Allocated bytes by call stack</h2>\n", out);
		snprintf(id, sizeof id, "t%u-alloc", traces);
		flame_graph(out, a, s, alloc_weight, id);
		fputs("<h2>Leaked bytes by call stack</h2>\n", out);
		snprintf(id, sizeof id, "t%u-leak", traces);
		flame_graph(out, a, s, leak_weight, id);
	}
	fputs("<h2>Live blocks by thread</h2>\n", out);
	level_chart(out, t, tl, TL_BLOCKS, TL_GROUP_BLOCKS(tl->ngroups), HU_COUNT, "live blocks",
		    a->peak_ts, (double)a->peak_count);
	fputs("<h2>Allocation rate</h2>\n", out);
	rate_chart(out, t, tl, TL_ALLOC_BYTES, HU_BYTES_PER_SECOND, "bytes allocated per second");
	rate_chart(out, t, tl, TL_CALLS, HU_PER_SECOND, "allocations per second");
	fputs("<h2>Sizes requested</h2>\n", out);
	histogram(out, a->size_hist, HU_BYTES, "allocations by size (log scale)");
	fputs("<h2>Lifetimes of freed blocks</h2>\n", out);
	histogram(out, a->lifetime_hist, HU_NS, "freed blocks by lifetime (log scale)");
	fputs("<h2>Leaks (blocks never freed)</h2>\n", out);
	site_table(out, a, s, SEC_LEAKS, o);
	fputs("<h2>Peak (blocks live at the highest live heap)</h2>\n", out);
	site_table(out, a, s, SEC_PEAK, o);
}
