# tests/diag-record.sh - diag_glibc ($prog) run under the recorder, and what
# it and its trace said; source it after tests/lib.sh.  said reads any
# NAME.out, so the malloc.bt tests use it for runs of their own too.

prog="$top_builddir/tests/diag_glibc"

# record NAME MODE [ENV...]: runs diag_glibc MODE under the recorder, asked
# for glibc events (MTRACE_GLIBC_EVENTS=1 unless ENV says otherwise); its
# "key value" lines go to NAME.out, the trace's events to NAME.ev, one
# "tid event arg1 arg2" line each (decimal).
record() {
	name=$1 mode=$2
	shift 2
	env MTRACE_GLIBC_EVENTS=1 "$@" LD_PRELOAD="${PRELOAD:-$MTRACE_LIB}" MTRACE_CTL_FILE="$t_dir/$name.trace" \
		MTRACE_CTL_QUIET=1 "$prog" "$mode" >"$name.out" || fail "diag_glibc $mode failed"
	set -- "$name".trace.*
	[ -f "$1" ] || fail "diag_glibc $mode left no trace"
	mtrace-dump --json "$1" >"$name.json" || fail "mtrace-dump cannot read the $mode trace"
	sed -n 's/.*"tid":\([0-9]*\),.*"event":"\([a-z_]*\)","args":\[\([0-9]*\),\([0-9]*\)\].*/\1 \2 \3 \4/p' \
		"$name.json" >"$name.ev"
}

# said NAME KEY: the value diag_glibc printed for KEY.
said() { sed -n "s/^$2 //p" "$1.out"; }
# count NAME EVENT: how many EVENTs the trace holds.
count() { grep -c " $2 " "$1.ev" || true; }
