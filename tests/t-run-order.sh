#!/bin/sh
# t-run-order: a multi-threaded replay keeps the recorded concurrency.  A
# producer records a 64 KiB block every 100 us and a consumer frees each
# 50 us later, so one block was live at a time; the sync points alone let
# the producer run as far ahead as the scheduler allows.  By default an
# allocation waits until the other threads have come within the window of
# its recorded time (3 us here, chosen from the workload), so the consumer
# has freed the block before the next is made: exactly one block live, on
# every run and with --pace.  --unpaced and a workload without recorded
# times say that only the sync points order the threads.  The byte cap
# (clock.c) holds an allocation that would take the live bytes past the
# recorded ideal peak and 1/32 until frees bring them under it, unless no
# other thread can free; the window does not wait for a thread it holds,
# and of two held threads the one whose next signal a thread waits for goes.
# The CPU time those waits take is counted apart from trace_run's own cost
# (clock_ns_per_call, clock_waits), and only when the shared clock runs.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/run_lib.sh"

synth prodcons pc.wl 1000
block=65536
expect_eq "recorded peak" $block "$(expected pc.wl ideal_peak)"
for run in 1 2 3; do
	trace_run --json --touch=none pc.wl >pc.json 2>err || fail "run $run: $(cat err)"
	expect_eq "run $run: ideal peak, clocked, window, recorded peak, byte cap" \
		"$block True 3 64 $((block + block / 32))" \
		"$(echo $(jgets pc.json "['ideal_peak_bytes']" "['clocked']" "['window_us']" \
			"['recorded_ideal_kb']" "['ideal_cap_bytes']"))"
done
trace_run --json --touch=none --pace pc.wl >pace.json 2>err || fail "--pace: $(cat err)"
expect_eq "--pace: ideal peak" $block "$(jget pace.json "['ideal_peak_bytes']")"
wall=$(jget pace.json "['wall_usec']")
[ "$wall" -ge 100000 ] || fail "--pace: 1000 blocks 100 us apart replayed in $wall usec"
trace_run --json --touch=none --window=0 pc.wl >w0.json 2>err || fail "--window=0: $(cat err)"
expect_eq "--window=0: ideal peak" $block "$(jget w0.json "['ideal_peak_bytes']")"

# A window wider than the recorded gaps lets the producer run ahead on the
# clock, but its next block would make two live, past the byte cap: it
# waits for the consumer's free, so one block is live on every run.
for run in 1 2 3; do
	trace_run --touch=none --window=100000 pc.wl >wide.txt 2>err || fail "--window=100000: $(cat err)"
	grep -q '^Order: recorded; an allocation waits for the other threads to come within 100,000 usec of its time (--window) and while it would take the live requested bytes past 66 Kb (1.03x the recorded ideal peak)$' \
		wide.txt || fail "no Order line: $(grep Order wide.txt)"
	grep -q '^Recorded ideal peak: 64 Kb' wide.txt || fail "no recorded peak line"
	grep -q '^64 Kb Max Ideal RSS$' wide.txt || fail "wide window, run $run: $(grep 'Max Ideal' wide.txt)"
	[ ! -s err ] || fail "wide window, run $run: $(cat err)"
done
trace_run --touch=none --unpaced pc.wl >free.txt 2>/dev/null || fail "--unpaced failed"
grep -q '^Order: sync points only (--unpaced)$' free.txt || fail "--unpaced: $(grep Order free.txt)"
synth handoff h.wl 10
trace_run h.wl >h.txt || fail "handoff failed"
grep -q '^Order: sync points only (no recorded times' h.txt || fail "untimed: $(grep Order h.txt)"

# A free stamped 1 ms before the allocation it frees (two cores' clocks):
# trace2wl makes thread 2 wait for thread 1's malloc, whose time is far
# past thread 2's next call.  Thread 1 must not wait for thread 2 there,
# which waits for thread 1: the replay ends, it does not stall.
printf '%s\n' '1 1000000 malloc 32 = 0x1000' '2 10 malloc 8 = 0x9000' '2 20 free 0x1000' \
	'2 30 free 0x9000' '1 2000000 malloc 16 = 0x2000' '1 2000100 free 0x2000' |
	"$top_builddir/tests/conv_mktrace" skew.mtrace || fail "conv_mktrace"
trace2wl skew.wl skew.mtrace >/dev/null || fail "trace2wl skew"
trace_run --watchdog=5 --touch=none --json skew.wl >skew.json 2>err || fail "skewed clocks: $(cat err)"
expect_eq "skewed clocks: clocked" True "$(jget skew.json "['clocked']")"

# five_runs NAME PEAK: NAME.mtrace converted and replayed five times with
# --window=0; the ideal peak of every run must be PEAK.
five_runs() {
	trace2wl "$1.wl" "$1.mtrace" >/dev/null || fail "trace2wl $1"
	for run in 1 2 3 4 5; do
		trace_run --watchdog=5 --touch=none --window=0 --json "$1.wl" >"$1.json" 2>err ||
			fail "$1, run $run: $(cat err)"
		expect_eq "$1, run $run: ideal peak" "$2" "$(jget "$1.json" "['ideal_peak_bytes']")"
	done
}

