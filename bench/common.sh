# bench/common.sh - what the bench scripts share; source it after setting
# $me.  Usage errors end the script with status 2 and one line.

die() { echo "$me: $*" >&2; exit 2; }

# number OPTION VALUE: VALUE must be a positive whole number.
number() {
	case $2 in '' | *[!0-9]*) die "$1: '$2' is not a positive number" ;; esac
	[ "$2" -gt 0 ] || die "$1: '$2' is not a positive number"
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
