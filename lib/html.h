/*
 * html.h - self-contained HTML pages with inline SVG charts, shared by
 * mtrace-report --html and trace_run --html so the two pages look alike
 * and escape text the same way.
 *
 * Everything a page needs is written into it: CSS, SVG, a few lines of
 * script; nothing is loaded at view time.  The charts take values already
 * reduced to a bounded number of points (columns.h): their cost is the
 * chart's size, never the trace's.
 */
#ifndef MT_HTML_H
#define MT_HTML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* s with &, <, >, " and ' escaped: safe in text and in quoted attributes. */
void html_text(FILE *out, const char *s);
/* The page up to the opening of its body, with title as <title> and <h1>. */
void html_begin(FILE *out, const char *title);
void html_end(FILE *out);

/* Units of an axis or a figure. */
enum html_unit { HU_COUNT, HU_BYTES, HU_SECONDS, HU_NS, HU_PER_SECOND, HU_BYTES_PER_SECOND };
/* v in its unit, shortened: "1.50 MiB", "12.0 ms", "3.20 M"; in buf. */
const char *html_fmt(char buf[32], double v, enum html_unit u);

/* The i-th colour of the palette every chart draws its series with. */
const char *html_colour(size_t i);

/* One chart: an SVG of w x h pixels with a plot area inside its margins. */
struct chart {
	FILE *out;
	int w, h;
	double px0, px1, py0, py1;   /* plot area in pixels */
	double x0, x1, y0, y1;       /* data range; y on a log10 scale when logy */
	int logy;
};

/* Opens the SVG and draws axes, grid and tick labels; y0 is raised to a
 * positive value when logy. */
void chart_begin(struct chart *c, FILE *out, int w, int h, double x0, double x1,
		 enum html_unit xu, double y0, double y1, enum html_unit yu, int logy,
		 const char *xlabel, const char *ylabel);
double chart_x(const struct chart *c, double x);
double chart_y(const struct chart *c, double y);
/* A legend line at the top right: n names in palette colours from first. */
void chart_legend(const struct chart *c, const char *const *names, size_t n, size_t first);
void chart_end(struct chart *c);

/* A vertical bar chart of n values (log scale when logy), optional
 * whiskers lo..hi (NULL for none), labels under each bar.  Bars come in
 * groups of `group` (1: each its own colour): bar i has colour i / group,
 * named by legend[i / group] when legend is not NULL. */
void html_bars(FILE *out, const char *ylabel, enum html_unit yu, const char *const *labels,
	       const double *v, const double *lo, const double *hi, size_t n, int logy,
	       size_t group, const char *const *legend);

#endif
