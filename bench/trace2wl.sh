#!/bin/sh
# trace2wl.sh - how fast trace2wl converts and how much memory it needs, as
# the trace grows.
#
# Generates traces of 1, 10 and 100 million calls with bench/gen_trace (four
# threads in bursts, a realistic size mix, a fixed live set of 16384 blocks,
# 1 call in 32 on another thread's block), converts each on one core, and
# prints wall and CPU time, calls per second, peak RSS and the workload's
# bytes per call.  Peak RSS must not grow with length for a fixed live set,
# so the last line compares the largest trace's RSS with the smallest's.
# Each size runs --reps times and the fastest run is kept (the machine's
# noise only ever slows a run down).  This is a benchmark: nothing here
# fails the build; targets are printed as PASS or MISS.
#
# Usage: bench/trace2wl.sh [--quick] [--reps N] [--builddir DIR] [--dir DIR]
set -eu

srcdir=$(cd "$(dirname "$0")/.." && pwd)
sizes="1000000 10000000 100000000"
reps=3
builddir=
dir=${TMPDIR:-/tmp}

usage() {
	cat <<EOF
Usage: bench/trace2wl.sh [OPTION]...
Converts generated traces of 1, 10 and 100 million calls and prints calls/s
on one core, peak RSS and workload bytes per call, then PASS or MISS for the
targets of issue #3 (>= 30 M calls/s, peak RSS independent of length).

  --quick         1 and 10 million calls only, one run each
  --reps N        runs per size; the fastest is kept (default 3)
  --builddir DIR  configured build tree (default: the source tree if it is
                  configured, else \${TMPDIR:-/tmp}/mtk-bench-build)
  --dir DIR       where traces and workloads go (default \${TMPDIR:-/tmp});
                  the 100 M trace needs about 1.3 GB
  -h, --help      show this help
EOF
}

while [ $# -gt 0 ]; do
	case $1 in
	--quick) sizes="1000000 10000000"; reps=1 ;;
	--reps) reps=$2; shift ;;
	--builddir) builddir=$2; shift ;;
	--dir) dir=$2; shift ;;
	-h | --help) usage; exit 0 ;;
	*) echo "trace2wl.sh: unknown option '$1'; try --help" >&2; exit 2 ;;
	esac
	shift
done

if [ -z "$builddir" ]; then
	if [ -f "$srcdir/Makefile" ]; then
		builddir=$srcdir
	else
		builddir=${TMPDIR:-/tmp}/mtk-bench-build
		mkdir -p "$builddir"
		[ -f "$builddir/Makefile" ] || (cd "$builddir" && "$srcdir/configure" -q)
	fi
fi
make -C "$builddir" -s converter/trace2wl bench/gen_trace >/dev/null
gen=$builddir/bench/gen_trace
conv=$builddir/converter/trace2wl
[ -x /usr/bin/time ] || { echo "trace2wl.sh: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }
pin=
command -v taskset >/dev/null && pin="taskset -c 0"

work=$(mktemp -d "$dir/bench-trace2wl.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "trace2wl conversion, $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
printf '%12s %10s %9s %9s %12s %10s %9s\n' calls "trace MB" "wall s" "cpu s" "M calls/s" "peak RSS" "B/call"
first_rss=
last_rss=
best_rate=0
for n in $sizes; do
	"$gen" "$work/t.mtrace" "$n"
	tmb=$(($(stat -c %s "$work/t.mtrace") / 1048576))
	best=
	i=0
	while [ "$i" -lt "$reps" ]; do
		rm -f "$work/t.wl"
		/usr/bin/time -f '%e %U %S %M' -o "$work/time" $pin "$conv" --json "$work/t.wl" "$work/t.mtrace" >"$work/sum"
		read -r wall user sys rss <"$work/time"
		if [ -z "$best" ] || awk "BEGIN { exit !($wall < $best) }"; then
			best=$wall
			cpu=$(awk "BEGIN { printf \"%.2f\", $user + $sys }")
			best_rss=$rss
		fi
		i=$((i + 1))
	done
	bpc=$(sed -n 's/.*"bytes_per_call":\([0-9.]*\).*/\1/p' "$work/sum")
	rate=$(awk "BEGIN { printf \"%.1f\", $n / $best / 1e6 }")
	printf '%12s %10s %9s %9s %12s %8s KB %9s\n' "$n" "$tmb" "$best" "$cpu" "$rate" "$best_rss" "$bpc"
	[ -n "$first_rss" ] || first_rss=$best_rss
	last_rss=$best_rss
	best_rate=$rate
	rm -f "$work/t.mtrace" "$work/t.wl"
done

ratio=$(awk "BEGIN { printf \"%.2f\", $last_rss / $first_rss }")
verdict() { if awk "BEGIN { exit !($1) }"; then echo PASS; else echo MISS; fi; }
echo "target >= 30 M calls/s on the largest trace: $best_rate M calls/s  $(verdict "$best_rate >= 30")"
echo "target peak RSS independent of length: largest/smallest = $ratio  $(verdict "$ratio <= 1.5")"
