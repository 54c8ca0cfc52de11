#!/bin/sh
# export.sh - how fast mtrace-report --export turns real programs' traces
# into tables (issue #16's target: 10 M calls per second per core), on the
# real-program corpus of bench/real.sh (bench/real_programs.sh).
#
# Each program is recorded once with mtrace-record --no-children; then,
# on the same trace in the same run, mtrace-report --export of this build
# (and of --baseline's build when given, for a before/after side by side)
# and mtrace-report --leaks (whose peak RSS is the export's memory bound:
# both hold the live set).  "Per core" is calls over CPU time (user + sys,
# all threads: the export compresses in a thread per table); wall time is
# printed beside it.  A last row exports every trace at once with --jobs=2.
# The floor column is the compressor alone: the tables' CSV compressed
# again by ISA-L's igzip -1 (Debian package isal), the same library and
# level as the export, so calls over its CPU time is the most any gzip CSV
# export of these rows could reach on this machine.  The igzip command
# searches a 32 KiB window, the export only the last 512 bytes (8-15% less
# time for these rows): the floor is that much too low.
# A benchmark: nothing here fails the build.
#
# Usage: bench/export.sh [--quick] [--only LIST] [--baseline DIR] [--builddir DIR] [--dir DIR]
set -eu

me=export.sh
srcdir=$(cd "$(dirname "$0")/.." && pwd)
. "$srcdir/bench/common.sh"
. "$srcdir/bench/real_programs.sh"

usage() {
	cat <<EOF
Usage: bench/export.sh [OPTION]...
Records programs of the real-program corpus and times mtrace-report --export
on each trace: calls per CPU second (user + sys) against the target of 10 M,
wall time, peak RSS beside mtrace-report --leaks's, bytes written.

  --quick         inputs divided by 4
  --only LIST     programs (comma-separated; default python,perl,sqlite) of:
                  $corpus
  --baseline DIR  also time the mtrace-report of this configured build tree
                  (e.g. a build of main), on the same traces, for before/after
  --builddir DIR  configured build tree measured (default: the source tree if
                  it is configured, else \${TMPDIR:-/tmp}/mtk-bench-build)
  --dir DIR       where traces and tables go (default \${TMPDIR:-/tmp}; the
                  python trace takes about 125 MB, its tables about 400 MB)
  -h, --help      show this help

Columns:
  calls           records in the trace (mtrace-dump --stats)
  wall s          the export's elapsed time
  cpu s           its user + sys time, all threads
  M/cpu s         million calls per CPU second: the target's "per core"
  M/wall s        million calls per elapsed second
  rss MB          the export's peak RSS; leaks MB: mtrace-report --leaks's
  CSV B/call      bytes of CSV (before gzip) per call, all tables
  MB out          the gzip CSV written
  gz B/c          bytes of gzip CSV per call
  floor M/cpu s   calls per CPU second of igzip -1 alone on the same CSV
                  (the ceiling set by compression, within 8-15%: the
                  export's 512-byte window is faster; - without igzip)
  target          PASS when M/cpu s is 10 or more, else MISS
EOF
}

scale=1
only=python,perl,sqlite
builddir=
baseline=
dir=${TMPDIR:-/tmp}
while [ $# -gt 0 ]; do
	case $1 in
	--quick) scale=4 ;;
	--only) [ $# -ge 2 ] || die "--only needs a list"; only=$2; shift ;;
	--only=*) only=${1#--only=} ;;
	--baseline) [ $# -ge 2 ] || die "--baseline needs a directory"; baseline=$2; shift ;;
	--baseline=*) baseline=${1#--baseline=} ;;
	--builddir) [ $# -ge 2 ] || die "--builddir needs a directory"; builddir=$2; shift ;;
	--builddir=*) builddir=${1#--builddir=} ;;
	--dir) [ $# -ge 2 ] || die "--dir needs a directory"; dir=$2; shift ;;
	--dir=*) dir=${1#--dir=} ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown option '$1'; try --help" ;;
	esac
	shift
done

say() { echo "$me: $*" >&2; }

pick_programs --only "$only"
[ -d "$dir" ] && [ -w "$dir" ] || die "--dir: '$dir' is not a writable directory"
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (Debian package time; scripts/deps.sh bench)"
command -v igzip >/dev/null || say "no igzip (Debian package isal; scripts/deps.sh bench): no floor column"
if [ -n "$baseline" ]; then
	[ -x "$baseline/tools/mtrace-report" ] || die "--baseline: no tools/mtrace-report in '$baseline'"
	baseline=$(cd "$baseline" && pwd)
fi

use_builddir
make -s -C "$B" -j2 sdt/libmtracectl.la tools/mtrace-record tools/mtrace-report tools/mtrace-dump >&2 ||
	die "cannot build the tools in $B"
export MTRACE_LIBDIR="$B/sdt/.libs"

work=$(mktemp -d "$dir/mtk-export.XXXXXX")
work=$(cd "$work" && pwd)
trap 'rm -rf "$work"' EXIT

# run LABEL CMD...: CMD under /usr/bin/time; "WALL USER SYS MAXRSS_KB" in
# $work/LABEL.time.  Fails as CMD does.
run() {
	label=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$work/$label.time" "$@" >"$work/$label.out" \
		2>"$work/$label.err" || { say "$label failed: $(tail -n 2 "$work/$label.err")"; return 1; }
}

# row NAME CALLS LABEL LEAKS_LABEL TABLES: one line of the table.
row() {
	read -r wall user sys rss <"$work/$3.time"
	leaks_kb=-
	[ -n "$4" ] && leaks_kb=$(awk '{ print $4 }' "$work/$4.time")
	csv=$(find "$5" -name '*.csv.gz' -exec cat {} + | gzip -dc | wc -c)
	out=$(find "$5" -name '*.csv.gz' -exec cat {} + | wc -c)
	floor=-
	if command -v igzip >/dev/null; then
		find "$5" -name '*.csv.gz' -exec cat {} + | gzip -dc |
			/usr/bin/time -f '%U %S' -o "$work/floor.time" igzip -1 -c >/dev/null
		floor=$(awk -v c="$2" '{ printf "%.2f", c / ($1 + $2) / 1e6 }' "$work/floor.time")
	fi
	awk -v n="$1" -v c="$2" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" -v l="$leaks_kb" \
		-v csv="$csv" -v out="$out" -v floor="$floor" 'BEGIN {
		cpu = u + s
		rate = cpu > 0 ? c / cpu / 1e6 : 0
		printf "%-16s %10d %7.2f %7.2f %8.2f %9.2f %7.0f %8s %7.1f %7.0f %6.1f %11s %6s\n", n, c, w,
			cpu, rate, (w > 0 ? c / w / 1e6 : 0), r / 1024,
			(l == "-" ? "-" : sprintf("%.0f", l / 1024)), csv / c, out / 1048576, out / c, floor,
			(rate >= 10 ? "PASS" : "MISS") }'
}

