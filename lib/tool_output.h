/*
 * tool_output.h - the one check every tool makes before it exits: that
 * what it printed reached standard output.  A report lost to a full disk
 * or a closed pipe must not look like success to the script that ran it.
 */
#ifndef MT_TOOL_OUTPUT_H
#define MT_TOOL_OUTPUT_H

/* Flushes standard output.  Returns status, or 1 if anything written to it
 * was lost, after printing "PROG: writing standard output: REASON" on
 * stderr the first time, so a tool that checks after each file and again
 * at the end still says it once. */
int mt_stdout_checked(const char *prog, int status);

#endif
