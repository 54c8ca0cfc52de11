#!/bin/sh
# t-run-chain.sh - threads that ran one after another replay one after
# another on a replay thread, not each on its own.  5,000 short threads
# (each allocates and frees a block after the one before has ended), and
# the same with a main thread that calls between them, as a program that
# starts and joins a thread for each piece of work: every call replays,
# and trace_run holds under 16 MB before the clock.  With a replay thread,
# a stack and a stream window for each, it held 67.5 MB (and stopped at
# the 32,452nd of 40,000 threads, on vm.max_map_count).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/run_lib.sh"

n=5000
bound_kb=16384
for shape in alone main; do
	awk -v n=$n -v shape=$shape 'BEGIN {
		ts = 100
		for (i = 2; i <= n + 1; i++) {
			if (shape == "main") {
				printf "1 %d malloc 24 = 0x%x\n", ts++, 65536 + 64 * i
				printf "1 %d free 0x%x\n", ts++, 65536 + 64 * i
			}
			printf "%d %d malloc 16 = 0x%x\n", i, ts++, 1048576 + 32 * i
			printf "%d %d free 0x%x\n", i, ts++, 1048576 + 32 * i
		}
	}' | "$top_builddir/tests/conv_mktrace" $shape.mtrace || fail "$shape: conv_mktrace"
	trace2wl -f $shape.wl $shape.mtrace >/dev/null || fail "$shape: trace2wl"
	trace2wl --stats --json $shape.wl >$shape.stats || fail "$shape: trace2wl --stats"
	trace_run --touch=none --json $shape.wl >$shape.json 2>err || fail "$shape: trace_run: $(cat err)"
	expect_calls $shape $shape.stats $shape.json
	kb=$(jget $shape.json "['replayer_kb']")
	echo "$shape: $n threads in turn, trace_run $kb KiB before the clock"
	[ "$kb" -le $bound_kb ] || fail "$shape: $kb KiB before the clock for $n threads in turn (bound $bound_kb)"
done
pass
