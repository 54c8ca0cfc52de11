#!/bin/sh
# t-rec-stamps: with MTRACE_PRECISE_TIME=1 every record carries its own
# time; by default a thread's allocation of the block it just freed carries
# the free's time instead, unless another thread allocated that block in
# between (the owner table, recorder.h): two threads handing one block
# back and forth (rec_handback) read back in an order where the block is
# never allocated while live, which version 3's MTRACE_SPARSE_TIME=1 broke;
# a bad value is one line and the default (docs/FORMAT.md "Time").
. "$top_srcdir/tests/lib.sh"

storm=$top_builddir/tests/rec_storm
stamps=$top_builddir/tests/rec_stamps

MTRACE_PRECISE_TIME=1 MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE=$t_dir/precise LD_PRELOAD=$MTRACECTL_LIB \
	"$storm" "$t_dir/log" 2 20000 0 >/dev/null 2>err || fail "rec_storm failed: $(cat err)"
[ ! -s err ] || fail "unexpected messages: $(cat err)"
"$stamps" "$(ls precise.*)" >precise.count || fail "rec_stamps: $(cat precise.count)"
set -- $(cat precise.count)
[ "$2" -gt 40000 ] || fail "too few records to tell: $2"
expect_eq "stamped records with MTRACE_PRECISE_TIME=1" "$2" "$1"

MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE=$t_dir/sparse LD_PRELOAD=$MTRACECTL_LIB \
	"$storm" "$t_dir/log" 2 20000 0 >/dev/null 2>err || fail "rec_storm failed: $(cat err)"
sparse=$(ls sparse.*)
"$stamps" "$sparse" >sparse.count || fail "rec_stamps: $(cat sparse.count)"
set -- $(cat sparse.count)
[ "$1" -gt 0 ] && [ "$1" -lt "$2" ] || fail "default: $1 of $2 records stamped, expected some"
trace2wl sparse.wl "$sparse" >sum 2>err || fail "trace2wl: $(cat err)"
grep -q ' 0 unknown frees -> ' sum || fail "frees dropped: $(cat sum)"

# One arena, no thread cache: a freed block goes back where any thread's
# next allocation of its size finds it.
MALLOC_ARENA_MAX=1 GLIBC_TUNABLES=glibc.malloc.tcache_count=0 MTRACE_CTL_QUIET=1 \
	MTRACE_CTL_FILE=$t_dir/handback LD_PRELOAD=$MTRACECTL_LIB \
	"$top_builddir/tests/rec_handback" >handback.out 2>err || fail "rec_handback: $(cat err)"
handback=$(ls handback.*[0-9])
block=$(sed -n 's/^handed back //p' handback.out)
if [ -z "$block" ]; then
	allocator=$(mtrace-dump "$handback" | sed -n 's/^# allocator \([^,]*\),.*/\1/p')
	[ "$allocator" != libc.so.6 ] || fail "glibc did not hand the block back: $(cat handback.out)"
	echo "skipping the hand-back: the allocator below is $allocator, not glibc's" >&2
else
	# In time order, no allocation of a live block, no free of a dead one.
	mtrace-dump "$handback" >handback.txt || fail "mtrace-dump $handback"
	awk '$3 ~ /^free\(0x/ { a = substr($3, 6); sub(/\).*/, "", a)
			if (!live[a]) { print "free of " a " not live: " $0; bad = 1 } live[a] = 0 }
		$3 ~ /^(malloc|calloc)\(/ && $5 ~ /^0x/ {
			if (live[$5]) { print "allocation of live " $5 ": " $0; bad = 1 } live[$5] = 1 }
		END { exit bad }' handback.txt >order.txt || fail "hand-back out of order: $(cat order.txt)"
	"$stamps" --list "$handback" >handback.list || fail "rec_stamps: $(cat handback.list)"
	# Of the block's 2000-byte allocations (four: A, B, A, A), only A's
	# last, with no other thread between its free and it, goes unstamped.
	expect_eq "unstamped allocations of the handed-back block" 1 \
		"$(awk -v b="$(printf '%#x' "$block")" '$2 == 1 && $3 == b && $4 == 0' handback.list | wc -l)"
	trace2wl handback.wl "$handback" >sum 2>err || fail "trace2wl: $(cat err)"
	grep -q ' 0 unknown frees -> ' sum || fail "hand-back frees dropped: $(cat sum)"
fi

MTRACE_PRECISE_TIME=yes MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE=$t_dir/bad LD_PRELOAD=$MTRACECTL_LIB \
	"$storm" "$t_dir/log" 2 20000 0 >/dev/null 2>err || fail "rec_storm failed: $(cat err)"
expect_eq "message of a bad MTRACE_PRECISE_TIME" \
	"mtrace: MTRACE_PRECISE_TIME must be 0 or 1, not 'yes'; a record may carry an earlier record's time" \
	"$(cat err)"
pass
