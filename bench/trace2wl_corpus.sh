#!/bin/sh
# trace2wl_corpus.sh - trace2wl's speed and memory on the real-program
# corpus (bench/real_programs.sh), and against another build's trace2wl.
#
# bench/real.sh converts each corpus trace once, beside everything else it
# measures; this script measures the conversion alone, which issue #11
# judges: calls per CPU second (user + sys, the "per core" figure; wall
# time beside it), peak RSS against its bound (32 MiB + 40 B per block
# live at the trace's peak), and with --callgrind instructions per record,
# which do not depend on the machine's load.  Each program is recorded
# once (mtrace-record --no-children), then converted --reps times by each
# trace2wl measured, the runs of the two interleaved, and the fastest run
# of each is kept (the machine's noise only ever slows a run down).  With
# --before DIR, DIR's trace2wl converts the same traces and its workloads
# are compared with cmp: they must be byte for byte the same.  It judges
# nothing but prints PASS or MISS against 30 M calls per CPU second.
set -eu

me=trace2wl_corpus.sh
srcdir=$(cd "$(dirname "$0")/.." && pwd)
. "$srcdir/bench/common.sh"
. "$srcdir/bench/real_programs.sh"

usage() {
	cat <<EOF
Usage: bench/trace2wl_corpus.sh [OPTION]...
Records the real-program corpus and converts each trace with trace2wl:
calls per CPU second and per wall second, peak RSS against 32 MiB + 40 B
per block live at the peak, and PASS or MISS against 30 M calls per CPU
second.  A few minutes on a quiet 2-core machine.

  --quick         inputs divided by 4
  --only LIST     only these programs (comma-separated) of: $corpus
  --reps N        conversions per trace and build; the fastest counts (3)
  --before DIR    also convert with DIR's trace2wl (a configured and built
                  tree), interleaved, and cmp the workloads
  --callgrind     also count instructions per record under valgrind
                  (callgrind; slow: about 40 times the conversion)
  --builddir DIR  configured build tree whose tools are measured (default:
                  the source tree if it is configured, else
                  \${TMPDIR:-/tmp}/mtk-bench-build)
  --dir DIR       where inputs, traces and workloads go (\${TMPDIR:-/tmp})
  -h, --help      show this help

Columns: calls; M/cpu s = million calls / (user + sys); M/s = million calls
/ wall time; RSS and bound in MiB; Ir/rec = instructions per record.
EOF
}

scale=1
only=
builddir=
before=
reps=3
cg=0
dir=${TMPDIR:-/tmp}
while [ $# -gt 0 ]; do
	case $1 in
	--quick) scale=4 ;;
	--only) [ $# -ge 2 ] || die "--only needs a list"; only=$2; shift ;;
	--reps) [ $# -ge 2 ] || die "--reps needs a number"; number --reps "$2"; reps=$2; shift ;;
	--before) [ $# -ge 2 ] || die "--before needs a directory"; before=$2; shift ;;
	--callgrind) cg=1 ;;
	--builddir) [ $# -ge 2 ] || die "--builddir needs a directory"; builddir=$2; shift ;;
	--dir) [ $# -ge 2 ] || die "--dir needs a directory"; dir=$2; shift ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown option '$1'; try --help" ;;
	esac
	shift
done
pick_programs --only "$only"
[ -d "$dir" ] && [ -w "$dir" ] || die "--dir: '$dir' is not a writable directory"
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (Debian package time; scripts/deps.sh bench)"
[ "$cg" = 0 ] || command -v valgrind >/dev/null || die "--callgrind: valgrind is missing"
if [ -n "$before" ]; then
	[ -x "$before/converter/trace2wl" ] || die "--before: no $before/converter/trace2wl (build it first)"
	before=$(cd "$before" && pwd)
fi

use_builddir
make -s -C "$B" -j2 sdt/libmtracectl.la tools/mtrace-record converter/trace2wl >&2 ||
	die "cannot build the tools in $B"
export MTRACE_LIBDIR=$B/sdt/.libs
work=$(mktemp -d "$dir/mtk-t2w.XXXXXX")
work=$(cd "$work" && pwd)
trap 'rm -rf "$work"' EXIT
machine=$(machine_line "$B" "$work")
load() { cut -d' ' -f1-3 /proc/loadavg; }

# convert WHICH T2W: one conversion of t.mtr by T2W into WHICH.wl; keeps
# the fastest run's "cpu_s wall_s rss_kb" in WHICH.best.
convert() {
	rm -f "$1.wl"
	/usr/bin/time -f '%U %S %e %M' -o "$1.time" "$2" --json "$1.wl" t.mtr >"$1.json" 2>"$1.err" ||
		{ echo "$me: $p: $2 failed: $(tail -n 1 "$1.err")" >&2; return 1; }
	awk -v best="$(cat "$1.best" 2>/dev/null)" '{
		cpu = $1 + $2; split(best, b, " ")
		if (best == "" || cpu < b[1]) printf "%.2f %.2f %d\n", cpu, $3, $4; else print best }' \
		"$1.time" >"$1.new" && mv "$1.new" "$1.best"
}

