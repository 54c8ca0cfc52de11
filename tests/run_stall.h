/*
 * run_stall.h - the request size at which tests/run_stall.so never returns.
 * Shared by the library and run_synth, which writes a workload asking it.
 */
#ifndef RUN_STALL_H
#define RUN_STALL_H

#define RUN_STALL_SIZE 7777777

#endif
