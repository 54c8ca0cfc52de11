#!/bin/sh
# t-run-real-mt: a real multi-threaded program (tests/run_mt: 4 producers
# hand blocks to 4 consumers through a 64-slot queue), recorded by
# libmtracectl.so and converted with trace2wl's defaults (which keep the
# times of a trace of several threads), replays on glibc and on each
# Debian allocator installed with exactly the workload's calls, and keeps
# the recorded concurrency: Max Ideal RSS within 25% of the ideal peak
# trace2wl computed in the recorded order, on every allocator, on three
# runs and with --pace (the producers running ahead of the consumers made
# it 130x and more, and --unpaced still does).  Measured here it is
# 0.97-1.0x; frees never wait, so a recording made while the test suite
# loads the machine (threads preempted holding blocks) can replay lower
# (0.88x seen); bench/order.sh measures the issue's 10% target.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/run_lib.sh"

command -v trace2wl >/dev/null || fail "converter/trace2wl is not built"
[ -f "$MTRACECTL_LIB" ] || fail "the recorder ($MTRACECTL_LIB) is not built"

MTRACE_CTL_FILE="$t_dir/mt.mt" MTRACE_CTL_QUIET=1 LD_PRELOAD="$MTRACECTL_LIB" \
	"$top_builddir/tests/run_mt" || fail "recording run_mt failed"
set -- "$t_dir"/mt.mt.*
[ $# -eq 1 ] && [ -f "$1" ] || fail "expected one trace mt.mt.PID, found: $*"
trace2wl -f mt.wl "$1" >/dev/null || fail "trace2wl failed"
trace2wl --stats --json mt.wl >stats.json || fail "trace2wl --stats failed"
# run_mt frees only what it allocated, so a free trace2wl dropped is one it
# paired with the wrong call, and the replay would lack it.
expect_eq "double frees dropped" 0 "$(jget stats.json "['double_frees']")"
expect_eq "unknown frees dropped" 0 "$(jget stats.json "['unknown_frees']")"
expect_eq "threads" 9 "$(jget stats.json "['threads']")"
recorded=$(jget stats.json "['ideal_peak']")

# ideal_ok WHAT JSON: the replay's ideal peak is within 25% of the recorded.
ideal_ok() {
	ideal=$(jget "$2" "['ideal_peak_bytes']")
	[ $((4 * ideal)) -le $((5 * recorded)) ] && [ $((4 * ideal)) -ge $((3 * recorded)) ] ||
		fail "$1: Max Ideal RSS $ideal bytes, recorded $recorded"
}

find_allocators
for a in $allocators; do
	trace_run --json --allocator=$a mt.wl >run.json 2>err || fail "--allocator=$a: $(cat err)"
	expect_calls "$a" stats.json run.json
	expect_eq "$a: threads" 9 "$(jget run.json "['threads']")"
	ideal_ok "$a" run.json
done

for run in 1 2 3; do
	trace_run --json mt.wl >run.json 2>err || fail "run $run: $(cat err)"
	ideal_ok "run $run" run.json
done
trace_run --json --pace mt.wl >pace.json 2>err || fail "--pace: $(cat err)"
ideal_ok "--pace" pace.json
trace_run --json --unpaced mt.wl >free.json 2>/dev/null || fail "--unpaced failed"
expect_eq "--unpaced: clocked" False "$(jget free.json "['clocked']")"
pass
