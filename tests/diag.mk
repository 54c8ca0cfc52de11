# tests/diag.mk - tests of the diag part, included by tests/local.mk.

# Log import (lib/log_import.c): diag_logimport drives it directly.
check_PROGRAMS += tests/diag_logimport
tests_diag_logimport_SOURCES = tests/diag_logimport.c
tests_diag_logimport_LDADD = lib/libmtformat.la

# diag_calls: the program with known calls the script tests watch.  No
# builtins (the compiler must not merge or drop calls) and frame pointers
# (bpftrace and stap walk user stacks by them).
check_PROGRAMS += tests/diag_calls
tests_diag_calls_SOURCES = tests/diag_calls.c
tests_diag_calls_CFLAGS = $(AM_CFLAGS) -fno-builtin -fno-omit-frame-pointer -fno-optimize-sibling-calls

DIAG_TESTS = tests/t-diag-log-import.sh tests/t-diag-scripts-uprobes.sh
TESTS += $(DIAG_TESTS)
EXTRA_DIST += $(DIAG_TESTS) tests/diag-bt.sh
