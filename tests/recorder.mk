# tests/recorder.mk - tests of the recorder part, included by tests/local.mk.
#
# Test programs run under the recorder and log what they did (rec_log.h);
# rec_expect holds a trace against such a log, rec_consistent checks a
# trace of a program nobody here wrote.
REC_CHECKERS = tests/rec_expect tests/rec_consistent
check_PROGRAMS += $(REC_CHECKERS) tests/rec_known
tests_rec_expect_SOURCES = tests/rec_expect.c
tests_rec_expect_LDADD = lib/libmtformat.la
tests_rec_consistent_SOURCES = tests/rec_consistent.c
tests_rec_consistent_LDADD = lib/libmtformat.la
tests_rec_known_SOURCES = tests/rec_known.c tests/rec_log.h
# The calls must reach the library as written (gcc turns realloc(NULL, n) into malloc).
tests_rec_known_CFLAGS = $(AM_CFLAGS) -fno-builtin

REC_TESTS = tests/t-rec-known.sh
TESTS += $(REC_TESTS)
EXTRA_DIST += $(REC_TESTS)
