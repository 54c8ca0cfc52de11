#!/bin/sh
# t-diag-scripts-log.sh - malloc-log.bt logs every call of the malloc family
# exactly (arguments and results as the program saw them), the log
# converts and replays, and malloc-log.stp passes stap's translator.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/diag-bt.sh"
bt_require
[ -f "$MTRACE_LIB" ] || fail "$MTRACE_LIB is not built"

gated env LD_PRELOAD="$MTRACE_LIB" "$top_builddir/tests/diag_calls" log "$t_dir/expect"
bt_start ml.log "$top_builddir/stap/malloc-log.bt" "$MTRACE_LIB" "$gated_pid"
bt_go
wait "$gated_pid" || fail "diag_calls log failed"
# bpftrace reads its buffers on its own time: wait for every call (the
# program's and its two fences, malloc and free each) before stopping it.
bt_wait_lines ml.log '^mlog1 ' $(($(wc -l <expect) + 4))
bt_stop

# Between the two fences (malloc and free of the first, malloc of the
# second), the program's calls and nothing else, in order.
grep '^mlog1 ' ml.log | sort -n -k3,3 |
	sed -n '/ malloc 7777777 /,/ malloc 7777778 /p' | sed '1,2d;$d' >fenced
[ -s fenced ] || fail "no fenced calls in the log: $(head -n 3 ml.log)"
awk -v pid="$gated_pid" '$2 != pid { print "thread " $2 " is not the main thread" }' fenced >other
[ ! -s other ] || fail "$(head -n 1 other)"
cut -d' ' -f4- fenced >got
diff -u expect got >&2 || fail "malloc-log.bt differs from what the program did (diff above)"

"$top_builddir/tests/diag_logimport" ml.log ml.tr >/dev/null || fail "import failed"

# DIAG_REGEN_SAMPLE=PATH: this log becomes the checked-in sample that
# t-diag-log-sample.sh converts (tests/data/malloc-log.sample).
if [ -n "${DIAG_REGEN_SAMPLE:-}" ]; then
	{ echo "# malloc-log of 'diag_calls log', printed by malloc-log.bt (bpftrace) under"
	  echo "# tests/t-diag-scripts-log.sh with DIAG_REGEN_SAMPLE=\$PWD/tests/data/malloc-log.sample;"
	  echo "# malloc-log.stp prints its lines with the same formats (t-diag-scripts-stap.sh)"
	  grep '^mlog1 ' ml.log; } >"$DIAG_REGEN_SAMPLE"
fi
command -v trace2wl >/dev/null || skip "converter/trace2wl not built yet: log checked, not replayed"
command -v trace_run >/dev/null || skip "trace_run/trace_run not built yet: log checked, not replayed"
trace2wl ml.wl ml.log || fail "trace2wl could not convert the bpftrace log"
trace_run --json ml.wl >run.out || fail "trace_run could not replay the bpftrace log's workload"
# Every allocating call of the log is replayed, once.
for call in $(grep '^mlog1 ' ml.log | cut -d' ' -f4 | grep -v '^free' | sort -u); do
	expect_eq "$call calls replayed" "$(grep -c "^mlog1 [0-9]* [0-9]* $call " ml.log)" \
		"$(grep -o "\"$call\":{\"count\":[0-9]*" run.out | cut -d: -f3)"
done
pass
