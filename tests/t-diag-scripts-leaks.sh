#!/bin/sh
# t-diag-scripts-leaks.sh - malloc-leaks.bt finds exactly the blocks
# diag_calls leaks: from leak_here(), 1111 bytes by malloc, 2 x 1111 by
# calloc, 3333 by realloc (of a malloc'd block, which is not a leak);
# churn() allocates, reallocates and frees 32 blocks twice and leaks none.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/diag-bt.sh"
bt_require
[ -f "$MTRACE_LIB" ] || fail "$MTRACE_LIB is not built"

bt_capture lk.out malloc-leaks.bt leaks

# Per map, the count of each stack whose frames include FUNC, in order.
per_stack() { # MAP FUNC
	bt_stack_counts lk.out "$1" "$2" | tr '\n' ' '
}
grep -q '^ *leak_here+' lk.out ||
	fail "no stack shows leak_here(): is libmtrace.so built without frame pointers? $(sed -n 3,6p lk.out)"
expect_eq "leaked blocks per stack of leak_here" "1 1 1 " "$(per_stack leaked_blocks leak_here)"
expect_eq "leaked bytes per stack of leak_here" "1111 2222 3333 " "$(per_stack leaked_bytes leak_here)"
expect_eq "leaks from churn" "" "$(per_stack leaked_blocks churn)"
pass
