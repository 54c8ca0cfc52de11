#!/bin/sh
# t-rec-fork-exec: after fork the child records to its own file, and a
# program that execs ends its trace cleanly before the new image starts the
# next: three complete traces, each holding exactly its process's calls.
# A failed exec in between leaves the child's trace whole and in one file.
. "$top_srcdir/tests/lib.sh"

MTRACE_CTL_FILE=$t_dir/tr LD_PRELOAD=$MTRACECTL_LIB \
	"$top_builddir/tests/rec_fork" "$t_dir" 2>msgs || fail "rec_fork failed: $(cat msgs)"
# Each log's lines start with the thread id; a main thread's is its pid.
parent=$(awk 'NR == 1 { print $1 }' parent.log)
child=$(awk 'NR == 1 { print $1 }' child.log)
for f in "tr.$parent" "tr.$child" "tr.$child.2"; do
	[ -f "$f" ] || fail "no trace $f among: $(ls tr.*)"
done
expect_eq "trace files" 3 "$(ls tr.* | wc -l)"
# One start message per trace; a stop message per image end, and one at
# the failed exec, when the trace was sealed in case the exec succeeded.
expect_eq "writing-to lines" 3 "$(grep -c 'writing to' msgs)"
expect_eq "calls-recorded lines" 4 "$(grep -c 'calls recorded in' msgs)"
expect_eq "calls-recorded lines for the child" 2 "$(grep -c "calls recorded in .*/tr.$child\$" msgs)"

rec_expect=$top_builddir/tests/rec_expect
$rec_expect --skip-before "tr.$parent" parent.log >out 2>&1 || fail "parent: $(cat out)"
$rec_expect --skip-before "tr.$child" child.log >out 2>&1 || fail "child: $(cat out)"
$rec_expect --skip-before "tr.$child.2" exec.log >out 2>&1 || fail "exec'd image: $(cat out)"
for f in tr.*; do
	"$top_builddir/tests/rec_consistent" "$f" >/dev/null 2>err || fail "$f: $(cat err)"
done
pass
