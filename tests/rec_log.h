/*
 * rec_log.h - the recorder test programs' own account of what they did.
 *
 * A program under the recorder logs every malloc-family call it makes, with
 * the pointers it got, so rec_expect can hold the trace against it.  The
 * log is written with snprintf into a stack buffer and write(2): no stdio
 * buffer, no allocation, so logging adds no calls of its own to the trace,
 * and each line is in the file before the next call (kill -9 safe).
 *
 * Line: TID CALL IN OUT NMEMB SIZE ALIGN RC USABLE CHUNK (pointers and
 * CHUNK in hex).  CHUNK is what glibc's chunk header said of the block
 * (the returned one; for free, the one freed, read before the free), as
 * the trace's MMAPPED (0x10) and NON_MAIN (0x20) flags: the recorder reads
 * the same header, and the check holds it to what the program saw.  Under
 * another allocator (REC_LOG_GLIBC=0 in the environment) there is no such
 * header, and the word below a block may not even be mapped: CHUNK is 0.
 */
#ifndef REC_LOG_H
#define REC_LOG_H

#include <fcntl.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int rec_log_fd = -1;
static int rec_log_chunks = 1;

static inline void rec_log_open(const char *path)
{
	const char *glibc = getenv("REC_LOG_GLIBC");
	rec_log_chunks = !glibc || glibc[0] != '0';
	rec_log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_TRUNC | O_CLOEXEC, 0644);
	if (rec_log_fd < 0) {
		perror(path);
		exit(2);
	}
}

/* glibc's chunk header word below a live block, as trace flags. */
static inline unsigned rec_chunk_flags(const void *p)
{
	if (!rec_log_chunks)
		return 0;
	size_t h = ((const size_t *)p)[-1];
	return (h & 2 ? 0x10u : 0) | (h & 4 ? 0x20u : 0);
}

static inline void rec_log_line(const char *call, uintptr_t in, void *out, size_t nmemb,
				size_t size, size_t align, int rc, unsigned chunk)
{
	char line[256];
	size_t usable = out ? malloc_usable_size(out) : 0;
	int n = snprintf(line, sizeof line, "%d %s 0x%lx 0x%lx %zu %zu %zu %d %zu 0x%x\n",
			 (int)gettid(), call, (unsigned long)in, (unsigned long)out, nmemb, size,
			 align, rc, usable, chunk);
	if (write(rec_log_fd, line, (size_t)n) != n)
		_exit(3);
}

/* `in` is an address, not a pointer: it may name a block already freed. */
static inline void rec_log(const char *call, uintptr_t in, void *out, size_t nmemb,
			   size_t size, size_t align, int rc)
{
	rec_log_line(call, in, out, nmemb, size, align, rc, out ? rec_chunk_flags(out) : 0);
}

/* free(p) logged: the address and header are taken before the block is gone. */
static inline void rec_free(void *p)
{
	uintptr_t addr = (uintptr_t)p;
	unsigned chunk = p ? rec_chunk_flags(p) : 0;
	free(p);
	rec_log_line("free", addr, NULL, 0, 0, 0, 0, chunk);
}

/* The first call of every logged run: an unusual size the checker can find
 * among whatever libc allocated before. */
#define REC_MARK_SIZE 0x7e57u

static inline void rec_log_mark(void)
{
	void *p = malloc(REC_MARK_SIZE);
	rec_log("malloc", 0, p, 0, REC_MARK_SIZE, 0, 0);
	rec_free(p);
}

#endif
