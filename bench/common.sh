# bench/common.sh - what the bench scripts share; source it after setting
# $me.  Usage errors end the script with status 2 and one line.

die() { echo "$me: $*" >&2; exit 2; }

# number OPTION VALUE: VALUE must be a positive whole number.
number() {
	case $2 in '' | *[!0-9]*) die "$1: '$2' is not a positive number" ;; esac
	[ "$2" -gt 0 ] || die "$1: '$2' is not a positive number"
}
