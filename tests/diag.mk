# tests/diag.mk - tests of the diag part, included by tests/local.mk.

# Log import (lib/log_import.c): diag_logimport drives it directly.
check_PROGRAMS += tests/diag_logimport
tests_diag_logimport_SOURCES = tests/diag_logimport.c
tests_diag_logimport_LDADD = lib/libmtformat.la
