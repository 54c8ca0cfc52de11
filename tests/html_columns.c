/*
 * html_columns.c - the chart reduction and escaping both HTML pages rely
 * on: a million samples fit the fixed columns, a one-sample spike survives
 * as some column's max (and a dip as some column's min), sums are kept
 * whole through every merge, a column without samples holds the level
 * before it, and html_text leaves no markup character unescaped.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "columns.h"
#include "html.h"

static void spikes(void)
{
	struct columns c;
	CHECK(columns_init(&c, 1000, 2) == 0, "init");
	uint64_t n = 1000000, sum = 0;
	for (uint64_t x = 0; x < n; x++) {
		int64_t v = 1000 + (int64_t)(x % 7);
		if (x == 777777)
			v = 5000000; /* the spike: one sample */
		if (x == 123457)
			v = -3;      /* the dip */
		size_t col = columns_at(&c, x);
		columns_level(&c, col, 0, v);
		columns_add(&c, col, 1, x % 3);
		sum += x % 3;
	}
	CHECK(c.used <= c.ncols && c.used > c.ncols / 2, "used %zu of %zu columns", c.used, c.ncols);
	CHECK(c.width == 1024, "width %llu, want the power of two that fits 1e6 in 1000",
	      (unsigned long long)c.width);
	int64_t hi = 0, lo = 0;
	uint64_t got = 0;
	size_t hi_col = 0;
	for (size_t i = 0; i < c.used; i++) {
		const struct col_cell *k = columns_cell(&c, i, 0);
		CHECK(k->set, "column %zu has no level", i);
		if (k->max > hi) {
			hi = k->max;
			hi_col = i;
		}
		lo = k->min < lo ? k->min : lo;
		got += columns_cell(&c, i, 1)->sum;
	}
	CHECK(hi == 5000000, "spike lost: highest max %lld", (long long)hi);
	CHECK(hi_col == 777777 / c.width, "spike in column %zu", hi_col);
	CHECK(lo == -3, "dip lost: lowest min %lld", (long long)lo);
	CHECK(got == sum, "sum %llu, want %llu", (unsigned long long)got, (unsigned long long)sum);
	columns_free(&c);
}

static void carry(void)
{
	struct columns c;
	CHECK(columns_init(&c, 10, 1) == 0, "init");
	columns_level(&c, columns_at(&c, 1), 0, 5);
	columns_level(&c, columns_at(&c, 2), 0, 8);
	columns_level(&c, columns_at(&c, 7), 0, 2);
	columns_carry(&c, 0);
	CHECK(c.used == 8, "used %zu", c.used);
	CHECK(columns_cell(&c, 0, 0)->min == 0 && columns_cell(&c, 0, 0)->max == 0, "before any");
	CHECK(columns_cell(&c, 4, 0)->min == 8 && columns_cell(&c, 4, 0)->max == 8,
	      "a gap holds 8: %lld..%lld", (long long)columns_cell(&c, 4, 0)->min,
	      (long long)columns_cell(&c, 4, 0)->max);
	/* column 7 changes 8 -> 2: it spans both */
	CHECK(columns_cell(&c, 7, 0)->min == 2 && columns_cell(&c, 7, 0)->max == 8,
	      "the level held into a column counts: %lld..%lld",
	      (long long)columns_cell(&c, 7, 0)->min, (long long)columns_cell(&c, 7, 0)->max);
	columns_free(&c);
}

static void escaping(void)
{
	char *buf;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	html_text(f, "<script>\"a\" & 'b'</script>");
	fclose(f);
	CHECK(strcmp(buf, "&lt;script&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/script&gt;") == 0,
	      "escaped as %s", buf);
	free(buf);
	char b[32];
	CHECK(strcmp(html_fmt(b, 1536, HU_BYTES), "1.5 KiB") == 0, "1536 bytes: %s", b);
	CHECK(strcmp(html_fmt(b, 0.0025, HU_SECONDS), "2.5 ms") == 0, "2.5 ms: %s", b);
	CHECK(strcmp(html_fmt(b, 2000000, HU_PER_SECOND), "2 M/s") == 0, "2 M/s: %s", b);
}

int main(void)
{
	spikes();
	carry();
	escaping();
	return check_result();
}
