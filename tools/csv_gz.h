/*
 * csv_gz.h - one table partition as gzip-compressed CSV parts, for
 * mtrace-report --export: DIR/part-0000.csv.gz, part-0001.csv.gz... each
 * with the header line and at most part_rows rows, so no file grows
 * without bound and an engine can split the work by file.
 *
 * A part is written as part-NNNN.csv.gz.tmp and renamed when complete, so
 * a query running during an export, or after one that died, never reads
 * half a file.  Rows are built in a buffer by the inline helpers below
 * (no printf on the per-row path), and each full buffer is compressed by
 * ISA-L's igzip at level 1 into a gzip member of its own: a gzip file may
 * hold several members one after another (RFC 1952), which gzip, zlib,
 * DuckDB and Hadoop's codec all read as one stream.  The compressor is
 * a third to a half of the cost of an export; igzip's level 1 is 1.5-1.8
 * times libdeflate's speed for 3-4% more bytes, and 5.4-5.6 times zlib's
 * (docs/BENCHMARKS.md).  Its matches are sought in the last 512 bytes
 * only: rows repeat the rows just before them.
 *
 * The compression runs in a thread of the writer's own, on the buffer
 * filled before the one being filled, so on a second core the rows of an
 * export are made and compressed at once.  The two buffers and the
 * compressor's memory are all a table costs (about 1 MiB).
 */
#ifndef MT_CSV_GZ_H
#define MT_CSV_GZ_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mt_error.h"

#define CSV_GZ_BUF (256 * 1024)
/* A member's bound: stored blocks (5 bytes per 64 KiB) and gzip's 18 bytes */
#define CSV_GZ_OUT (CSV_GZ_BUF + 4096)

#define CSV_GZ_CELL_MAX 24 /* longest number cell plus its separator */

struct csv_gz {
	char *dir;            /* the partition directory */
	const char *header;   /* "a,b,c" without newline */
	uint64_t part_rows;   /* rows per part */
	uint64_t rows;        /* in the current part */
	uint64_t total_rows;
	unsigned part;        /* number of the current part */
	char *buf;            /* the rows being written, CSV_GZ_BUF bytes */
	size_t used;
	/* Shared with the compressor: the main thread touches spare, file and
	 * failed only while the compressor is idle (spare_used 0). */
	pthread_mutex_t lock;
	pthread_cond_t change; /* spare_used or quit changed */
	char *spare;          /* the rows being compressed */
	size_t spare_used;    /* their bytes; 0 when the compressor is idle */
	int quit;
	FILE *file;           /* the current part, NULL until its first flush */
	int failed;           /* errno of the first write error, 0 none */
	pthread_t compressor;
	uint8_t *level_buf;   /* ISA-L's working memory */
	char *out;            /* compressed buffer, CSV_GZ_OUT bytes */
};

/* Creates dir (and its parents) and removes the parts an earlier export
 * left there.  0, or -1 with e set. */
int csv_gz_open(struct csv_gz *w, const char *dir, const char *header, uint64_t part_rows,
		struct mt_error *e);
/* Flushes, closes and renames the last part; frees w's memory.  A table
 * with no rows still gets one part holding its header, so engines know its
 * columns.  0, or -1 with e set naming the part that failed. */
int csv_gz_close(struct csv_gz *w, struct mt_error *e);

/* Hands the buffer to the compressor; called by the helpers when it fills. */
void csv_gz_flush(struct csv_gz *w);
/* Ends the row; starts a new part past part_rows. */
void csv_gz_roll(struct csv_gz *w);

/* Room for n more bytes of the current row (n <= CSV_GZ_BUF / 2). */
static inline char *csv_gz_room(struct csv_gz *w, size_t n)
{
	if (w->used + n > CSV_GZ_BUF)
		csv_gz_flush(w);
	return w->buf + w->used;
}

/* "00" to "99", for writing two digits per division. */
extern const char csv_digit_pairs[200];

/* Decimal digits of v < 10^8 (1 for 0). */
static inline unsigned csv_digits8(uint32_t v)
{
	return v < 10000 ? 1 + (v >= 10) + (v >= 100) + (v >= 1000)
			 : 5 + (v >= 100000) + (v >= 1000000) + (v >= 10000000);
}

/* v < 10^8 in csv_digits8(v) digits at p; the end. */
static inline char *csv_u32_digits(char *p, uint32_t v)
{
	char *end = p + csv_digits8(v);
	char *q = end;
	while (v >= 100) {
		q -= 2;
		memcpy(q, csv_digit_pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10)
		memcpy(q - 2, csv_digit_pairs + 2 * v, 2);
	else
		q[-1] = (char)('0' + v);
	return end;
}

/* v < 10^8 as exactly 8 digits (leading zeros) at p: two independent
 * halves, so the divisions of one overlap the other's. */
static inline void csv_8_digits(char *p, uint32_t v)
{
	uint32_t hi = v / 10000, lo = v % 10000;
	memcpy(p, csv_digit_pairs + 2 * (hi / 100), 2);
	memcpy(p + 2, csv_digit_pairs + 2 * (hi % 100), 2);
	memcpy(p + 4, csv_digit_pairs + 2 * (lo / 100), 2);
	memcpy(p + 6, csv_digit_pairs + 2 * (lo % 100), 2);
}

/* v in decimal, then sep (',' or '\n'); p needs CSV_GZ_CELL_MAX bytes.
 * Pointers (15 digits) and times (10-11) are cut in blocks of 8 digits
 * formatted apart: the divisions are most of the cost of an export's
 * text, and one long chain of them would wait on each other. */
static inline __attribute__((always_inline)) char *csv_u64(char *p, uint64_t v, char sep)
{
	const uint64_t e8 = 100000000;
	if (v < e8) {
		p = csv_u32_digits(p, (uint32_t)v);
	} else if (v < e8 * e8) {
		p = csv_u32_digits(p, (uint32_t)(v / e8));
		csv_8_digits(p, (uint32_t)(v % e8));
		p += 8;
	} else {
		uint64_t high = v / e8;
		p = csv_u32_digits(p, (uint32_t)(high / e8));
		csv_8_digits(p, (uint32_t)(high % e8));
		csv_8_digits(p + 8, (uint32_t)(v % e8));
		p += 16;
	}
	*p = sep;
	return p + 1;
}

/* An empty cell (SQL NULL), then sep. */
static inline char *csv_null(char *p, char sep)
{
	*p++ = sep;
	return p;
}

/* Marks the bytes up to p as written. */
static inline void csv_gz_advance(struct csv_gz *w, char *p)
{
	w->used = (size_t)(p - w->buf);
}

/* s as one cell, quoted when it holds a comma, quote or line break (C++
 * names do), NULL as an empty cell; then sep. */
void csv_gz_string(struct csv_gz *w, const char *s, char sep);

/* Ends a row written through csv_gz_room / csv_gz_advance ('\n' written). */
static inline void csv_gz_end_row(struct csv_gz *w)
{
	w->total_rows++;
	if (++w->rows >= w->part_rows)
		csv_gz_roll(w);
}

#endif
