/*
 * dump.h - the parts of mtrace-dump, shared between its files: the record
 * printers (dump_print.c) and the statistics (dump_stats.c).
 */
#ifndef MT_DUMP_H
#define MT_DUMP_H

#include <stdint.h>
#include <stdio.h>

#include "trace.h"

struct dump_opts {
	int stats, json;
	int one_thread;   /* --thread given */
	uint32_t tid;
	uint64_t limit;   /* records to print; UINT64_MAX for all */
};

const char *dump_ts_source_name(unsigned source);

void dump_header(FILE *out, const struct mt_trace *t);
void dump_record_text(FILE *out, const struct mt_trace *t, const struct mt_rec *r, uint32_t tid,
		      uint64_t recno);
void dump_record_json(FILE *out, const struct mt_rec *r, uint32_t tid, uint64_t recno);

/* Prints the --stats summary (text or one JSON object); 0 or -1 with e set. */
int dump_stats(FILE *out, const struct mt_trace *t, const struct dump_opts *o,
	       struct mt_error *e);

#endif
