#!/bin/sh
# t-rec-programs: programs nobody here wrote (ls, sort, python3 if present)
# and a C++ std::thread program, recorded through mtrace-record: each trace
# reads back cleanly, its header count equals the records read, no address
# is handed out twice without a free between, and the program's output and
# exit status are untouched.  (Other allocators below the recorder:
# t-rec-allocators.)
. "$top_srcdir/tests/lib.sh"

export MTRACE_LIBDIR=$(dirname "$MTRACECTL_LIB")
check=$top_builddir/tests/rec_consistent

# record NAME CMD...: trace CMD into NAME.mtr and check it.
record() {
	name=$1
	shift
	mtrace-record -q -o "$name.mtr" -- "$@" >"$name.out" 2>"$name.err" ||
		fail "$name: exit status $? under the recorder: $(cat "$name.err")"
	[ ! -s "$name.err" ] || fail "$name: unexpected stderr: $(cat "$name.err")"
	"$check" "$name.mtr" >"$name.check" 2>&1 || fail "$name: $(cat "$name.check")"
	records=$(awk '{print $2}' "$name.check")
	[ "$records" -gt 10 ] || fail "$name: only $records records"
	echo "$name: $(cat "$name.check")"
}

seq 5000 -1 1 | sed 's/$/ line/' >input
record ls ls -l /usr/bin
ls -l /usr/bin >ls.ref
cmp -s ls.out ls.ref || fail "ls: output differs under the recorder"
record sort sort input
sort input | cmp -s - sort.out || fail "sort: output differs under the recorder"

record cxx "$top_builddir/tests/rec_cxx"
expect_eq "rec_cxx output" "rec_cxx done" "$(cat cxx.out)"
news=$(mtrace-dump --json cxx.mtr | grep -c '"call":"malloc".*"size":24301[,}]') || true
expect_eq "new char[0x5eed] calls seen as malloc" 4 "$news"

# Exit status passes through, and a failing program is still recorded.
set +e
mtrace-record -q -o fail.mtr -- sh -c 'exit 3'
rc=$?
set -e
expect_eq "exit status" 3 "$rc"
"$check" fail.mtr >/dev/null || fail "trace of a failing program is not consistent"

# python3 may be a wrapper script (pyenv): record the interpreter itself.
if py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && [ -x "$py" ]; then
	record python "$py" -c 'import json; print(len(json.dumps({str(i): [i] * 5 for i in range(20000)})))'
else
	echo "python3 not installed: not traced"
fi

pass
