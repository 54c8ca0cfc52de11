#!/bin/sh
# t-conv-memory.sh - trace2wl's memory follows the live set, not the
# trace's length or how many distinct addresses it touches: a trace of 4
# million calls whose allocations never reuse an address, with a million
# blocks live at its peak, converts within 32 MiB + 40 bytes per block live
# at the peak (issue #11), measured as the converter's peak RSS.  A map
# that kept freed addresses until a rebuild, or doubled beside its old
# table, needs several times that.
. "$top_srcdir/tests/lib.sh"

live=1000000
"$top_builddir/tests/conv_fresh" fresh.mtrace 4000000 $live || fail "conv_fresh"
"$top_builddir/tests/maxrss" rss trace2wl --json fresh.wl fresh.mtrace >sum 2>err ||
	fail "trace2wl: $(cat err)"
field() { sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" sum; }
expect_eq "blocks live at the peak" $live "$(field peak_live)"
expect_eq "calls" 4000000 "$(field calls)"
expect_eq "blocks never freed" 0 "$(field never_freed)"
expect_eq "unknown frees" 0 "$(field unknown_frees)"
expect_eq "double frees" 0 "$(field double_frees)"
rss=$(cat rss)
bound=$((32 * 1024 + 40 * live / 1024))
echo "trace2wl peak RSS $rss KiB for $live live blocks (bound $bound KiB)"
[ "$rss" -le "$bound" ] || fail "peak RSS $rss KiB exceeds 32 MiB + 40 B x $live live blocks = $bound KiB"
pass
