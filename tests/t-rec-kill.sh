#!/bin/sh
# t-rec-kill: a program killed with SIGKILL mid-run leaves a trace that
# reads back without a decode error, and whose records are exactly the calls
# the program logged before it died (at most one more: made, not yet logged).
. "$top_srcdir/tests/lib.sh"

MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE=$t_dir/tr LD_PRELOAD=$MTRACECTL_LIB \
	"$top_builddir/tests/rec_loop" loop.log &
pid=$!
t_reap $pid
# Let it cross a few window boundaries (windows grow to 1 MiB).
n=0
while [ ! -f loop.log ] || [ "$(wc -l <loop.log)" -lt 300000 ]; do
	n=$((n + 1))
	[ $n -lt 600 ] || { kill -9 $pid; fail "rec_loop logged too little in 60 s"; }
	sleep 0.1
done
kill -9 $pid
wait $pid 2>/dev/null || true

mtrace-dump --stats tr.$pid >stats 2>warnings || fail "mtrace-dump failed: $(cat warnings)"
grep -q "left open" warnings || fail "expected the open windows to be reported: $(cat warnings)"
"$top_builddir/tests/rec_expect" --skip-before --prefix tr.$pid loop.log >out 2>&1 ||
	fail "$(cat out)"
cat out
pass
