#!/bin/sh
# t-run-watchdog: a replay that stops moving (here an allocator that never
# returns, which no load-time check can foresee) is ended by the watchdog
# with one line naming the stuck thread, exit status 3, within seconds; one
# slow op outside the allocator (writing a huge block) is not a stall.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/run_lib.sh"

stall="$top_builddir/tests/.libs/run_stall.so"
[ -f "$stall" ] || fail "$stall not built"
command -v timeout >/dev/null || skip "no timeout command"
synth stall s.wl
expect_fail_with '^trace_run: s.wl: no progress for 1 s, stuck: thread 0 \(tid 900\) is in op 0$' \
	timeout 30 trace_run --watchdog=1 --sample-ms=50 --allocator="$stall" s.wl
expect_eq "exit status" 3 "$rc"

# Writing a 2 GiB block takes this machine over a second, in one op: work,
# not a stall, so the watchdog lets it finish.  The block is kept, not
# freed: unmapping 2 GiB took over a second on a loaded machine, and time
# in the allocator is no work to the watchdog.
synth keep big.wl 2147483648
timeout 120 trace_run --json --watchdog=1 --touch=all big.wl >big.json 2>err ||
	fail "a 2 GiB block with --touch=all and --watchdog=1: status $? $(cat err)"
expect_eq "2 GiB block: failing now" 0 "$(jget big.json "['failed_now']")"
pass
