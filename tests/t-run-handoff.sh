#!/bin/sh
# t-run-handoff: four threads pass a token 100 times round; every free is of
# a block another thread allocated.  The sync points force one order, so the
# ideal RSS is exact and the same on every run.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/run_lib.sh"

synth handoff h.wl 100
for run in 1 2 3; do
	trace_run --json h.wl >h.json || fail "run $run failed"
	expect_eq "run $run: threads" 4 "$(jget h.json "['threads']")"
	expect_eq "run $run: malloc" "$(expected h.wl malloc)" "$(jget h.json "['calls']['malloc']['count']")"
	expect_eq "run $run: free" "$(expected h.wl free)" "$(jget h.json "['calls']['free']['count']")"
	expect_eq "run $run: ideal" "$(expected h.wl ideal_peak)" "$(jget h.json "['ideal_peak_bytes']")"
done
trace_run h.wl >h.txt || fail "text run failed"
grep -Eq '^[0-9,]+ usec across 4 threads$' h.txt || fail "no 'across 4 threads' line"
pass
