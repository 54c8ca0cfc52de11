#!/bin/sh
# t-run-footprint: trace_run's own memory stays out of the allocator's
# figures and does not grow with the workload's length.
# 1. Under run_count.so, an allocator that counts its calls, the threads
#    that exist only for the replay (replay threads, monitor) make exactly
#    the workload's calls, on a 4-thread workload of cross-thread frees and
#    on one with every call type; plus, by design, a free of each block
#    that a call failed to get when recorded but gets now.
# 2. Under tcmalloc, which keeps freed memory, Max RSS of a workload that
#    holds 50 MiB (touched) is at least 0.8x its ideal RSS: the replayer's
#    freed memory did not serve the replay, and the peak is found.
# 3. A workload of 10 M short-lived blocks (object numbers reused, as
#    trace2wl writes them) replays with trace_run resident before the clock
#    under its stated bound: 16 MB + 16 B per object number + 256 KiB of
#    stack per thread (the replay thread and the monitor).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/run_lib.sh"

count="$top_builddir/tests/.libs/run_count.so"
[ -r "$count" ] || fail "$count not built"

# calls WL: the calls run_synth promised for WL.
calls() {
	awk '$1 != "ideal_peak" && $1 != "objects" && $1 != "syncs" { n += $2 } END { print n }' \
		"$1.expect"
}

for scenario in handoff every; do
	synth $scenario $scenario.wl
	RUN_COUNT_LOG=$scenario.count trace_run --allocator="$count" --json $scenario.wl \
		>$scenario.json || fail "trace_run under run_count.so on $scenario failed"
	[ -s $scenario.count ] || fail "run_count.so wrote no count for $scenario"
	expect_eq "$scenario: allocator calls during the replay" \
		"$(($(calls $scenario.wl) + $(jget $scenario.json "['recorded_failed_ok']")))" \
		"$(awk '$1 == "others" { print $2 }' $scenario.count)"
done

tcmalloc=$(installed_allocators 2>&1 | awk '$1 == "tcmalloc" { print $2 }')
if [ -n "$tcmalloc" ]; then
	synth hold hold.wl
	trace_run --allocator=tcmalloc --json hold.wl >hold.json || fail "trace_run hold.wl failed"
	rss=$(jget hold.json "['max_rss_kb']")
	ideal=$(jget hold.json "['ideal_rss_kb']")
	[ $((rss * 10)) -ge $((ideal * 8)) ] ||
		fail "tcmalloc: Max RSS $rss Kb is under 0.8x the ideal $ideal Kb"
else
	echo "tcmalloc is not installed (libtcmalloc-minimal4): the Max RSS check is not run" >&2
fi

synth churn churn.wl
objects=$(expected churn.wl objects)
trace_run --touch=none --json churn.wl >churn.json || fail "trace_run churn.wl failed"
expect_eq "churn: calls replayed" "$(calls churn.wl)" \
	"$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sum(c['count'] for c in d['calls'].values()))" churn.json)"
before=$(jget churn.json "['replayer_kb']")
bound=$((16 * 1024 + 16 * objects / 1024 + 2 * 256))
[ "$before" -le "$bound" ] ||
	fail "churn: $before Kb resident before the clock, over the bound of $bound Kb"
pass
