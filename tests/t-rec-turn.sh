#!/bin/sh
# t-rec-turn: a program that starts a thread for each piece of work and
# joins it before the next (rec_storm's turn mode) loses no call, and its
# threads leave what their windows did not use to the threads after them
# (sdt/rec_thread.c, the spares).  500 threads of 3,000 calls: at most
# 40 KiB of trace a thread, where each growing its own windows from 4 KiB
# took 62 KiB (four windows a thread, against two).  500 of 10,000 calls
# (~100 KB of records each): at most 256 KiB.  On an idle machine they
# take 112-115 KiB, where passing on only the window prepared ahead, and
# leaving the last one's unused pages as padding, took 137-143; but how
# much is left as padding depends on how late the helper is, and under a
# sanitizer beside other tests one run took 216 KiB, so the bound is only
# for gross regressions (docs/BENCHMARKS.md has the figures).  The helper
# that prepared those windows left its CPU time in the trace's header.
. "$top_srcdir/tests/lib.sh"

# turn THREADS CALLS BOUND: the calls read back, the trace within BOUND
# bytes a thread, and it converts without a warning.
turn() {
	threads=$1 calls=$2 bound=$3
	rm -f turn.*
	MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE=$t_dir/turn LD_PRELOAD=$MTRACECTL_LIB \
		"$top_builddir/tests/rec_storm" "$t_dir/turn.log" turn $threads $calls >out 2>err ||
		fail "rec_storm failed: $(cat err)"
	[ ! -s err ] || fail "unexpected messages: $(cat err)"
	expect_eq "threads that logged all their $calls calls" $threads \
		"$(grep -c " $calls\$" turn.log)"
	trace=$(ls turn.*[0-9])
	"$top_builddir/tests/rec_count" "$trace" >counted 2>count.err || fail "$(cat count.err)"
	sort turn.log >made
	sort counted >recorded
	cmp -s made recorded ||
		fail "calls recorded differ from calls made (PID TID CALLS): $(diff made recorded | head -5)"

	bytes=$(stat -c %s "$trace")
	echo "$threads threads in turn of $calls calls: $bytes bytes of trace, $((bytes / threads)) a thread"
	[ "$bytes" -le $((threads * bound)) ] ||
		fail "$bytes bytes of trace for $threads threads in turn of $calls calls (bound: $bound a thread)"
	helper_ns=$(mtrace-dump -s -j "$trace" | sed -n 's/.*"helper_cpu_ns":\([0-9]*\).*/\1/p')
	[ "${helper_ns:-0}" -gt 0 ] || fail "no helper CPU time in $trace's header: '$helper_ns'"
	trace2wl turn.wl "$trace" >conv.out 2>conv.err || fail "trace2wl: $(cat conv.err)"
	[ ! -s conv.err ] || fail "trace2wl warned: $(cat conv.err)"
}

turn 500 3000 40960
turn 500 10000 262144
pass
