# tests/local.mk - make check.  Each part of the kit registers its tests in
# its own tests/<part>.mk; this file sets the environment they all run in.
#
# Tests are shell scripts (tests/t-*.sh, sourcing tests/lib.sh) and C
# programs.  A test that cannot run here exits 77 (skip) after printing why;
# scripts/test.sh repeats those reasons in its summary.  MT_TEST_PATH, if
# set, is searched before the build's programs (scripts/test.sh puts its
# TSan trace_run there).
AM_TESTS_ENVIRONMENT = \
	top_srcdir='$(abs_top_srcdir)'; top_builddir='$(abs_top_builddir)'; \
	MTRACE_LIB='$(abs_top_builddir)/sdt/.libs/libmtrace.so'; \
	MTRACECTL_LIB='$(abs_top_builddir)/sdt/.libs/libmtracectl.so'; \
	PATH="$${MT_TEST_PATH:+$$MT_TEST_PATH:}"'$(abs_top_builddir)/tools:$(abs_top_builddir)/converter:$(abs_top_builddir)/trace_run:'"$$PATH"; \
	BPFTRACE='$(BPFTRACE)'; STAP='$(STAP)'; READELF='$(READELF)'; PYTHON3='$(PYTHON3)'; \
	export top_srcdir top_builddir MTRACE_LIB MTRACECTL_LIB PATH BPFTRACE STAP READELF PYTHON3;
TEST_EXTENSIONS = .sh
SH_LOG_COMPILER = $(SHELL)
EXTRA_DIST += tests/lib.sh

include tests/format.mk
include tests/recorder.mk
include tests/converter.mk
include tests/replay.mk
include tests/diag.mk
include tests/report.mk
include tests/html.mk
include tests/bench.mk

# scripts/test.sh runs parts of the suite in its sanitizer builds: it asks
# here which tests there are.
list-tests:
	@echo $(TESTS)
.PHONY: list-tests
