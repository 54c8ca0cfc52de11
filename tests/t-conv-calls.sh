#!/bin/sh
# t-conv-calls.sh - every call type of the recorder reaches the workload with
# its arguments and alignment: failed calls stay failed calls, realloc grows,
# shrinks in place, realloc(NULL, n), realloc(p, 0) returning NULL frees p,
# a failed realloc keeps p, free(NULL) is kept, events are skipped.  With
# --timing each op carries the ns since its thread's previous call.  The
# header's ideal peak (2860 bytes, after pvalloc) is worked out in comments.
# Object numbers are given out again once freed, last freed first: 7 in all.
. "$top_srcdir/tests/lib.sh"

"$top_builddir/tests/conv_mktrace" calls.mtrace <<'S' || fail "conv_mktrace"
1 100 malloc 24 = 0x1000                   # live 24
1 101 calloc 3 8 = 0x1100                  # 48
1 102 realloc 0x1000 48 = 0x1200           # 72
1 103 realloc 0x1200 16 = 0x1200           # 40
1 104 realloc NULL 32 = 0x1300             # 72
1 105 realloc 0x1300 0 = NULL              # 40: glibc freed it
1 106 reallocarray 0x1100 4 8 = 0x1400     # 48
1 107 memalign 64 100 = 0x1440             # 148
1 108 posix_memalign 128 200 = 0x1500      # 348
1 109 aligned_alloc 256 512 = 0x1600       # 860
1 110 valloc 1000 = 0x2000                 # 1860
1 111 pvalloc 1000 = 0x3000                # 2860, the peak
1 112 free_sized 0x1440 100
1 113 free_aligned_sized 0x1500 128 200
1 114 malloc 1099511627776 = NULL
1 115 posix_memalign 64 1099511627776 = NULL
1 116 realloc 0x1600 1099511627776 = NULL  # failed: 0x1600 stays live
1 117 free 0x1600
1 118 free NULL
1 119 event 3
1 120 free 0x1200
1 121 free 0x1400
1 122 free 0x2000
S
trace2wl --timing calls.wl calls.mtrace >sum 2>err || fail "trace2wl: $(cat err)"
[ ! -s err ] || fail "unexpected diagnostics: $(cat err)"
expect_eq summary "trace2wl: 1 thread, 22 calls, 1 block never freed, 0 unknown frees -> calls.wl (401 bytes, 18.2 B/call)" "$(cat sum)"
trace2wl --dump calls.wl >dump || fail "--dump"
cat >want <<'D'
# thread 0 tid 1, 22 ops
1  malloc(24) = #1  +100ns
1  calloc(3, 8) = #2  +1ns
1  realloc(#1, 48) = #3  +1ns
1  realloc(#3, 16) = #1  +1ns
1  realloc(NULL, 32) = #3  +1ns
1  realloc(#3, 0) = NULL  +1ns
1  reallocarray(#2, 4, 8) = #3  +1ns
1  memalign(64, 100) = #2  +1ns
1  posix_memalign(align 128, 200) = #4  +1ns
1  aligned_alloc(256, 512) = #5  +1ns
1  valloc(1000) = #6  +1ns
1  pvalloc(1000) = #7  +1ns
1  free_sized(#2, 100)  +1ns
1  free_aligned_sized(#4, 128, 200)  +1ns
1  malloc(1099511627776) = NULL  +1ns
1  posix_memalign(align 64, 1099511627776) = NULL  +1ns
1  realloc(#5, 1099511627776) = NULL  +1ns
1  free(#5)  +1ns
1  free(NULL)  +1ns
1  free(#1)  +2ns
1  free(#3)  +1ns
1  free(#6)  +1ns
D
diff -u want dump >&2 || fail "workload differs from the calls traced"

trace2wl --stats --json calls.wl >stats.json || fail "--stats --json"
for kv in '"calls":22' '"objects":7' '"ideal_peak":2860' '"source_records":23' '"timing":true' \
	'"by_call":{"malloc":2,"free":5,"calloc":1,"realloc":5,"reallocarray":1,"memalign":1,"posix_memalign":2,"aligned_alloc":1,"valloc":1,"pvalloc":1,"free_sized":1,"free_aligned_sized":1}'; do
	grep -qF "$kv" stats.json || fail "--stats --json lacks $kv: $(cat stats.json)"
done

# --json summary carries the same figures.
trace2wl -f --json calls.wl calls.mtrace >sum.json || fail "trace2wl --json"
for kv in '"threads":1' '"calls":22' '"never_freed":1' '"unknown_frees":0' '"events":1' '"bytes":'; do
	grep -qF "$kv" sum.json || fail "--json summary lacks $kv: $(cat sum.json)"
done
# Without --timing, times are kept only for a trace of more than one
# thread (trace_run holds such a replay to the recorded order); --no-timing
# leaves them out there too.
trace2wl --stats --json calls.wl | grep -qF '"timing":false' || fail "one thread: times kept by default"
printf '1 100 malloc 8 = 0x10\n2 110 free 0x10\n' | "$top_builddir/tests/conv_mktrace" two.mtrace ||
	fail "conv_mktrace"
trace2wl two.wl two.mtrace >/dev/null || fail "two threads: trace2wl"
trace2wl --stats --json two.wl | grep -qF '"timing":true' || fail "two threads: no times by default"
trace2wl --no-timing -f two.wl two.mtrace >/dev/null || fail "two threads: --no-timing"
trace2wl --stats --json two.wl | grep -qF '"timing":false' || fail "two threads: --no-timing kept times"
# A failed reallocarray whose nmemb * size overflows asked for more than
# memory holds, not for 0 bytes: the block stays live and the free is real.
"$top_builddir/tests/conv_mktrace" overflow.mtrace <<'S' || fail "conv_mktrace"
1 100 malloc 16 = 0x1000
1 200 reallocarray 0x1000 4294967296 4294967296 = NULL
1 300 free 0x1000
S
trace2wl overflow.wl overflow.mtrace >sum 2>err || fail "trace2wl: $(cat err)"
[ ! -s err ] || fail "overflow: unexpected diagnostics: $(cat err)"
trace2wl --dump overflow.wl >dump || fail "overflow: --dump"
printf '%s\n' '# thread 0 tid 1, 3 ops' '1  malloc(16) = #1' \
	'1  reallocarray(#1, 4294967296, 4294967296) = NULL' '1  free(#1)' >want
diff -u want dump >&2 || fail "overflow: a failed reallocarray was taken as a free"
pass
