#!/bin/sh
# t-run-order: threads stay near each other on the recorded clock.  A
# producer records a 64 KiB block every 100 us and a consumer frees each
# 50 us later, so one block was live at a time; the sync points alone let
# the producer run as far ahead as the scheduler allows.  Within the
# default 1 ms window the producer is at most 11 blocks ahead, on every run
# and with --pace; --window=0 and a workload without recorded times say
# that only the sync points order the threads.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/run_lib.sh"

synth prodcons pc.wl 1000
block=65536
expect_eq "recorded peak" $block "$(expected pc.wl ideal_peak)"
for run in 1 2 3; do
	trace_run --json --touch=none pc.wl >pc.json 2>err || fail "run $run: $(cat err)"
	ideal=$(jget pc.json "['ideal_peak_bytes']")
	[ "$ideal" -le $((12 * block)) ] || fail "run $run: ideal peak $ideal, more than 12 blocks"
	expect_eq "run $run: window" 1000 "$(jget pc.json "['window_us']")"
	expect_eq "run $run: recorded peak" 64 "$(jget pc.json "['recorded_ideal_kb']")"
done
trace_run --json --touch=none --pace pc.wl >pace.json 2>err || fail "--pace: $(cat err)"
ideal=$(jget pace.json "['ideal_peak_bytes']")
[ "$ideal" -le $((12 * block)) ] || fail "--pace: ideal peak $ideal, more than 12 blocks"
wall=$(jget pace.json "['wall_usec']")
[ "$wall" -ge 100000 ] || fail "--pace: 1000 blocks 100 us apart replayed in $wall usec"

# A ratio beyond 2 of the recorded peak is warned about, on one line.
trace_run --touch=none --window=100000 pc.wl >wide.txt 2>err || fail "--window=100000: $(cat err)"
grep -q '^Order: threads kept within 100,000 usec of each other' wide.txt ||
	fail "no Order line: $(grep Order wide.txt)"
grep -q '^Recorded ideal peak: 64 Kb' wide.txt || fail "no recorded peak line"
if [ -s err ]; then
	expect_eq "warning lines" 1 "$(wc -l <err)"
	grep -q "^trace_run: pc.wl: warning: Max Ideal RSS .* the recorded ideal peak of 64 Kb" err ||
		fail "warning: $(cat err)"
fi
trace_run --touch=none --window=0 pc.wl >free.txt 2>/dev/null || fail "--window=0 failed"
grep -q '^Order: sync points only (--window=0)$' free.txt || fail "--window=0: $(grep Order free.txt)"
synth handoff h.wl 10
trace_run h.wl >h.txt || fail "handoff failed"
grep -q '^Order: sync points only (no recorded times' h.txt || fail "untimed: $(grep Order h.txt)"
pass
