# bench/local.mk - build rules for bench/, included by the top Makefile.am.

# bench/recorder.sh: the recorder overhead benchmark.  Its program and the
# floor recorder are built by `make` (noinst) so the script runs from any
# build tree; the floor is a shared object for LD_PRELOAD, hence -rpath.
noinst_PROGRAMS += bench/alloc_heavy
bench_alloc_heavy_SOURCES = bench/alloc_heavy.c
noinst_LTLIBRARIES += bench/libfloor.la
bench_libfloor_la_SOURCES = bench/floor_recorder.c
bench_libfloor_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere
dist_noinst_SCRIPTS += bench/recorder.sh
EXTRA_DIST += bench/rec_run.sh bench/rec_report.sh
