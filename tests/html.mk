# tests/html.mk - tests of the HTML pages of mtrace-report --html and
# trace_run --html (issue #14), included by tests/local.mk: the column
# reduction and escaping in C, both pages rendered by headless Chromium.
check_PROGRAMS += tests/html_columns
TESTS += tests/html_columns tests/t-html.sh
tests_html_columns_SOURCES = tests/html_columns.c tests/check.h
tests_html_columns_LDADD = lib/libmthtml.la -lm
EXTRA_DIST += tests/t-html.sh tests/png_check.py
