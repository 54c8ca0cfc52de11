/*
 * csv_gz.c - the gzip CSV part writer of mtrace-report --export (see
 * csv_gz.h): directories, part files, their atomic renames and the write
 * errors, kept apart from what the tables hold.
 */
#include "config.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <isa-l/igzip_lib.h>

#include "csv_gz.h"

const char csv_digit_pairs[200] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* mkdir -p; 0, or -1 with errno set. */
static int make_dirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		int rc = mkdir(path, 0777);
		*p = '/';
		if (rc && errno != EEXIST)
			return -1;
	}
	return mkdir(path, 0777) && errno != EEXIST ? -1 : 0;
}

static int is_part_name(const char *name)
{
	size_t n = strlen(name);
	return strncmp(name, "part-", 5) == 0 &&
	       ((n > 7 && strcmp(name + n - 7, ".csv.gz") == 0) ||
		(n > 11 && strcmp(name + n - 11, ".csv.gz.tmp") == 0));
}

/* A new export of a partition replaces the old one, never mixes with it. */
static int remove_old_parts(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	struct dirent *de;
	int rc = 0;
	while ((de = readdir(d)))
		if (is_part_name(de->d_name) && unlinkat(dirfd(d), de->d_name, 0))
			rc = -1;
	closedir(d);
	return rc;
}

static void part_path(char *out, size_t n, const struct csv_gz *w, int tmp)
{
	snprintf(out, n, "%s/part-%04u.csv.gz%s", w->dir, w->part, tmp ? ".tmp" : "");
}

/* The header of a part, first in the buffer. */
static void start_part(struct csv_gz *w)
{
	assert(w->used == 0 && !w->file);
	size_t n = strlen(w->header);
	memcpy(w->buf, w->header, n);
	w->buf[n] = '\n';
	w->used = n + 1;
	w->rows = 0;
}

/* The rows in spare as one gzip member in out; its length, 0 if ISA-L
 * failed (it cannot: out fits the stored blocks it falls back to). */
static size_t compress(struct csv_gz *w)
{
	struct isal_zstream z;
	isal_deflate_stateless_init(&z);
	z.gzip_flag = IGZIP_GZIP;
	z.level = 1; /* ISA-L's fastest with Huffman tables of each member's own */
	z.level_buf = w->level_buf;
	z.level_buf_size = ISAL_DEF_LVL1_DEFAULT;
	/* Matches only within the last 512 bytes (the 6-8 rows before): a
	 * row's cells repeat the rows just before it, and nearer matches
	 * have shorter distance codes: 10-18% fewer bytes and 8-13% less
	 * time than the 32 KiB default (docs/BENCHMARKS.md). */
	z.hist_bits = 9;
	z.end_of_stream = 1;
	z.flush = NO_FLUSH;
	z.next_in = (uint8_t *)w->spare;
	z.avail_in = (uint32_t)w->spare_used;
	z.next_out = (uint8_t *)w->out;
	z.avail_out = CSV_GZ_OUT;
	int rc = isal_deflate_stateless(&z);
	assert(rc == COMP_OK && z.avail_in == 0);
	return rc == COMP_OK && z.avail_in == 0 ? z.total_out : 0;
}

/* The compressor thread: each buffer handed over, compressed and written
 * to the part file, until told to quit. */
static void *compressor_main(void *arg)
{
	struct csv_gz *w = arg;
	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->spare_used && !w->quit)
			pthread_cond_wait(&w->change, &w->lock);
		if (!w->spare_used)
			break;
		pthread_mutex_unlock(&w->lock);
		size_t n = compress(w);
		if (!n)
			w->failed = EIO;
		else if (fwrite(w->out, 1, n, w->file) != n)
			w->failed = errno ? errno : EIO;
		pthread_mutex_lock(&w->lock);
		w->spare_used = 0;
		pthread_cond_broadcast(&w->change);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* Until the compressor has written the buffer handed to it. */
static void wait_idle(struct csv_gz *w)
{
	pthread_mutex_lock(&w->lock);
	while (w->spare_used)
		pthread_cond_wait(&w->change, &w->lock);
	pthread_mutex_unlock(&w->lock);
}

static void free_memory(struct csv_gz *w)
{
	free(w->dir);
	free(w->buf);
	free(w->spare);
	free(w->out);
	free(w->level_buf);
	w->dir = w->buf = w->spare = w->out = NULL;
	w->level_buf = NULL;
}

