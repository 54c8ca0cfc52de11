/*
 * wl_internal.h - the opened workload, shared by the files that open it
 * (wl_reader.c) and run its full check (wl_check.c).
 */
#ifndef MT_WL_INTERNAL_H
#define MT_WL_INTERNAL_H

#include "trace.h"
#include "workload.h"

struct mt_wl {
	char *path;
	const uint8_t *map;
	size_t len;
	struct mt_wl_info info;
	struct mt_wl_thread *threads;
};

/* Decodes every stream in a first pass, then again as it plays the threads
 * in an order the sync points allow, proving each handoff ordered in all of
 * them; -1 with e set at the first op a replay could not perform, or could
 * perform before what it depends on. */
int mt_wl_check(const struct mt_wl *w, struct mt_error *e);

#endif
