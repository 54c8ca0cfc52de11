/*
 * run_stall.h - the request sizes at which tests/run_stall.so misbehaves:
 * never returns, returns a block shorter than asked for, or sleeps before
 * it returns.  Shared by the
 * library and run_synth, which writes workloads asking them.
 */
#ifndef RUN_STALL_H
#define RUN_STALL_H

#define RUN_STALL_SIZE 7777777
#define RUN_SHORT_SIZE (3u << 20)
#define RUN_SHORT_GIVEN 64
#define RUN_SLEEP_SIZE 5555555
#define RUN_SLEEP_USEC 2000

#endif
