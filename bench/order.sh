#!/bin/sh
# order.sh - does a multi-threaded replay keep the program's concurrency?
#
# Records tests/run_mt in the producer/consumer shape of issue #12 (3
# producers malloc messages of 16 B to 16 KiB and pass them through a
# queue of 256 slots to 3 consumers, which free them; 400,000 messages),
# converts it with trace2wl's defaults, and replays it N times as trace_run
# does by default (an allocation waits for the other threads to come within
# the window of its recorded time, and while it would take the live bytes
# past the recorded ideal peak and 1/32) and once --unpaced (the sync
# points alone).  For each replay it prints the Max Ideal RSS against the ideal
# peak trace2wl found in the recorded order, and the replay's wall time
# against the recorded span of calls; the targets: within 10%, in at most
# twice the span.  The corpus's programs of several threads get the same
# table from bench/real.sh.  A benchmark: nothing here fails the build.
#
# A replay that keeps the recorded concurrency hands blocks between threads
# every few microseconds: its time is the processors' it gets.  So each row
# also says how much processor time the rest of the machine took while it
# ran (others s: /proc/stat's busy time less trace_run's user and system
# time, both from start to exit); under --rt that is other real-time work (another
# benchmark at chrt -f 50 keeps a processor to itself) and the kernel's
# 5% for the rest.  --keep saves the workload, --workload replays a saved
# one again: whether a slow replay is the recording's or the run's.
#
# Usage: bench/order.sh [--runs N] [--messages N] [--rt] [--keep FILE]
#        [--workload FILE] [--builddir DIR] [--dir DIR]
set -eu

me=order.sh
srcdir=$(cd "$(dirname "$0")/.." && pwd)
runs=5
rt=
messages=400000
builddir=
dir=${TMPDIR:-/tmp}
keep=
workload=

usage() {
	cat <<USAGE
Usage: bench/order.sh [OPTION]...
Record a producer/consumer program (tests/run_mt -p3 -c3 -q256 -s16384) and
replay it; print each replay's Max Ideal RSS and wall time against the
recording's ideal peak and span.

  --runs N        replays with the default order (default 5)
  --messages N    messages in all (default 400000: 2.8 M calls)
  --rt            record and replay at real-time priority (chrt -f 50, as
                  root), so that other processes on a shared machine cannot
                  delay the threads' wake-ups: a quiet machine's figures,
                  unless other real-time work runs (others s says so)
  --keep FILE     keep the recorded workload as FILE
  --workload FILE replay FILE (a workload order.sh kept) instead of
                  recording one
  --builddir DIR  configured build tree (default: the source tree if it is
                  configured, else \${TMPDIR:-/tmp}/mtk-bench-build)
  --dir DIR       where the trace and workload go (default \${TMPDIR:-/tmp})
  -h, --help      show this help
USAGE
}

# shellcheck source=common.sh
. "$srcdir/bench/common.sh"

while [ $# -gt 0 ]; do
	case $1 in
	--runs) [ $# -ge 2 ] || die "--runs needs a number"; number --runs "$2"; runs=$2; shift ;;
	--runs=*) number --runs "${1#--runs=}"; runs=${1#--runs=} ;;
	--messages) [ $# -ge 2 ] || die "--messages needs a number"; number --messages "$2"; messages=$2; shift ;;
	--messages=*) number --messages "${1#--messages=}"; messages=${1#--messages=} ;;
	--rt) rt="chrt -f 50" ;;
	--keep) [ $# -ge 2 ] || die "--keep needs a file"; keep=$2; shift ;;
	--keep=*) keep=${1#--keep=} ;;
	--workload) [ $# -ge 2 ] || die "--workload needs a file"; workload=$2; shift ;;
	--workload=*) workload=${1#--workload=} ;;
	--builddir) [ $# -ge 2 ] || die "--builddir needs a directory"; builddir=$2; shift ;;
	--builddir=*) builddir=${1#--builddir=} ;;
	--dir) [ $# -ge 2 ] || die "--dir needs a directory"; dir=$2; shift ;;
	--dir=*) dir=${1#--dir=} ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown option '$1'; try --help" ;;
	esac
	shift
done
[ -d "$dir" ] && [ -w "$dir" ] || die "--dir: '$dir' is not a writable directory"
[ -z "$workload" ] || [ -r "$workload" ] || die "--workload: cannot read '$workload'"
[ -z "$workload" ] || [ -z "$keep" ] || die "--keep and --workload: the workload is kept already"

use_builddir
make -s -C "$B" -j2 sdt/libmtracectl.la tests/run_mt converter/trace2wl trace_run/trace_run >&2 ||
	die "cannot build the tools in $B"
work=$(mktemp -d "$dir/mtk-order.XXXXXX")
trap 'rm -rf "$work"' EXIT
machine=$(machine_line "$B" "$work")

per_producer=$((messages / 3))
wl=$work/pc.wl
if [ -n "$workload" ]; then
	wl=$workload
	recorded="$workload (kept)"
	what="a kept recording of tests/run_mt -p3 -c3 -q256 -s16384"
else
	t0=$(date +%s%N)
	$rt env MTRACE_CTL_FILE="$work/pc" MTRACE_CTL_QUIET=1 LD_PRELOAD="$B/sdt/.libs/libmtracectl.so" \
		"$B/tests/run_mt" -p3 -c3 -q256 -s16384 "$per_producer" || die "recording run_mt failed"
	t1=$(date +%s%N)
	"$B/converter/trace2wl" "$work/pc.wl" "$work"/pc.* >"$work/conv" 2>&1 || die "trace2wl: $(cat "$work/conv")"
	recorded="$(sed 's/ -> .*//; s/^trace2wl: //' "$work/conv"), program wall $(awk "BEGIN { printf \"%.2f\", ($t1 - $t0) / 1e9 }") s"
	what="tests/run_mt -p3 -c3 -q256 -s16384 $per_producer"
	[ -z "$keep" ] || cp "$work/pc.wl" "$keep" || die "--keep: cannot write '$keep'"
fi

echo "Replay order: $what ($me${rt:+ --rt}), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "$machine"
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "recorded: $recorded"
# busy: the machine's busy processor time so far, in clock ticks
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8; exit }' /proc/stat; }
hz=$(getconf CLK_TCK)
printf '%s %8s\n' "$(concurrency_header)" "others s"
row() {
	b0=$(busy)
	$rt /usr/bin/time -f '%U %S' -o "$work/cpu" "$B/trace_run/trace_run" --touch=none --json "$@" "$wl" \
		>"$work/run.json" 2>/dev/null || die "trace_run $* failed"
	b1=$(busy)
	printf '%s %8s\n' "$(concurrency_row "$label" "$work/run.json")" \
		"$(awk -v b="$((b1 - b0))" -v hz="$hz" '{ o = b / hz - $1 - $2; printf "%.2f", (o > 0 ? o : 0) }' "$work/cpu")"
}
r=1
while [ "$r" -le "$runs" ]; do
	label="default $r"
	row
	r=$((r + 1))
done
label=--unpaced
row --unpaced
