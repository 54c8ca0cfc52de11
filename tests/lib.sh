# tests/lib.sh - shared helpers for the shell tests; source it first.
#
# Every test runs in its own scratch directory (removed on success, kept on
# failure so the evidence is there), fails loudly with a reason, and skips
# only with a reason printed.
set -eu

t_name=$(basename "$0" .sh)
t_dir=$(mktemp -d "${TMPDIR:-/tmp}/$t_name.XXXXXX")
t_keep=1
t_children=
t_outside=
trap 't_stop_children; t_remove_outside; if [ "$t_keep" = 0 ]; then rm -rf "$t_dir"; else echo "scratch kept in $t_dir" >&2; fi' EXIT
cd "$t_dir"

# python3: the interpreter configure found behind the python3 on PATH,
# which may be a version manager's shim ten times slower to start.
if [ -n "${PYTHON3:-}" ]; then
	python3() { "$PYTHON3" "$@"; }
fi

# t_reap PID: PID, started in the background, is stopped when the test
# exits if it still runs, on every path (a failure anywhere, a pass), so
# no test leaves a process behind: a bpftrace left attached slows every
# later test and may be stuck for minutes when it is finally stopped.
t_reap() {
	t_children="$t_children $1"
}

# t_remove_at_exit FILE: FILE, which the test made outside its scratch
# directory, is removed when the test exits, on every path.
t_remove_at_exit() {
	t_outside="$t_outside $1"
}

t_remove_outside() {
	for t_file in $t_outside; do
		rm -f "$t_file"
	done
}

# t_alive PID: PID exists and has not exited (a zombie not yet waited for
# has).
t_alive() {
	[ -r "/proc/$1/status" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}

# t_stop_children: SIGTERM to each process of t_reap still running (bpftrace
# detaches its probes on it), SIGKILL after 10 s, then waits for it; gives
# up waiting after 10 s more rather than hang the suite.
t_stop_children() {
	for t_pid in $t_children; do
		for t_sig in TERM KILL; do
			t_alive "$t_pid" || break
			kill -"$t_sig" "$t_pid" 2>/dev/null || true
			t_n=0
			while t_alive "$t_pid" && [ "$t_n" -lt 100 ]; do
				sleep 0.1
				t_n=$((t_n + 1))
			done
		done
		t_alive "$t_pid" || wait "$t_pid" 2>/dev/null || true
	done
}

# fail MESSAGE: the test failed; say why.
fail() {
	echo "FAIL: $t_name: $*" >&2
	exit 1
}

# skip REASON: this machine lacks what the test needs; say what.
skip() {
	echo "SKIP: $t_name: $*" >&2
	# scripts/test.sh shows the reasons once distcheck's tree is gone
	[ -z "${MT_SKIP_LOG:-}" ] || echo "SKIP: $t_name: $*" >>"$MT_SKIP_LOG"
	t_keep=0
	exit 77
}

# pass: the test succeeded; clean up.
pass() {
	t_keep=0
	exit 0
}

# expect_eq WHAT EXPECTED ACTUAL
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
}

# expect_fail_with PATTERN CMD...: CMD must exit non-zero, print exactly one
# line on stderr matching PATTERN (grep -E), and not be killed by a signal.
expect_fail_with() {
	pat=$1
	shift
	set +e
	"$@" >"$t_dir/out" 2>"$t_dir/err"
	rc=$?
	set -e
	[ "$rc" -ne 0 ] || fail "'$*' succeeded; expected an error matching '$pat'"
	[ "$rc" -lt 128 ] || fail "'$*' died of signal $((rc - 128))"
	lines=$(wc -l <"$t_dir/err")
	[ "$lines" -eq 1 ] || fail "'$*' printed $lines lines on stderr, expected one: $(cat "$t_dir/err")"
	grep -Eq "$pat" "$t_dir/err" || fail "'$*' said '$(cat "$t_dir/err")', expected '$pat'"
}

# installed_allocators: a "NAME PATH" line for each allocator Debian
# packages that is installed here, where Debian puts it (jemalloc, tcmalloc,
# mimalloc); each missing one is named on stderr with its package.  A
# subshell, so its loop variables leave the test's alone.
installed_allocators() (
	for spec in jemalloc:libjemalloc.so.2:libjemalloc2 \
		tcmalloc:libtcmalloc_minimal.so.4:libtcmalloc-minimal4 \
		mimalloc:libmimalloc.so.2:libmimalloc2.0; do
		name=${spec%%:*} file=${spec#*:}
		file=${file%%:*}
		lib=
		for dir in /usr/lib/*-linux-gnu /usr/lib; do
			[ -r "$dir/$file" ] && lib=$dir/$file && break
		done
		if [ -n "$lib" ]; then
			echo "$name $lib"
		else
			echo "$name is not installed ($file, Debian package ${spec##*:}): not tested" >&2
		fi
	done
)
