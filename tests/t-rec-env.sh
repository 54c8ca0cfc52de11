#!/bin/sh
# t-rec-env: what users get wrong.  A trace file that cannot be created, a
# file that cannot grow, and bad environment values each give exactly one
# line on stderr naming the problem, and the program still runs and exits
# as it would.  mtrace-record's own usage errors are one line too.
. "$top_srcdir/tests/lib.sh"

ctl=$MTRACECTL_LIB
stress=$top_builddir/tests/rec_stress

# one_line PATTERN CMD...: CMD succeeds, prints exactly one line on stderr
# matching PATTERN.
one_line() {
	pat=$1
	shift
	"$@" >out 2>err || fail "'$*' failed (status $?): $(cat err)"
	expect_eq "stderr lines of '$*'" 1 "$(wc -l <err)"
	grep -Eq "$pat" err || fail "'$*' said '$(cat err)', expected '$pat'"
}

one_line '^mtrace: cannot create /nonexistent/dir/t\.[0-9]+: No such file or directory; not recording$' \
	env MTRACE_CTL_FILE=/nonexistent/dir/t LD_PRELOAD="$ctl" true
env MTRACE_CTL_QUIET=yes MTRACE_CTL_FILE=$t_dir/q LD_PRELOAD="$ctl" true 2>err ||
	fail "true failed with a bad MTRACE_CTL_QUIET"
expect_eq "lines with a bad MTRACE_CTL_QUIET (the error, then the messages it keeps on)" \
	"mtrace: MTRACE_CTL_QUIET must be 0 or 1, not 'yes'; messages stay on|mtrace: writing to $t_dir/q.*|mtrace: * calls recorded in $t_dir/q.*" \
	"$(sed "s|q\.[0-9]*$|q.*|; s|: [0-9]* calls|: * calls|" err | paste -sd'|')"
one_line "^mtrace: MTRACE_RECORD_ONLY must be a process id, not 'abc'; every process records$" \
	env MTRACE_RECORD_ONLY=abc MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE=$t_dir/bad LD_PRELOAD="$ctl" true
[ -f "$(ls bad.* | head -1)" ] || fail "no trace with a bad MTRACE_RECORD_ONLY"
# default_prefix VALUE MESSAGE: an unusable MTRACE_CTL_FILE is reported and
# the trace goes to the default place.
default_prefix() {
	env MTRACE_CTL_FILE="$1" LD_PRELOAD="$ctl" "$stress" churn 1 2>err ||
		fail "rec_stress failed with MTRACE_CTL_FILE '$1'"
	trace=$(sed -n 's/^mtrace: writing to //p' err)
	case $trace in /tmp/mtrace.out.[0-9]*) rm -f "$trace" ;; *) fail "trace went to '$trace'" ;; esac
	expect_eq "first of 3 lines" "$2|3" "$(head -1 err)|$(wc -l <err)"
}
default_prefix "" "mtrace: MTRACE_CTL_FILE is empty; using /tmp/mtrace.out"
default_prefix "$(printf '%05000d' 0)" "mtrace: MTRACE_CTL_FILE is too long; using /tmp/mtrace.out"

# mtrace-record: usage errors, --help, --version.
export MTRACE_LIBDIR=$(dirname "$ctl")
expect_fail_with "^mtrace-record: no program given; try 'mtrace-record --help'$" mtrace-record -o x
expect_fail_with "^mtrace-record: unknown option '--bogus'" mtrace-record --bogus true
expect_fail_with "^mtrace-record: option '-o' needs a file name" mtrace-record -o
expect_fail_with "^mtrace-record: no-such-program-here: command not found$" \
	mtrace-record -- no-such-program-here
expect_fail_with "recorder library not found" env MTRACE_LIBDIR=/nonexistent mtrace-record true
mtrace-record --help | grep -q '^Usage: mtrace-record ' || fail "--help has no usage line"
mtrace-record --version | grep -Eq '^mtrace-record \(malloc-trace-kit\) [0-9]' ||
	fail "--version: $(mtrace-record --version)"
pass