# instructions COUNT_FILE T2W: instructions per record of T2W on t.mtr.
instructions() {
	valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$2" -f "$work/cg.wl" t.mtr \
		>/dev/null 2>"$work/cg.log" || { echo -; return; }
	recs=$(json_num "$1" records)
	awk -v r="$recs" '/I +refs:/ { gsub(",", "", $NF); printf "%.0f", $NF / r }' "$work/cg.log"
	rm -f "$work/cg.out" "$work/cg.wl"
}

echo "trace2wl on the real-program corpus ($me$([ "$scale" = 1 ] || echo ' --quick')), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "$machine"
echo "load at start: $(load)"
echo "measured: $B/converter/trace2wl$([ -z "$before" ] || echo "; before: $before/converter/trace2wl"); best of $reps"
printf '%-8s %-6s %10s %9s %8s %8s %9s %7s %6s %s\n' program build calls "live peak" "M/cpu s" "M/s" "RSS MiB" bound Ir/rec "30 M/cpu s"
for p in $programs; do
	why=$(missing_"$p")
	[ -z "$why" ] || { echo "$p: skipped: $why is not installed"; continue; }
	mkdir -p "$work/$p"
	cd "$work/$p"
	setup_"$p" >setup.log 2>&1 || { echo "$p: setup failed (see $work/$p/setup.log)"; continue; }
	run_"$p" "$B/tools/mtrace-record" -q --no-children -o "$work/$p/t.mtr" -- >/dev/null 2>rec.err ||
		{ echo "$p: recording failed: $(tail -n 1 rec.err)"; continue; }
	builds=after
	[ -z "$before" ] || builds="before after"
	i=0
	while [ "$i" -lt "$reps" ]; do
		[ -z "$before" ] || convert before "$before/converter/trace2wl" || break
		convert after "$B/converter/trace2wl" || break
		i=$((i + 1))
	done
	[ "$i" = "$reps" ] || continue
	for b in $builds; do
		t2w=$B/converter/trace2wl
		[ "$b" = after ] || t2w=$before/converter/trace2wl
		read -r cpu wall rss <"$b.best"
		calls=$(json_num "$b.json" calls)
		live=$(json_num "$b.json" peak_live)
		ir=-
		[ "$cg" = 0 ] || ir=$(instructions "$b.json" "$t2w")
		verdict=-
		[ "$calls" -lt 100000 ] || verdict=$(awk "BEGIN { print ($calls / ($cpu > 0 ? $cpu : 0.01) >= 30e6) ? \"PASS\" : \"MISS\" }")
		awk -v p="$p" -v b="$b" -v n="$calls" -v l="$live" -v c="$cpu" -v w="$wall" -v r="$rss" \
			-v ir="$ir" -v v="$verdict" 'BEGIN {
			cps = n >= 100000 ? sprintf("%.1f", n / (c > 0 ? c : 0.01) / 1e6) : "-"
			ws = n >= 100000 ? sprintf("%.1f", n / (w > 0 ? w : 0.01) / 1e6) : "-"
			printf "%-8s %-6s %10d %9d %8s %8s %9.1f %7.1f %6s %s\n", p, b, n, l, cps, ws,
				r / 1024, 32 + 40 * l / 1048576, ir, v }'
	done
	if [ -n "$before" ]; then
		cmp -s before.wl after.wl && echo "$p: workloads identical (cmp)" ||
			echo "$p: WORKLOADS DIFFER between the two builds"
	fi
	cd "$work"
	rm -rf "${work:?}/$p"
done
echo "load at end: $(load)"
