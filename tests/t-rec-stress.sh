#!/bin/sh
# t-rec-stress: thread churn (2000 short threads, each with one window,
# closed and unmapped once the thread is gone), a signal handler that
# allocates, dlopen/dlclose, a daemon that closes every descriptor and
# reuses their numbers for its own file, allocations in the program's
# constructor and in another library's constructor that runs before the
# recorder's: each program runs normally and leaves a complete, consistent
# trace, and no trace byte lands in the program's files.
. "$top_srcdir/tests/lib.sh"

stress=$top_builddir/tests/rec_stress
check=$top_builddir/tests/rec_consistent
early=$top_builddir/tests/.libs/rec_early.so
[ -f "$early" ] || fail "$early is not built"

# has_malloc TRACE SIZE WHAT: the trace holds a malloc(SIZE).
has_malloc() {
	mtrace-dump --json "$1" | grep -q "\"call\":\"malloc\".*\"size\":$2[,}]" ||
		fail "$3: malloc($2) is not in the trace"
}

# run NAME ARGS...: record rec_stress ARGS into NAME.PID and check it.
run() {
	name=$1
	shift
	MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE=$t_dir/$name.trace LD_PRELOAD="$MTRACECTL_LIB $early" \
		"$stress" "$@" >"$name.out" 2>"$name.err" ||
		fail "rec_stress $*: failed: $(cat "$name.err")"
	[ ! -s "$name.err" ] || fail "rec_stress $*: stderr: $(cat "$name.err")"
	trace=$(ls "$name".trace.*)
	"$check" "$trace" >"$name.check" 2>&1 || fail "rec_stress $*: $(cat "$name.check")"
	has_malloc "$trace" 49344 "rec_stress $*: the program's constructor (0xc0c0)"
	has_malloc "$trace" 59985 "rec_stress $*: rec_early.so's constructor (0xea51)"
}

run churn churn 2000
threads=$(awk '{print $4}' churn.check)
[ "$threads" -ge 2001 ] || fail "churn: $threads threads in the trace, expected 2001"
windows=$(mtrace-dump churn.trace.* | sed -n 's/.*record[s]*, \([0-9]*\) window.*/\1/p')
[ "$windows" -ge 2001 ] && [ "$windows" -le 2010 ] ||
	fail "churn: $windows windows for $threads threads (one each, and a few for main)"
# Untraced the program has about 30 mappings; a window left mapped per
# exited thread would make it thousands.
mappings=$(sed -n 's/^mappings //p' churn.out)
[ "$mappings" -lt 200 ] || fail "churn: $mappings mappings after 2000 threads ended"

run signal signal
# Calls the handler made while the main thread was inside the recorder go
# to the allocator unrecorded and are counted: the re-entry path ran.
dropped=$(mtrace-dump signal.trace.* | sed -n 's/^# closed cleanly, .*, \([0-9]*\) dropped$/\1/p')
[ "${dropped:-0}" -gt 0 ] || fail "signal: no call was dropped; the handler never interrupted the recorder"
run dlopen dlopen

run fds fds "$t_dir/daemon.log"
expect_eq "lines the daemon wrote to its own file" 250 "$(wc -l <daemon.log)"
bad=$(grep -cv '^fd [0-9]*$' daemon.log || true)
expect_eq "foreign lines or bytes in the daemon's file" 0 "$bad"
records=$(mtrace-dump fds.trace.* | sed -n 's/.*closed cleanly, [0-9]* threads*, \([0-9]*\) records.*/\1/p')
[ "${records:-0}" -ge 2200000 ] || fail "fds: only ${records:-no} records; recording stopped when the descriptors were closed"
pass
