# tools/local.mk - build rules for tools/, included by the top Makefile.am.

# mtrace-dump: readable and JSON views of a trace.
bin_PROGRAMS += tools/mtrace-dump
tools_mtrace_dump_SOURCES = tools/mtrace-dump.c tools/dump.h tools/dump_print.c tools/dump_stats.c
tools_mtrace_dump_LDADD = lib/libmtformat.la
dist_man1_MANS += docs/mtrace-dump.1

# mtrace-record: run a program with the recorder preloaded.  The script
# needs the install libdir, known only at make time.
bin_SCRIPTS += tools/mtrace-record
CLEANFILES += tools/mtrace-record
EXTRA_DIST += tools/mtrace-record.in
dist_man1_MANS += docs/mtrace-record.1
tools/mtrace-record: $(srcdir)/tools/mtrace-record.in Makefile
	$(AM_V_GEN)$(MKDIR_P) tools && \
	sed -e 's|@libdir[@]|$(libdir)|g' -e 's|@PACKAGE_VERSION[@]|$(PACKAGE_VERSION)|g' \
		$(srcdir)/tools/mtrace-record.in >$@.tmp && chmod +x $@.tmp && mv $@.tmp $@

# mtrace-report: leaks, peak, temporaries and hot call sites of traces
# recorded with stacks, symbolised with elfutils (libdw); libstdc++ only
# for its demangler.
bin_PROGRAMS += tools/mtrace-report
tools_mtrace_report_SOURCES = tools/mtrace-report.c tools/report.h tools/report_analyse.c \
	tools/report_symbols.c tools/report_print.c tools/report_map.c tools/report_map.h \
	tools/report_diff.c tools/report_export.c tools/csv_gz.c tools/csv_gz.h
tools_mtrace_report_LDADD = lib/libmtformat.la -ldw -lelf -ldeflate -lstdc++
dist_man1_MANS += docs/mtrace-report.1
