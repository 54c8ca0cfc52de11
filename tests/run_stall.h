/*
 * run_stall.h - the request sizes at which tests/run_stall.so misbehaves:
 * never returns, or returns a block shorter than asked for.  Shared by the
 * library and run_synth, which writes workloads asking them.
 */
#ifndef RUN_STALL_H
#define RUN_STALL_H

#define RUN_STALL_SIZE 7777777
#define RUN_SHORT_SIZE (3u << 20)
#define RUN_SHORT_GIVEN 64

#endif
