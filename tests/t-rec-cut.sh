#!/bin/sh
# t-rec-cut: another process truncating the trace file while the program
# runs does not kill it with SIGBUS (issue #10).  The program's next store
# into a window past the cut is caught: recording stops with one line, the
# program finishes with its own output and exit status, and the trace says
# it was cut.  A SIGBUS that is not the recorder's still ends the program
# as it would untraced.
. "$top_srcdir/tests/lib.sh"

stress=$top_builddir/tests/rec_stress
mkfifo go
# Opening the FIFO for writing waits until the program opens it to read,
# that is, once it has made its first 200 k calls; it then waits for the
# byte while the trace is cut to its header and first page of windows.
MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE=$t_dir/cut LD_PRELOAD=$MTRACECTL_LIB \
	"$stress" cut "$t_dir/go" >prog.out 2>prog.err &
pid=$!
exec 3>go
trace=$(ls cut.*)
truncate -s 8192 "$trace"
echo x >&3
exec 3>&-
set +e
wait $pid
rc=$?
set -e
expect_eq "exit status after the cut" 0 "$rc"
expect_eq "output after the cut" "allocated 1200000" "$(cat prog.out)"
expect_eq "stderr lines after the cut" 1 "$(wc -l <prog.err)"
grep -Eq "^mtrace: cannot go on with .*/cut\\.$pid: another process cut it short; recording stopped\$" prog.err ||
	fail "unexpected message: $(cat prog.err)"
mtrace-dump --stats --json "$trace" 2>dump.err >dump.json || fail "$(cat dump.err)"
grep -q '"stopped_early":{"reason":"the file was cut short by another process","code":6,' dump.json ||
	fail "the trace does not say it was cut: $(head -c 400 dump.json)"

# The program's own SIGBUS: the same death traced as untraced.
set +e
"$stress" bus "$t_dir/mine" 2>/dev/null
want=$?
MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE=$t_dir/bus LD_PRELOAD=$MTRACECTL_LIB "$stress" bus "$t_dir/mine" 2>bus.err
got=$?
set -e
expect_eq "exit status of the program's own SIGBUS" "$want" "$got"
[ "$want" -gt 128 ] || fail "rec_stress bus did not die of a signal ($want)"
[ ! -s bus.err ] || fail "stderr on the program's own SIGBUS: $(cat bus.err)"
# And SIGBUS sent by kill.
set +e
sh -c 'kill -BUS $$'
want=$?
MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE=$t_dir/kill LD_PRELOAD=$MTRACECTL_LIB sh -c 'kill -BUS $$'
got=$?
set -e
expect_eq "exit status of a SIGBUS sent by kill" "$want" "$got"
pass
