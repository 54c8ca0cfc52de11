#!/bin/sh
# fuzz.sh - build the libFuzzer targets in fuzz/ with ASan+UBSan and run
# each for SECONDS (default 30), as many side by side as there are
# processors (CI runs them this way).
#
# Usage: scripts/fuzz.sh [SECONDS] [-- LIBFUZZER-OPTIONS...]
#   FUZZ_TARGETS="trace wl log" picks targets; FUZZ_BUILD (default
#   build-fuzz) is where the library and the targets are built; FUZZ_JOBS
#   (default: the processors) is how many targets run at once, each one
#   process, so that each has a processor of its own.
# Each target starts from its checked-in seeds (fuzz/seeds/TARGET) and
# keeps what it learns in FUZZ_BUILD/corpus/TARGET; a crash leaves its input
# in FUZZ_BUILD/crash-* and fails this script.  Ends with the line
# "fuzz: N passed, N failed, 0 skipped", a target being one test, after
# "fuzz failed: fuzz_TARGET..." where one failed.  The library is built from
# the sources directly (not through configure) so that fuzzing needs no
# second configured tree beside the developer's own.
set -eu
cd "$(dirname "$0")/.."
secs=${1:-30}
[ $# -gt 0 ] && shift
[ "${1:-}" = -- ] && shift
targets=${FUZZ_TARGETS:-trace wl log}
out=${FUZZ_BUILD:-build-fuzz}
cc=${CLANG:-clang}

# broke STATUS MESSAGE: fuzzing could not start; one failure in the
# closing line, which scripts/test.sh reads.
broke() {
	echo "fuzz.sh: $2" >&2
	echo "fuzz failed: fuzz.sh (broke)"
	echo "fuzz: 0 passed, 1 failed, 0 skipped"
	exit "$1"
}

command -v "$cc" >/dev/null 2>&1 || broke 2 "$cc not found (scripts/deps.sh test installs it)"

# The library sources the targets need: every lib/*.c (the format library).
mkdir -p "$out/obj" "$out/corpus"
# lib/ needs nothing from configure's config.h but the GNU extensions.
[ -f "$out/config.h" ] || echo '#define _GNU_SOURCE 1' >"$out/config.h"
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
cflags="-std=gnu11 -g -O1 -pthread $san -I$out -Ilib -Isdt -Ifuzz"
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
case $jobs in '' | *[!0-9]* | 0*) broke 2 "FUZZ_JOBS='$jobs' is not a positive number" ;; esac
objs= compiles=
for src in lib/*.c fuzz/fuzz_file.c; do
	o="$out/obj/$(basename "$src" .c).o"
	if [ ! -f "$o" ] || [ "$src" -nt "$o" ] || [ -n "$(find lib fuzz -name '*.h' -newer "$o")" ]; then
		# shellcheck disable=SC2086
		$cc $cflags -fsanitize=fuzzer-no-link -c "$src" -o "$o" &
		compiles="$compiles $!"
	fi
	objs="$objs $o"
done
for pid in $compiles; do
	wait "$pid" || broke 1 "compiling the library for the targets failed"
done

status=0 passed=0 failed=0 failed_names= running= nrunning=0
# reap: waits for the targets in $running ("TARGET:PID ..."), counting each.
reap() {
	for tp in $running; do
		t=${tp%%:*}
		if wait "${tp#*:}"; then
			passed=$((passed + 1))
			grep -h 'stat::number_of_executed_units' "$out/fuzz_$t.log" |
				sed "s/^/fuzz_$t: /" >&2
		else
			tail -n 40 "$out/fuzz_$t.log" >&2
			echo "fuzz.sh: fuzz_$t FAILED (input saved under $out/)" >&2
			status=1 failed=$((failed + 1)) failed_names="$failed_names fuzz_$t"
		fi
	done
	running= nrunning=0
}
for t in $targets; do
	# shellcheck disable=SC2086
	$cc $cflags -fsanitize=fuzzer "fuzz/fuzz_$t.c" $objs -o "$out/fuzz_$t"
	mkdir -p "$out/corpus/$t"
	echo "fuzz.sh: fuzz_$t for ${secs}s" >&2
	"$out/fuzz_$t" -max_total_time="$secs" -print_final_stats=1 \
		-artifact_prefix="$out/" "$@" "$out/corpus/$t" "fuzz/seeds/$t" \
		>"$out/fuzz_$t.log" 2>&1 &
	running="$running $t:$!" nrunning=$((nrunning + 1))
	[ "$nrunning" -lt "$jobs" ] || reap
done
reap
[ -z "$failed_names" ] || echo "fuzz failed:$failed_names"
echo "fuzz: $passed passed, $failed failed, 0 skipped"
exit $status
