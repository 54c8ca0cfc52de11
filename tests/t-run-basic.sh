#!/bin/sh
# t-run-basic: a one-thread workload with known calls replays with the
# original's text layout, exact call counts and the exact ideal RSS, in text
# and JSON, with the timer the ladder chose and with clock_gettime; its own
# cost from the replay threads' CPU time, the monitor's shown apart.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/run_lib.sh"

synth basic b.wl
trace_run b.wl >out.txt || fail "trace_run b.wl failed"

# The original's first five lines, then a blank line.  The first line's
# unit is the timer's: cycles for a TSC, whichever rung the ladder chose.
timer=$(sed -n 's/^Timer: \([a-z]*\) (.*/\1/p' out.txt)
unit=$(timer_unit "$timer")
grep -Eq "^[0-9,]+ $unit\$" out.txt || fail "no 'N $unit' line for timer '$timer': $(head -1 out.txt)"
grep -Eq '^[0-9,]+ usec wall time$' out.txt || fail "no wall time line"
grep -Eq '^[0-9,]+ usec across 1 thread$' out.txt || fail "no 'across 1 thread' line"
grep -Eq '^[0-9,]+ Kb Max RSS \([0-9,]+ -> [0-9,]+\)$' out.txt || fail "no Max RSS line"
expect_eq "ideal line" "2 Kb Max Ideal RSS" "$(sed -n 5p out.txt)"
expect_eq "blank line 6" "" "$(sed -n 6p out.txt)"

# Avg lines: exact counts, and the count column where the original put it.
count() { sed -n "s/^Avg $1 time: *[0-9,]* in *\([0-9,]*\) calls$/\1/p" out.txt; }
expect_eq "malloc calls" 2 "$(count malloc)"
expect_eq "calloc calls" 1 "$(count calloc)"
expect_eq "realloc calls" 1 "$(count realloc)"
expect_eq "free calls" 4 "$(count free)"
# The average ends in column 23, as the original's did, unless it is too
# wide for its column (a slow call), when it follows the label after one
# space; the count is right-aligned in 10 columns.
for c in malloc calloc realloc free; do
	line=$(grep "^Avg $c time:" out.txt)
	label="Avg $c time:"
	avg=$(echo "$line" | sed 's/^Avg [a-z]* time: *\([0-9,]*\) in.*/\1/')
	calls=$(echo "$line" | sed 's/.* in *\([0-9,]*\) calls$/\1/')
	head_len=$((${#label} + 1 + ${#avg}))
	[ "$head_len" -ge 23 ] || head_len=23
	tail_len=${#calls}
	[ "$tail_len" -ge 10 ] || tail_len=10
	expect_eq "width of the $c line" $((head_len + 4 + tail_len + 6)) "${#line}"
done
grep -Eq "^Total call time: [0-9,]+ $unit\$" out.txt || fail "no total call time line"
grep -Eq "^Percentiles \($unit\):" out.txt || fail "no percentiles line in $unit"
# A call type of the original four never made reads "0 in 1 calls", as the
# original printed it (it counted one call to avoid dividing by zero).
synth short s.wl
trace_run s.wl >s.txt || fail "trace_run s.wl failed"
expect_eq "no calloc" "Avg calloc time:      0 in          1 calls" "$(grep '^Avg calloc' s.txt)"
expect_eq "no realloc" "Avg realloc time:     0 in          1 calls" "$(grep '^Avg realloc' s.txt)"
trace_run --json s.wl >s.json || fail "trace_run --json s.wl failed"
expect_eq "no calloc in JSON" "False" "$(jget s.json "['calls'].__contains__('calloc')")"
grep -Eq '^  malloc +[0-9,]+ +[0-9,]+ +[0-9,]+$' out.txt || fail "no malloc percentile line"
grep -Eq '^Timer: [a-z]+ \(auto(: [^)]*)?\), ' out.txt || fail "no timer line: $(grep Timer out.txt)"

# JSON: the same run's figures against what run_synth computed.
trace_run --json b.wl >out.json || fail "trace_run --json failed"
for c in malloc calloc realloc free; do
	expect_eq "json $c count" "$(expected b.wl "$c")" "$(jget out.json "['calls']['$c']['count']")"
done
expect_eq "ideal peak" "$(expected b.wl ideal_peak)" "$(jget out.json "['ideal_peak_bytes']")"
expect_eq "ideal peak vs header" 1300 "$(jget out.json "['header_ideal_peak_bytes']")"
expect_eq "threads" 1 "$(jget out.json "['threads']")"
expect_eq "outcomes" "0 0" "$(jget out.json "['failed_now']") $(jget out.json "['recorded_failed_ok']")"

expect_eq "json unit" "$(timer_unit "$(jget out.json "['timer']['source']")")" "$(jget out.json "['unit']")"

# The clock_gettime fallback says so and counts in ns.
trace_run --timer=clock b.wl >clock.txt || fail "--timer=clock failed"
grep -Eq '^[0-9,]+ ns$' clock.txt || fail "--timer=clock: first line $(head -1 clock.txt)"
grep -q '^Timer: clock (--timer=clock), clock_gettime(CLOCK_MONOTONIC_RAW), figures in ns' clock.txt ||
	fail "--timer=clock: no timer line"
expect_eq "clock: malloc calls" 2 "$(sed -n 's/^Avg malloc time: *[0-9,]* in *\([0-9,]*\) calls$/\1/p' clock.txt)"

# The own cost is the replay threads' CPU time, a part of the process's;
# the rest (the monitor's RSS readings, the main thread) is shown apart.
synth bench long.wl 200000
trace_run --touch=none long.wl >long.txt || fail "long replay failed"
grep -Eq '^Monitor: [0-9]+\.[0-9] ns a call \(CPU time of the monitor.s RSS samples and of the main thread, apart from the replay threads. own cost\)$' long.txt ||
	fail "no Monitor line: $(grep -A1 '^Own cost' long.txt)"
trace_run --touch=none --json long.wl >long.json || fail "long replay --json failed"
python3 - long.json <<'PY' || fail "replay threads' CPU time: $(cat long.json)"
import json, sys
d = json.load(open(sys.argv[1]))
process = d["user_usec"] + d["sys_usec"]
# both from the kernel's per-thread runtime; getrusage rounds to 1 us a field
assert 0 < d["threads_cpu_usec"] <= process + 2, (d["threads_cpu_usec"], process)
assert d["monitor_ns_per_call"] >= 0
PY
pass
