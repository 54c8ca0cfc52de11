#!/bin/sh
# t-rec-api: mtrace_sync, mtrace_reset, mtrace_pause/unpause, mtrace_stop
# and mtrace_start from several threads while others allocate (see
# rec_api.c): three complete traces, the first holding exactly the count
# mtrace_sync returned, no paused call recorded.
. "$top_srcdir/tests/lib.sh"

MTRACE_CTL_FILE=$t_dir/tr "$top_builddir/tests/rec_api" >out 2>msgs ||
	fail "rec_api failed: $(cat msgs)"
pid=$(sed -n 's/.*writing to .*tr\.\([0-9]*\)$/\1/p' msgs | head -1)
[ -n "$pid" ] || fail "no 'writing to' message: $(cat msgs)"
expect_eq "trace files" "tr.$pid tr.$pid.2 tr.$pid.3" "$(echo $(ls tr.*))"
expect_eq "calls-recorded lines" 3 "$(grep -c 'calls recorded in' msgs)"

for f in tr.*; do
	"$top_builddir/tests/rec_consistent" "$f" >"$f.check" 2>&1 || fail "$(cat "$f.check")"
done
synced=$(sed -n 's/^synced //p' out)
expect_eq "records in the first file vs mtrace_sync" "$synced" "$(awk '{print $2}' "tr.$pid.check")"
dump2=$(mtrace-dump --json "tr.$pid.2")
echo "$dump2" | grep -q '"size":630878[,}]' && fail "a call made while paused was recorded"
echo "$dump2" | grep -q '"call":"malloc".*"size":630879[,}]' || fail "the call after unpause is missing"
pass
