#!/bin/sh
# t-conv-adopt: object numbers follow the live set when some threads
# allocate what others free.  tests/run_mt (4 producers hand 160,000 blocks
# through a 64-slot queue to 4 consumers, which free them), recorded and
# converted: each freed number goes back to the consumer that freed it,
# which never allocates as much, so without adoption every producer's
# block got a new number (160,000 and more).  With it, the numbers stay
# within the most blocks live at once + 16,384 + a list of 4,096 a thread,
# at most one adoption for each 4,096 frees; the workload passes the full
# check (a number allocated again only after its free, in happens-before:
# the adopter's wait), and replays with every call of the workload.
# Then 5,000 short threads, one after another, each allocating and freeing
# 10 blocks: a thread's numbers went with it when it ended, 50,000 in all;
# an ended thread's list is adopted by the next that needs numbers.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/run_lib.sh"

[ -f "$MTRACECTL_LIB" ] || fail "the recorder ($MTRACECTL_LIB) is not built"
items=40000
MTRACE_CTL_FILE="$t_dir/mt.mt" MTRACE_CTL_QUIET=1 LD_PRELOAD="$MTRACECTL_LIB" \
	"$top_builddir/tests/run_mt" $items >/dev/null || fail "recording run_mt failed"
set -- "$t_dir"/mt.mt.*
[ $# -eq 1 ] && [ -f "$1" ] || fail "expected one trace mt.mt.PID, found: $*"
trace2wl -f --json mt.wl "$1" >conv.json || fail "trace2wl failed"
objects=$(jget conv.json "['objects']")
live=$(jget conv.json "['peak_live']")
adoptions=$(jget conv.json "['adoptions']")
calls=$(jget conv.json "['calls']")
echo "$objects object numbers for $live blocks live at the peak; $adoptions adoptions"
handed=$((4 * items))
bound=$((live + 16384 + 9 * 4096))
[ "$objects" -le "$bound" ] ||
	fail "$objects object numbers for $live live blocks: more than $bound"
[ "$objects" -lt "$handed" ] || fail "$objects object numbers: one for each of the $handed blocks handed over"
[ "$adoptions" -gt 0 ] || fail "no adoption"
[ "$adoptions" -le $((calls / 4096 + 9)) ] || fail "$adoptions adoptions for $calls calls"

trace2wl --stats --json mt.wl >stats.json || fail "trace2wl --stats rejected the workload"
expect_eq "double frees dropped" 0 "$(jget stats.json "['double_frees']")"
expect_eq "unknown frees dropped" 0 "$(jget stats.json "['unknown_frees']")"
expect_eq "objects in the header" "$objects" "$(jget stats.json "['objects']")"
trace_run --json mt.wl >run.json 2>err || fail "trace_run: $(cat err)"
expect_calls glibc stats.json run.json

n=5000
awk -v n=$n 'BEGIN {
	ts = 100
	for (i = 1; i <= n; i++) {
		for (k = 0; k < 10; k++)
			printf "%d %d malloc 16 = 0x%x\n", i, ts++, 1048576 + 32 * (10 * i + k)
		for (k = 0; k < 10; k++)
			printf "%d %d free 0x%x\n", i, ts++, 1048576 + 32 * (10 * i + k)
	}
}' | "$top_builddir/tests/conv_mktrace" short.mtrace || fail "conv_mktrace"
trace2wl -f --json short.wl short.mtrace >short.json || fail "trace2wl of short threads failed"
objects=$(jget short.json "['objects']")
live=$(jget short.json "['peak_live']")
echo "short threads: $objects object numbers for $live blocks live at the peak"
[ "$objects" -le $((live + 16384 + 10)) ] ||
	fail "short threads: $objects object numbers for $live live blocks"
trace2wl --stats short.wl >/dev/null || fail "trace2wl --stats rejected the short threads' workload"
pass
