# bench/local.mk - build rules for bench/, included by the top Makefile.am.

# bench/recorder.sh: the recorder overhead benchmark.  Its program and the
# floor recorder are built by `make` (noinst) so the script runs from any
# build tree; the floor is a shared object for LD_PRELOAD (LOADABLE_LDFLAGS).
noinst_PROGRAMS += bench/alloc_heavy
bench_alloc_heavy_SOURCES = bench/alloc_heavy.c
noinst_LTLIBRARIES += bench/libfloor.la
bench_libfloor_la_SOURCES = bench/floor_recorder.c
bench_libfloor_la_LDFLAGS = $(LOADABLE_LDFLAGS)
dist_noinst_SCRIPTS += bench/recorder.sh
EXTRA_DIST += bench/common.sh
EXTRA_DIST += bench/rec_run.sh bench/rec_report.sh

# The recorder's mapped windows against a copy into the file, a MiB at a
# time: what the mapped path's durability costs on this machine.
noinst_PROGRAMS += bench/window_paths
bench_window_paths_SOURCES = bench/window_paths.c
bench_window_paths_LDADD = lib/libmtformat.la

# bench/trace2wl.sh: conversion speed and memory on generated traces.
noinst_PROGRAMS += bench/gen_trace
bench_gen_trace_SOURCES = bench/gen_trace.c
bench_gen_trace_LDADD = lib/libmtformat.la
dist_noinst_SCRIPTS += bench/trace2wl.sh
# bench/trace2wl_corpus.sh: the same on the real-program corpus, and
# against another build's trace2wl.
dist_noinst_SCRIPTS += bench/trace2wl_corpus.sh

# bench/trace_run.sh: replay overhead against bench/run_loop, the same calls
# in a plain loop; timer.c is trace_run's own, so both time alike.
noinst_PROGRAMS += bench/run_loop
bench_run_loop_SOURCES = bench/run_loop.c trace_run/timer.c trace_run/timer.h trace_run/sort_u64.h
bench_run_loop_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/trace_run
bench_run_loop_LDADD = lib/libmtformat.la
dist_noinst_SCRIPTS += bench/trace_run.sh

# bench/report.sh: mtrace-report's speed and memory beside heaptrack_print.
dist_noinst_SCRIPTS += bench/report.sh

# bench/real.sh: record, convert and replay the real-program corpus
# (bench/real_programs.sh), the programs every target is judged on.
dist_noinst_SCRIPTS += bench/real.sh
EXTRA_DIST += bench/real_programs.sh
# Its clock: CPU time to the microsecond (/usr/bin/time prints hundredths).
noinst_PROGRAMS += bench/cpu_time
bench_cpu_time_SOURCES = bench/cpu_time.c

# bench/order.sh: a producer/consumer program (tests/run_mt) replayed in
# the recorded order and unpaced.
dist_noinst_SCRIPTS += bench/order.sh

# bench/fidelity.sh: a program run for real and replayed under each
# allocator, and whether the two rankings agree.
dist_noinst_SCRIPTS += bench/fidelity.sh

# bench/export.sh: mtrace-report --export on the real-program corpus (issue #16 point 1).
dist_noinst_SCRIPTS += bench/export.sh

# bench/machine_probe: the machine's own speed (core clock, instructions a
# cycle, RDTSC, random reads), the first line of every bench report.
noinst_PROGRAMS += bench/machine_probe
bench_machine_probe_SOURCES = bench/machine_probe.c
