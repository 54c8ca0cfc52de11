# bench/common.sh - what the bench scripts share; source it after setting
# $me.  Usage errors end the script with status 2 and one line.

die() { echo "$me: $*" >&2; exit 2; }

# number OPTION VALUE: VALUE must be a positive whole number.
number() {
	case $2 in '' | *[!0-9]*) die "$1: '$2' is not a positive number" ;; esac
	[ "$2" -gt 0 ] || die "$1: '$2' is not a positive number"
}

# timed LABEL RECORDS CMD...: one table line from /usr/bin/time's figures
# (label, records, wall s, user s, max RSS KB, records per user s), in
# the scratch directory $work; $work/last.LABEL keeps "RECORDS USER_S".
timed() {
	label=$1 recs=$2
	shift 2
	/usr/bin/time -f '%e %U %M' -o "$work/time" "$@" >/dev/null 2>"$work/err" ||
		{ echo "$me: $label failed: $(tail -n 2 "$work/err")" >&2; return 0; }
	read -r wall user rss <"$work/time"
	awk -v l="$label" -v r="$recs" -v w="$wall" -v u="$user" -v m="$rss" 'BEGIN {
		printf "%-16s %12d %8.2f %8.2f %10d %14.0f\n", l, r, w, u, m, (u > 0 ? r / u : 0) }'
	echo "$recs $user" >"$work/last.$label"
}

# use_builddir: sets B, the absolute path of the build tree whose tools are
# measured: $builddir (--builddir) if set, else the source tree when it is
# configured, else ${TMPDIR:-/tmp}/mtk-bench-build; configures it if it is
# not yet.  Needs $srcdir.
use_builddir() {
	if [ -z "$builddir" ]; then
		builddir=${TMPDIR:-/tmp}/mtk-bench-build
		[ -f "$srcdir/config.status" ] && builddir=$srcdir
	fi
	mkdir -p "$builddir"
	B=$(cd "$builddir" && pwd)
	if [ ! -f "$B/Makefile" ]; then
		[ -x "$srcdir/configure" ] || (cd "$srcdir" && autoreconf -fi) >&2
		(cd "$B" && "$srcdir/configure" -q) >&2 || die "cannot configure a build tree in $B"
	fi
}

# machine_line BUILD SCRATCH: the report's machine line, measured now (so
# call it before the runs, while nothing else of the bench is running):
# bench/machine_probe's core clock, instructions a cycle, RDTSC and random
# reads, then the kernel and glibc.  A build tree from before the probe
# gets it compiled in SCRATCH.
machine_line() {
	probe=$1/bench/machine_probe
	make -s -C "$1" bench/machine_probe >/dev/null 2>&1 || {
		probe=$2/machine_probe
		${CC:-cc} -O2 -I"$1" -o "$probe" "$srcdir/bench/machine_probe.c" >&2 || probe=
	}
	if [ -z "$probe" ] || ! line=$("$probe"); then
		line="machine: $(nproc) cpus, $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
	fi
	echo "$line; $(uname -r), glibc $(ldd --version | awk 'NR == 1 { print $NF }')"
}

# json_num FILE KEY: the first number stored under "KEY" in FILE, or empty.
json_num() { sed -n "s/.*\"$2\":\([0-9.eE+-]*\).*/\1/p" "$1" | head -n 1; }

# concurrency_header, concurrency_row LABEL JSON: one replay of several
# threads (trace_run --json's output in JSON) against issue #12's targets:
# Max Ideal RSS within 10% of the ideal peak trace2wl found in the
# recorded order, in at most twice the recorded span of calls.
concurrency_header() {
	printf '%-12s %12s %12s %8s %10s %10s %7s %7s %6s\n' replay "rec ideal Kb" "rep ideal Kb" \
		"ideal x" "rec span s" "replay s" "span x" "win us" target
}
concurrency_row() {
	awk -v name="$1" -v rec="$(json_num "$2" header_ideal_peak_bytes)" \
		-v rep="$(json_num "$2" ideal_peak_bytes)" -v span="$(json_num "$2" recorded_span_usec)" \
		-v wall="$(json_num "$2" wall_usec)" -v win="$(json_num "$2" window_us)" 'BEGIN {
		ix = rec > 0 ? rep / rec : 0; sx = span > 0 ? wall / span : 0
		printf "%-12s %12.1f %12.1f %8.3f %10.3f %10.3f %7.2f %7s %6s\n", name, rec / 1024,
			rep / 1024, ix, span / 1e6, wall / 1e6, sx, win,
			(ix >= 0.9 && ix <= 1.1 && sx <= 2) ? "PASS" : "MISS"
	}'
}
