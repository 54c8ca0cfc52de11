# trace_run/local.mk - build rules for trace_run/, included by the top Makefile.am.

# trace_run: replay a workload, time each call, report RSS and ideal RSS.
bin_PROGRAMS += trace_run/trace_run
trace_run_trace_run_SOURCES = \
	trace_run/main.c \
	trace_run/options.h trace_run/options.c \
	trace_run/tunables.h trace_run/tunables.c \
	trace_run/allocator.h trace_run/allocator.c \
	trace_run/compare.h trace_run/compare.c \
	trace_run/replay.h trace_run/replay_internal.h trace_run/replay.c \
	trace_run/replay_loop.c trace_run/sync.h \
	trace_run/survey.c trace_run/clock.c \
	trace_run/monitor.c trace_run/rss.c trace_run/stream.c \
	trace_run/timer.h trace_run/timer.c trace_run/sort_u64.h \
	trace_run/hist.h trace_run/hist.c \
	trace_run/report.h trace_run/report.c \
	trace_run/html_report.h trace_run/html_report.c
trace_run_trace_run_LDADD = lib/libmtformat.la lib/libmthtml.la -lm
dist_man1_MANS += docs/trace_run.1
