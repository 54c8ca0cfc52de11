# lib/local.mk - the format library: the one place that reads and writes
# traces and workloads.  libmtcore holds the allocation-free parts the
# recorder links; libmtformat adds the readers and writers the tools use.
noinst_LTLIBRARIES += lib/libmtcore.la lib/libmtformat.la

lib_libmtcore_la_SOURCES = \
	lib/varint.h lib/trace_format.h lib/trace_codec.h lib/wl_format.h
lib_libmtcore_la_SOURCES += lib/trace_header.c
# The header decoder beside the encoder reports through mt_error: without it
# here the recorder libraries would have an undefined mt_error_set.
lib_libmtcore_la_SOURCES += lib/mt_error.c lib/mt_error.h

lib_libmtformat_la_SOURCES = lib/trace.h lib/workload.h
lib_libmtformat_la_LIBADD = lib/libmtcore.la

# Traces: the reader (window index, per-thread cursors, timestamp merge),
# the writer tests and log importers use, and the names tools print.
lib_libmtformat_la_SOURCES += \
	lib/trace_internal.h lib/trace_reader.c lib/trace_cursor.c lib/trace_merge.c \
	lib/trace_writer.c lib/names.c lib/mapped.c lib/mapped.h
# The stack table and module map of traces recorded with stacks.
lib_libmtformat_la_SOURCES += lib/stack_table.c

# Text logs (malloc-log, glibc MALLOC_TRACE) rewritten as traces for trace2wl.
lib_libmtformat_la_SOURCES += \
	lib/log_import.h lib/log_internal.h lib/log_import.c lib/log_mlog.c lib/log_mtrace.c

# The check every tool makes that its standard output was written.
lib_libmtformat_la_SOURCES += lib/tool_output.h lib/tool_output.c

# Workloads: the writer trace2wl uses, the reader and full check trace_run uses,
# and the vector clocks with which trace2wl places sync points and the check
# proves them.
lib_libmtformat_la_SOURCES += \
	lib/wl_internal.h lib/wl_writer.c lib/wl_reader.c lib/wl_check.c \
	lib/vclock.h lib/vclock.c

# The HTML pages of mtrace-report --html and trace_run --html: the page
# frame, escaping, units and SVG axes they share, and the min/max column
# reduction that keeps every chart's size independent of the input's.
noinst_LTLIBRARIES += lib/libmthtml.la
lib_libmthtml_la_SOURCES = lib/html.h lib/html.c lib/columns.h lib/columns.c
