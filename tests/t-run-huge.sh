#!/bin/sh
# t-run-huge: recorded successes that no allocator can grant (a workload
# claiming pvalloc(2^64 - 101) succeeded, as a broken recording or a broken
# allocator may) replay on every allocator and touch mode without a crash:
# the calls count as failing now and as no bytes of ideal RSS.  An allocator
# that hands out a shorter block than asked is never written past.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/run_lib.sh"

synth huge h.wl
find_allocators
for a in $allocators; do
	for touch in all page none; do
		trace_run --json --allocator=$a --touch=$touch h.wl >h.json 2>err ||
			fail "--allocator=$a --touch=$touch: status $? $(cat err)"
		expect_eq "$a $touch: failing now" 4 "$(jget h.json "['failed_now']")"
		expect_eq "$a $touch: ideal" "$(expected h.wl ideal_peak)" "$(jget h.json "['ideal_peak_bytes']")"
		expect_eq "$a $touch: pvalloc count" 1 "$(jget h.json "['calls']['pvalloc']['count']")"
		expect_eq "$a $touch: free count" 4 "$(jget h.json "['calls']['free']['count']")"
	done
done
list=$(echo $allocators | tr ' ' ,)
trace_run --compare=$list --repeat=1 --touch=page h.wl >cmp.txt 2>err || fail "--compare=$list: $(cat err)"
grep -Eq '^calls failed now +4( +4 +1\.00x)*$' cmp.txt || fail "--compare: $(grep 'failed now' cmp.txt)"

# run_stall.so returns 64 bytes for a 3 MiB request: --touch=all writes
# only what the block holds, so the heap survives to the free.
stall="$top_builddir/tests/.libs/run_stall.so"
synth short s.wl
trace_run --json --touch=all --allocator="$stall" s.wl >s.json 2>err ||
	fail "short block: status $? $(cat err)"
expect_eq "short block: free count" 1 "$(jget s.json "['calls']['free']['count']")"
pass
