/*
 * rec_loop - allocate and free without end, logging each call, for the
 * kill -9 test: the trace of a killed program must read back up to the
 * kill and agree with what the program logged.
 *
 * Usage: rec_loop LOG   (runs until killed)
 */
#include "config.h"

#include <stdint.h>

#include "rec_log.h"

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	rec_log_open(argv[1]);
	rec_log_mark();
	void *live[64] = { 0 };
	for (uint64_t i = 0;; i++) {
		size_t k = (size_t)(i * 7919) % 64, size = 16 + (size_t)(i * 2654435761u) % 3000;
		if (live[k]) {
			rec_free(live[k]);
			live[k] = NULL;
		} else {
			live[k] = malloc(size);
			rec_log("malloc", 0, live[k], 0, size, 0, 0);
		}
	}
}
