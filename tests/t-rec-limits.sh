#!/bin/sh
# t-rec-limits: a file-size limit (ulimit -f) never kills the traced
# program (issue #10).  Under a 1 MiB limit, through LD_PRELOAD of
# libmtracectl.so, through mtrace-record and through libmtrace.so, the
# program's exit status and output are what they are untraced, the recorder
# says once on stderr that it stopped, and the trace reads back whole up to
# the stop, saying why and after how many calls; trace2wl and trace_run
# carry that on as a warning and in --json.  A limit below the trace header
# leaves no file, and a window that cannot be mapped stops recording the
# same way.  trace2wl under the limit fails with one line and leaves no
# output.
. "$top_srcdir/tests/lib.sh"

storm=$top_builddir/tests/rec_storm
limit=1048576
# 2 threads x 300 k calls need about 2.5 MiB of trace; the storm of
# signals stays on, so the stop happens with system calls being interrupted.
args="2 300000 0"

limited() {
	prlimit --fsize=$limit -- "$@"
}

limited "$storm" "$t_dir/untraced.log" $args >untraced.out 2>untraced.err ||
	fail "rec_storm failed untraced under the limit: $(cat untraced.err)"
[ -s untraced.out ] || fail "rec_storm printed nothing"

# check_run NAME RC: the run of NAME exited as the untraced one did, said
# one thing on stderr, and left one trace, NAME.trace*, stopped at the limit.
check_run() {
	expect_eq "$1: exit status" 0 "$2"
	cmp -s untraced.out "$1.out" || fail "$1: output differs from untraced: $(cat "$1.out")"
	expect_eq "$1: stderr lines" 1 "$(wc -l <"$1.err")"
	grep -Eq "^mtrace: cannot extend .*/$1\\.trace[.0-9]*: the file size limit \\(ulimit -f\\) of $limit bytes is reached; recording stopped\$" "$1.err" ||
		fail "$1: unexpected message: $(cat "$1.err")"
	expect_eq "$1: trace files" 1 "$(ls "$1".trace* | wc -l)"
	trace=$(ls "$1".trace*)

	mtrace-dump --stats --json "$trace" >"$1.json" 2>"$1.dump.err" || fail "$1: mtrace-dump: $(cat "$1.dump.err")"
	records=$(sed -n 's/.*"closed":true,"dropped":0,"windows":[0-9]*,"stacks":0,"modules":0,"helper_cpu_ns":[0-9]*,"stopped_early":{"reason":"file size limit","code":1,"calls":\([0-9]*\)}.*/\1/p' "$1.json")
	[ -n "$records" ] || fail "$1: no stop in the trace's header: $(head -c 400 "$1.json")"
	grep -q "\"records\":$records," "$1.json" || fail "$1: the stop's count $records is not the records read"
	# Each thread's calls are counted as made, so the stop fell in their middle.
	total=$(awk '{ n += $3 } END { print n }' untraced.log)
	[ "$records" -gt 1000 ] && [ "$records" -lt "$total" ] ||
		fail "$1: $records records of $total calls before the stop"
	grep -q "^mtrace-dump: .*: incomplete: recording stopped early (file size limit) after $records calls\$" "$1.dump.err" ||
		fail "$1: mtrace-dump did not warn: $(cat "$1.dump.err")"
	mtrace-dump "$trace" 2>/dev/null | grep -q "^# INCOMPLETE: recording stopped early (file size limit) after $records calls\$" ||
		fail "$1: mtrace-dump's header says nothing of the stop"
	"$top_builddir/tests/rec_consistent" --allow-warnings "$trace" >"$1.check" 2>&1 || fail "$1: $(cat "$1.check")"

	trace2wl "$1.wl" "$trace" >"$1.conv" 2>"$1.conv.err" || fail "$1: trace2wl: $(cat "$1.conv.err")"
	grep -q "^trace2wl: warning: .*: incomplete: recording stopped early (file size limit) after $records calls\$" "$1.conv.err" ||
		fail "$1: trace2wl did not warn: $(cat "$1.conv.err")"
	trace2wl --json -f "$1.wl" "$trace" 2>/dev/null | grep -q "\"stopped_early\":{\"reason\":\"file size limit\",\"code\":1,\"calls\":$records}" ||
		fail "$1: trace2wl --json says nothing of the stop"
	trace2wl --stats --json "$1.wl" 2>/dev/null | grep -q '"version":2,.*"stopped_early":{"reason":"file size limit"' ||
		fail "$1: the workload does not carry the stop"
	trace_run --json "$1.wl" >"$1.run" 2>"$1.run.err" || fail "$1: trace_run: $(cat "$1.run.err")"
	grep -q "^trace_run: $1.wl: warning: made from an incomplete trace: recording stopped early (file size limit) after $records calls\$" "$1.run.err" ||
		fail "$1: trace_run did not warn: $(cat "$1.run.err")"
	grep -q "\"stopped_early\":{\"reason\":\"file size limit\",\"code\":1,\"calls\":$records}" "$1.run" ||
		fail "$1: trace_run --json says nothing of the stop"
}

# traced NAME CMD...: runs CMD, which traces rec_storm into NAME.trace*,
# under the limit, and checks the run.
traced() {
	name=$1
	shift
	set +e
	limited "$@" >"$name.out" 2>"$name.err"
	rc=$?
	set -e
	check_run "$name" $rc
}

