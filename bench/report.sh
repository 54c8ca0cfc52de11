#!/bin/sh
# report.sh - how fast mtrace-report reads a trace recorded with stacks and
# how much memory it needs, beside heaptrack_print on heaptrack's file of
# the same program and calls, in the same run.
#
# Records bench/alloc_heavy (a bounded live set, 5-frame stacks) with
# MTRACE_STACKS=64 and under heaptrack, at each size, then runs
# mtrace-report (every section: two streaming passes) and heaptrack_print
# (its default report) on the results and prints wall and user time, peak
# RSS and records per second.  The peak RSS of mtrace-report must not grow
# with the trace's length for a fixed live set; the target of issue #13 is
# a 100 M-call trace in under a minute, which the line after the table
# extrapolates from the largest size measured.  This is a benchmark: nothing
# here fails the build.
#
# Usage: bench/report.sh [--quick] [--builddir DIR] [--dir DIR]
set -eu

me=report.sh
srcdir=$(cd "$(dirname "$0")/.." && pwd)
sizes="1000000 10000000"
builddir=
dir=${TMPDIR:-/tmp}

usage() {
	cat <<USAGE
Usage: bench/report.sh [OPTION]...
Times mtrace-report and heaptrack_print on recordings of bench/alloc_heavy of
1 and 10 million calls (one thread), and prints seconds, peak RSS and records/s.

  --quick         1 million calls only
  --builddir DIR  configured build tree (default: the source tree if it is
                  configured, else \${TMPDIR:-/tmp}/mtk-bench-build)
  --dir DIR       where traces go (default \${TMPDIR:-/tmp}; 10 M calls take
                  about 90 MB, heaptrack's file about 20 MB)
  -h, --help      show this help
USAGE
}

# shellcheck source=common.sh
. "$srcdir/bench/common.sh"

while [ $# -gt 0 ]; do
	case $1 in
	--quick) sizes=1000000 ;;
	--builddir) [ $# -ge 2 ] || die "--builddir needs a value"; builddir=$2; shift ;;
	--dir) [ $# -ge 2 ] || die "--dir needs a value"; dir=$2; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; die "unknown option '$1'" ;;
	esac
	shift
done

use_builddir
make -s -C "$B" -j2 bench/alloc_heavy sdt/libmtracectl.la tools/mtrace-report >&2 ||
	die "cannot build in $B"
command -v heaptrack >/dev/null && command -v heaptrack_print >/dev/null ||
	echo "$me: heaptrack is not installed (scripts/deps.sh bench): only mtrace-report is timed" >&2
work=$(mktemp -d "$dir/mtk-report-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "mtrace-report and heaptrack_print on bench/alloc_heavy, 1 thread; load average" \
	"at start: $(cut -d' ' -f1 /proc/loadavg)"
printf '%-16s %12s %8s %8s %10s %14s\n' reader records wall_s user_s max_rss_kb records/user_s
for n in $sizes; do
	env MTRACE_STACKS=64 MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$work/t" \
		LD_PRELOAD="$B/sdt/.libs/libmtracectl.so" "$B/bench/alloc_heavy" --calls "$n" >/dev/null
	trace=$(ls "$work"/t.*)
	recs=$("$B/tools/mtrace-dump" --stats --json "$trace" | grep -o '"records":[0-9]*' | head -n 1 | cut -d: -f2)
	timed mtrace-report "$recs" "$B/tools/mtrace-report" "$trace"
	rm -f "$trace"
	if command -v heaptrack_print >/dev/null; then
		heaptrack -o "$work/ht" "$B/bench/alloc_heavy" --calls "$n" >/dev/null 2>&1
		timed heaptrack_print "$recs" heaptrack_print "$(ls "$work"/ht.*)"
		rm -f "$work"/ht.*
	fi
done
if [ -s "$work/last.mtrace-report" ]; then
	read -r recs user <"$work/last.mtrace-report"
	awk -v r="$recs" -v u="$user" 'BEGIN {
		s = u * 100000000 / r
		printf "100 M calls at this rate: %.0f s of CPU (target < 60 s): %s\n", s, s < 60 ? "PASS" : "MISS" }'
fi
