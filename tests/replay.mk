# tests/replay.mk - tests of the replay part, included by tests/local.mk.
#
# run_synth writes workloads with known answers through lib/'s writer;
# run_mt is a multi-threaded producer/consumer program to record; run_hist
# is a C test of the statistics; run_ops checks the op decoder's fast path
# against the general one; run_probe.so reports trace_run's mallopt,
# malloc_trim and GLIBC_TUNABLES as glibc saw them;
# run_count.so counts the allocator calls of the replay's threads;
# run_stall.so is an allocator that hangs on one size (for the watchdog) and
# hands out a short block on another (touch must stay inside the block).
check_PROGRAMS += tests/run_synth
tests_run_synth_SOURCES = tests/run_synth.c tests/run_stall.h
tests_run_synth_LDADD = lib/libmtformat.la
check_PROGRAMS += tests/run_mt
tests_run_mt_SOURCES = tests/run_mt.c
tests_run_mt_CFLAGS = $(AM_CFLAGS) -fno-builtin
check_PROGRAMS += tests/run_hist
tests_run_hist_SOURCES = tests/run_hist.c tests/check.h trace_run/hist.c trace_run/hist.h
tests_run_hist_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/trace_run
tests_run_hist_LDADD = -lm
TESTS += tests/run_hist
check_PROGRAMS += tests/run_ops
tests_run_ops_SOURCES = tests/run_ops.c tests/check.h
TESTS += tests/run_ops
check_LTLIBRARIES += tests/run_probe.la
tests_run_probe_la_SOURCES = tests/run_probe.c
tests_run_probe_la_LDFLAGS = $(LOADABLE_LDFLAGS)
check_LTLIBRARIES += tests/run_count.la
tests_run_count_la_SOURCES = tests/run_count.c
tests_run_count_la_LDFLAGS = $(LOADABLE_LDFLAGS)
check_LTLIBRARIES += tests/run_stall.la
tests_run_stall_la_SOURCES = tests/run_stall.c tests/run_stall.h
tests_run_stall_la_LDFLAGS = $(LOADABLE_LDFLAGS)

RUN_TESTS = \
	tests/t-run-basic.sh tests/t-run-every.sh tests/t-run-handoff.sh \
	tests/t-run-bad.sh tests/t-run-watchdog.sh tests/t-run-options.sh \
	tests/t-run-allocators.sh tests/t-run-real.sh tests/t-run-huge.sh tests/t-run-order.sh \
	tests/t-run-real-mt.sh tests/t-run-threads.sh \
	tests/t-run-effects.sh tests/t-run-timer.sh tests/t-run-repeat.sh tests/t-run-footprint.sh \
	tests/t-run-prefetch.sh tests/t-run-offcpu.sh tests/t-run-copies.sh tests/t-run-chain.sh
TESTS += $(RUN_TESTS)
EXTRA_DIST += $(RUN_TESTS) tests/run_lib.sh
