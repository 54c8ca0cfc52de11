/*
 * rec_stamps - how many of a trace's records carry their own time, for the
 * test that the recorder stamps every record by default and only some with
 * MTRACE_SPARSE_TIME=1 (format version 3, docs/FORMAT.md "Time").
 *
 * Usage: rec_stamps TRACE   prints "STAMPED RECORDS"
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "trace.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: rec_stamps TRACE\n");
		return 2;
	}
	struct mt_error e;
	struct mt_trace *t = mt_trace_open(argv[1], &e);
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
		}
	}
	mt_trace_close(t);
	if (rc < 0) {
		mt_error_print("rec_stamps", &e);
		return 1;
	}
	printf("%" PRIu64 " %" PRIu64 "\n", stamped, records);
	return 0;
}
