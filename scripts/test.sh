#!/bin/sh
# test.sh - from a clean checkout: install what is missing, build, run every
# test, and print one closing line "tests: N passed, N failed, N skipped".
# Skipped tests are listed with the reason the machine gave.  When they
# pass, `make distcheck` builds the release tarball and runs them again from
# it, so a file missing from the tarball fails here, not for a user; its
# failure counts as one in the closing line, named "(make distcheck)".
# Then the suite runs again against sanitizer builds (scripts/sanitize.sh:
# ASan+UBSan, the recorder with UBSan, trace_run with TSan) and every fuzz
# target runs for FUZZ_SECONDS (default 30; scripts/fuzz.sh); each of their
# tests and targets counts in the closing line (docs/RELIABILITY.md).
set -eu
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

scripts/deps.sh test
[ -x configure ] || autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
[ -f Makefile ] || ./configure --quiet
make -j"$jobs" >/dev/null

status=0
make -j"$jobs" check || status=$?

log=test-suite.log
count() { sed -n "s/^# $1: *//p" "$log" | head -1; }
# add_stage LOG NAME: adds the closing "NAME: N passed, N failed, N skipped"
# of a stage's LOG to the totals, shows its skips, and all of it if
# something failed (a stage that broke before its closing line: 1 failed).
add_stage() {
	line=$(grep "^$2: [0-9]* passed, [0-9]* failed" "$1" | tail -1)
	grep -h '^\(asan \|ubsan \|tsan \)\?SKIP: ' "$1" || true
	if [ -z "$line" ]; then
		cat "$1"
		failed=$((failed + 1)) failed_note="$failed_note ($2 broke)"
		return
	fi
	set -- "$1" $(echo "$line" | sed 's/[^0-9]\+/ /g')
	pass=$((pass + $2)) failed=$((failed + $3)) skip=$((skip + ${4:-0}))
	[ "$3" -eq 0 ] || cat "$1"
}
if [ -f "$log" ]; then
	for f in $(find tests -name '*.log' ! -name test-suite.log | sort); do
		grep -h '^SKIP: ' "$f" || true
	done
	pass=$(count PASS) fail=$(count FAIL) err=$(count ERROR) xpass=$(count XPASS) skip=$(count SKIP)
	failed=$((fail + err + xpass)) failed_note=
	[ "$failed" -eq 0 ] || cat "$log"
	[ "$failed" -eq 0 ] || status=1
	if [ "$status" -eq 0 ] && ! make -j"$jobs" distcheck >distcheck.log 2>&1; then
		tail -n 30 distcheck.log
		echo "make distcheck failed: the tarball is incomplete or its tests fail (distcheck.log)"
		status=1
		failed=$((failed + 1)) failed_note=" (make distcheck)"
	fi
	scripts/sanitize.sh >sanitize.log 2>&1 || status=1
	add_stage sanitize.log sanitize
	scripts/fuzz.sh "${FUZZ_SECONDS:-30}" >fuzz.log 2>&1 || status=1
	add_stage fuzz.log fuzz
	echo "tests: $pass passed, $failed failed$failed_note, $skip skipped"
else
	echo "tests: 0 passed, 1 failed (the build or the harness broke before any test ran)"
	status=1
fi
exit $status
