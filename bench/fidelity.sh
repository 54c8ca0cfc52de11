#!/bin/sh
# fidelity.sh - does a replay rank allocators as the program itself does?
#
# Runs PROGRAM for real under each installed allocator (glibc, and
# jemalloc, tcmalloc, mimalloc through LD_PRELOAD), N times each and
# interleaved, taking CPU time (user + sys), wall time and max RSS from
# /usr/bin/time; records it once (mtrace-record --no-children), converts
# the trace, replays it with trace_run --compare N times, and prints per
# allocator the real and the replayed figures side by side, each as a
# median with its ratio to glibc, then Kendall's tau between the real and
# the replayed ranking, for time and for memory (1: same order, -1:
# reversed).  Two allocators whose medians differ by less than --tie
# percent (default 3) on either side are a tie there: the pair counts
# neither for nor against.
#
# Time is CPU time on both sides (the replay's user + sys during the
# replay), which a busy machine disturbs far less than wall time; memory
# is the program's max RSS against the replay's Max RSS (the allocator's
# resident memory above the replayer's own).  The real figure includes the
# program's own memory and work, so the ratios differ in size; what must
# agree is the order.
#
# With --corpus it does the same for each program of the real-program
# corpus (bench/real_programs.sh), each making its input first, and
# prints one study after another.
#
# Usage: bench/fidelity.sh [--runs N] [--tie PCT] [--builddir DIR] [--dir DIR] [--keep] [--] PROGRAM [ARG]...
#        bench/fidelity.sh [OPTION]... --corpus[=NAME,...]
set -eu

me=fidelity.sh
srcdir=$(cd "$(dirname "$0")/.." && pwd)
. "$srcdir/bench/common.sh"
scale=1
. "$srcdir/bench/real_programs.sh"

usage() {
	cat <<EOF
Usage: bench/fidelity.sh [OPTION]... [--] PROGRAM [ARG]...
       bench/fidelity.sh [OPTION]... --corpus[=NAME,...]
Run PROGRAM (or each program of the real-program corpus) for real under
each installed allocator and replay its trace under the same allocators;
print both side by side and whether the two rankings agree (Kendall's
tau, for time and for memory).

  --corpus[=LIST] the programs of bench/real.sh (all, or those of LIST:
                  $corpus), each with the input it makes; about 3 minutes
                  a program on a quiet 2-core machine

  --runs N        runs of each allocator, real and replayed (default 3)
  --tie PCT       medians less than PCT percent apart rank as a tie (default 3)
  --builddir DIR  configured build tree whose tools are used (default: the
                  source tree if it is configured)
  --dir DIR       where the trace and workload go (default \${TMPDIR:-/tmp})
  --keep          keep them, and the logs (and print where)
  -h, --help      show this help

PROGRAM runs in the current directory with standard input from /dev/null
and its output discarded; it must exit 0.  Environment it needs (such as
PYTHONMALLOC=malloc) goes in front: env VAR=VALUE bench/fidelity.sh ...
EOF
}

runs=3
tie=3
builddir=
dir=${TMPDIR:-/tmp}
keep=0
corpus_run=0
corpus_list=
while [ $# -gt 0 ]; do
	case $1 in
	--corpus) corpus_run=1 ;;
	--corpus=*) corpus_run=1 corpus_list=${1#--corpus=} ;;
	--runs) [ $# -ge 2 ] || die "--runs needs a number"; number --runs "$2"; runs=$2; shift ;;
	--runs=*) number --runs "${1#--runs=}"; runs=${1#--runs=} ;;
	--tie) [ $# -ge 2 ] || die "--tie needs a number"; number --tie "$2"; tie=$2; shift ;;
	--tie=*) number --tie "${1#--tie=}"; tie=${1#--tie=} ;;
	--builddir) [ $# -ge 2 ] || die "--builddir needs a directory"; builddir=$2; shift ;;
	--builddir=*) builddir=${1#--builddir=} ;;
	--dir) [ $# -ge 2 ] || die "--dir needs a directory"; dir=$2; shift ;;
	--dir=*) dir=${1#--dir=} ;;
	--keep) keep=1 ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	-*) die "unknown option '$1'; try --help" ;;
	*) break ;;
	esac
	shift
