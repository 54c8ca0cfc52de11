#!/bin/sh
# t-run-basic: a one-thread workload with known calls replays with the
# original's text layout, exact call counts and the exact ideal RSS, in text
# and JSON, with either timer.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/run_lib.sh"

synth basic b.wl
trace_run b.wl >out.txt || fail "trace_run b.wl failed"

# The original's first five lines, then a blank line.
grep -Eq '^[0-9,]+ cycles$' out.txt || fail "no 'N cycles' line: $(head -1 out.txt)"
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
# Where the average fits the original's 6 columns, the line is as long as
# the original's (a slow first call may overflow the column, as it did there).
for c in malloc calloc realloc free; do
	line=$(grep "^Avg $c time:" out.txt)
	avg=$(echo "$line" | sed 's/^Avg [a-z]* time: *\([0-9,]*\) in.*/\1/')
	[ ${#avg} -gt 6 ] || expect_eq "width of the $c line" 43 "${#line}"
done
grep -Eq '^Total call time: [0-9,]+ cycles$' out.txt || fail "no total call time line"
# A call type of the original four never made reads "0 in 1 calls", as the
# original printed it (it counted one call to avoid dividing by zero).
synth short s.wl
trace_run s.wl >s.txt || fail "trace_run s.wl failed"
expect_eq "no calloc" "Avg calloc time:      0 in          1 calls" "$(grep '^Avg calloc' s.txt)"
expect_eq "no realloc" "Avg realloc time:     0 in          1 calls" "$(grep '^Avg realloc' s.txt)"
trace_run --json s.wl >s.json || fail "trace_run --json s.wl failed"
expect_eq "no calloc in JSON" "False" "$(jget s.json "['calls'].__contains__('calloc')")"
grep -Eq '^  malloc +[0-9,]+ +[0-9,]+ +[0-9,]+$' out.txt || fail "no malloc percentile line"
grep -q '^Timer: rdtscp, TSC at [0-9.]* MHz' out.txt || grep -q '^Timer: clock_gettime' out.txt ||
	fail "no timer line"

# JSON: the same run's figures against what run_synth computed.
trace_run --json b.wl >out.json || fail "trace_run --json failed"
for c in malloc calloc realloc free; do
	expect_eq "json $c count" "$(expected b.wl "$c")" "$(jget out.json "['calls']['$c']['count']")"
done
expect_eq "ideal peak" "$(expected b.wl ideal_peak)" "$(jget out.json "['ideal_peak_bytes']")"
expect_eq "ideal peak vs header" 1300 "$(jget out.json "['header_ideal_peak_bytes']")"
expect_eq "threads" 1 "$(jget out.json "['threads']")"
expect_eq "outcomes" "0 0" "$(jget out.json "['failed_now']") $(jget out.json "['recorded_failed_ok']")"

# The clock_gettime fallback says so and counts in ns.
trace_run --timer=clock b.wl >clock.txt || fail "--timer=clock failed"
grep -Eq '^[0-9,]+ ns$' clock.txt || fail "--timer=clock: first line $(head -1 clock.txt)"
grep -q '^Timer: clock_gettime (--timer=clock)' clock.txt || fail "--timer=clock: no timer line"
expect_eq "clock: malloc calls" 2 "$(sed -n 's/^Avg malloc time: *[0-9,]* in *\([0-9,]*\) calls$/\1/p' clock.txt)"
pass
