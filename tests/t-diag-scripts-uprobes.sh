#!/bin/sh
# t-diag-scripts-uprobes.sh - a workload from a program that is already
# running, without libmtrace.so: start it, attach malloc-log-uprobes.bt,
# record, stop, and the log must hold its calls exactly, convert and replay.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/diag-bt.sh"
bt_require

"$top_builddir/tests/diag_calls" loop "$t_dir/stop" &
prog=$!
t_reap $prog
n=0
until [ -e stop.running ]; do
	n=$((n + 1))
	[ "$n" -lt 100 ] || fail "diag_calls loop did not start"
	sleep 0.1
done
libc=$(awk '/\/libc\.so\.6$/ { print $6; exit }' "/proc/$prog/maps")
[ -n "$libc" ] || fail "no libc.so.6 in /proc/$prog/maps"

bt_start up.log "$top_builddir/stap/malloc-log-uprobes.bt" "$libc" "$prog"
# bpftrace attaches its probes one by one while the program runs, malloc's
# last here: 200 malloc lines means about 200 batches seen whole.
bt_wait_lines up.log '^mlog1 .* malloc ' 200
bt_stop
touch stop
wait $prog

# Every batch of diag_calls loop is: a = malloc(100); b = calloc(4, 25);
# a = realloc(a, 300); posix_memalign(&c, 64, 200); free(a), free(b),
# free(c).  The first and last batches may be cut by attach and detach;
# every complete one must be exact, pointers included.
grep '^mlog1 ' up.log | sort -n -k3,3 | awk -v tid="$prog" '
	$2 != tid { print "wrong thread: " $0; bad = 1 }
	{ call[n] = $4; line[n] = $0; f[n, 5] = $5; f[n, 6] = $6; f[n, 7] = $7; f[n, 8] = $8; f[n, 9] = $9; n++ }
	END {
		for (i = 0; i + 6 < n; i++) {
			if (call[i] != "malloc" || call[i+1] != "calloc" || call[i+2] != "realloc" ||
			    call[i+3] != "posix_memalign" || call[i+4] != "free" || call[i+5] != "free" ||
			    call[i+6] != "free")
				continue;
			ok = f[i,5] == 100 && f[i+1,5] == 4 && f[i+1,6] == 25 &&
			     f[i+2,5] == f[i,7] && f[i+2,6] == 300 &&
			     f[i+3,5] == 64 && f[i+3,6] == 200 && f[i+3,9] == 0 &&
			     f[i+4,5] == f[i+2,8] && f[i+5,5] == f[i+1,8] && f[i+6,5] == f[i+3,8]
			if (!ok) { print "batch at line " i " differs: " line[i]; bad = 1 }
			full++
			i += 6
		}
		print full + 0 > "batches"
		exit bad
	}' >check.out || fail "uprobe log is wrong: $(head -n 3 check.out)"
[ "$(cat batches)" -ge 150 ] || fail "only $(cat batches) complete batches in the log"

# The log converts and replays: trace2wl reads it directly.
"$top_builddir/tests/diag_logimport" up.log up.tr >/dev/null || fail "import failed"
command -v trace2wl >/dev/null || skip "converter/trace2wl not built yet: log checked, not replayed"
command -v trace_run >/dev/null || skip "trace_run/trace_run not built yet: log checked, not replayed"
trace2wl --json up.wl up.log >conv.json 2>conv.err || fail "trace2wl could not convert the uprobe log"
# Probes come alive one by one, some only after BEGIN; the script keeps the
# start of the log consistent anyway: no free of a block it never
# allocated, unknown, or double once the address came back.  (Probes also
# go one by one at the end, so a block may come back while the log holds
# it live; trace2wl takes it as freed, with a warning.)
expect_eq "double frees in the log" 0 "$(sed -n 's/.*"double_frees":\([0-9]*\).*/\1/p' conv.json)"
expect_eq "unknown frees in the log" 0 "$(sed -n 's/.*"unknown_frees":\([0-9]*\).*/\1/p' conv.json)"
trace_run up.wl >run.out || fail "trace_run could not replay the uprobe log's workload"
pass
