#!/bin/sh
# t-diag-scripts-stacks.sh - malloc-stacks.bt counts allocations by user
# stack, hottest last: diag_calls allocates 64 times from hot(), 16 from
# warm(), 4 from cold(), each through grab().
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/diag-bt.sh"
bt_require
[ -f "$MTRACE_LIB" ] || fail "$MTRACE_LIB is not built"

bt_capture st.out malloc-stacks.bt stacks

# One entry per stack: "@stacks[", frames, "]: COUNT".  Keep, in print
# order, the count of each stack that went through grab() and the one of
# hot, warm or cold it came from.
awk '/^@stacks\[/ { from = ""; grab = 0; next }
     /^ +grab\+/ { grab = 1 }
     /^ +(hot|warm|cold)\+/ && from == "" { sub(/^ +/, ""); sub(/\+.*/, ""); from = $0 }
     /^\]: / && grab { print from, $2 }' st.out >ranked
grep -q '^ *grab+' st.out ||
	fail "no stack shows grab(): is libmtrace.so built without frame pointers? $(sed -n 3,6p st.out)"
expect_eq "stacks through grab(), coolest first" "cold 4 warm 16 hot 64" "$(echo $(cat ranked))"
expect_eq "the hottest stack is printed last" "64" "$(grep '^\]: ' st.out | tail -n 1 | cut -d' ' -f2)"
pass
