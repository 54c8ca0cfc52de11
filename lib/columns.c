/*
 * columns.c - the min/max/last/sum reduction of a time series to a fixed
 * number of columns (see columns.h).
 */
#include "config.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"

int columns_init(struct columns *c, size_t ncols, size_t nseries)
{
	assert(ncols >= 2 && ncols % 2 == 0 && nseries > 0);
	*c = (struct columns){ .ncols = ncols, .nseries = nseries, .width = 1 };
	c->cell = calloc(ncols * nseries, sizeof *c->cell);
	return c->cell ? 0 : -1;
}

void columns_free(struct columns *c)
{
	free(c->cell);
	c->cell = NULL;
}

static void merge_cell(struct col_cell *into, const struct col_cell *a, const struct col_cell *b)
{
	struct col_cell m = *a;
	m.sum += b->sum;
	if (b->set) {
		if (!m.set || b->min < m.min)
			m.min = b->min;
		if (!m.set || b->max > m.max)
			m.max = b->max;
		m.last = b->last;
		m.set = 1;
	}
	*into = m;
}

/* Every pair of columns becomes one, twice as wide. */
static void halve(struct columns *c)
{
	size_t half = c->ncols / 2;
	for (size_t i = 0; i < half; i++)
		for (size_t s = 0; s < c->nseries; s++)
			merge_cell(columns_cell(c, i, s), columns_cell(c, 2 * i, s),
				   columns_cell(c, 2 * i + 1, s));
	memset(columns_cell(c, half, 0), 0, half * c->nseries * sizeof *c->cell);
	c->width *= 2;
	c->shift++;
	c->used = (c->used + 1) / 2;
}

size_t columns_at(struct columns *c, uint64_t x)
{
	while (x >> c->shift >= c->ncols)
		halve(c);
	size_t col = (size_t)(x >> c->shift);
	if (col + 1 > c->used)
		c->used = col + 1;
	return col;
}

void columns_carry(struct columns *c, size_t s)
{
	int64_t held = 0;
	for (size_t i = 0; i < c->used; i++) {
		struct col_cell *k = columns_cell(c, i, s);
		if (!k->set)
			*k = (struct col_cell){ .min = held, .max = held, .last = held, .sum = k->sum,
						.set = 1 };
		/* the level held from the column's start to its first change */
		k->min = held < k->min ? held : k->min;
		k->max = held > k->max ? held : k->max;
		held = k->last;
	}
}
