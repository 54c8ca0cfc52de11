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
