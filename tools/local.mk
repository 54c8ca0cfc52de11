# tools/local.mk - build rules for tools/, included by the top Makefile.am.

# mtrace-dump: readable and JSON views of a trace.
bin_PROGRAMS += tools/mtrace-dump
tools_mtrace_dump_SOURCES = tools/mtrace-dump.c tools/dump.h tools/dump_print.c tools/dump_stats.c
tools_mtrace_dump_LDADD = lib/libmtformat.la
dist_man1_MANS += docs/mtrace-dump.1