done
programs=
[ "$corpus_run" = 0 ] || pick_programs --corpus "$corpus_list"
if [ -n "$programs" ]; then
	[ $# -eq 0 ] || die "--corpus and a PROGRAM: give one or the other"
else
	[ $# -gt 0 ] || die "no program given; try --help"
	command -v "$1" >/dev/null 2>&1 || die "$1: command not found"
fi
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (Debian package time; scripts/deps.sh bench)"
[ -d "$dir" ] && [ -w "$dir" ] || die "--dir: '$dir' is not a writable directory"

[ -n "$builddir" ] || builddir=$srcdir
[ -f "$builddir/Makefile" ] || die "--builddir: $builddir is not a configured build tree"
B=$(cd "$builddir" && pwd)
make -s -C "$B" -j2 sdt/libmtracectl.la tools/mtrace-record converter/trace2wl trace_run/trace_run >&2 ||
	die "cannot build the tools in $B"
export MTRACE_LIBDIR=$B/sdt/.libs
replay=$B/trace_run/trace_run

work=$(mktemp -d "$dir/mtk-fidelity.XXXXXX")
if [ "$keep" = 1 ]; then
	trap 'echo "$me: trace, workload and logs kept in $work" >&2' EXIT
else
	trap 'rm -rf "$work"' EXIT
fi
machine=$(machine_line "$B" "$work")
say() { echo "$me: $*" >&2; }

# The allocators: glibc, then each one Debian packages that is installed,
# as "NAME LIBRARY" lines (glibc's library is empty: nothing to preload).
{
	echo "glibc -"
	for spec in jemalloc:libjemalloc.so.2 tcmalloc:libtcmalloc_minimal.so.4 mimalloc:libmimalloc.so.2; do
		for d in /usr/lib/*-linux-gnu /usr/lib; do
			if [ -r "$d/${spec#*:}" ]; then
				echo "${spec%%:*} $d/${spec#*:}"
				break
			fi
		done
	done
} >"$work/allocators"
names=$(awk '{ print $1 }' "$work/allocators" | paste -sd' ')
[ "$(wc -l <"$work/allocators")" -gt 1 ] ||
	say "only glibc is installed (scripts/deps.sh test adds jemalloc, tcmalloc, mimalloc): nothing to rank"

# study TITLE RUNNER: the whole study of one program, in its own directory
# $w (the current one): RUNNER WRAP... runs it behind WRAP (the allocator's
# LD_PRELOAD and /usr/bin/time, or mtrace-record).
study() {
	title=$1 runner=$2
	w=$(pwd)
	: >"$w/real.txt"
	: >"$w/replay.txt"
	# Real runs, interleaved: round r runs every allocator once.  Each line of
	# real.txt: NAME CPU_S WALL_S MAXRSS_KB.
	say "running $title for real: $runs runs under each of $names"
	r=0
	while [ "$r" -lt "$runs" ]; do
		while read -r name lib; do
			preload=
			[ "$lib" = - ] || preload="LD_PRELOAD=$lib${LD_PRELOAD:+ $LD_PRELOAD}"
			"$runner" env $preload /usr/bin/time -f '%U %S %e %M' -o "$w/t" \
				</dev/null >/dev/null 2>"$w/err" ||
				die "$title failed under $name: $(tail -n 1 "$w/err")"
			tail -n 1 "$w/t" | awk -v n="$name" '{ print n, $1 + $2, $3, $4 }' >>"$w/real.txt"
		done <"$work/allocators"
		r=$((r + 1))
	done

	say "recording it once"
	"$runner" "$B/tools/mtrace-record" -q --no-children -o "$w/t.mtr" -- </dev/null >/dev/null 2>"$w/err" ||
		die "$title failed while recorded: $(tail -n 1 "$w/err")"
	say "converting"
	"$B/converter/trace2wl" "$w/t.wl" "$w/t.mtr" >/dev/null 2>"$w/err" ||
		die "trace2wl failed: $(cat "$w/err")"
	[ "$keep" = 1 ] || rm -f "$w/t.mtr"

	# Replays: trace_run --compare, once per round (its own --repeat, where it
	# has one, is held at 1 so that every run is ours to count).  Each line of
	# replay.txt: NAME CPU_S MAXRSS_KB IDEAL_KB.
	one=
	"$replay" --help | grep -q -- '--repeat' && one=--repeat=1
	list=$(echo "$names" | tr ' ' ',')
	say "replaying: $runs runs of trace_run --compare=$list"
	r=0
	while [ "$r" -lt "$runs" ]; do
		# shellcheck disable=SC2086
		"$replay" $one --compare="$list" --json "$w/t.wl" >"$w/json" 2>"$w/err" ||
			die "trace_run failed: $(tail -n 1 "$w/err")"
		# One object per allocator; each begins with "workload".
		sed 's/{"workload"/\n&/g' "$w/json" | awk '
			function num(key,   m) {
				if (match($0, "\"" key "\":[0-9]+")) {
					m = substr($0, RSTART, RLENGTH)
					sub(/.*:/, "", m)
					return m
				}
				return "?"
			}
			/"allocator":"/ {
				match($0, /"allocator":"[^"]*"/)
				name = substr($0, RSTART + 13, RLENGTH - 14)
				print name, (num("user_usec") + num("sys_usec")) / 1e6, num("max_rss_kb"), num("ideal_rss_kb")
			}' >>"$w/replay.txt"
		r=$((r + 1))
	done

	# The table and the two taus, in awk: medians per allocator, ratios to
	# glibc, and Kendall's tau-a over the allocator pairs.
	echo "Fidelity: $title ($runs runs each, real and replayed)"
	echo "$machine"
	echo "load average now $(cut -d' ' -f1-3 /proc/loadavg)"
	awk -v order="$names" -v tie="$tie" '
		function median(list,   v, n, i, j, t) {
			n = split(list, v, " ")
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
					t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
				}
			return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		}
		# Which of x and y is larger: 1, -1, or 0 when they are within tie%.
		function order2(x, y,   lo) {
			lo = x < y ? x : y
			if (x == y || (lo > 0 && (x > y ? x - y : y - x) / lo * 100 < tie))
				return 0
			return x > y ? 1 : -1
		}
		# Kendall tau-a of the two rankings, with the pair counts in the text.
		function tau(a, b,   i, j, c, d, t, s) {
			c = d = t = 0
			for (i = 1; i <= n; i++)
				for (j = i + 1; j <= n; j++) {
					s = order2(a[name[i]], a[name[j]]) * order2(b[name[i]], b[name[j]])
					if (s > 0) c++
					else if (s < 0) d++
					else t++
				}
			text = sprintf("%d pair%s agree, %d disagree, %d tied (within %s%%)", c, c == 1 ? "" : "s", d, t, tie)
			return n > 1 ? (c - d) / (n * (n - 1) / 2) : 1
		}
		function verdict(t) {
			return t == 1 ? "the rankings agree" : t == -1 ? "the rankings are reversed" \
				: text ~ / 0 disagree/ ? "the rankings agree but for ties" : "the rankings differ"
		}
		FILENAME ~ /real.txt$/ { rcpu[$1] = rcpu[$1] " " $2; rwall[$1] = rwall[$1] " " $3; rrss[$1] = rrss[$1] " " $4 }
		FILENAME ~ /replay.txt$/ { pcpu[$1] = pcpu[$1] " " $2; prss[$1] = prss[$1] " " $3; ideal[$1] = $4 }
		END {
			n = split(order, name, " ")
			for (i = 1; i <= n; i++) {
				k = name[i]
				rc[k] = median(rcpu[k]); rw[k] = median(rwall[k]); rr[k] = median(rrss[k])
				pc[k] = median(pcpu[k]); pr[k] = median(prss[k])
			}
			g = name[1]
			printf "%-9s %9s %9s %7s %9s %7s | %9s %7s %10s %7s %9s\n", "allocator", "real wall", \
				"real cpu", "ratio", "replay cpu", "ratio", "real MB", "ratio", "replay MB", "ratio", "ideal MB"
			for (i = 1; i <= n; i++) {
				k = name[i]
				printf "%-9s %9.2f %9.2f %6.2fx %9.2f %6.2fx | %9.1f %6.2fx %10.1f %6.2fx %9.1f\n", k, \
					rw[k], rc[k], rc[g] ? rc[k] / rc[g] : 0, pc[k], pc[g] ? pc[k] / pc[g] : 0, \
					rr[k] / 1024, rr[g] ? rr[k] / rr[g] : 0, pr[k] / 1024, pr[g] ? pr[k] / pr[g] : 0, \
					ideal[k] / 1024
			}
			tt = tau(rc, pc)
			printf "Kendall tau, time (real cpu vs replay cpu):   %5.2f  %s: %s\n", tt, verdict(tt), text
			tm = tau(rr, pr)
			printf "Kendall tau, memory (real RSS vs replay RSS): %5.2f  %s: %s\n", tm, verdict(tm), text
		}' "$w/real.txt" "$w/replay.txt"
}

# run_given WRAP...: the PROGRAM and ARGs of the command line behind WRAP,
# quoted as given.
quoted=
for a in "$@"; do
	quoted="$quoted '$(printf '%s' "$a" | sed "s/'/'\\\\''/g")'"
done
eval "run_given() { \"\$@\" $quoted; }"

if [ -z "$programs" ]; then
	(cd "$work" && study "$*" run_given)
	exit 0
fi
first=1
for p in $programs; do
	why=$(missing_"$p")
	if [ -n "$why" ]; then
		say "$p: skipped: $why is not installed (scripts/deps.sh bench installs it)"
		continue
	fi
	[ "$first" = 1 ] || echo
	first=0
	mkdir -p "$work/$p"
	say "$p: making the input ($(about_"$p"))"
	(cd "$work/$p" && setup_"$p" >setup.log 2>&1) || die "$p: making the input failed: see $work/$p/setup.log (--keep)"
	(cd "$work/$p" && study "$p: $(about_"$p")" run_"$p")
done
