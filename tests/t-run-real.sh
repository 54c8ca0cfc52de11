#!/bin/sh
# t-run-real: a real program's recording (ls), converted by trace2wl,
# replays on glibc and on each Debian allocator installed with exactly the
# calls the workload holds and, being one thread, exactly the ideal peak
# trace2wl computed.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/run_lib.sh"

command -v trace2wl >/dev/null || skip "converter/trace2wl is not built"
[ -f "$MTRACECTL_LIB" ] || skip "the recorder ($MTRACECTL_LIB) is not built"

MTRACE_CTL_FILE="$t_dir/ls.mt" MTRACE_CTL_QUIET=1 LD_PRELOAD="$MTRACECTL_LIB" \
	ls -la /usr/lib >/dev/null || fail "recording ls failed"
set -- "$t_dir"/ls.mt.*
[ $# -eq 1 ] && [ -f "$1" ] || fail "expected one trace ls.mt.PID, found: $*"
trace2wl ls.wl "$1" >/dev/null || fail "trace2wl failed"
trace2wl --stats --json ls.wl >stats.json || fail "trace2wl --stats failed"
expect_eq "threads" 1 "$(jget stats.json "['threads']")"

find_allocators
for a in $allocators; do
	trace_run --json --allocator=$a ls.wl >run.json 2>err || fail "--allocator=$a ls.wl: $(cat err)"
	expect_calls "$a" stats.json run.json
	expect_eq "$a: ideal peak" "$(jget stats.json "['ideal_peak']")" \
		"$(jget run.json "['ideal_peak_bytes']")"
done
trace_run ls.wl >run.txt || fail "text replay failed"
grep -Eq '^[0-9,]+ Kb Max Ideal RSS$' run.txt || fail "no ideal RSS line"
pass
