#!/bin/sh
# t-rec-stress: thread churn (2000 short threads, every window closed at
# thread exit), a signal handler that allocates, dlopen/dlclose, and an
# allocation in a constructor before main: each program runs normally and
# leaves a complete, consistent trace.
. "$top_srcdir/tests/lib.sh"

stress=$top_builddir/tests/rec_stress
check=$top_builddir/tests/rec_consistent

# run NAME ARGS...: record rec_stress ARGS into NAME.PID and check it.
run() {
	name=$1
	shift
	MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE=$t_dir/$name.trace LD_PRELOAD=$MTRACECTL_LIB \
		"$stress" "$@" 2>"$name.err" || fail "rec_stress $*: failed: $(cat "$name.err")"
	[ ! -s "$name.err" ] || fail "rec_stress $*: stderr: $(cat "$name.err")"
	trace=$(ls "$name".trace.*)
	"$check" "$trace" >"$name.check" 2>&1 || fail "rec_stress $*: $(cat "$name.check")"
	mtrace-dump --json "$trace" | grep -q '"call":"malloc".*"size":49344[,}]' ||
		fail "rec_stress $*: the constructor's malloc(0xc0c0) is not in the trace"
}

run churn churn 2000
threads=$(awk '{print $4}' churn.check)
[ "$threads" -ge 2001 ] || fail "churn: $threads threads in the trace, expected 2001"
windows=$(mtrace-dump churn.trace.* | sed -n 's/.*record[s]*, \([0-9]*\) window.*/\1/p')
[ "$windows" -ge 2001 ] || fail "churn: only $windows windows"

run signal signal
run dlopen dlopen
pass
