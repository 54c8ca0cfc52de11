/*
 * html.c - the page frame, the units, the axes and the bar charts that
 * mtrace-report's and trace_run's HTML pages share (see html.h).
 *
 * Only system fonts and inline styles: the page must read the same with the
 * network cut.  Hover shows an SVG element's <title>; the one script makes
 * a click on a flame graph frame copy its title into the line under it, for
 * touch screens that have no hover.
 */
#include "config.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#include "html.h"

void html_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default: putc(*s, out);
		}
	}
}

static const char style[] =
	"body{font-family:system-ui,sans-serif;margin:16px auto;max-width:1160px;color:#222;"
	"background:#fff}\n"
	"h1{font-size:20px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ccc}\n"
	"svg{display:inline-block;vertical-align:top;margin:6px 10px 6px 0}svg text{font-size:11px;fill:#333}\n"
	".grid{stroke:#e4e4e4}.axis{stroke:#888}.peak{stroke:#c00;stroke-dasharray:4 3}\n"
	"svg text.pk{fill:#c00;paint-order:stroke;stroke:#fff;stroke-width:3px}\n"
	"table{border-collapse:collapse;font-size:12px;margin:6px 0}\n"
	"td,th{border:1px solid #ddd;padding:3px 6px;vertical-align:top;text-align:left}\n"
	"td.n{text-align:right;white-space:nowrap}.fr{font-family:monospace;font-size:11px}\n"
	".f rect{stroke:#fff;stroke-width:.5}.f:hover rect{stroke:#000}.f text{font-size:10px;"
	"pointer-events:none}\n"
	".info{font-family:monospace;font-size:12px;min-height:1.3em}.note{color:#666;"
	"font-size:12px}\n"
	".facts td:first-child{color:#555}\n";

void html_begin(FILE *out, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>", out);
	html_text(out, title);
	fprintf(out, "</title>\n<style>\n%s</style></head>\n<body>\n<h1>", style);
	html_text(out, title);
	fputs("</h1>\n", out);
}

void html_end(FILE *out)
{
	fputs("<script>\n"
	      "document.addEventListener('click',function(e){\n"
	      " var g=e.target.closest&&e.target.closest('g.f');if(!g)return;\n"
	      " var i=document.getElementById(g.parentNode.getAttribute('data-info'));\n"
	      " if(i)i.textContent=g.querySelector('title').textContent;});\n"
	      "</script>\n</body></html>\n",
	      out);
}

/* v / 1024^k or 1000^k with the k that leaves it under the base. */
static const char *scaled(char buf[32], double v, double base, const char *const *prefix,
			  const char *suffix)
{
	int k = 0;
	double a = fabs(v);
	while (a >= base && prefix[k + 1]) {
		a /= base;
		v /= base;
		k++;
	}
	/* three digits, but whole from 1000 (1000..1023 of a binary unit) */
	snprintf(buf, 32, (k || v != floor(v)) && a < 1000 ? "%.3g%s%s" : "%.0f%s%s", v, prefix[k],
		 suffix);
	return buf;
}

const char *html_fmt(char buf[32], double v, enum html_unit u)
{
	static const char *const bin[] = { " B", " KiB", " MiB", " GiB", " TiB", " PiB", NULL };
	static const char *const dec[] = { "", " k", " M", " G", " T", " P", NULL };
	switch (u) {
	case HU_BYTES: return scaled(buf, v, 1024, bin, "");
	case HU_BYTES_PER_SECOND: return scaled(buf, v, 1024, bin, "/s");
	case HU_PER_SECOND: return scaled(buf, v, 1000, dec, "/s");
	case HU_NS: v /= 1e9; /* fall through */
	case HU_SECONDS:
		if (v == 0)
			snprintf(buf, 32, "0 s");
		else if (fabs(v) < 1e-6)
			snprintf(buf, 32, "%.3g ns", v * 1e9);
		else if (fabs(v) < 1e-3)
			snprintf(buf, 32, "%.3g µs", v * 1e6);
		else if (fabs(v) < 1)
			snprintf(buf, 32, "%.3g ms", v * 1e3);
		else
			snprintf(buf, 32, "%.3g s", v);
		return buf;
	case HU_COUNT: break;
	}
	return scaled(buf, v, 1000, dec, "");
}

const char *html_colour(size_t i)
{
	static const char *const palette[] = { "#4e79a7", "#f28e2b", "#59a14f", "#e15759",
					       "#b07aa1", "#76b7b2", "#edc948", "#9c755f",
					       "#ff9da7", "#bab0ac" };
	return palette[i % (sizeof palette / sizeof palette[0])];
}

/* A round step near span/6: 1, 2 or 5 times a power of ten, or for bytes
 * a power of two, so that every label reads whole in KiB, MiB, GiB. */
static double tick_step(double span, enum html_unit u)
{
	double raw = span / 6;
	if (u == HU_BYTES || u == HU_BYTES_PER_SECOND)
		return raw < 1 ? 1 : pow(2, ceil(log2(raw)));
	double mag = pow(10, floor(log10(raw))), norm = raw / mag;
	return (norm < 1.5 ? 1 : norm < 3.5 ? 2 : norm < 7.5 ? 5 : 10) * mag;
}

double chart_x(const struct chart *c, double x)
{
	return c->px0 + (x - c->x0) / (c->x1 - c->x0) * (c->px1 - c->px0);
}

double chart_y(const struct chart *c, double y)
{
	double lo = c->y0, hi = c->y1;
	if (c->logy) {
		y = log10(y > c->y0 ? y : c->y0);
		lo = log10(lo);
		hi = log10(hi);
	}
	return c->py1 - (y - lo) / (hi - lo) * (c->py1 - c->py0);
}

