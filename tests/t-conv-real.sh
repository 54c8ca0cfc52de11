#!/bin/sh
# t-conv-real.sh - traces of real programs, recorded by libmtracectl.so,
# convert, pass the workload reader's full check, and the workload holds the
# trace's calls one to one, thread by thread (addresses and object numbers
# both read as P; frees trace2wl had to drop are the only lines allowed to
# be missing, and only as many as it says it dropped).  The multi-threaded
# programs free only what they allocated, so there nothing may be dropped:
# a dropped free there is a call paired with the wrong allocation, which
# their cores' clocks and preempted reallocs invite.  They are recorded
# several times, as each run interleaves differently.
. "$top_srcdir/tests/lib.sh"

[ -f "$MTRACECTL_LIB" ] || skip "the recorder library $MTRACECTL_LIB is not built"

# record NAME CMD...: trace of CMD into NAME.mtrace.
record() {
	name=$1
	shift
	MTRACE_CTL_FILE="$t_dir/$name.rec" MTRACE_CTL_QUIET=1 LD_PRELOAD="$MTRACECTL_LIB" "$@" \
		>/dev/null || fail "$name: the recorded program failed"
	set -- "$t_dir/$name".rec*
	[ -f "$1" ] || fail "$name: the recorder wrote no trace"
	mv "$1" "$name.mtrace"
}

# Calls of a trace, per thread in order, without addresses or times.
trace_calls() {
	mtrace-dump "$1" | sed -E -e '/^#/d' -e '/^[0-9]+:[0-9]+ +[-+][0-9.]+ +event /d' \
		-e 's/^([0-9]+):[0-9]+ +[-+][0-9.]+ +/\1 /' -e 's/  usable [0-9]+.*$//' \
		-e 's/0x[0-9a-f]+/P/g' -e 's/= (E[A-Z0-9]+|error [0-9]+)$/= NULL/' | sort -s -k1,1n
}

# The same view of a workload: sync ops are not calls, and the times a
# workload of several threads keeps by default are left out.
wl_calls() {
	trace2wl --dump "$1" | sed -E -e '/^#/d' -e '/^[0-9]+  (signal|wait) /d' -e 's/  \+[0-9]+ns$//' \
		-e 's/^([0-9]+)  /\1 /' -e 's/#[0-9]+/P/g' | sort -s -k1,1n
}

# check NAME: convert and compare.
check() {
	trace2wl "$1.wl" "$1.mtrace" >"$1.sum" 2>"$1.err" || fail "$1: trace2wl: $(cat "$1.err")"
	trace_calls "$1.mtrace" >"$1.trace"
	wl_calls "$1.wl" >"$1.work" || fail "$1: the workload does not pass the full check"
	[ -s "$1.trace" ] || fail "$1: the trace holds no calls"
	dropped=$(sed -E 's/.* ([0-9]+) unknown frees?(, ([0-9]+) double).*/\1 \3/; s/.* ([0-9]+) unknown frees? ->.*/\1 0/' "$1.sum")
	dropped=$(( $(echo "$dropped" | tr ' ' '+') ))
	diff "$1.trace" "$1.work" >"$1.diff" || true
	grep -q '^>' "$1.diff" && fail "$1: workload calls not in the trace: $(grep '^>' "$1.diff" | head -3)"
	missing=$(grep -c '^<' "$1.diff" || true)
	expect_eq "$1: trace calls missing from the workload (all dropped frees)" "$dropped" "$missing"
	if [ "$missing" -gt 0 ] && grep '^<' "$1.diff" | grep -Eqv '^< [0-9]+ (free|free_sized|free_aligned_sized)\('; then
		fail "$1: lost calls other than frees: $(grep '^<' "$1.diff" | head -3)"
	fi
}

record ls ls -l /usr/bin
check ls

seq 1 5000 | sort -R >numbers
record sort sort -n numbers
check sort

# check_threaded NAME: check, with nothing dropped and handoffs kept in sync.
check_threaded() {
	check "$1"
	grep -q ' 0 unknown frees -> ' "$1.sum" || fail "$1: frees dropped: $(cat "$1.sum")"
	threads=$(sed -n 's/^trace2wl: \([0-9]*\) threads.*/\1/p' "$1.sum")
	[ "$threads" -ge 4 ] || fail "$1: expected at least 4 threads, got '$threads'"
	syncs=$(trace2wl --stats --json "$1.wl" | sed -n 's/.*"syncs":\([0-9]*\).*/\1/p')
	[ "$syncs" -gt 0 ] || fail "$1: blocks crossed threads but the workload has no sync point"
}

for run in 1 2 3; do
	record threads$run "$top_builddir/tests/conv_threads" 20000
	check_threaded threads$run
done
for run in 1 2 3 4; do
	record handoff$run "$top_builddir/tests/conv_handoff" 20000
	check_threaded handoff$run
done
pass
