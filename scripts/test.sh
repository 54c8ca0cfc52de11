#!/bin/sh
# test.sh - from a clean checkout: install what is missing, build, run every
# test, and print one closing line "tests: N passed, N failed, N skipped",
# the names of what failed in brackets.  Skipped tests are listed with the
# reason the machine gave.  The suite runs once, inside `make distcheck`:
# the release tarball is built, configured out of its (read-only) tree,
# built, every test run from there, then installed and uninstalled, so a
# file missing from the tarball fails here, not for a user, and the tree
# tested is the one that ships.  (Building and testing the checkout as
# well doubled that work, two minutes of CI's budget; `make check` in a
# configured checkout is the quick loop while developing.)  A failure of
# distcheck's other steps counts as one, named "(make distcheck)".
# The sanitizer stages (scripts/sanitize.sh: ASan+UBSan, the recorder with
# UBSan, trace_run with TSan), configured from the same tarball's tree, and
# every fuzz target for FUZZ_SECONDS (default 30; scripts/fuzz.sh) count
# each of their tests and targets in the closing line
# (docs/RELIABILITY.md).  The line before it gives each stage's wall time,
# since CI's budget is 20 minutes.
set -eu
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
# lap NAME: adds "NAME N s", the time since the last lap, to $laps.
laps= lap_start=$(date +%s)
lap() {
	now=$(date +%s)
	laps="$laps${laps:+, }$1 $((now - lap_start)) s"
	lap_start=$now
}

scripts/deps.sh test
[ -x configure ] || autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
[ -f Makefile ] || ./configure --quiet
lap "deps and configure"

# The tests' skip reasons, which distcheck's tree takes with it when it
# passes (tests/lib.sh appends them here).
skips=$PWD/skips.log
: >"$skips"
status=0
MT_SKIP_LOG=$skips make -j"$jobs" distcheck >distcheck.log 2>&1 || status=1
lap "distcheck (build, suite, install)"

# The suite's summary, which automake prints into distcheck.log.
log=distcheck.log
count() { sed -n "s/^# $1: *//p" "$log" | head -1; }
# add_stage LOG NAME: adds the closing "NAME: N passed, N failed, N skipped"
# of a stage's LOG to the totals, shows its skips, and all of it and the
# names its "NAME failed: ..." line gives if something failed (a stage that
# broke before its closing line: 1 failed).
add_stage() {
	stage=$2
	line=$(grep "^$2: [0-9]* passed, [0-9]* failed" "$1" | tail -1)
	grep -h '^\(asan \|ubsan \|tsan \)\?SKIP: ' "$1" || true
	if [ -z "$line" ]; then
		cat "$1"
		failed=$((failed + 1)) failed_note="$failed_note ($2 broke)"
		return
	fi
	set -- "$1" $(echo "$line" | sed 's/[^0-9]\+/ /g')
	pass=$((pass + $2)) failed=$((failed + $3)) skip=$((skip + ${4:-0}))
	[ "$3" -eq 0 ] && return
	cat "$1"
	failed_note="$failed_note ($stage: $(sed -n "s/^$stage failed: *//p" "$1" | tail -1))"
}
# failed_tests SUITE-LOG: the tests that failed in the automake suite
# whose test-suite.log is SUITE-LOG, on one line (its section headings; the
# failed tests' own lines it quotes say "FAIL: name: reason").
failed_tests() {
	[ -f "$1" ] && echo $(sed -n 's/^\(FAIL\|ERROR\|XPASS\): \([^ ]*\)$/\2/p' "$1")
}
pass=$(count PASS)
if [ -z "$pass" ]; then
	tail -n 30 "$log"
	echo "tests: 0 passed, 1 failed (the build or the harness broke before any test ran; $log)"
	exit 1
fi
cat "$skips"
fail=$(count FAIL) err=$(count ERROR) xpass=$(count XPASS) skip=$(count SKIP)
failed=$((fail + err + xpass)) failed_note=
if [ "$failed" -ne 0 ]; then
	# distcheck keeps its tree when it fails
	dlog=$(find . -path '*/_build/sub/test-suite.log' | head -1)
	[ -z "$dlog" ] || cat "$dlog"
	failed_note=" (${dlog:+$(failed_tests "$dlog")})"
elif [ "$status" -ne 0 ]; then
	tail -n 30 "$log"
	echo "make distcheck failed after the suite passed: the tarball does not install, uninstall or clean up ($log)"
	failed=1 failed_note=" (make distcheck)"
fi
scripts/sanitize.sh >sanitize.log 2>&1 || status=1
add_stage sanitize.log sanitize
lap sanitize
scripts/fuzz.sh "${FUZZ_SECONDS:-30}" >fuzz.log 2>&1 || status=1
add_stage fuzz.log fuzz
lap fuzz
echo "time: $laps"
echo "tests: $pass passed, $failed failed$failed_note, $skip skipped"
exit $status
