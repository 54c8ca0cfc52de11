/*
 * tool_output.h - what every command-line tool does alike with its user:
 * the check before it exits that what it printed reached standard output
 * (a report lost to a full disk or a closed pipe must not look like
 * success to the script that ran it), its word on a bad option, and
 * opening a trace with its error or warnings said once.
 */
#ifndef MT_TOOL_OUTPUT_H
#define MT_TOOL_OUTPUT_H

/* Flushes standard output.  Returns status, or 1 if anything written to it
 * was lost, after printing "PROG: writing standard output: REASON" on
 * stderr the first time, so a tool that checks after each file and again
 * at the end still says it once. */
int mt_stdout_checked(const char *prog, int status);

/* getopt_long returned c, ':' (the option lacks its argument) or anything
 * else (an unknown option), for option: one line on stderr; returns -1. */
int mt_bad_option(const char *prog, int c, const char *option);

struct mt_trace;

/* The trace at path, opened; its error or each of its warnings is printed
 * as "PROG: ..." on stderr.  NULL when it cannot be read. */
struct mt_trace *mt_tool_open_trace(const char *prog, const char *path);

#endif