int csv_gz_open(struct csv_gz *w, const char *dir, const char *header, uint64_t part_rows,
		struct mt_error *e)
{
	assert(part_rows > 0 && strlen(header) < CSV_GZ_BUF / 2);
	*w = (struct csv_gz){ .header = header, .part_rows = part_rows };
	w->dir = strdup(dir);
	w->buf = malloc(CSV_GZ_BUF);
	w->spare = malloc(CSV_GZ_BUF);
	w->out = malloc(CSV_GZ_OUT);
	w->level_buf = malloc(ISAL_DEF_LVL1_DEFAULT);
	if (!w->dir || !w->buf || !w->spare || !w->out || !w->level_buf) {
		free_memory(w);
		return mt_error_set(e, dir, "out of memory");
	}
	if (make_dirs(w->dir) || remove_old_parts(w->dir)) {
		int err = errno;
		free_memory(w);
		return mt_error_set(e, dir, "cannot create the partition: %s", strerror(err));
	}
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->change, NULL);
	int err = pthread_create(&w->compressor, NULL, compressor_main, w);
	if (err) {
		pthread_cond_destroy(&w->change);
		pthread_mutex_destroy(&w->lock);
		free_memory(w);
		return mt_error_set(e, dir, "cannot start a compression thread: %s", strerror(err));
	}
	start_part(w);
	return 0;
}

void csv_gz_flush(struct csv_gz *w)
{
	wait_idle(w);
	if (!w->file && !w->failed) {
		char path[4096];
		part_path(path, sizeof path, w, 1);
		if (!(w->file = fopen(path, "w")))
			w->failed = errno;
	}
	if (w->file && !w->failed && w->used) {
		pthread_mutex_lock(&w->lock);
		char *full = w->buf;
		w->buf = w->spare;
		w->spare = full;
		w->spare_used = w->used;
		pthread_cond_broadcast(&w->change);
		pthread_mutex_unlock(&w->lock);
	}
	w->used = 0;
}

/* Closes the current part and renames it to its final name. */
static void finish_part(struct csv_gz *w)
{
	csv_gz_flush(w);
	wait_idle(w);
	if (!w->file)
		return;
	int rc = fclose(w->file);
	w->file = NULL;
	if (rc && !w->failed)
		w->failed = errno ? errno : EIO;
	char tmp[4096], final[4096];
	part_path(tmp, sizeof tmp, w, 1);
	part_path(final, sizeof final, w, 0);
	if (!w->failed && rename(tmp, final))
		w->failed = errno;
}

void csv_gz_roll(struct csv_gz *w)
{
	finish_part(w);
	w->part++;
	start_part(w);
}

void csv_gz_string(struct csv_gz *w, const char *s, char sep)
{
	if (!s) {
		csv_gz_advance(w, csv_null(csv_gz_room(w, 1), sep));
		return;
	}
	size_t n = strlen(s);
	int quote = strpbrk(s, ",\"\r\n") != NULL;
	if (!quote && n < CSV_GZ_BUF / 2) {
		char *p = csv_gz_room(w, n + 1);
		memcpy(p, s, n);
		p[n] = sep;
		csv_gz_advance(w, p + n + 1);
		return;
	}
	/* Rare: quoted, or too long for one piece of the buffer. */
	char *p = csv_gz_room(w, 1);
	if (quote)
		*p++ = '"';
	for (; *s; s++) {
		csv_gz_advance(w, p);
		p = csv_gz_room(w, 2);
		if (*s == '"')
			*p++ = '"';
		*p++ = *s;
	}
	csv_gz_advance(w, p);
	p = csv_gz_room(w, 2);
	if (quote)
		*p++ = '"';
	*p++ = sep;
	csv_gz_advance(w, p);
}

int csv_gz_close(struct csv_gz *w, struct mt_error *e)
{
	/* A part rolled over exactly at the end holds only its header: drop it. */
	if (w->rows || w->part == 0)
		finish_part(w);
	w->used = 0;
	pthread_mutex_lock(&w->lock);
	w->quit = 1;
	pthread_cond_broadcast(&w->change);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->compressor, NULL);
	pthread_cond_destroy(&w->change);
	pthread_mutex_destroy(&w->lock);
	int rc = 0;
	if (w->failed) {
		char path[4096];
		part_path(path, sizeof path, w, 0);
		rc = mt_error_set(e, path, "cannot write: %s", strerror(w->failed));
	}
	free_memory(w);
	return rc;
}