traced ctl env MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$t_dir/ctl.trace" LD_PRELOAD="$MTRACECTL_LIB" \
	"$storm" "$t_dir/ctl.log" $args
traced record env MTRACE_LIBDIR="$(dirname "$MTRACECTL_LIB")" \
	mtrace-record -q -o "$t_dir/record.trace" "$storm" "$t_dir/record.log" $args
traced lib env MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$t_dir/lib.trace" LD_PRELOAD="$MTRACE_LIB" \
	"$storm" "$t_dir/lib.log" $args

# A mtrace_stop by the program is no early stop: the trace reads complete
# (t-rec-api's traces hold no warning); a complete recording neither.
MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE=$t_dir/whole.trace LD_PRELOAD=$MTRACECTL_LIB \
	"$storm" "$t_dir/whole.log" $args >whole.out 2>whole.err || fail "$(cat whole.err)"
mtrace-dump --stats --json whole.trace.* 2>whole.dump.err | grep -q '"stopped_early":null' ||
	fail "a complete trace says it stopped early"
[ ! -s whole.dump.err ] || fail "a complete trace warns: $(cat whole.dump.err)"
trace2wl whole.wl whole.trace.* >/dev/null 2>whole.conv.err || fail "$(cat whole.conv.err)"
trace2wl --stats --json whole.wl | grep -q '"version":2,.*"stopped_early":null' ||
	fail "the workload of a complete trace says it stopped early"

# A window that cannot be mapped (rec_failsys.so makes the fourth fail):
# the same, with the claimed space given back, so the trace ends with its
# last mapped window and warns of nothing but the stop.
failsys=$top_builddir/tests/.libs/rec_failsys.so
[ -f "$failsys" ] || fail "$failsys is not built"
REC_FAIL_MAP_AFTER=3 MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE=$t_dir/map.trace \
	LD_PRELOAD="$failsys $MTRACECTL_LIB" "$storm" "$t_dir/map.log" $args >map.out 2>map.err ||
	fail "the traced program failed when a mapping failed: $(cat map.err)"
cmp -s untraced.out map.out || fail "map: output differs from untraced"
expect_eq "map: stderr lines" 1 "$(wc -l <map.err)"
grep -Eq '^mtrace: cannot map .*/map\.trace\.[0-9]+: Cannot allocate memory; recording stopped$' map.err ||
	fail "map: unexpected message: $(cat map.err)"
mtrace-dump --stats --json map.trace.* 2>map.dump.err >map.json || fail "$(cat map.dump.err)"
grep -q '"stacks":0,"modules":0,"helper_cpu_ns":[0-9]*,"stopped_early":{"reason":"a window could not be mapped","code":5,' map.json ||
	fail "map: the trace does not say a mapping failed: $(head -c 400 map.json)"
# Three mappings succeeded; one of them may be a window the helper thread
# prepared ahead that recording stopped before using (padding, not counted).
windows=$(sed -n 's/.*"windows":\([0-9]*\),.*/\1/p' map.json)
[ "$windows" -ge 2 ] && [ "$windows" -le 3 ] || fail "map: $windows windows, expected 2 or 3"
# A claimed window left in the file would be warned of as never written.
expect_eq "map: mtrace-dump warnings" 1 "$(wc -l <map.dump.err)"

# A limit below the 4096-byte header: no trace at all, and no empty file.
set +e
prlimit --fsize=2048 -- env MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$t_dir/tiny.trace" \
	LD_PRELOAD="$MTRACECTL_LIB" "$storm" "$t_dir/tiny.log" $args >tiny.out 2>tiny.err
rc=$?
set -e
expect_eq "tiny: exit status" 0 "$rc"
cmp -s untraced.out tiny.out || fail "tiny: output differs from untraced"
expect_eq "tiny: stderr lines" 1 "$(wc -l <tiny.err)"
grep -Eq '^mtrace: cannot create .*/tiny\.trace\.[0-9]+: the file size limit \(ulimit -f\) of 2048 bytes is reached; not recording$' tiny.err ||
	fail "tiny: unexpected message: $(cat tiny.err)"
[ -z "$(ls tiny.trace* 2>/dev/null)" ] || fail "tiny: a file was left: $(ls -l tiny.trace*)"

# trace2wl under a limit its workload passes: one line naming the file, no
# signal, nothing left.
expect_fail_with '^trace2wl: big\.wl: .*File too large$' \
	prlimit --fsize=65536 -- trace2wl big.wl whole.trace.*
for f in big.wl big.wl.*; do
	[ ! -e "$f" ] || fail "$f left behind by trace2wl under the limit"
done
# trace_run's timeline the same; its stderr goes through a pipe, which the
# limit does not cut.
(
	set +e
	prlimit --fsize=16 -- trace_run --timeline=tl.csv whole.wl 2>&1 >/dev/null
	echo "exit $?"
) | cat >tl.err
expect_eq "trace_run's error and status under the limit" \
	"trace_run: --timeline: writing tl.csv: File too large exit 1" "$(echo $(cat tl.err))"
[ ! -e tl.csv ] || fail "a partial timeline was left behind"
pass
