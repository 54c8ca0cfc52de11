#!/bin/sh
# t-conv-many-threads.sh - a trace of thousands of short threads, each
# started after the one before and freeing its block, converts in memory
# near linear in the thread count.  trace2wl once kept a flat clock of every
# thread known per thread and a 16 KiB buffer per thread to the end: 5000
# threads took 258 MB.  The bound is on address space (ulimit -v, which any
# shell has), several times what the conversion needs: the 20 MB trace is
# mapped whole, the rest is about a kilobyte per thread.
. "$top_srcdir/tests/lib.sh"

n=5000
awk -v n=$n 'BEGIN {
	for (i = 1; i <= n; i++) {
		printf "%d %d malloc 16 = 0x%x\n", i, 100 + 10 * i, 1048576 + 32 * i
		if (i > 1)
			printf "%d %d free 0x%x\n", i, 105 + 10 * i, 1048576 + 32 * (i - 1)
	}
}' | "$top_builddir/tests/conv_mktrace" many.mtrace || fail "conv_mktrace"

limit_kb=98304
(ulimit -v $limit_kb && exec trace2wl many.wl many.mtrace) >sum 2>err ||
	fail "trace2wl in $limit_kb KB of address space: $(cat err)"
expect_eq summary "trace2wl: $n threads, $((2 * n - 1)) calls, 1 block never freed, 0 unknown frees" \
	"$(sed 's/ -> .*//' sum)"
(ulimit -v $limit_kb && exec trace2wl --stats many.wl) >stats 2>err ||
	fail "the full check in $limit_kb KB of address space: $(cat err)"
pass