static void y_tick(const struct chart *c, double v, enum html_unit u)
{
	char b[32];
	double y = chart_y(c, v);
	fprintf(c->out, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
		c->px0, c->px1, y, y);
	fprintf(c->out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", c->px0 - 4,
		y + 4, html_fmt(b, v, u));
}

void chart_begin(struct chart *c, FILE *out, int w, int h, double x0, double x1,
		 enum html_unit xu, double y0, double y1, enum html_unit yu, int logy,
		 const char *xlabel, const char *ylabel)
{
	if (logy) {
		y0 = y0 > 0 ? pow(10, floor(log10(y0))) : 1;
		y1 = y1 > y0 ? pow(10, ceil(log10(y1))) : y0 * 10;
	} else if (y1 <= y0) {
		y1 = y0 + 1;
	}
	if (x1 <= x0)
		x1 = x0 + 1;
	*c = (struct chart){ .out = out, .w = w, .h = h, .px0 = 72, .px1 = w - 16, .py0 = 24,
			     .py1 = h - (xlabel ? 36 : 44), .x0 = x0, .x1 = x1, .y0 = y0,
			     .y1 = y1, .logy = logy };
	fprintf(out, "<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n", w, h,
		w, h);
	fprintf(out, "<text x=\"4\" y=\"14\" font-weight=\"bold\">");
	html_text(out, ylabel);
	fputs("</text>\n", out);
	if (logy) {
		for (double v = y0; v <= y1 * 1.001; v *= 10)
			y_tick(c, v, yu);
	} else {
		double s = tick_step(y1 - y0, yu);
		for (double v = ceil(y0 / s) * s; v <= y1 + s * 1e-9; v += s)
			y_tick(c, v, yu);
	}
	if (xlabel) {
		char b[32];
		double s = tick_step(x1 - x0, xu);
		for (double v = ceil(x0 / s) * s; v <= x1 + s * 1e-9; v += s) {
			double x = chart_x(c, v);
			fprintf(out, "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
				     "y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" "
				     "text-anchor=\"middle\">%s</text>\n",
				x, x, c->py1, c->py1 + 4, x, c->py1 + 15, html_fmt(b, v, xu));
		}
		fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", (c->px0 + c->px1) / 2,
			h - 4);
		html_text(out, xlabel);
		fputs("</text>\n", out);
	}
	fprintf(out, "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
		     "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n",
		c->px0, c->px0, c->py0, c->py1, c->px0, c->px1, c->py1, c->py1);
}

void chart_legend(const struct chart *c, const char *const *names, size_t n, size_t first)
{
	double x = c->px1;
	for (size_t i = n; i-- > 0;) {
		x -= 7.0 * (double)strlen(names[i]) + 26;
		fprintf(c->out, "<rect x=\"%.1f\" y=\"5\" width=\"11\" height=\"11\" fill=\"%s\"/>"
				"<text x=\"%.1f\" y=\"14\">",
			x, html_colour(first + i), x + 15);
		html_text(c->out, names[i]);
		fputs("</text>\n", c->out);
	}
}

void chart_end(struct chart *c)
{
	fputs("</svg>\n", c->out);
}

void html_bars(FILE *out, const char *ylabel, enum html_unit yu, const char *const *labels,
	       const double *v, const double *lo, const double *hi, size_t n, int logy,
	       size_t group, const char *const *legend)
{
	struct chart c;
	double top = 0, bottom = 0;
	assert(n > 0 && group > 0);
	for (size_t i = 0; i < n; i++) {
		double t = hi ? hi[i] : v[i];
		top = t > top ? t : top;
		if (v[i] > 0 && (!bottom || v[i] < bottom))
			bottom = v[i];
	}
	int w = 120 + 90 * (int)n;
	w = w < 360 ? 360 : w > 1100 ? 1100 : w;
	chart_begin(&c, out, w, 230, 0, (double)n, HU_COUNT,
		    logy ? (lo && lo[0] > 0 && lo[0] < bottom ? lo[0] : bottom) : 0, top * 1.08, yu,
		    logy, NULL, ylabel);
	double slot = (c.px1 - c.px0) / (double)n;
	for (size_t i = 0; i < n; i++) {
		char b[32];
		double x = c.px0 + slot * (double)i + slot * 0.2, bw = slot * 0.6;
		double y = chart_y(&c, v[i]);
		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
			     "<title>",
			x, y, bw, c.py1 - y, html_colour(i / group));
		if (legend) {
			html_text(out, legend[i / group]);
			putc(' ', out);
		}
		html_text(out, labels[i]);
		fprintf(out, ": %s</title></rect>\n", html_fmt(b, v[i], yu));
		if (lo && hi && hi[i] > lo[i]) {
			double m = x + bw / 2, ylo = chart_y(&c, lo[i]), yhi = chart_y(&c, hi[i]);
			fprintf(out, "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fh12M%.1f %.1fh12\" "
				     "stroke=\"#000\" fill=\"none\"/>\n",
				m, ylo, yhi, m - 6, ylo, m - 6, yhi);
		}
		if (slot >= 60 || i % 2 == 0)
			fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>",
				x + bw / 2, y - 4 > c.py0 + 8 ? y - 4 : c.py0 + 8, html_fmt(b, v[i], yu));
		/* every other label when they would run into each other */
		if (slot >= 60 || i % 2 == 0) {
			fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x + bw / 2,
				c.py1 + 15);
			html_text(out, labels[i]);
			fputs("</text>\n", out);
		}
	}
	if (legend)
		chart_legend(&c, legend, n / group, 0);
	chart_end(&c);
}
