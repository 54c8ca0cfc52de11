/*
 * fuzz_file.h - hands a fuzzer's bytes to the format library as a file.
 *
 * The readers take a path (they map it, as the tools do), so each input is
 * written to an in-memory file and passed as /proc/self/fd/N: no disk
 * traffic per execution, and the readers run exactly the code the tools run.
 */
#ifndef MT_FUZZ_FILE_H
#define MT_FUZZ_FILE_H

#include <stddef.h>
#include <stdint.h>

struct fuzz_file {
	int fd;
	char path[32];
};

/* Creates an empty in-memory file (aborts if it cannot: the harness is broken). */
void fuzz_file_init(struct fuzz_file *f, const char *name);
/* Replaces its contents with data[0..len). */
void fuzz_file_fill(struct fuzz_file *f, const uint8_t *data, size_t len);

#endif
