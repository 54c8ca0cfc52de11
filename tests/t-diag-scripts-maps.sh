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
# The exact stack count uses 32 stacks only: bpftrace files stacks in a
# table by hash and drops, without a word, a stack whose slot another
# holds (mtrace-scripts(7)); at 256 stacks that hit about one run in ten.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/diag-bt.sh"
bt_require
[ -f "$MTRACE_LIB" ] || fail "$MTRACE_LIB is not built"

# watch OUT SCRIPT MODE ARG: SCRIPT over the held 'diag_calls MODE ARG'.
watch() {
	held_setup
	gated env LD_PRELOAD="$MTRACE_LIB" "$top_builddir/tests/diag_calls" "$3" "$4"
	bt_start "$1" "$top_builddir/stap/$2" "$MTRACE_LIB" "$gated_pid"
	bt_go
	held_wait "$gated_pid"
	bt_stop
	held_release
	wait "$gated_pid" || fail "diag_calls $3 $4 failed"
}

# The total of MAP's entries whose stack has a frame of FUNC.
total() { # FILE MAP FUNC
	awk -v map="@$2[" -v fn="$3" 'index($0, map) == 1 { hit = 0; inmap = 1; next }
		inmap && $1 ~ "^" fn "\\+" { hit = 1 }
		inmap && /^\]: / { if (hit) { t += $2; n++ } inmap = 0 }
		END { printf "%d %d\n", n, t }' "$1"
}

BPFTRACE="$top_builddir/stap/mtrace-bt"
watch leaks.out malloc-leaks.bt many 20000
expect_eq "stacks and blocks leaked from leak_many" "1 10000" "$(total leaks.out leaked_blocks leak_many)"
expect_eq "stacks and bytes leaked from leak_many" "1 320000" "$(total leaks.out leaked_bytes leak_many)"
! grep '^# malloc-leaks: .* not' leaks.out || fail "malloc-leaks.bt warned with room for every block"

watch stacks.out malloc-stacks.bt paths 5
expect_eq "stacks and calls through next()" "32 32" "$(total stacks.out stacks next)"
! grep '^# malloc-stacks: .* not' stacks.out || fail "malloc-stacks.bt warned with room for every stack"

BPFTRACE_MAP_KEYS_MAX=4096
export BPFTRACE_MAP_KEYS_MAX
watch leaks4k.out malloc-leaks.bt many 20000
grep -q '^# malloc-leaks: 15904 blocks not tracked' leaks4k.out ||
	fail "malloc-leaks.bt with 4096 keys: no warning of the 15904 blocks past the map: $(grep -v '^ ' leaks4k.out | tail -n 4)"
expect_eq "blocks leaked and tracked with 4096 keys" "1 2048" "$(total leaks4k.out leaked_blocks leak_many)"

BPFTRACE_MAP_KEYS_MAX=64
watch stacks64.out malloc-stacks.bt paths 8
grep -q '^# malloc-stacks: [0-9]* calls not counted' stacks64.out ||
	fail "malloc-stacks.bt with 64 keys: no warning: $(grep -v '^ ' stacks64.out | tail -n 4)"
pass
