# tests/recorder.mk - tests of the recorder part, included by tests/local.mk.
#
# Test programs run under the recorder and log what they did (rec_log.h);
# rec_expect holds a trace against such a log, rec_consistent checks a
# trace of a program nobody here wrote.
REC_CHECKERS = tests/rec_expect tests/rec_consistent tests/rec_count tests/rec_stamps
check_PROGRAMS += $(REC_CHECKERS) tests/rec_known tests/rec_loop tests/rec_fork \
	tests/rec_stress tests/rec_api tests/rec_cxx tests/rec_storm tests/rec_kill_mt \
	tests/rec_handback tests/rec_sparse
tests_rec_expect_SOURCES = tests/rec_expect.c
tests_rec_expect_LDADD = lib/libmtformat.la
tests_rec_consistent_SOURCES = tests/rec_consistent.c
tests_rec_consistent_LDADD = lib/libmtformat.la
tests_rec_count_SOURCES = tests/rec_count.c tests/rec_storm.h
tests_rec_count_LDADD = lib/libmtformat.la
tests_rec_stamps_SOURCES = tests/rec_stamps.c
tests_rec_stamps_LDADD = lib/libmtformat.la
# The calls must reach the library as written: gcc would turn
# realloc(NULL, n) into malloc(n) and drop free(malloc(n)) altogether.
REC_CFLAGS = $(AM_CFLAGS) -fno-builtin
tests_rec_known_SOURCES = tests/rec_known.c tests/rec_log.h
tests_rec_known_CFLAGS = $(REC_CFLAGS)
tests_rec_loop_SOURCES = tests/rec_loop.c tests/rec_log.h
tests_rec_loop_CFLAGS = $(REC_CFLAGS)
tests_rec_fork_SOURCES = tests/rec_fork.c tests/rec_log.h
tests_rec_fork_CFLAGS = $(REC_CFLAGS)
tests_rec_stress_SOURCES = tests/rec_stress.c
tests_rec_stress_CFLAGS = $(REC_CFLAGS)
tests_rec_stress_LDADD = $(LIBS)
# Many threads making every kind of call while the process forks, execs and
# takes a signal storm (issue #10): nothing may be lost.
tests_rec_storm_SOURCES = tests/rec_storm.c tests/rec_storm.h
tests_rec_storm_CFLAGS = $(REC_CFLAGS)
tests_rec_storm_LDADD = $(LIBS)
# Killed with SIGKILL mid-run on 4 threads, and the check of its trace.
tests_rec_kill_mt_SOURCES = tests/rec_kill_mt.c
tests_rec_kill_mt_CFLAGS = $(REC_CFLAGS)
tests_rec_kill_mt_LDADD = lib/libmtformat.la $(LIBS)
# Two threads handing one block back and forth (t-rec-stamps).
tests_rec_handback_SOURCES = tests/rec_handback.c
tests_rec_handback_CFLAGS = $(REC_CFLAGS)
tests_rec_handback_LDADD = $(LIBS)
# One thread, then two, then a forked child (t-rec-sparse).
tests_rec_sparse_SOURCES = tests/rec_sparse.c
tests_rec_sparse_CFLAGS = $(REC_CFLAGS)
tests_rec_sparse_LDADD = $(LIBS)
tests_rec_api_SOURCES = tests/rec_api.c
tests_rec_api_CFLAGS = $(REC_CFLAGS)
tests_rec_api_LDADD = sdt/libmtrace.la
check_LTLIBRARIES += tests/rec_early.la
tests_rec_early_la_SOURCES = tests/rec_early.c
tests_rec_early_la_CFLAGS = $(REC_CFLAGS)
tests_rec_early_la_LDFLAGS = $(LOADABLE_LDFLAGS)
check_LTLIBRARIES += tests/rec_failsys.la
tests_rec_failsys_la_SOURCES = tests/rec_failsys.c
tests_rec_failsys_la_LDFLAGS = $(LOADABLE_LDFLAGS)
tests_rec_cxx_SOURCES = tests/rec_cxx.cc
tests_rec_cxx_CXXFLAGS = -std=c++17 -pthread

REC_TESTS = tests/t-rec-known.sh tests/t-rec-probes.sh tests/t-rec-programs.sh \
	tests/t-rec-kill.sh tests/t-rec-fork-exec.sh tests/t-rec-stress.sh tests/t-rec-api.sh \
	tests/t-rec-env.sh tests/t-rec-bpftrace.sh tests/t-rec-allocators.sh \
	tests/t-rec-storm.sh tests/t-rec-turn.sh tests/t-rec-unmaps.sh tests/t-rec-limits.sh tests/t-rec-disk-full.sh tests/t-rec-cut.sh \
	tests/t-rec-record.sh tests/t-rec-kill-mt.sh tests/t-rec-stamps.sh tests/t-rec-sparse.sh
TESTS += $(REC_TESTS)
EXTRA_DIST += $(REC_TESTS)
