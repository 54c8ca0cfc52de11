#!/bin/sh
# t-run-threads: what a replay holds for itself grows with what the threads
# do, not with how many there are: 20,000 threads that make no call cost
# no statistics and no stacks (they held 738 MB), 2,000 threads making a
# malloc and a free each hold statistics for those two calls only (75 MB
# before), and both replay every call.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/run_lib.sh"

synth threads t.wl 20000
trace_run --json t.wl >t.json 2>err || fail "20,000 empty threads: $(cat err)"
expect_eq "empty: threads" 20000 "$(jget t.json "['threads']")"
kb=$(jget t.json "['replayer_kb']")
[ "$kb" -lt 65536 ] || fail "20,000 empty threads: the replayer holds $kb Kb"

synth busy b.wl 2000
trace_run --json b.wl >b.json 2>err || fail "2,000 threads: $(cat err)"
expect_eq "busy: mallocs" 2000 "$(jget b.json "['calls']['malloc']['count']")"
expect_eq "busy: frees" 2000 "$(jget b.json "['calls']['free']['count']")"
kb=$(jget b.json "['replayer_kb']")
[ "$kb" -lt 49152 ] || fail "2,000 threads: the replayer holds $kb Kb"
pass
