#!/bin/sh
# t-conv-frees.sh - frees trace2wl cannot pair with an allocation: blocks
# allocated before recording began (unknown frees) are counted and dropped;
# double frees are counted, dropped and reported with both record numbers,
# at most ten lines of them; a realloc of an unknown block becomes a fresh
# allocation.  Calls the recorder itself dropped are counted too.
. "$top_srcdir/tests/lib.sh"

"$top_builddir/tests/conv_mktrace" frees.mtrace <<'S' || fail "conv_mktrace"
1 100 free 0x7000
1 110 malloc 16 = 0x1000
1 120 free 0x1000
1 130 free 0x1000
2 140 realloc 0x8000 64 = 0x2000
2 150 free_sized 0x9000 8
2 160 free 0x2000
S
trace2wl --no-timing frees.wl frees.mtrace >sum 2>err || fail "trace2wl: $(cat err)"
expect_eq summary "trace2wl: 2 threads, 4 calls, 0 blocks never freed, 3 unknown frees, 1 double free -> frees.wl (334 bytes, 83.5 B/call)" "$(cat sum)"
expect_eq report "trace2wl: frees.mtrace: double free of 0x1000 at record 1:3 (freed at 1:2)" "$(cat err)"
trace2wl --dump frees.wl >dump || fail "--dump"
cat >want <<'D'
# thread 0 tid 1, 3 ops
1  malloc(16) = #1
1  free(#1)
1  signal 0
# thread 1 tid 2, 3 ops
2  wait 0
2  realloc(NULL, 64) = #2
2  free(#2)
D
diff -u want dump >&2 || fail "workload differs"
trace2wl --stats --json frees.wl | grep -qF '"unknown_frees":3,"double_frees":1' ||
	fail "header does not count the dropped frees"

# A double free by another thread than the first free's names both threads.
printf '1 100 malloc 16 = 0x3000\n1 110 free 0x3000\n2 200 free 0x3000\n' |
	"$top_builddir/tests/conv_mktrace" cross.mtrace || fail "conv_mktrace"
trace2wl cross.wl cross.mtrace >sum 2>err || fail "trace2wl: $(cat err)"
expect_eq "cross-thread report" \
	"trace2wl: cross.mtrace: double free of 0x3000 at record 2:0 (freed at 1:1)" "$(cat err)"

# Twelve double frees: all counted, ten reported, then one line saying so.
i=0
{
	while [ $i -lt 12 ]; do
		echo "1 $((1000 + 3 * i)) malloc 8 = 0x$((5000 + i))"
		echo "1 $((1001 + 3 * i)) free 0x$((5000 + i))"
		echo "1 $((1002 + 3 * i)) free 0x$((5000 + i))"
		i=$((i + 1))
	done
} | "$top_builddir/tests/conv_mktrace" many.mtrace || fail "conv_mktrace"
trace2wl many.wl many.mtrace >sum 2>err || fail "trace2wl: $(cat err)"
grep -q ", 12 double frees ->" sum || fail "summary does not count 12 double frees: $(cat sum)"
expect_eq "report lines" 11 "$(wc -l <err)"
tail -n 1 err | grep -q "further problems are counted, not printed" || fail "no notice of the cap"

# Calls the recorder could not record (a malloc from a signal handler that
# interrupted one) are in the trace header's dropped count: the summary and
# --stats say how many, since the workload lacks them.
printf '1 100 malloc 8 = 0x10\n1 110 free 0x10\n' | "$top_builddir/tests/conv_mktrace" dropped.mtrace
printf '\003' | dd of=dropped.mtrace bs=1 seek=88 conv=notrunc 2>/dev/null # header: dropped = 3
trace2wl dropped.wl dropped.mtrace >sum 2>err || fail "trace2wl: $(cat err)"
expect_eq "summary with dropped calls" \
	"trace2wl: 1 thread, 2 calls, 0 blocks never freed, 0 unknown frees, 3 calls not recorded" \
	"$(sed 's/ -> .*//' sum)"
trace2wl --stats dropped.wl | grep -q '; 3 calls the recorder did not record$' ||
	fail "--stats does not say the recorder dropped calls: $(trace2wl --stats dropped.wl)"
trace2wl --stats --json dropped.wl | grep -qF '"source_dropped":3' || fail "--stats --json lacks source_dropped"
trace2wl -f --json dropped.wl dropped.mtrace | grep -qF '"dropped":3' || fail "--json summary lacks dropped"
pass
