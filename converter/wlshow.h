/*
 * wlshow.h - trace2wl's views of an existing workload: --stats and --dump.
 */
#ifndef TRACE2WL_WLSHOW_H
#define TRACE2WL_WLSHOW_H

#include <stdio.h>

#include "workload.h"

/* The header's totals, calls by type and ops by thread of w, whose file
 * is bytes long; with json, the same as one JSON object. */
void wl_print_stats(FILE *out, const struct mt_wl *w, uint64_t bytes, int json);
/* One line per op, thread by thread; -1 with e set if a stream does not decode. */
int wl_print_dump(FILE *out, const struct mt_wl *w, struct mt_error *e);

#endif
