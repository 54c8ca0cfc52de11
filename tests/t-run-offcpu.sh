#!/bin/sh
# t-run-offcpu: time a replay thread spends off the processor inside a timed
# call (preempted, throttled, or asleep in the allocator, as one waiting on
# a lock is) is no CPU time, so trace_run's own cost (the threads' CPU time
# less the calls' time) must not subtract it.  tests/run_stall.so sleeps
# 2 ms in each of 100 calls among 200,200: subtracted, the 200 ms made the
# own cost about -1,000 ns a call.  The long calls' checks find it
# (off_cpu_in_calls_usec), and own cost leaves it out.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/run_lib.sh"

stall="$top_builddir/tests/.libs/run_stall.so"
synth sleepy s.wl 100
trace_run --json --touch=none --allocator="$stall" s.wl >s.json 2>err ||
	fail "sleepy allocator: status $? $(cat err)"
expect_eq "calls" 200200 "$(jget s.json "['calls']['malloc']['count'] + d['calls']['free']['count']")"
off=$(jget s.json "['off_cpu_in_calls_usec']")
[ "$off" -ge 190000 ] || fail "off the processor in calls: $off usec, not the 100 sleeps of 2,000 usec"
own=$(jget s.json "['own_ns_per_call']")
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > -100 else 1)" "$own" ||
	fail "own cost $own ns a call: the sleeps were taken from it"
trace_run --touch=none --allocator="$stall" s.wl >s.txt 2>err || fail "text: $(cat err)"
grep -q "; off the processor in calls: [0-9.]* ms$" s.txt || fail "text: $(grep '^Own cost' s.txt)"
pass
