# converter/local.mk - build rules for converter/, included by the top Makefile.am.

# trace2wl: recorder trace (or text log) -> workload for trace_run.
bin_PROGRAMS += converter/trace2wl
converter_trace2wl_SOURCES = \
	converter/main.c converter/convert.h converter/convert.c converter/conv_internal.h \
	converter/emit.c converter/heap.c converter/park.c converter/addrmap.h converter/addrmap.c \
	converter/input.h converter/input.c converter/wlshow.h converter/wlshow.c
converter_trace2wl_LDADD = lib/libmtformat.la
dist_man1_MANS += docs/trace2wl.1
