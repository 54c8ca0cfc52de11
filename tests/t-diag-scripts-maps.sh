#!/bin/sh
# t-diag-scripts-maps.sh - malloc-leaks.bt and malloc-stacks.bt past
# the size of bpftrace's maps.  diag_calls many 20000 leaks 10000 blocks of
# 32 bytes from leak_many(), more than the default 4096 keys; diag_calls
# paths D allocates once from each of 2^D distinct stacks.  Run through
# mtrace-bt, which gives bpftrace room, the figures must be exact; with
# the limit forced below them (4096 blocks, 64 stacks: printing thousands
# of stacks takes bpftrace minutes) the scripts must say what they could
# not count rather than print wrong totals.
#
# The exact stack count uses 32 stacks only, and the one past the limit
# 128: the kernel files bpftrace's stacks in a table of 131072 slots by
# hash and refuses a stack whose slot another holds (mtrace-scripts(7)),
# which bt_capture makes again: 256 stacks would share a slot in about
# one run in five (32640 pairs over 131072 slots), 128 in one in sixteen.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/diag-bt.sh"
bt_require
[ -f "$MTRACE_LIB" ] || fail "$MTRACE_LIB is not built"

# The number of MAP's entries whose stack has a frame of FUNC, and their total.
total() { # FILE MAP FUNC
	bt_stack_counts "$@" | awk '{ t += $1 } END { printf "%d %d\n", NR, t }'
}

BPFTRACE="$top_builddir/stap/mtrace-bt"
bt_capture leaks.out malloc-leaks.bt many 20000
expect_eq "stacks and blocks leaked from leak_many" "1 10000" "$(total leaks.out leaked_blocks leak_many)"
expect_eq "stacks and bytes leaked from leak_many" "1 320000" "$(total leaks.out leaked_bytes leak_many)"
! grep '^# malloc-leaks: .* not' leaks.out || fail "malloc-leaks.bt warned with room for every block"

bt_capture stacks.out malloc-stacks.bt paths 5
expect_eq "stacks and calls through next()" "32 32" "$(total stacks.out stacks next)"
! grep '^# malloc-stacks: .* not' stacks.out || fail "malloc-stacks.bt warned with room for every stack"

BPFTRACE_MAP_KEYS_MAX=4096
export BPFTRACE_MAP_KEYS_MAX
bt_capture leaks4k.out malloc-leaks.bt many 20000
grep -q '^# malloc-leaks: 15904 blocks not tracked' leaks4k.out ||
	fail "malloc-leaks.bt with 4096 keys: no warning of the 15904 blocks past the map: $(grep -v '^ ' leaks4k.out | tail -n 4)"
expect_eq "blocks leaked and tracked with 4096 keys" "1 2048" "$(total leaks4k.out leaked_blocks leak_many)"

BPFTRACE_MAP_KEYS_MAX=64
bt_capture stacks64.out malloc-stacks.bt paths 7
grep -q '^# malloc-stacks: [0-9]* calls not counted' stacks64.out ||
	fail "malloc-stacks.bt with 64 keys: no warning: $(grep -v '^ ' stacks64.out | tail -n 4)"
pass