# Thread 1's second block reuses the address thread 2 frees at 3 ms, so
# trace2wl puts that free first: one block live at a time.  The window
# lets the block at 2 ms go while thread 2, past it on the clock, has not
# freed yet (two blocks live); the cap holds it until the free, every run.
printf '%s\n' '1 1000000 malloc 1000 = 0x1000' '1 2000000 malloc 1000 = 0x1000' \
	'2 3000000 free 0x1000' '1 5000000 free 0x1000' |
	"$top_builddir/tests/conv_mktrace" reuse.mtrace || fail "conv_mktrace"
five_runs reuse 1000
# Whether the cap held thread 1 depends on whether thread 2 had freed by
# then, so the last run's figures must only agree: a wait counted has its
# CPU time counted (time without a wait is legitimate: the wake-ups a
# thread makes for others are counted there too).
waits=$(jget reuse.json "['clock_waits']")
python3 -c 'import sys; w, ns = int(sys.argv[1]), float(sys.argv[2]); sys.exit(w > 0 and not ns > 0)' \
	"$waits" "$(jget reuse.json "['clock_ns_per_call']")" ||
	fail "reuse: $waits clock waits but $(jget reuse.json "['clock_ns_per_call']") clock ns a call"
trace_run --touch=none --unpaced --json reuse.wl >reuse-u.json 2>err || fail "reuse --unpaced: $(cat err)"
expect_eq "reuse --unpaced: clock waits" 0 "$(jget reuse-u.json "['clock_waits']")"
expect_eq "reuse --unpaced: clock ns" 0.0 "$(jget reuse-u.json "['clock_ns_per_call']")"

# The own cost line names the clock's share when the clock runs (100,000
# calls at least: below, the line gives the timer's cost alone).  Small
# blocks: unpaced, the producer may run ahead of the consumer by all
# 60,000, and TSan's trace_run (scripts/sanitize.sh) maps 64 KiB blocks
# two mappings each, past vm.max_map_count's 65,530.
synth prodcons big.wl 60000 64
trace_run --touch=none big.wl >big.txt 2>err || fail "prodcons 60000: $(cat err)"
grep -q "^Own cost: -\{0,1\}[0-9.]* ns a call (CPU time outside the allocator's calls, less the timer's [0-9.]* ns a call for its two reads and the shared clock's [0-9.]* ns a call in [0-9,]* waits); preempted: [0-9,]*; off the processor in calls: [0-9.]* ms$" big.txt ||
	fail "clocked: $(grep 'Own cost' big.txt)"
trace_run --touch=none --unpaced big.wl >big-u.txt 2>err || fail "prodcons 60000 --unpaced: $(cat err)"
grep -q "^Own cost: -\{0,1\}[0-9.]* ns a call (CPU time outside the allocator's calls, less the timer's [0-9.]* ns a call for its two reads); preempted: [0-9,]*; off the processor in calls: [0-9.]* ms$" big-u.txt ||
	fail "--unpaced: $(grep 'Own cost' big-u.txt)"

# The same, but thread 2 makes a block at 3 ms before its free: the
# window holds it until thread 1 reaches 3 ms, and the cap holds thread 1
# until thread 2 frees.  The shape of the run_mt recordings that replayed
# at 1.09-1.16x their peak: thread 1 went past the cap there, as nothing
# else could move.  The window does not wait for a thread the cap holds,
# so thread 2 makes its block and frees thread 1's: the recorded peak,
# every run.
printf '%s\n' '1 1000000 malloc 1000 = 0x1000' '1 2000000 malloc 1000 = 0x1000' \
	'2 3000000 malloc 10 = 0x9000' '2 4000000 free 0x1000' '2 5000000 free 0x9000' \
	'1 6000000 free 0x1000' |
	"$top_builddir/tests/conv_mktrace" held.mtrace || fail "conv_mktrace"
five_runs held 1010
expect_eq "held: recorded peak" 1010 "$(jget held.json "['header_ideal_peak_bytes']")"

# Which held thread goes past the cap when nothing can free.  Thread 1's
# second block reuses the address thread 3 frees at 3 ms, so the recorded
# peak is 2,010 bytes (cap 2,072) while the replay has 2,000 live when
# thread 1 wants its third block at 2.3 ms: held.  Thread 2 makes 10
# bytes at 2.35 ms (the window waits for thread 1 to be held), then wants
# 100 at 2.4 ms: held too, and thread 3 waits for that block.  The thread
# to go is thread 2, whose next signal thread 3 waits for (no bytes before
# it), not thread 1, further behind on the clock: 2,110 bytes at the peak,
# every run; letting the one furthest behind go made it 3,010.
printf '%s\n' '1 1000000 malloc 1000 = 0x1000' '1 2000000 malloc 1000 = 0x1000' \
	'1 2300000 malloc 1000 = 0x3000' '2 2350000 malloc 10 = 0x5000' \
	'2 2400000 malloc 100 = 0x2000' '3 2500000 free 0x2000' '3 3000000 free 0x1000' \
	'3 5000000 free 0x3000' '1 6000000 free 0x1000' '2 7000000 free 0x5000' |
	"$top_builddir/tests/conv_mktrace" choose.mtrace || fail "conv_mktrace"
five_runs choose 2110
expect_eq "choose: recorded peak" 2010 "$(jget choose.json "['header_ideal_peak_bytes']")"
pass
