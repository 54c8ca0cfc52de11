# tests/converter.mk - tests of the converter part, included by tests/local.mk.

# Workload writer/reader round trip and the reader's refusals.
check_PROGRAMS += tests/conv_wlrt
tests_conv_wlrt_SOURCES = tests/conv_wlrt.c
tests_conv_wlrt_LDADD = lib/libmtformat.la
TESTS += tests/t-conv-workload.sh
EXTRA_DIST += tests/t-conv-workload.sh

# Traces from readable scripts, for the converter tests' known answers.
check_PROGRAMS += tests/conv_mktrace
tests_conv_mktrace_SOURCES = tests/conv_mktrace.c
tests_conv_mktrace_LDADD = lib/libmtformat.la

# trace2wl on scripted traces with known workloads.
CONV_TESTS = tests/t-conv-causality.sh tests/t-conv-calls.sh tests/t-conv-frees.sh tests/t-conv-bad.sh \
	tests/t-conv-many-threads.sh
TESTS += $(CONV_TESTS)
EXTRA_DIST += $(CONV_TESTS)

# Real programs recorded by libmtracectl.so (skips while it is not built).
check_PROGRAMS += tests/conv_threads tests/conv_handoff
tests_conv_threads_SOURCES = tests/conv_threads.c
tests_conv_handoff_SOURCES = tests/conv_handoff.c
TESTS += tests/t-conv-real.sh
EXTRA_DIST += tests/t-conv-real.sh

# Memory bounded by the live set on a trace that never reuses an address.
check_PROGRAMS += tests/conv_fresh
tests_conv_fresh_SOURCES = tests/conv_fresh.c tests/gen_writer.h
tests_conv_fresh_LDADD = lib/libmtformat.la
TESTS += tests/t-conv-memory.sh
EXTRA_DIST += tests/t-conv-memory.sh
TESTS += tests/t-conv-adopt.sh
EXTRA_DIST += tests/t-conv-adopt.sh
