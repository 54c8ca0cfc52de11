#!/bin/sh
# t-rec-turn: a program that starts a thread for each piece of work and
# joins it before the next (rec_storm's turn mode: 500 threads of 3,000
# calls) loses no call, and its threads pass what their windows left unused
# on to the next (sdt/rec_thread.c, pass_on): at most 40 KiB of trace a
# thread, where each growing its own windows from 4 KiB took 62 KiB (four
# windows a thread, against two).
. "$top_srcdir/tests/lib.sh"

threads=500 calls=3000
MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE=$t_dir/turn LD_PRELOAD=$MTRACECTL_LIB \
	"$top_builddir/tests/rec_storm" "$t_dir/turn.log" turn $threads $calls >out 2>err ||
	fail "rec_storm failed: $(cat err)"
[ ! -s err ] || fail "unexpected messages: $(cat err)"
expect_eq "threads that logged all their calls" $threads "$(grep -c " $calls\$" turn.log)"
trace=$(ls turn.*[0-9])
"$top_builddir/tests/rec_count" "$trace" >counted 2>count.err || fail "$(cat count.err)"
sort turn.log >made
sort counted >recorded
cmp -s made recorded || fail "calls recorded differ from calls made (PID TID CALLS): $(diff made recorded | head -5)"

bytes=$(stat -c %s "$trace")
echo "$threads threads in turn: $bytes bytes of trace, $((bytes / threads)) a thread"
[ "$bytes" -le $((threads * 40960)) ] ||
	fail "$bytes bytes of trace for $threads threads in turn (bound: 40 KiB a thread)"
trace2wl turn.wl "$trace" >conv.out 2>conv.err || fail "trace2wl: $(cat conv.err)"
[ ! -s conv.err ] || fail "trace2wl warned: $(cat conv.err)"
pass
