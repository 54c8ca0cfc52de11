#!/bin/sh
# sanitize.sh - the suite again against sanitizer builds; scripts/test.sh
# runs it after distcheck, in a configured tree.
#
# Usage: scripts/sanitize.sh [STAGE]...   (default: asan ubsan tsan)
#   asan   tools, lib/ and test programs with ASan+UBSan (gcc): every test
#          that does not put the recorder into a process, less the
#          exclusions of docs/RELIABILITY.md
#   ubsan  everything with UBSan in trap mode (no runtime to preload): the
#          tests that put the recorder into processes (LD_PRELOAD, linked)
#   tsan   trace_run with TSan replaying the multi-threaded workloads: the
#          replay tests through MT_TEST_PATH, a recorded run_mt, and
#          synthetic ones (tsan_workloads)
# Builds live in build-san/ (configured from `make distdir`, so the trees
# are what ships).  Prints "PASS: ..." or "FAIL: ..." per test and ends
# with "sanitize failed: NAME, NAME..." where something failed, then
# "sanitize: N passed, N failed, N skipped"; exits 1 on any failure.
set -eu
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
top=$PWD
san=$top/build-san
stages=${*:-asan ubsan tsan}

# Sanitizer reports end the process with a status no test expects.  The
# replay makes the calls a workload holds, failing ones included (a 2^62
# byte malloc is a call programs make), and leaves the blocks the program
# never freed: neither is a fault of ours (scripts/lsan.supp).
export ASAN_OPTIONS="allocator_may_return_null=1:detect_leaks=1:abort_on_error=0"
export LSAN_OPTIONS="suppressions=$top/scripts/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export TSAN_OPTIONS="allocator_may_return_null=1:halt_on_error=1:exitcode=66"

# Tests that put the recorder into a process: the ASan build cannot (a
# preloaded ASan library breaks uninstrumented programs, and the recorder
# interposing malloc in an ASan program fights ASan's own), so they run
# in the UBSan build.
# recorder_tests DIR: those tests, of the tree at DIR.
recorder_tests() {
	grep -lE 'MTRACE_LIB|MTRACECTL_LIB|LD_PRELOAD|mtrace-record|diag-bt\.sh|rec_api|report-lib\.sh' \
		"$1"/tests/t-*.sh | sed "s|^$1/||"
}
# Tests the ASan build cannot run; each reason is in docs/RELIABILITY.md.
asan_excluded="tests/t-conv-many-threads.sh tests/t-run-threads.sh tests/t-run-options.sh
	tests/t-run-huge.sh tests/t-run-watchdog.sh tests/t-diag-glibc-events.sh
	tests/t-run-timer.sh tests/t-run-repeat.sh tests/t-run-footprint.sh tests/t-run-offcpu.sh
	tests/t-fmt-threads.sh tests/t-run-chain.sh"
# Replay tests run with the TSan trace_run: those whose workloads have
# threads and whose assertions do not measure trace_run itself (TSan
# multiplies its memory) or preload another allocator (TSan owns malloc).
tsan_tests="tests/t-run-handoff.sh tests/t-run-order.sh tests/t-run-every.sh"

