#!/bin/sh
# t-diag-scripts-sizes.sh - malloc-sizes.bt histograms the sizes asked for
# per call type: diag_calls sizes makes 7 mallocs of 3000 bytes, 5 callocs
# of 3 x 1000, 3 reallocs to 6000, 2 posix_memaligns of 20000 and 4
# aligned_allocs of 512.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/diag-bt.sh"
bt_require
[ -f "$MTRACE_LIB" ] || fail "$MTRACE_LIB is not built"

held_setup
gated env LD_PRELOAD="$MTRACE_LIB" "$top_builddir/tests/diag_calls" sizes
bt_start sz.out "$top_builddir/stap/malloc-sizes.bt" "$MTRACE_LIB" "$gated_pid"
bt_go
held_wait "$gated_pid"
bt_stop
held_release
wait "$gated_pid" || fail "diag_calls sizes failed"

# bucket MAP RANGE: the count on the histogram line of RANGE in @MAP.
bucket() {
	awk -v map="@$1:" -v range="$2" '
		$1 == map && NF == 1 { inmap = 1; next }
		/^@/ { inmap = 0 }
		inmap && index($0, range) == 1 { sub(/^[^)]*\) */, ""); print $1 }' sz.out
}
expect_eq "malloc [2K, 4K)" 7 "$(bucket malloc '[2K, 4K)')"
expect_eq "calloc [2K, 4K)" 5 "$(bucket calloc '[2K, 4K)')"
expect_eq "realloc [4K, 8K)" 3 "$(bucket realloc '[4K, 8K)')"
expect_eq "posix_memalign [16K, 32K)" 2 "$(bucket posix_memalign '[16K, 32K)')"
expect_eq "aligned_alloc [512, 1K)" 4 "$(bucket aligned_alloc '[512, 1K)')"
expect_eq "memalign (not called)" "" "$(grep '^@memalign:' sz.out || true)"
pass
