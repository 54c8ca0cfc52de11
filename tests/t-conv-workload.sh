#!/bin/sh
# t-conv-workload.sh - workloads survive the writer and reader unchanged,
# and the reader's full check refuses each damaged variant with its reason,
# and each handoff that sync points do not order.
. "$top_srcdir/tests/lib.sh"
"$top_builddir/tests/conv_wlrt" "$t_dir" || fail "conv_wlrt found a mismatch (above)"
# trace_run relies on the check: a free in thread 1 of thread 0's block with
# no sync point between would run first as free(NULL), or after the free.
expect_fail_with '^trace_run: .*unsynced\.wl: thread 1 \(tid 2\), op 0: uses object 1 with no wait' \
	trace_run "$t_dir/unsynced.wl"
# Every reader with the full check, not trace_run alone, refuses a header
# that counts a sync point no stream signals (docs/FORMAT.md).
"$top_builddir/tests/run_synth" extrasync xs.wl >/dev/null || fail "run_synth extrasync failed"
expect_fail_with '^trace2wl: xs\.wl: header says 5 sync points, the streams signal 4$' \
	trace2wl --stats xs.wl
pass