passed=0 failed=0 skipped=0 failed_names=
# note_failure NAME: one more failure, named in the closing lines.
note_failure() {
	failed=$((failed + 1))
	failed_names="${failed_names:+$failed_names, }$1"
}
# count DIR STAGE: adds DIR's test-suite.log to the totals; prints what
# failed.
count() {
	log=$1/test-suite.log
	if [ ! -f "$log" ]; then
		echo "FAIL: $2 (no test-suite.log: the build or the harness broke)"
		note_failure "$2 (broke)"
		return
	fi
	n() { sed -n "s/^# $1: *//p" "$log" | head -1; }
	passed=$((passed + $(n PASS))) skipped=$((skipped + $(n SKIP)))
	bad=$(($(n FAIL) + $(n ERROR) + $(n XPASS)))
	grep -h '^SKIP: ' "$1"/tests/*.log 2>/dev/null | sed "s/^/$2 /" || true
	if [ "$bad" -ne 0 ]; then
		for t in $(sed -n 's/^\(FAIL\|ERROR\|XPASS\): \([^ ]*\)$/\2/p' "$log"); do
			echo "$2 FAIL: $t"
			note_failure "$2 $t"
		done
		cat "$log"
	fi
}

# configure_in DIR CPPFLAGS CFLAGS LDFLAGS: a fresh build tree from the
# distdir, built once, so without dependency tracking.
configure_in() {
	rm -rf "$san/$1"
	mkdir -p "$san/$1"
	(cd "$san/$1" && ../src/configure --quiet --disable-dependency-tracking \
		CPPFLAGS="$2" CFLAGS="$3" CXXFLAGS="$3" LDFLAGS="$4")
}

# check_in DIR TESTS... [VAR=VALUE]: builds DIR and runs TESTS there.
check_in() {
	d=$1
	shift
	tests= vars=
	for a; do
		case $a in *=*) vars="$vars $a" ;; *) tests="$tests $a" ;; esac
	done
	rm -f "$san/$d/test-suite.log"
	# shellcheck disable=SC2086
	(cd "$san/$d" && make -j"$jobs" >/dev/null 2>build.err &&
		make -j"$jobs" check TESTS="$tests" $vars >check.out 2>&1) ||
		tail -n 20 "$san/$d/build.err"
}

# tsan_replay NAME WORKLOAD OPTION...: one test: the TSan trace_run
# replays WORKLOAD with OPTIONs, without a report or a failure.
tsan_replay() {
	name=$1 wl=$2
	shift 2
	if "$san/tsan/trace_run/trace_run" "$@" "$wl" >"$wl.out" 2>&1; then
		echo "PASS: tsan $name"
		passed=$((passed + 1))
	else
		echo "FAIL: tsan $name"
		cat "$wl.out"
		note_failure "tsan $name"
	fi
}

# turn_threads: a conv_mktrace script of 300 threads run one after another,
# a main thread calling between them: replayed in turn on a replay thread
# or two (trace_run/replay.c's chains), beside the main thread's.
turn_threads() {
	awk 'BEGIN {
		ts = 100
		for (i = 2; i <= 301; i++) {
			printf "1 %d malloc 24 = 0x%x\n", ts++, 65536 + 64 * i
			printf "%d %d malloc 16 = 0x%x\n", i, ts++, 1048576 + 32 * i
			printf "%d %d free 0x%x\n", i, ts++, 1048576 + 32 * i
			printf "1 %d free 0x%x\n", ts++, 65536 + 64 * i
		}
	}'
}

# tsan_workloads: a recorded multi-threaded program (run_mt: 4 producers
# hand blocks to 4 consumers) replayed as recorded and with the threads
# held only by the sync points; 500 threads starting at once; a timed
# producer and consumer replayed at the recorded pace; threads in turn.
tsan_workloads() {
	d=$san/tsan/workloads
	rm -rf "$d"
	mkdir -p "$d"
	u=$san/ubsan
	if MTRACE_CTL_FILE="$d/mt" MTRACE_CTL_QUIET=1 LD_PRELOAD="$u/sdt/.libs/libmtracectl.so" \
		"$u/tests/run_mt" >/dev/null && "$u/converter/trace2wl" "$d/mt.wl" "$d"/mt.* >/dev/null &&
		"$u/tests/run_synth" busy "$d/busy.wl" 500 >/dev/null &&
		"$u/tests/run_synth" prodcons "$d/prodcons.wl" 200 >/dev/null &&
		turn_threads | "$u/tests/conv_mktrace" "$d/turn.mtrace" &&
		"$u/converter/trace2wl" "$d/turn.wl" "$d/turn.mtrace" >/dev/null; then
		tsan_replay "run_mt" "$d/mt.wl"
		tsan_replay "run_mt --window=0" "$d/mt.wl" --window=0
		tsan_replay "run_mt --unpaced" "$d/mt.wl" --unpaced
		tsan_replay "500 busy threads" "$d/busy.wl"
		tsan_replay "prodcons --pace" "$d/prodcons.wl" --pace
		tsan_replay "300 threads in turn" "$d/turn.wl"
	else
		echo "FAIL: tsan workloads: recording run_mt or writing the workloads failed"
		note_failure "tsan workloads"
	fi
}

rm -rf "$san/src"
mkdir -p "$san"
make distdir distdir="$san/src" >/dev/null
all=$(make -s list-tests)
recorder=$(recorder_tests "$san/src")

# configure_stage STAGE: STAGE's tree, configured (configure_in).
configure_stage() {
	case $1 in
	asan)
		configure_in asan "" \
			"-g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
			"-fsanitize=address,undefined"
		;;
	ubsan)
		# In CPPFLAGS, which compiles see and links do not: given to a
		# link, -fsanitize=undefined makes libtool link libubsan (and so
		# libstdc++) into the recorder, which then loads them into every
		# traced program, and trap mode needs no runtime at all.
		configure_in ubsan "-fsanitize=undefined -fsanitize-undefined-trap-on-error" "-g -O1" ""
		;;
	tsan)
		configure_in tsan "" "-g -O1 -fsanitize=thread" "-fsanitize=thread"
		# the stage runs the UBSan tree's other programs (plain, alone)
		case " $stages " in *" ubsan "*) ;; *) [ -f "$san/ubsan/Makefile" ] || configure_in ubsan "" "" "" ;; esac
		;;
	esac
}
# Each configure script is 16 s of compiler checks on the 2-core VM, one
# after another; the trees are configured side by side (the stage took
# 529-548 s so, against 555 s configured in turn: docs/RELIABILITY.md).
pids=
for stage in $stages; do
	configure_stage "$stage" &
	pids="$pids $!"
done
for pid in $pids; do
	wait "$pid" || true
done

for stage in $stages; do
	case $stage in
	asan)
		sel=
		for t in $all; do
			case " $(echo $recorder $asan_excluded) " in *" $t "*) ;; *) sel="$sel $t" ;; esac
		done
		check_in asan $sel
		count "$san/asan" "asan"
		;;
	ubsan)
		# shellcheck disable=SC2086
		check_in ubsan $recorder
		count "$san/ubsan" "ubsan"
		;;
	tsan)
		(cd "$san/tsan" && make -j"$jobs" trace_run/trace_run >/dev/null 2>build.err) ||
			tail -n 20 "$san/tsan/build.err"
		# The other programs the tests run are the UBSan tree's.
		# shellcheck disable=SC2086
		check_in ubsan $tsan_tests MT_TEST_PATH="$san/tsan/trace_run"
		count "$san/ubsan" "tsan"
		tsan_workloads
		;;
	*)
		echo "sanitize.sh: unknown stage '$stage' (asan, ubsan or tsan)" >&2
		exit 2
		;;
	esac
done
[ -z "$failed_names" ] || echo "sanitize failed: $failed_names"
echo "sanitize: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
