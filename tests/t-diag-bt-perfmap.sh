#!/bin/sh
# t-diag-bt-perfmap.sh - mtrace-bt, given a pid, gives that process an
# empty /tmp/perf-PID.map while bpftrace runs (libbcc 0.26 otherwise
# closes a file descriptor of bpftrace's and stacks print empty:
# mtrace-scripts(7)), removes it after bpftrace exits, and leaves alone a
# map the process already had.  The stacks printed must be whole.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/diag-bt.sh"
bt_require
BPFTRACE="$top_builddir/stap/mtrace-bt"
[ -x "$BPFTRACE" ] || fail "$BPFTRACE not built"

# gone_within FILE: waits up to 5 s for FILE to disappear.
gone_within() {
	n=0
	while [ -e "$1" ]; do
		n=$((n + 1))
		[ "$n" -lt 50 ] || return 1
		sleep 0.1
	done
}

# The kernel's stack table may refuse a stack whose slot another holds
# ("failed to look up stack id -17", as bt_capture knows): made again, up
# to five times.
for try in 1 2 3 4 5; do
	held_setup
	gated env LD_PRELOAD="$MTRACE_LIB" "$top_builddir/tests/diag_calls" paths 3
	map=/tmp/perf-$gated_pid.map
	rm -f "$map" # a stale one of an earlier process of that pid
	t_remove_at_exit "$map"
	bt_start stacks.out "$top_builddir/stap/malloc-stacks.bt" "$MTRACE_LIB" "$gated_pid"
	[ -f "$map" ] && [ ! -s "$map" ] || fail "mtrace-bt made no empty $map for pid $gated_pid"
	bt_go
	held_wait "$gated_pid"
	bt_stop
	held_release
	wait "$gated_pid" || fail "diag_calls paths 3 failed"
	gone_within "$map" || fail "$map still there 5 s after bpftrace exited"
	grep -q '^ERROR: failed to look up stack id -17 ' bt.stderr || break
	echo "two stacks shared a slot of the kernel's stack table (try $try)" >&2
done
! grep -q '^@[a-z_]*\[\]: ' stacks.out || fail "bpftrace printed empty stacks: $(head -n 3 bt.stderr)"
grep -q '^@stacks\[' stacks.out || fail "bpftrace printed no stack: $(head -n 3 bt.stderr)"

# A map the process has is its own: used as it is and kept.
held_setup
gated env LD_PRELOAD="$MTRACE_LIB" "$top_builddir/tests/diag_calls" paths 3
map=/tmp/perf-$gated_pid.map
echo "1000 10 jitted" >"$map"
t_remove_at_exit "$map"
bt_start stacks2.out "$top_builddir/stap/malloc-stacks.bt" "$MTRACE_LIB" "$gated_pid"
bt_go
held_wait "$gated_pid"
bt_stop
held_release
wait "$gated_pid" || fail "diag_calls paths 3 failed"
sleep 1.5
expect_eq "the process's own perf map after mtrace-bt" "1000 10 jitted" "$(cat "$map" 2>&1)"
pass
