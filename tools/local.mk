# tools/local.mk - build rules for tools/, included by the top Makefile.am.

# mtrace-dump: readable and JSON views of a trace.
bin_PROGRAMS += tools/mtrace-dump
tools_mtrace_dump_SOURCES = tools/mtrace-dump.c tools/dump.h tools/dump_print.c tools/dump_stats.c
tools_mtrace_dump_LDADD = lib/libmtformat.la
dist_man1_MANS += docs/mtrace-dump.1

# mtrace-record: run a program with the recorder preloaded, then name its
# traces.  It needs the install libdir, known only at make time.
bin_PROGRAMS += tools/mtrace-record
tools_mtrace_record_SOURCES = tools/mtrace-record.c tools/record_files.c tools/record_files.h
tools_mtrace_record_CPPFLAGS = $(AM_CPPFLAGS) -DMT_LIBDIR='"$(libdir)"'
tools_mtrace_record_LDADD = lib/libmtformat.la
dist_man1_MANS += docs/mtrace-record.1
# mtrace-report: leaks, peak, temporaries and hot call sites of traces
# recorded with stacks, symbolised with elfutils (libdw); libstdc++ only
# for its demangler.
bin_PROGRAMS += tools/mtrace-report
tools_mtrace_report_SOURCES = tools/mtrace-report.c tools/report.h tools/report_analyse.c \
	tools/report_symbols.c tools/report_print.c tools/report_map.c tools/report_map.h \
	tools/report_diff.c tools/report_export.c tools/csv_gz.c tools/csv_gz.h
# --html: the page (report_html.c) and its time series (report_timeline.c).
tools_mtrace_report_SOURCES += tools/report_html.c tools/report_timeline.c \
	tools/report_timeline.h
tools_mtrace_report_LDADD = lib/libmtformat.la lib/libmthtml.la -ldw -lelf -lisal -lstdc++ -lm
dist_man1_MANS += docs/mtrace-report.1
