# tests/report.mk - tests of call stacks in the trace and of mtrace-report
# (issue #13), included by tests/local.mk.  The programs they record are
# built by the tests themselves, the way distributions build (-O1 -g, no
# frame pointers), so they are sources here, not check_PROGRAMS.
REPORT_TESTS = tests/t-report-stacks.sh tests/t-report-dlopen.sh tests/t-report-bad.sh \
	tests/t-report-threads.sh tests/t-report-diff.sh tests/t-report-export.sh \
	tests/t-report-unwind.sh
TESTS += $(REPORT_TESTS)
# csv_number: --export's hand-written number cells against printf.
check_PROGRAMS += tests/csv_number
TESTS += tests/csv_number
tests_csv_number_SOURCES = tests/csv_number.c tests/check.h tools/csv_gz.c tools/csv_gz.h
tests_csv_number_LDADD = lib/libmtformat.la -lisal
EXTRA_DIST += $(REPORT_TESTS) tests/report-lib.sh tests/report_prog.c tests/report_lib.c \
	tests/report_cxx.cc tests/report_dl.c tests/report_plugin.c tests/report_grow.c \
	tests/export-query.js tests/report_unwind.c
# t-report-export.sh installs DuckDB (npm) here once for all its runs.
clean-local: clean-local-duckdb
clean-local-duckdb:
	-rm -rf tests/duckdb
.PHONY: clean-local-duckdb
