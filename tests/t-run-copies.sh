#!/bin/sh
# t-run-copies: the replay loop is compiled in twelve copies (replay_loop.c:
# with or without the look-ahead, for one thread or several, with or
# without recorded times, lean or not), and a replay runs the one its
# workload and options pick.  Each workload shape here, replayed by the
# lean copy (--touch=none) and by the others (--trim-every, --timer=clock,
# --touch=page: each alone takes the replay off the lean copy), makes every
# call the workload holds and reaches its exact ideal peak.  --pace takes
# a timed workload off the lean copy, and so does --unpaced one of several
# threads (the lean copies know the shared clock runs there): paced, the
# exact peak still; unpaced, every call and no wait on the clock.  The workloads
# are long enough for the loop's fast path: an op within 64 bytes of its
# stream's end takes the general one.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/run_lib.sh"

command -v trace2wl >/dev/null || skip "converter/trace2wl is not built"

# expect_from_stats WL: WL.expect from trace2wl --stats, as synth writes it.
expect_from_stats() {
	trace2wl --stats --json "$1" >"$1.stats" || fail "trace2wl --stats $1 failed"
	python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
print('ideal_peak', d['ideal_peak'])
for c, n in d['by_call'].items():
    print(c, n)" "$1.stats" >"$1.expect" || fail "$1.stats: not trace2wl's JSON"
}

# One thread: untimed (a ring of mallocs and frees), timed (a MALLOC_TRACE
# log converted with recorded times), and freeing 40,000 blocks in a
# scrambled order, which turns the look-ahead on (t-run-prefetch); two
# threads: untimed (sync points) and timed.
synth bench one.wl 20000
awk -v n=20000 'BEGIN {
	print "= Start"
	for (i = 0; i < n; i++) printf "@ ./p:[0x1] + 0x%x 0x%x\n@ ./p:[0x1] - 0x%x\n", 4096 + 64 * i, 16 + i % 48, 4096 + 64 * i
	print "= End"
}' >timed.log
trace2wl -t one-timed.wl timed.log >/dev/null || fail "trace2wl -t timed.log failed"
expect_from_stats one-timed.wl
cold_log 40000 cold.log
trace2wl cold.wl cold.log >/dev/null || fail "trace2wl cold.log failed"
expect_from_stats cold.wl
synth handoff two.wl 200
synth prodcons two-timed.wl 200

for wl in one.wl one-timed.wl cold.wl two.wl two-timed.wl; do
	for how in "--touch=none" "--touch=none --trim-every=1000000" "--touch=none --timer=clock" \
		"--touch=page"; do
		# shellcheck disable=SC2086 # $how is several options
		trace_run --json $how "$wl" >r.json 2>err || fail "$wl $how: $(cat err)"
		jgets r.json "['calls'].get('malloc', {}).get('count', 0)" \
			"['calls'].get('calloc', {}).get('count', 0)" \
			"['calls'].get('realloc', {}).get('count', 0)" \
			"['calls'].get('free', {}).get('count', 0)" \
			"['ideal_peak_bytes']" "['failed_now']" "['prefetching_threads']" >r.vals
		{
			for c in malloc calloc realloc free; do
				read -r n
				expect_eq "$wl $how: $c count" "$(expected "$wl" "$c" | grep . || echo 0)" "$n"
			done
			read -r n
			expect_eq "$wl $how: ideal peak" "$(expected "$wl" ideal_peak)" "$n"
			read -r n
			expect_eq "$wl $how: calls failing now" 0 "$n"
			read -r n
			[ "$wl" != cold.wl ] || expect_eq "$wl $how: prefetching threads" 1 "$n"
		} <r.vals
	done
done
for wl in one-timed.wl two-timed.wl; do
	trace_run --json --touch=none --pace "$wl" >r.json 2>err || fail "$wl --pace: $(cat err)"
	for c in malloc free; do
		expect_eq "$wl --pace: $c count" "$(expected "$wl" "$c")" \
			"$(jget r.json "['calls']['$c']['count']")"
	done
	expect_eq "$wl --pace: ideal peak" "$(expected "$wl" ideal_peak)" \
		"$(jget r.json "['ideal_peak_bytes']")"
done
trace_run --json --touch=none --unpaced two-timed.wl >r.json 2>err ||
	fail "two-timed.wl --unpaced: $(cat err)"
for c in malloc free; do
	expect_eq "two-timed.wl --unpaced: $c count" "$(expected two-timed.wl "$c")" \
		"$(jget r.json "['calls']['$c']['count']")"
done
expect_eq "two-timed.wl --unpaced: clocked" False "$(jget r.json "['clocked']")"
expect_eq "two-timed.wl --unpaced: clock waits" 0 "$(jget r.json "['clock_waits']")"
pass
