#!/bin/sh
# t-conv-memory.sh - trace2wl's memory follows the live set, not the
# trace's length or how many distinct addresses it touches: a trace of 4
# million calls whose allocations never reuse an address, with a million
# blocks live at its peak, converts within 32 MiB + 40 bytes per block live
# at the peak (issue #11), measured as the converter's peak RSS.  A map
# that grew to hold freed addresses, or doubled beside its old
# table, needs several times that.  Blocks of 4 MiB and more, whose sizes
# the map keeps apart from its entries, still count fully in the ideal peak,
# and are taken off it in full when freed.
. "$top_srcdir/tests/lib.sh"

live=1000000
"$top_builddir/tests/conv_fresh" fresh.mtrace 4000000 $live || fail "conv_fresh"
"$top_builddir/bench/cpu_time" cost trace2wl --json fresh.wl fresh.mtrace >sum 2>err ||
	fail "trace2wl: $(cat err)"
field() { sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" sum; }
expect_eq "blocks live at the peak" $live "$(field peak_live)"
expect_eq "calls" 4000000 "$(field calls)"
expect_eq "blocks never freed" 0 "$(field never_freed)"
expect_eq "unknown frees" 0 "$(field unknown_frees)"
expect_eq "double frees" 0 "$(field double_frees)"
rss=$(cut -d" " -f2 cost)
bound=$((32 * 1024 + 40 * live / 1024))
echo "trace2wl peak RSS $rss KiB for $live live blocks (bound $bound KiB)"
[ "$rss" -le "$bound" ] || fail "peak RSS $rss KiB exceeds 32 MiB + 40 B x $live live blocks = $bound KiB"

# A block of 5 MB (its size kept apart) shrunk in place to 2^22 - 2 bytes,
# the largest an entry holds, and freed: a size cut to the entry's field
# would leave bytes live, and raise the peak.  Then 1 GiB grown in place to 2 GiB beside 20 MB and 16 B
# blocks: the peak is 2 GiB + 20 MB + 16 B; then a double free of the big
# block is reported.
"$top_builddir/tests/conv_mktrace" big.mtrace <<'S' || fail "conv_mktrace"
1 90 malloc 5000000 = 0x7d0000000000
1 94 realloc 0x7d0000000000 4194302 = 0x7d0000000000
1 96 free 0x7d0000000000
1 100 malloc 1073741824 = 0x7f0000000000
1 110 malloc 20000000 = 0x7e0000000000
1 120 realloc 0x7f0000000000 2147483648 = 0x7f0000000000
1 130 malloc 16 = 0x1000
1 140 free 0x7e0000000000
1 150 free 0x7f0000000000
1 160 free 0x7f0000000000
1 170 free 0x1000
S
trace2wl --json big.wl big.mtrace >sum 2>err || fail "trace2wl on big blocks: $(cat err)"
expect_eq "ideal peak with big blocks" 2167483664 "$(field ideal_peak)"
expect_eq "double frees of a big block" 1 "$(field double_frees)"
expect_eq "report" "trace2wl: big.mtrace: double free of 0x7f0000000000 at record 1:9 (freed at 1:8)" "$(cat err)"
pass
