#!/bin/sh
# t-report-threads.sh - stacks under the recorder's hard cases: 300 short
# threads taking stacks at once, a signal handler that allocates while the
# program is in the recorder, dlopen/dlclose in a loop, fork and exec
# (each process's trace holds every stack its records name, with its own
# module map), and MTRACE_STACKS values that are not a depth.
. "$top_srcdir/tests/lib.sh"

command -v python3 >/dev/null || skip "python3 (Debian package python3) is needed to read --json"
check=$top_builddir/tests/rec_consistent

# stacks_whole TRACE WHAT: the trace is consistent, carries stacks, and
# every allocating record names a stack its table holds.
stacks_whole() {
	"$check" "$1" >check.out 2>&1 || fail "$2: $(cat check.out)"
	mtrace-report --json "$1" >report.json 2>report.err || fail "$2: $(cat report.err)"
	python3 - report.json "$2" <<'PY' || fail "$2: stacks missing from the table"
import json, sys
r = json.loads(open(sys.argv[1]).readline())
assert r["stacks"] is True, "no stacks"
assert r["summary"]["unknown_stacks"] == 0, r["summary"]
assert r["allocations"] and all(e["stack"] for e in r["allocations"]), "an allocation without frames"
PY
}

for mode in "churn 300" signal dlopen; do
	# shellcheck disable=SC2086
	MTRACE_STACKS=16 MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE=$t_dir/s LD_PRELOAD="$MTRACECTL_LIB" \
		"$top_builddir/tests/rec_stress" $mode >out 2>err || fail "rec_stress $mode: $(cat err)"
	[ ! -s err ] || fail "rec_stress $mode: stderr: $(cat err)"
	stacks_whole "$(ls s.*)" "rec_stress $mode"
	rm -f s.*
done

MTRACE_STACKS=8 MTRACE_CTL_FILE=$t_dir/tr LD_PRELOAD=$MTRACECTL_LIB \
	"$top_builddir/tests/rec_fork" "$t_dir" 2>msgs || fail "rec_fork failed: $(cat msgs)"
expect_eq "trace files of fork and exec" 3 "$(ls tr.* | wc -l)"
for f in tr.*; do
	stacks_whole "$f" "$f"
done

# A depth that is not one: one line, and the program runs on without stacks.
for v in abc 257 -1; do
	MTRACE_STACKS=$v MTRACE_CTL_FILE=$t_dir/bad LD_PRELOAD=$MTRACECTL_LIB \
		ls "$t_dir" >/dev/null 2>err || fail "MTRACE_STACKS=$v: the program failed"
	grep -q "^mtrace: MTRACE_STACKS must be a number of frames from 0 to 256, not '$v'; recording without stacks$" err ||
		fail "MTRACE_STACKS=$v: no message: $(cat err)"
	mtrace-report --json bad.* | grep -q '"stacks":false' || fail "MTRACE_STACKS=$v: stacks recorded"
	rm -f bad.*
done
expect_fail_with "^mtrace-record: option '--stacks' takes 1 to 256 frames, not '0'" \
	mtrace-record --stacks=0 true
expect_fail_with "^mtrace-record: option '--stacks' needs a number of frames, not 'x'" \
	mtrace-record --stacks=x true
pass