traces='' total=0
for p in $programs; do
	miss=$(missing_"$p")
	[ -z "$miss" ] || { say "$p skipped: missing $miss"; continue; }
	mkdir -p "$work/$p"
	say "$p: recording ($(about_"$p"))"
	(cd "$work/$p" && setup_"$p" >setup.log 2>&1 &&
		run_"$p" "$B/tools/mtrace-record" -q --no-children -o "$work/$p/t.mtr" -- >/dev/null 2>&1) ||
		{ say "$p: recording failed"; continue; }
	# the trace's total comes first, before each thread's
	calls=$("$B/tools/mtrace-dump" --stats --json "$work/$p/t.mtr" | grep -o '"records":[0-9]*' |
		head -n 1 | cut -d: -f2)
	echo "$p $calls" >>"$work/calls"
	traces="$traces $work/$p/t.mtr"
	total=$((total + calls))
done
[ -n "$traces" ] || die "no program could be recorded"

echo "mtrace-report --export on the real-program corpus; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-16s %10s %7s %7s %8s %9s %7s %8s %7s %7s %6s %11s %6s\n' trace calls wall_s cpu_s M/cpu_s \
	M/wall_s rss_MB leaks_MB CSV_B/c MB_out gz_B/c floor_M/cpu target
while read -r p calls; do
	say "$p: exporting"
	run "$p.leaks" "$B/tools/mtrace-report" --leaks "$work/$p/t.mtr" || continue
	if [ -n "$baseline" ]; then
		rm -rf "$work/tables"
		run "$p.base" "$baseline/tools/mtrace-report" --export="$work/tables" "$work/$p/t.mtr" &&
			row "$p (baseline)" "$calls" "$p.base" "$p.leaks" "$work/tables"
	fi
	rm -rf "$work/tables"
	run "$p.export" "$B/tools/mtrace-report" --export="$work/tables" "$work/$p/t.mtr" &&
		row "$p" "$calls" "$p.export" "$p.leaks" "$work/tables"
done <"$work/calls"
rm -rf "$work/tables"
# shellcheck disable=SC2086 # one argument per trace
run all "$B/tools/mtrace-report" --export="$work/tables" --jobs=2 $traces &&
	row "all, --jobs=2" "$total" all "" "$work/tables"
