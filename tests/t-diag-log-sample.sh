#!/bin/sh
# t-diag-log-sample.sh - the checked-in malloc-log (tests/data/, the log of
# 'diag_calls log' as malloc-log.bt printed it; malloc-log.stp's formats
# are the same, which t-diag-scripts-stap.sh checks) converts with trace2wl
# and replays with trace_run, every call of it.
. "$top_srcdir/tests/lib.sh"

sample="$top_srcdir/tests/data/malloc-log.sample"
"$top_builddir/tests/diag_logimport" "$sample" sample.tr >kind || fail "import failed"
expect_eq "sniffed kind" malloc-log "$(cat kind)"
"$top_builddir/tools/mtrace-dump" sample.tr | grep -v '^#' | awk '{ sub(/\(.*/, "", $3); print $3 }' |
	sort | uniq -c | awk '{ printf "%s=%s ", $2, $1 }' >counts
expect_eq "calls of the sample" "aligned_alloc=1 calloc=1 free=10 malloc=5 memalign=1 \
posix_memalign=2 pvalloc=1 realloc=2 reallocarray=1 valloc=1 " "$(cat counts)"

command -v trace2wl >/dev/null || skip "converter/trace2wl not built: sample imported, not replayed"
command -v trace_run >/dev/null || skip "trace_run/trace_run not built: sample imported, not replayed"
trace2wl sample.wl "$sample" || fail "trace2wl could not convert the sample"
trace_run --json sample.wl >run.out || fail "trace_run could not replay the sample"
for call in malloc=5 calloc=1 realloc=2 reallocarray=1 memalign=1 posix_memalign=2 \
	aligned_alloc=1 valloc=1 pvalloc=1; do
	expect_eq "${call%=*} calls replayed" "${call#*=}" \
		"$(grep -o "\"${call%=*}\":{\"count\":[0-9]*" run.out | cut -d: -f3)"
done
pass
