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

DIAG_TESTS = tests/t-diag-log-import.sh tests/t-diag-log-sample.sh tests/t-diag-scripts-uprobes.sh \
	tests/t-diag-scripts-log.sh tests/t-diag-scripts-stacks.sh tests/t-diag-scripts-leaks.sh \
	tests/t-diag-scripts-sizes.sh tests/t-diag-scripts-stap.sh tests/t-diag-scripts-wrapper.sh tests/t-diag-bt-perfmap.sh \
	tests/t-diag-scripts-maps.sh
TESTS += $(DIAG_TESTS)
EXTRA_DIST += $(DIAG_TESTS) tests/diag-bt.sh tests/diag-stap.sh tests/data/malloc-log.sample

# Derived glibc events (sdt/glibc_*.c) and the live report stap/malloc.stp,
# malloc.bt: diag_glibc does known things to glibc's allocator and prints
# what glibc itself says about them.
check_PROGRAMS += tests/diag_glibc
tests_diag_glibc_SOURCES = tests/diag_glibc.c
GLIBC_DIAG_TESTS = tests/t-diag-glibc-events.sh tests/t-diag-glibc-bt.sh \
	tests/t-diag-glibc-stp.sh tests/t-diag-glibc-others.sh
TESTS += $(GLIBC_DIAG_TESTS)
EXTRA_DIST += $(GLIBC_DIAG_TESTS) tests/diag-record.sh
