/*
 * rec_stamps - how many of a trace's records carry their own time, for the
 * tests that the recorder stamps every record with MTRACE_PRECISE_TIME=1,
 * and by default one record in 16 while one thread records, then all but
 * a thread's allocations of the block it just freed (that no other thread
 * took meanwhile) (docs/FORMAT.md "Time"); with --list, which records
 * those are.
 *
 * Usage: rec_stamps TRACE          prints "STAMPED RECORDS STAMP_EVERY",
 *                                  the last the header's bound
 *        rec_stamps --list TRACE   prints "THREAD CALL BLOCK STAMPED SIZE"
 *                                  for each record, threads numbered from
 *                                  0 in the reader's order, BLOCK the
 *                                  pointer returned (or passed in, for a
 *                                  free), SIZE the size asked for
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "trace.h"

int main(int argc, char **argv)
{
	int list = argc == 3 && strcmp(argv[1], "--list") == 0;
	if (argc != 2 + list) {
		fprintf(stderr, "usage: rec_stamps [--list] TRACE\n");
		return 2;
	}
	struct mt_error e;
	struct mt_trace *t = mt_trace_open(argv[1 + list], &e);
	if (!t) {
		mt_error_print("rec_stamps", &e);
		return 1;
	}
	uint64_t stamped = 0, records = 0, recno;
	int rc = 0;
	for (size_t i = 0; i < mt_trace_threads(t) && rc >= 0; i++) {
		struct mt_trace_cursor c;
		struct mt_rec r;
		mt_trace_cursor_init(&c, t, i);
		while ((rc = mt_trace_cursor_next(&c, &r, &recno, &e)) > 0) {
			records++;
			stamped += r.stamped;
			if (list)
				printf("%zu %u %#" PRIx64 " %u %" PRIu64 "\n", i, r.call,
				       r.ptr_out ? r.ptr_out : r.ptr_in, r.stamped, r.size);
		}
	}
	uint32_t stamp_every = mt_trace_get_info(t)->stamp_every;
	mt_trace_close(t);
	if (rc < 0) {
		mt_error_print("rec_stamps", &e);
		return 1;
	}
	if (!list)
		printf("%" PRIu64 " %" PRIu64 " %" PRIu32 "\n", stamped, records, stamp_every);
	return 0;
}
