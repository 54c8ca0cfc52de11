#!/bin/sh
# t-rec-storm: nothing is lost under stress (issue #10).  rec_storm runs 8
# threads making 2 M calls each, of every kind, while the main thread forks
# 4 children that each exec a traced image, and a thread sends the workers
# a storm of signals whose handler interrupts system calls (no SA_RESTART).
# Every thread counts its own calls; the traces must hold exactly as many,
# per thread and per process, with nothing dropped and no warning, and
# every trace must convert (trace2wl) and replay (trace_run).  The program's
# output and exit status are what they are untraced.
. "$top_srcdir/tests/lib.sh"

storm=$top_builddir/tests/rec_storm
count=$top_builddir/tests/rec_count
threads=8 calls=2000000 forks=4

"$storm" "$t_dir/untraced.log" $threads $calls $forks >untraced.out 2>untraced.err ||
	fail "rec_storm failed untraced: $(cat untraced.err)"
set +e
MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE=$t_dir/st LD_PRELOAD=$MTRACECTL_LIB \
	"$storm" "$t_dir/traced.log" $threads $calls $forks >traced.out 2>traced.err
rc=$?
set -e
expect_eq "exit status traced" 0 "$rc"
[ ! -s traced.err ] || fail "traced run's stderr: $(cat traced.err)"
cmp -s untraced.out traced.out || fail "output differs: '$(cat untraced.out)' untraced, '$(cat traced.out)' traced"

# What the program counted: a line per worker, and two per child (before
# and after its exec), every worker with all its calls.
expect_eq "spans the program logged" $((threads + 2 * forks)) "$(wc -l <traced.log)"
expect_eq "workers that made all their calls" $threads "$(grep -c " $calls\$" traced.log)"
expect_eq "trace files (the parent, each child before and after exec)" \
	$((1 + 2 * forks)) "$(ls st.* | wc -l)"

"$count" st.* >counted 2>count.err || fail "$(cat count.err)"
sort traced.log >made
sort counted >recorded
cmp -s made recorded || fail "calls recorded differ from calls made (PID TID CALLS): $(diff made recorded | head -5)"

for f in st.*; do
	trace2wl "$f.wl" "$f" >conv.out 2>conv.err || fail "trace2wl $f: $(cat conv.err)"
	[ ! -s conv.err ] || fail "trace2wl $f: $(cat conv.err)"
	trace_run "$f.wl" >run.out 2>run.err || fail "trace_run $f.wl: $(cat run.err)"
	[ ! -s run.err ] || fail "trace_run $f.wl: $(cat run.err)"
done
pass
