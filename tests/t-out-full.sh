#!/bin/sh
# t-out-full - every tool, in every mode that writes, fails with status 1
# and one line on stderr when its standard output cannot be written
# (/dev/full), instead of exiting 0 with the output lost.  Output files
# that cannot be written: t-conv-bad (trace2wl), t-run-options (trace_run
# --timeline).
. "$top_srcdir/tests/lib.sh"
[ -c /dev/full ] || skip "/dev/full is not the full device (character 1,7) here"

# full WHAT CMD...: CMD >/dev/full must exit 1 after one stderr line that
# says standard output could not be written.
full() {
	what=$1
	shift
	set +e
	"$@" >/dev/full 2>err
	rc=$?
	set -e
	[ "$rc" -eq 1 ] || fail "$what >/dev/full: exit status $rc, expected 1 ($(cat err))"
	expect_eq "$what >/dev/full: lines on stderr" 1 "$(wc -l <err)"
	grep -Eq ': (writing )?standard output: No space left on device$' err ||
		fail "$what >/dev/full said '$(cat err)'"
}

printf '1 100 malloc 24 = 0x1000\n2 150 realloc 0x1000 48 = 0x2000\n1 170 free 0x2000\n' |
	"$top_builddir/tests/conv_mktrace" t.mtrace
trace2wl t.wl t.mtrace >/dev/null
mt="$top_builddir/tools/mtrace-record"
bt="$top_builddir/stap/mtrace-bt"

for opt in --help --version; do
	full "trace2wl $opt" trace2wl $opt
	full "mtrace-dump $opt" mtrace-dump $opt
	full "trace_run $opt" trace_run $opt
	full "mtrace-record $opt" env MTRACE_LIBDIR="$top_builddir/sdt/.libs" "$mt" $opt
	full "mtrace-report $opt" mtrace-report $opt
done
full "mtrace-bt --help" "$bt" --help

full "trace2wl (summary)" trace2wl -f out.wl t.mtrace
full "trace2wl --json" trace2wl -f --json out.wl t.mtrace
full "trace2wl --dump" trace2wl --dump t.wl
full "trace2wl --stats" trace2wl --stats t.wl
full "trace2wl --stats --json" trace2wl --stats --json t.wl
full "mtrace-dump" mtrace-dump t.mtrace
full "mtrace-dump --json" mtrace-dump --json t.mtrace
full "mtrace-report" mtrace-report t.mtrace
full "mtrace-report --json" mtrace-report --json t.mtrace
full "mtrace-dump --stats" mtrace-dump --stats t.mtrace
full "mtrace-dump --stats --json" mtrace-dump --stats --json t.mtrace
full "trace_run" trace_run t.wl
full "trace_run --json" trace_run --json t.wl
full "trace_run --compare" trace_run --compare=glibc t.wl

pass
