#!/bin/sh
# t-rec-record: mtrace-record's -o FILE holds the program the user meant,
# the last one its process became behind wrappers: through env, and through
# a shell script that forks a helper and then execs env, which execs the
# program.  The wrappers and the helper get numbered names, no process
# prints its own lines, one table names every file, --no-children leaves
# the helper out, and the program's exit status and killing signal pass
# through.
. "$top_srcdir/tests/lib.sh"

export MTRACE_LIBDIR=$(dirname "$MTRACECTL_LIB")
cxx=$top_builddir/tests/rec_cxx
# exe_of TRACE: the executable its header names.
exe_of() {
	mtrace-dump -n 0 "$1" | sed -n 's/^# pid [0-9]*, ppid [0-9]*, exe //p'
}
pid_of() {
	mtrace-dump -n 0 "$1" | sed -n 's/^# pid \([0-9]*\),.*/\1/p'
}
real_cxx=$(readlink -f "$cxx")
env_exe=$(readlink -f "$(command -v env)")

# check_program NAME: NAME.mtr is rec_cxx's whole trace: its four
# new char[0x5eed] are there, and it reads back consistently.
check_program() {
	expect_eq "$1.mtr executable" "$real_cxx" "$(exe_of "$1.mtr")"
	news=$(mtrace-dump --json "$1.mtr" | grep -c '"call":"malloc".*"size":24301[,}]') || true
	expect_eq "$1.mtr: new char[0x5eed] calls" 4 "$news"
	"$top_builddir/tests/rec_consistent" "$1.mtr" >check 2>&1 || fail "$1.mtr: $(cat check)"
	expect_eq "$1: program output" "rec_cxx done" "$(cat "$1.out")"
	grep -q '^mtrace:' "$1.err" && fail "$1: a process printed its own lines: $(cat "$1.err")"
	grep -Eq "^ +[0-9]+ +[0-9]+  $real_cxx +$t_dir/$1\.mtr  <- -o\$" "$1.err" ||
		fail "$1: the table does not mark $1.mtr as rec_cxx's: $(cat "$1.err")"
	return 0
}

# env execs the program: env's trace is e.mtr.PID, the program's e.mtr.
mtrace-record -o e.mtr -- env "$cxx" >e.out 2>e.err || fail "env: status $?: $(cat e.err)"
check_program e
pid=$(pid_of e.mtr)
expect_eq "env's trace" "$env_exe" "$(exe_of "e.mtr.$pid")"
expect_eq "trace files through env" "e.mtr e.mtr.$pid" "$(echo e.mtr*)"
expect_eq "table lines through env (title, heading, 2 rows)" 4 "$(wc -l <e.err)"
expect_eq "table title" "mtrace-record: 2 trace files" "$(head -1 e.err)"

# A script that runs a helper (a child process) and then execs env: four
# traces, three images of the started process and the helper's.
cat >wrapper.sh <<'SCRIPT'
#!/bin/sh
ls / >/dev/null
exec env "$@"
SCRIPT
chmod +x wrapper.sh
mtrace-record -o s.mtr -- ./wrapper.sh "$cxx" >s.out 2>s.err || fail "script: status $?: $(cat s.err)"
check_program s
pid=$(pid_of s.mtr)
expect_eq "trace files through the script" 4 "$(ls s.mtr* | wc -l)"
expect_eq "the script's image" "$(readlink -f /bin/sh)" "$(exe_of "s.mtr.$pid")"
expect_eq "env's image" "$env_exe" "$(exe_of "s.mtr.$pid.2")"
helper=$(ls s.mtr.* | grep -v "^s\.mtr\.$pid") || fail "no helper trace among $(echo s.mtr.*)"
expect_eq "the helper's trace" "$(readlink -f "$(command -v ls)")" "$(exe_of "$helper")"
grep -q "^mtrace-record: 4 trace files$" s.err || fail "table title: $(cat s.err)"

# --no-children: the started process's three images, no helper.
mtrace-record --no-children -o n.mtr -- ./wrapper.sh "$cxx" >n.out 2>n.err ||
	fail "--no-children: status $?: $(cat n.err)"
check_program n
pid=$(pid_of n.mtr)
expect_eq "trace files with --no-children" "n.mtr n.mtr.$pid n.mtr.$pid.2" "$(echo n.mtr*)"

# Exit status and killing signal pass through; -q prints nothing.
set +e
mtrace-record -q -o x.mtr -- sh -c 'exit 3' 2>q.err
rc=$?
mtrace-record -q -o k.mtr -- sh -c 'kill -TERM $$' 2>>q.err
sig=$?
set -e
expect_eq "exit status" 3 "$rc"
expect_eq "status of a program killed by SIGTERM" 143 "$sig"
[ ! -s q.err ] || fail "-q printed: $(cat q.err)"
"$top_builddir/tests/rec_consistent" x.mtr >/dev/null || fail "x.mtr is not a consistent trace"
pass
