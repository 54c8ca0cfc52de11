#!/bin/sh
# t-run-prefetch: a thread that frees its blocks in another order than it
# made them, long after, prefetches its frees' object slots, and replays
# exactly as one that does not: every call, the ideal peak (exact with one
# stream, to 1/1024 with two).  Blocks
# freed right after they are made turn no prefetching on.  Both with
# recorded times (a recording of python3) and without (a MALLOC_TRACE log).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/run_lib.sh"

command -v trace2wl >/dev/null || skip "converter/trace2wl is not built"

# replays WL EXPECTED_PREFETCHING: checks calls, ideal peak and the count
replays() {
	trace2wl --stats --json "$1" >"$1.stats" || fail "trace2wl --stats $1 failed"
	trace_run --json --touch=none "$1" >"$1.run" 2>err || fail "$1: $(cat err)"
	expect_calls "$1" "$1.stats" "$1.run"
	expect_eq "$1: ideal peak" "$(jget "$1.stats" "['ideal_peak']")" \
		"$(jget "$1.run" "['ideal_peak_bytes']")"
	expect_eq "$1: prefetching threads" "$2" "$(jget "$1.run" "['prefetching_threads']")"
}

# 40,000 blocks made, then freed in a scrambled order (run_lib.sh).
cold_log 40000 cold.log
trace2wl cold.wl cold.log >/dev/null || fail "trace2wl cold.log failed"
replays cold.wl 1

# The same blocks, each freed at once.
awk -v n=40000 'BEGIN {
	print "= Start"
	for (i = 0; i < n; i++) printf "@ ./p:[0x1] + 0x%x 0x%x\n@ ./p:[0x1] - 0x%x\n", 4096 + 64 * i, 16 + i % 48, 4096 + 64 * i
	print "= End"
}' >warm.log
trace2wl warm.wl warm.log >/dev/null || fail "trace2wl warm.log failed"
replays warm.wl 0

# Every kind of op the look-ahead keeps for the replay, with recorded
# times: callocs and frees of NULL (its second fast step), reallocs and
# waits (decoded whole), beside the mallocs and frees.  Thread 2 makes 200
# blocks first; thread 1, 2 ms later, 40,000, and frees them scrambled,
# reallocating every fifth first, with thread 2's among them.
awk -v n=40000 'BEGIN {
	print "# mlog1 malloc-log"
	ts = 1000
	for (j = 0; j < 200; j++) printf "mlog1 2 %d malloc 32 = 0x%x\n", ts += 100, 150994944 + 64 * j
	ts += 2000000
	for (i = 0; i < n; i++)
		if (i % 3) printf "mlog1 1 %d malloc %d = 0x%x\n", ts += 100, 16 + i % 48, 1048576 + 64 * i
		else printf "mlog1 1 %d calloc 2 %d = 0x%x\n", ts += 100, 8 + i % 24, 1048576 + 64 * i
	for (k = 0; k < n; k++) {
		i = (k * 7919) % n
		if (i % 5) {
			printf "mlog1 1 %d free 0x%x\n", ts += 100, 1048576 + 64 * i
		} else {
			printf "mlog1 1 %d realloc 0x%x 100 = 0x%x\n", ts += 100, 1048576 + 64 * i, 83886080 + 128 * i
			printf "mlog1 1 %d free 0x%x\n", ts += 100, 83886080 + 128 * i
		}
		if (k % 97 == 0) printf "mlog1 1 %d free 0\n", ts += 100
		if (k % 200 == 0) printf "mlog1 1 %d free 0x%x\n", ts += 100, 150994944 + 64 * (k / 200)
	}
}' >mixed.mlog
trace2wl mixed.wl mixed.mlog >/dev/null || fail "trace2wl mixed.mlog failed"
trace2wl --stats --json mixed.wl >mixed.stats || fail "trace2wl --stats mixed.wl failed"
for c in calloc realloc; do
	[ "$(jget mixed.stats "['by_call']['$c']")" -gt 0 ] || fail "mixed.wl has no $c"
done
for pace in "" --unpaced; do
	trace_run --json --touch=none $pace mixed.wl >mixed.run 2>err || fail "mixed.wl $pace: $(cat err)"
	expect_calls "mixed.wl $pace" mixed.stats mixed.run
	# Two streams: each gathers its changes before adding them to the
	# shared count, so the peak is exact to 1/1024 (trace_run.1).
	exact=$(jget mixed.stats "['ideal_peak']")
	got=$(jget mixed.run "['ideal_peak_bytes']")
	off=$((got > exact ? got - exact : exact - got))
	[ $((off * 1024)) -le "$exact" ] ||
		fail "mixed.wl $pace: ideal peak $got, recorded $exact: more than 1/1024 off"
	n=$(jget mixed.run "['prefetching_threads']")
	[ "$n" -ge 1 ] || fail "mixed.wl $pace: no thread prefetches (prefetching_threads $n)"
done

# With recorded times (a workload of two threads has them): Debian's python3
# (not a version manager's shim on PATH, which runs helper processes) with
# the system malloc, a thread of its keeping 60,000 objects and dropping
# them in a scrambled order.  Its main thread may prefetch or not.
[ -f "$MTRACECTL_LIB" ] || skip "the recorder ($MTRACECTL_LIB) is not built"
[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 is missing"
MTRACE_CTL_FILE="$t_dir/py.mt" MTRACE_CTL_QUIET=1 PYTHONMALLOC=malloc LD_PRELOAD="$MTRACECTL_LIB" \
	/usr/bin/python3 -c '
import threading
def work(n=60000):
    keep = [bytearray(40 + i % 64) for i in range(n)]
    for i in range(n):
        keep[i * 7919 % n] = None
t = threading.Thread(target=work)
t.start()
t.join()
' || fail "recording python3 failed"
set -- "$t_dir"/py.mt.*
[ $# -eq 1 ] && [ -f "$1" ] || fail "expected one trace py.mt.PID, found: $*"
trace2wl py.wl "$1" >/dev/null || fail "trace2wl of python3's trace failed"
trace2wl --stats --json py.wl >py.stats || fail "trace2wl --stats py.wl failed"
expect_eq "python3's workload is timed" True "$(jget py.stats "['timing']")"
trace_run --json --touch=none py.wl >py.run 2>err || fail "py.wl: $(cat err)"
expect_calls py.wl py.stats py.run
n=$(jget py.run "['prefetching_threads']")
[ "$n" -ge 1 ] || fail "py.wl: no thread prefetches (prefetching_threads $n)"
pass
