/*
 * columns.h - any number of samples reduced to a fixed number of columns,
 * one per pixel of a chart, keeping each column's lowest, highest and last
 * value and its sum: a spike of one sample still shows, where a sample of
 * the samples would hide it.
 *
 * One streaming pass, the time span unknown in advance: columns start one
 * time unit wide and, when a sample lands past the last, every pair merges
 * and the width doubles.  Memory: columns x series cells, whatever the
 * number of samples.
 */
#ifndef MT_COLUMNS_H
#define MT_COLUMNS_H

#include <stddef.h>
#include <stdint.h>

struct col_cell {
	int64_t min, max, last; /* of the levels noted in the column */
	uint64_t sum;           /* of the amounts added in the column */
	int set;                /* a level was noted */
};

struct columns {
	size_t ncols, nseries;
	uint64_t width;         /* time units per column: 1 << shift */
	unsigned shift;
	size_t used;            /* columns up to the latest sample */
	struct col_cell *cell;  /* [column * nseries + series] */
};

/* 0, or -1 when out of memory. */
int columns_init(struct columns *c, size_t ncols, size_t nseries);
void columns_free(struct columns *c);
/* The column of time x (from 0), merging columns until it fits: a
 * shift and a compare unless it merges.  Valid until the next call. */
size_t columns_at(struct columns *c, uint64_t x);
static inline struct col_cell *columns_cell(const struct columns *c, size_t col, size_t s)
{
	return &c->cell[col * c->nseries + s];
}
/* Series s stood at level v in column col. */
static inline void columns_level(struct columns *c, size_t col, size_t s, int64_t v)
{
	struct col_cell *k = columns_cell(c, col, s);
	if (!k->set || v < k->min)
		k->min = v;
	if (!k->set || v > k->max)
		k->max = v;
	k->last = v;
	k->set = 1;
}
/* Series s counted amount more in column col (a rate's numerator). */
static inline void columns_add(struct columns *c, size_t col, size_t s, uint64_t amount)
{
	columns_cell(c, col, s)->sum += amount;
}
/* Fills the columns where series s noted no level with the level it held
 * then (the last one before; 0 before any), so a chart draws steps. */
void columns_carry(struct columns *c, size_t s);

#endif
