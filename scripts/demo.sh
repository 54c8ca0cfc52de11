#!/bin/sh
# demo.sh - the kit's main job, end to end, on a real program:
#   record every malloc-family call of PROGRAM (default: ls -l /usr/bin),
#   summarise the trace, convert it to a workload, and replay that workload
#   on glibc and on every other allocator installed, side by side.
# From a clean checkout it installs what is missing and builds first.
#
# Usage: scripts/demo.sh [-- PROGRAM [ARGS...]]
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
jobs=$(nproc 2>/dev/null || echo 2)

[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || set -- ls -l /usr/bin

scripts/deps.sh test
[ -x configure ] || autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
[ -f Makefile ] || ./configure --quiet
make -j"$jobs" >/dev/null

out=$top/demo-out
mkdir -p "$out"
trace=$out/program.mtr
wl=$out/program.wl
export MTRACE_LIBDIR="$top/sdt/.libs"

step() { printf '\n$ %s\n' "$*"; "$@"; }

echo "== 1. record: $*"
step tools/mtrace-record -o "$trace" -- "$@" >"$out/program.stdout"
echo "(the program's own output is in $out/program.stdout)"

echo
echo "== 2. what the program asked of malloc"
step tools/mtrace-dump --limit 8 "$trace"
step tools/mtrace-dump --stats "$trace"

echo
echo "== 3. convert to a replayable workload"
step converter/trace2wl -f "$wl" "$trace"

echo
echo "== 4. replay it on glibc"
step trace_run/trace_run "$wl"

others=glibc
for a in jemalloc tcmalloc mimalloc; do
	trace_run/trace_run --allocator="$a" --json "$wl" >/dev/null 2>&1 && others="$others,$a"
done
echo
echo "== 5. the same workload on every allocator installed"
step trace_run/trace_run --compare="$others" "$wl"
