#!/bin/sh
# t-fmt-threads.sh - a trace of 4,000 short threads run one after another
# (tests/fmt_threads: 4,000 calls each, 64 blocks live at most, a trace of
# some 60 MB) is read by trace2wl, mtrace-report and mtrace-dump --stats in
# a peak RSS the length of the trace does not set: the readers open a
# thread's cursor when its turn comes, and drop a finished window's pages
# with those the kernel mapped around them.  Opening every cursor at the
# start held each thread's first window resident, about the whole trace;
# so did the pages around the windows read (3,000 CPython threads: 214 MB
# in trace2wl and mtrace-report).  Bound: 32 MB, trace2wl's fixed part
# (issue #11: 32 MB + 40 B per block live at the peak).
. "$top_srcdir/tests/lib.sh"

"$top_builddir/tests/fmt_threads" many.mtrace 4000 4000 || fail "fmt_threads"
size_kb=$(($(wc -c <many.mtrace) / 1024))
bound_kb=32768
rss() { # rss TOOL ARGS...: runs it, prints its peak RSS in KiB
	"$top_builddir/bench/cpu_time" cost "$@" >out 2>err || fail "$*: $(cat err)"
	cut -d" " -f2 cost
}
for tool in "trace2wl -f many.wl many.mtrace" "mtrace-report many.mtrace" "mtrace-dump --stats many.mtrace"; do
	# shellcheck disable=SC2086
	kb=$(rss $tool)
	echo "$tool: peak RSS $kb KiB for a trace of $size_kb KiB"
	[ "$kb" -le "$bound_kb" ] || fail "$tool: peak RSS $kb KiB for a trace of $size_kb KiB (bound $bound_kb)"
	case $tool in
	trace2wl*)
		expect_eq "trace2wl's summary" \
			"trace2wl: 4000 threads, 16000000 calls, 0 blocks never freed, 0 unknown frees" \
			"$(sed 's/ -> .*//' out)"
		;;
	esac
done
pass
