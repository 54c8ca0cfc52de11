/*
 * input.h - trace2wl's input: a trace, or a text log imported as one.
 */
#ifndef TRACE2WL_INPUT_H
#define TRACE2WL_INPUT_H

#include "trace.h"

/* Opens path ("-" for standard input).  NULL with e set on failure. */
struct mt_trace *input_open(const char *path, struct mt_error *e);

#endif
