#!/bin/sh
# recorder.sh - what recording malloc calls costs, measured side by side.
#
# Runs bench/alloc_heavy (a malloc-heavy program, 1 and 2 threads) untraced
# and under every contender in one go: our interposer with its markers only,
# our recorder (trace on tmpfs, and kept on disk), a bare 32-byte-per-call
# recorder as the floor (tmpfs, tmpfs pages already in the page cache, disk),
# heaptrack, and glibc's mtrace() through libc_malloc_debug.so.  Each
# contender runs --reps times, interleaved so that a drifting machine hits
# them all alike, and the medians of the program's own loop timings (wall
# clock and thread CPU time) are kept.  callgrind then counts instructions
# per call, a measure that noise cannot move, and says which of the kit's
# functions they are spent in.  Last, the issue's targets are checked and
# printed as PASS or MISS.  This is a benchmark, not a test: nothing here
# fails the build.
#
# Usage: bench/recorder.sh [--calls N] [--quick] [--reps N] [--builddir DIR]
#                          [--disk-dir DIR] [--tight] [--live SLOTS] [--handoff]
#                          [--in-main]
#                          [--only LIST]
# shellcheck source-path=SCRIPTDIR
set -eu

me=recorder.sh
srcdir=$(cd "$(dirname "$0")/.." && pwd)
calls=
reps=
quick=
builddir=
diskdir=/var/tmp
prog_args=
one_args=
only=

usage() {
	cat <<EOF
Usage: bench/recorder.sh [OPTION]...
Times bench/alloc_heavy untraced and under each malloc tracer, 1 and 2 threads,
and prints ns per call, ratio to untraced, added ns per call, bytes per call,
then PASS or MISS for each recorder target.

  --calls N       calls per thread in each timed run (default 3000000)
  --quick         about a minute: 1000000 calls, 3 runs, a shorter callgrind run
  --reps N        runs per contender; the median is kept (default 7)
  --builddir DIR  configured build tree to use (default: the source tree if
                  it is configured, else \${TMPDIR:-/tmp}/mtk-bench-build)
  --disk-dir DIR  where traces are kept on disk (default /var/tmp)
  --tight         time a tight malloc(32)/free loop (alloc_heavy --tight)
                  instead of alloc_heavy's mix
  --live SLOTS    alloc_heavy's live set, slots a thread (a power of two;
                  default 4096, which stay in the caches): 262144 make
                  most calls miss the caches, as in a program with a large
                  heap, where what the recorder adds a call also keeps
                  the processor from running ahead to the next miss
  --handoff       alloc_heavy --handoff: the slots filled first, and one
                  block in 512 freed and replaced by another thread, so
                  that the recorder stamps every free after a fence, as
                  in a program that hands blocks between threads
  --in-main       1-thread runs make their calls in the main thread, which
                  starts no thread (alloc_heavy --in-main): a one-thread
                  program, which the recorder stamps sparsely; without it
                  the main thread records too (pthread_create's calloc)
  --only LIST     run only these contenders (names as listed at the start,
                  space- or comma-separated; untraced always runs): more
                  rounds in the same time for a verdict on a few of them
  -h, --help      show this help
EOF
}

# shellcheck source=common.sh
. "$srcdir/bench/common.sh"

while [ $# -gt 0 ]; do
	case $1 in
	--calls) [ $# -ge 2 ] || die "--calls needs a value"; number --calls "$2"; calls=$2; shift ;;
	--reps) [ $# -ge 2 ] || die "--reps needs a value"; number --reps "$2"; reps=$2; shift ;;
	--quick) quick=1 ;;
	--tight) prog_args="$prog_args --tight" ;;
	--handoff) prog_args="$prog_args --handoff" ;;
	--live)
		[ $# -ge 2 ] || die "--live needs a value"
		number --live "$2"
		[ "$2" -ge 2 ] && [ $(($2 & ($2 - 1))) = 0 ] || die "--live: '$2' is not a power of two from 2"
		prog_args="$prog_args --live $2"
		shift
		;;
	--in-main) one_args=" --in-main" ;;
	--only) [ $# -ge 2 ] || die "--only needs a value"; only=$(echo "$2" | tr ',' ' '); shift ;;
	--builddir) [ $# -ge 2 ] || die "--builddir needs a value"; builddir=$2; shift ;;
	--disk-dir) [ $# -ge 2 ] || die "--disk-dir needs a value"; diskdir=$2; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; die "unknown option '$1'" ;;
	esac
	shift
done
case $prog_args in *--tight*--handoff* | *--handoff*--tight*) die "--handoff has no slots to share with --tight" ;; esac
# --quick scales down only what was not given explicitly.
if [ -n "$quick" ]; then
	: "${calls:=1000000}" "${reps:=3}"
	cg_calls=50000
else
	: "${calls:=3000000}" "${reps:=7}"
	cg_calls=200000
fi
if [ ! -d "$diskdir" ] || [ ! -w "$diskdir" ]; then
	die "--disk-dir: '$diskdir' is not a writable directory"
fi
case $(stat -f -c %T "$diskdir") in
tmpfs | ramfs) echo "$me: warning: $diskdir is in memory; pass --disk-dir on a real disk" >&2 ;;
esac
[ -w /dev/shm ] || die "/dev/shm is not a writable tmpfs"

# shellcheck source=rec_run.sh
. "$srcdir/bench/rec_run.sh"
# shellcheck source=rec_report.sh
. "$srcdir/bench/rec_report.sh"
for c in $only; do
	case " $all_contenders " in *" $c "*) ;; *) die "--only: no contender '$c' (one of: $all_contenders)" ;; esac
done

if [ -f "$srcdir/scripts/deps.sh" ]; then
	sh "$srcdir/scripts/deps.sh" bench
else
	echo "$me: $srcdir/scripts/deps.sh is missing: not installing heaptrack, valgrind..." >&2
fi
build_tree
work=$(mktemp -d "${TMPDIR:-/tmp}/mtk-bench.XXXXXX")
shmdir=$(mktemp -d /dev/shm/mtk-bench.XXXXXX)
diskwork=$(mktemp -d "$diskdir/mtk-bench.XXXXXX")
trap 'rm -rf "$work" "$shmdir" "$diskwork"' EXIT INT TERM

describe_run
for t in 1 2; do
	for r in $(seq "$reps"); do
		for c in $contenders; do
			run_contender "$c" "$t" "$r"
		done
	done
done
count_instructions
report
where_instructions
check_targets
