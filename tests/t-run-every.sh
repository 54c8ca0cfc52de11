#!/bin/sh
# t-run-every: every call the workload format has is replayed and counted,
# including realloc(NULL, n), realloc(p, 0), free(NULL), the sized frees and
# calls that failed when recorded; each --touch mode gives the same counts.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/run_lib.sh"

synth every e.wl
calls="malloc calloc realloc reallocarray memalign posix_memalign aligned_alloc valloc pvalloc free free_sized free_aligned_sized"
for touch in all page none; do
	trace_run --json --touch=$touch e.wl >e.json || fail "--touch=$touch failed"
	for c in $calls; do
		expect_eq "$touch: $c count" "$(expected e.wl "$c")" \
			"$(jget e.json "['calls']['$c']['count']")"
	done
	expect_eq "$touch: ideal" "$(expected e.wl ideal_peak)" "$(jget e.json "['ideal_peak_bytes']")"
	# malloc(32) failed when recorded and succeeds now; malloc(2^62) and
	# realloc(p, 2^62) fail both times.
	expect_eq "$touch: recorded failures that succeeded" 1 "$(jget e.json "['recorded_failed_ok']")"
	expect_eq "$touch: calls failing now" 0 "$(jget e.json "['failed_now']")"
done

# The text report lists the calls beyond the original four.
trace_run e.wl >e.txt || fail "text run failed"
for c in reallocarray posix_memalign free_aligned_sized; do
	grep -Eq "^Avg $c time: +[0-9,]+ in +1 calls$" e.txt || fail "no Avg line for $c"
done
# Those lines share one column for the average, past the longest name; the
# original four keep theirs.
cols=$(grep '^Avg ' e.txt | tail -n +5 | awk '{ print index($0, " in ") }' | sort -u)
expect_eq "one column for the added lines" 1 "$(echo "$cols" | wc -l)"
[ "$cols" -gt 28 ] || fail "added lines end their average at column $cols"
pass
